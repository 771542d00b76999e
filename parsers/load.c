/* load.c: drives input -> scanner -> Chrome rules -> builder -> index for one file, and
 * runs several files on worker threads while the calling thread draws progress. */
#include "parsers/load.h"

#include <pthread.h>
#include <stdatomic.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "parsers/cache_dir.h"
#include "parsers/chrome_build.h"
#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "parsers/seekindex.h"
#include "src/args_side.h"
#include "src/builder.h"

struct progress_shared {
	_Atomic uint64_t data_bytes;   /* decompressed bytes scanned, all files */
	_Atomic uint64_t file_bytes;   /* file bytes consumed, all files */
	uint64_t total_file_bytes;     /* sum of sizes on disk (0 when unknown) */
};

/* Files this big, plain and seekable, are parsed in parts on several threads. Smaller
 * ones are parsed in one piece: parts save 5-10% of a 50 MB file's load (0.19-0.21 s
 * against 0.20-0.23 s) but hold 1.5-1.7 MB more at their merge, 3% of its JSON
 * (bench/RESULTS.md "v100 at a quarter of its JSON"). */
#define PARALLEL_MIN_BYTES (64u << 20)
#define MAX_PARTS 16
#define SPLIT_WINDOW (1u << 20)
/* Compressed files this big are parsed in chunks of about STREAM_CHUNK bytes of JSON. */
#define STREAM_MIN_FILE (1u << 20)
#define STREAM_CHUNK (1u << 20)
/* A chunk with no event boundary in this many bytes ends the chunked parse: the file is
 * parsed again in one piece, where big elements have the room they need. */
#define STREAM_CHUNK_MAX (8u << 20)
/* Threads loading at once, whatever the number of cores: with the scanner's and the
 * inputs' bounds (parsers/input.h, parsers/chrome_scan.h) this bounds the memory of
 * loading, apart from the traces themselves. */
#define LOAD_MAX_THREADS 64

struct job {
	const char *path;
	const struct load_options *opt;
	struct trace *out;
	struct progress_shared *shared;
	int parts;                     /* threads this file may use */
	struct snap *snap;             /* snapshots of the load in progress, or NULL */
	const _Atomic bool *cancel;    /* the load was given up: scans end at their next read */
	unsigned slow_us;              /* tests: sleep this long every 1024 events (TTRACE_TEST_SLOW_LOAD) */
	bool finished;                 /* OUT is final (under the pool's lock) */
};

/* One part of a file: its own input, scanner and builder. */
struct part {
	struct job *job;
	uint64_t last_data, last_file;
	struct trace *t;
	struct builder *b;
	struct input *in;
	struct scan_range range;
	bool ranged;
	struct scan_stats stats;
	enum scan_result res;
	char *cause;
	struct args_side *side;        /* args kept aside (see side_for), or NULL */
	pthread_t thread;
	int index;                     /* its place among the file's parts */
	unsigned served;               /* the last snapshot it gave a copy for */
	unsigned events;               /* events seen (for slow_us) */
};

static bool cancelled(const struct job *j)
{
	return j->cancel != NULL && atomic_load(j->cancel);
}

/* ---- snapshots of a load in progress -------------------------------------------------
 * While one file loads (or the first of several), a thread of the session (snap_main)
 * decides when a snapshot is due and asks for it by bumping WANT. Each part of the file, between two events, sees
 * the request and hands over a copy of its builder (builder_snapshot); when every part has,
 * the snapshot thread merges the copies in order and finishes them into a model of what
 * was read so far, which the caller takes (load_take_snapshot). Once any part has ended
 * its scan, the whole model is near: no snapshot is made after that. */
struct snap {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	_Atomic unsigned want;         /* the snapshot asked for last */
	int nparts;                    /* parts that hand over copies; 0 before the parse starts */
	bool closed;                   /* a part has ended: no more snapshots */
	bool stop;                     /* the session is ending */
	bool building;                 /* merging and indexing copies, unlocked */
	unsigned slow_ms;              /* tests: sleep this long while building (TTRACE_TEST_SLOW_SNAPSHOT) */
	bool orphan;                   /* the session ended (given up) while building: the
	                                * thread, detached, frees SN when it is done */
	struct builder *copy[MAX_PARTS];
	struct trace *copy_t[MAX_PARTS];
	uint64_t copy_bytes[MAX_PARTS]; /* the JSON bytes of its part each copy holds */
	struct trace *ready;           /* the newest snapshot, until taken */
	int made;
	double last_at;
	uint64_t last_bytes;
	struct snapshot_policy policy;
	char *path;                    /* a copy: an orphan outlives the session */
	bool plain;                    /* a plain regular file: snapshots read args back from it */
	struct input_file id;
	struct progress_shared *shared; /* the session's (one file), else OWN */
	struct progress_shared own;    /* file 0's progress in a load of several files */
	double t0;
	pthread_t thread;
};

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

