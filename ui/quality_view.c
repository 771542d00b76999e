/* quality_view.c: the data-quality panel (see quality_view.h).
 *
 * What --check prints, as a table that folds: a row per kind of problem with its count and
 * what it means, its examples below it (time, name, track), then the loader's warnings and
 * whether the file was cut short. Enter on an example shows its place in the timeline. */
#include "ui/quality_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "ui/app.h"
#include "ui/names.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { Q_COL_WHAT, Q_COL_COUNT, Q_COL_TIME, Q_COL_WHERE, Q_COL_MEANING, Q_COLS };

/* Row tags: the kind and example (1-based, 0 for the kind's own row), or a warning. */
#define TAG_EXAMPLE(q, k) ((uint64_t)(q) << 8 | (uint64_t)(k))
#define TAG_WARNING(w) ((uint64_t)1 << 40 | (uint64_t)(w))
#define TAG_TRUNCATED ((uint64_t)1 << 41)

struct quality_view {
	struct table t;
	struct column cols[Q_COLS];
	struct view *v;
	int rank;
	const struct trace *tr;
	uint32_t problems;
};

static void fill(struct quality_view *qv, uint32_t **parent, uint32_t *nparent)
{
	static const struct column cols[Q_COLS] = {
		[Q_COL_WHAT] = { "what", "problem", COL_TEXT, 2, 0 },
		[Q_COL_COUNT] = { "count", "count", COL_COUNT, 0, 0 },
		[Q_COL_TIME] = { "ts_ns", "time", COL_TIME, 0, 0 },
		[Q_COL_WHERE] = { "where", "where", COL_TEXT, 1, 0 },
		[Q_COL_MEANING] = { "meaning", "what it means / example", COL_TEXT, 2, COL_WIDE },
	};
	const struct trace *t = qv->tr;
	memcpy(qv->cols, cols, sizeof cols);
	table_init(&qv->t, qv->cols, Q_COLS);
	qv->t.origin = t->start;
	uint32_t cap = 64, n = 0;
	uint32_t *par = xmalloc(cap * sizeof *par);
	if (t->status == LOAD_TRUNCATED) {
		uint32_t r = table_add_row(&qv->t, TAG_TRUNCATED);
		table_set_str(&qv->t, r, Q_COL_WHAT, "cut short");
		table_set_str(&qv->t, r, Q_COL_MEANING, t->error != NULL ? t->error : "the file ends early");
		par[n++] = TABLE_TREE_ROOT;
	}
	for (int q = 0; q < Q__COUNT; q++) {
		uint64_t c = t->quality.count[q];
		if (c == 0)
			continue;
		uint32_t kind = table_add_row(&qv->t, TAG_EXAMPLE(q, 0));
		table_set_str(&qv->t, kind, Q_COL_WHAT, quality_key((enum quality_kind)q));
		table_set_int(&qv->t, kind, Q_COL_COUNT, (int64_t)c);
		table_set_str(&qv->t, kind, Q_COL_MEANING, quality_text((enum quality_kind)q));
		if (n + QUALITY_EXAMPLES + 1 >= cap)
			par = xreallocarray(par, cap *= 2, sizeof *par);
		par[n++] = TABLE_TREE_ROOT;
		for (int k = 0; k < QUALITY_EXAMPLES && (uint64_t)k < c; k++) {
			const struct quality_example *e = &t->quality.ex[q][k];
			if (e->name == 0 && e->offset == 0 && e->ts == 0)
				continue;
			uint32_t r = table_add_row(&qv->t, TAG_EXAMPLE(q, k + 1));
			char what[48], where[400] = "";
			if (e->offset != 0)
				snprintf(what, sizeof what, "near byte %llu", (unsigned long long)e->offset);
			else
				snprintf(what, sizeof what, "example %d", k + 1);
			table_set_str(&qv->t, r, Q_COL_WHAT, what);
			if (q != Q_INVALID_UTF8)
				table_set_int(&qv->t, r, Q_COL_TIME, e->ts);
			if (e->track != TT_NONE && e->track < t->ntracks) {
				track_label(t, &t->tracks[e->track], where, sizeof where);
				table_set_str(&qv->t, r, Q_COL_WHERE, where);
			}
			if (e->name < t->strings.n)
				table_set_trace_str(&qv->t, r, Q_COL_MEANING, t, e->name); /* escaped when drawn */
			par[n++] = kind;
		}
	}
	for (uint32_t w = 0; w < t->nwarnings; w++) {
		uint32_t r = table_add_row(&qv->t, TAG_WARNING(w));
		table_set_str(&qv->t, r, Q_COL_WHAT, "warning");
		table_set_str(&qv->t, r, Q_COL_MEANING, t->warnings[w]); /* escaped when drawn */
		if (n + 1 >= cap)
			par = xreallocarray(par, cap *= 2, sizeof *par);
		par[n++] = TABLE_TREE_ROOT;
	}
	*parent = par;
	*nparent = n;
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	struct quality_view *qv = tp->owner;
	(void)app;
	if (qv->problems == 0)
		snprintf(buf, n, "Data quality: no problem found in this file (what --check prints)");
	else
		snprintf(buf, n,
		         "Data quality: %u kind%s of problem (what --check prints); Enter on an example shows it",
		         qv->problems, qv->problems == 1 ? "" : "s");
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct quality_view *qv = tp->owner;
	struct view *v = qv->v;
	int rank = qv->rank;
	const struct trace *t = qv->tr;
	unsigned q = (unsigned)(tag >> 8), k = (unsigned)(tag & 0xff);
	if (tag & (TAG_WARNING(0) | TAG_TRUNCATED) || q >= Q__COUNT || k == 0 || k > QUALITY_EXAMPLES) {
		view_status(v, "this row has no place in the timeline: Enter on an example row");
		return;
	}
	const struct quality_example e = t->quality.ex[q][k - 1];
	app_pop(app); /* frees the panel and QV */
	if (q == Q_INVALID_UTF8) {
		view_status(v, "invalid UTF-8 near byte %llu: it has no time", (unsigned long long)e.offset);
		return;
	}
	uint32_t i = e.track != TT_NONE && e.track < t->ntracks ? index_slice_at(&t->tracks[e.track], e.ts) : TT_NONE;
	struct slice_ref sel = { e.track, i };
	view_show_time(v, rank, e.ts, i != TT_NONE ? &sel : NULL);
	view_status(v, "%s: example %u of %llu (cursor at its time)", quality_key((enum quality_kind)q), k,
	            (unsigned long long)t->quality.count[q]);
}

static void owner_free(struct table_panel *tp)
{
	struct quality_view *qv = tp->owner;
	table_free(&qv->t);
	free(qv);
}

static const struct table_owner quality_owner = {
	.name = "data quality",
	.title = title,
	.jump = jump,
	.free = owner_free,
};

struct panel *quality_view_open(struct app *app)
{
	struct view *v = app->tl;
	struct quality_view *qv = xcalloc(1, sizeof *qv);
	qv->v = v;
	qv->rank = view_focus_rank(v);
	qv->tr = view_rank_trace(v, qv->rank);
	qv->problems = quality_problems(qv->tr);
	uint32_t *parent, n;
	fill(qv, &parent, &n);
	struct panel *p = table_panel_new(&qv->t, &quality_owner, qv);
	table_panel_set_tree((struct table_panel *)p, parent, 0); /* the kinds, folded: + opens one */
	free(parent);
	return p;
}
