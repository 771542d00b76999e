/* advice_report.h: --report=advice: the findings of src/advice.h, worst first, each with
 * its symptom, evidence, likely cause, first fix and confidence, as text or JSON. */
#ifndef TT_ADVICE_REPORT_H
#define TT_ADVICE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"

/* Writes the findings to F: per usable file when one file is usable, else once for the
 * usable files taken as the ranks of one job (compared by ALIGN, an enum align_mode),
 * each finding with the ranks it holds for. As text, or as one JSON document. */
void report_advice(FILE *f, struct trace *const *traces, int n, bool json, int align);

#endif
