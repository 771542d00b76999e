/* load.h: loading trace files into models, several at once.
 *
 * Each file is read, scanned and indexed on a thread of its own (up to the number of
 * cores at a time); compressed files also get a decompression thread (parsers/input.h).
 * The caller's thread reports progress if asked; if not, it loads files too. The files of
 * the loader: load.c (the pool of threads and the session), load_job.c (one file),
 * load_part.c (one part of a file's parse), load_stream.c (a compressed file in chunks),
 * load_snapshots.c (models of a load in progress). */
#ifndef TT_LOAD_H
#define TT_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/model.h"

struct merged_rank;

/* When snapshots of a load in progress are made (load_start with one file). */
struct snapshot_policy {
	double first_after;  /* the first, this many seconds after the start */
	double every;        /* then at most one every this many seconds */
	double growth;       /* and only once this many times the bytes of the last are read */
	double max_fraction; /* none past this fraction of the file: the whole is near */
};

/* How far a load has come (the numbers of a progress line; ui/progress_line.h draws one). */
struct load_progress {
	uint64_t data_bytes;       /* decompressed bytes scanned, all files */
	uint64_t file_bytes;       /* file bytes read, all files */
	uint64_t total_file_bytes; /* the files' sizes on disk, 0 when unknown */
	double elapsed;            /* seconds since the load started */
	int files_done, files;
};

struct load_options {
	/* load_traces calls this about every 0.1 s once progress_after seconds have passed, and
	 * once more at the end with FINAL (when it was called before, or progress_after is 0);
	 * PROGRESS_CTX is its first argument. NULL: no progress. */
	void (*progress)(void *ctx, const struct load_progress *p, bool final);
	void *progress_ctx;
	double progress_after; /* seconds before progress is reported (about 0.5) */
	bool quiet;            /* no problem lines while loading */
	FILE *problems;        /* where located problems go as they are found (stderr), or NULL */
	bool index_only;       /* ttrace index: write each file's cache now, whatever its size
	                        * (parsers/cache_dir.h), and keep of each trace only its path,
	                        * status, error and what was done with its cache */
	bool snapshots;        /* load_start: make snapshots of the first file (load_take_snapshot) */
	struct snapshot_policy snapshot_policy;
	/* merged[i], when MERGED and it are not NULL: file i is that rank of a merged trace
	 * (parsers/merged_file.h): its processes, its times moved back, its distributedInfo.
	 * The ranks of one file given together, in order (merged_expand), are read by one parse
	 * (parsers/load_merged.h), each rank with a cache of its own (cache_dir_key_rank).
	 * MERGED[0..n) must outlive the load. */
	const struct merged_rank *const *merged;
	/* When not NULL: called on the loading thread with each trace a parse made usable
	 * (loaded or truncated; not one read from its cache, which a cut could take away
	 * before the caller guards it), once it is complete and before its file counts as
	 * done, e.g. to make its analyses while other files still load. The trace is the
	 * caller's to read, not to free. */
	void (*loaded)(struct trace *t);
};

/* A load reads a regular file's valid cache instead of parsing it, and writes the cache of
 * a file it parsed on a thread once the file is loaded (parsers/cache_dir.h). */

/* Loads one file. Always returns a trace (never NULL): t->status says whether it is
 * usable; t->error holds why it failed or was truncated. The caller frees it. */
struct trace *load_trace(const char *path, const struct load_options *opt);

/* Loads N files in parallel into OUT[0..n) (each as load_trace would). */
void load_traces(char *const *paths, int n, const struct load_options *opt, struct trace **out);

/* A load running in the background, for a caller that shows what is loaded so far. */
struct load_session;

/* Starts loading N files in the background (as load_traces would) and returns at once.
 * PATHS and OPT must outlive the session. */
struct load_session *load_start(char *const *paths, int n, const struct load_options *opt);
/* Waits up to SECONDS (0: not at all) for the load to end; true when every file is done. */
bool load_wait(struct load_session *s, double seconds);
/* Files done so far. */
int load_files_done(struct load_session *s);
/* The files of the load (N of load_start). */
int load_files(const struct load_session *s);
/* File I's trace once its load has ended (loaded or failed), else NULL. The session still
 * owns it: load_finish hands it out, the same pointer. */
struct trace *load_file_done(struct load_session *s, int i);
/* The fraction of the files' bytes read so far (0..1), or -1 when their size is unknown;
 * the bytes read and the total (0 when unknown) in *FILE_BYTES and *TOTAL when not NULL. */
double load_fraction(const struct load_session *s, uint64_t *file_bytes, uint64_t *total);
/* How far S has come, into *P; FINAL counts every file done (as load_traces' last report). */
void load_progress_now(struct load_session *s, bool final, struct load_progress *p);
/* The newest snapshot made since the last call, or NULL: a finished model of the events
 * of the file (the first, when there are several) read so far (t->snapshot_bytes > 0), taken when OPT->snapshots asked
 * for them (see struct snapshot_policy). It is incomplete, never wrong: every slice in it is a slice of the whole
 * trace, at its place (only nesting rows may change as parents arrive); B/E slices whose end is not yet read are left
 * out. It has no warnings or cache, and an args store only for a plain file (compressed args come with the whole
 * trace); its analyses (gaps, utilization, memory) describe only what it holds. The caller frees it. */
struct trace *load_take_snapshot(struct load_session *s);
/* Whether a snapshot is being merged and indexed now (for tests). */
bool load_indexing_snapshot(struct load_session *s);
/* Gives the load up: every scan stops at its next read (the traces then end truncated or
 * failed, saying "cancelled"), a part copying its builder for a snapshot stops, and
 * load_finish does not wait for a snapshot being indexed (its thread frees it when done).
 * load_finish must still be called. */
void load_cancel(struct load_session *s);
/* Waits for the end and frees S; the traces go to OUT[0..n) (freed when OUT is NULL). */
void load_finish(struct load_session *s, struct trace **out);

/* The args of standard input, a pipe or a FIFO, which cannot be read again, are kept in
 * memory (compressed) up to this many bytes of args text; past it, none are. */
#define LOAD_STDIN_ARGS_MAX ((uint64_t)64 << 20)
/* Sets that bound for loads started after the call; for tests. */
void load_set_stdin_args_max(uint64_t bytes);

#endif
