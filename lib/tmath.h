/* tmath.h: saturating arithmetic on int64 nanosecond times and durations, and the few
 * rounding helpers ttrace needs (so that the binary does not load libm: its start-up
 * relocations alone kept 0.3 MB of every run resident).
 *
 * A trace is data: a timestamp may be anywhere in int64, a duration may be 1e15 us, two
 * ranks' clocks may be centuries apart. Sums and differences of such values go through
 * these helpers, which clamp to [INT64_MIN, INT64_MAX] instead of overflowing (undefined
 * behaviour in C, and a wrapped sign in practice). */
#ifndef TT_TMATH_H
#define TT_TMATH_H

#include <stdint.h>

/* A + B, clamped to the int64 range. */
static inline int64_t tt_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* A - B, clamped to the int64 range. */
static inline int64_t tt_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* A * B, clamped to the int64 range. */
static inline int64_t tt_mul(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* The double D as an int64, clamped (NaN gives 0). */
static inline int64_t tt_from_double(double d)
{
	if (!(d == d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

/* The long double D as an int64, clamped (NaN gives 0). */
static inline int64_t tt_from_ldouble(long double d)
{
	if (!(d == d))
		return 0;
	if (d >= 9223372036854775807.0L)
		return INT64_MAX;
	if (d <= -9223372036854775808.0L)
		return INT64_MIN;
	return (int64_t)d;
}

/* D rounded to the nearest integer, halves away from zero (C's llround), clamped to the
 * int64 range (NaN gives 0, where llround's value is unspecified). */
static inline int64_t tt_round(double d)
{
	if (!(d > -9223372036854775808.0 && d < 9223372036854775807.0))
		return tt_from_double(d); /* NaN, or past the range: clamped */
	int64_t t = (int64_t)d;           /* toward zero */
	double f = d - (double)t;         /* exact: t is d's integer part */
	if (f >= 0.5)
		t++;
	else if (f <= -0.5)
		t--;
	return t;
}

/* The larger of A and B; when one is NaN, the other (C's fmax). */
static inline double tt_fmax(double a, double b)
{
	if (!(a == a))
		return b;
	if (!(b == b))
		return a;
	return a > b ? a : b;
}

#endif
