/* dist_view.c: the distributed table and its panel (see dist_view.h). */
#include "ui/dist_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/xalloc.h"
#include "ui/app.h"
#include "ui/escape.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { C_RANK, C_OFFSET, C_COMPUTE, C_COMM, C_OVERLAP, C_EXPOSED, C_WAITING, C_LAST, C_COLL, C_PRESENT, C_LAST_RANK,
       C_SKEW, C_TRANSFER };

int dist_table_columns(struct column *cols)
{
	static const struct column c[DIST_TABLE_COLS] = {
		[C_RANK] = { "rank", "rank", COL_INT, 0 },
		[C_OFFSET] = { "offset_ns", "offset", COL_TIME, 0 },
		[C_COMPUTE] = { "compute_ns", "compute", COL_DUR, 0 },
		[C_COMM] = { "comm_ns", "comm", COL_DUR, 0 },
		[C_OVERLAP] = { "overlap_ns", "overlap", COL_DUR, 0 },
		[C_EXPOSED] = { "exposed_ns", "exposed", COL_DUR, 0 },
		[C_WAITING] = { "waiting_ns", "waiting", COL_DUR, 0 },
		[C_LAST] = { "arrived_last", "last", COL_COUNT, 0 },
		[C_COLL] = { "collective", "collective", COL_TEXT, 1 },
		[C_PRESENT] = { "ranks_present", "ranks", COL_COUNT, 0 },
		[C_LAST_RANK] = { "last_rank", "last rank", COL_INT, 0 },
		[C_SKEW] = { "skew_ns", "skew", COL_DUR, 0 },
		[C_TRANSFER] = { "transfer_ns", "transfer", COL_DUR, 0 },
	};
	memcpy(cols, c, sizeof c);
	return DIST_TABLE_COLS;
}

void dist_table_fill(struct table *tb, const struct rank_report *rr, const int *order, int nts)
{
	for (int k = 0; k < nts; k++) {
		const struct rank_stats *s = &rr->ranks[order[k]];
		uint32_t r = table_add_row(tb, (uint64_t)order[k]);
		table_set_int(tb, r, C_RANK, s->rank);
		table_set_int(tb, r, C_OFFSET, s->offset);
		table_set_int(tb, r, C_COMPUTE, s->compute);
		table_set_int(tb, r, C_COMM, s->comm);
		table_set_int(tb, r, C_OVERLAP, s->overlap);
		table_set_int(tb, r, C_EXPOSED, s->exposed);
		table_set_int(tb, r, C_WAITING, s->waiting);
		table_set_int(tb, r, C_LAST, s->arrived_last);
	}
	for (uint32_t i = 0; i < rr->ncolls; i++) {
		const struct collective *c = &rr->colls[i];
		char name[80];
		uint32_t r = table_add_row(tb, (uint64_t)nts + i);
		snprintf(name, sizeof name, "#%u %s", c->index, c->kind);
		table_set_str(tb, r, C_COLL, name);
		table_set_int(tb, r, C_PRESENT, c->nranks_present);
		if (c->last >= 0)
			table_set_int(tb, r, C_LAST_RANK, rr->ranks[c->last].rank);
		table_set_int(tb, r, C_SKEW, c->skew);
		table_set_int(tb, r, C_TRANSFER, c->transfer);
	}
}

/* ---- the panel ------------------------------------------------------------------- */

struct dist_view {
	struct table t;
	struct column cols[DIST_TABLE_COLS];
	struct view *v;
	uint32_t version;
};

static void build(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	table_clear(&d->t);
	dist_table_fill(&d->t, &d->v->rr, d->v->dist_order, d->v->nts);
	d->version = d->v->gaps_version;
	table_panel_refresh(tp);
}

static void update(struct table_panel *tp, struct app *app)
{
	struct dist_view *d = tp->owner;
	(void)app;
	if (d->version != d->v->gaps_version)
		build(tp); /* the alignment changed */
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct view *v = ((struct dist_view *)tp->owner)->v;
	const struct rank_report *rr = &v->rr;
	char st[64] = "no straggler";
	(void)app;
	if (rr->straggler >= 0)
		snprintf(st, sizeof st, "straggler rank %d", rr->ranks[rr->straggler].rank);
	snprintf(buf, n, "%d ranks, align %s, %u collectives, %s (see man: DEFINITIONS)", v->nts, align_mode_name(v->align),
	         rr->ncolls, st);
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct view *v = ((struct dist_view *)tp->owner)->v;
	app_pop(app);
	if (tag < (uint64_t)v->nts) {
		int r = (int)tag;
		view_go_to_rank(v, r);
		view_status(v, "rank %d: arrived last at %u collectives, waited %lld us", v->rr.ranks[r].rank,
		            v->rr.ranks[r].arrived_last, (long long)(v->rr.ranks[r].waiting / 1000));
	} else if (tag - (uint64_t)v->nts < v->rr.ncolls) {
		const struct collective *c = &v->rr.colls[tag - (uint64_t)v->nts];
		char kind[64];
		view_go_to_collective(v, c);
		escape_term_buf(c->kind, strlen(c->kind), kind, sizeof kind);
		view_status(v, "%s #%u: rank %d arrived last", kind, c->index, c->last >= 0 ? v->rr.ranks[c->last].rank : -1);
	}
}

static uint8_t row_color(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct view *v = ((struct dist_view *)tp->owner)->v;
	(void)app;
	return tag < (uint64_t)v->nts ? (uint8_t)(1 + tag % 12) : 0; /* each rank in its colour */
}

static void owner_free(struct table_panel *tp)
{
	struct dist_view *d = tp->owner;
	table_free(&d->t);
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
	if (v->nts < 2) {
		view_status(v, "one trace: the distributed view compares several ranks");
		return NULL;
	}
	if (v->rr.warnings[0])
		view_status(v, "warning: %s", v->rr.warnings);
	struct dist_view *d = xcalloc(1, sizeof *d);
	d->v = v;
	table_init(&d->t, d->cols, dist_table_columns(d->cols));
	struct panel *p = table_panel_new(&d->t, &dist_owner, d);
	build((struct table_panel *)p);
	return p;
}
