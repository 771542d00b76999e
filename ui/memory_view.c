/* memory_view.c: the memory table, its report and its panel (see memory_view.h).
 *
 * The panel is a table panel with a header (ui/table_panel.h): a line of peaks per device,
 * a line of memory at each step start, then a curve per device over the timeline's window
 * (view_rank_window), one column a slice of time showing the most allocated and reserved in
 * it, in eighths of a cell, all devices' curves above one time axis. */
#include "ui/memory_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/reports.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "src/data_limits.h"
#include "ui/app.h"
#include "lib/escape.h"
#include "ui/names.h"
#include "ui/report.h"
#include "ui/table_panel.h"
#include "ui/view.h"

#define NO_MEMORY "no [memory] events in this trace (record with profile_memory=True)"
#define DERIVED_NOTE                                                                                               \
	"derived, not reported: no sample of the device has Total Allocated/Reserved (PyTorch before 1.10), so "   \
	"the allocated memory is the running sum of the samples' Bytes in time order, raised by how far it falls " \
	"below zero (memory held before the trace); a lower bound, exact in its changes; reserved unknown"

enum {
	M_NAME,
	M_DEVICE,
	M_CALLS,
	M_SELF_ALLOCS,
	M_ALLOCS,
	M_SELF_BYTES,
	M_BYTES,
	M_SELF_INC,
	M_INC,
	M_TOP,
	M_TOP_BYTES
};

