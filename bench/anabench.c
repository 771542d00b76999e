/* anabench.c: what each analysis costs on one loaded trace, alone: loads the file as ttrace
 * does (from its cache when there is one), then runs each analysis ROUNDS times on that
 * model and prints the least CPU time (all threads) and wall time of a run, in ms. The
 * least of several runs, in one process, so that two builds can be compared analysis by
 * analysis on a noisy machine; the first run of each pays the page faults of fresh memory,
 * the others mostly reuse the heap (the `first` column says what the first cost).
 *
 *   anabench [--rounds=N] [--only=ANALYSIS] FILE   (ANALYSIS as the first column names it)
 *
 * Advice and the diff's rows are measured with every figure they read already in the
 * trace's analysis cache: each row is its own work (advice's sweeps and rules; the diff's
 * operator and kernel rows with their per-step split, the trace on both sides). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers/load.h"
#include "src/advice.h"
#include "src/analysis.h"
#include "src/compiled.h"
#include "src/diff.h"
#include "src/gaps.h"
#include "src/gpu_metrics.h"
#include "src/kernels.h"
#include "src/memory.h"
#include "src/ops.h"
#include "src/ranks.h"
#include "src/steps.h"
#include "src/tb_steps.h"

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

enum which {
	A_TB_STEPS,
	A_GAPS,
	A_STEPS,
	A_GPU_METRICS,
	A_KERNELS,
	A_MEMORY,
	A_OPS,
	A_COMPILED,
	A_RANKS,
	A_ADVICE,
	A_DIFF,
	A__N
};
static const char *const names[A__N] = {
	"plugin steps",      "gaps",           "steps", "GPU figures", "kernels by name", "memory curves",
	"operators by name", "compiled facts", "ranks", "advice",      "diff rows"
};

static void run_one(struct trace *t, enum which w, const struct tb_step *tb, uint32_t ntb, int64_t w0, int64_t w1)
{
	switch (w) {
	case A_TB_STEPS: {
		uint32_t n;
		free(tb_steps_find(t, &n));
		break;
	}
	case A_GAPS: {
		struct gap_report r;
		gaps_analyse(t, ANALYSIS_DEFAULT_MIN_GAP, tb, ntb, &r);
		gaps_free(&r);
		break;
	}
	case A_STEPS: {
		struct step_report r;
		steps_analyse(t, tb, ntb, &r);
		steps_free(&r);
		break;
	}
	case A_GPU_METRICS: {
		struct gpu_metrics m;
		gpu_metrics_analyse(t, w0, w1, &m);
		gpu_metrics_free(&m);
		break;
	}
	case A_KERNELS: {
		struct kernel_report r;
		kernels_analyse(t, KG_NAME, &r);
		kernels_free(&r);
		break;
	}
	case A_MEMORY: {
		struct memory_report r;
		memory_curves(t, &r);
		memory_free(&r);
		break;
	}
	case A_OPS: {
		struct op_report r;
		ops_by_name(t, &r);
		ops_free(&r);
		break;
	}
	case A_COMPILED: {
		struct compiled_facts f;
		compiled_facts_of(t, &f);
		(void)f;
		break;
	}
	case A_RANKS: {
		struct rank_report r;
		ranks_analyse(&t, 1, ALIGN_COLLECTIVE, NULL, &r);
		ranks_free(&r);
		break;
	}
	case A_ADVICE: {
		struct advice_report r;
		advice_analyse(t, &r);
		advice_free(&r);
		break;
	}
	case A_DIFF: {
		struct diff_report r;
		diff_analyse(&t, 1, &t, 1, ALIGN_COLLECTIVE, DM_NAME, NULL, &r);
		diff_free(&r);
		break;
	}
	case A__N: break;
	}
}

int main(int argc, char **argv)
{
	int rounds = 7;
	const char *path = NULL, *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = atoi(argv[i] + 9);
		else if (strncmp(argv[i], "--only=", 7) == 0)
			only = argv[i] + 7;
		else
			path = argv[i];
	}
	if (path == NULL || rounds < 1) {
		fprintf(stderr, "usage: anabench [--rounds=N] [--only=ANALYSIS] FILE\n");
		return 2;
	}
	struct load_options opt = { 0 };
	struct trace *t = load_trace(path, &opt);
	if (t == NULL || t->status == LOAD_FAILED) {
		fprintf(stderr, "anabench: %s: cannot load\n", path);
		return 1;
	}
	uint32_t ntb;
	struct tb_step *tb = tb_steps_find(t, &ntb);
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	int64_t w0 = g->tb_start, w1 = g->tb_end;
	diff_prepare(t); /* every figure advice and the diff read, in the cache */
	printf("| analysis | least CPU ms | least wall ms | first CPU ms |\n|---|---|---|---|\n");
	double total = 0;
	for (int w = 0; w < A__N; w++) {
		if (only != NULL && strcmp(only, names[w]) != 0)
			continue;
		double best_cpu = 1e300, best_wall = 1e300, first = 0;
		for (int r = 0; r < rounds; r++) {
			double c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), w0c = clock_ms(CLOCK_MONOTONIC);
			run_one(t, (enum which)w, tb, ntb, w0, w1);
			double c = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = clock_ms(CLOCK_MONOTONIC) - w0c;
			if (r == 0)
				first = c;
			if (c < best_cpu)
				best_cpu = c;
			if (wall < best_wall)
				best_wall = wall;
		}
		total += best_cpu;
		printf("| %s | %.1f | %.1f | %.1f |\n", names[w], best_cpu, best_wall, first);
	}
	printf("| all | %.1f | | |\n", total);
	free(tb);
	trace_free(t);
	return 0;
}
