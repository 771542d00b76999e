/* diff_report.c: `ttrace diff` as text and JSON. The figures are a list of their own
 * (each in its unit); operators, kernels, kernel families and findings are tables whose
 * columns come from the two sides (ui/table.h: one definition for text and JSON). */
#include "ui/diff_report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/escape.h"
#include "lib/tmath.h"
#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "src/advice.h"
#include "parsers/op_args.h"
#include "src/diff.h"
#include "ui/jsonw.h"
#include "ui/report.h"
#include "ui/table.h"

#define DIFF_TOP_DEFAULT 15

/* ---- the tables --------------------------------------------------------------------- */

enum {
	OC_NAME,
	OC_VERDICT,
	OC_CALLS_A,
	OC_CALLS_B,
	OC_SELF_A,
	OC_SELF_B,
	OC_CHANGE,
	OC_PCT,
	OC_SPREAD,
	OC_TOTAL_A,
	OC_TOTAL_B,
	OC_HOST_A,
	OC_HOST_B,
	OC__COUNT
};
static const struct column op_cols[OC__COUNT] = {
	[OC_NAME] = { "name", "operator (per step)", COL_TEXT, 1, COL_WIDE },
	[OC_VERDICT] = { "verdict", "verdict", COL_TEXT, 0, 0 },
	[OC_CALLS_A] = { "calls_a", "calls A", COL_REAL, 0, 0 },
	[OC_CALLS_B] = { "calls_b", "calls B", COL_REAL, 0, 0 },
	[OC_SELF_A] = { "self_device_a_ns", "self dev A", COL_DUR, 0, 0 },
	[OC_SELF_B] = { "self_device_b_ns", "self dev B", COL_DUR, 0, 0 },
	[OC_CHANGE] = { "change_ns", "change", COL_DUR, 0, COL_SIGNED },
	[OC_PCT] = { "change_pct", "%", COL_PCT, 0, COL_SIGNED },
	[OC_SPREAD] = { "spread_ns", "spread", COL_DUR, 0, 0 },
	[OC_TOTAL_A] = { "device_total_a_ns", "dev total A", COL_DUR, 0, COL_JSON_ONLY },
	[OC_TOTAL_B] = { "device_total_b_ns", "dev total B", COL_DUR, 0, COL_JSON_ONLY },
	[OC_HOST_A] = { "host_a_ns", "host A", COL_DUR, 0, 0 },
	[OC_HOST_B] = { "host_b_ns", "host B", COL_DUR, 0, 0 },
};

enum {
	KC_NAME,
	KC_VERDICT,
	KC_FAMILY,
	KC_CALLS_A,
	KC_CALLS_B,
	KC_TIME_A,
	KC_TIME_B,
	KC_CHANGE,
	KC_PCT,
	KC_SPREAD,
	KC__COUNT
};
static const struct column kernel_cols[KC__COUNT] = {
	[KC_NAME] = { "name", "kernel (per step)", COL_TEXT, 1, COL_WIDE },
	[KC_VERDICT] = { "verdict", "verdict", COL_TEXT, 0, 0 },
	[KC_FAMILY] = { "family", "family", COL_TEXT, 0, 0 },
	[KC_CALLS_A] = { "calls_a", "calls A", COL_REAL, 0, 0 },
	[KC_CALLS_B] = { "calls_b", "calls B", COL_REAL, 0, 0 },
	[KC_TIME_A] = { "time_a_ns", "time A", COL_DUR, 0, 0 },
	[KC_TIME_B] = { "time_b_ns", "time B", COL_DUR, 0, 0 },
	[KC_CHANGE] = { "change_ns", "change", COL_DUR, 0, COL_SIGNED },
	[KC_PCT] = { "change_pct", "%", COL_PCT, 0, COL_SIGNED },
	[KC_SPREAD] = { "spread_ns", "spread", COL_DUR, 0, 0 },
};

