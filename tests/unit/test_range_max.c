/* test_range_max.c: the step plot's window maxima (src/range_max.h) against the Memory
 * view's linear scan (memory_range_max) on random step plots with repeated times, and the
 * value at a time against a scan. */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/memory.h"
#include "src/range_max.h"
#include "tests/unit/tap.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Checks N random samples (times 0..SPAN with repeats) against memory_range_max on
 * QUERIES random windows, some empty or reversed. Returns the number of disagreements. */
static int check_random(uint32_t n, int64_t span, int queries)
{
	struct mem_device d = { 0 };
	d.n = n;
	d.ts = xmalloc((n ? n : 1) * sizeof *d.ts);
	d.allocated = xmalloc((n ? n : 1) * sizeof *d.allocated);
	d.reserved = xmalloc((n ? n : 1) * sizeof *d.reserved);
	int64_t t = 0;
	for (uint32_t i = 0; i < n; i++) {
		t += (int64_t)(rnd() % 3 == 0 ? 0 : rnd() % (uint64_t)(2 * span / (n + 1) + 1));
		d.ts[i] = t;
		d.allocated[i] = (int64_t)(rnd() % 1000000) - 1000; /* frees can go below 0 in broken traces */
		d.reserved[i] = d.allocated[i] + (int64_t)(rnd() % 5000);
	}
	struct range_max ma, mr;
	range_max_init(&ma, d.allocated, n);
	range_max_init(&mr, d.reserved, n);
	int bad = 0;
	for (int q = 0; q < queries; q++) {
		int64_t t0 = (int64_t)(rnd() % (uint64_t)(span + 20)) - 10,
			t1 = t0 + (int64_t)(rnd() % (uint64_t)(span / 4 + 2));
		if (q % 17 == 0)
			t1 = t0; /* an empty window: the value carried in */
		if (q % 23 == 0 && n > 0)
			t0 = d.ts[rnd() % n]; /* on a sample, repeated times included */
		int64_t wa = -1, wr = -1, ga = -1, gr = -1;
		bool want = memory_range_max(&d, t0, t1, &wa, &wr);
		uint32_t lo, hi;
		bool got = step_plot_span(d.ts, n, t0, t1, &lo, &hi);
		if (got) {
			ga = range_max_query(&ma, lo, hi);
			gr = range_max_query(&mr, lo, hi);
		}
		if (got != want || (want && (ga != wa || gr != wr))) {
			if (bad++ < 3)
				printf("#   n %u [%lld, %lld): want %d %lld %lld, got %d %lld %lld\n", n, (long long)t0,
				       (long long)t1, want, (long long)wa, (long long)wr, got, (long long)ga,
				       (long long)gr);
		}
		/* the value at t0: the last sample at or before it */
		uint32_t at = step_plot_at(d.ts, n, t0), scan = UINT32_MAX;
		for (uint32_t i = 0; i < n && d.ts[i] <= t0; i++)
			scan = i;
		if (at != scan && bad++ < 3)
			printf("#   n %u at %lld: want %u, got %u\n", n, (long long)t0, scan, at);
	}
	range_max_release(&ma);
	range_max_release(&mr);
	free(d.ts);
	free(d.allocated);
	free(d.reserved);
	return bad;
}

int main(void)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 100, 1000, 4097 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		is_int(check_random(sizes[i], 100000, 3000), 0,
		       "%u samples: window maxima and values agree with a scan", sizes[i]);

	/* a hand-worked plot: 10@100, 30@200, 20@200, 5@300 */
	int64_t ts[] = { 100, 200, 200, 300 }, v[] = { 10, 30, 20, 5 };
	struct range_max m;
	uint32_t lo = 0, hi = 0;
	range_max_init(&m, v, 4);
	ok(!step_plot_span(ts, 4, 0, 100, &lo, &hi), "before the first sample: nothing");
	ok(step_plot_span(ts, 4, 0, 101, &lo, &hi) && lo == 0 && hi == 1, "a window holding the first sample");
	ok(step_plot_span(ts, 4, 250, 260, &lo, &hi) && range_max_query(&m, lo, hi) == 20,
	   "between samples: the value carried in (the last of two at one time)");
	ok(step_plot_span(ts, 4, 150, 1000, &lo, &hi) && range_max_query(&m, lo, hi) == 30, "the peak inside a window");
	ok(step_plot_span(ts, 4, 301, 400, &lo, &hi) && range_max_query(&m, lo, hi) == 5,
	   "after the last: it carries on");
	is_int(step_plot_at(ts, 4, 99), UINT32_MAX, "no value before the first sample");
	is_int(step_plot_at(ts, 4, 200), 2, "at a repeated time: the last sample of that time");
	range_max_release(&m);
	return done_testing();
}
