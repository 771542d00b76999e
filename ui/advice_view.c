/* advice_view.c: the advice panel and the timeline's hint (see advice_view.h).
 *
 * A table panel that folds: a row per finding, worst first (score, figure, threshold,
 * confidence, instances), its instances below it; its header shows the selected finding
 * whole (symptom, likely cause, first fix with its example, confidence and what would make
 * it wrong), wrapped to the panel's width. Enter on a finding shows its worst instance in
 * the timeline, on an instance that one; opening the panel again selects the instance
 * after the last shown, so that ! Enter ! Enter walks them. */
#include "ui/advice_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/app.h"
#include "ui/grid.h"
#include "ui/names.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { A_COL_WHAT, A_COL_SCORE, A_COL_FIGURE, A_COL_THRESHOLD, A_COL_CONF, A_COL_COUNT, A_COL_AT, A_COL_WHERE, A_COLS };

/* Row tags: finding F (1-based) and instance I (1-based, 0 for the finding's own row). */
#define TAG(f, i) ((uint64_t)(f) << 32 | (uint64_t)(i))
#define TAG_FINDING(tag) ((uint32_t)((tag) >> 32))
#define TAG_INSTANCE(tag) ((uint32_t)((tag)&0xffffffffu))

/* The most lines the header takes for the selected finding. */
#define HEADER_MAX 9

struct advice_view {
	struct table t;
	struct column cols[A_COLS];
	struct view *v;
	const struct advice_report *r; /* the cache's */
};

/* The findings of what the timeline shows: one trace, or the set of ranks. */
static const struct advice_report *report_of(const struct view *v)
{
	int n;
	struct trace *const *ts = view_traces(v, &n);
	if (n > 1)
		return traces_advice(ts, n, view_align(v));
	return trace_advice(ts[0]);
}

/* What the panel keeps between its openings (app_memory): the instance shown last (its row
 * tag), 0: none. */
struct advice_memory {
	uint64_t last;
};

static const struct table_owner advice_owner;

/* The slice an instance's row names and Enter selects: for a gap (low utilization) the host
 * work covering it ("host in ..."), where there is one; else the operation the instance is
 * about, else its context. */
static struct slice_ref named_slice(const struct advice_finding *fd, const struct advice_instance *x)
{
	bool gap = fd->rule == ADV_LOW_GPU_UTILIZATION && x->context.track != TT_NONE;
	return gap || x->ref.track == TT_NONE ? x->context : x->ref;
}