enum { FC_FAMILY, FC_TIME_A, FC_TIME_B, FC_CHANGE, FC_CALLS_A, FC_CALLS_B, FC_CALLS_CHANGE, FC__COUNT };
static const struct column family_cols[FC__COUNT] = {
	[FC_FAMILY] = { "family", "kernel family (per step)", COL_TEXT, 0, 0 },
	[FC_TIME_A] = { "time_a_ns", "time A", COL_DUR, 0, 0 },
	[FC_TIME_B] = { "time_b_ns", "time B", COL_DUR, 0, 0 },
	[FC_CHANGE] = { "change_ns", "change", COL_DUR, 0, COL_SIGNED },
	[FC_CALLS_A] = { "launches_a", "launches A", COL_REAL, 0, 0 },
	[FC_CALLS_B] = { "launches_b", "launches B", COL_REAL, 0, 0 },
	[FC_CALLS_CHANGE] = { "launches_change", "change", COL_REAL, 0, COL_SIGNED },
};

enum { PC_A, PC_B, PC_DUR_A, PC_DUR_B, PC_CHANGE, PC_KERNEL_A, PC_KERNEL_B, PC__COUNT };
static const struct column pair_cols[PC__COUNT] = {
	[PC_A] = { "step_a", "step A", COL_INT, 0, 0 },
	[PC_B] = { "step_b", "step B", COL_INT, 0, 0 },
	[PC_DUR_A] = { "a_ns", "time A", COL_DUR, 0, 0 },
	[PC_DUR_B] = { "b_ns", "time B", COL_DUR, 0, 0 },
	[PC_CHANGE] = { "change_ns", "change", COL_DUR, 0, COL_SIGNED },
	[PC_KERNEL_A] = { "kernel_a_ns", "kernel A", COL_DUR, 0, 0 },
	[PC_KERNEL_B] = { "kernel_b_ns", "kernel B", COL_DUR, 0, 0 },
};

enum { NC_KEY, NC_TITLE, NC_STATE, NC_SCORE_A, NC_SCORE_B, NC_CHANGE, NC_CONF_A, NC_CONF_B, NC__COUNT };
static const struct column finding_cols[NC__COUNT] = {
	[NC_KEY] = { "key", "finding", COL_TEXT, 0, 0 },
	[NC_TITLE] = { "title", "title", COL_TEXT, 0, COL_JSON_ONLY },
	[NC_STATE] = { "state", "in B", COL_TEXT, 0, 0 },
	[NC_SCORE_A] = { "score_a", "score A", COL_RATIO, 0, 0 },
	[NC_SCORE_B] = { "score_b", "score B", COL_RATIO, 0, 0 },
	[NC_CHANGE] = { "score_change", "change", COL_RATIO, 0, COL_SIGNED },
	[NC_CONF_A] = { "confidence_a", "confidence A", COL_TEXT, 0, 0 },
	[NC_CONF_B] = { "confidence_b", "confidence B", COL_TEXT, 0, 0 },
};

static void set_ns(struct table *t, uint32_t row, int col, double v)
{
	if (!isnan(v))
		table_set_int(t, row, col, tt_round(v));
}

static void set_real(struct table *t, uint32_t row, int col, double v)
{
	if (!isnan(v))
		table_set_pct(t, row, col, v);
}

const char *diff_row_verdict(const struct diff_row *d)
{
	if (d->verdict == DV_ONE_SIDE)
		return isnan(d->time[0]) ? "new in B" : "gone in B";
	return d->verdict == DV_NO_SPREAD ? "no spread" : diff_verdict_key(d->verdict);
}

static void change_cells(struct table *t, uint32_t row, int col, const double v[2])
{
	double a = isnan(v[0]) ? 0 : v[0], b = isnan(v[1]) ? 0 : v[1];
	set_ns(t, row, col, b - a);
	if (!isnan(v[0]) && v[0] != 0 && !isnan(v[1]))
		table_set_pct(t, row, col + 1, 100.0 * (b - a) / a);
}

