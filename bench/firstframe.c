/* firstframe.c: how long a program run in a pseudo-terminal takes to draw its first
 * screen: the time from the fork to the first appearance of MARKER in what it writes (for
 * the timeline, "q quit" of its key hints, drawn with the first frame). Then it types q
 * and waits for the program to end.
 *
 *   firstframe [-s COLSxROWS] [-m MARKER] -- CMD [ARGS...]
 *
 * Prints "first_frame_ms F exit_ms E" on stdout; exits 1 when the marker never came
 * (within 120 s) or the program could not be run. Built by bench/cache (not part of the
 * program). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *marker = "? help";
	struct winsize ws = { .ws_col = 200, .ws_row = 60 };
	int c, fd;
	while ((c = getopt(argc, argv, "+s:m:")) != -1) {
		if (c == 's' && sscanf(optarg, "%hux%hu", &ws.ws_col, &ws.ws_row) == 2)
			continue;
		if (c == 'm') {
			marker = optarg;
			continue;
		}
		fprintf(stderr, "usage: firstframe [-s COLSxROWS] [-m MARKER] -- CMD [ARGS...]\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "firstframe: no command\n");
		return 2;
	}
	if (getenv("TERM") == NULL)
		setenv("TERM", "xterm-256color", 1);
	double t0 = now_ms(), first = -1;
	pid_t pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("firstframe: forkpty");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		perror("firstframe: exec");
		_exit(127);
	}
	size_t mlen = strlen(marker), keep = 0;
	char buf[65536 + 256];
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int r = poll(&p, 1, 120000);
		if (r <= 0)
			break;
		ssize_t n = read(fd, buf + keep, sizeof buf - 256 - keep);
		if (n <= 0)
			break; /* EIO once the program ended */
		size_t len = keep + (size_t)n;
		if (first < 0 && memmem(buf, len, marker, mlen) != NULL) {
			first = now_ms() - t0;
			if (write(fd, "q", 1) != 1)
				break;
		}
		/* keep the tail, in case the marker straddles two reads */
		keep = len < mlen ? len : mlen;
		memmove(buf, buf + len - keep, keep);
	}
	int status;
	if (first < 0)
		kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	double end = now_ms() - t0;
	close(fd);
	if (first < 0) {
		fprintf(stderr, "firstframe: '%s' never appeared\n", marker);
		return 1;
	}
	printf("first_frame_ms %.1f exit_ms %.1f\n", first, end);
	return 0;
}
