/* op_table.h: the summary's operator and kernel tables (the groupings by name of
 * src/ops.c, ops_thread_self, and src/kernels.c, kernels_times), one definition for the
 * text and the JSON of --report=summary. */
#ifndef TT_OP_TABLE_H
#define TT_OP_TABLE_H

#include <stdint.h>

#include "src/kernels.h"
#include "src/ops.h"
#include "ui/table.h"

/* Sets TB up (free with table_free) with a row per operator of OPS (N of them, of trace
 * T), in their order: name, calls, self (cpu_self) and total (cpu_total) time. */
void op_table_init(struct table *tb, const struct trace *t, const struct op_row *ops, uint32_t n);
/* Sets TB up with a row per kernel of KS (N of them, of trace T), in their order: name,
 * calls, total, mean, min and max time. */
void kernel_table_init(struct table *tb, const struct trace *t, const struct kernel_row *ks, uint32_t n);

#endif
