/* argsbench.c: how long the details panel waits for an event's args: loads each file as
 * ttrace does, then times args_store_read (the store's read and the cJSON parse that the
 * panel runs when a slice is selected) on the slice whose args come last in the file,
 * the worst case for reading from the start, and on the first and middle ones.
 *
 *   argsbench [-n RUNS] FILE...
 *
 * Prints one line per file: load seconds, the store's kind and memory, and the median and
 * largest read time of RUNS reads (default 5) of each slice. Exits 1 when a read fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers/args_json.h"
#include "parsers/load.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Times RUNS reads of S's args; sets the median and largest in ms. Returns 0, or -1. */
static int time_reads(const struct trace *t, const struct slice *s, int runs, double *median, double *worst)
{
	double ms[64];
	for (int i = 0; i < runs; i++) {
		struct event_args a;
		char *cause = NULL;
		double t0 = now();
		int rc = args_store_read(t, s, &a, &cause);
		ms[i] = (now() - t0) * 1e3;
		if (rc < 0) {
			fprintf(stderr, "argsbench: %s: %s\n", t->path, cause);
			free(cause);
			return -1;
		}
		if (a.json == NULL) {
			fprintf(stderr, "argsbench: %s: args at byte %llu do not parse\n", t->path,
			        (unsigned long long)(s->args >> 24));
			event_args_free(&a);
			return -1;
		}
		event_args_free(&a);
	}
	qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
	*median = ms[runs / 2];
	*worst = ms[runs - 1];
	return 0;
}

static int cmp_args(const void *a, const void *b)
{
	uint64_t x = (*(const struct slice *const *)a)->args, y = (*(const struct slice *const *)b)->args;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct load_options opt = { 0 };
	int runs = 5, status = 0, i = 1;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		i = 3;
	}
	if (runs < 1 || runs > 64 || i >= argc) {
		fprintf(stderr, "usage: argsbench [-n RUNS (1-64)] FILE...\n");
		return 2;
	}
	printf("%-28s %7s %-17s %9s %17s %17s %17s\n", "file", "load s", "store", "store MB", "first ms (max)",
	       "middle ms (max)", "last ms (max)");
	for (; i < argc; i++) {
		double t0 = now();
		struct trace *t = load_trace(argv[i], &opt);
		double load = now() - t0;
		const struct slice **with = NULL;
		size_t n = 0, cap = 0;
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];

		if (t->status == LOAD_FAILED) {
			fprintf(stderr, "argsbench: %s\n", t->error);
			trace_free(t);
			status = 1;
			continue;
		}
		for (uint32_t k = 0; k < t->ntracks; k++)
			for (uint32_t j = 0; j < t->tracks[k].nslices; j++)
				if (t->tracks[k].slices[j].args != 0) {
					if (n == cap) {
						cap = cap ? cap * 2 : 1024;
						with = realloc(with, cap * sizeof *with);
					}
					with[n++] = &t->tracks[k].slices[j];
				}
		if (n == 0) {
			fprintf(stderr, "argsbench: %s: no slice has args\n", argv[i]);
			status = 1;
		} else {
			const struct slice *pick[3];
			double med[3], worst[3];
			qsort(with, n, sizeof *with, cmp_args);
			pick[0] = with[0];
			pick[1] = with[n / 2];
			pick[2] = with[n - 1];
			for (int p = 0; p < 3; p++)
				if (time_reads(t, pick[p], runs, &med[p], &worst[p]) < 0) {
					status = 1;
					med[p] = worst[p] = -1;
				}
			printf("%-28s %7.3f %-17s %9.2f %8.2f (%6.2f) %8.2f (%6.2f) %8.2f (%6.2f)\n", name, load,
			       t->args != NULL ? t->args->kind : "none", (double)args_store_memory(t->args) / 1e6,
			       med[0], worst[0], med[1], worst[1], med[2], worst[2]);
		}
		free(with);
		trace_free(t);
	}
	return status;
}
