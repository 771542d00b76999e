/* load_job.c: the load of one file (load_job.h): from its cache, or parsed in one piece,
 * in parts on several threads (a big plain file) or in chunks (a compressed one), then its
 * args store, its status and its index; and what a parse that went wrong starts again. */
#include "parsers/load_job.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lib/helper.h"
#include "lib/monotime.h"
#include "lib/stage_clock.h"
#include "lib/test_knobs.h"
#include "lib/xalloc.h"
#include "parsers/cache_dir.h"
#include "parsers/merged_file.h"
#include "parsers/chrome_build.h"
#include "parsers/load_merged.h"
#include "parsers/load_part.h"
#include "parsers/load_snapshots.h"
#include "parsers/load_stream.h"
#include "parsers/seekindex.h"
#include "src/event_blocks.h"

/* Files this big, plain and seekable, are parsed in parts on several threads. Smaller
 * ones are parsed in one piece: parts save 5-10% of a 50 MB file's load (0.19-0.21 s
 * against 0.20-0.23 s) but hold 1.5-1.7 MB more at their merge, 3% of its JSON
 * (bench/RESULTS.md "v100 at a quarter of its JSON"). */
#define PARALLEL_MIN_BYTES (64u << 20)

struct trace *load_new_trace(const char *path)
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

void load_job_progress(struct job *j, uint64_t data, uint64_t file)
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

void load_job_progress_to(struct job *j, uint64_t *last_data, uint64_t *last_file, uint64_t data, uint64_t file)
{
	load_job_progress(j, data - *last_data, file - *last_file);
	*last_data = data;
	*last_file = file;
}

/* Args of standard input, a pipe or a FIFO are kept up to this many bytes (tests lower it). */
static uint64_t stdin_args_max = LOAD_STDIN_ARGS_MAX;

void load_set_stdin_args_max(uint64_t bytes) { stdin_args_max = bytes; }

/* Args are kept aside for input that cannot be read back at an offset quickly (zstd: a
 * frame cannot be entered in its middle; a file of small frames drops them at the end) or
 * at all (not a regular file); plain and gzip regular files are read back. */
bool load_keeps_args_aside(const struct trace *t, const struct input *in)
{
	return !t->regular || input_codec(in) == INPUT_ZSTD;
}

/* The side store of a part that scans IN for T, or NULL. BACKGROUND: compress on a thread
 * of its own, when a core is spare beside the scanner. */
static struct args_side *side_for(const struct job *j, const struct trace *t, const struct input *in, bool background)
{
	if (!load_keeps_args_aside(t, in))
		return NULL;
	return args_side_new(t->regular ? 0 : stdin_args_max, background && j->parts >= 2);
}

/* Whether any slice of T has args to read back. */
static bool holds_args(const struct trace *t)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].args != NULL)
			return true;
	return false;
}

/* Gives T its args store, read back from the file when that is quick (plain; gzip through
 * its checkpoints; zstd of small frames), else SIDE. Takes SIDE; stops IN's decompression. */
static void set_args_store(struct trace *t, struct input *in, struct args_side *side)
{
	load_args_store(t, in, input_take_index(in), side);
}

