/* op_table.h: the summary's operator and kernel tables (aggregates by name, computed in
 * src/tables.c), one definition for the text and the JSON of --report=summary. */
#ifndef TT_OP_TABLE_H
#define TT_OP_TABLE_H

#include <stdint.h>

#include "src/tables.h"
#include "ui/table.h"

/* Sets TB up (free with table_free) with a row per operator of OPS (N of them, of trace
 * T), in their order: name, calls, self and total time. */
void op_table_init(struct table *tb, const struct trace *t, const struct op_stat *ops, uint32_t n);
/* Sets TB up with a row per kernel of KS (N of them, of trace T), in their order: name,
 * calls, total, mean, min and max time. */
void kernel_table_init(struct table *tb, const struct trace *t, const struct kernel_stat *ks, uint32_t n);

#endif
