/* load_merged.c: one parse of a merged trace into the traces of its ranks (load_merged.h). */
#include "parsers/load_merged.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lib/monotime.h"
#include "lib/parallel.h"
#include "lib/test_knobs.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "parsers/cache_dir.h"
#include "parsers/chrome_build.h"
#include "parsers/load_part.h"
#include "parsers/load_snapshots.h"
#include "parsers/merged_file.h"
#include "parsers/seekindex.h"
#include "src/args_side.h"
#include "src/event_blocks.h"

/* A rank's pids begin at BASE: the ranks by their base, to find an event's rank. */
struct base_of {
	int64_t base;
	int k;
};

/* The scan of the whole file, feeding each rank's Chrome rules. */
struct group_scan {
	struct job *leader;
	int n;
	const struct merged_rank **m; /* by rank */
	struct trace **t;
	struct scan_sink *rules;
	struct args_side **side; /* NULL entries when args are read back from the file */
	struct base_of *bases;   /* sorted by base */
	uint64_t last_data, last_file;
};

static int base_cmp(const void *a, const void *b)
{
	const struct base_of *x = a, *y = b;
	if (x->base != y->base)
		return (x->base > y->base) - (x->base < y->base);
	return (x->k > y->k) - (x->k < y->k);
}

/* The rank whose pids hold PID, or -1. */
static int rank_of(const struct group_scan *g, int64_t pid)
{
	int lo = 0, hi = g->n; /* the first base above PID */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (g->bases[mid].base <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	int64_t base = g->bases[lo - 1].base;
	while (lo > 1 && g->bases[lo - 2].base == base)
		lo--; /* two ranks with one base: the first */
	int k = g->bases[lo - 1].k;
	return merged_rank_has_pid(g->m[k], pid) ? k : -1;
}

static void group_event(void *ctx, const struct scan_event *ev)
{
	struct group_scan *g = ctx;
	if (!ev->pid.present || ev->pid.is_str)
		return; /* merge gives every event a rank's pid */
	int k = rank_of(g, ev->pid.num);
	if (k < 0)
		return;
	struct scan_event moved = *ev;
	if (moved.has_ts && !moved.ts_nonfinite)
		moved.ts = tt_sub(moved.ts, g->m[k]->shift_ns);
	/* only slices (X, and B whose args the slice keeps) show args */
	if (g->side[k] != NULL && ev->args_len > 2 && ev->args_len < 0xffffff && (ev->ph == 'X' || ev->ph == 'B'))
		args_side_add(g->side[k], ev->args_offset, ev->args_text, ev->args_len);
	g->rules[k].event(g->rules[k].ctx, &moved);
}

static void group_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct group_scan *g = ctx;
	if (keylen == 11 && memcmp(key, "ttraceMerge", 11) == 0) {
		/* each rank's distributedInfo and base time, which the merged file keeps here */
		for (int k = 0; k < g->n; k++) {
			const struct merged_rank *m = g->m[k];
			g->rules[k].header(g->rules[k].ctx, "distributedInfo", 15, m->distributed_json,
			                   strlen(m->distributed_json));
			char base[32];
			if (m->has_base)
				g->rules[k].header(
					g->rules[k].ctx, "baseTimeNanoseconds", 19, base,
					(uint64_t)snprintf(base, sizeof base, "%lld", (long long)m->base_ns));
		}
		return;
	}
	if (keylen == 19 && memcmp(key, "baseTimeNanoseconds", 19) == 0)
		return; /* the merged file's: the first rank's */
	for (int k = 0; k < g->n; k++)
		g->rules[k].header(g->rules[k].ctx, key, keylen, json, len);
}

static void group_progress(void *ctx, uint64_t data_bytes, uint64_t file_bytes)
{
	struct group_scan *g = ctx;
	load_job_progress_to(g->leader, &g->last_data, &g->last_file, data_bytes, file_bytes);
}

static void group_problem(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col,
                          const char *message)
{
	struct group_scan *g = ctx;
	/* a problem of the file is every rank's */
	for (int k = 0; k < g->n; k++)
		trace_warn_group(g->t[k], (uint8_t)(1 + kind), SCAN_PROBLEMS_REPORTED, "%s:%llu:%llu: byte %llu: %s",
		                 g->leader->path, (unsigned long long)line, (unsigned long long)col,
		                 (unsigned long long)offset, message);
}

