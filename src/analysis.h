/* analysis.h: analyses computed once per trace, on first use, and shared by every panel
 * and report that asks (the gaps, the steps and their breakdowns, the operator and kernel
 * tables), and the comparison of several ranks.
 *
 * The trace owns its cache and frees it with itself. A result stays valid until the trace
 * is freed or, for the gaps, until ANALYSIS_GAPS_KEPT other minimum lengths have been
 * asked of the same trace since it was last asked: a panel asks again (a cache hit, O(1))
 * whenever it changes its minimum, rather than keeping results of its own. Not thread-safe:
 * one thread (the app's, or a report's) asks. */
#ifndef TT_ANALYSIS_H
#define TT_ANALYSIS_H

#include <stdint.h>

#include "src/advice.h"
#include "src/compiled.h"
#include "src/gaps.h"
#include "src/gpu_metrics.h"
#include "src/kernels.h"
#include "src/memory.h"
#include "src/ops.h"
#include "src/model.h"
#include "src/ranks.h"
#include "src/steps.h"

#define ANALYSIS_GAPS_KEPT 8
/* The gap length the views and reports start with: 100 us. */
#define ANALYSIS_DEFAULT_MIN_GAP 100000

struct gap_analysis {
	int64_t min_gap;
	struct gap_report r;   /* src/gaps.h */
	struct gap *by_device; /* r's device gaps by device, then start (for lookups by time) */
	uint32_t *devices;     /* r.devices positions, by device number */
	uint64_t used;         /* when it was last asked (LRU) */
};

/* The gaps of T of at least MIN_GAP ns, computed on the first call for that length. */
const struct gap_analysis *trace_gaps(struct trace *t, int64_t min_gap);
/* The comparison of the N traces TS (one per rank, in this order) aligned by MODE (any but
 * ALIGN_MANUAL, whose offsets are the user's), computed once per set and mode; kept by
 * TS[0]'s cache until TS[0] is freed (the other traces must live as long). */
const struct rank_report *traces_ranks(struct trace *const *ts, int n, enum align_mode mode);
/* The Kernels view's figures of T grouped by GROUP (src/kernels.h), computed on the first
 * call for that grouping. */
const struct kernel_report *trace_kernels(struct trace *t, enum kernel_group group);
/* The operator tree of T (src/ops.h), built on the first call. */
const struct op_tree *trace_op_tree(struct trace *t);
/* The Operators view's figures of T grouped by name (src/ops.h), computed on the first
 * call. */
const struct op_report *trace_ops(struct trace *t);
/* Fills KEYS[i] (ids into TEXT, 0: none) with node i's grouping key of G for TREE, T's
 * operator tree: what reads args lives outside src/ (parsers/op_args.h). */
typedef void (*op_keys_fn)(const struct trace *t, const struct op_tree *tree, enum op_group g, uint32_t *keys,
                           struct strtab *text);
/* T's operators grouped by G (any grouping: KEYS_FN gives the keys of OP_BY_SHAPE and
 * OP_BY_SOURCE, and is not called for the others), computed on the first call for G. */
const struct op_report *trace_ops_grouped(struct trace *t, enum op_group g, op_keys_fn keys_fn);
/* The GPU Summary figures of T over the plugin's steps (src/gpu_metrics.h), computed on
 * the first call. */
const struct gpu_metrics *trace_gpu_metrics(struct trace *t);
/* The same figures over time, per device (src/gpu_metrics.h, struct gpu_curves), computed
 * on the first call: what the timeline's utilization and SM efficiency lines draw. */
const struct gpu_curves *trace_gpu_curves(struct trace *t);
/* The Memory view's figures of T (src/memory.h), computed on the first call, with the
 * curves' points. */
const struct memory_report *trace_memory(struct trace *t);
/* The same without the operator rows and without the points (memory_curves: the figures,
 * what the diff and the findings read), the cheaper part; trace_memory_points adds the
 * points (what the counter tracks draw), trace_memory the rows, to the same report. */
const struct memory_report *trace_memory_curves(struct trace *t);
const struct memory_report *trace_memory_points(struct trace *t);
/* The Overview's step figures of T (src/steps.h), computed on the first call. */
const struct step_report *trace_steps(struct trace *t);
/* The Overview's two analyses of T, trace_gpu_metrics and trace_steps, computed on the
 * first call side by side: the plugin's steps first, then the steps in a second thread
 * while this one does the gaps and the GPU figures over their window (independent). */
void trace_overview(struct trace *t, const struct gpu_metrics **m, const struct step_report **s);
/* Puts in T's cache, when not there yet, trace_overview's analyses, the kernels by name,
 * the memory curves, the operators by name and the compiled-model facts: the last four on
 * two more threads while this one does the first (they are independent), for a caller that
 * reads them all. */
void trace_warm_overview_ops(struct trace *t);
/* Whether and how much T's model is compiled (src/compiled.h), computed on the first call
 * (or beside the overview, before the findings that read it). */
const struct compiled_facts *trace_compiled(struct trace *t);
/* The findings of T (src/advice.h), computed on the first call from the analyses above
 * (asked through this cache). */
const struct advice_report *trace_advice(struct trace *t);
/* T's findings when they were computed already, else NULL (computes nothing). */
const struct advice_report *trace_advice_found(const struct trace *t);
/* The findings of the N traces TS (one per rank, in this order) compared with MODE, each
 * rank's findings once with the ranks they hold for and the rules of several ranks; kept,
 * like traces_ranks, by TS[0]'s cache. */
const struct advice_report *traces_advice(struct trace *const *ts, int n, enum align_mode mode);
/* How many times an analysis was computed rather than found (for tests). */
uint64_t analysis_computed(const struct trace *t);

#endif
