/* load.c: loads trace files on a pool of threads, one job a file (parsers/load_job.h),
 * and the session a caller follows a background load through: files done, progress,
 * snapshots, cancel. */
#include "parsers/load.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/test_knobs.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "parsers/load_job.h"
#include "parsers/load_merged.h"
#include "parsers/load_snapshots.h"
#include "parsers/merged_file.h"

/* Threads loading at once, whatever the number of cores: with the scanner's and the
 * inputs' bounds (parsers/input.h, parsers/chrome_scan.h) this bounds the memory of
 * loading, apart from the traces themselves. */
#define LOAD_MAX_THREADS 64

struct trace *load_trace(const char *path, const struct load_options *opt)
{
	struct trace *out;
	load_traces((char *const *)&path, 1, opt, &out);
	return out;
}

struct pool {
	struct job *jobs;
	int n;
	_Atomic int next;
	int done; /* under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		int i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		struct job *j = &p->jobs[i];
		load_job_run(j);
		if (j->opt->loaded != NULL && j->out != NULL && j->out->status != LOAD_FAILED &&
		    j->out->cache_map == NULL && !j->opt->index_only && !load_job_cancelled(j))
			j->opt->loaded(j->out);
		pthread_mutex_lock(&p->lock);
		p->jobs[i].finished = true;
		p->done++;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct load_session {
	struct progress_shared shared;
	struct pool pool;
	pthread_t *threads;
	int nstarted;
	double t0;
	struct load_options opt;
	struct snap *snap;
	_Atomic bool cancel;
	struct merged_group *groups; /* the ranks of merged traces parsed at once (load_merged.h) */
	int ngroups;
};

/* Starts loading; CALLER_LOADS: the calling thread will load too (load_traces without
 * progress), so one thread fewer is started. */
static struct load_session *session_start(char *const *paths, int n, const struct load_options *opt, bool caller_loads)
{
	struct load_session *s = xcalloc(1, sizeof *s);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads;

	unsigned slow_us = test_knobs().slow_load_us;
	s->t0 = monotime_seconds();
	if (opt != NULL)
		s->opt = *opt;
	atomic_init(&s->cancel, false);
	if (ncpu > LOAD_MAX_THREADS)
		ncpu = LOAD_MAX_THREADS;
	uint64_t first_size = 0;
	for (int i = 0; i < n; i++) {
		/* stat, not open: opening a FIFO would wait for, then cut off, its writer */
		struct stat sb;
		if (s->opt.merged != NULL && s->opt.merged[i] != NULL && s->opt.merged[i]->group_pos > 0)
			continue; /* one file, read once for its ranks */
		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
			s->shared.total_file_bytes += (uint64_t)sb.st_size;
			if (i == 0)
				first_size = (uint64_t)sb.st_size;
		}
	}
	s->pool.jobs = xcalloc((size_t)n, sizeof *s->pool.jobs);
	s->pool.n = n;
	atomic_init(&s->pool.next, 0);
	s->pool.done = 0;
	pthread_mutex_init(&s->pool.lock, NULL);
	pthread_cond_init(&s->pool.cond, NULL);
	nthreads = ncpu < 1 ? 1 : (int)ncpu;
	if (nthreads > n)
		nthreads = n;
	if (n > 0 && s->opt.snapshots && !s->opt.index_only)
		s->snap = snap_start(&s->opt, paths[0], n, first_size, &s->shared, s->t0);
	for (int i = 0; i < n; i++) {
		s->pool.jobs[i].path = paths[i];
		s->pool.jobs[i].merged = s->opt.merged != NULL ? s->opt.merged[i] : NULL;
		s->pool.jobs[i].opt = &s->opt;
		s->pool.jobs[i].shared = &s->shared;
		s->pool.jobs[i].snap = i == 0 ? s->snap : NULL;
		s->pool.jobs[i].cancel = &s->cancel;
		s->pool.jobs[i].slow_us = slow_us;
		/* cores left over when there are fewer files than cores go to parts of files */
		s->pool.jobs[i].parts = ncpu > n ? (int)(ncpu / n) : 1;
	}
	s->groups = load_merged_groups(s->pool.jobs, n, &s->ngroups);
	s->nstarted = caller_loads ? nthreads - 1 : nthreads;
	s->threads = xcalloc((size_t)nthreads, sizeof *s->threads);
	for (int i = 0; i < s->nstarted; i++)
		if (pthread_create(&s->threads[i], NULL, worker, &s->pool) != 0)
			fatal("cannot start a loader thread");
	return s;
}