void load_name_merged(struct trace *t, const struct merged_rank *m)
{
	const char *src = m->source != NULL ? m->source : "?";
	size_t n = strlen(t->path) + strlen(src) + 40;
	t->name = xmalloc(n);
	if (m->source != NULL)
		snprintf(t->name, n, "%s [%s]", t->path, src);
	else
		snprintf(t->name, n, "%s [rank %d]", t->path, m->rank);
	t->merged = true;
	t->merged_pos = m->group_pos;
	t->merged_shift = m->shift_ns;
}

/* The end of each rank's load once the file is read, shared by the threads that make them. */
struct group_end {
	struct job *j;
	struct group_scan *g;
	struct builder **b;
	struct input *in; /* no longer read: its codec and identity */
	const struct scan_stats *stats;
	enum scan_result res;
	const char *cause;
	double t0;
	bool cancelled;
	uint64_t file_bytes;
};

/* Rank K's end (its index), on one of parallel_for's threads. */
static void end_rank(void *arg, int k)
{
	struct group_end *e = arg;
	struct trace *t = e->g->t[k];
	if (e->cancelled) {
		builder_abort(e->b[k]);
		args_side_free(e->g->side[k]);
		t->status = LOAD_FAILED;
		t->error = xstrdup("cancelled");
		return;
	}
	chrome_build_add_stats(e->b[k], e->stats);
	t->bytes = e->stats->bytes;
	event_blocks_drop(t); /* a map of the file's blocks for one rank: crop reads the file */
	event_blocks_done(t);
	t->file_bytes = e->file_bytes;
	load_args_store(t, e->in, NULL, e->g->side[k]);
	load_set_status(t, e->res, e->cause != NULL ? xstrdup(e->cause) : NULL, e->stats);
	load_finish_trace(e->j, t, e->b[k], e->t0, NULL);
}

/* A big plain merged file is parsed in parts, as a big trace is (parsers/load_job.c):
 * from this size on, on each core. */
#define GROUP_PARALLEL_MIN ((uint64_t)64 << 20)

/* One part of a group's scan: a range of the file and a builder for each rank. The first
 * part builds the ranks' own traces; the others, traces of their own that builder_merge
 * appends to the first's. */
struct gpart {
	struct group_scan g; /* m and bases shared with the first part */
	struct builder **b;
	struct chrome_build *cb;
	struct input *in;
	bool ranged;
	struct scan_range range;
	struct scan_stats stats;
	enum scan_result res;
	char *cause;
	pthread_t th;
};

/* Gives part P a builder, Chrome rules and (ASIDE) an args store for each of the N ranks,
 * over P->g.t (LATER: a part after the first). */
static void gpart_builders(struct gpart *p, int n, bool aside, bool later)
{
	p->b = xcalloc((size_t)n, sizeof *p->b);
	p->cb = xcalloc((size_t)n, sizeof *p->cb);
	for (int k = 0; k < n; k++) {
		p->b[k] = later ? builder_new_part(p->g.t[k]) : builder_new(p->g.t[k]);
		chrome_build_init(&p->cb[k], p->b[k]);
		chrome_build_sink(&p->cb[k], &p->g.rules[k]);
		p->g.side[k] = aside ? args_side_new(0, false) : NULL;
	}
}

static void gpart_scan(struct gpart *p, const _Atomic bool *cancel)
{
	struct scan_sink sink = { 0 };
	sink.ctx = &p->g;
	sink.event = group_event;
	sink.header = group_header;
	sink.progress = group_progress;
	sink.problem = group_problem;
	sink.cancel = cancel;
	p->res = scan_run_range(p->in, &sink, p->ranged ? &p->range : NULL, &p->stats, &p->cause);
	group_progress(&p->g, p->stats.bytes, input_file_offset(p->in));
}

static void *gpart_main(void *arg)
{
	struct gpart *p = arg;
	gpart_scan(p, p->g.leader->cancel);
	return NULL;
}

/* Frees what part P holds but its input (LATER: its traces and builders too; else the
 * builders are left to the caller). */
static void gpart_free(struct gpart *p, int n, bool later)
{
	for (int k = 0; k < n; k++) {
		if (later) {
			if (p->b != NULL && p->b[k] != NULL)
				builder_abort(p->b[k]);
			trace_free(p->g.t[k]);
		}
		args_side_free(p->g.side[k]);
	}
	free(p->b);
	free(p->cb);
	free(p->g.t);
	free(p->g.rules);
	free(p->g.side);
	free(p->cause);
}

