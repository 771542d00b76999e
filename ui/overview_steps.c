/* overview_steps.c: the Overview's steps: their tables and their part of the report (see
 * overview_steps.h). Every figure comes from src/steps.h; this file only lays it out. */
#include "ui/overview_steps.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "src/analysis.h"
#include "ui/jsonw.h"
#include "ui/report.h"

/* ---- the step table ------------------------------------------------------------------- */

enum {
	ST_NUMBER,
	ST_START,
	ST_END,
	ST_DUR,
	ST_HOST_START,
	ST_HOST_END,
	ST_HOST_DUR,
	ST_ROLE,
	ST_PHASE_CPU = ST_ROLE + ROLE__COUNT,
	ST_PHASE_GPU = ST_PHASE_CPU + PHASE__COUNT,
	ST_GPU_LAUNCHED = ST_PHASE_GPU + PHASE__COUNT,
	ST_FLOPS,
	ST_FLOP_OPS,
	ST_TFLOPS,
	ST__COUNT
};

_Static_assert(ST__COUNT <= OVERVIEW_STEP_COLS, "OVERVIEW_STEP_COLS is too small");

int overview_step_columns(struct column *cols)
{
	static const struct column c[ST__COUNT] = {
		[ST_NUMBER] = { "number", "step", COL_INT, 0, 0 },
		[ST_START] = { "start_ns", "start", COL_TIME, 0, 0 },
		[ST_END] = { "end_ns", "end", COL_TIME, 0, COL_JSON_ONLY },
		[ST_DUR] = { "dur_ns", "duration", COL_DUR, 0, 0 },
		[ST_HOST_START] = { "host_start_ns", "host start", COL_TIME, 0, COL_JSON_ONLY },
		[ST_HOST_END] = { "host_end_ns", "host end", COL_TIME, 0, COL_JSON_ONLY },
		[ST_HOST_DUR] = { "host_dur_ns", "host step", COL_DUR, 0, 0 },
		[ST_ROLE + ROLE_KERNEL] = { "breakdown.kernel_ns", "Kernel", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_MEMCPY] = { "breakdown.memcpy_ns", "Memcpy", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_MEMSET] = { "breakdown.memset_ns", "Memset", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_COMM] = { "breakdown.communication_ns", "Comm", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_RUNTIME] = { "breakdown.runtime_ns", "Runtime", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_DATALOADER] = { "breakdown.dataloader_ns", "DataLoader", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_CPU_EXEC] = { "breakdown.cpu_exec_ns", "CPU Exec", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_ROLE + ROLE_OTHER] = { "breakdown.other_ns", "Other", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_CPU +
			PHASE_DATALOADER] = { "phases_cpu.dataloader_ns", "host DL", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_CPU + PHASE_FORWARD] = { "phases_cpu.forward_ns", "host Fwd", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_CPU + PHASE_BACKWARD] = { "phases_cpu.backward_ns", "host Bwd", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_CPU +
			PHASE_OPTIMIZER] = { "phases_cpu.optimizer_ns", "host Opt", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_CPU + PHASE_OTHER] = { "phases_cpu.other_ns", "host Other", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_GPU +
			PHASE_DATALOADER] = { "phases_gpu.dataloader_ns", "GPU DL", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_GPU + PHASE_FORWARD] = { "phases_gpu.forward_ns", "GPU Fwd", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_GPU + PHASE_BACKWARD] = { "phases_gpu.backward_ns", "GPU Bwd", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_GPU + PHASE_OPTIMIZER] = { "phases_gpu.optimizer_ns", "GPU Opt", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_PHASE_GPU + PHASE_OTHER] = { "phases_gpu.other_ns", "GPU Other", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_GPU_LAUNCHED] = { "gpu_launched_ns", "GPU launched", COL_DUR, 0, COL_ZERO_EMPTY },
		[ST_FLOPS] = { "flops", "FLOPs", COL_COUNT, 0, COL_JSON_ONLY },
		[ST_FLOP_OPS] = { "flop_ops", "ops with FLOPs", COL_COUNT, 0, COL_JSON_ONLY },
		[ST_TFLOPS] = { "tflops", "TFLOP/s", COL_REAL, 0, 0 },
	};
	memcpy(cols, c, sizeof c);
	return ST__COUNT;
}

