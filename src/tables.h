/* tables.h: per-name aggregates over a loaded trace (operators, kernels). */
#ifndef TT_TABLES_H
#define TT_TABLES_H

#include "src/model.h"

/* Operators: CPU slices of category cpu_op/Operator (and, in legacy-exporter traces
 * that have no categories, every CPU slice but ProfilerStep#N). Self time is the
 * duration minus the time covered by direct children of any category on the same
 * thread. */
struct op_stat {
	uint32_t name;
	uint64_t calls;
	int64_t total, self;
};

/* Kernels: slices of category kernel/Kernel (and cuda_profiler_range, which CUPTI's
 * range-profiler mode uses for kernels), grouped by name. */
struct kernel_stat {
	uint32_t name;
	uint64_t calls;
	int64_t total, min, max;
};

/* Whether slice S of T counts as an operator (the definition above). */
bool tables_counts_as_op(const struct trace *t, const struct slice *s);
/* Returns an allocated array of *N operator stats, by self time descending (ties by
 * name). The caller frees it. */
struct op_stat *tables_ops(const struct trace *t, uint32_t *n);
/* Returns an allocated array of *N kernel stats, by total time descending. */
struct kernel_stat *tables_kernels(const struct trace *t, uint32_t *n);

#endif
