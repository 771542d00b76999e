/* firstframe.c: how long a program run in a pseudo-terminal takes to draw its first
 * screen: the time from the fork to the first appearance of MARKER in what it writes (for
 * the timeline, "q quit" of its key hints, drawn with the first frame). Then it types q
 * and waits for the program to end.
 *
 *   firstframe [-s COLSxROWS] [-m MARKER] [-n | -d MS] -- CMD [ARGS...]
 *
 * -d MS: type q MS milliseconds after the first frame instead of at once (quit_ms is then
 * the time from the q to the program's end: how long quitting a load midway takes).
 * -n: type nothing, wait for the program to end by itself (a timeline still loading, run
 * with TTRACE_TEST_QUIT_LOADED=1, ends once the whole trace is drawn: exit_ms is then the
 * time to the whole trace).
 *
 * Prints "first_frame_ms F exit_ms E maxrss_mb M" (the program's peak RSS; with -d also
 * "quit_ms Q") on stdout; exits 1 when the marker never came
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
#include <sys/resource.h>
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
	int no_quit = 0;
	double delay = 0, typed = -1;
	while ((c = getopt(argc, argv, "+s:m:nd:")) != -1) {
		if (c == 'n') {
			no_quit = 1;
			continue;
		}
		if (c == 'd') {
			delay = atof(optarg);
			continue;
		}
		if (c == 's' && sscanf(optarg, "%hux%hu", &ws.ws_col, &ws.ws_row) == 2)
			continue;
		if (c == 'm') {
			marker = optarg;
			continue;
		}
		fprintf(stderr, "usage: firstframe [-s COLSxROWS] [-m MARKER] [-n | -d MS] -- CMD [ARGS...]\n");
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
		int wait_ms = 120000;
		if (first >= 0 && typed < 0 && delay > 0) {
			double left = first + delay - (now_ms() - t0);
			if (left <= 0) {
				typed = now_ms() - t0;
				if (write(fd, "q", 1) != 1)
					break;
			} else {
				wait_ms = (int)left + 1;
			}
		}
		int r = poll(&p, 1, wait_ms);
		if (r == 0 && first >= 0 && typed < 0 && delay > 0)
			continue;
		if (r <= 0)
			break;
		ssize_t n = read(fd, buf + keep, sizeof buf - 256 - keep);
		if (n <= 0)
			break; /* EIO once the program ended */
		size_t len = keep + (size_t)n;
		if (first < 0 && memmem(buf, len, marker, mlen) != NULL) {
			first = now_ms() - t0;
			if (!no_quit && delay <= 0 && write(fd, "q", 1) != 1)
				break;
		}
		/* keep the tail, in case the marker straddles two reads */
		keep = len < mlen ? len : mlen;
		memmove(buf, buf + len - keep, keep);
	}
	int status;
	if (first < 0)
		kill(pid, SIGTERM);
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	wait4(pid, &status, 0, &ru);
	double end = now_ms() - t0;
	close(fd);
	if (first < 0) {
		fprintf(stderr, "firstframe: '%s' never appeared\n", marker);
		return 1;
	}
	printf("first_frame_ms %.1f exit_ms %.1f maxrss_mb %.0f", first, end, (double)ru.ru_maxrss / 1024);
	if (typed >= 0)
		printf(" quit_ms %.1f", end - typed);
	printf("\n");
	return 0;
}
