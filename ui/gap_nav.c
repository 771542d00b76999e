/* gap_nav.c: the timeline's gap keys: every rank's GPU gaps (src/analysis.h) in view
 * time, visited in time order or longest first, and the minimum length. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "lib/escape.h"
#include "ui/view_state.h"

static int gap_cmp_start(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static struct gap *gaps_in_time_order(const struct gap_report *g)
{
	struct gap *out = xmalloc((g->ngaps ? g->ngaps : 1) * sizeof *out);
	if (g->ngaps > 0)
		memcpy(out, g->gaps, g->ngaps * sizeof *out);
	qsort(out, g->ngaps, sizeof *out, gap_cmp_start);
	return out;
}

static int gap_cmp_len(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	int64_t dx = tt_sub(x->end, x->start), dy = tt_sub(y->end, y->start);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : (x->device > y->device) - (x->device < y->device);
}

/* The gaps the gap keys and the gap list visit: every rank's, longest first, in view time,
 * their slice references as view ids. */
void view_build_gap_nav(struct view *v)
{
	uint32_t n = 0;
	for (int r = 0; r < v->nts; r++)
		n += v->rank_gaps[r]->r.ngaps;
	free(v->nav);
	free(v->gaps_by_time);
	v->nav = xmalloc((n ? n : 1) * sizeof *v->nav);
	v->nnav = 0;
	for (int r = 0; r < v->nts; r++) {
		const struct gap_report *gr = &v->rank_gaps[r]->r;
		for (uint32_t i = 0; i < gr->ngaps; i++) {
			struct gap g = gr->gaps[i];
			g.rank = r;
			g.start = tt_add(g.start, v->shift[r]);
			g.end = tt_add(g.end, v->shift[r]);
			if (g.track != TT_NONE)
				g.track = view_id(r, g.track);
			if (g.cpu.track != TT_NONE)
				g.cpu.track = view_id(r, g.cpu.track);
			if (g.next.track != TT_NONE)
				g.next.track = view_id(r, g.next.track);
			if (g.op.track != TT_NONE)
				g.op.track = view_id(r, g.op.track);
			if (g.user.track != TT_NONE)
				g.user.track = view_id(r, g.user.track);
			v->nav[v->nnav++] = g;
		}
	}
	qsort(v->nav, v->nnav, sizeof *v->nav, gap_cmp_len);
	struct gap_report all = { .gaps = v->nav, .ngaps = v->nnav };
	v->gaps_by_time = gaps_in_time_order(&all);
	v->gaps_version++;
}