static void op_table(struct table *t, const struct diff_report *r)
{
	table_init(t, op_cols, OC__COUNT);
	for (uint32_t i = 0; i < r->nops; i++) {
		const struct diff_row *d = &r->ops[i];
		uint32_t row = table_add_row(t, i);
		table_set_text(t, row, OC_NAME, strtab_get(&r->names, d->name), strtab_len(&r->names, d->name));
		table_set_str(t, row, OC_VERDICT, diff_row_verdict(d));
		set_real(t, row, OC_CALLS_A, d->calls[0]);
		set_real(t, row, OC_CALLS_B, d->calls[1]);
		set_ns(t, row, OC_SELF_A, d->time[0]);
		set_ns(t, row, OC_SELF_B, d->time[1]);
		change_cells(t, row, OC_CHANGE, d->time);
		set_ns(t, row, OC_SPREAD, d->spread);
		set_ns(t, row, OC_TOTAL_A, d->total[0]);
		set_ns(t, row, OC_TOTAL_B, d->total[1]);
		set_ns(t, row, OC_HOST_A, d->host[0]);
		set_ns(t, row, OC_HOST_B, d->host[1]);
	}
}

static void kernel_table(struct table *t, const struct diff_report *r)
{
	table_init(t, kernel_cols, KC__COUNT);
	for (uint32_t i = 0; i < r->nkernels; i++) {
		const struct diff_row *d = &r->kernels[i];
		uint32_t row = table_add_row(t, i);
		table_set_text(t, row, KC_NAME, strtab_get(&r->names, d->name), strtab_len(&r->names, d->name));
		table_set_str(t, row, KC_VERDICT, diff_row_verdict(d));
		table_set_str(t, row, KC_FAMILY, kernel_class_family_name(d->family));
		set_real(t, row, KC_CALLS_A, d->calls[0]);
		set_real(t, row, KC_CALLS_B, d->calls[1]);
		set_ns(t, row, KC_TIME_A, d->time[0]);
		set_ns(t, row, KC_TIME_B, d->time[1]);
		change_cells(t, row, KC_CHANGE, d->time);
		set_ns(t, row, KC_SPREAD, d->spread);
	}
}

static void family_table(struct table *t, const struct diff_report *r)
{
	table_init(t, family_cols, FC__COUNT);
	for (int f = 0; f < KC_FAMILY__COUNT; f++) {
		const struct diff_family *d = &r->families[f];
		if (d->time[0] == 0 && d->time[1] == 0 && d->calls[0] == 0 && d->calls[1] == 0)
			continue;
		uint32_t row = table_add_row(t, (uint64_t)f);
		table_set_str(t, row, FC_FAMILY, kernel_class_family_name((enum kc_family)f));
		set_ns(t, row, FC_TIME_A, d->time[0]);
		set_ns(t, row, FC_TIME_B, d->time[1]);
		set_ns(t, row, FC_CHANGE, d->time[1] - d->time[0]);
		set_real(t, row, FC_CALLS_A, d->calls[0]);
		set_real(t, row, FC_CALLS_B, d->calls[1]);
		table_set_pct(t, row, FC_CALLS_CHANGE, d->calls[1] - d->calls[0]);
	}
}

static void pair_table(struct table *t, const struct diff_report *r)
{
	table_init(t, pair_cols, PC__COUNT);
	for (uint32_t i = 0; i < r->npairs; i++) {
		const struct diff_step_pair *p = &r->pairs[i];
		uint32_t row = table_add_row(t, i);
		table_set_int(t, row, PC_A, p->number[0]);
		table_set_int(t, row, PC_B, p->number[1]);
		table_set_int(t, row, PC_DUR_A, p->dur[0]);
		table_set_int(t, row, PC_DUR_B, p->dur[1]);
		table_set_int(t, row, PC_CHANGE, p->dur[1] - p->dur[0]);
		table_set_int(t, row, PC_KERNEL_A, p->kernel[0]);
		table_set_int(t, row, PC_KERNEL_B, p->kernel[1]);
	}
}

