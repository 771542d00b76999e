/* test_helper.c: lib/helper.h. Tasks run on the helper's thread, one at a time and each
 * once, helper_wait returns only when the task is done, a task handed over after the helper
 * has gone to sleep (past its spin) still runs, and helper_stop ends an idle helper. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "lib/helper.h"
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

int main(void)
{
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