struct load_session *load_start(char *const *paths, int n, const struct load_options *opt)
{
	return session_start(paths, n, opt, false);
}

bool load_wait(struct load_session *s, double seconds)
{
	bool done;
	pthread_mutex_lock(&s->pool.lock);
	if (s->pool.done < s->pool.n && seconds > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long ns = (long)(seconds * 1e9);
		ts.tv_sec += ns / 1000000000;
		ts.tv_nsec += ns % 1000000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->pool.cond, &s->pool.lock, &ts);
	}
	done = s->pool.done == s->pool.n;
	pthread_mutex_unlock(&s->pool.lock);
	return done;
}

double load_fraction(const struct load_session *s, uint64_t *file_bytes, uint64_t *total)
{
	uint64_t done = atomic_load(&((struct load_session *)s)->shared.file_bytes);
	if (file_bytes != NULL)
		*file_bytes = done;
	if (total != NULL)
		*total = s->shared.total_file_bytes;
	if (s->shared.total_file_bytes == 0)
		return -1;
	double f = (double)done / (double)s->shared.total_file_bytes;
	return f > 1 ? 1 : f;
}

struct trace *load_file_done(struct load_session *s, int i)
{
	struct trace *t = NULL;
	pthread_mutex_lock(&s->pool.lock);
	if (i >= 0 && i < s->pool.n && s->pool.jobs[i].finished)
		t = s->pool.jobs[i].out;
	pthread_mutex_unlock(&s->pool.lock);
	return t;
}

int load_files(const struct load_session *s) { return s->pool.n; }

struct trace *load_take_snapshot(struct load_session *s) { return s->snap != NULL ? snap_take(s->snap) : NULL; }

bool load_indexing_snapshot(struct load_session *s) { return s->snap != NULL && snap_building(s->snap); }

void load_cancel(struct load_session *s) { atomic_store(&s->cancel, true); }

void load_finish(struct load_session *s, struct trace **out)
{
	while (!load_wait(s, 0.1))
		;
	for (int i = 0; i < s->nstarted; i++)
		pthread_join(s->threads[i], NULL);
	if (s->snap != NULL)
		snap_end(s->snap, &s->cancel);
	for (int i = 0; i < s->pool.n; i++) {
		if (out != NULL)
			out[i] = s->pool.jobs[i].out;
		else
			trace_free(s->pool.jobs[i].out);
	}
	free(s->threads);
	free(s->pool.jobs);
	load_merged_groups_free(s->groups, s->ngroups);
	pthread_mutex_destroy(&s->pool.lock);
	pthread_cond_destroy(&s->pool.cond);
	free(s);
}

void load_traces(char *const *paths, int n, const struct load_options *opt, struct trace **out)
{
	/* With no progress to draw, the calling thread loads too: one thread fewer to start
	 * (none for one file; starting one costs more than loading a small file). */
	bool caller_loads = opt == NULL || opt->progress == NULL;
	struct load_session *s = session_start(paths, n, opt, caller_loads);
	bool shown = false;

	if (caller_loads)
		worker(&s->pool);
	/* The calling thread draws progress until the workers are done. */
	while (!load_wait(s, 0.1)) {
		double el = monotime_seconds() - s->t0;
		if (opt != NULL && opt->progress != NULL && el >= opt->progress_after) {
			struct load_progress p;
			load_progress_now(s, false, &p);
			opt->progress(opt->progress_ctx, &p, false);
			shown = true;
		}
	}
	if (shown || (opt != NULL && opt->progress != NULL && opt->progress_after <= 0)) {
		struct load_progress p;
		load_progress_now(s, true, &p);
		opt->progress(opt->progress_ctx, &p, true);
	}
	load_finish(s, out);
}

int load_files_done(struct load_session *s)
{
	pthread_mutex_lock(&s->pool.lock);
	int d = s->pool.done;
	pthread_mutex_unlock(&s->pool.lock);
	return d;
}

void load_progress_now(struct load_session *s, bool final, struct load_progress *p)
{
	p->data_bytes = atomic_load(&s->shared.data_bytes);
	p->file_bytes = atomic_load(&s->shared.file_bytes);
	p->total_file_bytes = s->shared.total_file_bytes;
	p->elapsed = monotime_seconds() - s->t0;
	p->files = s->pool.n;
	p->files_done = final ? s->pool.n : load_files_done(s);
}
