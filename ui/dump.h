/* dump.h: a complete, deterministic text dump of a loaded model (--dump-model), for
 * golden tests and bug reports. */
#ifndef TT_DUMP_H
#define TT_DUMP_H

#include <stdio.h>

#include "src/model.h"

/* Writes everything the model holds: header facts, processes, tracks with every row and
 * slice, GPU launch links, flows, instants, memory samples, counters, steps, quality
 * counts and warnings. Times are raw nanoseconds relative to the file's time base. */
void dump_model(FILE *f, const struct trace *t);

#endif
