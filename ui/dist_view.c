/* dist_view.c: the distributed table and its panel (see dist_view.h). */
#include "ui/dist_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "ui/app.h"
#include "ui/comm_stats.h"
#include "lib/escape.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum {
	C_RANK,
	C_PATH,
	C_OFFSET,
	C_COMPUTE,
	C_COMM,
	C_OVERLAP,
	C_EXPOSED,
	C_EXP_WAIT,
	C_EXP_TRANSFER,
	C_WAITING,
	C_LAST,
	C_NCOLLS,
	C_NA_WHY,
	C_FILE,
	C_COLL,
	C_KIND,
	C_INDEX,
	C_KIND_INDEX,
	C_PRESENT,
	C_LAST_RANK,
	C_SKEW,
	C_TRANSFER,
	C_PER_RANK
};

int dist_table_columns(struct column *cols)
{
	static const struct column c[DIST_TABLE_COLS] = {
		/* a rank's row */
		[C_RANK] = { "rank", "rank", COL_INT, 0, 0 },
		[C_PATH] = { "path", "file", COL_TEXT, 1, COL_JSON_ONLY },
		[C_OFFSET] = { "offset_ns", "offset", COL_TIME, 0, 0 },
		[C_COMPUTE] = { "compute_ns", "compute", COL_DUR, 0, 0 },
		[C_COMM] = { "comm_ns", "comm", COL_DUR, 0, 0 },
		[C_OVERLAP] = { "overlap_ns", "overlap", COL_DUR, 0, 0 },
		[C_EXPOSED] = { "exposed_comm_ns", "exposed", COL_DUR, 0, 0 },
		[C_EXP_WAIT] = { "exposed_wait_ns", "exp.wait", COL_DUR, 0, COL_JSON_ONLY },
		[C_EXP_TRANSFER] = { "exposed_transfer_ns", "exp.transfer", COL_DUR, 0, COL_JSON_ONLY },
		[C_WAITING] = { "waiting_ns", "waiting", COL_DUR, 0, 0 },
		[C_LAST] = { "arrived_last", "last", COL_COUNT, 0, 0 },
		[C_NCOLLS] = { "collectives", "collectives", COL_COUNT, 0, COL_JSON_ONLY },
		[C_NA_WHY] = { "exposed_na", "n/a", COL_TEXT, 0, COL_JSON_ONLY | COL_OMIT_NULL },
		[C_FILE] = { "file", "file", COL_TEXT, 1, COL_TEXT_ONLY },
		/* a collective's row */
		[C_COLL] = { "collective", "collective", COL_TEXT, 1, COL_TEXT_ONLY },
		[C_KIND] = { "kind", "kind", COL_TEXT, 0, COL_JSON_ONLY },
		[C_INDEX] = { "index", "index", COL_COUNT, 0, COL_JSON_ONLY },
		[C_KIND_INDEX] = { "kind_index", "of its kind", COL_COUNT, 0, COL_JSON_ONLY },
		[C_PRESENT] = { "ranks_present", "ranks", COL_COUNT, 0, COL_TEXT_ONLY },
		[C_LAST_RANK] = { "last_rank", "last rank", COL_INT, 0, 0 },
		[C_SKEW] = { "skew_ns", "skew", COL_DUR, 0, 0 },
		[C_TRANSFER] = { "transfer_ns", "transfer", COL_DUR, 0, 0 },
		[C_PER_RANK] = { "per_rank", "per rank", COL_ROWS, 0, COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return DIST_TABLE_COLS;
}

uint64_t dist_table_rank_cols(const struct table *tb) { return table_cols_between(tb, "rank", "file"); }
uint64_t dist_table_coll_cols(const struct table *tb) { return table_cols_between(tb, "collective", "per_rank"); }

static const struct column per_rank_cols[] = {
	{ "rank", "rank", COL_INT, 0, 0 },
	{ "present", "present", COL_BOOL, 0, 0 },
	{ "start_ns", "start", COL_TIME, 0, COL_OMIT_NULL },
	{ "end_ns", "end", COL_TIME, 0, COL_OMIT_NULL },
	{ "wait_ns", "wait", COL_DUR, 0, COL_OMIT_NULL },
	{ "overlap_ns", "overlap", COL_DUR, 0, COL_OMIT_NULL },
	{ "exposed_wait_ns", "exp.wait", COL_DUR, 0, COL_OMIT_NULL },
	{ "exposed_transfer_ns", "exp.transfer", COL_DUR, 0, COL_OMIT_NULL },
};

void dist_per_rank_init(struct table *tb) { table_init(tb, per_rank_cols, 8); }

/* "#4 AllReduce": the one name of collective C in the report, the view and its status line. */
static void collective_label(const struct collective *c, char *buf, size_t n)
{
	snprintf(buf, n, "#%u %s", c->number, c->kind);
}

void dist_table_fill(struct table *tb, struct table *per_rank, const struct rank_report *rr, const int *order, int nts)
{
	if (per_rank != NULL)
		table_set_child(tb, C_PER_RANK, per_rank);
	for (int k = 0; k < nts; k++) {
		const struct rank_stats *s = &rr->ranks[order[k]];
		const char *path = rr->traces[order[k]]->path;
		uint32_t r = table_add_row(tb, (uint64_t)order[k]);
		table_set_int(tb, r, C_RANK, s->rank);
		table_set_str(tb, r, C_PATH, path);
		table_set_int(tb, r, C_OFFSET, s->offset);
		table_set_int(tb, r, C_COMPUTE, s->compute);
		table_set_int(tb, r, C_COMM, s->comm);
		if (s->exposed_na) {
			table_set_na(tb, r, C_OVERLAP, "n/a");
			table_set_na(tb, r, C_EXPOSED, "n/a");
			table_set_na(tb, r, C_EXP_WAIT, "n/a");
			table_set_na(tb, r, C_EXP_TRANSFER, "n/a");
			table_set_str(tb, r, C_NA_WHY, RANKS_EXPOSED_NA);
		} else {
			table_set_int(tb, r, C_OVERLAP, s->overlap);
			table_set_int(tb, r, C_EXPOSED, s->exposed);
			table_set_int(tb, r, C_EXP_WAIT, s->exposed_wait);
			table_set_int(tb, r, C_EXP_TRANSFER, s->exposed_transfer);
		}
		table_set_int(tb, r, C_WAITING, s->waiting);
		table_set_int(tb, r, C_LAST, s->arrived_last);
		table_set_int(tb, r, C_NCOLLS, s->collectives);
		table_set_str(tb, r, C_FILE, trace_name(rr->traces[order[k]])); /* a merged rank: FILE [source] */
	}
	for (uint32_t i = 0; i < rr->ncolls; i++) {
		const struct collective *c = &rr->colls[i];
		char name[80];
		uint32_t r = table_add_row(tb, (uint64_t)nts + i);
		collective_label(c, name, sizeof name);
		table_set_str(tb, r, C_COLL, name);
		table_set_str(tb, r, C_KIND, c->kind);
		table_set_int(tb, r, C_INDEX, c->number);
		table_set_int(tb, r, C_KIND_INDEX, c->kind_index);
		table_set_int(tb, r, C_PRESENT, c->nranks_present);
		if (c->last >= 0)
			table_set_int(tb, r, C_LAST_RANK, rr->ranks[c->last].rank);
		table_set_int(tb, r, C_SKEW, c->skew);
		table_set_int(tb, r, C_TRANSFER, c->transfer);
		if (per_rank == NULL)
			continue;
		/* each rank's part, by rank position (the report's order) */
		uint32_t first = per_rank->nrows;
		for (int k = 0; k < rr->nranks; k++) {
			const struct coll_rank *p = &c->per[k];
			uint32_t pr = table_add_row(per_rank, (uint64_t)k);
			table_set_int(per_rank, pr, 0, rr->ranks[k].rank);
			table_set_int(per_rank, pr, 1, p->ref.track != TT_NONE);
			if (p->ref.track != TT_NONE) {
				table_set_int(per_rank, pr, 2, p->start);
				table_set_int(per_rank, pr, 3, p->end);
				table_set_int(per_rank, pr, 4, p->wait);
				if (!rr->ranks[k].exposed_na) {
					table_set_int(per_rank, pr, 5, p->overlap);
					table_set_int(per_rank, pr, 6, p->exposed_wait);
					table_set_int(per_rank, pr, 7, p->exposed_transfer);
				}
			}
		}
		table_set_rows(tb, r, C_PER_RANK, first, (uint32_t)rr->nranks);
	}
}

/* ---- the panel ------------------------------------------------------------------- */

struct dist_view {
	struct table t;
	struct column cols[DIST_TABLE_COLS];
	/* g: the communication operations statistics instead (ui/comm_stats.h), made on the
	 * first g; with one trace, the only table */
	bool comm, comm_made;
	struct table ct;
	struct column ccols[COMM_STATS_COLS];
	uint32_t unsized; /* its rows without message sizes */
	struct view *v;
	uint32_t version;
	int *order; /* rank positions, the straggler first, then by collectives arrived last */
};

static int dist_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_report *rr = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if ((x == rr->straggler) != (y == rr->straggler))
		return x == rr->straggler ? -1 : 1;
	if (rr->ranks[x].arrived_last != rr->ranks[y].arrived_last)
		return rr->ranks[x].arrived_last > rr->ranks[y].arrived_last ? -1 : 1;
	return (x > y) - (x < y);
}

static void build_comm(struct dist_view *d)
{
	int n = view_ranks(d->v);
	struct trace **ts = xcalloc((size_t)n, sizeof *ts);
	int *labels = xcalloc((size_t)n, sizeof *labels);
	for (int r = 0; r < n; r++) {
		ts[r] = view_rank_trace(d->v, r);
		labels[r] = view_rank_label(d->v, r);
	}
	if (d->comm_made)
		table_free(&d->ct);
	d->unsized = comm_stats_fill(&d->ct, d->ccols, ts, labels, n, n > 1 ? view_rank_report(d->v) : NULL);
	d->comm_made = true;
	free(ts);
	free(labels);
}

/* Shows D's table of the mode it is in (a new table: no sort, the first row). */
static void show(struct table_panel *tp, struct dist_view *d)
{
	free(tp->rows); /* row numbers of the other table: no selection to keep */
	tp->rows = NULL;
	tp->nrows = 0;
	tp->t = d->comm ? &d->ct : &d->t;
	tp->cols = d->comm ? TABLE_ALL : TABLE_ALL & ~table_cols_of(&d->t, "file"); /* the title names the job */
	tp->sort_col = -1;
	tp->desc = false;
	tp->sel = tp->top = tp->hscroll = 0;
	table_panel_refresh(tp);
}

static void build(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	int n = view_ranks(d->v);
	if (n > 1) {
		const struct rank_report *rr = view_rank_report(d->v);
		table_clear(&d->t);
		for (int r = 0; r < n; r++)
			d->order[r] = r;
		qsort_r(d->order, (size_t)n, sizeof *d->order, dist_cmp, (void *)rr);
		dist_table_fill(&d->t, NULL, rr, d->order, n);
	}
	if (d->comm || d->comm_made)
		build_comm(d); /* its transfer split follows the alignment too */
	d->version = view_gaps_version(d->v);
	table_panel_refresh(tp);
}

static void update(struct table_panel *tp, struct app *app)
{
	struct dist_view *d = tp->owner;
	(void)app;
	if (d->version != view_gaps_version(d->v))
		build(tp); /* the alignment changed */
}

static bool act(struct table_panel *tp, struct app *app, enum action a)
{
	struct dist_view *d = tp->owner;
	if (a != A_GROUP_NEXT)
		return false;
	if (view_ranks(d->v) < 2) {
		app_status(app, "one trace: no ranks to compare, only its communication");
		return true;
	}
	d->comm = !d->comm;
	if (d->comm && !d->comm_made)
		build_comm(d);
	show(tp, d);
	app_status(app, d->comm ? "communication operations by rank, process group and collective (g: ranks)"
	                        : "ranks and collectives (g: communication operations)");
	return true;
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct dist_view *d = tp->owner;
	const struct view *v = d->v;
	(void)app;
	if (d->comm) {
		char un[64] = "";
		if (d->unsized > 0)
			snprintf(un, sizeof un, ", %u without sizes", d->unsized);
		snprintf(buf, n, "communication: %u rows%s; busbw as nccl-tests, over %s (%s; man: DEFINITIONS)",
		         d->ct.nrows, un, view_ranks(v) > 1 ? "transfer time" : "kernel time",
		         view_ranks(v) > 1 ? "g: ranks" : "one trace");
		return;
	}
	const struct rank_report *rr = view_rank_report(v);
	char st[96] = "no straggler";
	int movers = ranks_last_arrivers(rr);
	if (rr->straggler < 0 && movers > 1)
		snprintf(st, sizeof st, "no straggler (last arrival moves between %d ranks)", movers);
	if (rr->straggler >= 0)
		snprintf(st, sizeof st, "straggler rank %d (why: %s)", rr->ranks[rr->straggler].rank,
		         straggler_reason_key(rr->why.reason));
	snprintf(buf, n, "%d ranks, align %s, %u collectives, %s (g: communication; man: DEFINITIONS)", view_ranks(v),
	         align_mode_name(view_align(v)), rr->ncolls, st);
}

/* Enter on a communication row: its rank, and the row in the status line. */
static void jump_comm(struct dist_view *d, struct app *app, uint64_t tag)
{
	struct view *v = d->v;
	uint32_t row = UINT32_MAX;
	for (uint32_t k = 0; k < d->ct.nrows && row == UINT32_MAX; k++)
		if (d->ct.tag[k] == tag)
			row = k;
	int r = (int)(tag >> 32);
	char shown[128] = "";
	size_t len = 0;
	const char *c = row != UINT32_MAX ? table_text(&d->ct, row, table_col(&d->ct, "collective"), &len) : NULL;
	if (c != NULL)
		escape_term_buf(c, len, shown, sizeof shown);
	app_pop(app); /* frees the panel and D */
	if (r < view_ranks(v)) {
		view_go_to_rank(v, r);
		view_status(v, "rank %d: its %s calls (the distributed view's g table)", view_rank_label(v, r), shown);
	}
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	if (((struct dist_view *)tp->owner)->comm) {
		jump_comm(tp->owner, app, tag);
		return;
	}
	struct view *v = ((struct dist_view *)tp->owner)->v;
	const struct rank_report *rr = view_rank_report(v);
	app_pop(app);
	if (tag < (uint64_t)view_ranks(v)) {
		int r = (int)tag;
		view_go_to_rank(v, r);
		const struct rank_stats *rs = &rr->ranks[r];
		char w[32], e[32], ew[32], et[32];
		timefmt_dur(rs->waiting, w, sizeof w);
		if (rs->exposed_na)
			view_status(v, "rank %d: arrived last at %u collectives, waited %s", rs->rank, rs->arrived_last,
			            w);
		else
			view_status(
				v,
				"rank %d: arrived last at %u collectives, waited %s; exposed comm %s: %s waiting for a "
				"late rank, %s transfer not hidden",
				rs->rank, rs->arrived_last, w, timefmt_dur(rs->exposed, e, sizeof e),
				timefmt_dur(rs->exposed_wait, ew, sizeof ew),
				timefmt_dur(rs->exposed_transfer, et, sizeof et));
	} else if (tag - (uint64_t)view_ranks(v) < rr->ncolls) {
		const struct collective *c = &rr->colls[tag - (uint64_t)view_ranks(v)];
		char name[80], shown[96];
		view_go_to_collective(v, c);
		collective_label(c, name, sizeof name);
		escape_term_buf(name, strlen(name), shown, sizeof shown);
		view_status(v, "%s: rank %d arrived last", shown, c->last >= 0 ? rr->ranks[c->last].rank : -1);
	}
}

static uint8_t row_color(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct view *v = ((struct dist_view *)tp->owner)->v;
	(void)app;
	if (((struct dist_view *)tp->owner)->comm)
		return view_ranks(v) > 1 ? (uint8_t)(1 + (tag >> 32) % 12) : 0;
	return tag < (uint64_t)view_ranks(v) ? (uint8_t)(1 + tag % 12) : 0; /* each rank in its colour */
}

static void owner_free(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	table_free(&d->t);
	if (d->comm_made)
		table_free(&d->ct);
	free(d->order);
	free(d);
}

static const struct table_owner dist_owner = {
	.name = "distributed",
	.title = title,
	.jump = jump,
	.act = act,
	.update = update,
	.row_color = row_color,
	.free = owner_free,
};

struct panel *dist_view_open(struct app *app)
{
	struct view *v = app->tl;
	bool one = view_ranks(v) < 2;
	const struct rank_report *rr = one ? NULL : view_rank_report(v);
	if (rr != NULL && rr->warnings[0])
		view_status(v, "warning: %s", rr->warnings);
	else
		for (int k = 0; rr != NULL && k < rr->nranks; k++)
			if (rr->ranks[k].exposed_na) {
				view_status(
					v,
					"overlap, exposed n/a: CPU collectives in a legacy-format trace (man: DEFINITIONS)");
				break;
			}
	struct dist_view *d = xcalloc(1, sizeof *d);
	d->v = v;
	d->comm = one; /* one trace: nothing to compare, its communication alone */
	d->order = xcalloc((size_t)view_ranks(v), sizeof *d->order);
	table_init(&d->t, d->cols, dist_table_columns(d->cols));
	struct panel *p = table_panel_new(&d->t, &dist_owner, d);
	build((struct table_panel *)p);
	show((struct table_panel *)p, d);
	if (one && d->ct.nrows == 0) {
		view_status(v, "one trace without NCCL/RCCL kernels: the distributed view compares several ranks");
		p->ops->free(p);
		return NULL;
	}
	return p;
}