static void fill(struct advice_view *av, uint32_t **parent, uint32_t *nparent)
{
	static const struct column cols[A_COLS] = {
		[A_COL_WHAT] = { "finding", "finding / instance", COL_TEXT, 4, COL_WIDE },
		[A_COL_SCORE] = { "score", "score", COL_RATIO, 0, 0 },
		[A_COL_FIGURE] = { "figure", "figure", COL_TEXT, 0, 0 },
		[A_COL_THRESHOLD] = { "threshold", "threshold", COL_TEXT, 0, 0 },
		[A_COL_CONF] = { "confidence", "confidence", COL_TEXT, 0, 0 },
		[A_COL_COUNT] = { "instances", "instances", COL_COUNT, 0, 0 },
		[A_COL_AT] = { "start_ns", "at", COL_TIME, 0, 0 },
		[A_COL_WHERE] = { "where", "where", COL_TEXT, 1, 0 },
	};
	const struct advice_report *r = av->r;
	struct view *v = av->v;
	memcpy(av->cols, cols, sizeof cols);
	table_init(&av->t, av->cols, A_COLS);
	av->t.origin = view_origin(v);
	uint32_t n = 0, cap = 16;
	uint32_t *par = xmalloc(cap * sizeof *par);
	for (uint32_t f = 0; f < r->n; f++) {
		const struct advice_finding *fd = &r->findings[f];
		const struct advice_rule_info *ri = advice_rule_info(fd->rule);
		char buf[400], a[48], b[48]; /* buf holds val, name and ctx whole */
		uint32_t row = table_add_row(&av->t, TAG(f + 1, 0));
		if (view_ranks(v) > 1 && fd->nranks > 0)
			snprintf(buf, sizeof buf, "%s (%u of %d ranks)", ri->title, fd->nranks, view_ranks(v));
		else
			snprintf(buf, sizeof buf, "%s", ri->title);
		table_set_str(&av->t, row, A_COL_WHAT, buf);
		table_set_pct(&av->t, row, A_COL_SCORE, fd->score);
		table_set_str(&av->t, row, A_COL_FIGURE, advice_figure_text(ri->unit, fd->figure, a, sizeof a));
		snprintf(buf, sizeof buf, "%s %s", ri->above ? ">" : "<",
		         advice_figure_text(ri->unit, fd->threshold, b, sizeof b));
		table_set_str(&av->t, row, A_COL_THRESHOLD, buf);
		table_set_str(&av->t, row, A_COL_CONF, advice_confidence_key(fd->confidence));
		table_set_int(&av->t, row, A_COL_COUNT, (int64_t)fd->count);
		if (n + fd->ninst + 1 >= cap)
			par = xreallocarray(par, cap = (n + fd->ninst + 1) * 2, sizeof *par);
		par[n++] = TABLE_TREE_ROOT;
		for (uint32_t i = 0; i < fd->ninst; i++) {
			const struct advice_instance *x = &fd->inst[i];
			const struct trace *t = view_rank_trace(v, x->rank);
			uint32_t ir = table_add_row(&av->t, TAG(f + 1, i + 1));
			char val[48], name[160] = "", where[480] = "";
			if (advice_values_are_bytes(fd->rule))
				timefmt_bytes((double)x->value, val, sizeof val);
			else
				timefmt_dur(x->value, val, sizeof val);
			struct slice_ref s = named_slice(fd, x);
			if (s.track != TT_NONE && s.track < t->ntracks) {
				trace_str_escaped(t, slice_name(t, &t->tracks[s.track].slices[s.idx]), name,
				                  sizeof name);
				char tl[400];
				track_label(t, &t->tracks[s.track], tl, sizeof tl);
				if (view_ranks(v) > 1)
					snprintf(where, sizeof where, "rank %d %s", view_rank_label(v, x->rank), tl);
				else
					snprintf(where, sizeof where, "%s", tl);
			} else if (view_ranks(v) > 1) {
				snprintf(where, sizeof where, "rank %d", view_rank_label(v, x->rank));
			}
			char ctx[160] = "";
			if (x->ref.track != TT_NONE && x->context.track != TT_NONE && x->context.track < t->ntracks)
				trace_str_escaped(t, slice_name(t, &t->tracks[x->context.track].slices[x->context.idx]),
				                  ctx, sizeof ctx);
			/* what the host did first (the GPU work after a gap names itself less well) */
			if (fd->rule == ADV_LOW_GPU_UTILIZATION) /* a gap: the host's slice, else the work after it */
				snprintf(buf, sizeof buf, "%s  %s%s", val,
				         ctx[0] ? "host in " : "no host slice recorded; then ", ctx[0] ? ctx : name);
			else
				snprintf(buf, sizeof buf, "%s%s%s%s%s", val, name[0] ? "  " : "", name,
				         ctx[0] ? "; in " : "", ctx);
			table_set_str(&av->t, ir, A_COL_WHAT, buf);
			table_set_int(&av->t, ir, A_COL_AT, tt_add(x->start, view_rank_shift(v, x->rank)));
			if (where[0])
				table_set_str(&av->t, ir, A_COL_WHERE, where);
			par[n++] = row;
		}
	}
	*parent = par;
	*nparent = n;
}

