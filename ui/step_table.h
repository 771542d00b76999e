/* step_table.h: the step tables: the ProfilerStep#N slices of a trace (--report=summary)
 * and the steps as the TensorBoard plugin stretches them to the device (--report=gaps). */
#ifndef TT_STEP_TABLE_H
#define TT_STEP_TABLE_H

#include "src/gaps.h"
#include "src/model.h"
#include "ui/table.h"

/* Sets TB up (free with table_free) with a row per step of T (CPU and GPU side): number,
 * side, start and duration. */
void step_table_init(struct table *tb, const struct trace *t);
/* Sets TB up with a row per TensorBoard step of R: number, start and end. */
void tb_step_table_init(struct table *tb, const struct gap_report *r);

#endif
