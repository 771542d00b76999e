/* overview.h: the Overview, the first page of the TensorBoard plugin brought to the
 * terminal: the window its figures cover, and per device the GPU Summary (utilization,
 * Est. SM efficiency, Est. achieved occupancy, Tensor Cores); as a report
 * (--report=overview, text or JSON) and as a panel (V): its steps below the summary. */
#ifndef TT_OVERVIEW_H
#define TT_OVERVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"
#include "ui/panel.h"

/* The Overview panel over APP's first trace: a header with the GPU Summary of each device,
 * then the table of its steps (Enter shows the step in the timeline). */
struct panel *overview_open(struct app *app);
/* Writes the Overview of each usable trace of TRACES to F, as text or JSON. */
void report_overview(FILE *f, struct trace *const *traces, int n, bool json);

#endif
