/* analysis_split.h: whether an analysis of a trace splits its work over a thread of its own
 * (the overview's steps beside its gaps, the GPU roles beside the CPU phases, the advice's
 * CPU sweep beside the GPU's, the side analyses beside the overview's chain).
 *
 * Only for a trace of ANALYSIS_SPLIT_SLICES slices or more: below, the thread costs more
 * than the work it takes (its making, and the 2-3 ms an idle vCPU of these machines takes
 * to wake: bench/RESULTS.md, "The index's helper thread"), and many small traces, the ranks
 * of a job, are analysed one per core instead (traces_advice): 256 ranks of 13,000 events,
 * their advice 307-319 -> 194-201 ms (bench/RESULTS.md, "Issue 33: the distributed report"). */
#ifndef TT_ANALYSIS_SPLIT_H
#define TT_ANALYSIS_SPLIT_H

#include <stdbool.h>

#include "lib/test_knobs.h"
#include "src/model.h"

#define ANALYSIS_SPLIT_SLICES 30000

/* (TTRACE_TEST_ANALYSIS_SPLIT sets another threshold, so that fixtures take both paths.) */
static inline bool analysis_split(const struct trace *t)
{
	struct test_knobs k = test_knobs();
	uint64_t min = k.analysis_split_set ? k.analysis_split : ANALYSIS_SPLIT_SLICES, n = 0;
	for (uint32_t i = 0; i < t->ntracks && n < min; i++)
		n += t->tracks[i].nslices;
	return n >= min;
}

#endif
