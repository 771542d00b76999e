/* range_max.h: the largest value of a step plot over a time window, in O(log n).
 *
 * A step plot is samples (ts[i], v[i]) in time order whose value at time t is the last
 * sample at or before t (a counter: memory allocated, reserved). Over a window [t0, t1)
 * it takes the value carried in at t0 and every sample inside: step_plot_span finds that
 * run of samples by binary search, and a range_max answers "the largest v over a run"
 * from a segment tree over v, so that a timeline column costs O(log n) whatever the zoom,
 * instead of a walk over every sample it covers. */
#ifndef TT_RANGE_MAX_H
#define TT_RANGE_MAX_H

#include <stdbool.h>
#include <stdint.h>

struct range_max {
	const int64_t *leaf; /* the values (not owned) */
	int64_t *inner;      /* inner[k], 1 <= k < n: the max of nodes 2k and 2k+1 */
	uint32_t n;
};

/* Builds the tree over V[0..N) in O(N); V must outlive it. Release with range_max_release. */
void range_max_init(struct range_max *m, const int64_t *v, uint32_t n);
void range_max_release(struct range_max *m);
/* The largest value of V[LO..HI) (LO < HI <= N; a bug otherwise), in O(log N). */
int64_t range_max_query(const struct range_max *m, uint32_t lo, uint32_t hi);

/* The samples that set the step plot TS[0..N) (sorted) over [T0, T1): the one carried in
 * at T0 and those inside, as [*LO, *HI). False (nothing set) when no sample lies before T1. */
bool step_plot_span(const int64_t *ts, uint32_t n, int64_t t0, int64_t t1, uint32_t *lo, uint32_t *hi);
/* The sample holding the step plot's value at T: the last at or before T, or UINT32_MAX
 * when T is before the first. */
uint32_t step_plot_at(const int64_t *ts, uint32_t n, int64_t t);

#endif
