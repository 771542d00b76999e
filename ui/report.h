/* report.h: text and JSON reports written without a terminal. */
#ifndef TT_REPORT_H
#define TT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"

/* Writes the summary of each usable trace (rank, span, events, tracks, top operators by
 * self CPU time, top kernels by total GPU time, data-quality counts) as text, or as one
 * JSON object {"ttrace_version", "files": [...]} when JSON is set. */
void report_summary(FILE *f, struct trace *const *traces, int n, bool json);
/* Writes the gap report of each usable trace (utilization, idle by cause and by HTA class,
 * the gaps of MIN_GAP ns or more longest first) as text, or as one JSON object. */
void report_gaps(FILE *f, struct trace *const *traces, int n, bool json, int64_t min_gap);
/* Writes the distributed report of the usable traces, one per rank: alignment (mode
 * ALIGN, offsets, residual), the per-rank table, the straggler and the collectives. */
void report_distributed(FILE *f, struct trace *const *traces, int n, bool json, int align);
/* Writes the kernels of each usable trace (ui/kernel_view.h: the Kernels view's table),
 * longest total first, or by the column keyed SORT: the first TOP (0: all; negative: 50)
 * as text; in JSON all, or the first TOP when TOP > 0. Returns 0, or 2 (said on stderr)
 * for an unknown SORT. */
int report_kernels(FILE *f, struct trace *const *traces, int n, bool json, int top, const char *sort);
/* Writes the operators of each usable trace (ui/op_view.h: the Operators view's table),
 * by device total, or by the column keyed SORT: the first TOP (0: all; negative: 20) as
 * text; in JSON all, or the first TOP when TOP > 0. Returns 0, or 2 for an unknown SORT. */
int report_operators(FILE *f, struct trace *const *traces, int n, bool json, int top, const char *sort);
/* Writes the data-quality findings of each trace, with up to three examples each. */
void report_check(FILE *f, struct trace *const *traces, int n);

#endif