static const struct advice_finding *selected_finding(struct table_panel *tp)
{
	const struct advice_view *av = tp->owner;
	uint64_t tag;
	if (!table_panel_selected(tp, &tag))
		return av->r->n > 0 ? &av->r->findings[0] : NULL;
	uint32_t f = TAG_FINDING(tag);
	return f >= 1 && f <= av->r->n ? &av->r->findings[f - 1] : NULL;
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct advice_view *av = tp->owner;
	(void)app;
	if (av->r->n == 0)
		snprintf(buf, n,
		         "Advice: no findings: no rule crossed its threshold (ttrace(1), FINDINGS, lists the rules)");
	else {
		const char *warm = av->r->warmup_steps == 1  ? "; warm-up step set aside"
		                   : av->r->warmup_steps > 1 ? "; warm-up steps set aside"
		                                             : "";
		int len = snprintf(buf, n,
		                   "Advice: %u finding%s, worst first (score: est. share of step time lost)%s; Enter "
		                   "shows an instance",
		                   av->r->n, av->r->n == 1 ? "" : "s", warm);
		if (len > tp->base.r.w - 2) /* narrow: what the score is, and the set-aside, first */
			snprintf(buf, n, "Advice: %u finding%s, worst first (score: share of step time)%s", av->r->n,
			         av->r->n == 1 ? "" : "s", av->r->warmup_steps > 0 ? "; warm-up set aside" : "");
	}
}

/* Writes TEXT from column X0 of G on lines from *Y (below Y1), wrapped to X1 at spaces,
 * continuation lines from column X0 + 2. */
static void wrap_text(struct grid *g, int x0, int x1, int *y, int y1, const char *text, enum cell_style st)
{
	const char *p = text;
	bool first = true;
	while (*p != '\0' && *y < y1) {
		int x = first ? x0 : x0 + 2, room = x1 - x;
		if (room < 8)
			return;
		size_t len = strlen(p), take = len;
		/* count code points: take at most ROOM of them, at the last space before that */
		int cps = 0;
		size_t i = 0, last_space = 0;
		while (i < len) {
			if (((unsigned char)p[i] & 0xc0) != 0x80) {
				if (cps == room)
					break;
				cps++;
				if (p[i] == ' ')
					last_space = i;
			}
			i++;
		}
		take = i;
		if (i < len && last_space > 0)
			take = last_space;
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)(take < sizeof line - 1 ? take : sizeof line - 1), p);
		grid_text(g, x, (*y)++, x1, line, st, 0);
		p += take;
		while (*p == ' ')
			p++;
		first = false;
	}
}

static int header_rows(struct table_panel *tp, struct app *app, int h)
{
	const struct advice_view *av = tp->owner;
	(void)tp;
	(void)app;
	if (av->r->n == 0)
		return 0;
	int rows = h / 2 - 1;
	return rows < 3 ? 3 : rows > HEADER_MAX ? HEADER_MAX : rows;
}

static void header(struct table_panel *tp, struct app *app, struct grid *g, struct rect r, const struct render_opts *o)
{
	const struct advice_finding *fd = selected_finding(tp);
	(void)app;
	(void)o;
	if (fd == NULL)
		return;
	const struct advice_rule_info *ri = advice_rule_info(fd->rule);
	char buf[2048];
	int y = r.y, y1 = r.y + r.h - 1; /* a blank line before the table */
	snprintf(buf, sizeof buf, "%s [%s]: %s", ri->title, ri->key, fd->symptom);
	wrap_text(g, r.x + 1, r.x + r.w, &y, y1, buf, CS_HILITE);
	snprintf(buf, sizeof buf, "cause: %s", fd->cause);
	wrap_text(g, r.x + 1, r.x + r.w, &y, y1, buf, CS_DETAILS);
	snprintf(buf, sizeof buf, "fix: %s  e.g. %s", fd->fix != NULL ? fd->fix : ri->fix,
	         fd->example != NULL ? fd->example : ri->example);
	wrap_text(g, r.x + 1, r.x + r.w, &y, y1, buf, CS_DETAILS);
	snprintf(buf, sizeof buf, "confidence %s: %s; wrong if %s", advice_confidence_key(fd->confidence),
	         fd->confidence_why, ri->wrong_if);
	wrap_text(g, r.x + 1, r.x + r.w, &y, y1, buf, CS_DETAILS);
}

