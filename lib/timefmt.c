/* timefmt.c: durations, offsets and sizes as text. */
#include "lib/timefmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *timefmt_dur(int64_t ns, char *buf, size_t n)
{
	const char *sign = "";
	uint64_t a;
	if (ns < 0) {
		sign = "-";
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	if (a < 1000)
		snprintf(buf, n, "%s%" PRIu64 " ns", sign, a);
	else if (a < 1000000)
		snprintf(buf, n, "%s%.*f us", sign, a < 10000 ? 2 : a < 100000 ? 1 : 0, (double)a / 1e3);
	else if (a < 1000000000)
		snprintf(buf, n, "%s%.*f ms", sign, a < 10000000 ? 2 : a < 100000000 ? 1 : 0, (double)a / 1e6);
	else if (a < 60ull * 1000000000)
		snprintf(buf, n, "%s%.3f s", sign, (double)a / 1e9);
	else
		snprintf(buf, n, "%s%" PRIu64 "m%04.1fs", sign, (uint64_t)(a / 60000000000ull),
		         (double)(a % 60000000000ull) / 1e9);
	return buf;
}

const char *timefmt_offset(int64_t ns, char *buf, size_t n)
{
	char sign = ns < 0 ? '-' : '+';
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	/* one unit whatever the size, so that a column of offsets reads at a glance; microsecond
	 * digits, and nanosecond ones only when there are some */
	if (a % 1000 == 0)
		snprintf(buf, n, "%c%" PRIu64 ".%03" PRIu64 " ms", sign, a / 1000000, a / 1000 % 1000);
	else
		snprintf(buf, n, "%c%" PRIu64 ".%06" PRIu64 " ms", sign, a / 1000000, a % 1000000);
	return buf;
}

int timefmt_parse_dur(const char *s, int64_t *ns)
{
	char *end;
	double v = strtod(s, &end);
	double mul;
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end == '\0' || strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "us") == 0)
		mul = 1e3;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "s") == 0)
		mul = 1e9;
	else
		return -1;
	if (v * mul > 9.2e18)
		return -1;
	*ns = (int64_t)llround(v * mul);
	return 0;
}

const char *timefmt_bytes(double b, char *buf, size_t n)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;
	while (fabs(b) >= 1000 && u < 4) {
		b /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", b);
	else
		snprintf(buf, n, "%.*f %s", fabs(b) < 10 ? 2 : fabs(b) < 100 ? 1 : 0, b, units[u]);
	return buf;
}
