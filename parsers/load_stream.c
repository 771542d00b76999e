/* load_stream.c: a compressed file parsed in chunks on several threads (load_stream.h).
 *
 * The job's thread reads the decompressed stream into chunks of about STREAM_CHUNK bytes
 * cut where an event of the array begins, counting their newlines; WORKERS threads parse
 * chunks (each into a builder of its own, as a part); the job's thread merges finished
 * chunks in order. At most WORKERS + 1 chunks are in memory at once. */
#include "parsers/load_stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/load_part.h"
#include "parsers/load_snapshots.h"

/* Chunks hold about this many bytes of JSON. */
#define STREAM_CHUNK (1u << 20)
/* A chunk with no event boundary in this many bytes ends the chunked parse: the file is
 * parsed again in one piece, where big elements have the room they need. */
#define STREAM_CHUNK_MAX (8u << 20)

struct chunk {
	char *buf;
	size_t len, cap;
	uint64_t start;
	bool first, last;
	char *end_cause;
	uint64_t lines_before, last_nl_before;
	struct part part;
	bool done;
};

struct stream {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk **chunks; /* by index, NULL once merged */
	int nchunks, cap;
	int next_to_parse, merged;
	bool produced_all, top_is_object, failed;
	bool keep_args; /* each chunk keeps its args aside (load_keeps_args_aside) */
	/* chunk buffers parsed and given back, for the next chunks (under lock): fresh ones
	 * cost a page fault per 4 KB, the program keeping blocks this big mmapped (ui/main.c) */
	char *spare[MAX_PARTS + 2];
	size_t spare_cap[MAX_PARTS + 2];
	int nspare;
	struct job *job;
	struct trace *t;
	struct snap *snap;       /* the load's snapshots: copies of the chunks merged so far */
	struct part merged_part; /* stands for them when a snapshot asks (snap_serve) */
	uint64_t merged_bytes;   /* the JSON bytes they hold */
};

static void parse_chunk(struct stream *st, struct chunk *c)
{
	struct part *p = &c->part;
	p->job = st->job;
	p->t = c->first ? st->t : load_new_trace(st->job->path);
	p->b = c->first ? builder_new(p->t) : builder_new_part(p->t);
	p->in = input_open_mem(st->job->path, c->buf, c->len, c->start, c->end_cause);
	p->ranged = true; /* a range scan even when whole: it never waits for a large grant */
	p->range.start = c->first ? 0 : c->start;
	p->range.stop = c->last ? 0 : c->start + c->len;
	p->range.top_is_object = st->top_is_object;
	p->range.lines_known = true;
	p->range.lines_before = c->lines_before;
	p->range.last_nl_before = c->last_nl_before;
	p->range.keep_window = true;
	p->side = st->keep_args ? args_side_new(0, false) : NULL;
	/* the first chunk's store takes the others' (args_side_append): it stays open */
	bool own_side = p->side != NULL && !c->first;
	if (own_side)
		args_side_keep_buffers(p->side);
	load_part_scan(p); /* st->job has no progress: the reader counts it */
	if (own_side)      /* compressed here, on the chunk's thread, not by the merger */
		args_side_finish(p->side);
	input_close(p->in);
	p->in = NULL;
	pthread_mutex_lock(&st->lock);
	if (st->nspare < (int)(sizeof st->spare / sizeof st->spare[0])) {
		st->spare[st->nspare] = c->buf;
		st->spare_cap[st->nspare++] = c->cap;
	} else {
		free(c->buf);
	}
	pthread_mutex_unlock(&st->lock);
	c->buf = NULL;
}

