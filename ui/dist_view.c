/* dist_view.c: the distributed table and its panel (see dist_view.h). */
#include "ui/dist_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "ui/app.h"
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
		table_set_str(tb, r, C_FILE, path);
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

static void build(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	const struct rank_report *rr = view_rank_report(d->v);
	int n = view_ranks(d->v);
	table_clear(&d->t);
	for (int r = 0; r < n; r++)
		d->order[r] = r;
	qsort_r(d->order, (size_t)n, sizeof *d->order, dist_cmp, (void *)rr);
	dist_table_fill(&d->t, NULL, rr, d->order, n);
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

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct view *v = ((struct dist_view *)tp->owner)->v;
	const struct rank_report *rr = view_rank_report(v);
	char st[96] = "no straggler";
	(void)app;
	if (rr->straggler >= 0)
		snprintf(st, sizeof st, "straggler rank %d (why: %s)", rr->ranks[rr->straggler].rank,
		         straggler_reason_key(rr->why.reason));
	snprintf(buf, n, "%d ranks, align %s, %u collectives, %s (see man: DEFINITIONS)", view_ranks(v),
	         align_mode_name(view_align(v)), rr->ncolls, st);
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
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
	return tag < (uint64_t)view_ranks(v) ? (uint8_t)(1 + tag % 12) : 0; /* each rank in its colour */
}

static void owner_free(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	table_free(&d->t);
	free(d->order);
	free(d);
}

static const struct table_owner dist_owner = {
	.name = "distributed",
	.title = title,
	.jump = jump,
	.update = update,
	.row_color = row_color,
	.free = owner_free,
};

struct panel *dist_view_open(struct app *app)
{
	struct view *v = app->tl;
	const struct rank_report *rr = view_rank_report(v);
	if (view_ranks(v) < 2) {
		view_status(v, "one trace: the distributed view compares several ranks");
		return NULL;
	}
	if (rr->warnings[0])
		view_status(v, "warning: %s", rr->warnings);
	else
		for (int k = 0; k < rr->nranks; k++)
			if (rr->ranks[k].exposed_na) {
				view_status(
					v,
					"overlap, exposed n/a: CPU collectives in a legacy-format trace (man: DEFINITIONS)");
				break;
			}
	struct dist_view *d = xcalloc(1, sizeof *d);
	d->v = v;
	d->order = xcalloc((size_t)view_ranks(v), sizeof *d->order);
	table_init(&d->t, d->cols, dist_table_columns(d->cols));
	struct panel *p = table_panel_new(&d->t, &dist_owner, d);
	((struct table_panel *)p)->cols = TABLE_ALL & ~table_cols_of(&d->t, "file"); /* the title names the job */
	build((struct table_panel *)p);
	return p;
}
