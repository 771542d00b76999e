/* load_snapshots.c: models of a load in progress (load_snapshots.h): when one is due, the
 * copies the parts hand over, and the thread that merges and indexes them. */
#include "parsers/load_snapshots.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/test_knobs.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "parsers/load_part.h"
#include "parsers/seekindex.h"

/* The snapshot thread's niceness after the first snapshot (Linux: per thread): the parts'
 * threads, which the whole trace waits for, come first. */
#define SNAP_NICE 10

static void snap_drop_copies(struct snap *sn)
{
	for (int k = 0; k < MAX_PARTS; k++) {
		if (sn->copy[k] != NULL) {
			builder_abort(sn->copy[k]);
			trace_free(sn->copy_t[k]);
		}
		sn->copy[k] = NULL;
		sn->copy_t[k] = NULL;
	}
}

static void snap_free(struct snap *sn)
{
	snap_drop_copies(sn);
	trace_free(sn->ready);
	pthread_mutex_destroy(&sn->lock);
	pthread_cond_destroy(&sn->cond);
	free(sn->path);
	free(sn);
}

void snap_register(struct snap *sn, struct input *in, int n)
{
	if (sn == NULL)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->plain = input_codec(in) == INPUT_PLAIN && input_file_identity(in, &sn->id);
	if (!sn->closed)
		sn->nparts = n;
	pthread_mutex_unlock(&sn->lock);
}

void snap_close(struct snap *sn)
{
	if (sn == NULL)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->closed = true;
	pthread_cond_broadcast(&sn->cond);
	pthread_mutex_unlock(&sn->lock);
}

void snap_serve(struct part *p, struct snap *sn, unsigned want, uint64_t offset)
{
	struct trace *ct;
	struct builder *c = builder_snapshot(p->b, &ct, p->job->cancel);
	if (c == NULL) { /* the load is given up */
		p->served = want;
		return;
	}
	pthread_mutex_lock(&sn->lock);
	if (!sn->closed && p->index < sn->nparts && atomic_load(&sn->want) == want && sn->copy[p->index] == NULL) {
		sn->copy[p->index] = c;
		sn->copy_t[p->index] = ct;
		sn->copy_bytes[p->index] = offset - (p->ranged ? p->range.start : 0);
		c = NULL;
		pthread_cond_broadcast(&sn->cond);
	}
	pthread_mutex_unlock(&sn->lock);
	p->served = want;
	if (c != NULL) {
		builder_abort(c);
		trace_free(ct);
	}
}

static bool snap_due(struct snap *sn)
{
	const struct snapshot_policy *pol = &sn->policy;
	double el = monotime_seconds() - sn->t0;
	uint64_t done = atomic_load(&sn->shared->file_bytes), total = sn->shared->total_file_bytes;
	double frac = total > 0 ? (double)done / (double)total : 0;
	if (sn->nparts == 0) /* DONE moves by steps of megabytes: a small file may show none */
		return false;
	if (sn->made == 0)
		return el >= pol->first_after && frac <= pol->max_fraction;
	return el - sn->last_at >= pol->every && (double)done >= (double)sn->last_bytes * pol->growth &&
	       frac <= pol->max_fraction;
}