/* Shows instance X of finding FD in the timeline of V. */
static void show_instance(struct view *v, const struct advice_finding *fd, uint32_t i)
{
	const struct advice_instance *x = &fd->inst[i];
	int64_t a = x->start, b = x->end > x->start ? x->end : x->start;
	int64_t pad = tt_add(tt_sub(b, a) / 2, 1000);
	struct slice_ref s = named_slice(fd, x);   /* the slice its row names */
	view_show_span(v, x->rank, a, b, pad, &s); /* the instance's span, its slice selected */
	view_status(v, "%s: instance %u of %u shown (! then Enter: the next)", advice_rule_info(fd->rule)->key, i + 1,
	            fd->ninst);
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct advice_view *av = tp->owner;
	struct view *v = av->v;
	const struct advice_report *r = av->r; /* the cache's: it outlives the panel */
	uint32_t f = TAG_FINDING(tag), i = TAG_INSTANCE(tag);
	if (f < 1 || f > r->n)
		return;
	const struct advice_finding *fd = &r->findings[f - 1];
	if (fd->ninst == 0) {
		view_status(v, "%s: no instance to show (the figure is over the whole trace)",
		            advice_rule_info(fd->rule)->key);
		return;
	}
	if (i == 0)
		i = 1; /* a finding: its worst instance */
	if (i > fd->ninst)
		return;
	((struct advice_memory *)app_memory(app, &advice_owner, sizeof(struct advice_memory)))->last = TAG(f, i);
	app_pop(app); /* frees the panel and AV */
	show_instance(v, fd, i - 1);
}

static void owner_free(struct table_panel *tp)
{
	struct advice_view *av = tp->owner;
	table_free(&av->t);
	free(av);
}

static const struct table_owner advice_owner = {
	.name = "advice",
	.title = title,
	.jump = jump,
	.header_rows = header_rows,
	.header = header,
	.free = owner_free,
};

struct panel *advice_view_open(struct app *app)
{
	struct view *v = app->tl;
	struct advice_view *av = xcalloc(1, sizeof *av);
	av->v = v;
	av->r = report_of(v);
	uint32_t *parent, n;
	fill(av, &parent, &n);
	struct table_panel *tp = (struct table_panel *)table_panel_new(&av->t, &advice_owner, av);
	table_panel_set_tree(tp, parent, 0); /* the findings, their instances below */
	free(parent);
	uint64_t last = ((struct advice_memory *)app_memory(app, &advice_owner, sizeof(struct advice_memory)))->last;
	if (last != 0) { /* walking: the instance after the last shown */
		uint32_t f = TAG_FINDING(last), i = TAG_INSTANCE(last);
		if (f >= 1 && f <= av->r->n && i < av->r->findings[f - 1].ninst)
			table_panel_select_tag(tp, TAG(f, i + 1));
		else
			table_panel_select_tag(tp, TAG(f, 0));
	}
	return &tp->base;
}

void advice_hint(struct app *app)
{
	struct view *v = app->tl;
	if (view_has_status(v))
		return; /* something else to say first */
	const struct advice_report *r = report_of(v);
	if (r->n == 0)
		return;
	const struct advice_finding *fd = &r->findings[0];
	if (fd->score < ADVICE_HINT_SCORE || fd->confidence == ADV_LOW)
		return;
	view_status(v, "advice: %s, about %.0f%% of step time (! shows %u finding%s)",
	            advice_rule_info(fd->rule)->title, 100.0 * fd->score, r->n, r->n == 1 ? "" : "s");
}
