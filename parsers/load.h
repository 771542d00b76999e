/* load.h: loading trace files into models, several at once.
 *
 * Each file is read, scanned and indexed on a thread of its own (up to the number of
 * cores at a time); compressed files also get a decompression thread (parsers/input.h).
 * The caller's thread reports progress if asked; if not, it loads files too. */
#ifndef TT_LOAD_H
#define TT_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/model.h"

struct load_options {
	FILE *progress;        /* where to draw progress (a terminal), or NULL for none */
	double progress_after; /* seconds before progress appears (about 0.5) */
	bool quiet;            /* no problem lines while loading */
	FILE *problems;        /* where located problems go as they are found (stderr), or NULL */
	bool index_only;       /* ttrace index: write each file's cache now, whatever its size
	                        * (parsers/cache_dir.h), and keep of each trace only its path,
	                        * status, error and what was done with its cache */
};

/* A load reads a regular file's valid cache instead of parsing it, and writes the cache of
 * a file it parsed on a thread once the file is loaded (parsers/cache_dir.h). */

/* Loads one file. Always returns a trace (never NULL): t->status says whether it is
 * usable; t->error holds why it failed or was truncated. The caller frees it. */
struct trace *load_trace(const char *path, const struct load_options *opt);

/* Loads N files in parallel into OUT[0..n) (each as load_trace would). */
void load_traces(char *const *paths, int n, const struct load_options *opt, struct trace **out);

/* The args of standard input, a pipe or a FIFO, which cannot be read again, are kept in
 * memory (compressed) up to this many bytes of args text; past it, none are. */
#define LOAD_STDIN_ARGS_MAX ((uint64_t)64 << 20)
/* Sets that bound for loads started after the call; for tests. */
void load_set_stdin_args_max(uint64_t bytes);

#endif
