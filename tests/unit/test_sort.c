/* test_sort.c: lib/sort.h's sorts against qsort: SORT_DEFINE on plain values, and
 * SORT_DEFINE_CTX on indices compared through their context, from two threads at once,
 * each with its own context (what a file-scope comparison state would mix up). */
#include <pthread.h>
#include <stdlib.h>

#include "lib/sort.h"
#include "lib/strtab.h"
#include "tests/unit/tap.h"

#define N 5000

static inline bool u64_less(const uint64_t *x, const uint64_t *y) { return *x < *y; }
SORT_DEFINE(sort_u64, uint64_t, u64_less)

struct ctx {
	const int64_t *key; /* by index */
};

/* by key, then index: a total order */
static inline bool by_key(const uint32_t *x, const uint32_t *y, const struct ctx *c)
{
	return c->key[*x] != c->key[*y] ? c->key[*x] < c->key[*y] : *x < *y;
}
SORT_DEFINE_CTX(sort_by_key, uint32_t, const struct ctx *, by_key)

static int by_key_r(const void *a, const void *b, void *arg)
{
	const uint32_t *x = a, *y = b;
	return by_key(x, y, arg) ? -1 : by_key(y, x, arg) ? 1 : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct job {
	uint64_t seed;
	int64_t key[N];
	uint32_t got[N], want[N];
	int rounds, bad;
};

static void *run(void *arg)
{
	struct job *j = arg;
	struct ctx c = { j->key };
	for (int r = 0; r < j->rounds; r++) {
		for (uint32_t i = 0; i < N; i++) {
			j->key[i] = (int64_t)(next(&j->seed) % 97); /* many ties */
			j->got[i] = j->want[i] = N - 1 - i;
		}
		sort_by_key(j->got, N, &c);
		qsort_r(j->want, N, sizeof *j->want, by_key_r, &c);
		j->bad += memcmp(j->got, j->want, sizeof j->got) != 0;
	}
	return NULL;
}

int main(void)
{
	uint64_t seed = 88172645463325252ull, v[N], w[N];
	for (uint32_t i = 0; i < N; i++)
		v[i] = w[i] = next(&seed) % 1000;
	sort_u64(v, N);
	qsort(w, N, sizeof *w, u64_cmp);
	ok(memcmp(v, w, sizeof v) == 0, "SORT_DEFINE sorts as qsort does");
	sort_u64(v, 0);
	sort_u64(v, 1);
	ok(1, "SORT_DEFINE takes 0 and 1 elements");

	static struct job a = { .seed = 1, .rounds = 40 }, b = { .seed = 2, .rounds = 40 };
	pthread_t ta, tb;
	ok(pthread_create(&ta, NULL, run, &a) == 0 && pthread_create(&tb, NULL, run, &b) == 0, "two threads start");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	is_int(a.bad + b.bad, 0, "SORT_DEFINE_CTX from two threads at once, each its context: as qsort_r");

	struct strtab t;
	strtab_init(&t);
	uint32_t z = strtab_intern(&t, "z", 1), a1 = strtab_intern(&t, "a\0x", 3), a2 = strtab_intern(&t, "a\0y", 3);
	ok(strtab_cmp(&t, a1, z) < 0 && strtab_cmp(&t, z, a1) > 0, "strtab_cmp: by text");
	ok(strtab_cmp(&t, a1, a2) < 0 && strtab_cmp(&t, a2, a1) > 0 && strtab_cmp(&t, a1, a1) == 0,
	   "strtab_cmp: the same text up to a NUL, by id");
	strtab_free(&t);
	return done_testing();
}
