/* test_kinds.c: a trace's table of slice kinds (src/kinds.h): one index per distinct
 * (name, row, category, class, flags), the same index when asked again, through growth
 * and rehashing; a copy keeps the indices; two threads interning at once while
 * kinds_share is on agree on every index and read back what they interned. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/kinds.h"
#include "tests/unit/tap.h"

static struct slice_kind kind(uint32_t i)
{
	return (struct slice_kind){ i / 7, (uint16_t)(i % 7), (uint8_t)(i % 5), (uint8_t)(i % SC__COUNT),
		                    (uint8_t)(i % 3 == 0 ? SF_PARTIAL : 0) };
}

static bool same(struct slice_kind a, struct slice_kind b)
{
	return a.name == b.name && a.depth == b.depth && a.cat_ix == b.cat_ix && a.cls == b.cls && a.flags == b.flags;
}

#define N 20000

struct job {
	struct trace *t;
	uint32_t from, step;
	uint32_t got[N];
	int bad;
};

static void *intern_some(void *arg)
{
	struct job *j = arg;
	for (uint32_t i = j->from; i < N; i += j->step) {
		j->got[i] = kinds_intern(j->t, kind(i));
		/* read back through the table as a slice would, while the other thread grows it */
		struct slice s = { 0, 0, j->got[i] };
		if (!same(*slice_kind_of(j->t, &s), kind(i)))
			j->bad++;
	}
	return NULL;
}

int main(void)
{
	struct trace t;
	memset(&t, 0, sizeof t);
	kinds_init(&t);
	uint32_t *at = xmalloc(N * sizeof *at);
	bool distinct = true, stable = true, read = true;
	for (uint32_t i = 0; i < N; i++)
		at[i] = kinds_intern(&t, kind(i));
	for (uint32_t i = 0; i < N; i++) {
		distinct = distinct && at[i] == i; /* every tuple new, in order */
		stable = stable && kinds_intern(&t, kind(i)) == at[i];
		read = read && same(t.kinds[at[i]], kind(i));
	}
	ok(distinct && t.nkinds == N, "%u distinct kinds get %u indices, in order", N, t.nkinds);
	ok(stable, "asked again, each gets its index (through growth and rehashing)");
	ok(read, "and the table holds each as given");
	is_int(kinds_intern(&t, (struct slice_kind){ 3, 2, 1, 0, SF_FROM_BE }), N,
	       "a kind differing from all in its flags only is new");

	struct trace c;
	memset(&c, 0, sizeof c);
	kinds_copy(&c, &t);
	bool copied = c.nkinds == t.nkinds;
	for (uint32_t i = 0; copied && i < t.nkinds; i++)
		copied = same(c.kinds[i], t.kinds[i]) && kinds_intern(&c, t.kinds[i]) == i;
	ok(copied, "a copy keeps every index");
	kinds_free(&c, false);
	kinds_free(&t, false);

	/* two threads, half the kinds each, both asking for all of them once more */
	memset(&t, 0, sizeof t);
	kinds_init(&t);
	kinds_share(&t, true);
	struct job *a = xcalloc(1, sizeof *a), *b = xcalloc(1, sizeof *b);
	*a = (struct job){ .t = &t, .from = 0, .step = 1 };
	*b = (struct job){ .t = &t, .from = 1, .step = 1 };
	pthread_t th;
	if (pthread_create(&th, NULL, intern_some, b) != 0)
		fatal("pthread_create failed");
	intern_some(a);
	pthread_join(th, NULL);
	kinds_share(&t, false);
	bool agree = true;
	for (uint32_t i = 1; i < N; i++)
		agree = agree && a->got[i] == b->got[i] && same(t.kinds[a->got[i]], kind(i));
	ok(agree && a->bad == 0 && b->bad == 0 && t.nkinds == N,
	   "two threads interning at once agree on every index (%u kinds, %d + %d read back wrong)", t.nkinds, a->bad,
	   b->bad);
	kinds_free(&t, false);
	free(a);
	free(b);
	free(at);
	return done_testing();
}
