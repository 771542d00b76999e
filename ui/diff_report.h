/* diff_report.h: `ttrace diff A B` written as text or JSON (src/diff.h has the figures). */
#ifndef TT_DIFF_REPORT_H
#define TT_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"

/* Writes the diff of side A (NA traces) against side B (NB traces) to F: as JSON when
 * JSON, else text with at most TOP operator and kernel rows each (TOP < 0: 15; 0: all).
 * ALIGN (enum align_mode) is for the findings of several ranks. Returns 0. */
int report_diff(FILE *f, struct trace *const *a, int na, struct trace *const *b, int nb, bool json, int top, int align);

#endif
