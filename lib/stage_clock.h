/* stage_clock.h: where a load's wall time goes, stage by stage, for benchmarks. With
 * TTRACE_STAGE_TIMES set in the environment, each stage_clock() call prints to standard
 * error the milliseconds since the calling thread's previous call (or since the first
 * call of the process) and since the first call, with the resident set then and its peak
 * so far:
 *     ttrace: stage parse: 61.2 ms (at 63.0 ms), rss 14.2 MiB, peak 15.0 MiB
 * Without it a call costs one load of a cached flag. */
#ifndef TT_STAGE_CLOCK_H
#define TT_STAGE_CLOCK_H

/* Ends stage NAME on this thread (NAME: a constant, printed as it is). */
void stage_clock(const char *name);

#endif
