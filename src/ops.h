/* ops.h: the Operators view's figures, as torch.profiler's key_averages() and the
 * TensorBoard plugin's Operator view define them, grouped by name.
 *
 * Operators are the CPU slices src/tables.h counts (category cpu_op, or every CPU slice of
 * a legacy trace but ProfilerStep#N). CPU total is the sum of durations; self CPU the
 * duration minus the direct children's. A GPU activity (kernel, memcpy, memset) linked to
 * a runtime call by correlation id belongs to the runtime call's closest enclosing
 * operator: that operator's self device time; it adds to the device total of every
 * operator enclosing the call. Nested instances of one name count once each, as CPU total
 * does in key_averages(). */
#ifndef TT_OPS_H
#define TT_OPS_H

#include <stdint.h>

#include "src/model.h"

struct op_row {
	uint32_t name;
	uint64_t calls;
	int64_t cpu_total, cpu_self;
	int64_t dev_total, dev_self;
	struct slice_ref longest;     /* the longest instance */
};

struct op_report {
	struct op_row *rows;          /* by device total, then CPU total, longest first */
	uint32_t n;
	uint64_t gpu_ops, gpu_ops_linked; /* GPU activities, and those reaching an operator */
};

void ops_analyse(const struct trace *t, struct op_report *r);
void ops_free(struct op_report *r);

#endif
