/* test_spans.c: spans_merge against a union computed by brute force, on lists made the
 * way the analyses make them (a few runs sorted by start, overlapping, nested, touching,
 * empty) and on lists of more runs than it merges (sorted instead). */
#include <stdlib.h>

#include "src/spans.h"
#include "tests/unit/tap.h"

/* A deterministic generator (no wall clock, no libc rand state). */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The union of V (N spans) over [0, LIMIT) as a 0/1 mark per instant. */
static void mark(const struct span *v, uint32_t n, unsigned char *m, int64_t limit)
{
	memset(m, 0, (size_t)limit);
	for (uint32_t i = 0; i < n; i++)
		for (int64_t t = v[i].start; t < v[i].end && t < limit; t++)
			m[t] = 1;
}

/* N spans in RUNS runs, each sorted by start, instants below LIMIT. */
static void make(struct span *v, uint32_t n, uint32_t runs, int64_t limit)
{
	uint32_t per = runs ? (n + runs - 1) / runs : n;
	for (uint32_t i = 0; i < n; i += per) {
		int64_t t = (int64_t)(next_rand() % 16);
		for (uint32_t j = i; j < i + per && j < n; j++) {
			int64_t len = (int64_t)(next_rand() % 9) - 1; /* empty and negative ones too */
			v[j] = (struct span){ t, t + len };
			t += (int64_t)(next_rand() % 7);
			if (t + 10 >= limit)
				t = limit - 10;
		}
	}
}

static int check(uint32_t n, uint32_t runs)
{
	enum { LIMIT = 4096 };
	static unsigned char want[LIMIT], got[LIMIT];
	struct span *v = malloc((n ? n : 1) * sizeof *v);
	make(v, n, runs, LIMIT);
	mark(v, n, want, LIMIT);
	uint32_t m = spans_merge(v, n);
	mark(v, m, got, LIMIT);
	int good = memcmp(want, got, LIMIT) == 0;
	for (uint32_t i = 0; i < m && good; i++) /* sorted, disjoint, none empty */
		good = v[i].end > v[i].start && (i == 0 || v[i].start > v[i - 1].end);
	free(v);
	return good;
}

int main(void)
{
	static const uint32_t runs[] = { 1, 2, 3, 7, 64, 65, 300 };
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		int good = 1;
		for (int rep = 0; rep < 50 && good; rep++)
			good = check(1 + (uint32_t)(next_rand() % 2000), runs[r]);
		ok(good, "spans_merge: the union of %u runs sorted by start, 50 lists", runs[r]);
	}
	ok(check(0, 1), "spans_merge: no spans");
	struct span two[] = { { 5, 9 }, { 0, 5 } }; /* two runs that touch: one span */
	is_int(spans_merge(two, 2), 1, "two touching runs make one span");
	ok(two[0].start == 0 && two[0].end == 9, "... [0, 9)");
	return done_testing();
}
