/* fuzz_model.h: what the fuzz targets run over a model they got (loaded from an input, or
 * read from a cache): the reports, the model dump, the lazy args reader and the index
 * queries, whose answers are checked against src/index.h. A failed check aborts, so it is
 * a crash to the fuzzer. */
#ifndef TT_FUZZ_MODEL_H
#define TT_FUZZ_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/model.h"

#define FUZZ_CHECK(cond)                                                                               \
	do {                                                                                           \
		if (!(cond)) {                                                                         \
			fprintf(stderr, "fuzz: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                       \
		}                                                                                      \
	} while (0)

/* How much of each model the checks cover: every input gets the cheap bounds, the inputs
 * of the full oracle the others (each args read opens the file again). */
struct fuzz_bounds {
	uint16_t rows;   /* rows per track queried */
	uint32_t points; /* slices per track looked up, with a window over each */
	unsigned args;   /* slices whose args are read back */
};
extern const struct fuzz_bounds fuzz_cheap, fuzz_full;

/* Runs the summary (text and JSON) and the data-quality report over T, reads back the
 * args of its first slices that have them, and checks its index within BD. Returns the
 * model dump (allocated). */
char *fuzz_exercise(struct trace *t, const struct fuzz_bounds *bd);

/* Runs every other report over T: gaps, overview, advice, the kernel, operator and memory
 * tables in every grouping, distributed in every alignment; text and JSON. */
void fuzz_reports(struct trace *t);

#endif
