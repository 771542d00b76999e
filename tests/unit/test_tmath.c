/* test_tmath.c: the saturating helpers and the rounding that stands in for libm's. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/tmath.h"
#include "tests/unit/tap.h"

/* splitmix64: reproducible doubles of every magnitude */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int main(void)
{
	ok(tt_add(INT64_MAX, 1) == INT64_MAX && tt_add(INT64_MIN, -1) == INT64_MIN && tt_add(2, 3) == 5,
	   "tt_add saturates");
	ok(tt_sub(INT64_MIN, 1) == INT64_MIN && tt_sub(INT64_MAX, -1) == INT64_MAX && tt_sub(2, 3) == -1,
	   "tt_sub saturates");
	ok(tt_mul(INT64_MAX, 2) == INT64_MAX && tt_mul(INT64_MAX, -2) == INT64_MIN, "tt_mul saturates");

	/* halves away from zero, and the doubles next to them */
	static const double halves[] = { 0.5,
		                         1.5,
		                         2.5,
		                         -0.5,
		                         -1.5,
		                         -2.5,
		                         0.49999999999999994,
		                         -0.49999999999999994,
		                         4503599627370495.5,
		                         -4503599627370495.5,
		                         4503599627370497.0,
		                         9007199254740993.0,
		                         0.0,
		                         -0.0,
		                         1e-300,
		                         -1e-300,
		                         123456.5,
		                         1e18,
		                         -1e18,
		                         9.2e18,
		                         -9.2e18 };
	int bad = 0;
	for (size_t i = 0; i < sizeof halves / sizeof *halves; i++) {
		double d = halves[i];
		double near[3] = { nextafter(d, -INFINITY), d, nextafter(d, INFINITY) };
		for (int k = 0; k < 3; k++)
			if (tt_round(near[k]) != llround(near[k])) {
				printf("#   tt_round(%.17g) = %lld, llround %lld\n", near[k],
				       (long long)tt_round(near[k]), llround(near[k]));
				bad++;
			}
	}
	ok(bad == 0, "tt_round = llround at halves and the doubles beside them");

	/* a million doubles of every exponent below 2^63, both signs */
	uint64_t s = 42;
	bad = 0;
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = next(&s);
		double m = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
		int e = (int)(next(&s) % 126) - 62;                /* 2^-62 .. 2^63 */
		double d = ldexp(m, e) * ((r & 1) ? -1 : 1);
		if (fabs(d) >= 9223372036854775807.0)
			continue;
		if (tt_round(d) != llround(d) && bad++ < 5)
			printf("#   tt_round(%.17g) = %lld, llround %lld\n", d, (long long)tt_round(d), llround(d));
	}
	ok(bad == 0, "tt_round = llround on a million doubles of every magnitude");

	ok(tt_round(NAN) == 0, "tt_round(NaN) is 0");
	ok(tt_round(1e19) == INT64_MAX && tt_round(-1e19) == INT64_MIN && tt_round(INFINITY) == INT64_MAX,
	   "tt_round clamps past the int64 range");
	ok(tt_round(-9223372036854775808.0) == INT64_MIN, "tt_round at INT64_MIN");

	ok(tt_fmax(1.0, 2.0) == 2.0 && tt_fmax(-1.0, -2.0) == -1.0, "tt_fmax: the larger");
	ok(tt_fmax(NAN, 3.0) == 3.0 && tt_fmax(3.0, NAN) == 3.0 && isnan(tt_fmax(NAN, NAN)),
	   "tt_fmax: NaN gives the other");
	ok(tt_fmax(-INFINITY, 5.0) == 5.0 && tt_fmax(INFINITY, 5.0) == INFINITY, "tt_fmax: infinities");
	return done_testing();
}