void overview_step_fill(struct table *tb, const struct trace *t, const struct step_report *r)
{
	tb->origin = t->start;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct step_stats *s = &r->steps[i];
		uint32_t row = table_add_row(tb, i);
		table_set_int(tb, row, ST_NUMBER, s->number);
		table_set_int(tb, row, ST_START, s->start);
		table_set_int(tb, row, ST_END, s->end);
		table_set_int(tb, row, ST_DUR, s->end - s->start);
		table_set_int(tb, row, ST_HOST_START, s->host_start);
		table_set_int(tb, row, ST_HOST_END, s->host_end);
		table_set_int(tb, row, ST_HOST_DUR, s->host_end - s->host_start);
		for (int k = 0; k < ROLE__COUNT; k++)
			table_set_int(tb, row, ST_ROLE + k, s->role[k]);
		for (int p = 0; p < PHASE__COUNT; p++) {
			if (!(s->phase_known & 1u << p))
				continue; /* unknown: null */
			table_set_int(tb, row, ST_PHASE_CPU + p, s->phase_cpu[p]);
			table_set_int(tb, row, ST_PHASE_GPU + p, s->phase_gpu[p]);
		}
		table_set_int(tb, row, ST_GPU_LAUNCHED, s->gpu_launched);
		if (r->has_flops) {
			table_set_int(tb, row, ST_FLOPS, s->flops);
			table_set_int(tb, row, ST_FLOP_OPS, s->flop_ops);
			table_set_pct(tb, row, ST_TFLOPS, step_tflops(s));
		}
	}
}

uint64_t overview_step_breakdown_cols(const struct table *tb, const struct step_report *r)
{
	uint64_t cols = table_cols_of(tb, "number") | table_cols_of(tb, "start_ns") | table_cols_of(tb, "dur_ns") |
	                table_cols_between(tb, "breakdown.kernel_ns", "breakdown.other_ns");
	if (!r->has_communication)
		cols &= ~table_cols_of(tb, "breakdown.communication_ns"); /* as the plugin hides it */
	if (r->has_flops)
		cols |= table_cols_of(tb, "tflops");
	return cols;
}

uint64_t overview_step_phase_cols(const struct table *tb)
{
	return table_cols_of(tb, "number") | table_cols_of(tb, "host_dur_ns") |
	       table_cols_between(tb, "phases_cpu.dataloader_ns", "phases_gpu.other_ns");
}

/* ---- the mean tables -------------------------------------------------------------------- */

const char *overview_bar(double fraction, int width, char *buf, size_t n)
{
	int full = 0;
	size_t len = 0;
	if (fraction == fraction) { /* not NaN */
		if (fraction < 0)
			fraction = 0;
		if (fraction > 1)
			fraction = 1;
		full = (int)tt_round(fraction * width);
	}
	if (n == 0)
		return buf;
	for (int i = 0; i < width && len + 4 < n; i++) {
		memcpy(buf + len, i < full ? "\xe2\x96\x88" : "\xe2\x96\x91", 3); /* U+2588, U+2591 */
		len += 3;
	}
	buf[len] = '\0';
	return buf;
}

enum { RL_ROLE, RL_TITLE, RL_BAR, RL_PCT, RL_MEAN };

int overview_role_columns(struct column *cols)
{
	static const struct column c[OVERVIEW_ROLE_COLS] = {
		[RL_ROLE] = { "role", "role", COL_TEXT, 0, COL_JSON_ONLY },
		[RL_TITLE] = { "title", "category", COL_TEXT, 0, 0 },
		[RL_BAR] = { "bar", "", COL_TEXT, 0, COL_TEXT_ONLY },
		[RL_PCT] = { "pct", "of step", COL_PCT, 0, 0 },
		[RL_MEAN] = { "mean_ns", "mean", COL_DUR, 0, 0 },
	};
	memcpy(cols, c, sizeof c);
	return OVERVIEW_ROLE_COLS;
}

void overview_role_fill(struct table *tb, const struct step_report *r)
{
	char bar[8 * OVERVIEW_BAR_WIDTH];
	for (int k = 0; k < ROLE__COUNT; k++) {
		uint32_t row = table_add_row(tb, (uint64_t)k);
		double f = r->dur_avg > 0 ? r->role_avg[k] / r->dur_avg : NAN;
		table_set_str(tb, row, RL_ROLE, step_role_key(k));
		table_set_str(tb, row, RL_TITLE, step_role_title(k));
		table_set_str(tb, row, RL_BAR, overview_bar(f, OVERVIEW_BAR_WIDTH, bar, sizeof bar));
		table_set_pct(tb, row, RL_PCT, 100.0 * f);
		table_set_int(tb, row, RL_MEAN, tt_round(r->role_avg[k]));
	}
}

