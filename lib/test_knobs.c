/* test_knobs.c: reads the test and benchmark knobs (see test_knobs.h). */
#include "lib/test_knobs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* NAME as a whole number in [0, MAX] into *V; false (and *V untouched) when unset or not one. */
static bool number(const char *name, unsigned long long max, unsigned long long *v)
{
	const char *s = getenv(name);
	char *end;
	if (s == NULL || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > max)
		return false;
	*v = x;
	return true;
}

struct test_knobs test_knobs(void)
{
	struct test_knobs knobs;
	unsigned long long v;
	memset(&knobs, 0, sizeof knobs);
	if (number("TTRACE_PARTS", 64, &v) && v > 0)
		knobs.parts = (int)v;
	if (number("TTRACE_TEST_SLOW_LOAD", 10000000, &v))
		knobs.slow_load_us = (unsigned)v;
	if (number("TTRACE_TEST_SLOW_SNAPSHOT", 600000, &v))
		knobs.slow_snapshot_ms = (unsigned)v;
	knobs.snapshots = getenv("TTRACE_TEST_SNAPSHOTS");
	if (number("TTRACE_TEST_BUSY_MS", 600000, &v))
		knobs.busy_ms = (long)v;
	if (number("TTRACE_TEST_DEFER_SLICES", UINT64_MAX, &v)) {
		knobs.defer_set = true;
		knobs.defer_slices = v;
	}
	knobs.first_frame = getenv("TTRACE_TEST_FIRST_FRAME");
	knobs.quit_loaded = getenv("TTRACE_TEST_QUIT_LOADED") != NULL;
	if (number("TTRACE_TEST_REPORT_DELAY_MS", 600000, &v))
		knobs.report_delay_ms = (long)v;
	if (number("TTRACE_CACHE_TEST_STALL", 9, &v))
		knobs.cache_stall_s = (unsigned)v;
	knobs.cache_times = getenv("TTRACE_CACHE_TIMES") != NULL;
	if (number("TTRACE_TEST_CROP_HOLD", UINT64_MAX, &v)) {
		knobs.crop_hold_set = true;
		knobs.crop_hold = v;
	}
	if (number("TTRACE_TEST_BLOCK_SHIFT", 30, &v) && v >= 6)
		knobs.block_shift = (unsigned)v;
	if (number("TTRACE_TEST_INDEX_SPLIT", UINT64_MAX, &v)) {
		knobs.index_split_set = true;
		knobs.index_split = v;
	}
	if (number("TTRACE_TEST_ANALYSIS_SPLIT", UINT64_MAX, &v)) {
		knobs.analysis_split_set = true;
		knobs.analysis_split = v;
	}
	knobs.no_map = getenv("TTRACE_TEST_NO_MAP") != NULL;
	knobs.narrow_blocks = getenv("TTRACE_TEST_NARROW_BLOCKS") != NULL;
	if (number("TTRACE_TEST_GATHER_MIN", UINT64_MAX, &v)) {
		knobs.gather_set = true;
		knobs.gather_min = v;
	}
	if (number("TTRACE_TEST_ROW_SPAN", 0xFFFF, &v)) {
		knobs.row_span_set = true;
		knobs.row_span = (uint32_t)v;
	}
	if (number("TTRACE_TEST_SORT_NEAR", UINT32_MAX, &v)) {
		knobs.sort_near_set = true;
		knobs.sort_near = (uint32_t)v;
	}
	const char *cr = getenv("TTRACE_TEST_CROP_READ");
	if (cr != NULL)
		knobs.crop_read = strcmp(cr, "full") == 0 ? 1 : strcmp(cr, "blocks") == 0 ? 2 : 0;
	return knobs;
}
