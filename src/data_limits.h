/* data_limits.h: the limits of what a trace's figures stand on (a file cut short, a
 * legacy-exporter trace, a window of fewer than two steps, memory without totals, ranks of
 * the job not loaded, an alignment that does not hold), said in one wording wherever they
 * are shown: the advice caps its findings' confidence by them (src/advice.h), the reports
 * and the views list them. */
#ifndef TT_DATA_LIMITS_H
#define TT_DATA_LIMITS_H

#include <stdint.h>

#include "src/memory.h"
#include "src/model.h"
#include "src/ranks.h"

enum data_limit_kind {
	DL_TRUNCATED,
	DL_LEGACY,
	DL_ONE_STEP,
	DL_NO_STEPS,
	DL_RANKS_MISSING,
	DL_ALIGNMENT,
	DL_MEMORY_DERIVED,
	DL__COUNT
};

/* The alignment residual above which comparisons across ranks are not to be trusted much:
 * collectives that should end together end this far apart after alignment. */
#define TT_LIMIT_RESIDUAL_MAX 100000 /* ns */

#define DATA_LIMITS_MAX 8
struct data_limit {
	enum data_limit_kind kind;
	char text[224]; /* what it is, in words (no trace text) */
};
struct data_limits {
	struct data_limit l[DATA_LIMITS_MAX];
	uint32_t n;
};

/* The limits of T's data into L (emptied first), in this order: a cut file (how much was
 * kept: bytes of JSON and the time span), a legacy-exporter trace, a window of STEPS < 2
 * steps (not asked when STEPS is negative; said as no steps at all when T has no
 * ProfilerStep#N, whose window is the whole trace), memory curves derived from the samples' Bytes
 * for want of totals (asked when MEM, T's memory report, is given). Never fails. */
void data_limits_trace(const struct trace *t, int64_t steps, const struct memory_report *mem, struct data_limits *l);
/* The limits of the N ranks TS compared by RR into L (emptied first): the first cut file,
 * legacy-exporter traces, ranks of the job (world_size) not loaded, an alignment residual
 * over TT_LIMIT_RESIDUAL_MAX. Never fails. */
void data_limits_ranks(struct trace *const *ts, int n, const struct rank_report *rr, struct data_limits *l);
/* The JSON key of kind K ("truncated", "legacy_exporter", ...); "?" out of range. */
const char *data_limit_key(enum data_limit_kind k);

#endif
