/* replay_main.c: replays saved fuzz inputs through LLVMFuzzerTestOneInput without
 * libFuzzer, as a TAP test: each argument is a file, or a directory whose files (and
 * subdirectories, recursively) are replayed in sorted (byte-wise) order. A crash or
 * sanitizer report fails the run. A watchdog aborts an input that runs longer than
 * FUZZ_REPLAY_TIMEOUT seconds (60 by default; 0 for none), naming it, with a stack
 * under the sanitizers. Every input gets the targets' full oracle (fuzz_oracle.h) unless
 * FUZZ_ORACLE_EVERY says otherwise. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "tests/fuzz/fuzz_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* The sanitizers' stack printer, when linked with them. */
void __sanitizer_print_stack_trace(void) __attribute__((weak));

static int tests_run, tests_failed;
static unsigned timeout_s = 60;
static char current[4096]; /* the input being replayed, for the watchdog */

static void on_alarm(int sig)
{
	static const char msg[] = "fuzz replay: timeout: the input ran too long: ";
	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)!write(STDERR_FILENO, current, strlen(current));
	(void)!write(STDERR_FILENO, "\n", 1);
	if (__sanitizer_print_stack_trace != NULL)
		__sanitizer_print_stack_trace();
	abort();
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Reads the whole of PATH into an allocated buffer. Returns 0, or -1 with errno set. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 4096;
	uint8_t *buf;

	if (f == NULL)
		return -1;
	buf = xmalloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		fclose(f);
		free(buf);
		errno = e;
		return -1;
	}
	fclose(f);
	*data = buf;
	*size = n;
	return 0;
}

static void replay_file(const char *path)
{
	uint8_t *data;
	size_t size;

	tests_run++;
	if (read_file(path, &data, &size) != 0) {
		tests_failed++;
		printf("not ok %d - %s # cannot read: %s\n", tests_run, path, strerror(errno));
		fflush(stdout);
		return;
	}
	snprintf(current, sizeof current, "%s", path);
	alarm(timeout_s);
	LLVMFuzzerTestOneInput(data, size);
	alarm(0);
	free(data);
	printf("ok %d - %s\n", tests_run, path);
	fflush(stdout);
}

static void replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL) {
		tests_run++;
		tests_failed++;
		printf("not ok %d - %s # cannot open: %s\n", tests_run, dir, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				replay_dir(path);
			else if (S_ISREG(st.st_mode))
				replay_file(path);
		}
		free(path);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	const char *t = getenv("FUZZ_REPLAY_TIMEOUT");
	if (t != NULL && t[0] != '\0')
		timeout_s = (unsigned)strtoul(t, NULL, 10);
	fuzz_oracle_set_default(1); /* the full oracle on every saved input */
	signal(SIGALRM, on_alarm);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			replay_dir(argv[i]);
		else
			replay_file(argv[i]);
	}
	printf("1..%d\n", tests_run);
	return tests_failed ? 1 : 0;
}