int memory_view_columns(struct column *cols)
{
	static const struct column c[MEMORY_TABLE_COLS] = {
		[M_NAME] = { "name", "operator", COL_TEXT, 2, 0 },
		[M_DEVICE] = { "device", "device", COL_TEXT, 0, 0 },
		[M_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
		[M_SELF_ALLOCS] = { "self_allocations", "self allocs", COL_COUNT, 0, 0 },
		[M_ALLOCS] = { "allocations", "allocs", COL_COUNT, 0, 0 },
		[M_SELF_BYTES] = { "self_allocated_bytes", "self allocated", COL_BYTES, 0, 0 },
		[M_BYTES] = { "allocated_bytes", "allocated", COL_BYTES, 0, 0 },
		[M_SELF_INC] = { "self_size_increase_bytes", "self increase", COL_BYTES, 0, 0 },
		[M_INC] = { "size_increase_bytes", "increase", COL_BYTES, 0, 0 },
		[M_TOP] = { "top_instance_start_ns", "top instance at", COL_TIME, 0, COL_JSON_ONLY },
		[M_TOP_BYTES] = { "top_instance_allocated_bytes", "top instance allocated", COL_BYTES, 0,
		                  COL_JSON_ONLY },
	};
	memcpy(cols, c, sizeof c);
	return MEMORY_TABLE_COLS;
}

void memory_view_fill(struct table *tb, const struct trace *t, const struct memory_report *r)
{
	char dev[32];
	tb->origin = t->start;
	for (uint32_t i = 0; i < r->nrows; i++) {
		const struct mem_op_row *o = &r->rows[i];
		uint32_t row = table_add_row(tb, i);
		table_set_trace_str(tb, row, M_NAME, t, o->name);
		table_set_str(tb, row, M_DEVICE, memory_device_name(&r->devices[o->device], dev, sizeof dev));
		table_set_int(tb, row, M_CALLS, (int64_t)o->calls);
		table_set_int(tb, row, M_SELF_ALLOCS, (int64_t)o->self_allocs);
		table_set_int(tb, row, M_ALLOCS, (int64_t)o->allocs);
		table_set_int(tb, row, M_SELF_BYTES, o->self_alloc_bytes);
		table_set_int(tb, row, M_BYTES, o->alloc_bytes);
		table_set_int(tb, row, M_SELF_INC, o->self_increase);
		table_set_int(tb, row, M_INC, o->increase);
		if (o->top.track != TT_NONE) {
			table_set_int(tb, row, M_TOP, t->tracks[o->top.track].slices[o->top.idx].ts);
			table_set_int(tb, row, M_TOP_BYTES, o->top_bytes);
		}
	}
}

/* Whether the plugin's curve holds D: CPU or CUDA, and a sample with Addr and both totals. */
static bool plugin_has_peak(const struct trace *t, const struct mem_device *d)
{
	if (d->type != 0 && d->type != 1)
		return false;
	uint32_t hint = 0;
	for (uint32_t k = 0; k < d->n; k++)
		if (mem_run_near(t, d->sample[k], &hint)->flags & MEM_HAS_ADDR)
			return true;
	return false;
}

static const char *op_name(const struct trace *t, struct slice_ref s)
{
	return s.track == TT_NONE ? NULL : trace_str(t, slice_name(t, &t->tracks[s.track].slices[s.idx]));
}

/* ---- the report (ui/report.h) -------------------------------------------------- */

static void report_fill(struct table *tb, struct trace *t) { memory_view_fill(tb, t, trace_memory(t)); }

static bool report_has_data(struct trace *t) { return t->nmem > 0; }

/* The file's limits and, when its figures are derived for want of totals, that one. */
static void report_limits_of(struct trace *t, struct data_limits *l)
{
	data_limits_trace(t, -1, t->nmem > 0 ? trace_memory(t) : NULL, l);
}

static void json_op(struct jsonw *w, const char *key, const struct trace *t, struct slice_ref s)
{
	const char *n = op_name(t, s);
	jsonw_key(w, key);
	if (n != NULL)
		jsonw_str(w, n);
	else
		jsonw_null(w);
}

/* "derived": whether D's figures are derived from Bytes (memory.h), and then what they are,
 * under keys of their own, never those of the reported totals above. */
/* "step_start_allocated": each step's start with ALLOCATED[s] there (null when < 0); an
 * empty array when ALLOCATED is NULL. */
static void json_step_starts(struct jsonw *w, const struct trace *t, const struct memory_report *r,
                             const int64_t *allocated)
{
	jsonw_key(w, "step_start_allocated");
	jsonw_array(w);
	for (uint32_t s = 0; allocated != NULL && s < r->nsteps; s++) {
		const struct step *st = &t->steps[r->steps[s]];
		jsonw_object(w);
		jsonw_key(w, "step");
		jsonw_int(w, st->number);
		jsonw_key(w, "start_ns");
		jsonw_int(w, st->ts);
		jsonw_key(w, "allocated_bytes");
		allocated[s] >= 0 ? jsonw_int(w, allocated[s]) : jsonw_null(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void json_derived(struct jsonw *w, const struct trace *t, const struct memory_report *r,
                         const struct mem_device *d)
{
	const struct mem_derived *x = &d->derived;
	jsonw_key(w, "derived");
	jsonw_bool(w, x->n > 0);
	jsonw_key(w, "derived_allocated");
	if (x->n == 0) {
		jsonw_null(w);
		return;
	}
	jsonw_object(w);
	jsonw_key(w, "note");
	jsonw_str(w, DERIVED_NOTE);
	jsonw_key(w, "curve_samples");
	jsonw_uint(w, x->n);
	jsonw_key(w, "base_bytes");
	jsonw_int(w, x->base);
	jsonw_key(w, "peak_allocated_bytes");
	jsonw_int(w, x->peak);
	jsonw_key(w, "peak_allocated_ns");
	jsonw_int(w, x->peak_ts);
	json_op(w, "peak_allocated_op", t, x->peak_op);
	jsonw_key(w, "end_allocated_bytes");
	jsonw_int(w, x->allocated[x->n - 1]);
	json_step_starts(w, t, r, x->step_allocated);
	jsonw_end_object(w);
}

static void report_json_head(struct jsonw *w, struct trace *t)
{
	const struct memory_report *r = trace_memory(t);
	char dev[32];
	jsonw_key(w, "start_ns"); /* the trace's start: times below are file times, as the rows' */
	jsonw_int(w, t->start);
	jsonw_key(w, "memory_samples");
	jsonw_uint(w, r->samples);
	if (r->samples == 0) {
		jsonw_key(w, "note");
		jsonw_str(w, NO_MEMORY);
	}
	jsonw_key(w, "devices");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->ndevices; i++) {
		const struct mem_device *d = &r->devices[i];
		jsonw_object(w);
		jsonw_key(w, "device");
		jsonw_str(w, memory_device_name(d, dev, sizeof dev));
		jsonw_key(w, "device_type");
		jsonw_int(w, d->type);
		jsonw_key(w, "device_id");
		jsonw_int(w, d->id);
		jsonw_key(w, "samples");
		jsonw_uint(w, d->samples);
		jsonw_key(w, "samples_without_addr");
		jsonw_uint(w, d->without_addr);
		jsonw_key(w, "curve_samples");
		jsonw_uint(w, d->n);
		jsonw_key(w, "samples_in_operators");
		jsonw_uint(w, d->attached);
		jsonw_key(w, "allocations");
		jsonw_uint(w, d->allocations);
		jsonw_key(w, "allocated_bytes");
		jsonw_int(w, d->allocated_bytes);
		jsonw_key(w, "plugin_has_peak");
		jsonw_bool(w, plugin_has_peak(t, d));
		bool c = d->n > 0;
		jsonw_key(w, "peak_allocated_bytes");
		c ? jsonw_int(w, d->peak_allocated) : jsonw_null(w);
		jsonw_key(w, "peak_allocated_ns");
		c ? jsonw_int(w, d->peak_allocated_ts) : jsonw_null(w);
		json_op(w, "peak_allocated_op", t, d->peak_allocated_op);
		jsonw_key(w, "reserved_at_peak_bytes");
		c ? jsonw_int(w, d->reserved_at_peak) : jsonw_null(w);
		jsonw_key(w, "peak_reserved_bytes");
		c ? jsonw_int(w, d->peak_reserved) : jsonw_null(w);
		jsonw_key(w, "peak_reserved_ns");
		c ? jsonw_int(w, d->peak_reserved_ts) : jsonw_null(w);
		json_op(w, "peak_reserved_op", t, d->peak_reserved_op);
		jsonw_key(w, "max_unused_bytes");
		c ? jsonw_int(w, d->max_unused) : jsonw_null(w);
		jsonw_key(w, "max_unused_ns");
		c ? jsonw_int(w, d->max_unused_ts) : jsonw_null(w);
		json_step_starts(w, t, r, c ? d->step_allocated : NULL);
		json_derived(w, t, r, d);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* "2.71 GB (2707847680 B)" */
static const char *bytes_exact(int64_t b, char *buf, size_t n)
{
	char h[32];
	snprintf(buf, n, "%s (%lld B)", timefmt_bytes((double)b, h, sizeof h), (long long)b);
	return buf;
}

static void text_op(FILE *f, const struct trace *t, struct slice_ref s)
{
	const char *n = op_name(t, s);
	if (n == NULL) {
		fputs("no operator", f);
		return;
	}
	fputs("in ", f);
	escape_term(f, n, strlen(n));
}

/* The derived figures of a device (memory.h), said to be derived on every line. */
static void text_derived(FILE *f, const struct trace *t, const struct memory_report *r, const struct mem_derived *x)
{
	char a[64], b[64];
	fputs("     no Total Allocated/Reserved in its samples (PyTorch before 1.10): the figures below are DERIVED\n"
	      "     from the samples' Bytes (their running sum in time order, raised by how far it falls below zero:\n"
	      "     a lower bound of the allocated memory, exact in its changes; reserved memory unknown)\n",
	      f);
	fprintf(f, "     derived peak allocated %s at %s, ", bytes_exact(x->peak, a, sizeof a),
	        timefmt_offset(x->peak_ts - t->start, b, sizeof b));
	text_op(f, t, x->peak_op);
	fprintf(f, "\n     derived base %s (the most the running sum falls below zero), %s allocated at the end\n",
	        timefmt_bytes((double)x->base, a, sizeof a),
	        timefmt_bytes((double)x->allocated[x->n - 1], b, sizeof b));
	if (r->nsteps > 0) {
		fputs("     derived allocated at step start:", f);
		for (uint32_t s = 0; s < r->nsteps; s++) {
			if (r->nsteps > 12 && s == 6) {
				fputs(" ...", f);
				s = r->nsteps - 6;
			}
			if (x->step_allocated[s] < 0)
				fprintf(f, " #%lld -", (long long)t->steps[r->steps[s]].number);
			else
				fprintf(f, " #%lld %s", (long long)t->steps[r->steps[s]].number,
				        timefmt_bytes((double)x->step_allocated[s], a, sizeof a));
		}
		fputc('\n', f);
	}
}

static void report_text_head(FILE *f, struct trace *t, const char *sort)
{
	const struct memory_report *r = trace_memory(t);
	char a[64], b[64], dev[32];
	if (r->samples == 0) {
		fprintf(f, "   %s\n", NO_MEMORY);
		return;
	}
	fprintf(f, "   %llu [memory] samples on %u device%s; times from the trace start\n",
	        (unsigned long long)r->samples, r->ndevices, r->ndevices == 1 ? "" : "s");
	for (uint32_t i = 0; i < r->ndevices; i++) {
		const struct mem_device *d = &r->devices[i];
		memory_device_name(d, dev, sizeof dev);
		fprintf(f, "   %s: %llu samples, %llu allocations of %s in all, %llu samples inside an operator\n", dev,
		        (unsigned long long)d->samples, (unsigned long long)d->allocations,
		        timefmt_bytes((double)d->allocated_bytes, a, sizeof a), (unsigned long long)d->attached);
		if (d->n == 0 && d->derived.n == 0) {
			fputs("     no Total Allocated/Reserved in its samples (PyTorch before 1.10): no curve, no peak\n",
			      f);
			continue;
		}
		if (d->n == 0) {
			text_derived(f, t, r, &d->derived);
			continue;
		}
		fprintf(f, "     peak allocated %s at %s, ", bytes_exact(d->peak_allocated, a, sizeof a),
		        timefmt_offset(d->peak_allocated_ts - t->start, b, sizeof b));
		text_op(f, t, d->peak_allocated_op);
		fprintf(f, "\n     peak reserved  %s at %s, ", bytes_exact(d->peak_reserved, a, sizeof a),
		        timefmt_offset(d->peak_reserved_ts - t->start, b, sizeof b));
		text_op(f, t, d->peak_reserved_op);
		fputc('\n', f);
		if (d->peak_reserved > 0) {
			fprintf(f, "     reserved but unallocated: %s at the allocated peak, ",
			        timefmt_bytes((double)(d->reserved_at_peak - d->peak_allocated), a, sizeof a));
			fprintf(f, "at most %s at %s\n", timefmt_bytes((double)d->max_unused, a, sizeof a),
			        timefmt_offset(d->max_unused_ts - t->start, b, sizeof b));
		}
		if (d->without_addr > 0)
			fprintf(f,
			        "     %llu samples without Addr: the TensorBoard plugin leaves them out of its peak\n",
			        (unsigned long long)d->without_addr);
		if (d->type != 0 && d->type != 1)
			fputs("     (the TensorBoard plugin names only cpu and cuda devices and shows no peak for this one)\n",
			      f);
		if (r->nsteps > 0) {
			fputs("     allocated at step start:", f);
			for (uint32_t s = 0; s < r->nsteps; s++) {
				if (r->nsteps > 12 && s == 6) { /* the first and the last few; JSON has them all */
					fputs(" ...", f);
					s = r->nsteps - 6;
				}
				if (d->step_allocated[s] < 0)
					fprintf(f, " #%lld -", (long long)t->steps[r->steps[s]].number);
				else
					fprintf(f, " #%lld %s", (long long)t->steps[r->steps[s]].number,
					        timefmt_bytes((double)d->step_allocated[s], a, sizeof a));
			}
			fputc('\n', f);
		}
	}
	if (r->nrows == 0)
		fputs("   no sample lies inside an operator on its thread\n", f);
	else
		fprintf(f, "   operators by %s (self: the operator's own samples; else with the operators it calls):\n",
		        sort != NULL ? sort : "self bytes allocated");
}

const struct table_report memory_table_report = {
	.name = "memory",
	.columns = memory_view_columns,
	.fill = report_fill,
	.json_head = report_json_head,
	.text_head = report_text_head,
	.text_cols = (1u << M_NAME) | (1u << M_DEVICE) | (1u << M_CALLS) | (1u << M_SELF_ALLOCS) | (1u << M_ALLOCS) |
	             (1u << M_SELF_BYTES) | (1u << M_BYTES) | (1u << M_SELF_INC) | (1u << M_INC),
	.text_rows = 20,
	.empty = NO_MEMORY,
	.has_data = report_has_data,
	.limits = report_limits_of,
};

/* ---- the panel ------------------------------------------------------------------- */

#define LABEL_W 10 /* the curve's left column: device, scale */

struct memory_view {
	struct table t;
	struct column cols[MEMORY_TABLE_COLS];
	struct view *v;
	int rank; /* the rank position it shows */
	struct trace *tr;
	const struct memory_report *r;
	uint32_t *curves; /* devices with a curve: accelerators first, then by number */
	uint32_t ncurves;
	uint32_t main_dev; /* the device whose step starts are shown: the first curve */
};

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	const struct memory_view *m = tp->owner;
	char rk[32] = "";
	(void)app;
	if (view_ranks(m->v) > 1)
		snprintf(rk, sizeof rk, " of rank %d", view_rank_label(m->v, m->rank));
	snprintf(buf, n, "Memory%s: %llu samples on %u device%s; %u operator rows%s", rk,
	         (unsigned long long)m->r->samples, m->r->ndevices, m->r->ndevices == 1 ? "" : "s", m->r->nrows,
	         tp->sort_col < 0 ? ", by self bytes allocated" : "");
}

static int info_lines(const struct memory_view *m)
{
	int n = (int)m->r->ndevices;
	if (n > 4)
		n = 4;
	return n + (m->ncurves > 0 && m->r->nsteps > 0);
}

static int curve_h(const struct memory_view *m, int h)
{
	if (m->ncurves == 0)
		return 0;
	int ch = (h / 2 - info_lines(m) - 1) / (int)m->ncurves;
	return ch < 2 ? 2 : ch > 8 ? 8 : ch;
}

static int header_rows(struct table_panel *tp, struct app *app, int h)
{
	const struct memory_view *m = tp->owner;
	(void)app;
	return info_lines(m) + (m->ncurves > 0 ? (int)m->ncurves * curve_h(m, h) + 1 : 0);
}

static void device_line(const struct memory_view *m, const struct mem_device *d, char *buf, size_t n)
{
	char dev[32], a[32], b[32], c[32], e[32], op[96] = "";
	const struct trace *t = m->tr;
	memory_device_name(d, dev, sizeof dev);
	if (d->n == 0 && d->derived.n > 0) {
		if (d->derived.peak_op.track != TT_NONE)
			trace_str_escaped(
				t, slice_name(t, &t->tracks[d->derived.peak_op.track].slices[d->derived.peak_op.idx]),
				op, sizeof op);
		snprintf(buf, n, "%-8s no totals (PyTorch < 1.10): DERIVED from Bytes, peak allocated >= %s at %s%s%s",
		         dev, timefmt_bytes((double)d->derived.peak, a, sizeof a),
		         timefmt_offset(d->derived.peak_ts - t->start, b, sizeof b), op[0] ? " in " : "", op);
		return;
	}
	if (d->n == 0) {
		snprintf(buf, n,
		         "%-8s %llu samples without Total Allocated/Reserved (PyTorch < 1.10): no curve, no peak", dev,
		         (unsigned long long)d->samples);
		return;
	}
	if (d->peak_allocated_op.track != TT_NONE)
		trace_str_escaped(
			t, slice_name(t, &t->tracks[d->peak_allocated_op.track].slices[d->peak_allocated_op.idx]), op,
			sizeof op);
	size_t k = (size_t)snprintf(buf, n, "%-8s peak allocated %s at %s%s%s; reserved %s at %s", dev,
	                            timefmt_bytes((double)d->peak_allocated, a, sizeof a),
	                            timefmt_offset(d->peak_allocated_ts - t->start, b, sizeof b), op[0] ? " in " : "",
	                            op, timefmt_bytes((double)d->peak_reserved, c, sizeof c),
	                            timefmt_offset(d->peak_reserved_ts - t->start, e, sizeof e));
	if (d->peak_reserved > 0 && k < n)
		snprintf(buf + k, n - k, "; unused %s at the peak, at most %s",
		         timefmt_bytes((double)(d->reserved_at_peak - d->peak_allocated), a, sizeof a),
		         timefmt_bytes((double)d->max_unused, b, sizeof b));
}

static void steps_line(const struct memory_view *m, char *buf, size_t n, int width)
{
	const struct mem_device *d = &m->r->devices[m->main_dev];
	char dev[32], a[32];
	size_t k = (size_t)snprintf(buf, n, "allocated at step start (%s):", memory_device_name(d, dev, sizeof dev));
	for (uint32_t s = 0; s < m->r->nsteps && k < n; s++) {
		char one[64];
		if (d->step_allocated[s] < 0)
			snprintf(one, sizeof one, " #%lld -", (long long)m->tr->steps[m->r->steps[s]].number);
		else
			snprintf(one, sizeof one, " #%lld %s", (long long)m->tr->steps[m->r->steps[s]].number,
			         timefmt_bytes((double)d->step_allocated[s], a, sizeof a));
		if ((int)(k + strlen(one)) > width - 4 && s + 1 < m->r->nsteps) {
			snprintf(buf + k, n - k, " ...");
			return;
		}
		k += (size_t)snprintf(buf + k, n - k, "%s", one);
	}
}

/* One device's curve in rows [Y, Y + H) from column X0 (W columns) over [T0, T1). */
static void draw_curve(struct grid *g, const struct mem_device *d, int x0, int y, int w, int h, int64_t t0, int64_t t1,
                       const struct render_opts *o)
{
	int64_t top = d->peak_reserved > d->peak_allocated ? d->peak_reserved : d->peak_allocated;
	if (top <= 0 || w <= 0 || t1 <= t0)
		return;
	double span = (double)(t1 - t0), levels = 8.0 * h;
	for (int x = 0; x < w; x++) {
		int64_t a0 = t0 + (int64_t)(span * x / w), a1 = t0 + (int64_t)(span * (x + 1) / w);
		int64_t al, re;
		if (a1 <= a0)
			a1 = a0 + 1;
		if (!memory_range_max(d, a0, a1, &al, &re))
			continue;
		int la = (int)(levels * (double)al / (double)top + 0.5),
		    lr = (int)(levels * (double)re / (double)top + 0.5);
		if (al > 0 && la == 0)
			la = 1; /* something allocated never draws as nothing */
		if (re > 0 && lr == 0)
			lr = 1;
		for (int k = 0; k < h; k++) {
			int yy = y + h - 1 - k, base = 8 * k;
			if (la >= base + 8)
				grid_set(g, x0 + x, yy, o->ascii ? '#' : 0x2588, CS_UTIL, 0);
			else if (la > base)
				grid_set(g, x0 + x, yy,
				         o->ascii ? (la - base >= 4 ? '#' : '_') : 0x2580 + (uint32_t)(la - base),
				         CS_UTIL, 0);
			else if (lr > base)
				grid_set(g, x0 + x, yy, o->ascii ? ':' : 0x2591, CS_RULER, 0);
		}
	}
}

static void draw_header(struct table_panel *tp, struct app *app, struct grid *g, struct rect r,
                        const struct render_opts *o)
{
	const struct memory_view *m = tp->owner;
	const struct view *v = m->v;
	char line[512], a[32], b[32];
	int y = r.y, end = r.y + r.h;
	int64_t w0, w1; /* the timeline's window in the rank's time */
	(void)app;
	view_rank_window(v, m->rank, &w0, &w1);
	for (uint32_t i = 0; i < m->r->ndevices && i < 4 && y < end; i++, y++) {
		device_line(m, &m->r->devices[i], line, sizeof line);
		grid_text(g, r.x + 1, y, r.x + r.w, line, CS_DETAILS, 0);
	}
	if (m->ncurves > 0 && m->r->nsteps > 0 && y < end) {
		steps_line(m, line, sizeof line, r.w - 1);
		grid_text(g, r.x + 1, y++, r.x + r.w, line, CS_DETAILS, 0);
	}
	if (m->ncurves == 0 || y >= end)
		return;
	int left = end - y - 1, ch = left / (int)m->ncurves, x0 = r.x + LABEL_W, w = r.w - LABEL_W - 1;
	if (ch < 1)
		return;
	for (uint32_t c = 0; c < m->ncurves && y + ch <= end - 1; c++, y += ch) {
		const struct mem_device *d = &m->r->devices[m->curves[c]];
		int64_t top = d->peak_reserved > d->peak_allocated ? d->peak_reserved : d->peak_allocated;
		grid_text(g, r.x + 1, y, x0 - 1, memory_device_name(d, a, sizeof a), CS_HILITE, 0);
		if (ch > 1)
			grid_text(g, r.x + 1, y + 1, x0 - 1, timefmt_bytes((double)top, b, sizeof b), CS_RULER, 0);
		draw_curve(g, d, x0, y, w, ch, w0, w1, o);
	}
	/* the time axis: the timeline's window, from the trace start (in the rank's time) */
	timefmt_offset(tt_sub(w0, m->tr->start), a, sizeof a);
	timefmt_offset(tt_sub(w1, m->tr->start), b, sizeof b);
	grid_text(g, x0, y, r.x + r.w, a, CS_RULER, 0);
	snprintf(line, sizeof line, "%s allocated  %s reserved (most in each column)", o->ascii ? "#" : "\u2588",
	         o->ascii ? ":" : "\u2591");
	int lx = x0 + (w - (int)strlen(line)) / 2;
	if (lx > x0 + (int)strlen(a) + 1)
		grid_text(g, lx, y, r.x + r.w, line, CS_RULER, 0);
	grid_text(g, r.x + r.w - 1 - (int)strlen(b), y, r.x + r.w, b, CS_RULER, 0);
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	const struct memory_view *m = tp->owner;
	struct view *v = m->v;
	int rank = m->rank;
	const struct memory_report *r = m->r; /* the cache's: it outlives the panel */
	app_pop(app);                         /* frees the panel and M */
	if (tag < r->nrows && r->rows[tag].top.track != TT_NONE) {
		struct slice_ref s = r->rows[tag].top;
		view_select(v, rank, s);
		view_status(v, "the instance of this operator that allocated most itself");
	} else {
		view_status(v, "no instance of this operator allocated: its samples only free");
	}
}

static void owner_free(struct table_panel *tp)
{
	struct memory_view *m = tp->owner;
	table_free(&m->t);
	free(m->curves);
	free(m);
}

static const struct table_owner memory_owner = {
	.name = "memory",
	.title = title,
	.jump = jump,
	.free = owner_free,
	.header_rows = header_rows,
	.header = draw_header,
};

struct panel *memory_view_open(struct app *app)
{
	struct view *v = app->tl;
	int rank = view_focus_rank(v);
	const struct memory_report *r = trace_memory(view_rank_trace(v, rank));
	if (r->samples == 0) {
		view_status(v, NO_MEMORY);
		return NULL;
	}
	struct memory_view *m = xcalloc(1, sizeof *m);
	m->v = v;
	m->rank = rank;
	m->tr = view_rank_trace(v, rank);
	m->r = r;
	m->curves = xmalloc((r->ndevices ? r->ndevices : 1) * sizeof *m->curves);
	for (int pass = 0; pass < 2; pass++) /* accelerators first: their memory is what runs out */
		for (uint32_t i = 0; i < r->ndevices; i++)
			if (r->devices[i].n > 0 && (r->devices[i].type == 0) == (pass == 1))
				m->curves[m->ncurves++] = i;
	m->main_dev = m->ncurves > 0 ? m->curves[0] : 0;
	table_init(&m->t, m->cols, memory_view_columns(m->cols));
	memory_view_fill(&m->t, m->tr, r);
	return table_panel_new(&m->t, &memory_owner, m);
}

static int write_memory(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	return report_table(f, ts, n, o->json, o->top, o->sort, &memory_table_report);
}

/* --report=memory (ui/reports.h) */
const struct report_kind report_memory_kind = {
	.name = "memory",
	.json = true,
	.csv = true,
	.write = write_memory,
	.help = "      --report=memory    per file: each device's peak allocated and reserved memory,\n"
		"                         fragmentation, memory at each step, operators by bytes\n"
		"                         allocated (the U view; needs profile_memory=True)\n",
};