bool view_in_gap(const struct view *v, int rank, int32_t device, int64_t a, int64_t b)
{
	const struct gap *bd = v->rank_gaps[rank]->by_device;
	uint32_t lo = 0, hi = v->rank_gaps[rank]->r.ngaps;
	while (lo < hi) { /* the first gap of a later device, or of DEVICE ending after a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (bd[mid].device > device || (bd[mid].device == device && bd[mid].end > a))
			hi = mid;
		else
			lo = mid + 1;
	}
	/* a device's gaps do not overlap: the first one ending after a is the only candidate */
	return lo < v->rank_gaps[rank]->r.ngaps && bd[lo].device == device && bd[lo].start < b;
}

void view_compute_gaps(struct view *v)
{
	static const struct gap_analysis none; /* a trace still loading: no gaps yet */
	for (int r = 0; r < v->nts; r++)
		v->rank_gaps[r] =
			v->partial || v->deferred ? &none : trace_gaps(v->ts[r], v->gap_min); /* once per length */
	view_build_gap_nav(v);
	v->gap_at = v->gap_rank = 0;
}

/* The distributed view's order: the straggler first, then by how often each rank arrived
 * last, then by position. */
/* Shows gap G: the window around it, the cursor at its start, the CPU slice that
 * explains it selected, its cause in the status line. */
void view_go_to_gap(struct view *v, const struct gap *g, const char *which)
{
	char d[48], name[160] = "";
	int64_t len = tt_sub(g->end, g->start), pad = tt_add(len - len / 4, 1);
	if (g->cpu.track != TT_NONE) {
		view_go_to(v, g->cpu);
		const struct slice *s = &view_track(v, g->cpu.track)->slices[g->cpu.idx];
		const struct trace *t = view_trace_of(v, g->cpu.track);
		const struct strtab *st = &t->strings;
		escape_term_buf(strtab_get(st, slice_name(t, s)), strtab_len(st, slice_name(t, s)), name, sizeof name);
	} else {
		v->sel.track = v->sel.idx = TT_NONE;
	}
	view_set_window_range(v, tt_sub(g->start, pad), tt_add(g->end, pad));
	v->cursor = g->start;
	v->gap_cur = *g;
	v->gap_shown = true;
	char op[160] = "";
	if (g->op.track != TT_NONE && (g->op.track != g->cpu.track || g->op.idx != g->cpu.idx)) {
		const struct slice *s = &view_track(v, g->op.track)->slices[g->op.idx];
		const struct trace *t = view_trace_of(v, g->op.track);
		const struct strtab *st = &t->strings;
		escape_term_buf(strtab_get(st, slice_name(t, s)), strtab_len(st, slice_name(t, s)), op, sizeof op);
	}
	char user[160] = "";
	if (g->user.track != TT_NONE && (g->user.track != g->cpu.track || g->user.idx != g->cpu.idx)) {
		const struct slice *s = &view_track(v, g->user.track)->slices[g->user.idx];
		const struct trace *t = view_trace_of(v, g->user.track);
		const struct strtab *st = &t->strings;
		escape_term_buf(strtab_get(st, slice_name(t, s)), strtab_len(st, slice_name(t, s)), user, sizeof user);
	}
	view_status(v, "%s: %s gap on %s %d, %s%s%s%s%s%s%s (HTA: %s)", which, timefmt_dur(len, d, sizeof d),
	            trace_device_noun(view_rank_trace(v, g->rank), g->device), g->device, gap_cause_text(g->cause),
	            name[0] ? ": " : "", name, op[0] ? " in " : "", op, user[0] ? ", your code: " : "", user,
	            hta_class_key(g->hta));
}

/* The gap keys; false for another action. */
bool gap_nav_act(struct view *v, enum action a)
{
	if (v->partial &&
	    (a == A_NEXT_GAP || a == A_PREV_GAP || a == A_BIGGEST_GAP || a == A_GAP_MIN_UP || a == A_GAP_MIN_DOWN)) {
		/* a gap in what is read so far may be filled by what is not */
		view_status(v, "the gaps are found when the trace has loaded");
		return true;
	}
	switch (a) {
	case A_NEXT_GAP:
	case A_PREV_GAP: {
		uint32_t n = v->nnav, i;
		if (n == 0) {
			char m[48];
			view_status(v, "no gap of %s or more (< and > change the minimum)",
			            timefmt_dur(v->gap_min, m, sizeof m));
			break;
		}
		if (a == A_NEXT_GAP) {
			for (i = 0; i < n && v->gaps_by_time[i].start <= v->cursor; i++)
				;
			if (i == n)
				i = 0;
		} else {
			for (i = n; i > 0 && v->gaps_by_time[i - 1].start >= v->cursor; i--)
				;
			i = i == 0 ? n - 1 : i - 1;
		}
		v->gap_at = i + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u in time", i + 1, n);
		view_go_to_gap(v, &v->gaps_by_time[i], which);
		break;
	}
	case A_BIGGEST_GAP: {
		if (v->nnav == 0) {
			char m[48];
			view_status(v, "no gap of %s or more (< and > change the minimum)",
			            timefmt_dur(v->gap_min, m, sizeof m));
			break;
		}
		v->gap_rank = v->gap_rank >= v->nnav ? 1 : v->gap_rank + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u by size", v->gap_rank, v->nnav);
		view_go_to_gap(v, &v->nav[v->gap_rank - 1], which);
		break;
	}
	case A_GAP_MIN_UP:
	case A_GAP_MIN_DOWN: {
		char d[48];
		if (a == A_GAP_MIN_UP && v->gap_min < INT64_MAX / 4)
			v->gap_min *= 2;
		else if (a == A_GAP_MIN_DOWN && v->gap_min > 1)
			v->gap_min /= 2;
		view_compute_gaps(v);
		view_status(v, "minimum gap %s: %u gaps", timefmt_dur(v->gap_min, d, sizeof d), v->nnav);
		break;
	}
	default: return false;
	}
	return true;
}