static void finding_table(struct table *t, const struct diff_report *r)
{
	table_init(t, finding_cols, NC__COUNT);
	for (uint32_t i = 0; i < r->nfindings; i++) {
		const struct diff_finding *d = &r->findings[i];
		uint32_t row = table_add_row(t, i);
		table_set_str(t, row, NC_KEY, d->key);
		table_set_str(t, row, NC_TITLE, d->title);
		bool a = d->confidence[0] >= 0, b = d->confidence[1] >= 0;
		table_set_str(t, row, NC_STATE,
		              !b   ? "gone"
		              : !a ? "new"
		              : fabs(d->score[1] - d->score[0]) < 0.005 && d->confidence[0] == d->confidence[1]
		                      ? "same"
		                      : "changed");
		set_real(t, row, NC_SCORE_A, d->score[0]);
		set_real(t, row, NC_SCORE_B, d->score[1]);
		if (a && b)
			table_set_pct(t, row, NC_CHANGE, d->score[1] - d->score[0]);
		if (a)
			table_set_str(t, row, NC_CONF_A,
			              advice_confidence_key((enum advice_confidence)d->confidence[0]));
		if (b)
			table_set_str(t, row, NC_CONF_B,
			              advice_confidence_key((enum advice_confidence)d->confidence[1]));
	}
}

/* ---- the figures -------------------------------------------------------------------- */

static const char *unit_key(enum diff_unit u)
{
	static const char *const keys[] = { "ns", "ratio", "percent", "bytes", "count" };
	return keys[u];
}

/* A figure's value V in unit U into BUF ("-" for NaN); SIGNED: a change ("+" before a
 * positive one; shares and percents in points). */
const char *diff_value_text(enum diff_unit u, double v, bool sign, char *buf, size_t n)
{
	char b[40];
	if (isnan(v))
		return snprintf(buf, n, "-"), buf;
	switch (u) {
	case DU_NS: timefmt_dur(tt_round(v), b, sizeof b); break;
	case DU_RATIO: snprintf(b, sizeof b, sign ? "%.1fpt" : "%.1f%%", 100 * v); break;
	case DU_PERCENT: snprintf(b, sizeof b, sign ? "%.1fpt" : "%.1f%%", v); break;
	case DU_BYTES: timefmt_bytes(fabs(v), b, sizeof b); break;
	case DU_COUNT: snprintf(b, sizeof b, "%.1f", v); break;
	}
	const char *pre = u == DU_BYTES && v < 0 ? "-" : sign && v > 0 ? "+" : "";
	snprintf(buf, n, "%s%s", pre, b);
	return buf;
}

const char *diff_figure_verdict(const struct diff_figure *d)
{
	if (d->verdict == DV_ONE_SIDE)
		return isnan(d->v[0]) ? "only B" : "only A";
	return d->verdict == DV_NO_SPREAD ? "no spread" : diff_verdict_key(d->verdict);
}

static void figures_text(FILE *f, const struct diff_report *r)
{
	fprintf(f, "   %-28s %12s %12s %12s %8s %11s  %s\n", "figure (per step)", "A", "B", "change", "%", "spread",
	        "verdict");
	for (uint32_t i = 0; i < r->nfigs; i++) {
		const struct diff_figure *d = &r->figs[i];
		char a[48], b[48], c[48], s[48], p[24] = "";
		double ch = d->v[1] - d->v[0];
		if (!isnan(ch) && d->v[0] != 0)
			snprintf(p, sizeof p, "%+.1f%%", 100 * ch / d->v[0]);
		fprintf(f, "   %-28s %12s %12s %12s %8s %11s  %s\n", d->title,
		        diff_value_text(d->unit, d->v[0], false, a, sizeof a),
		        diff_value_text(d->unit, d->v[1], false, b, sizeof b),
		        diff_value_text(d->unit, ch, true, c, sizeof c), p,
		        diff_value_text(d->unit, d->spread, false, s, sizeof s), diff_figure_verdict(d));
	}
}