static void *stream_worker(void *arg)
{
	struct stream *st = arg;
	pthread_mutex_lock(&st->lock);
	for (;;) {
		while (st->next_to_parse >= st->nchunks && !st->produced_all && !st->failed)
			pthread_cond_wait(&st->cond, &st->lock);
		if (st->failed || st->next_to_parse >= st->nchunks)
			break;
		struct chunk *c = st->chunks[st->next_to_parse++];
		pthread_mutex_unlock(&st->lock);
		parse_chunk(st, c);
		pthread_mutex_lock(&st->lock);
		c->done = true;
		if ((!c->last && c->part.res != SCAN_STOPPED) || c->part.res == SCAN_MISSED_STOP)
			st->failed = true;
		pthread_cond_broadcast(&st->cond);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* Merges the finished chunks that come next in order. Called with the lock held; drops it
 * while merging. */
static void merge_ready(struct stream *st, struct scan_stats *stats, enum scan_result *res, char **cause)
{
again:
	while (st->merged < st->nchunks && st->chunks[st->merged]->done && !st->failed) {
		struct chunk *c = st->chunks[st->merged];
		pthread_mutex_unlock(&st->lock);
		if (c->first) {
			*stats = c->part.stats;
		} else {
			builder_merge(st->chunks[0]->part.b, c->part.b);
			c->part.b = NULL;
			if (c->part.side != NULL)
				args_side_append(st->chunks[0]->part.side, c->part.side);
			c->part.side = NULL;
			for (int k = 0; k < SO__COUNT; k++)
				stats->count[k] += c->part.stats.count[k];
			stats->events += c->part.stats.events;
			stats->not_a_trace |= c->part.stats.not_a_trace;
			stats->bytes = c->part.stats.bytes;
		}
		*res = c->part.res;
		free(*cause);
		*cause = c->part.cause;
		c->part.cause = NULL;
		pthread_mutex_lock(&st->lock);
		st->merged_bytes = c->start + c->len;
		st->merged++;
	}
	if (st->snap != NULL && st->merged > 0) {
		/* the chunks merged in order are a prefix of the file: a snapshot copies them */
		unsigned want = atomic_load_explicit(&st->snap->want, memory_order_relaxed);
		if (want != st->merged_part.served) {
			pthread_mutex_unlock(&st->lock);
			st->merged_part.b = st->chunks[0]->part.b;
			snap_serve(&st->merged_part, st->snap, want, st->merged_bytes);
			pthread_mutex_lock(&st->lock);
			goto again; /* chunks done while the lock was dropped: their wake-up is past */
		}
	}
}

/* Finds the last "}, {" in BUF[0..n) and returns the offset of its '{', or 0. */
static size_t last_boundary(const char *buf, size_t n)
{
	for (size_t i = n; i-- > 1;) {
		if (buf[i] != '{')
			continue;
		size_t q = i;
		while (q > 0 && (buf[q - 1] == ' ' || buf[q - 1] == '\n' || buf[q - 1] == '\r' || buf[q - 1] == '\t'))
			q--;
		if (q == 0 || buf[q - 1] != ',')
			continue;
		q--;
		while (q > 0 && (buf[q - 1] == ' ' || buf[q - 1] == '\n' || buf[q - 1] == '\r' || buf[q - 1] == '\t'))
			q--;
		if (q > 0 && buf[q - 1] == '}')
			return i;
	}
	return 0;
}

static uint64_t newlines_in(const char *p, size_t n, uint64_t base, uint64_t *last_nl)
{
	uint64_t c = 0;
	const char *q = p, *e = p + n;
	while ((q = memchr(q, '\n', (size_t)(e - q))) != NULL) {
		c++;
		q++;
		*last_nl = base + (uint64_t)(q - p);
	}
	return c;
}

int load_stream_run(struct job *j, struct trace *t, struct input *in, int workers, struct builder **bp,
                    struct args_side **sidep, struct scan_stats *stats, enum scan_result *res, char **cause)
{
	struct stream st;
	struct job quiet = *j;
	pthread_t threads[MAX_PARTS];
	int nthreads = 0;
	char *carry = NULL;
	size_t carry_len = 0;
	uint64_t offset = 0, lines = 0, last_nl = 0, last_data = 0, last_file = 0;
	bool end = false;
	int rc = 0;

	memset(&st, 0, sizeof st);
	memset(stats, 0, sizeof *stats);
	*cause = NULL;
	*res = SCAN_IO_ERROR;
	pthread_mutex_init(&st.lock, NULL);
	pthread_cond_init(&st.cond, NULL);
	quiet.shared = NULL;
	quiet.snap = NULL; /* chunks are not parts: the job's thread serves the snapshots */
	st.snap = j->snap;
	st.merged_part.job = j; /* its cancel flag stops a snapshot's copy */
	snap_register(j->snap, in, 1);
	st.job = &quiet;
	st.t = t;
	st.top_is_object = true;
	st.keep_args = load_keeps_args_aside(t, in);
	if (workers > MAX_PARTS)
		workers = MAX_PARTS;
	for (int k = 0; k < workers; k++)
		if (pthread_create(&threads[nthreads], NULL, stream_worker, &st) == 0)
			nthreads++;
	if (nthreads == 0)
		end = true, st.failed = true;
	while (!end) {
		size_t cap = STREAM_CHUNK + carry_len + 4096, fill = carry_len;
		char *buf = NULL;
		char *err = NULL;
		pthread_mutex_lock(&st.lock);
		for (int k = 0; k < st.nspare && buf == NULL; k++) {
			if (st.spare_cap[k] >= cap) {
				buf = st.spare[k];
				cap = st.spare_cap[k];
				st.spare[k] = st.spare[st.nspare - 1];
				st.spare_cap[k] = st.spare_cap[--st.nspare];
			}
		}
		pthread_mutex_unlock(&st.lock);
		if (buf == NULL)
			buf = xmalloc(cap);
		size_t cut = 0;
		bool too_big = false;
		if (carry_len > 0)
			memcpy(buf, carry, carry_len);
		free(carry);
		carry = NULL;
		carry_len = 0;
		for (;;) {
			while (fill < cap) {
				if (j->cancel != NULL && atomic_load(j->cancel)) {
					err = xstrdup("cancelled");
					end = true;
					break;
				}
				ssize_t n = input_read(in, buf + fill, cap - fill, &err);
				if (n <= 0) {
					end = true;
					break;
				}
				fill += (size_t)n;
			}
			if (end)
				break;
			cut = last_boundary(buf, fill);
			if (cut > 0)
				break;
			if (cap * 2 > STREAM_CHUNK_MAX) {
				too_big = true;
				break;
			}
			cap *= 2; /* no boundary yet: a bigger chunk */
			buf = xrealloc(buf, cap);
		}
		if (too_big) {
			free(buf);
			free(err);
			pthread_mutex_lock(&st.lock);
			st.failed = true;
			pthread_cond_broadcast(&st.cond);
			pthread_mutex_unlock(&st.lock);
			break;
		}
		struct chunk *c = xcalloc(1, sizeof *c);
		c->buf = buf;
		c->cap = cap;
		c->start = offset;
		c->first = st.nchunks == 0;
		c->last = end;
		c->len = end ? fill : cut;
		c->end_cause = err;
		c->lines_before = lines;
		c->last_nl_before = last_nl;
		if (!end) {
			carry_len = fill - cut;
			carry = xmalloc(carry_len);
			memcpy(carry, buf + cut, carry_len);
		}
		lines += newlines_in(buf, c->len, offset, &last_nl);
		offset += c->len;
		if (c->first) {
			size_t i = 0;
			if (c->len >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb)
				i = 3;
			while (i < c->len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
				i++;
			st.top_is_object = i >= c->len || buf[i] != '[';
		}
		{
			uint64_t fo = input_file_offset(in);
			load_job_progress(j, offset - last_data, fo - last_file);
			last_data = offset;
			last_file = fo;
		}
		pthread_mutex_lock(&st.lock);
		if (st.nchunks == st.cap) {
			st.cap = st.cap ? st.cap * 2 : 64;
			st.chunks = xreallocarray(st.chunks, (size_t)st.cap, sizeof *st.chunks);
		}
		st.chunks[st.nchunks++] = c;
		pthread_cond_broadcast(&st.cond);
		/* bounded memory: wait while too many chunks are read and not yet merged */
		for (;;) {
			merge_ready(&st, stats, res, cause);
			if (st.failed || st.nchunks - st.merged <= workers + 1)
				break;
			pthread_cond_wait(&st.cond, &st.lock);
		}
		bool failed = st.failed;
		pthread_mutex_unlock(&st.lock);
		if (failed)
			break;
	}
	free(carry);
	pthread_mutex_lock(&st.lock);
	st.produced_all = true;
	pthread_cond_broadcast(&st.cond);
	while (!st.failed && st.merged < st.nchunks) {
		merge_ready(&st, stats, res, cause);
		if (st.merged < st.nchunks && !st.failed)
			pthread_cond_wait(&st.cond, &st.lock);
	}
	pthread_mutex_unlock(&st.lock);
	for (int k = 0; k < nthreads; k++)
		pthread_join(threads[k], NULL);
	if (st.failed || nthreads == 0) {
		rc = -1;
		free(*cause);
		*cause = NULL;
	}
	for (int k = 0; k < st.nchunks; k++) {
		struct chunk *c = st.chunks[k];
		/* merged chunks gave their builder and trace away; chunk 0's trace is T */
		if (k == 0 && rc == 0) {
			*bp = c->part.b;
			*sidep = c->part.side;
			c->part.side = NULL;
		} else if (c->part.b != NULL) {
			builder_abort(c->part.b);
			if (k > 0)
				trace_free(c->part.t);
		}
		args_side_free(c->part.side);
		free(c->part.cause);
		free(c->buf);
		free(c->end_cause);
		free(c);
	}
	free(st.chunks);
	for (int k = 0; k < st.nspare; k++)
		free(st.spare[k]);
	pthread_mutex_destroy(&st.lock);
	pthread_cond_destroy(&st.cond);
	return rc;
}
