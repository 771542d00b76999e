/* load_snapshots.h: models of a load in progress (load_take_snapshot, parsers/load.h), as
 * the loader's files share them.
 *
 * While one file loads (or the first of several), a thread of the session (snap_main)
 * decides when a snapshot is due and asks for it by bumping WANT. Each part of the file,
 * between two events, sees the request and hands over a copy of its builder (snap_serve);
 * when every part has, the snapshot thread merges the copies in order and finishes them
 * into a model of what was read so far, which the caller takes (snap_take). Once any part
 * has ended its scan, the whole model is near: no snapshot is made after that. */
#ifndef TT_LOAD_SNAPSHOTS_H
#define TT_LOAD_SNAPSHOTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "parsers/input.h"
#include "parsers/load.h"
#include "parsers/load_job.h"
#include "src/builder.h"

struct part;

struct snap {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	_Atomic unsigned want; /* the snapshot asked for last */
	int nparts;            /* parts that hand over copies; 0 before the parse starts */
	bool closed;           /* a part has ended: no more snapshots */
	bool stop;             /* the session is ending */
	bool building;         /* merging and indexing copies, unlocked */
	unsigned slow_ms;      /* tests: sleep this long while building (TTRACE_TEST_SLOW_SNAPSHOT) */
	bool orphan;           /* the session ended (given up) while building: the
	                        * thread, detached, frees SN when it is done */
	struct builder *copy[MAX_PARTS];
	struct trace *copy_t[MAX_PARTS];
	uint64_t copy_bytes[MAX_PARTS]; /* the JSON bytes of its part each copy holds */
	struct trace *ready;            /* the newest snapshot, until taken */
	int made;
	double last_at;
	uint64_t last_bytes;
	struct snapshot_policy policy;
	char *path; /* a copy: an orphan outlives the session */
	bool plain; /* a plain regular file: snapshots read args back from it */
	struct input_file id;
	struct progress_shared *shared; /* the session's (one file), else OWN */
	struct progress_shared own;     /* file 0's progress in a load of several files */
	double t0;
	pthread_t thread;
};

/* Starts the snapshot thread of a load of N files whose first is PATH (FIRST_SIZE bytes on
 * disk, 0: unknown), started at T0 (monotime_seconds), with OPT's policy; it counts the
 * progress in SESSION's numbers when there is one file, else in its own. Returns NULL when
 * the thread cannot start. snap_end frees it. */
struct snap *snap_start(const struct load_options *opt, const char *path, int n, uint64_t first_size,
                        struct progress_shared *session, double t0);

/* Ends SN's thread and frees SN; when the load was given up (*CANCEL) while a snapshot is
 * being built, the thread is left to finish and free it. */
void snap_end(struct snap *sn, const _Atomic bool *cancel);

/* The parse of SN's file (IN) starts with N parts (part k hands over copy k). SN may be NULL. */
void snap_register(struct snap *sn, struct input *in, int n);

/* No more snapshots: a part ended, or the parse did. SN may be NULL. */
void snap_close(struct snap *sn);

/* Called by part P between events (at stream OFFSET) when snapshot WANT was asked for:
 * hands over a copy of P's builder. */
void snap_serve(struct part *p, struct snap *sn, unsigned want, uint64_t offset);

/* The newest snapshot made since the last call, or NULL; the caller frees it. */
struct trace *snap_take(struct snap *sn);

/* Whether a snapshot is being merged and indexed now. */
bool snap_building(struct snap *sn);

#endif
