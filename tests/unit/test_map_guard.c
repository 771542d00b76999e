/* test_map_guard.c: lib/map_guard.h. A guarded file mapping cut under the reader: an armed
 * read jumps back, an unarmed one reads zeros, both mark the mapping lost; a fault outside
 * any guarded mapping goes to the fallback handler; an unguarded mapping is not touched. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/map_guard.h"
#include "tests/unit/tap.h"

#define PAGES 8

static char path[] = "/tmp/ttrace-test-map-guard-XXXXXX";
static sigjmp_buf fallback_env;
static volatile sig_atomic_t fallback_calls;

static void fallback(int sig)
{
	(void)sig;
	fallback_calls++;
	siglongjmp(fallback_env, 1);
}

/* A file of PAGES pages of 'x', mapped as the cache reader maps it; LEN the mapping's size. */
static char *map_file(size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *buf = malloc((size_t)page * PAGES);
	memset(buf, 'x', (size_t)page * PAGES);
	if (write(fd, buf, (size_t)page * PAGES) < 0)
		abort();
	free(buf);
	*len = (size_t)page * PAGES;
	char *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	return m;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	int fd = mkstemp(path);
	close(fd);
	map_guard_install(fallback);

	/* armed: the read past the cut jumps back */
	char *m = map_file(&len);
	ok(map_guard_add(m, len) == 0, "a mapping is guarded");
	ok(m[5 * page] == 'x' && !map_guard_lost(m), "it reads as the file before the cut");
	unsigned gen = map_guard_generation();
	if (truncate(path, page) != 0)
		abort();
	volatile int jumped = 0;
	sigjmp_buf env;
	if (sigsetjmp(env, 1) == 0) {
		map_guard_arm(&env);
		volatile char c = m[5 * page];
		(void)c;
	} else {
		jumped = 1;
	}
	map_guard_disarm();
	ok(jumped, "cut to one page: an armed read of page 5 jumps back");
	ok(map_guard_lost(m) && map_guard_generation() == gen + 1, "the mapping is marked lost, the generation moved");
	ok(m[7 * page + 1] == 0 && m[2 * page] == 0 && m[0] == 0 && map_guard_generation() == gen + 1,
	   "the whole mapping reads as zeros now, without another fault");
	map_guard_remove(m);
	munmap(m, len);

	/* unarmed: the read goes on over zeros */
	m = map_file(&len);
	map_guard_add(m, len);
	if (truncate(path, 2 * page) != 0)
		abort();
	char c = m[6 * page + 3];
	ok(c == 0 && map_guard_lost(m), "unarmed: the read past the cut gives 0 and marks it lost");
	ok(fallback_calls == 0, "the fallback was not called");
	map_guard_remove(m);
	munmap(m, len);

	/* a mapping that is not guarded: its fault goes to the fallback */
	m = map_file(&len);
	if (truncate(path, page) != 0)
		abort();
	if (sigsetjmp(fallback_env, 1) == 0) {
		volatile char d = m[4 * page];
		(void)d;
		ok(0, "an unguarded mapping's fault reaches the fallback");
	} else {
		ok(fallback_calls == 1, "an unguarded mapping's fault reaches the fallback");
	}
	ok(!map_guard_lost(m), "and it is not marked lost");
	munmap(m, len);
	unlink(path);
	return done_testing();
}
