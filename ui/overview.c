/* overview.c: the Overview report (see overview.h). */
#include "ui/overview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/reports.h"
#include "config.h"
#include "lib/xalloc.h"
#include "ui/app.h"
#include "ui/table_panel.h"
#include "ui/view.h"
#include "lib/timefmt.h"
#include "src/analysis.h"
#include "src/compiled.h"
#include "src/data_limits.h"
#include "lib/escape.h"
#include "ui/gpu_summary.h"
#include "ui/jsonw.h"
#include "ui/overview_steps.h"
#include "ui/report.h"
#include "ui/table.h"

/* What the window is: the plugin's steps, or the whole CPU span when there is none. */
static const char *window_text(const struct gap_report *g, char *buf, size_t n)
{
	char a[48];
	if (g->from_steps && g->nsteps == 1)
		snprintf(buf, n, "ProfilerStep#%lld as the TensorBoard plugin stretches it to the device, %s",
		         (long long)g->steps[0].number, timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	else if (g->from_steps && g->nsteps > 0)
		snprintf(buf, n, "ProfilerStep#%lld..#%lld as the TensorBoard plugin stretches them to the device, %s",
		         (long long)g->steps[0].number, (long long)g->steps[g->nsteps - 1].number,
		         timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	else
		snprintf(buf, n, "no ProfilerStep: the span of the CPU operators stretched to the device, %s",
		         timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	return buf;
}

/* torch.compile's graphs per step (src/compiled.h): JSON "compiled", null without any
 * compiled region. */
static void compiled_json(struct jsonw *w, const struct trace *t)
{
	struct compiled_breaks b;
	compiled_breaks_of(t, &b);
	jsonw_key(w, "compiled");
	if (b.regions == 0) {
		jsonw_null(w);
		compiled_breaks_free(&b);
		return;
	}
	jsonw_object(w);
	jsonw_key(w, "regions");
	jsonw_int(w, b.regions);
	jsonw_key(w, "steps");
	jsonw_array(w);
	for (uint32_t i = 0; i < b.nsteps; i++) {
		jsonw_object(w);
		jsonw_key(w, "step");
		jsonw_int(w, b.steps[i].number);
		jsonw_key(w, "regions");
		jsonw_int(w, b.steps[i].regions);
		jsonw_key(w, "graph_breaks");
		jsonw_int(w, b.steps[i].regions > 0 ? b.steps[i].regions - 1 : 0);
		jsonw_key(w, "eager_ops");
		jsonw_int(w, b.steps[i].eager_ops);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "called_from");
	jsonw_array(w);
	for (uint32_t i = 0; i < b.nframes; i++) {
		jsonw_object(w);
		jsonw_key(w, "frame");
		jsonw_str(w, strtab_get(&t->strings, b.frames[i].name));
		jsonw_key(w, "regions");
		jsonw_int(w, b.frames[i].regions);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	compiled_breaks_free(&b);
}

/* The same as text: nothing without a compiled region. */
static void compiled_text(FILE *f, const struct trace *t)
{
	struct compiled_breaks b;
	compiled_breaks_of(t, &b);
	if (b.regions == 0) {
		compiled_breaks_free(&b);
		return;
	}
	fprintf(f,
	        "   torch.compile: %u compiled region%s (a graph break splits a compiled function into several\n"
	        "   regions with eager operators between them; an unchanged kernel count after compiling often\n"
	        "   means graph breaks)\n",
	        b.regions, b.regions == 1 ? "" : "s");
	if (b.nsteps > 0) {
		fputs("   step  regions  graph breaks  eager operators\n", f);
		for (uint32_t i = 0; i < b.nsteps; i++)
			fprintf(f, "   %4lld %8u %13u %16u\n", (long long)b.steps[i].number, b.steps[i].regions,
			        b.steps[i].regions > 0 ? b.steps[i].regions - 1 : 0, b.steps[i].eager_ops);
	}
	if (b.nframes > 0) {
		fputs("   called from (the Python frame above each region; with_stack=True):\n", f);
		for (uint32_t i = 0; i < b.nframes && i < 10; i++) {
			const char *nm = strtab_get(&t->strings, b.frames[i].name);
			char shown[400];
			escape_term_buf(nm, strlen(nm), shown, sizeof shown);
			fprintf(f, "   %6u  %s\n", b.frames[i].regions, shown);
		}
	}
	fputc('\n', f);
	compiled_breaks_free(&b);
}

/* The plugin's utilization and SM efficiency timeline: per device, each bucket's share
 * (src/gpu_metrics.h, struct gpu_curves), buckets of gpu_bucket_ns over the trace's span. */
static void timeline_json(struct jsonw *w, struct trace *t)
{
	const struct gpu_curves *c = trace_gpu_curves(t);
	int64_t start = t->start, end = t->end > t->start ? t->end : t->start + 1;
	int64_t size = gpu_bucket_ns(end - start), a, b;
	jsonw_key(w, "gpu_timeline");
	jsonw_object(w);
	jsonw_key(w, "start_ns");
	jsonw_int(w, start);
	jsonw_key(w, "end_ns");
	jsonw_int(w, end);
	jsonw_key(w, "bucket_ns");
	jsonw_int(w, size);
	jsonw_key(w, "devices");
	jsonw_array(w);
	for (uint32_t i = 0; i < c->n; i++) {
		const struct gpu_curves_device *d = &c->devices[i];
		jsonw_object(w);
		jsonw_key(w, "device");
		jsonw_int(w, d->device);
		for (int k = 0; k < 2; k++) {
			jsonw_key(w, k == 0 ? "utilization" : "sm_efficiency");
			if (k == 1 && !d->has_bps) {
				jsonw_null(w);
				continue;
			}
			jsonw_array(w);
			for (int64_t x = start; gpu_bucket_of(start, end, size, x, &a, &b); x = b)
				jsonw_double(w, gpu_curve_integral(k == 0 ? &d->busy : &d->sm, a, b) / (double)(b - a));
			jsonw_end_array(w);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

static void overview_json(struct jsonw *w, struct trace *t)
{
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	const struct gpu_metrics *m = trace_gpu_metrics(t);
	jsonw_key(w, "window");
	jsonw_object(w);
	jsonw_key(w, "start_ns");
	jsonw_int(w, g->tb_start);
	jsonw_key(w, "end_ns");
	jsonw_int(w, g->tb_end);
	jsonw_key(w, "from_steps");
	jsonw_bool(w, g->from_steps);
	jsonw_end_object(w);
	struct column cols[GPU_SUMMARY_COLS];
	struct table tb;
	table_init(&tb, cols, gpu_summary_columns(cols));
	gpu_summary_fill(&tb, t, m);
	jsonw_key(w, "devices");
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
	timeline_json(w, t);
	overview_steps_json(w, t); /* ui/overview_steps.h */
	compiled_json(w, t);
}

static void overview_text(FILE *f, struct trace *t)
{
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	const struct gpu_metrics *m = trace_gpu_metrics(t);
	char buf[256];
	fprintf(f, "   window: %s\n\n", window_text(g, buf, sizeof buf));
	if (m->n == 0) {
		fputs("   GPU summary: no GPU kernel in this trace (record with ProfilerActivity.CUDA)\n\n", f);
		overview_steps_text(f, t);
		compiled_text(f, t);
		return;
	}
	struct column cols[GPU_SUMMARY_COLS];
	struct table tb;
	table_init(&tb, cols, gpu_summary_columns(cols));
	gpu_summary_fill(&tb, t, m);
	fputs("   GPU summary (the TensorBoard plugin's definitions over the window; see ttrace(1))\n", f);
	table_write_text(f, &tb, NULL, 0, TABLE_ALL, REPORT_WIDTH, "   ");
	table_free(&tb);
	fputs("   (utilization: |union of kernels| / window; SM efficiency: min(1, sum of blocks per SM) over time /\n"
	      "   window; occupancy: time-weighted mean of est. achieved occupancy; Tensor Cores: kernel time by name,\n"
	      "   the plugin's list and newer names; TC (plugin list): its list alone)\n",
	      f);
	for (uint32_t i = 0; i < m->n; i++)
		if (!m->devices[i].has_bps || !m->devices[i].has_occ)
			fprintf(f, "   GPU %d: no kernel carries %s (Kineto writes them for CUDA kernels only)\n",
			        m->devices[i].device,
			        !m->devices[i].has_bps && !m->devices[i].has_occ
			                ? "'blocks per SM' or 'est. achieved occupancy %'"
			        : !m->devices[i].has_bps ? "'blocks per SM'"
			                                 : "'est. achieved occupancy %'");
	fputc('\n', f);
	overview_steps_text(f, t); /* ui/overview_steps.h */
	compiled_text(f, t);
}

static void overview_one(FILE *f, struct jsonw *w, struct trace *t, void *arg)
{
	(void)arg;
	const struct gpu_metrics *m;
	const struct step_report *s;
	trace_overview(t, &m, &s); /* both at once, before either is asked for */
	struct data_limits dl;
	data_limits_trace(t, trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r.nsteps, NULL, &dl);
	report_limits(f, w, &dl);
	if (w != NULL)
		overview_json(w, t);
	else
		overview_text(f, t);
}

void report_overview(FILE *f, struct trace *const *traces, int n, bool json)
{
	report_files(f, traces, n, json, overview_one, NULL);
}

/* ---- the panel ------------------------------------------------------------------- */

struct overview_view {
	struct table t;
	struct column cols[OVERVIEW_STEP_COLS];
	struct view *v;
	int rank; /* the rank position it shows */
	struct trace *tr;
	const struct gap_report *g;  /* the cache's */
	const struct gpu_metrics *m; /* the cache's */
	const struct step_report *s; /* the cache's */
	struct data_limits lim;      /* what its figures stand on (src/data_limits.h) */
};

/* Whether LINE fits a panel W wide (a column of margin on each side). */
static bool fits(const char *line, int w)
{
	int cells = 0;
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		cells += (*p & 0xC0) != 0x80; /* a cell per UTF-8 character */
	return cells <= w - 2;
}

static void ov_title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct overview_view *ov = tp->owner;
	const struct gap_report *g = ov->g;
	char w[256], rk[32] = "";
	(void)app;
	if (view_ranks(ov->v) > 1)
		snprintf(rk, sizeof rk, " of rank %d", view_rank_label(ov->v, ov->rank));
	snprintf(buf, n, "Overview%s: %s", rk, window_text(g, w, sizeof w));
	if (!fits(buf, tp->base.r.w) && g->from_steps && g->nsteps > 0) { /* narrow: the steps and the span */
		char a[48], num[64];
		if (g->nsteps == 1)
			snprintf(num, sizeof num, "#%lld", (long long)g->steps[0].number);
		else
			snprintf(num, sizeof num, "#%lld..#%lld", (long long)g->steps[0].number,
			         (long long)g->steps[g->nsteps - 1].number);
		snprintf(buf, n, "Overview%s: ProfilerStep%s, %s (the plugin's window)", rk, num,
		         timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	}
}

/* The roles of the mean breakdown that fit a line of W columns: a 13-column lead, then 34
 * columns a role ("  Communication ██████████ 100.0%"); at least one. */
enum { ROLE_LEAD = 13, ROLE_CELL = 34, PHASE_CELL = 31 };
static int roles_per_line(int w)
{
	int n = (w - 1 - ROLE_LEAD) / ROLE_CELL;
	return n < 1 ? 1 : n > ROLE__COUNT ? ROLE__COUNT : n;
}

/* The phases that fit a line: 31 columns a phase ("  Optimizer  ██████████ 100.0%"). */
static int phases_per_line(int w)
{
	int n = (w - 1 - ROLE_LEAD) / PHASE_CELL;
	return n < 1 ? 1 : n > PHASE__COUNT ? PHASE__COUNT : n;
}

static int ov_header_rows(struct table_panel *tp, struct app *app, int h)
{
	const struct overview_view *ov = tp->owner;
	(void)app;
	(void)h;
	/* the advice; a line per limit; a line per device; the mean breakdown, as many roles a
	 * line as fit; the phases; a blank */
	int per = roles_per_line(tp->base.r.w), pper = phases_per_line(tp->base.r.w);
	return 1 + (int)ov->lim.n + (int)(ov->m->n ? ov->m->n : 1) +
	       (ov->s->n > 0 ? (ROLE__COUNT + per - 1) / per + (PHASE__COUNT + pper - 1) / pper : 0) + 1;
}

static void pct_text(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f%%", 100 * v);
}

/* A bar of WIDTH cells for FRACTION, in block characters or (ASCII) '#' and '.'. */
static const char *bar(double fraction, int width, bool ascii, char *buf, size_t n)
{
	if (!ascii)
		return overview_bar(fraction, width, buf, n);
	int full = isnan(fraction) ? 0 : (int)(fraction * width + 0.5);
	size_t k = 0;
	for (int i = 0; i < width && k + 1 < n; i++)
		buf[k++] = i < full ? '#' : '.';
	buf[k] = '\0';
	return buf;
}

static void ov_header(struct table_panel *tp, struct app *app, struct grid *g, struct rect r,
                      const struct render_opts *o)
{
	const struct overview_view *ov = tp->owner;
	const struct step_report *sr = ov->s;
	char line[512], a[48], u[16], s[16], oc[16], tc[16], tcp[16], unk[16], b[64];
	int y = r.y;
	(void)app;
	/* the link to the advice: its worst finding when the findings are known (the timeline
	 * computes them after its first frame; the Overview does not wait for them) */
	const struct advice_report *adv = trace_advice_found(ov->tr);
	if (adv != NULL && adv->n > 0) {
		const char *worst = advice_rule_info(adv->findings[0].rule)->title;
		double score = 100.0 * adv->findings[0].score;
		snprintf(line, sizeof line,
		         "Advice: %u finding%s, the worst: %s, about %.0f%% of step time (! shows them)", adv->n,
		         adv->n == 1 ? "" : "s", worst, score);
		if (!fits(line, r.w))
			snprintf(line, sizeof line, "Advice: %s, %.0f%% of step time (! shows %u)", worst, score,
			         adv->n);
	} else if (adv != NULL)
		snprintf(line, sizeof line, "Advice: no findings (no rule crossed its threshold)");
	else
		snprintf(line, sizeof line,
		         "Advice: ! lists the findings: what the figures mean, with causes and first fixes");
	grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_HILITE, 0);
	/* what the figures below stand on, as the reports say it (a file cut short...) */
	for (uint32_t i = 0; i < ov->lim.n && y < r.y + r.h; i++) {
		snprintf(line, sizeof line, "Limit: %s", ov->lim.l[i].text);
		grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_HILITE, 0);
	}
	if (ov->m->n == 0)
		grid_text(g, r.x + 1, y++, r.x + r.w,
		          "GPU summary: no GPU kernel in this trace (record with ProfilerActivity.CUDA)", CS_DETAILS,
		          0);
	for (uint32_t i = 0; i < ov->m->n && y < r.y + r.h; i++) {
		const struct gpu_metrics_device *d = &ov->m->devices[i];
		pct_text(u, sizeof u, d->utilization);
		pct_text(s, sizeof s, d->sm_efficiency);
		pct_text(oc, sizeof oc, d->occupancy / 100);
		pct_text(tc, sizeof tc, d->tensor_cores);
		pct_text(unk, sizeof unk, d->unit_unknown);
		pct_text(tcp, sizeof tcp, d->tensor_cores_plugin);
		const char *dev = trace_device_noun(ov->tr, d->device);
		unsigned long long nk = (unsigned long long)d->kernels;
		/* the whole line, else shorter ones that keep the four headline figures */
		snprintf(
			line, sizeof line,
			"%s %d: utilization %s  est. SM efficiency %s  est. occupancy %s  Tensor Cores %s (unit unknown "
			"%s, plugin %s)  %llu kernel%s, %s",
			dev, d->device, u, s, oc, tc, unk, tcp, nk, nk == 1 ? "" : "s",
			timefmt_dur(d->kernel_time, a, sizeof a));
		if (!fits(line, r.w))
			snprintf(line, sizeof line,
			         "%s %d: utilization %s  est. SM efficiency %s  est. occupancy %s  Tensor Cores %s",
			         dev, d->device, u, s, oc, tc);
		if (!fits(line, r.w))
			snprintf(line, sizeof line, "%s %d: util %s  SM eff %s  occ %s  Tensor Cores %s", dev,
			         d->device, u, s, oc, tc);
		if (!fits(line, r.w))
			snprintf(line, sizeof line, "%s %d: util %s SM %s occ %s TC %s", dev, d->device, u, s, oc, tc);
		grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_DETAILS, 0);
	}
	if (sr->n == 0 || sr->dur_avg <= 0)
		return;
	/* the plugin's mean step-time breakdown, as many roles a line as fit */
	int per = roles_per_line(r.w);
	for (int first = 0; first < ROLE__COUNT && y < r.y + r.h; first += per) {
		timefmt_dur((int64_t)sr->dur_avg, a, sizeof a);
		size_t k =
			(size_t)snprintf(line, sizeof line, "%-4s %-8s", first == 0 ? "step" : "", first == 0 ? a : "");
		for (int ro = first; ro < first + per && ro < ROLE__COUNT && k < sizeof line; ro++) {
			double f = sr->role_avg[ro] / sr->dur_avg;
			k += (size_t)snprintf(line + k, sizeof line - k, "  %-13s %s %5.1f%%",
			                      step_role_title((enum step_role)ro),
			                      bar(f, OVERVIEW_BAR_WIDTH, o->ascii, b, sizeof b), 100 * f);
		}
		grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_DETAILS, 0);
	}
	/* the phases of the host step: share of its time, or unknown */
	int pper = phases_per_line(r.w);
	for (int first = 0; first < PHASE__COUNT && y < r.y + r.h; first += pper) {
		size_t k = (size_t)snprintf(line, sizeof line, "%-13s", first == 0 ? "phases" : "");
		for (int ph = first; ph < first + pper && ph < PHASE__COUNT && k < sizeof line; ph++) {
			double f = sr->phase_cpu_share[ph];
			if (sr->phase_source[ph] == 0 && ph != PHASE_OTHER)
				k += (size_t)snprintf(line + k, sizeof line - k, "  %-10s unknown",
				                      step_phase_title((enum step_phase)ph));
			else
				k += (size_t)snprintf(line + k, sizeof line - k, "  %-10s %s %5.1f%%",
				                      step_phase_title((enum step_phase)ph),
				                      bar(f, OVERVIEW_BAR_WIDTH, o->ascii, b, sizeof b),
				                      isnan(f) ? 0.0 : 100 * f);
		}
		grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_DETAILS, 0);
	}
}

static void ov_jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct overview_view *ov = tp->owner;
	struct view *v = ov->v;
	const struct step_report *sr = ov->s; /* the cache's: it outlives the panel */
	int rank = ov->rank;
	app_pop(app); /* frees the panel and OV */
	if (tag < sr->n) {
		const struct step_stats *s = &sr->steps[tag];
		char d[48];
		view_show_span(v, rank, s->start, s->end, 0, NULL);
		view_status(v, "step %lld as the TensorBoard plugin stretches it to the device, %s",
		            (long long)s->number, timefmt_dur(s->end - s->start, d, sizeof d));
	}
}

static void ov_free(struct table_panel *tp)
{
	struct overview_view *ov = tp->owner;
	table_free(&ov->t);
	free(ov);
}

static const struct table_owner overview_owner = {
	.name = "overview",
	.title = ov_title,
	.jump = ov_jump,
	.header_rows = ov_header_rows,
	.header = ov_header,
	.free = ov_free,
};

struct panel *overview_open(struct app *app)
{
	struct view *v = app->tl;
	struct overview_view *ov = xcalloc(1, sizeof *ov);
	ov->v = v;
	ov->rank = view_focus_rank(v);
	ov->tr = view_rank_trace(v, ov->rank);
	ov->g = &trace_gaps(ov->tr, ANALYSIS_DEFAULT_MIN_GAP)->r;
	trace_overview(ov->tr, &ov->m, &ov->s);
	data_limits_trace(ov->tr, ov->g->nsteps, NULL, &ov->lim);
	table_init(&ov->t, ov->cols, overview_step_columns(ov->cols));
	overview_step_fill(&ov->t, ov->tr, ov->s);
	struct panel *p = table_panel_new(&ov->t, &overview_owner, ov);
	/* the breakdown per step; the phases and the rest are to the right (Right scrolls) */
	((struct table_panel *)p)->cols =
		overview_step_breakdown_cols(&ov->t, ov->s) | overview_step_phase_cols(&ov->t);
	return p;
}

static int write_overview(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	report_overview(f, ts, n, o->json);
	return 0;
}

/* --report=overview (ui/reports.h) */
const struct report_kind report_overview_kind = {
	.name = "overview",
	.json = true,
	.csv = true,
	.write = write_overview,
	.help = "      --report=overview  per file: per GPU utilization, est. SM efficiency, est. achieved\n"
		"                         occupancy, Tensor Cores (the TensorBoard plugin's definitions);\n"
		"                         every step, its time breakdown (the plugin's) and phases,\n"
		"                         achieved TFLOP/s\n",
};
