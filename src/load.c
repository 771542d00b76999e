/* load.c: drives input -> scanner -> builder -> index for one file, and runs several
 * files on worker threads while the calling thread draws progress. */
#include "src/load.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "src/builder.h"
#include "src/xalloc.h"

struct progress_shared {
	_Atomic uint64_t data_bytes;   /* decompressed bytes scanned, all files */
	_Atomic uint64_t file_bytes;   /* file bytes consumed, all files */
	uint64_t total_file_bytes;     /* sum of sizes on disk (0 when unknown) */
};

struct job {
	const char *path;
	const struct load_options *opt;
	struct trace *out;
	struct progress_shared *shared;
	uint64_t last_data, last_file;
	pthread_mutex_t *problem_lock;
};

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}


/* The scanner has one sink context: this forwards events and header keys to the
 * builder and keeps progress and problems for the job. */
struct relay {
	struct scan_sink builder;
	struct job *job;
};

static void relay_event(void *ctx, const struct scan_event *ev)
{
	struct relay *r = ctx;
	r->builder.event(r->builder.ctx, ev);
}

static void relay_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct relay *r = ctx;
	r->builder.header(r->builder.ctx, key, keylen, json, len);
}

static void relay_progress(void *ctx, uint64_t data_bytes, uint64_t file_bytes)
{
	struct relay *r = ctx;
	struct job *j = r->job;
	if (j->shared == NULL)
		return;
	atomic_fetch_add(&j->shared->data_bytes, data_bytes - j->last_data);
	atomic_fetch_add(&j->shared->file_bytes, file_bytes - j->last_file);
	j->last_data = data_bytes;
	j->last_file = file_bytes;
}

static void relay_problem(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col,
                          const char *message)
{
	struct relay *r = ctx;
	struct job *j = r->job;
	trace_warn(j->out, "%s:%llu:%llu: byte %llu: %s", j->path, (unsigned long long)line,
	           (unsigned long long)col, (unsigned long long)offset, message);
	(void)kind;
}

static void run_job(struct job *j)
{
	struct trace *t = xcalloc(1, sizeof *t);
	struct input *in;
	char *cause = NULL;
	double t0 = now_seconds();
	struct relay relay;
	struct scan_sink sink;
	struct scan_stats stats;
	enum scan_result res;

	strtab_init(&t->strings);
	t->path = xstrdup(j->path);
	t->codec = "plain";
	t->rank = -1;
	t->world_size = -1;
	t->schema_version = -1;
	j->out = t;
	in = input_open(j->path, &cause);
	if (in == NULL) {
		t->status = LOAD_FAILED;
		t->error = cause;
		return;
	}
	t->codec = input_codec_name(input_codec(in));

	struct builder *b = builder_new(t);
	builder_sink(b, &relay.builder);
	relay.job = j;
	memset(&sink, 0, sizeof sink);
	sink.ctx = &relay;
	sink.event = relay_event;
	sink.header = relay_header;
	sink.progress = relay_progress;
	sink.problem = relay_problem;
	res = scan_run(in, &sink, &stats, &cause);
	relay_progress(&relay, stats.bytes, input_file_offset(in));
	builder_add_scan_stats(b, &stats);
	t->file_bytes = input_file_size(in) ? input_file_size(in) : input_file_offset(in);
	input_close(in);
	switch (res) {
	case SCAN_OK:
		t->status = LOAD_OK;
		break;
	case SCAN_TRUNCATED:
		t->status = LOAD_TRUNCATED;
		t->error = cause;
		cause = NULL;
		break;
	case SCAN_NOT_TRACE:
	case SCAN_IO_ERROR:
		t->status = LOAD_FAILED;
		t->error = cause;
		cause = NULL;
		break;
	}
	free(cause);
	builder_finish(b);
	if (t->status == LOAD_TRUNCATED && !t->has_base && t->events > 0)
		trace_warn(t, "times are relative: baseTimeNanoseconds was not read (Kineto writes it after the "
		              "events), so this file cannot be aligned with other ranks on absolute time");
	t->load_seconds = now_seconds() - t0;
}

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
	int done;                      /* under lock */
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
		run_job(&p->jobs[i]);
		pthread_mutex_lock(&p->lock);
		p->done++;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static void draw_progress(FILE *f, struct progress_shared *sh, double elapsed, int done, int n, bool final)
{
	uint64_t data = atomic_load(&sh->data_bytes), file = atomic_load(&sh->file_bytes);
	double mbs = elapsed > 0 ? (double)data / 1e6 / elapsed : 0;
	if (sh->total_file_bytes > 0) {
		double pct = 100.0 * (double)file / (double)sh->total_file_bytes;
		if (pct > 100)
			pct = 100;
		fprintf(f, "\rttrace: loading %d/%d: %5.1f%%  %.0f MB at %.0f MB/s%s", done, n, pct,
		        (double)data / 1e6, mbs, final ? "\n" : "  ");
	} else {
		fprintf(f, "\rttrace: loading %d/%d: %.0f MB at %.0f MB/s%s", done, n, (double)data / 1e6, mbs,
		        final ? "\n" : "  ");
	}
	fflush(f);
}

void load_traces(char *const *paths, int n, const struct load_options *opt, struct trace **out)
{
	struct progress_shared shared;
	struct pool pool;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads;
	pthread_t *threads;
	double t0 = now_seconds();
	bool shown = false;

	memset(&shared, 0, sizeof shared);
	for (int i = 0; i < n; i++) {
		FILE *f = strcmp(paths[i], "-") == 0 ? NULL : fopen(paths[i], "rb");
		if (f != NULL) {
			if (fseeko(f, 0, SEEK_END) == 0)
				shared.total_file_bytes += (uint64_t)ftello(f);
			fclose(f);
		}
	}
	pool.jobs = xcalloc((size_t)n, sizeof *pool.jobs);
	pool.n = n;
	atomic_init(&pool.next, 0);
	pool.done = 0;
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.cond, NULL);
	for (int i = 0; i < n; i++) {
		pool.jobs[i].path = paths[i];
		pool.jobs[i].opt = opt;
		pool.jobs[i].shared = &shared;
	}
	nthreads = ncpu < 1 ? 1 : (int)ncpu;
	if (nthreads > n)
		nthreads = n;
	threads = xcalloc((size_t)nthreads, sizeof *threads);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, worker, &pool) != 0)
			fatal("cannot start a loader thread");
	/* The calling thread draws progress until the workers are done. */
	pthread_mutex_lock(&pool.lock);
	while (pool.done < n) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&pool.cond, &pool.lock, &ts);
		double el = now_seconds() - t0;
		if (pool.done < n && opt != NULL && opt->progress != NULL && el >= opt->progress_after) {
			draw_progress(opt->progress, &shared, el, pool.done, n, false);
			shown = true;
		}
	}
	pthread_mutex_unlock(&pool.lock);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	if (shown || (opt != NULL && opt->progress != NULL && opt->progress_after <= 0))
		draw_progress(opt->progress, &shared, now_seconds() - t0, n, n, true);
	for (int i = 0; i < n; i++)
		out[i] = pool.jobs[i].out;
	free(threads);
	free(pool.jobs);
	pthread_mutex_destroy(&pool.lock);
	pthread_cond_destroy(&pool.cond);
}
