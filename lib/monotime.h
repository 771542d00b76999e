/* monotime.h: seconds on the monotonic clock, for measuring how long things take. */
#ifndef TT_MONOTIME_H
#define TT_MONOTIME_H

#include <time.h>

static inline double monotime_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
