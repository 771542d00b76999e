/* parallel.c: a loop over independent iterations on several threads (parallel.h). */
#include "lib/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

struct loop {
	void (*fn)(void *, int);
	void *arg;
	int n;
	atomic_int next;
};

static void *loop_main(void *p)
{
	struct loop *l = p;
	for (int i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
		l->fn(l->arg, i);
	return NULL;
}

void parallel_for(int n, void (*fn)(void *arg, int i), void *arg)
{
	struct loop l = { fn, arg, n, 0 };
	atomic_init(&l.next, 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int want = ncpu > 1 ? (int)(ncpu < 8 ? ncpu : 8) : 1;
	if (want > n)
		want = n;
	pthread_t th[8];
	int started = 0;
	for (int i = 1; i < want; i++)
		if (pthread_create(&th[started], NULL, loop_main, &l) == 0)
			started++;
	loop_main(&l);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}