/* The parse of SN's file (IN) starts with N parts (part k hands over copy k). */
static void snap_register(struct snap *sn, struct input *in, int n)
{
	if (sn == NULL)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->plain = input_codec(in) == INPUT_PLAIN && input_file_identity(in, &sn->id);
	if (!sn->closed)
		sn->nparts = n;
	pthread_mutex_unlock(&sn->lock);
}

/* No more snapshots: a part ended, or the parse did. */
static void snap_close(struct snap *sn)
{
	if (sn == NULL)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->closed = true;
	pthread_cond_broadcast(&sn->cond);
	pthread_mutex_unlock(&sn->lock);
}

/* Called by part P between events when a snapshot was asked for. */
static void snap_serve(struct part *p, struct snap *sn, unsigned want, uint64_t offset)
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

/* The scanner has one sink context: this forwards events and header keys to the
 * Chrome rules and keeps progress and problems for the part. */
struct relay {
	struct scan_sink rules;
	struct part *part;
};

static void relay_event(void *ctx, const struct scan_event *ev)
{
	struct relay *r = ctx;
	struct snap *sn = r->part->job->snap;
	if (sn != NULL) {
		unsigned want = atomic_load_explicit(&sn->want, memory_order_relaxed);
		if (want != r->part->served)
			snap_serve(r->part, sn, want, ev->offset);
	}
	if (r->part->job->slow_us > 0 && (++r->part->events & 1023) == 0)
		for (unsigned us = 0; us < r->part->job->slow_us && !cancelled(r->part->job); us += 10000)
			usleep(10000); /* a load given up ends at once, even slowed */
	/* only slices (X, and B whose args the slice keeps) show args */
	if (r->part->side != NULL && ev->args_len > 2 && ev->args_len < 0xffffff && (ev->ph == 'X' || ev->ph == 'B'))
		args_side_add(r->part->side, ev->args_offset, ev->args_text, ev->args_len);
	r->rules.event(r->rules.ctx, ev);
}

static void relay_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct relay *r = ctx;
	r->rules.header(r->rules.ctx, key, keylen, json, len);
}

/* Counts DATA decompressed and FILE bytes more read of J's file: in the session's
 * progress, and in its snapshots' when they count this file alone. */
static void add_progress(struct job *j, uint64_t data, uint64_t file)
{
	if (j->shared != NULL) {
		atomic_fetch_add(&j->shared->data_bytes, data);
		atomic_fetch_add(&j->shared->file_bytes, file);
	}
	if (j->snap != NULL && j->snap->shared == &j->snap->own) {
		atomic_fetch_add(&j->snap->own.data_bytes, data);
		atomic_fetch_add(&j->snap->own.file_bytes, file);
	}
}

static void relay_progress(void *ctx, uint64_t data_bytes, uint64_t file_bytes)
{
	struct relay *r = ctx;
	struct part *p = r->part;
	add_progress(p->job, data_bytes - p->last_data, file_bytes - p->last_file);
	p->last_data = data_bytes;
	p->last_file = file_bytes;
}

static void relay_problem(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col,
                          const char *message)
{
	struct relay *r = ctx;
	/* grouped by kind: parts merged keep the first few of each, as one scan reports them */
	trace_warn_group(r->part->t, (uint8_t)(1 + kind), SCAN_PROBLEMS_REPORTED, "%s:%llu:%llu: byte %llu: %s",
	                 r->part->job->path, (unsigned long long)line, (unsigned long long)col,
	                 (unsigned long long)offset, message);
}

static struct trace *new_trace(const char *path)
{
	struct trace *t = xcalloc(1, sizeof *t);
	strtab_init(&t->strings);
	t->path = xstrdup(path);
	t->codec = "plain";
	t->rank = -1;
	t->world_size = -1;
	t->schema_version = -1;
	return t;
}

