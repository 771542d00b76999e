/* helper.c: a helper thread that spins a while between tasks (helper.h). */
#include "lib/helper.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "lib/monotime.h"
#include "lib/xalloc.h"

/* How long a side spins before it sleeps: more than the index's work between two tasks
 * (0.3 ms on a 100 MB trace), little beside another load's. */
#define SPIN_SECONDS 0.001

enum { IDLE, TASK, DONE, STOP };

struct helper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int state; /* IDLE -> TASK (the caller) -> DONE (the helper) -> IDLE (helper_wait) */
	void (*fn)(void *);
	void *arg;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Waits until H's state is no longer WAS: spins for SPIN_SECONDS, then sleeps on H's
 * condition. */
static int wait_change(struct helper *h, int was)
{
	int s = atomic_load(&h->state);
	if (s != was)
		return s;
	double until = monotime_seconds() + SPIN_SECONDS;
	for (unsigned i = 0;; i++) {
		s = atomic_load(&h->state);
		if (s != was)
			return s;
		if ((i & 255) == 255 && monotime_seconds() > until)
			break;
		relax();
	}
	pthread_mutex_lock(&h->lock);
	while ((s = atomic_load(&h->state)) == was)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return s;
}

static void set_state(struct helper *h, int s)
{
	pthread_mutex_lock(&h->lock);
	atomic_store(&h->state, s);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	for (;;) {
		if (wait_change(h, IDLE) == STOP)
			return NULL;
		h->fn(h->arg);
		set_state(h, DONE);
		if (wait_change(h, DONE) == STOP) /* helper_wait makes it IDLE */
			return NULL;
	}
}

struct helper *helper_start(void)
{
	struct helper *h = xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	atomic_init(&h->state, IDLE);
	if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

void helper_run(struct helper *h, void (*fn)(void *), void *arg)
{
	h->fn = fn;
	h->arg = arg;
	set_state(h, TASK);
}

void helper_wait(struct helper *h)
{
	if (atomic_load(&h->state) == TASK)
		wait_change(h, TASK);
	if (atomic_load(&h->state) == DONE)
		set_state(h, IDLE);
}

void helper_stop(struct helper *h)
{
	if (h == NULL)
		return;
	helper_wait(h);
	set_state(h, STOP);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
