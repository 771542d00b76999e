/* load_merged.h: the ranks of a merged trace (parsers/merged_file.h) loaded by one parse of
 * the file: each event goes to the builder of the rank whose pids hold it, its time moved
 * back by the rank's shift; every header key goes to every rank, but the merged file's base
 * time, replaced by each rank's own (with its distributedInfo) from the ttraceMerge key. */
#ifndef TT_LOAD_MERGED_H
#define TT_LOAD_MERGED_H

#include "parsers/load_job.h"

/* Runs J, one job of its merged group (J->group): the group's first job parses the file
 * into every job's trace (each job's OUT), then says the group is done; the others wait for
 * that. Each rank's args are kept aside when the file is compressed (one seek index cannot
 * serve several stores). The ranks come from their caches when every one has a valid one
 * (parsers/cache_dir.h, cache_dir_key_rank), else from the parse, which then writes them. */
void load_merged_run(struct job *j);

/* Names T, one rank M of a merged trace, after its own file, and keeps its shift (for a crop
 * of it). */
struct merged_rank;
void load_name_merged(struct trace *t, const struct merged_rank *m);

/* Makes the groups of the N jobs JOBS: each run of the ranks of one merged file, given
 * together and in order (as merged_expand gives them), becomes one group; any other job of
 * a merged rank, a group of its own. Returns the groups made (*NGROUPS of them), for
 * load_merged_groups_free. */
struct merged_group *load_merged_groups(struct job *jobs, int n, int *ngroups);

/* Frees the NG groups G (their jobs are the caller's). */
void load_merged_groups_free(struct merged_group *g, int ng);

#endif