/* Args of standard input, a pipe or a FIFO are kept up to this many bytes (tests lower it). */
static uint64_t stdin_args_max = LOAD_STDIN_ARGS_MAX;

void load_set_stdin_args_max(uint64_t bytes) { stdin_args_max = bytes; }

/* Args are kept aside for input that cannot be read back at an offset quickly (zstd: a
 * frame cannot be entered in its middle; a file of small frames drops them at the end) or
 * at all (not a regular file); plain and gzip regular files are read back. */
static bool keeps_args_aside(const struct trace *t, const struct input *in)
{
	return !t->regular || input_codec(in) == INPUT_ZSTD;
}

/* The side store of a part that scans IN for T, or NULL. BACKGROUND: compress on a thread
 * of its own, when a core is spare beside the scanner. */
static struct args_side *side_for(const struct job *j, const struct trace *t, const struct input *in, bool background)
{
	if (!keeps_args_aside(t, in))
		return NULL;
	return args_side_new(t->regular ? 0 : stdin_args_max, background && j->parts >= 2);
}

/* Gives T its args store, read back from the file when that is quick (plain; gzip through
 * its checkpoints; zstd of small frames), else SIDE. Takes SIDE; stops IN's decompression. */
/* Whether any slice of T has args to read back. */
static bool holds_args(const struct trace *t)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].args != NULL)
			return true;
	return false;
}

static void set_args_store(struct trace *t, struct input *in, struct args_side *side)
{
	struct seek_index *x = input_take_index(in);
	struct input_file id;

	if (x != NULL && !holds_args(t)) {
		/* nothing to read back (the legacy exporter writes "args": {} on every event): the
		 * seek points' windows, 0.4 MB for 96 MB of gzip, are not kept */
		seek_index_free(x);
		args_side_free(side);
		t->args = args_store_unavailable("no event of this trace has args");
		return;
	}

	if (input_file_identity(in, &id) && (x != NULL ? seek_index_quick(x) : input_codec(in) == INPUT_PLAIN)) {
		t->args = seek_store_new(t->path, &id, x);
		args_side_free(side);
		return;
	}
	seek_index_free(x);
	if (side != NULL && args_side_finish(side)) {
		t->args = args_side_store(side);
		return;
	}
	if (side != NULL) {
		char *why = stdin_args_max >= (1u << 20)
		                    ? xasprintf("args not kept for standard input or a pipe with over %llu MB of args "
		                                "(load it from a file to see them)",
		                                (unsigned long long)(stdin_args_max >> 20))
		                    : xasprintf("args not kept for standard input or a pipe with over %llu bytes of args "
		                                "(load it from a file to see them)",
		                                (unsigned long long)stdin_args_max);
		t->args = args_store_unavailable(why);
		free(why);
	}
	args_side_free(side);
}

static void scan_part(struct part *p)
{
	struct chrome_build cb;
	struct relay relay;
	struct scan_sink sink;

	chrome_build_init(&cb, p->b);
	chrome_build_sink(&cb, &relay.rules);
	relay.part = p;
	memset(&sink, 0, sizeof sink);
	sink.ctx = &relay;
	sink.event = relay_event;
	sink.header = relay_header;
	sink.progress = relay_progress;
	sink.problem = relay_problem;
	sink.cancel = p->job->cancel;
	p->res = scan_run_range(p->in, &sink, p->ranged ? &p->range : NULL, &p->stats, &p->cause);
	snap_close(p->job->snap);
	relay_progress(&relay, p->stats.bytes, input_file_offset(p->in));
}

static void *part_main(void *arg)
{
	scan_part(arg);
	return NULL;
}

/* Finds up to PARTS-1 offsets where an event of the array begins ("}, {"), evenly
 * spread; says whether the document is an object. Returns how many were found. */
