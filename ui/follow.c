/* follow.c: from a slice to its relatives (see view.h): the GPU work a CPU slice and the
 * slices nested in it launched, one after the other (]); from GPU work back to its
 * launch, then up the slices that launch nests in ([); the parent and the first child
 * (u, i); flows, where a trace has them. Launches and flows stay within their rank:
 * correlation ids of different ranks are unrelated. */
#include <stdio.h>
#include <string.h>

#include "src/index.h"
#include "lib/escape.h"
#include "ui/view_state.h"

static const struct slice_ref no_slice = { TT_NONE, TT_NONE };

static bool same(struct slice_ref a, struct slice_ref b) { return a.track == b.track && a.idx == b.idx; }

static bool is_gpu_work(const struct trace *t, const struct slice *s)
{
	return slice_cls(t, s) == SC_KERNEL || slice_cls(t, s) == SC_MEMCPY || slice_cls(t, s) == SC_MEMSET;
}

static bool is_stream(const struct track *tr) { return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM; }

/* The name of slice R (view ids), escaped into BUF. */
static const char *name_of(const struct view *v, struct slice_ref r, char *buf, size_t n)
{
	const struct strtab *st = &view_trace_of(v, r.track)->strings;
	uint32_t name = slice_name(view_trace_of(v, r.track), &view_track(v, r.track)->slices[r.idx]);
	escape_term_buf(strtab_get(st, name), strtab_len(st, name), buf, n);
	return buf;
}

/* What GPU work S is, for the status line. */
static const char *work_kind(const struct trace *t, const struct slice *s)
{
	return slice_cls(t, s) == SC_MEMCPY   ? "memcpy"
	       : slice_cls(t, s) == SC_MEMSET ? "memset"
	       : slice_cls(t, s) == SC_KERNEL ? "kernel"
	                                      : "GPU activity";
}

/* The launch of GPU work S of track TR of trace T (its runtime call, by correlation), or
 * {TT_NONE}. */
static struct slice_ref launch_of(const struct trace *t, const struct track *tr, const struct slice *s)
{
	uint32_t g = slice_gpu(tr, s);
	if (!is_gpu_work(t, s) || g == TT_NONE || g >= t->ngpu)
		return no_slice;
	struct slice_ref p = t->gpu[g].peer;
	return p.track < t->ntracks && p.idx < t->tracks[p.track].nslices ? p : no_slice;
}

/* The GPU work launched by slice IDX of track LOCAL of T or by a slice nested in it, in
 * launch order: the WANT-th (0-based; {TT_NONE} past the last), and how many in *COUNT.
 * The slices nested in IDX follow it in the track's order, up to the next one at its
 * depth or above, so this walks them and nothing else. */
static struct slice_ref nth_launch(const struct trace *t, uint32_t local, uint32_t idx, uint32_t want, uint32_t *count)
{
	const struct track *tr = &t->tracks[local];
	uint16_t d = slice_depth(t, &tr->slices[idx]);
	struct slice_ref found = no_slice, last = no_slice;
	uint32_t n = 0;
	for (uint32_t i = idx; i < tr->nslices && (i == idx || slice_depth(t, &tr->slices[i]) > d); i++) {
		const struct slice *c = &tr->slices[i];
		uint32_t g = track_gpu_at(tr, i);
		if (g == TT_NONE || g >= t->ngpu || is_gpu_work(t, c))
			continue;
		struct slice_ref p = t->gpu[g].peer;
		if (p.track >= t->ntracks || p.idx >= t->tracks[p.track].nslices || same(p, last))
			continue; /* nothing launched; or a driver call under the runtime call of that launch */
		last = p;
		if (n++ == want)
			found = p;
	}
	*count = n;
	return found;
}

/* ] from the selection: its GPU work, or the next of the slice whose GPU work ] is
 * visiting. Returns whether there was any. */
static bool follow_launches(struct view *v)
{
	struct slice_ref root = v->sel;
	uint32_t want = 0, n;
	if (same(v->sel, v->launch_at) && v->launch_root.track != TT_NONE) {
		root = v->launch_root;
		want = v->launch_pos; /* the next one, 0-based */
	}
	int rank = view_rank_of(root.track);
	const struct trace *t = view_trace_of(v, root.track);
	uint32_t local = root.track & VIEW_TRACK_MASK;
	if (is_stream(&t->tracks[local]))
		return false;
	struct slice_ref to = nth_launch(t, local, root.idx, want, &n);
	if (n == 0)
		return false;
	if (to.track == TT_NONE) { /* past the last: the first again */
		want = 0;
		to = nth_launch(t, local, root.idx, 0, &n);
	}
	struct slice_ref there = { view_id(rank, to.track), to.idx };
	char name[96];
	view_go_to(v, there);
	v->launch_root = root;
	v->launch_at = there;
	v->launch_pos = want + 1;
	view_status(v, "%s %u/%u launched under %s (] next, [ its launch)",
	            work_kind(t, &t->tracks[to.track].slices[to.idx]), want + 1, n,
	            name_of(v, root, name, sizeof name));
	return true;
}