enum { PH_PHASE, PH_TITLE, PH_SOURCE, PH_STEPS, PH_BAR, PH_CPU_PCT, PH_CPU_MEAN, PH_GPU_PCT, PH_GPU_MEAN };

int overview_phase_columns(struct column *cols)
{
	static const struct column c[OVERVIEW_PHASE_COLS] = {
		[PH_PHASE] = { "phase", "phase", COL_TEXT, 0, COL_JSON_ONLY },
		[PH_TITLE] = { "title", "phase", COL_TEXT, 0, COL_TEXT_ONLY },
		[PH_SOURCE] = { "source", "found from", COL_TEXT, 1, 0 },
		[PH_STEPS] = { "steps", "steps", COL_COUNT, 0, 0 },
		[PH_BAR] = { "bar", "", COL_TEXT, 0, COL_TEXT_ONLY },
		[PH_CPU_PCT] = { "cpu_pct", "of host step", COL_PCT, 0, 0 },
		[PH_CPU_MEAN] = { "cpu_mean_ns", "host time", COL_DUR, 0, 0 },
		[PH_GPU_PCT] = { "gpu_pct", "of GPU", COL_PCT, 0, 0 },
		[PH_GPU_MEAN] = { "gpu_mean_ns", "GPU time", COL_DUR, 0, 0 },
	};
	memcpy(cols, c, sizeof c);
	return OVERVIEW_PHASE_COLS;
}

void overview_phase_fill(struct table *tb, const struct step_report *r)
{
	char bar[8 * OVERVIEW_BAR_WIDTH], src[160];
	for (int p = 0; p < PHASE__COUNT; p++) {
		uint32_t row = table_add_row(tb, (uint64_t)p);
		table_set_str(tb, row, PH_PHASE, step_phase_key(p));
		table_set_str(tb, row, PH_TITLE, step_phase_title(p));
		table_set_str(tb, row, PH_SOURCE,
		              p == PHASE_OTHER ? "the rest of the host step"
		                               : phase_source_text(r->phase_source[p], src, sizeof src));
		table_set_int(tb, row, PH_STEPS, r->phase_steps[p]);
		if (r->phase_steps[p] == 0)
			continue; /* unknown: nulls */
		table_set_str(tb, row, PH_BAR,
		              overview_bar(r->phase_cpu_share[p], OVERVIEW_BAR_WIDTH, bar, sizeof bar));
		table_set_pct(tb, row, PH_CPU_PCT, 100.0 * r->phase_cpu_share[p]);
		table_set_int(tb, row, PH_CPU_MEAN, tt_round(r->phase_cpu_avg[p]));
		table_set_pct(tb, row, PH_GPU_PCT, 100.0 * r->phase_gpu_share[p]);
		table_set_int(tb, row, PH_GPU_MEAN, tt_round(r->phase_gpu_avg[p]));
	}
}

/* ---- the report ---------------------------------------------------------------------------- */

