/* gap_list.c: the gap table and the gap list panel (see gap_list.h). */
#include "ui/gap_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/names.h"
#include "ui/app.h"
#include "ui/table_panel.h"
#include "ui/view.h"

int gap_table_columns(struct column *cols, bool ranks)
{
	int n = 0;
	cols[n++] = (struct column){ "n", "#", COL_INT, 0, COL_TEXT_ONLY };
	if (ranks)
		cols[n++] = (struct column){ "rank", "rank", COL_INT, 0, 0 };
	cols[n++] = (struct column){ "device", "GPU", COL_INT, 0, 0 };
	cols[n++] = (struct column){ "stream", "stream", COL_INT, 0, 0 };
	cols[n++] = (struct column){ "start_ns", "start", COL_TIME, 0, 0 };
	cols[n++] = (struct column){ "end_ns", "end", COL_TIME, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "dur_ns", "duration", COL_DUR, 0, 0 };
	cols[n++] = (struct column){ "step", "step", COL_INT, 0, 0 };
	cols[n++] = (struct column){ "cause", "cause", COL_TEXT, 0, COL_TEXT_ONLY }; /* "data loading" */
	cols[n++] = (struct column){ "cause", "cause", COL_TEXT, 0, COL_JSON_ONLY }; /* "dataloader" */
	cols[n++] = (struct column){ "rule", "rule", COL_TEXT, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "hta_class", "HTA class", COL_TEXT, 0, 0 };
	cols[n++] = (struct column){ "cpu_slice.name", "CPU slice", COL_TEXT, 2, 0 };
	cols[n++] = (struct column){ "cpu_slice.track", "on", COL_TEXT, 1, 0 };
	cols[n++] = (struct column){ "cpu_slice.start_ns", "CPU slice start", COL_TIME, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "cpu_slice.dur_ns", "CPU slice duration", COL_DUR, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "op.name", "in operator", COL_TEXT, 1, 0 };
	cols[n++] = (struct column){ "op.start_ns", "operator start", COL_TIME, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "user_frame", "user code", COL_TEXT, 1, COL_JSON_ONLY };
	cols[n++] = (struct column){ "user_chain", "user code to CPU slice", COL_TEXT, 1, COL_JSON_ONLY };
	cols[n++] = (struct column){ "next_gpu_op.name", "next GPU op", COL_TEXT, 1, COL_JSON_ONLY };
	cols[n++] = (struct column){ "next_gpu_op.track", "its stream", COL_TEXT, 1, COL_JSON_ONLY };
	cols[n++] = (struct column){ "next_gpu_op.start_ns", "its start", COL_TIME, 0, COL_JSON_ONLY };
	cols[n++] = (struct column){ "next_gpu_op.dur_ns", "its duration", COL_DUR, 0, COL_JSON_ONLY };
	return n;
}

uint64_t gap_table_device_cols(const struct table *tb) { return TABLE_ALL & ~table_cols_of(tb, "stream"); }

uint64_t gap_table_stream_cols(const struct table *tb)
{
	uint64_t head =
		table_cols_between(tb, "n", "dur_ns") & ~table_cols_of(tb, "end_ns") & ~table_cols_of(tb, "rank");
	return head | table_cols_of(tb, "step") | table_cols_of(tb, "hta_class") |
	       table_cols_between(tb, "next_gpu_op.name", "next_gpu_op.dur_ns");
}

/* Sets the four cells from COL on: the name, track, start and duration of slice REF of T. */
static void set_slice(struct table *tb, uint32_t r, int col, const struct trace *t, struct slice_ref ref)
{
	if (ref.track == TT_NONE)
		return;
	const struct track *tr = &t->tracks[ref.track];
	const struct slice *s = &tr->slices[ref.idx];
	table_set_trace_str(tb, r, col, t, slice_name(t, s));
	table_set_trace_str(tb, r, col + 1, t, tr->name);
	table_set_int(tb, r, col + 2, s->ts);
	table_set_int(tb, r, col + 3, slice_dur(tr, s));
}

void gap_table_add(struct table *tb, const struct gap *g, const struct trace *t, struct slice_ref cpu,
                   struct slice_ref next, uint32_t n, int rank, uint64_t tag)
{
	uint32_t r = table_add_row(tb, tag);
	int c = 0;
	table_set_int(tb, r, c++, n);
	if (table_col(tb, "rank") >= 0)
		table_set_int(tb, r, c++, rank);
	table_set_int(tb, r, c++, g->device);
	if (g->track != TT_NONE)
		table_set_int(tb, r, c, t->tracks[g->track].stream);
	c++;
	table_set_int(tb, r, c++, g->start);
	table_set_int(tb, r, c++, g->end);
	table_set_int(tb, r, c++, tt_sub(g->end, g->start));
	if (g->step >= 0)
		table_set_int(tb, r, c, g->step);
	c++;
	table_set_str(tb, r, c++, gap_cause_text(g->cause));
	table_set_str(tb, r, c++, gap_cause_key(g->cause));
	table_set_str(tb, r, c++, gap_cause_rule(g->cause));
	table_set_str(tb, r, c++, hta_class_key(g->hta));
	set_slice(tb, r, c, t, cpu);
	c += 4;
	if (g->op.track != TT_NONE) { /* the operator that made a blocking call */
		const struct slice *s = &t->tracks[g->op.track].slices[g->op.idx];
		table_set_trace_str(tb, r, c, t, slice_name(t, s));
		table_set_int(tb, r, c + 1, s->ts);
	}
	c += 2;
	if (g->user.track != TT_NONE) { /* the user's line around the CPU slice, and the frames between */
		char chain[1024];
		table_set_trace_str(tb, r, c, t, slice_name(t, &t->tracks[g->user.track].slices[g->user.idx]));
		table_set_str(tb, r, c + 1, gaps_user_chain(t, g->user, cpu, chain, sizeof chain));
	}
	c += 2;
	set_slice(tb, r, c, t, next);
}

