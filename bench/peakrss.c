/*
 * peakrss.c - run a command, report its wall time and peak RSS.
 *
 *   peakrss [-o FILE] CMD ARGS...
 *
 * Prints one line "wall_s=<seconds> maxrss_kb=<KB> status=<exit>" to stderr,
 * or appends it to FILE with -o, and exits with the child's status (128+N
 * when the child was killed by signal N).  The child's own stdout/stderr are
 * left alone.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	int i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-o") == 0) {
		out = argv[i + 1];
		i += 2;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: peakrss [-o FILE] CMD ARGS...\n");
		return 2;
	}

	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "peakrss: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}

	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	for (;;) {
		pid_t r = wait4(pid, &status, 0, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("peakrss: wait4");
			return 2;
		}
	}
	double wall = now_s() - t0;

	int code;
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	else
		code = 2;

	FILE *f = stderr;
	if (out) {
		f = fopen(out, "a");
		if (!f) {
			fprintf(stderr, "peakrss: %s: %s\n", out, strerror(errno));
			f = stderr;
		}
	}
	/* ru_maxrss is in kilobytes on Linux */
	fprintf(f, "wall_s=%.3f maxrss_kb=%ld status=%d\n", wall, (long)ru.ru_maxrss, code);
	if (f != stderr)
		fclose(f);
	return code;
}
