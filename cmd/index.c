/* index.c: the index subcommand: loads each file with its cache written at once
 * (load_options.index_only), a few files at a time, and says what became of each.
 *
 * Under Slurm (`srun -N 8 ttrace index run/`) every task sees the same list: task
 * SLURM_PROCID of SLURM_NTASKS takes the files whose position in the sorted list is its
 * number modulo the number of tasks, so the nodes share the work instead of repeating it. */
#include "cmd/index.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/cache_dir.h"
#include "parsers/load.h"
#include "lib/escape.h"
#include "cmd/progress_line.h"
#include "cmd/trace_paths.h"

static void usage(FILE *f)
{
	fputs("Usage: ttrace index [OPTIONS] FILE|DIR...\n"
	      "Build the binary cache of each trace file (a directory: its .json, .json.gz and .json.zst\n"
	      "files), so that ttrace and its reports map it instead of parsing the file again.\n"
	      "Caches go to $XDG_CACHE_HOME/ttrace (else ~/.cache/ttrace); see ttrace(1), CACHE.\n"
	      "Under Slurm (SLURM_PROCID, SLURM_NTASKS set), each task indexes its share of the files:\n"
	      "  srun -N 8 ttrace index run/\n"
	      "\n"
	      "  -q, --quiet            print only the files that failed\n"
	      "  -h, --help             show this help and exit\n"
	      "Exit status: 0 when every cache is there, 1 when a file could not be loaded or its\n"
	      "cache not written, 2 on a usage error.\n",
	      f);
}

/* Parses the environment value NAME as a whole decimal integer in [LO, HI] into *V.
 * Returns 1 when it is set and good, 0 when unset or empty, -1 (having said why) when not
 * a number in range. */
static int env_int(const char *name, long lo, long hi, long *v)
{
	const char *s = getenv(name);
	char *end;
	if (s == NULL || s[0] == '\0')
		return 0;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' || *v < lo || *v > hi) {
		escape_say(stderr, "ttrace index: %s='%s' is not a whole number from %ld to %ld", name, s, lo, hi);
		return -1;
	}
	return 1;
}

/* This task's share under Slurm: *K of *N (0 of 1 outside Slurm). Returns -1, having said
 * why, when SLURM_PROCID or SLURM_NTASKS is set but not a task number and a task count. */
static int shard(int *k, int *n)
{
	long id = 0, count = 1;
	int a = env_int("SLURM_NTASKS", 1, 1 << 24, &count), b;
	*k = 0;
	*n = 1;
	if (a < 0 || (b = env_int("SLURM_PROCID", 0, a > 0 ? count - 1 : (1 << 24) - 1, &id)) < 0)
		return -1;
	if (a == 0 && b == 0)
		return 0;
	if (a == 0 || b == 0) {
		fprintf(stderr, "ttrace index: SLURM_%s is set without SLURM_%s: cannot tell this task's share\n",
		        a ? "NTASKS" : "PROCID", a ? "PROCID" : "NTASKS");
		return -1;
	}
	*k = (int)id;
	*n = (int)count;
	return 0;
}

static void say(const char *path, const char *what, const char *why)
{
	escape_term(stdout, path, strlen(path));
	fprintf(stdout, ": %s", what);
	if (why != NULL) {
		fputs(": ", stdout);
		escape_term(stdout, why, strlen(why));
	}
	fputc('\n', stdout);
}

int index_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quiet = false;
	int c, k, nshards, status = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default:
			escape_say(stderr, "ttrace index: unknown option '%s'", argv[optind - 1]);
			fputs("Try 'ttrace index --help' for more information.\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("ttrace index: no trace given\nTry 'ttrace index --help' for more information.\n", stderr);
		return 2;
	}
	char *dir = cache_dir_path();
	const char *off = getenv("TTRACE_NO_CACHE");
	if (dir == NULL || (off != NULL && off[0] != '\0' && strcmp(off, "0") != 0)) {
		fputs(dir == NULL ? "ttrace index: no cache directory: neither XDG_CACHE_HOME nor HOME is set\n"
		                  : "ttrace index: caching is off (TTRACE_NO_CACHE is set)\n",
		      stderr);
		free(dir);
		return 2;
	}
	free(dir);
	char *bad_env = NULL;
	if (cache_dir_check_env(&bad_env) != 0) {
		escape_say(stderr, "ttrace index: %s", bad_env);
		free(bad_env);
		return 2;
	}
	if (shard(&k, &nshards) != 0)
		return 2;
	for (int i = optind; i < argc; i++)
		if (strcmp(argv[i], "-") == 0) {
			fputs("ttrace index: standard input cannot be cached\n", stderr);
			return 2;
		}

	int n, mine = 0;
	char **files = trace_paths_expand(argv + optind, argc - optind, &n);
	cache_dir_guard_signals(); /* an interrupted index leaves no temporary file */
	char **todo = xcalloc(n ? (size_t)n : 1, sizeof *todo);
	for (int i = 0; i < n; i++) {
		if (i % nshards != k)
			continue;
		/* a FIFO or a device is not opened (that could wait for a writer): only regular
		 * files have caches */
		if (!cache_dir_wanted(files[i], true) && cache_dir_is_other(files[i])) {
			say(files[i], "not cached", "not a regular file");
			status = 1;
			continue;
		}
		todo[mine++] = files[i];
	}
	if (n == 0) {
		fputs("ttrace index: no trace file found\n", stderr);
		status = 1;
	}
	struct trace **ts = xcalloc(mine ? (size_t)mine : 1, sizeof *ts);
	struct load_options opt = { 0 };
	opt.index_only = true;
	opt.quiet = true;
	if (!quiet && isatty(STDERR_FILENO)) {
		opt.progress = progress_line_report;
		opt.progress_ctx = stderr;
	}
	opt.progress_after = 0.5;
	load_traces(todo, mine, &opt, ts);
	for (int i = 0; i < mine; i++) {
		const struct trace *t = ts[i];
		char buf[64];
		if (t->status == LOAD_FAILED) {
			const char *why = t->error != NULL ? t->error : "cannot load";
			size_t pl = strlen(t->path);
			if (strncmp(why, t->path, pl) == 0 && strncmp(why + pl, ": ", 2) == 0)
				why += pl + 2; /* the loader's message names the file: once is enough */
			say(t->path, "failed", why);
			status = 1;
		} else if (t->cache == TRACE_CACHE_READ) {
			if (!quiet)
				say(t->path, "up to date", NULL);
		} else if (t->cache == TRACE_CACHE_SAVED) {
			snprintf(buf, sizeof buf, "built in %.2f s", t->load_seconds);
			if (!quiet)
				say(t->path, buf, t->status == LOAD_TRUNCATED ? t->error : NULL);
		} else {
			say(t->path, "not cached", t->cache_note != NULL ? t->cache_note : "not a regular file");
			status = 1;
		}
	}
	for (int i = 0; i < mine; i++)
		trace_free(ts[i]);
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(todo);
	free(ts);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("ttrace index: error writing standard output\n", stderr);
		return status ? status : 2;
	}
	return status;
}