void load_args_store(struct trace *t, struct input *in, struct seek_index *x, struct args_side *side)
{
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
		char *why =
			stdin_args_max >= (1u << 20)
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

static void finish_job(struct job *j, struct trace *t, struct builder *b, struct input *in, struct args_side *side,
                       struct scan_stats *st, enum scan_result res, char *cause, double t0, struct helper *h);

/* Starts a load again in one piece after a parallel parse was abandoned: frees *TP and
 * IN, gives the job a fresh trace in *TP and returns the reopened input, or NULL (the
 * trace then says why). */
static struct input *start_again(struct job *j, struct trace **tp, struct input *in)
{
	char *cause = NULL;
	input_close(in);
	trace_free(*tp);
	*tp = load_new_trace(j->path);
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

/* Ends a load that was given up: frees the parts (1 + NSPLIT) and IN; T says why. */
static void abandon(struct trace *t, struct input *in, struct part *parts, int nsplit)
{
	load_parts_free(parts, nsplit);
	input_close(in);
	t->status = LOAD_FAILED;
	t->error = xstrdup("cancelled");
}

static void part_task(void *arg) { load_part_scan(arg); }

static void parse_job(struct job *j)
{
	struct trace *t = load_new_trace(j->path);
	struct input *in;
	char *cause = NULL;
	double t0 = monotime_seconds();
	struct part parts[MAX_PARTS];
	struct scan_stats stats;
	enum scan_result res;
	uint64_t splits[MAX_PARTS];
	bool top_is_object = true;
	int nsplit = 0;
	struct helper *h = NULL; /* parts: the second part's thread, kept for the merge and index */

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
		 * whatever the size: there chunks on two threads were slower than one parse
		 * thread in every round (bench/RESULTS.md "Compressed input, measured again
		 * quietly") */
		int force_w = test_knobs().parts;
		int w = force_w > 0 ? force_w : j->parts - 1;
		if (w > 1 && input_codec(in) != INPUT_PLAIN && t->regular && /* start_again reopens it */
		    (force_w > 0 || input_file_size(in) >= STREAM_MIN_FILE)) {
			struct builder *b = NULL;
			struct args_side *side = NULL;
			if (load_stream_run(j, t, in, w, &b, &side, &stats, &res, &cause) == 0) {
				finish_job(j, t, b, in, side, &stats, res, cause, t0, NULL);
				return;
			}
			/* a chunk boundary was not an event boundary: start again in one piece */
			if ((in = start_again(j, &t, in)) == NULL)
				return;
		}
	}
	int force = test_knobs().parts; /* for tests: split any file into this many parts */
	int want = force > 0 ? force : j->parts;
	if (want > 1 && input_is_seekable(in) && (force > 0 || input_file_size(in) >= PARALLEL_MIN_BYTES))
		nsplit = load_part_splits(in, input_file_size(in), want < MAX_PARTS ? want : MAX_PARTS, splits,
		                          &top_is_object);
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
			p->t = load_new_trace(j->path);
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
		/* the second part on a helper thread (lib/helper.h), which then shares the merge and
		 * the index; any further parts on threads of their own */
		h = helper_start();
		if (h != NULL) {
			helper_run(h, part_task, &parts[1]);
			started = 1;
		}
		for (int k = started + 1; k <= nsplit; k++)
			if (pthread_create(&parts[k].thread, NULL, load_part_main, &parts[k]) == 0)
				started = k;
			else
				break;
		load_part_scan(&parts[0]);
		if (h != NULL)
			helper_wait(h);
		for (int k = h != NULL ? 2 : 1; k <= started; k++)
			pthread_join(parts[k].thread, NULL);
		stage_clock("scan (the other parts joined)");
		if (load_job_cancelled(j)) {
			helper_stop(h);
			abandon(t, in, parts, nsplit);
			return;
		}
		/* a part whose element outgrew its window ends with SCAN_MISSED_STOP, the last too */
		bool whole = started == nsplit && parts[nsplit].res != SCAN_MISSED_STOP;
		for (int k = 0; k < nsplit && whole; k++)
			whole = parts[k].res == SCAN_STOPPED;
		if (nsplit > 0 && !whole && parts[0].res != SCAN_NOT_TRACE && parts[0].res != SCAN_IO_ERROR) {
			/* a split was not an event boundary: parse the file again in one piece */
			helper_stop(h);
			h = NULL;
			load_parts_free(parts, nsplit);
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
			load_part_scan(&parts[0]);
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
		load_part_scan(&parts[0]);
		if (load_job_cancelled(j)) {
			abandon(t, in, parts, 0);
			return;
		}
	}
	stats = parts[0].stats;
	res = parts[0].res;
	cause = parts[0].cause;
	for (int k = 1; k <= nsplit; k++) {
		struct part *p = &parts[k];
		builder_merge_helped(parts[0].b, p->b, h);
		load_add_part(&stats, &res, &cause, &p->stats, p->res, p->cause);
		input_close(p->in);
	}
	if (nsplit > 0)
		stage_clock("merge of the parts");
	finish_job(j, t, parts[0].b, in, parts[0].side, &stats, res, cause, t0, h);
	helper_stop(h);
}

/* A file is not a trace when its events array has elements and none of them is a trace
 * event (an object with a "ph"), as in [1, 2] or [{"id": 1}]; nor when it is cut before

 * empty trace. Marks T failed, saying why. */
void load_add_part(struct scan_stats *stats, enum scan_result *res, char **cause, const struct scan_stats *pst,
                   enum scan_result pres, char *pcause)
{
	for (int c = 0; c < SO__COUNT; c++)
		stats->count[c] += pst->count[c];
	stats->events += pst->events;
	stats->not_a_trace |= pst->not_a_trace;
	stats->bytes = pst->bytes;
	/* a later part that stopped before any event of its own (an element nested too deep,
	 * say) has not found that the file is not a trace: the earlier parts' events are kept,
	 * as a scan in one piece keeps them (found by fuzz_loader) */
	*res = pres == SCAN_NOT_TRACE && stats->events > 0 ? SCAN_TRUNCATED : pres;
	free(*cause);
	*cause = pcause;
}

void load_no_trace_event(struct trace *t)
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
			t->error =
				xasprintf("%s: not a Chrome trace: the only element of its events array is not a trace "
			                  "event (an object with \"ph\")",
			                  t->path);
		else
			t->error =
				xasprintf("%s: not a Chrome trace: none of the %llu elements of its events array is a "
			                  "trace event (an object with \"ph\")",
			                  t->path, (unsigned long long)n);
		t->not_a_trace = true;
	} else {
		return;
	}
	t->status = LOAD_FAILED;
}

