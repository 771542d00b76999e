/* stage_clock.c: per-stage wall clocks of a load (stage_clock.h). */
#include "lib/stage_clock.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/monotime.h"

static atomic_int enabled = -1; /* -1: the environment not read yet */
static _Atomic double first;    /* the first call's time, 0 before it */
static _Thread_local double last;

void stage_clock(const char *name)
{
	int on = atomic_load_explicit(&enabled, memory_order_relaxed);
	if (on < 0) {
		on = getenv("TTRACE_STAGE_TIMES") != NULL;
		atomic_store(&enabled, on);
	}
	if (!on)
		return;
	double now = monotime_seconds();
	double zero = 0;
	atomic_compare_exchange_strong(&first, &zero, now);
	double start = atomic_load(&first);
	double since = last > 0 ? last : start;
	last = now;
	fprintf(stderr, "ttrace: stage %s: %.1f ms (at %.1f ms)\n", name, (now - since) * 1e3, (now - start) * 1e3);
}