/* The later parts of the first part P0's scan of IN: NSPLIT of them, at SPLITS, each on a
 * thread while the caller scans P0. Returns how many were started (their scans joined
 * by gparts_join). */
static int gparts_start(struct gpart *p0, struct gpart *parts, int nsplit, const uint64_t *splits, bool top_is_object,
                        int n, const char *path)
{
	for (int q = 0; q < nsplit; q++) {
		struct gpart *p = &parts[q];
		char *err = NULL;
		p->g = p0->g;
		p->g.t = xcalloc((size_t)n, sizeof *p->g.t);
		p->g.rules = xcalloc((size_t)n, sizeof *p->g.rules);
		p->g.side = xcalloc((size_t)n, sizeof *p->g.side);
		for (int k = 0; k < n; k++)
			p->g.t[k] = load_new_trace(path);
		gpart_builders(p, n, false, true);
		p->in = input_open(path, &err);
		free(err);
		if (p->in == NULL || input_seek(p->in, splits[q]) < 0) {
			input_close(p->in);
			gpart_free(p, n, true);
			return q; /* the parts before it stand for the rest: the last reads to the end */
		}
		p->ranged = true;
		p->range.start = splits[q];
		p->range.stop = q + 1 < nsplit ? splits[q + 1] : 0;
		p->range.top_is_object = top_is_object;
		p->g.last_data = p->g.last_file = splits[q];
	}
	return nsplit;
}

