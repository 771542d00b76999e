/* data_limits.h: the limits of what a trace's figures stand on (a file cut short, a
 * legacy-exporter trace, a window of fewer than two steps, memory without totals, ranks of
 * the job not loaded, an alignment that does not hold), said in one wording wherever they
 * are shown: the advice caps its findings' confidence by them (src/advice.h), the reports
 * and the views list them. */
#ifndef TT_DATA_LIMITS_H
#define TT_DATA_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
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
	DL_NOT_ONE_JOB,
	DL_MEMORY_DERIVED,
	DL__COUNT
};

/* The alignment residual above which comparisons across ranks are not to be trusted much:
 * collectives that should end together end this far apart after alignment. */
#define TT_LIMIT_RESIDUAL_MAX 100000 /* ns */
/* The residual past which the files cannot be of one job aligned at all: a job's ranks run
 * the same collective within a step of each other, never a second apart. */
#define TT_LIMIT_RESIDUAL_NOT_ONE_JOB 1000000000 /* ns */

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
/* Whether the N ranks TS compared by RR cannot be one job: two files say the same rank, or
 * collective alignment leaves the same collectives over TT_LIMIT_RESIDUAL_NOT_ONE_JOB apart;
 * says why into WHY (N bytes) when so. What is compared across ranks (who waited for whom)
 * is then not to be said at all. */
bool data_limits_not_one_job(struct trace *const *ts, int n, const struct rank_report *rr, char *why, size_t len);
/* The JSON key of kind K ("truncated", "legacy_exporter", ...); "?" out of range. */
const char *data_limit_key(enum data_limit_kind k);

#endif
