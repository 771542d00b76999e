/* comm_stats.h: the TensorBoard plugin's communication operations statistics, per rank,
 * process group and collective: calls, message sizes (from the args Kineto writes on
 * NCCL/RCCL kernels), kernel time, and the bandwidths nccl-tests prints (algbw = bytes /
 * time; busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter
 * and all-to-all, 1 for the others; bytes counted as nccl-tests counts them: the output
 * buffer of an all-gather, the input of the others). */
#ifndef TT_COMM_STATS_H
#define TT_COMM_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "src/model.h"
#include "src/ranks.h"
#include "ui/jsonw.h"
#include "ui/table.h"

#define COMM_STATS_COLS 15

/* Fills TB (its columns into COLS, COMM_STATS_COLS of them) with a row per rank, process
 * group and collective of the N traces TS (rank labels RANKS[i], -1: the position), in
 * that order; with RR (their comparison, may be NULL) a call whose collective two ranks or
 * more share splits into transfer (the collective's shortest kernel across ranks) and
 * waiting, and the bandwidths are over the transfer time. A row's tag holds its rank's
 * position in TS in its upper 32 bits. Returns how many rows have no message size (args
 * without one). */
uint32_t comm_stats_fill(struct table *tb, struct column *cols, struct trace *const *ts, const int *ranks, int n,
                         const struct rank_report *rr);
/* The section of --report=distributed: text to F or, with W, the key "communication" and
 * its array. */
void comm_stats_write(FILE *f, struct jsonw *w, struct trace *const *ts, const int *ranks, int n, int width,
                      const struct rank_report *rr);

#endif
