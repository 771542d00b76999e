/* straggler.h: why the straggler of several ranks is late, from its own trace compared with
 * the other ranks' over the same stretches of time.
 *
 * The straggler's lateness at a collective it arrived last at is its arrival minus the mean
 * arrival of the other ranks that have it. Each rank's segment before that collective runs
 * from the end of its previous collective (which ends at about the same time everywhere:
 * it completes once the last rank has joined), or for the first one from the start of the
 * ProfilerStep#N around the arrival (else of the trace), to its arrival. Over those
 * segments each candidate cause is a figure of the straggler minus the other ranks' mean:
 *   dataloader_stall  DataLoader __next__ time with the rank's GPU idle (all of it without
 *                     GPU work), the time the dataloader_stall finding counts;
 *   host_sync         GPU idle time while the host is in a synchronising call (the calls
 *                     of src/host_calls.h, outermost ones), what the host_sync finding counts;
 *   slower_gpu        for its kernels that the others also run with the same name, grid and
 *                     block: their duration minus the others' mean duration of that kernel;
 *   longer_compute    the length of its compute union (non-communication kernels; CPU ops
 *                     but DataLoader ones when no rank has kernels) minus the others', less
 *                     what slower_gpu explains: more work, not slower work.
 * The reason is the candidate that explains most, when it explains half the lateness or
 * more; else unknown. Segments of one rank are in its own time: offsets cancel out since
 * every figure is a length. */
#ifndef TT_STRAGGLER_H
#define TT_STRAGGLER_H

#include "src/ranks.h"

/* Fills R->why for R's straggler (R->straggler >= 0), from R's collectives and traces. */
void straggler_explain(struct rank_report *r);

#endif
