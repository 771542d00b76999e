/* parallel.h: a loop whose iterations are independent, run on the machine's cores. The
 * analyses of many ranks use it (the collectives and unions of each rank, the straggler's
 * sweep, the communication table's args): their work is one rank's at a time, and with
 * 256 ranks it was a fifth of a distributed report's time on one core. */
#ifndef TT_PARALLEL_H
#define TT_PARALLEL_H

/* Calls FN(ARG, i) for every i in 0 .. N - 1, each once, on this thread and up to seven
 * more (no more than the machine's cores, and one where N < 2 or no thread can be made);
 * each thread takes the next i not yet taken. Returns when every call has. */
void parallel_for(int n, void (*fn)(void *arg, int i), void *arg);

#endif
