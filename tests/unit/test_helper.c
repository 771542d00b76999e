/* test_helper.c: lib/helper.h and lib/parallel.h. Tasks run on the helper's thread, one at
 * a time and each once, helper_wait returns only when the task is done, a task handed over
 * after the helper has gone to sleep (past its spin) still runs, and helper_stop ends an
 * idle helper. parallel_for calls each index once, on more than one thread when the
 * machine has cores for it, and returns only when all are done. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "lib/helper.h"
#include "lib/parallel.h"
#include <unistd.h>
#include "tests/unit/tap.h"

struct job {
	atomic_int runs;
	pthread_t ran_on;
	long spin; /* busy work before it is done */
	atomic_int done;
};

static void task(void *arg)
{
	struct job *j = arg;
	j->ran_on = pthread_self();
	volatile long x = 0;
	for (long i = 0; i < j->spin; i++)
		x += i;
	atomic_fetch_add(&j->runs, 1);
	atomic_store(&j->done, 1);
}

struct loop_job {
	atomic_int *calls; /* by index */
	pthread_t *on;     /* by index: the thread that ran it */
	atomic_int running, most_at_once;
};

static void loop_body(void *arg, int i)
{
	struct loop_job *j = arg;
	int now = atomic_fetch_add(&j->running, 1) + 1;
	for (int m = atomic_load(&j->most_at_once);
	     now > m && !atomic_compare_exchange_weak(&j->most_at_once, &m, now);)
		;
	struct timespec pause = { 0, 200 * 1000 }; /* long enough for the others to start */
	nanosleep(&pause, NULL);
	atomic_fetch_add(&j->calls[i], 1);
	j->on[i] = pthread_self();
	atomic_fetch_sub(&j->running, 1);
}

static void parallel_loops(void)
{
	static const int sizes[] = { 0, 1, 2, 3, 64, 257 };
	int all_once = 1, many = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		int n = sizes[k];
		atomic_int calls[257];
		pthread_t on[257];
		struct loop_job j = { calls, on, 0, 0 };
		for (int i = 0; i < n; i++)
			atomic_init(&calls[i], 0);
		parallel_for(n, loop_body, &j);
		for (int i = 0; i < n; i++)
			all_once &= atomic_load(&calls[i]) == 1;
		all_once &= atomic_load(&j.running) == 0;
		if (n == 257)
			many = atomic_load(&j.most_at_once);
	}
	ok(all_once, "parallel_for calls each index once (0, 1, 2, 3, 64, 257) and returns when all are done");
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		ok(many >= 2, "on %ld cores, %d of its calls ran at once", sysconf(_SC_NPROCESSORS_ONLN), many);
	else
		ok(many == 1, "on one core, one call at a time");
}

int main(void)
{
	parallel_loops();
	struct helper *h = helper_start();
	ok(h != NULL, "a helper starts");

	struct job a = { .spin = 20000000 };
	helper_run(h, task, &a);
	helper_wait(h);
	is_int(atomic_load(&a.done), 1, "helper_wait returns once the task is done (a long one)");
	ok(!pthread_equal(a.ran_on, pthread_self()), "the task ran on another thread");

	int all_once = 1;
	pthread_t first = a.ran_on;
	int same_thread = 1;
	for (int k = 0; k < 200; k++) {
		struct job b = { .spin = k % 7 };
		helper_run(h, task, &b);
		helper_wait(h);
		all_once &= atomic_load(&b.runs) == 1;
		same_thread &= pthread_equal(b.ran_on, first);
	}
	ok(all_once, "200 short tasks in a row: each ran once, done at its wait");
	ok(same_thread, "all on the helper's one thread");

	/* past the spin: the helper sleeps, and a task handed over then still runs */
	struct timespec pause = { 0, 30 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	struct job c = { .spin = 1000 };
	helper_run(h, task, &c);
	helper_wait(h);
	is_int(atomic_load(&c.runs), 1, "a task handed to a sleeping helper runs");

	/* a wait with no task, and a stop with a task not waited for */
	helper_wait(h);
	ok(1, "helper_wait with no task returns");
	struct job d = { .spin = 5000000 };
	helper_run(h, task, &d);
	helper_stop(h);
	is_int(atomic_load(&d.runs), 1, "helper_stop waits for the task handed over");

	h = helper_start();
	nanosleep(&pause, NULL);
	helper_stop(h);
	ok(1, "an idle, sleeping helper stops");
	helper_stop(NULL);
	ok(1, "helper_stop(NULL) does nothing");
	return done_testing();
}
