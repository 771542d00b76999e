/* stage_clock.c: per-stage wall clocks of a load (stage_clock.h). */
#include "lib/stage_clock.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <unistd.h>

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
	/* the resident set now (/proc/self/statm's second field, in pages) and its peak so far */
	long pages = -1;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		long size;
		if (fscanf(f, "%ld %ld", &size, &pages) != 2)
			pages = -1;
		fclose(f);
	}
	struct rusage ru;
	double peak = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024 : -1;
	double rss = pages >= 0 ? (double)pages * (double)sysconf(_SC_PAGESIZE) / (1 << 20) : -1;
	fprintf(stderr, "ttrace: stage %s: %.1f ms (at %.1f ms), rss %.1f MiB, peak %.1f MiB", name,
	        (now - since) * 1e3, (now - start) * 1e3, rss, peak);
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();
	fprintf(stderr, ", heap %.1f MiB (%.1f free), mapped %.1f MiB", (double)mi.arena / (1 << 20),
	        (double)mi.fordblks / (1 << 20), (double)mi.hblkhd / (1 << 20));
#endif
	fputc('\n', stderr);
}