/* Parses the file of group G (its first job J) into every rank's trace. */
static void parse_group(struct job *j, struct merged_group *gr)
{
	int n = gr->n;
	double t0 = monotime_seconds();
	struct gpart p0 = { .g = { .leader = j, .n = n } };
	struct group_scan *g = &p0.g;
	g->m = xcalloc((size_t)n, sizeof *g->m);
	g->t = xcalloc((size_t)n, sizeof *g->t);
	g->rules = xcalloc((size_t)n, sizeof *g->rules);
	g->side = xcalloc((size_t)n, sizeof *g->side);
	g->bases = xcalloc((size_t)n, sizeof *g->bases);
	for (int k = 0; k < n; k++) {
		g->m[k] = gr->jobs[k]->merged;
		g->t[k] = gr->jobs[k]->out = load_new_trace(j->path);
		load_name_merged(g->t[k], g->m[k]);
		g->bases[k] = (struct base_of){ g->m[k]->pid_base, k };
	}
	qsort(g->bases, (size_t)n, sizeof *g->bases, base_cmp);
	struct input *in = input_open(j->path, &p0.cause);
	if (in == NULL) {
		for (int k = 0; k < n; k++) {
			g->t[k]->status = LOAD_FAILED;
			g->t[k]->error = xstrdup(p0.cause);
		}
		goto out;
	}
	p0.in = in;
	for (int k = 0; k < n; k++) {
		g->t[k]->codec = input_codec_name(input_codec(in));
		g->t[k]->regular = input_file_id(in, &g->t[k]->file_dev, &g->t[k]->file_ino);
	}
	/* a compressed file: the args aside, each rank's (a seek index serves one store) */
	bool aside = input_codec(in) != INPUT_PLAIN || load_keeps_args_aside(g->t[0], in);
	gpart_builders(&p0, n, aside, false);
	/* a big plain file: in parts, one a core (the group's other jobs wait) */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int force = test_knobs().parts, want = force > 0 ? force : (int)ncpu, nsplit = 0, started = 0;
	uint64_t splits[MAX_PARTS];
	bool top_is_object = true;
	if (!aside && want > 1 && input_is_seekable(in) && (force > 0 || input_file_size(in) >= GROUP_PARALLEL_MIN))
		nsplit = load_part_splits(in, input_file_size(in), want < MAX_PARTS ? want : MAX_PARTS, splits,
		                          &top_is_object);
	struct gpart parts[MAX_PARTS];
	memset(parts, 0, sizeof parts);
	if (nsplit > 0) {
		int got = gparts_start(&p0, parts, nsplit, splits, top_is_object, n, j->path);
		if (got > 0 && got < nsplit)
			parts[got - 1].range.stop = 0; /* the last part that opened reads to the end */
		nsplit = got;
	}
	for (int q = 0; q < nsplit; q++)
		if (pthread_create(&parts[q].th, NULL, gpart_main, &parts[q]) == 0)
			started = q + 1;
		else
			break;
	if (nsplit > 0) {
		p0.ranged = true;
		p0.range.stop = splits[0];
	}
	gpart_scan(&p0, j->cancel);
	for (int q = 0; q < started; q++)
		pthread_join(parts[q].th, NULL);
	if (nsplit > 0) {
		/* every part stopped where the next begins, and the last read to the end */
		bool whole = started == nsplit && parts[nsplit - 1].res != SCAN_MISSED_STOP && p0.res == SCAN_STOPPED;
		for (int q = 0; q + 1 < nsplit && whole; q++)
			whole = parts[q].res == SCAN_STOPPED;
		bool not_trace = p0.res == SCAN_NOT_TRACE || p0.res == SCAN_IO_ERROR;
		if (!whole && !load_job_cancelled(j) && !not_trace) {
			/* a split was not an event boundary: parse the file again in one piece */
			for (int q = 0; q < nsplit; q++) {
				input_close(parts[q].in);
				gpart_free(&parts[q], n, true);
			}
			for (int k = 0; k < n; k++) {
				builder_abort(p0.b[k]);
				args_side_free(g->side[k]);
				trace_free(g->t[k]);
				g->t[k] = gr->jobs[k]->out = load_new_trace(j->path);
				load_name_merged(g->t[k], g->m[k]);
				g->t[k]->regular = input_file_id(in, &g->t[k]->file_dev, &g->t[k]->file_ino);
			}
			free(p0.b);
			free(p0.cb);
			p0.b = NULL;
			p0.cb = NULL;
			free(p0.cause);
			p0.cause = NULL;
			input_close(in);
			char *err = NULL;
			if ((in = p0.in = input_open(j->path, &err)) == NULL) {
				for (int k = 0; k < n; k++) {
					g->t[k]->status = LOAD_FAILED;
					g->t[k]->error = xstrdup(err);
				}
				free(err);
				goto out;
			}
			gpart_builders(&p0, n, false, false);
			p0.ranged = false;
			g->last_data = g->last_file = 0;
			nsplit = 0;
			gpart_scan(&p0, j->cancel);
		}
	}
	/* the parts appended to the first, in order */
	struct scan_stats stats = p0.stats;
	enum scan_result res = p0.res;
	char *cause = p0.cause;
	p0.cause = NULL;
	for (int q = 0; q < nsplit; q++) {
		struct gpart *p = &parts[q];
		bool merge = q < started && !(p0.res == SCAN_NOT_TRACE || p0.res == SCAN_IO_ERROR);
		for (int k = 0; k < n && merge; k++) {
			builder_merge(p0.b[k], p->b[k]); /* frees the part's builder and trace */
			p->b[k] = NULL;
			p->g.t[k] = NULL;
		}
		if (merge) {
			load_add_part(&stats, &res, &cause, &p->stats, p->res, p->cause);
			p->cause = NULL;
		}
		input_close(p->in);
		gpart_free(p, n, true);
	}
	struct seek_index *x = input_take_index(in);
	seek_index_free(x); /* compressed: the args are aside */
	/* the ranks' ends (their indexes) on every core: the group's other jobs wait */
	struct group_end e = {
		.j = j, .g = g, .b = p0.b, .in = in, .stats = &stats, .res = res, .cause = cause, .t0 = t0
	};
	e.cancelled = load_job_cancelled(j);
	e.file_bytes = input_file_size(in) ? input_file_size(in) : input_file_offset(in);
	parallel_for(n, end_rank, &e);
	free(cause);
	input_close(in);
	for (int k = 0; k < n; k++)
		g->side[k] = NULL; /* taken by the ranks' args stores */
#ifdef __GLIBC__
	malloc_trim(0); /* the decompressing thread's buffers, as a load of one file trims them */
#endif
out:
	free(p0.b);
	free(p0.cb);
	free(p0.cause);
	free(g->m);
	free(g->t);
	free(g->rules);
	free(g->side);
	free(g->bases);
}

/* Every rank of group G from its cache, when each has a valid one: true. Else none is
 * taken; *NOTE says why a cache was not used (allocated) when one was damaged or not to be
 * trusted (*DAMAGED). */