static void figures_json(struct jsonw *w, const struct diff_report *r)
{
	jsonw_key(w, "figures");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->nfigs; i++) {
		const struct diff_figure *d = &r->figs[i];
		jsonw_object(w);
		jsonw_key(w, "key");
		jsonw_str(w, d->key);
		jsonw_key(w, "title");
		const char *t = d->title;
		while (*t == ' ')
			t++;
		jsonw_str(w, t);
		jsonw_key(w, "unit");
		jsonw_str(w, unit_key(d->unit));
		/* times and bytes as whole numbers, as every report writes them */
		bool whole = d->unit == DU_NS || d->unit == DU_BYTES;
		const char *keys[4] = { "a", "b", "change", "spread" };
		double v[4] = { d->v[0], d->v[1], d->v[1] - d->v[0], d->spread };
		for (int k = 0; k < 4; k++) {
			jsonw_key(w, keys[k]);
			if (whole && !isnan(v[k]))
				jsonw_int(w, tt_round(v[k]));
			else
				jsonw_double(w, v[k]);
		}
		jsonw_key(w, "verdict");
		jsonw_str(w, diff_verdict_key(d->verdict));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* ---- the report --------------------------------------------------------------------- */

static void side_json(struct jsonw *w, const char *key, struct trace *const *ts, int n, uint32_t steps,
                      int64_t step_number)
{
	jsonw_key(w, key);
	jsonw_object(w);
	jsonw_key(w, "paths");
	jsonw_array(w);
	for (int i = 0; i < n; i++)
		jsonw_str(w, ts[i]->path);
	jsonw_end_array(w);
	jsonw_key(w, "steps");
	jsonw_uint(w, steps);
	jsonw_key(w, "step_number"); /* diff --steps: the step compared; else null */
	if (step_number >= 0)
		jsonw_int(w, step_number);
	else
		jsonw_null(w);
	jsonw_end_object(w);
}

static void side_text(FILE *f, char which, struct trace *const *ts, int n, uint32_t steps, int64_t step_number)
{
	fprintf(f, "   %c: ", which);
	escape_term(f, ts[0]->path, strlen(ts[0]->path));
	if (n > 1)
		fprintf(f, " and %d more rank%s", n - 1, n == 2 ? "" : "s");
	if (step_number >= 0)
		fprintf(f, ", step #%lld (%s)\n", (long long)step_number, which == 'A' ? "the median" : "the slowest");
	else
		fprintf(f, " (%u step%s)\n", steps, steps == 1 ? "" : "s");
}

static void table_json(struct jsonw *w, const char *key, const struct table *t, uint32_t top)
{
	jsonw_key(w, key);
	uint32_t n = top && top < t->nrows ? top : t->nrows;
	uint32_t *rows = xmalloc((n ? n : 1) * sizeof *rows);
	for (uint32_t i = 0; i < n; i++)
		rows[i] = i;
	table_write_json(w, t, rows, n, TABLE_ALL);
	free(rows);
}

static void write_table(FILE *f, const char *what, const struct table *t, uint32_t top)
{
	uint32_t n = top && top < t->nrows ? top : t->nrows;
	fputc('\n', f);
	if (t->nrows == 0) {
		fprintf(f, "   %s\n", what);
		return;
	}
	uint32_t *rows = xmalloc((n ? n : 1) * sizeof *rows);
	for (uint32_t i = 0; i < n; i++)
		rows[i] = i;
	table_write_text(f, t, rows, n, TABLE_ALL, REPORT_WIDTH, "   ");
	free(rows);
	if (n < t->nrows)
		fprintf(f, "   ... and %u more (--top=0 lists them all)\n", t->nrows - n);
}

/* What the recorded input shapes say (parsers/op_args.h): shapes recorded on one side only;
 * the first layer's input shapes told apart (another batch size?). */
static void shape_notes(struct diff_report *r, struct trace *a, struct trace *b)
{
	uint32_t ida, idb;
	bool ra, rb;
	char *sa = op_args_first_shapes(a, NULL, 2000, &ida, &ra);
	char *sb = op_args_first_shapes(b, sa != NULL ? strtab_get(&a->strings, ida) : NULL, 2000, &idb, &rb);
	if (ra != rb)
		diff_note(r, "profiler settings differ: only %c recorded input shapes (record_shapes=True)",
		          ra ? 'A' : 'B');
	else if (sa != NULL && sb != NULL && strcmp(sa, sb) != 0)
		diff_note(
			r,
			"input shapes differ: A's first %s takes %.80s%s, B's %.80s%s (another batch size or length?)",
			strtab_get(&a->strings, ida), sa, strlen(sa) > 80 ? "..." : "", sb,
			strlen(sb) > 80 ? "..." : "");
	free(sa);
	free(sb);
}

int report_diff(FILE *f, struct trace *const *a, int na, struct trace *const *b, int nb, bool json, int top, int align,
                bool steps, int match)
{
	struct diff_report r;
	if (na == 1 && nb == 1 && a[0] == b[0] && steps)
		diff_steps(a[0], &r);
	else {
		diff_analyse(a, na, b, nb, align, (enum diff_match)match, op_args_keys, &r);
		shape_notes(&r, a[0], b[0]);
	}
	uint32_t ntop = top < 0 ? DIFF_TOP_DEFAULT : (uint32_t)top;
	struct table ops, kernels, families, findings, pairs;
	pair_table(&pairs, &r);
	op_table(&ops, &r);
	kernel_table(&kernels, &r);
	family_table(&families, &r);
	finding_table(&findings, &r);
	if (json) {
		struct jsonw w;
		jsonw_init(&w, f);
		jsonw_object(&w);
		jsonw_key(&w, "ttrace_version");
		jsonw_str(&w, PACKAGE_VERSION);
		side_json(&w, "a", a, na, r.steps[0], r.by_steps ? r.step_number[0] : -1);
		side_json(&w, "b", b, nb, r.steps[1], r.by_steps ? r.step_number[1] : -1);
		jsonw_key(&w, "notes");
		jsonw_array(&w);
		for (uint32_t i = 0; i < r.nnotes; i++)
			jsonw_str(&w, r.notes[i]);
		jsonw_end_array(&w);
		figures_json(&w, &r);
		table_json(&w, "steps", &pairs, 0);
		table_json(&w, "kernel_families", &families, 0);
		table_json(&w, "operators", &ops, top < 0 ? 0 : ntop);
		table_json(&w, "kernels", &kernels, top < 0 ? 0 : ntop);
		table_json(&w, "findings", &findings, 0);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	} else {
		fprintf(f, "== diff: B against A\n");
		side_text(f, 'A', a, na, r.steps[0], r.by_steps ? r.step_number[0] : -1);
		side_text(f, 'B', b, nb, r.steps[1], r.by_steps ? r.step_number[1] : -1);
		for (uint32_t i = 0; i < r.nnotes; i++) {
			char esc[768]; /* a note may hold a trace's text (a GPU's name): escaped, then wrapped */
			escape_term_buf(r.notes[i], strlen(r.notes[i]), esc, sizeof esc);
			fputs("   note: ", f);
			report_wrap_text(f, esc, 9, "         ");
		}
		fputs(r.by_steps
		              ? "   (each side: one step; spread: the other steps' min-max, the slowest left out; a change\n"
		                "   within it is noise; ttrace(1), DIFF)\n\n"
		              : "   (per step: each side's figure over its steps; spread: the larger side's min-max over its "
		                "steps,\n   a change within it is noise; ttrace(1), DIFF)\n\n",
		      f);
		figures_text(f, &r);
		if (pairs.nrows > 0)
			write_table(f, "", &pairs, 0);
		write_table(f, "kernels: none on either side", &families, 0);
		write_table(f, "operators: none launched GPU work on either side", &ops, ntop);
		write_table(f, "kernels: none on either side", &kernels, ntop);
		write_table(f,
		            r.by_steps ? "findings: not compared step against step" : "findings: none on either side",
		            &findings, 0);
	}
	table_free(&ops);
	table_free(&kernels);
	table_free(&families);
	table_free(&findings);
	table_free(&pairs);
	diff_free(&r);
	return 0;
}