/* Follows a flow of the trace from (FORWARD) or to the selection. Returns whether there
 * was one. */
static bool follow_flow(struct view *v, bool forward)
{
	const struct trace *t = view_trace_of(v, v->sel.track);
	int rank = view_rank_of(v->sel.track);
	uint32_t local = v->sel.track & VIEW_TRACK_MASK;
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct flow *f = &t->flows[i];
		struct slice_ref here = forward ? f->from : f->to, there = forward ? f->to : f->from;
		if (here.track == local && here.idx == v->sel.idx && there.track != TT_NONE) {
			view_go_to(v, (struct slice_ref){ view_id(rank, there.track), there.idx });
			char cat[64];
			escape_term_buf(strtab_get(&t->strings, f->cat), strtab_len(&t->strings, f->cat), cat,
			                sizeof cat);
			view_status(v, "followed a %s flow", cat);
			return true;
		}
	}
	return false;
}

/* One step up from the selection: from GPU work to its launch, else to the slice it
 * nests in. Returns whether there was one; says where it went. */
static bool go_up(struct view *v, const char *again)
{
	const struct trace *t = view_trace_of(v, v->sel.track);
	int rank = view_rank_of(v->sel.track);
	uint32_t local = v->sel.track & VIEW_TRACK_MASK;
	const struct track *tr = &t->tracks[local];
	const struct slice *s = &tr->slices[v->sel.idx];
	char name[96];
	struct slice_ref to = launch_of(t, tr, s);
	if (to.track != TT_NONE) {
		const char *kind = work_kind(t, s);
		to.track = view_id(rank, to.track);
		view_go_to(v, to);
		view_status(v, "the %s's launch: %s (%s climbs on)", kind, name_of(v, to, name, sizeof name), again);
	} else {
		uint32_t p = index_parent(t, tr, v->sel.idx);
		if (p == TT_NONE)
			return false;
		to = (struct slice_ref){ v->sel.track, p };
		view_go_to(v, to);
		view_status(v, "up to %s, row %u (%s climbs on, i goes down)", name_of(v, to, name, sizeof name),
		            (unsigned)slice_depth(t, &tr->slices[p]), again);
	}
	v->climbed = to;
	return true;
}

bool follow_act(struct view *v, enum action a)
{
	if (a != A_FLOW_FORWARD && a != A_FLOW_BACK && a != A_PARENT && a != A_FIRST_CHILD)
		return false;
	if (v->sel.track == TT_NONE) {
		view_status(v, "select a slice first (Enter)");
		return true;
	}
	const struct trace *t = view_trace_of(v, v->sel.track);
	const struct track *tr = view_track(v, v->sel.track);
	const struct slice *s = &tr->slices[v->sel.idx];
	switch (a) {
	case A_FLOW_FORWARD:
		if (!follow_launches(v) && !follow_flow(v, true))
			view_status(v, "no GPU work launched by this slice or inside it, and no flow forward from it");
		break;
	case A_FLOW_BACK:
		/* a flow back first, but not while climbing: [ again goes on up */
		if (!is_gpu_work(t, s) && !same(v->sel, v->climbed) && follow_flow(v, false))
			break;
		if (!go_up(v, "[")) {
			if (!follow_flow(v, false))
				view_status(v,
				            is_gpu_work(t, s)
				                    ? "no launch recorded for this GPU work, and no flow back to it"
				                    : "at the top: no slice encloses this one, and no flow back to it");
		}
		break;
	case A_PARENT:
		if (!go_up(v, "u"))
			view_status(v, is_gpu_work(t, s) ? "no launch recorded for this GPU work"
			                                 : "at the top: no slice encloses this one");
		break;
	default: { /* A_FIRST_CHILD */
		uint32_t c = index_first_child(t, tr, v->sel.idx);
		char name[96];
		if (c == TT_NONE) {
			view_status(v, "nothing nested in this slice%s",
			            is_stream(tr) ? "" : " (] goes to the GPU work it launched)");
			break;
		}
		struct slice_ref to = { v->sel.track, c };
		view_go_to(v, to);
		view_status(v, "down to %s, row %u (i goes on, u back up)", name_of(v, to, name, sizeof name),
		            (unsigned)slice_depth(t, &tr->slices[c]));
		break;
	}
	}
	return true;
}