static int find_splits(struct input *in, uint64_t size, int parts, uint64_t *splits, bool *top_is_object)
{
	char *buf = xmalloc(SPLIT_WINDOW + 1);
	int n = 0;
	ssize_t got = input_pread(in, buf, 4096, 0);
	size_t i = 0;

	if (got >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb && (unsigned char)buf[2] == 0xbf)
		i = 3;
	while (got > 0 && i < (size_t)got && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (got <= 0 || i >= (size_t)got || (buf[i] != '{' && buf[i] != '[')) {
		free(buf);
		return 0;
	}
	*top_is_object = buf[i] == '{';
	for (int k = 1; k < parts; k++) {
		uint64_t target = size / (uint64_t)parts * (uint64_t)k;
		got = input_pread(in, buf, SPLIT_WINDOW, target);
		if (got <= 0)
			break;
		for (size_t j = 0; j < (size_t)got; j++) {
			if (buf[j] != '}')
				continue;
			size_t q = j + 1;
			while (q < (size_t)got && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
				q++;
			if (q >= (size_t)got || buf[q] != ',')
				continue;
			q++;
			while (q < (size_t)got && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
				q++;
			if (q < (size_t)got && buf[q] == '{') {
				uint64_t at = target + q;
				if (n == 0 || at > splits[n - 1])
					splits[n++] = at;
				break;
			}
		}
	}
	free(buf);
	return n;
}

static void finish_job(struct job *j, struct trace *t, struct builder *b, struct input *in,
                       struct args_side *side, struct scan_stats *st, enum scan_result res, char *cause, double t0);

/* Starts a load again in one piece after a parallel parse was abandoned: frees *TP and
 * IN, gives the job a fresh trace in *TP and returns the reopened input, or NULL (the
 * trace then says why). */
static struct input *start_again(struct job *j, struct trace **tp, struct input *in)
{
	char *cause = NULL;
	input_close(in);
	trace_free(*tp);
	*tp = new_trace(j->path);
	j->out = *tp;
	in = input_open(j->path, &cause);
	if (in == NULL) {
		(*tp)->status = LOAD_FAILED;
		(*tp)->error = cause;
		return NULL;
	}
	(*tp)->codec = input_codec_name(input_codec(in));
	(*tp)->regular = input_file_id(in, &(*tp)->file_dev, &(*tp)->file_ino);
	return in;
}

static int run_stream(struct job *j, struct trace *t, struct input *in, int workers, struct builder **bp,
                      struct args_side **sidep, struct scan_stats *stats, enum scan_result *res, char **cause);

/* Frees the parts 0..NSPLIT of an abandoned parse, but for part 0's input. */
static void free_parts(struct part *parts, int nsplit)
{
	for (int k = 0; k <= nsplit; k++) {
		if (k > 0) {
			input_close(parts[k].in);
			trace_free(parts[k].t);
		}
		builder_abort(parts[k].b);
		free(parts[k].cause);
	}
	args_side_free(parts[0].side);
}

/* Ends a load that was given up: frees the parts (1 + NSPLIT) and IN; T says why. */
static void abandon(struct trace *t, struct input *in, struct part *parts, int nsplit)
{
	free_parts(parts, nsplit);
	input_close(in);
	t->status = LOAD_FAILED;
	t->error = xstrdup("cancelled");
}

static void parse_job(struct job *j)
{
	struct trace *t = new_trace(j->path);
	struct input *in;
	char *cause = NULL;
	double t0 = monotime_seconds();
	struct part parts[MAX_PARTS];
	struct scan_stats stats;
	enum scan_result res;
	uint64_t splits[MAX_PARTS];
	bool top_is_object = true;
	int nsplit = 0;

	j->out = t;
	in = input_open(j->path, &cause);
	if (in == NULL) {
		t->status = LOAD_FAILED;
		t->error = cause;
		return;
	}
	t->codec = input_codec_name(input_codec(in));
	t->regular = input_file_id(in, &t->file_dev, &t->file_ino);
	memset(parts, 0, sizeof parts);
	{
		/* a compressed file: parse its stream in chunks on several threads, when at
		 * least two cores are left beside the one that decompresses. Not on 2 cores,
		 * whatever the size: 1 GB .zst on the quiet 2-core VM, 6 rounds, chunks on two
		 * threads took 3.17-3.94 s and one parse thread 2.76-3.73 s, less in every
		 * round (bench/RESULTS.md "Compressed input, measured again quietly") */
		const char *force_s = getenv("TTRACE_PARTS");
		int w = force_s != NULL ? atoi(force_s) : j->parts - 1;
		if (w > 1 && input_codec(in) != INPUT_PLAIN && t->regular && /* start_again reopens it */
		    (force_s != NULL || input_file_size(in) >= STREAM_MIN_FILE)) {
			struct builder *b = NULL;
			struct args_side *side = NULL;
			if (run_stream(j, t, in, w, &b, &side, &stats, &res, &cause) == 0) {
				finish_job(j, t, b, in, side, &stats, res, cause, t0);
				return;
			}
			/* a chunk boundary was not an event boundary: start again in one piece */
			if ((in = start_again(j, &t, in)) == NULL)
				return;
		}
	}
	const char *force = getenv("TTRACE_PARTS"); /* for tests: split any file into this many parts */
	int want = force != NULL ? atoi(force) : j->parts;
	if (want > 1 && input_is_seekable(in) && (force != NULL || input_file_size(in) >= PARALLEL_MIN_BYTES))
		nsplit = find_splits(in, input_file_size(in), want < MAX_PARTS ? want : MAX_PARTS, splits, &top_is_object);
	parts[0].job = j;
	parts[0].t = t;
	parts[0].b = builder_new(t);
	parts[0].in = in;
	parts[0].side = side_for(j, t, in, true);
	if (nsplit > 0) {
		int started = 0;
		parts[0].ranged = true;
		parts[0].range.stop = splits[0];
		for (int k = 1; k <= nsplit; k++) {
			struct part *p = &parts[k];
			char *err = NULL;
			p->job = j;
			p->t = new_trace(j->path);
			p->b = builder_new_part(p->t);
			p->in = input_open(j->path, &err);
			if (p->in == NULL || input_seek(p->in, splits[k - 1]) < 0) {
				free(err);
				input_close(p->in);
				builder_abort(p->b);
				trace_free(p->t);
				nsplit = k - 1;
				break;
			}
			p->ranged = true;
			p->range.start = splits[k - 1];
			p->range.stop = k < nsplit ? splits[k] : 0;
			p->range.top_is_object = top_is_object;
			p->last_data = p->last_file = p->range.start;
		}
		if (nsplit > 0)
			parts[nsplit].range.stop = 0;
		else
			parts[0].ranged = false;
		for (int k = 0; k <= nsplit; k++)
			parts[k].index = k;
		snap_register(j->snap, in, nsplit + 1);
		for (int k = 1; k <= nsplit; k++)
			if (pthread_create(&parts[k].thread, NULL, part_main, &parts[k]) == 0)
				started = k;
			else
				break;
		scan_part(&parts[0]);
		for (int k = 1; k <= started; k++)
			pthread_join(parts[k].thread, NULL);
		if (cancelled(j)) {
			abandon(t, in, parts, nsplit);
			return;
		}
		/* a part whose element outgrew its window ends with SCAN_MISSED_STOP, the last too */
		bool whole = started == nsplit && parts[nsplit].res != SCAN_MISSED_STOP;
		for (int k = 0; k < nsplit && whole; k++)
			whole = parts[k].res == SCAN_STOPPED;
		if (nsplit > 0 && !whole && parts[0].res != SCAN_NOT_TRACE && parts[0].res != SCAN_IO_ERROR) {
			/* a split was not an event boundary: parse the file again in one piece */
			free_parts(parts, nsplit);
			memset(parts, 0, sizeof parts);
			if ((in = start_again(j, &t, in)) == NULL)
				return;
			parts[0].job = j;
			parts[0].t = t;
			parts[0].b = builder_new(t);
			parts[0].in = in;
			parts[0].side = side_for(j, t, in, true);
			nsplit = 0;
			if (j->shared != NULL) {
				/* progress restarts */
			}
			scan_part(&parts[0]);
		} else if (nsplit > 0 && !whole) {
			/* not a trace at all: the other parts mean nothing */
			for (int k = 1; k <= nsplit; k++) {
				input_close(parts[k].in);
				builder_abort(parts[k].b);
				trace_free(parts[k].t);
				free(parts[k].cause);
			}
			nsplit = 0;
		}
	} else {
		snap_register(j->snap, in, 1);
		scan_part(&parts[0]);
		if (cancelled(j)) {
			abandon(t, in, parts, 0);
			return;
		}
	}
	stats = parts[0].stats;
	res = parts[0].res;
	cause = parts[0].cause;
	for (int k = 1; k <= nsplit; k++) {
		struct part *p = &parts[k];
		builder_merge(parts[0].b, p->b);
		for (int c = 0; c < SO__COUNT; c++)
			stats.count[c] += p->stats.count[c];
		stats.events += p->stats.events;
		stats.bytes = p->stats.bytes;
		/* a later part that stopped before any event of its own (an element nested too
		 * deep, say) has not found that the file is not a trace: the earlier parts' events
		 * are kept, as a scan in one piece keeps them (found by fuzz_loader) */
		res = p->res == SCAN_NOT_TRACE && stats.events > 0 ? SCAN_TRUNCATED : p->res;
		free(cause);
		cause = p->cause;
		input_close(p->in);
	}
	finish_job(j, t, parts[0].b, in, parts[0].side, &stats, res, cause, t0);
}

/* A file is not a trace when its events array has elements and none of them is a trace
 * event (an object with a "ph"), as in [1, 2] or [{"id": 1}]; nor when it is cut before
 * its first trace event. An empty array, or an object whose traceEvents is empty, is an
 * empty trace. Marks T failed, saying why. */
static void no_trace_event(struct trace *t)
{
	uint64_t not_events = t->quality.count[Q_NOT_OBJECT] + t->quality.count[Q_MALFORMED_EVENT];
	if (t->status == LOAD_FAILED || t->events > t->count_by_ph[0])
		return;
	if (t->status == LOAD_TRUNCATED) {
		char *e = xasprintf("%s; no trace event before the cut", t->error);
		free(t->error);
		t->error = e;
	} else if (t->events + not_events > 0) {
		uint64_t n = t->events + not_events;
		if (n == 1)
			t->error = xasprintf("%s: not a Chrome trace: the only element of its events array is not a trace "
			                     "event (an object with \"ph\")", t->path);
		else
			t->error = xasprintf("%s: not a Chrome trace: none of the %llu elements of its events array is a "
			                     "trace event (an object with \"ph\")", t->path, (unsigned long long)n);
	} else {
		return;
	}
	t->status = LOAD_FAILED;
}

/* Ends a load: stats, args store and status into T, then the index. Closes IN, takes SIDE,
 * frees CAUSE. */
static void finish_job(struct job *j, struct trace *t, struct builder *b, struct input *in,
                       struct args_side *side, struct scan_stats *st, enum scan_result res, char *cause, double t0)
{
	struct scan_stats stats = *st;
	if (cancelled(j)) {
		builder_abort(b);
		args_side_free(side);
		input_close(in);
		free(cause);
		free(t->error);
		t->status = LOAD_FAILED;
		t->error = xstrdup("cancelled");
		return;
	}
	chrome_build_add_stats(b, &stats);
	t->bytes = stats.bytes;
	t->file_bytes = input_file_size(in) ? input_file_size(in) : input_file_offset(in);
	bool compressed = input_codec(in) != INPUT_PLAIN;
	set_args_store(t, in, side);
	input_close(in);
#ifdef __GLIBC__
	/* The decompressing thread's buffers, freed, stay in its malloc arena until trimmed:
	 * 0.1-0.3 MB of a 50 MB .gz trace's peak, which is the finished model's */
	if (compressed)
		malloc_trim(0);
#endif
	switch (res) {
	case SCAN_OK:
		t->status = LOAD_OK;
		break;
	case SCAN_TRUNCATED:
		t->status = LOAD_TRUNCATED;
		t->error = xasprintf("%s; kept %llu complete events", cause, (unsigned long long)stats.events);
		break;
	case SCAN_NOT_TRACE:
	case SCAN_IO_ERROR:
		t->status = LOAD_FAILED;
		t->error = cause;
		cause = NULL;
		break;
	case SCAN_STOPPED:
	case SCAN_MISSED_STOP:
		BUG("a whole-file scan ended with a part result");
	}
	free(cause);
	no_trace_event(t);
	builder_finish(b);
	/* A cut file that holds no base may have lost it (Kineto writes it after the events);
	 * it did only when its times are relative: epoch-sized times are absolute already. */
	if (t->status == LOAD_TRUNCATED && !t->has_base && t->events > 0 && !model_time_is_epoch(t->start))
		trace_warn(t, "times are relative: baseTimeNanoseconds was not read (Kineto writes it after the "
		              "events), so this file cannot be aligned with other ranks on absolute time");
	t->load_seconds = monotime_seconds() - t0;
}

/* ---- a compressed stream in chunks ---------------------------------------------------
 * The job's thread reads the decompressed stream into chunks of about STREAM_CHUNK bytes
 * cut where an event of the array begins, counting their newlines; WORKERS threads parse
 * chunks (each into a builder of its own, as a part); the job's thread merges finished
 * chunks in order. At most WORKERS + 1 chunks are in memory at once. */

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
	struct chunk **chunks;     /* by index, NULL once merged */
	int nchunks, cap;
	int next_to_parse, merged;
	bool produced_all, top_is_object, failed;
	bool keep_args;            /* each chunk keeps its args aside (side_for) */
	/* chunk buffers parsed and given back, for the next chunks (under lock): fresh ones
	 * cost a page fault per 4 KB, the program keeping blocks this big mmapped (ui/main.c) */
	char *spare[MAX_PARTS + 2];
	size_t spare_cap[MAX_PARTS + 2];
	int nspare;
	struct job *job;
	struct trace *t;
	struct snap *snap;         /* the load's snapshots: copies of the chunks merged so far */
	struct part merged_part;   /* stands for them when a snapshot asks (snap_serve) */
	uint64_t merged_bytes;     /* the JSON bytes they hold */
};

static void parse_chunk(struct stream *st, struct chunk *c)
{
	struct part *p = &c->part;
	p->job = st->job;
	p->t = c->first ? st->t : new_trace(st->job->path);
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
	scan_part(p); /* st->job has no progress: the reader counts it */
	if (own_side) /* compressed here, on the chunk's thread, not by the merger */
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

/* Returns 0 with the merged builder in *BP (on T) and the results, or -1 when a chunk
 * boundary proved not to be an event boundary (T must then be discarded). */
static int run_stream(struct job *j, struct trace *t, struct input *in, int workers, struct builder **bp,
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
	st.keep_args = keeps_args_aside(t, in);
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
			add_progress(j, offset - last_data, fo - last_file);
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

/* For ttrace index: replaces the job's trace by one that keeps only what the command
 * reports, so that a directory of big traces is indexed in bounded memory. */
static void keep_outcome(struct job *j)
{
	struct trace *t = j->out, *o = new_trace(j->path);
	o->status = t->status;
	o->error = t->error;
	o->cache = t->cache;
	o->cache_note = t->cache_note;
	o->cache_damaged = t->cache_damaged;
	o->load_seconds = t->load_seconds;
	t->error = NULL;
	t->cache_note = NULL;
	trace_free(t);
	j->out = o;
}

/* Loads one file: from its cache when a valid one is there, else by parsing it, and then
 * writes its cache (on a thread, or now for ttrace index). */
static void run_job(struct job *j)
{
	bool index_only = j->opt != NULL && j->opt->index_only;
	/* a file too small to be worth a cache still uses one that ttrace index wrote */
	bool cached = cache_dir_wanted(j->path, index_only);
	bool readable = cached || cache_dir_readable(j->path);
	struct cache_key key;
	char *note = NULL;
	bool damaged = false;
	double t0 = monotime_seconds();

	if (readable && cache_dir_key(j->path, &key, &note) != 0) {
		cached = readable = false;
		free(note);
		note = NULL;
	}
	if (readable) {
		struct trace *t = cache_dir_open(j->path, &key, &note, &damaged);
		if (t != NULL) {
			t->load_seconds = monotime_seconds() - t0;
			j->out = t;
			add_progress(j, t->bytes, key.size);
			if (index_only)
				keep_outcome(j);
			snap_close(j->snap);
			return;
		}
	}
	parse_job(j);
	snap_close(j->snap);
	struct trace *t = j->out;
	t->cache_note = note; /* why the cache was not used, until the save says more */
	t->cache_damaged = damaged;
	if (cached && t->status != LOAD_FAILED) {
		if (index_only) {
			char *cause = NULL;
			int rc = cache_dir_save(t, &key, &cause);
			t->cache = rc == 0 ? TRACE_CACHE_SAVED : TRACE_CACHE_NOT_SAVED;
			if (cause != NULL) {
				free(t->cache_note);
				t->cache_note = cause;
			}
		} else {
			cache_dir_save_async(t, &key);
		}
	}
	if (index_only)
		keep_outcome(j);
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
		p->jobs[i].finished = true;
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

struct load_session {
	struct progress_shared shared;
	struct pool pool;
	pthread_t *threads;
	int nstarted;
	double t0;
	struct load_options opt;
	struct snap *snap;
	_Atomic bool cancel;
};

/* Starts loading; CALLER_LOADS: the calling thread will load too (load_traces without
 * progress), so one thread fewer is started. */
static struct load_session *session_start(char *const *paths, int n, const struct load_options *opt,
                                           bool caller_loads)
{
	struct load_session *s = xcalloc(1, sizeof *s);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads;

	const char *slow = getenv("TTRACE_TEST_SLOW_LOAD");
	unsigned slow_us = slow != NULL ? (unsigned)strtoul(slow, NULL, 10) : 0;
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
	if (n > 0 && s->opt.snapshots && !s->opt.index_only) {
		struct snap *sn = xcalloc(1, sizeof *sn);
		pthread_mutex_init(&sn->lock, NULL);
		pthread_cond_init(&sn->cond, NULL);
		atomic_init(&sn->want, 0);
		sn->policy = s->opt.snapshot_policy;
		sn->path = xstrdup(paths[0]);
		const char *slow_snap = getenv("TTRACE_TEST_SLOW_SNAPSHOT");
		sn->slow_ms = slow_snap != NULL ? (unsigned)strtoul(slow_snap, NULL, 10) : 0;
		sn->shared = &s->shared;
		if (n > 1) { /* snapshots of file 0 alone: its own progress */
			sn->own.total_file_bytes = first_size;
			sn->shared = &sn->own;
		}
		sn->t0 = s->t0;
		if (pthread_create(&sn->thread, NULL, snap_main, sn) == 0) {
			s->snap = sn;
		} else {
			snap_free(sn);
		}
	}
	for (int i = 0; i < n; i++) {
		s->pool.jobs[i].path = paths[i];
		s->pool.jobs[i].opt = &s->opt;
		s->pool.jobs[i].shared = &s->shared;
		s->pool.jobs[i].snap = i == 0 ? s->snap : NULL;
		s->pool.jobs[i].cancel = &s->cancel;
		s->pool.jobs[i].slow_us = slow_us;
		/* cores left over when there are fewer files than cores go to parts of files */
		s->pool.jobs[i].parts = ncpu > n ? (int)(ncpu / n) : 1;
	}
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

int load_files(const struct load_session *s)
{
	return s->pool.n;
}

struct trace *load_take_snapshot(struct load_session *s)
{
	struct trace *t = NULL;
	if (s->snap == NULL)
		return NULL;
	pthread_mutex_lock(&s->snap->lock);
	t = s->snap->ready;
	s->snap->ready = NULL;
	pthread_mutex_unlock(&s->snap->lock);
	return t;
}

bool load_indexing_snapshot(struct load_session *s)
{
	bool b = false;
	if (s->snap != NULL) {
		pthread_mutex_lock(&s->snap->lock);
		b = s->snap->building;
		pthread_mutex_unlock(&s->snap->lock);
	}
	return b;
}

void load_cancel(struct load_session *s)
{
	atomic_store(&s->cancel, true);
}

void load_finish(struct load_session *s, struct trace **out)
{
	while (!load_wait(s, 0.1))
		;
	for (int i = 0; i < s->nstarted; i++)
		pthread_join(s->threads[i], NULL);
	if (s->snap != NULL) {
		/* A load given up does not wait for a snapshot being indexed (seconds, on a
		 * trace of many GB): the thread is left to finish and free it. */
		struct snap *sn = s->snap;
		pthread_mutex_lock(&sn->lock);
		sn->stop = true;
		sn->orphan = sn->building && atomic_load(&s->cancel);
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
	for (int i = 0; i < s->pool.n; i++) {
		if (out != NULL)
			out[i] = s->pool.jobs[i].out;
		else
			trace_free(s->pool.jobs[i].out);
	}
	free(s->threads);
	free(s->pool.jobs);
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
			draw_progress(opt->progress, &s->shared, el, load_files_done(s), n, false);
			shown = true;
		}
	}
	if (shown || (opt != NULL && opt->progress != NULL && opt->progress_after <= 0))
		draw_progress(opt->progress, &s->shared, monotime_seconds() - s->t0, n, n, true);
	load_finish(s, out);
}

int load_files_done(struct load_session *s)
{
	pthread_mutex_lock(&s->pool.lock);
	int d = s->pool.done;
	pthread_mutex_unlock(&s->pool.lock);
	return d;
}

void load_draw_progress(struct load_session *s, FILE *f, bool final)
{
	draw_progress(f, &s->shared, monotime_seconds() - s->t0, final ? s->pool.n : load_files_done(s), s->pool.n, final);
}