static void *snap_main(void *arg)
{
	struct snap *sn = arg;
	pthread_mutex_lock(&sn->lock);
	while (!sn->stop && !sn->closed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&sn->cond, &sn->lock, &ts);
		if (sn->stop || sn->closed || !snap_due(sn))
			continue;
		uint64_t bytes = atomic_load(&sn->shared->file_bytes);
		snap_drop_copies(sn);
		atomic_fetch_add(&sn->want, 1);
		for (;;) {
			int have = 0;
			for (int k = 0; k < sn->nparts; k++)
				have += sn->copy[k] != NULL;
			if (sn->stop || sn->closed || have == sn->nparts)
				break;
			pthread_cond_wait(&sn->cond, &sn->lock);
		}
		if (sn->stop || sn->closed)
			break;
		struct builder *b = sn->copy[0];
		struct trace *t = sn->copy_t[0];
		struct builder *rest[MAX_PARTS];
		int n = sn->nparts;
		uint64_t held = 0;
		for (int k = 0; k < n; k++)
			held += sn->copy_bytes[k];
		for (int k = 1; k < n; k++)
			rest[k] = sn->copy[k];
		for (int k = 0; k < MAX_PARTS; k++) {
			sn->copy[k] = NULL;
			sn->copy_t[k] = NULL;
		}
		uint64_t total = sn->shared->total_file_bytes; /* the file's size */
		sn->building = true;
		pthread_mutex_unlock(&sn->lock);
		if (sn->slow_ms > 0)
			usleep(sn->slow_ms * 1000u);
		for (int k = 1; k < n; k++)
			builder_merge(b, rest[k]); /* frees the later copies */
		builder_finish(b);
		t->status = LOAD_OK;
		t->file_bytes = total;
		if (sn->plain) /* args are read back from the file, as for the whole trace */
			t->args = seek_store_new(sn->path, &sn->id, NULL);
		t->snapshot_bytes = held > 0 ? held : 1;
		if (sn->made == 0) /* the first one is awaited; later ones yield to the parse */
			setpriority(PRIO_PROCESS, (id_t)gettid(), SNAP_NICE);
		pthread_mutex_lock(&sn->lock);
		sn->building = false;
		if (sn->orphan) {
			pthread_mutex_unlock(&sn->lock);
			trace_free(t);
			snap_free(sn);
			return NULL;
		}
		trace_free(sn->ready);
		sn->ready = t;
		sn->made++;
		sn->last_at = monotime_seconds() - sn->t0;
		sn->last_bytes = bytes;
	}
	snap_drop_copies(sn);
	pthread_mutex_unlock(&sn->lock);
	return NULL;
}

struct snap *snap_start(const struct load_options *opt, const char *path, int n, uint64_t first_size,
                        struct progress_shared *session, double t0)
{
	struct snap *sn = xcalloc(1, sizeof *sn);
	pthread_mutex_init(&sn->lock, NULL);
	pthread_cond_init(&sn->cond, NULL);
	atomic_init(&sn->want, 0);
	sn->policy = opt->snapshot_policy;
	sn->path = xstrdup(path);
	sn->slow_ms = test_knobs().slow_snapshot_ms;
	sn->shared = session;
	if (n > 1) { /* snapshots of file 0 alone: its own progress */
		sn->own.total_file_bytes = first_size;
		sn->shared = &sn->own;
	}
	sn->t0 = t0;
	if (pthread_create(&sn->thread, NULL, snap_main, sn) == 0)
		return sn;
	snap_free(sn);
	return NULL;
}

void snap_end(struct snap *sn, const _Atomic bool *cancel)
{
	/* A load given up does not wait for a snapshot being indexed (seconds, on a trace of
	 * many GB): the thread is left to finish and free it. */
	pthread_mutex_lock(&sn->lock);
	sn->stop = true;
	sn->orphan = sn->building && atomic_load(cancel);
	bool orphan = sn->orphan;
	pthread_cond_broadcast(&sn->cond);
	pthread_mutex_unlock(&sn->lock);
	if (orphan) {
		pthread_detach(sn->thread);
	} else {
		pthread_join(sn->thread, NULL);
		snap_free(sn);
	}
}

struct trace *snap_take(struct snap *sn)
{
	pthread_mutex_lock(&sn->lock);
	struct trace *t = sn->ready;
	sn->ready = NULL;
	pthread_mutex_unlock(&sn->lock);
	return t;
}

bool snap_building(struct snap *sn)
{
	pthread_mutex_lock(&sn->lock);
	bool b = sn->building;
	pthread_mutex_unlock(&sn->lock);
	return b;
}