static bool open_caches(struct job *j, struct merged_group *g, const struct cache_key *file, char **note, bool *damaged)
{
	double t0 = monotime_seconds();
	struct trace **got = xcalloc((size_t)g->n, sizeof *got);
	int k = 0;
	for (; k < g->n; k++) {
		struct cache_key key = *file;
		cache_dir_key_rank(&key, g->jobs[k]->merged->group_pos);
		char *why = NULL;
		bool bad = false;
		if ((got[k] = cache_dir_open(j->path, &key, &why, &bad)) == NULL) {
			if (bad) {
				*note = why;
				*damaged = true;
			} else {
				free(why);
			}
			break;
		}
		free(why);
	}
	bool all = k == g->n;
	for (int i = 0; i < g->n && got[i] != NULL; i++) {
		if (!all) {
			trace_free(got[i]);
			continue;
		}
		load_name_merged(got[i], g->jobs[i]->merged);
		got[i]->load_seconds = monotime_seconds() - t0;
		g->jobs[i]->out = got[i];
	}
	if (all)
		load_job_progress(j, got[0]->bytes, file->size);
	free(got);
	return all;
}

/* The group's ranks: from their caches, else parsed (then their caches are written). */
static void load_group(struct job *j, struct merged_group *g)
{
	bool cached = cache_dir_wanted(j->path, false);
	bool readable = cached || cache_dir_readable(j->path);
	struct cache_key file;
	char *note = NULL;
	bool damaged = false;
	if (readable && cache_dir_key(j->path, &file, &note) != 0) {
		cached = readable = false;
		free(note);
		note = NULL;
	}
	if (readable && open_caches(j, g, &file, &note, &damaged))
		return;
	parse_group(j, g);
	for (int k = 0; k < g->n; k++) {
		struct trace *t = g->jobs[k]->out;
		if (k == 0 && note != NULL) { /* why the caches were not used, said once */
			t->cache_note = note;
			t->cache_damaged = damaged;
			note = NULL;
		}
		if (cached && t->status != LOAD_FAILED) {
			struct cache_key key = file;
			cache_dir_key_rank(&key, g->jobs[k]->merged->group_pos);
			cache_dir_save_async(t, &key);
		}
	}
	free(note);
}

void load_merged_run(struct job *j)
{
	struct merged_group *g = j->group;
	if (j->group_pos == 0) {
		load_group(j, g);
		snap_close(j->snap);
		pthread_mutex_lock(&g->lock);
		g->done = true;
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
		return;
	}
	pthread_mutex_lock(&g->lock);
	while (!g->done)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

struct merged_group *load_merged_groups(struct job *jobs, int n, int *ngroups)
{
	struct merged_group *groups = NULL;
	int ng = 0;
	for (int i = 0; i < n;) {
		const struct merged_rank *m = jobs[i].merged;
		if (m == NULL) {
			i++;
			continue;
		}
		int len = m->group_pos == 0 ? m->group_n : 0;
		bool run = len >= 1 && len <= n - i;
		for (int k = 1; k < len && run; k++) {
			const struct merged_rank *o = jobs[i + k].merged;
			run = o != NULL && o->group_pos == k && o->group_n == len &&
			      strcmp(jobs[i + k].path, jobs[i].path) == 0;
		}
		if (!run)
			len = 1; /* a rank given alone: a group of its own */
		groups = xreallocarray(groups, (size_t)ng + 1, sizeof *groups);
		struct merged_group *g = &groups[ng++];
		memset(g, 0, sizeof *g);
		g->n = len;
		g->jobs = xcalloc((size_t)len, sizeof *g->jobs);
		pthread_mutex_init(&g->lock, NULL);
		pthread_cond_init(&g->cond, NULL);
		for (int k = 0; k < len; k++)
			g->jobs[k] = &jobs[i + k];
		i += len;
	}
	/* the jobs point into the array, which no longer moves */
	for (int gi = 0; gi < ng; gi++)
		for (int k = 0; k < groups[gi].n; k++) {
			groups[gi].jobs[k]->group = &groups[gi];
			groups[gi].jobs[k]->group_pos = k;
		}
	*ngroups = ng;
	return groups;
}

void load_merged_groups_free(struct merged_group *g, int ng)
{
	for (int i = 0; i < ng; i++) {
		free(g[i].jobs);
		pthread_mutex_destroy(&g[i].lock);
		pthread_cond_destroy(&g[i].cond);
	}
	free(g);
}
