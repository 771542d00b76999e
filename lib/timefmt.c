/* timefmt.c: durations, offsets and sizes as text. */
#include "lib/timefmt.h"
#include "lib/tmath.h"

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

const char *timefmt_tick(int64_t ns, int64_t step, char *buf, size_t n)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t unit;
	const char *name;
	int dec; /* timefmt_dur's decimals at this size */
	if (a < 1000)
		return timefmt_dur(ns, buf, n); /* whole nanoseconds: ticks differ already */
	if (a < 1000000) {
		unit = 1000, name = "us", dec = a < 10000 ? 2 : a < 100000 ? 1 : 0;
	} else if (a < 1000000000) {
		unit = 1000000, name = "ms", dec = a < 10000000 ? 2 : a < 100000000 ? 1 : 0;
	} else {
		unit = 1000000000, name = "s", dec = a < 60ull * 1000000000 ? 3 : 1;
	}
	/* the decimals of STEP in that unit: the fewest d with STEP a multiple of unit / 10^d */
	uint64_t q = unit, st = step > 0 ? (uint64_t)step : 1;
	int need = 0;
	while (q > 1 && st % q != 0) {
		q /= 10;
		need++;
	}
	if (need > dec)
		dec = need;
	uint64_t per = unit, frac;
	for (int i = 0; i < dec; i++)
		per /= 10;
	frac = a % unit / per; /* exact for a multiple of STEP; digits below are cut */
	char digits[12] = "";  /* "." and DEC digits (at most 9: nanoseconds in seconds) */
	if (dec > 0) {
		digits[0] = '.';
		for (int i = dec; i >= 1; i--, frac /= 10)
			digits[i] = (char)('0' + frac % 10);
		digits[dec + 1] = '\0';
	}
	if (unit == 1000000000 && a >= 60ull * 1000000000)
		snprintf(buf, n, "%s%" PRIu64 "m%02" PRIu64 "%ss", sign, a / unit / 60, a / unit % 60, digits);
	else
		snprintf(buf, n, "%s%" PRIu64 "%s %s", sign, a / unit, digits, name);
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
	*ns = tt_round(v * mul);
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
