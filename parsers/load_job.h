/* load_job.h: the load of one file (a job), as the files of the loader share it: load.c runs
 * jobs on a pool of threads, load_job.c runs one (its cache, or a parse in one piece, in
 * parts or in chunks), load_part.c scans one part, load_stream.c parses a compressed stream
 * in chunks, load_snapshots.c makes models of a load in progress. */
#ifndef TT_LOAD_JOB_H
#define TT_LOAD_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/helper.h"
#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "parsers/load.h"
#include "src/model.h"

/* The most parts (threads) one file is parsed in. */
#define MAX_PARTS 16

/* A load's progress, counted by every thread that reads (load_job_progress). */
struct progress_shared {
	_Atomic uint64_t data_bytes; /* decompressed bytes scanned, all files */
	_Atomic uint64_t file_bytes; /* file bytes consumed, all files */
	uint64_t total_file_bytes;   /* sum of sizes on disk (0 when unknown) */
};

struct snap;
struct job;

/* The ranks of one merged trace (parsers/merged_file.h) given together, loaded by one parse:
 * the first rank's job parses the file into every rank's trace (parsers/load_merged.h), the
 * others wait for it. Jobs are run in order, so the first is always taken first. */
struct merged_group {
	struct job **jobs; /* the ranks' jobs, in the merged file's order */
	int n;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done; /* every rank's trace is made (under LOCK) */
};

struct job {
	const char *path;
	const struct merged_rank *merged; /* one rank of a merged trace (load_options.merged), or NULL */
	struct merged_group *group;       /* ... loaded with the other ranks of its file given with it */
	int group_pos;                    /* its place in GROUP */
	const struct load_options *opt;
	struct trace *out;
	struct progress_shared *shared;
	int parts;                  /* threads this file may use */
	struct snap *snap;          /* snapshots of the load in progress, or NULL */
	const _Atomic bool *cancel; /* the load was given up: scans end at their next read */
	unsigned slow_us;           /* tests: sleep this long every 1024 events (TTRACE_TEST_SLOW_LOAD) */
	bool finished;              /* OUT is final (under the pool's lock) */
};

/* Whether J's load was given up. */
static inline bool load_job_cancelled(const struct job *j) { return j->cancel != NULL && atomic_load(j->cancel); }

/* Loads J's file into J->out: from its cache when a valid one is there, else by parsing
 * it, and then writes its cache (on a thread, or now for ttrace index). */
void load_job_run(struct job *j);

/* Counts DATA decompressed and FILE bytes more read of J's file: in the session's progress,
 * and in its snapshots' when they count this file alone. */
void load_job_progress(struct job *j, uint64_t data, uint64_t file);
/* As load_job_progress, for a scan that has read DATA and FILE bytes in all: counts what
 * it read since *LAST_DATA and *LAST_FILE, which it then sets to them. */
void load_job_progress_to(struct job *j, uint64_t *last_data, uint64_t *last_file, uint64_t data, uint64_t file);

/* A new empty trace of PATH, for a file or a part of one; the caller frees it. */
struct trace *load_new_trace(const char *path);

/* The pieces of a job's end, for a parse that makes several traces (parsers/load_merged.c):
 * T's args store from IN (X: IN's seek index, taken; or NULL), read back from the file when
 * that is quick, else from SIDE (taken); its status from the scan's result RES (CAUSE
 * taken; ST its counts); and the rest: a trace with no event fails, the builder B finishes
 * (the index, its work shared with helper H when not NULL), the load's time since T0. */
struct seek_index;
struct args_side;
struct builder;
void load_args_store(struct trace *t, struct input *in, struct seek_index *x, struct args_side *side);
void load_set_status(struct trace *t, enum scan_result res, char *cause, const struct scan_stats *st);
void load_finish_trace(const struct job *j, struct trace *t, struct builder *b, double t0, struct helper *h);
/* Adds the next part's scan (its counts PST, result PRES and cause PCAUSE, taken) to the
 * scan so far (*STATS, *RES, *CAUSE, whose cause it frees), as a scan in one piece would
 * have ended. */
void load_add_part(struct scan_stats *stats, enum scan_result *res, char **cause, const struct scan_stats *pst,
                   enum scan_result pres, char *pcause);
/* Marks T failed when its file held no trace event, saying why. */
void load_no_trace_event(struct trace *t);

/* Whether the args of T, read from IN, are kept aside as they are scanned (input that
 * cannot be read back at an offset quickly, or at all) rather than read back later. */
bool load_keeps_args_aside(const struct trace *t, const struct input *in);

#endif