void overview_steps_text(FILE *f, struct trace *t)
{
	const struct step_report *r = trace_steps(t);
	struct column scols[OVERVIEW_STEP_COLS], rcols[OVERVIEW_ROLE_COLS], pcols[OVERVIEW_PHASE_COLS];
	struct table st, rt, pt;
	char a[48], b[48];

	if (r->from_profiler_steps)
		fprintf(f,
		        "   %u step%s: ProfilerStep#N stretched to the GPU work each launched (the TensorBoard plugin's "
		        "steps), mean %s\n",
		        r->n, r->n == 1 ? "" : "s", timefmt_dur(tt_round(r->dur_avg), a, sizeof a));
	else
		fprintf(f,
		        "   no ProfilerStep#N: one step \"0\", the span of the CPU ops stretched to the GPU work, %s\n",
		        timefmt_dur(tt_round(r->dur_avg), a, sizeof a));
	if (r->gpu_side_steps > 0)
		fprintf(f,
		        "   (%u GPU-side ProfilerStep#N copies are not steps here; the plugin takes them for more)\n",
		        r->gpu_side_steps);

	table_init(&st, scols, overview_step_columns(scols));
	overview_step_fill(&st, t, r);
	fprintf(f,
	        "\n   Step-time breakdown per step (the plugin's: each instant of a step goes to the first of Kernel,\n"
	        "   Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec that covers it, else Other)\n");
	table_write_text(f, &st, NULL, 0, overview_step_breakdown_cols(&st, r), REPORT_WIDTH, "   ");

	table_init(&rt, rcols, overview_role_columns(rcols));
	overview_role_fill(&rt, r);
	uint64_t rcols_shown = TABLE_ALL;
	uint32_t rows[ROLE__COUNT], nr = 0;
	for (uint32_t k = 0; k < rt.nrows; k++)
		if (k != ROLE_COMM || r->has_communication)
			rows[nr++] = k;
	fprintf(f, "\n   Mean step-time breakdown over %u step%s (%% of the mean step, %s)\n", r->n,
	        r->n == 1 ? "" : "s", timefmt_dur(tt_round(r->dur_avg), a, sizeof a));
	table_write_text(f, &rt, rows, nr, rcols_shown, REPORT_WIDTH, "   ");

	table_init(&pt, pcols, overview_phase_columns(pcols));
	overview_phase_fill(&pt, r);
	fprintf(f,
	        "\n   Phases of the host step (%s, mean %s): DataLoader > Optimizer > Backward > Forward > Other,\n"
	        "   from the markers found; unknown: nothing in the trace marks it (its time is in Other). GPU\n"
	        "   time: GPU operations by the phase their launch starts in (mean launched per step %s)\n",
	        r->from_profiler_steps ? "ProfilerStep#N" : "the CPU ops' span",
	        timefmt_dur(tt_round(r->host_avg), a, sizeof a),
	        timefmt_dur(tt_round(r->gpu_launched_avg), b, sizeof b));
	table_write_text(f, &pt, NULL, 0, TABLE_ALL, REPORT_WIDTH, "   ");
	fprintf(f, "\n   Phases per step (host time, then GPU time; -: unknown)\n");
	table_write_text(f, &st, NULL, 0, overview_step_phase_cols(&st), REPORT_WIDTH, "   ");

	if (r->has_flops)
		fprintf(f,
		        "\n   Achieved %.3g TFLOP/s over the steps (%" PRId64
		        " FLOPs: the \"flops\" args of the operators\n"
		        "   in each host step, over the step's duration)\n",
		        r->tflops_avg, r->flops_total);
	else
		fprintf(f, "\n   TFLOP/s: no FLOP counts in this trace (record with with_flops=True)\n");
	fputc('\n', f);
	table_free(&st);
	table_free(&rt);
	table_free(&pt);
}

void overview_steps_json(struct jsonw *w, struct trace *t)
{
	const struct step_report *r = trace_steps(t);
	struct column scols[OVERVIEW_STEP_COLS], rcols[OVERVIEW_ROLE_COLS], pcols[OVERVIEW_PHASE_COLS];
	struct table tb;

	jsonw_key(w, "steps_from");
	jsonw_str(w, r->from_profiler_steps ? "profiler_steps" : "cpu_op_span");
	jsonw_key(w, "gpu_side_profiler_steps");
	jsonw_uint(w, r->gpu_side_steps);
	jsonw_key(w, "step_count");
	jsonw_uint(w, r->n);
	jsonw_key(w, "mean_step_ns");
	jsonw_int(w, tt_round(r->dur_avg));
	jsonw_key(w, "mean_host_step_ns");
	jsonw_int(w, tt_round(r->host_avg));
	jsonw_key(w, "mean_gpu_launched_ns");
	jsonw_int(w, tt_round(r->gpu_launched_avg));
	jsonw_key(w, "has_communication");
	jsonw_bool(w, r->has_communication);
	jsonw_key(w, "breakdown");
	table_init(&tb, rcols, overview_role_columns(rcols));
	overview_role_fill(&tb, r);
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
	jsonw_key(w, "phases");
	table_init(&tb, pcols, overview_phase_columns(pcols));
	overview_phase_fill(&tb, r);
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
	jsonw_key(w, "flops");
	jsonw_object(w);
	jsonw_key(w, "recorded");
	jsonw_bool(w, r->has_flops);
	jsonw_key(w, "total");
	if (r->has_flops)
		jsonw_int(w, r->flops_total);
	else
		jsonw_null(w);
	jsonw_key(w, "tflops");
	jsonw_double(w, r->tflops_avg);
	jsonw_end_object(w);
	jsonw_key(w, "steps");
	table_init(&tb, scols, overview_step_columns(scols));
	overview_step_fill(&tb, t, r);
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
}