/* Ends a load: stats, args store and status into T, then the index. Closes IN, takes SIDE,
 * frees CAUSE. */
static void finish_job(struct job *j, struct trace *t, struct builder *b, struct input *in, struct args_side *side,
                       struct scan_stats *st, enum scan_result res, char *cause, double t0, struct helper *h)
{
	struct scan_stats stats = *st;
	if (load_job_cancelled(j)) {
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
	if (res != SCAN_OK || !event_blocks_ok(t, stats.events))
		event_blocks_drop(t); /* a map short of events would crop wrongly */
	event_blocks_done(t);
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
	load_set_status(t, res, cause, &stats);
	load_finish_trace(j, t, b, t0, h);
}

void load_set_status(struct trace *t, enum scan_result res, char *cause, const struct scan_stats *st)
{
	switch (res) {
	case SCAN_OK: t->status = LOAD_OK; break;
	case SCAN_TRUNCATED:
		t->status = LOAD_TRUNCATED;
		t->error = xasprintf("%s; kept %llu complete events", cause, (unsigned long long)st->events);
		break;
	case SCAN_NOT_TRACE:
		t->not_a_trace = st->not_a_trace;
		/* fallthrough */
	case SCAN_IO_ERROR:
		t->status = LOAD_FAILED;
		t->error = cause;
		cause = NULL;
		break;
	case SCAN_STOPPED:
	case SCAN_MISSED_STOP: BUG("a whole-file scan ended with a part result");
	}
	free(cause);
}

void load_finish_trace(const struct job *j, struct trace *t, struct builder *b, double t0, struct helper *h)
{
	load_no_trace_event(t);
	builder_finish_helped(b, h);
	/* A cut file that holds no base may have lost it (Kineto writes it after the events);
	 * it did only when its times are relative: epoch-sized times are absolute already. */
	if (t->status == LOAD_TRUNCATED && !t->has_base && !t->merged && t->events > 0 &&
	    !model_time_is_epoch(t->start))
		trace_warn(t, "times are relative: baseTimeNanoseconds was not read (Kineto writes it after the "
		              "events), so this file cannot be aligned with other ranks on absolute time");
	t->load_seconds = monotime_seconds() - t0;
}

/* For ttrace index: replaces the job's trace by one that keeps only what the command
 * reports, so that a directory of big traces is indexed in bounded memory. */
static void keep_outcome(struct job *j)
{
	struct trace *t = j->out, *o = load_new_trace(j->path);
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

void load_job_run(struct job *j)
{
	if (j->group != NULL) { /* the ranks of a merged trace, parsed at once */
		load_merged_run(j);
		return;
	}
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
			load_job_progress(j, t->bytes, key.size);
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
