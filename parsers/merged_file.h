/* merged_file.h: a trace that `ttrace merge` wrote (cmd/merge.c), read back as the ranks it
 * holds. Such a file opens with a key "ttraceMerge" before its events: each rank's number,
 * the offset its times were moved by, the base of its pids (its processes are
 * PID_BASE .. PID_BASE + MERGED_PID_STRIDE - 1), its file's name and base time. A load
 * given a merged rank (parsers/load.h, load_options.merged) reads only that rank's
 * processes, moves their times back and takes the rank's distributedInfo and base time
 * from it, so that each rank reports the figures its own file did. */
#ifndef TT_MERGED_FILE_H
#define TT_MERGED_FILE_H

#include <stdbool.h>
#include <stdint.h>

/* A rank's pids in a merged file: (its position + 1) x this + the process's place. */
#define MERGED_PID_STRIDE 100000
/* The most bytes of a file's beginning read to find its "ttraceMerge" key. */
#define MERGED_HEAD_MAX ((size_t)8 << 20)
/* The most ranks a merged file may hold (each is a parse of the whole file). */
#define MERGED_RANKS_MAX 4096

struct merged_rank {
	int32_t rank, world_size; /* distributedInfo's, -1 when the source had none */
	int64_t offset_ns;        /* its alignment: how far its clock was moved */
	int64_t shift_ns;         /* added to its times in the merged file: the offset, and the
	                           * difference of its base time and the merged file's */
	bool has_base;            /* base_ns is its file's baseTimeNanoseconds */
	int64_t base_ns;
	int64_t pid_base;       /* its pids are pid_base .. pid_base + MERGED_PID_STRIDE - 1 */
	char *backend;          /* distributedInfo's backend, or NULL */
	char *source;           /* its file's name */
	char *distributed_json; /* a distributedInfo object saying rank, world_size, backend */
	int group_pos, group_n; /* its place among the N ranks of its file (merged_expand sets them; a
	                         * rank's cache is named after its place) */
};

/* What ttrace reads of the key: its ranks (the alignment and residual are for people). */
struct merged_file {
	struct merged_rank *ranks;
	int nranks;
};

/* Reads the beginning of PATH (a regular file, plain or compressed; anything else is not
 * read at all). Returns 1 and fills *MF (release with merged_file_release) when it is a
 * merged file, 0 when it is not (or cannot be read: the load says why), -1 with an
 * allocated *CAUSE when it says it is one but its ttraceMerge key is not understood. */
int merged_file_read(const char *path, struct merged_file *mf, char **cause);

/* Frees what MF holds. */
void merged_file_release(struct merged_file *mf);

/* Whether PID (a number) belongs to rank R. */
static inline bool merged_rank_has_pid(const struct merged_rank *r, int64_t pid)
{
	return pid >= r->pid_base && pid - r->pid_base < MERGED_PID_STRIDE;
}

/* Replaces each merged file among PATHS[0..*N) by one entry per rank it holds (a copy of
 * its path each, its rank in *RANKS); other paths stay, with a NULL rank. *PATHS (an
 * allocated array of allocated strings, as cmd/trace_paths.h makes) is reallocated as
 * needed; *RANKS is allocated, *N entries, each an allocated copy: free them with
 * merged_ranks_free(*RANKS, *N). Standard input ("-") is never read here. A merged file
 * whose key is not understood stays one trace, with a warning on stderr. */
void merged_expand(char ***paths, int *n, const struct merged_rank ***ranks);

/* Frees what merged_expand allocated for RANKS[0..n). */
void merged_ranks_free(const struct merged_rank **ranks, int n);

#endif
