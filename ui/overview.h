/* overview.h: the Overview, the first page of the TensorBoard plugin brought to the
 * terminal: the window its figures cover, and per device the GPU Summary (utilization,
 * Est. SM efficiency, Est. achieved occupancy, Tensor Cores); as a report
 * (--report=overview, text or JSON). */
#ifndef TT_OVERVIEW_H
#define TT_OVERVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"

/* Writes the Overview of each usable trace of TRACES to F, as text or JSON. */
void report_overview(FILE *f, struct trace *const *traces, int n, bool json);

#endif