/* ---- the panel ------------------------------------------------------------------- */

struct gap_list {
	struct table t;
	struct column cols[GAP_TABLE_MAX_COLS];
	struct view *v;
	uint32_t version; /* the view's gaps_version the table was built from */
	bool by_time;
	int cause;      /* -1: every cause, else only this enum gap_cause */
	int32_t device; /* INT32_MIN: every device, else only this one */
};

static void build(struct table_panel *tp)
{
	struct gap_list *gl = tp->owner;
	struct view *v = gl->v;
	table_clear(&gl->t);
	uint32_t nnav;
	const struct gap *nav = view_gaps(v, &nnav);
	gl->t.origin = view_origin(v);
	for (uint32_t i = 0; i < nnav; i++) {
		const struct gap *g = &nav[i];
		if ((gl->cause >= 0 && (int)g->cause != gl->cause) ||
		    (gl->device != INT32_MIN && g->device != gl->device))
			continue;
		struct slice_ref cpu = g->cpu, next = g->next;
		struct gap local = *g;
		const struct trace *t = view_rank_trace(v, g->rank);
		if (cpu.track != TT_NONE)
			cpu.track &= VIEW_TRACK_MASK;
		if (next.track != TT_NONE)
			next.track &= VIEW_TRACK_MASK;
		if (local.track != TT_NONE)
			local.track &= VIEW_TRACK_MASK;
		if (local.op.track != TT_NONE)
			local.op.track &= VIEW_TRACK_MASK;
		if (local.user.track != TT_NONE)
			local.user.track &= VIEW_TRACK_MASK;
		gap_table_add(&gl->t, &local, t, cpu, next, i + 1, view_rank_label(v, g->rank), i);
	}
	gl->version = view_gaps_version(v);
	table_panel_sort(tp, gl->by_time ? table_col(&gl->t, "start_ns") : -1, false);
}

static void update(struct table_panel *tp, struct app *app)
{
	struct gap_list *gl = tp->owner;
	(void)app;
	if (gl->version != view_gaps_version(gl->v))
		build(tp); /* the minimum length or the alignment changed */
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	struct gap_list *gl = tp->owner;
	char a[48], dev[32] = "";
	(void)app;
	if (gl->device != INT32_MIN)
		snprintf(dev, sizeof dev, ", GPU %d only", gl->device);
	snprintf(buf, n, "%u gaps of %s or more%s%s%s", gl->t.nrows, timefmt_dur(view_gap_min(gl->v), a, sizeof a),
	         gl->cause >= 0 ? ", only " : "", gl->cause >= 0 ? gap_cause_text((enum gap_cause)gl->cause) : "", dev);
	if (tp->sort_col < 0) {
		size_t l = strlen(buf);
		snprintf(buf + l, n > l ? n - l : 0, ", longest first");
	}
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct view *v = ((struct gap_list *)tp->owner)->v;
	uint32_t nnav;
	const struct gap *nav = view_gaps(v, &nnav);
	app_pop(app);
	if (tag < nnav)
		view_go_to_gap(v, &nav[tag], "gap");
}

static bool act(struct table_panel *tp, struct app *app, enum action a)
{
	struct gap_list *gl = tp->owner;
	const struct gap_report *g0 = view_rank_gaps(gl->v, 0);
	(void)app;
	switch (a) {
	case A_GAP_ORDER:
		gl->by_time = !gl->by_time;
		table_panel_sort(tp, gl->by_time ? table_col(&gl->t, "start_ns") : -1, false);
		tp->sel = tp->top = 0;
		return true;
	case A_GAP_CAUSE: gl->cause = gl->cause + 1 >= GC__COUNT ? -1 : gl->cause + 1; break;
	case A_GAP_DEVICE: {
		/* every device, then each of the first rank's in turn */
		uint32_t k = 0;
		if (gl->device != INT32_MIN)
			while (k < g0->ndevices && g0->devices[k].device != gl->device)
				k++;
		if (gl->device == INT32_MIN)
			gl->device = g0->ndevices ? g0->devices[0].device : INT32_MIN;
		else
			gl->device = k + 1 < g0->ndevices ? g0->devices[k + 1].device : INT32_MIN;
		break;
	}
	default: return false;
	}
	build(tp);
	tp->sel = tp->top = 0;
	return true;
}

static void owner_free(struct table_panel *tp)
{
	struct gap_list *gl = tp->owner;
	table_free(&gl->t);
	free(gl);
}

static const struct table_owner gap_list_owner = {
	.name = "gap list",
	.title = title,
	.jump = jump,
	.act = act,
	.update = update,
	.free = owner_free,
};

struct panel *gap_list_open(struct app *app)
{
	struct gap_list *gl = xcalloc(1, sizeof *gl);
	gl->v = app->tl;
	gl->cause = -1;
	gl->device = INT32_MIN;
	table_init(&gl->t, gl->cols, gap_table_columns(gl->cols, app->nts > 1));
	struct panel *p = table_panel_new(&gl->t, &gap_list_owner, gl);
	((struct table_panel *)p)->cols = gap_table_device_cols(&gl->t);
	build((struct table_panel *)p);
	return p;
}
