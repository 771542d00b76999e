/* diff_report.h: `ttrace diff A B` written as text or JSON (src/diff.h has the figures). */
#ifndef TT_DIFF_REPORT_H
#define TT_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "src/diff.h"
#include "src/model.h"

/* Writes the diff of side A (NA traces) against side B (NB traces) to F: as JSON when
 * JSON, else text with at most TOP operator and kernel rows each (TOP < 0: 15; 0: all).
 * ALIGN (enum align_mode) is for the findings of several ranks. With STEPS, A and B are
 * one trace, and its slowest step is compared with its median one (src/diff.h,
 * diff_steps). MATCH (enum diff_match) is how operators and kernels are matched. Returns 0. */
int report_diff(FILE *f, struct trace *const *a, int na, struct trace *const *b, int nb, bool json, int top, int align,
                bool steps, int match);

/* A figure's value V in unit U into BUF, N bytes ("-" for NaN); SIGN: a change ("+"
 * before a positive one; shares and percents in points). Returns BUF. */
const char *diff_value_text(enum diff_unit u, double v, bool sign, char *buf, size_t n);
/* The verdict of a figure, of an operator's or kernel's row, in words ("noise", "only B",
 * "new in B", "no spread"...). */
const char *diff_figure_verdict(const struct diff_figure *d);
const char *diff_row_verdict(const struct diff_row *d);

#endif
