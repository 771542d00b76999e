/* map_guard.c: the table of guarded mappings and the SIGBUS handler (see map_guard.h). */
#include "lib/map_guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_GUARDED 256

/* slot states: 0 free, 1 being filled, 2 guarded */
static struct {
	_Atomic int state;
	char *base;
	size_t len;
	_Atomic bool lost;
} slots[MAX_GUARDED];
static _Atomic unsigned generation;
static _Atomic int installed;
static void (*_Atomic fallback_fn)(int);
static _Thread_local sigjmp_buf *armed;
static void (*_Atomic on_lost)(void);

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char *a = si->si_addr;
	(void)uc;
	for (int i = 0; i < MAX_GUARDED; i++) {
		if (atomic_load(&slots[i].state) != 2)
			continue;
		char *b = slots[i].base;
		if (a < b || a >= b + slots[i].len)
			continue;
		/* the whole mapping reads as zeros from now on (where the cut is is not known: one
		 * fault is enough), and the faulting read goes on */
		if (mmap(b, slots[i].len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break; /* cannot be survived: as any other fault */
		atomic_store(&slots[i].lost, true);
		atomic_fetch_add(&generation, 1);
		if (armed != NULL)
			siglongjmp(*armed, 1);
		void (*last)(void) = atomic_load(&on_lost);
		if (last != NULL)
			last();
		return;
	}
	void (*fb)(int) = atomic_load(&fallback_fn);
	if (fb != NULL) {
		fb(sig);
		return;
	}
	/* the default action: returning re-runs the faulting access, which faults again */
	signal(SIGBUS, SIG_DFL);
}

void map_guard_install(void (*fallback)(int))
{
	atomic_store(&fallback_fn, fallback);
	if (atomic_exchange(&installed, 1) != 0)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

int map_guard_add(void *base, size_t len)
{
	if (atomic_load(&installed) == 0)
		map_guard_install(atomic_load(&fallback_fn));
	for (int i = 0; i < MAX_GUARDED; i++) {
		int free_slot = 0;
		if (atomic_compare_exchange_strong(&slots[i].state, &free_slot, 1)) {
			slots[i].base = base;
			slots[i].len = len;
			atomic_store(&slots[i].lost, false);
			atomic_store(&slots[i].state, 2);
			return 0;
		}
	}
	return -1;
}

void map_guard_remove(const void *base)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (atomic_load(&slots[i].state) == 2 && slots[i].base == base) {
			atomic_store(&slots[i].state, 0);
			return;
		}
}

bool map_guard_lost(const void *base)
{
	for (int i = 0; i < MAX_GUARDED; i++)
		if (atomic_load(&slots[i].state) == 2 && slots[i].base == base)
			return atomic_load(&slots[i].lost);
	return false;
}

unsigned map_guard_generation(void) { return atomic_load(&generation); }

void map_guard_arm(sigjmp_buf *env) { armed = env; }

void map_guard_disarm(void) { armed = NULL; }

void map_guard_on_lost(void (*fn)(void)) { atomic_store(&on_lost, fn); }
