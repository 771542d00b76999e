/* cache.c: maps a cache file back to a model (src/cache.h, cache_read); the writer is
 * src/cache_write.c, the checks of the values src/cache_check.c.
 *
 * Reading checks, in order: the header and section table (cheap, refuses stale files),
 * the checksums of every block of every section (the bulk of the time: every page of the
 * file is read once), then, building the trace, every stored index against the sizes it
 * indexes, and every value (cache_check_model). */
#include "src/cache.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/test_knobs.h"
#include "lib/checksum.h"
#include "lib/map_guard.h"
#include "lib/monotime.h"
#include "lib/parallel.h"
#include "lib/xalloc.h"
#include "src/cache_check.h"
#include "src/cache_format.h"
#include "src/event_blocks.h"

/* One block to checksum: section S's block B. */
struct verify_task {
	uint32_t s, b;
};

struct verify {
	const char *base;
	const struct header *h;
	struct verify_task *tasks;
	uint32_t ntasks;
	uint64_t *sums[S__COUNT]; /* by section, by block */
};

/* Block I's checksum (on one of parallel_for's threads). */
static void verify_block(void *arg, int i)
{
	struct verify *v = arg;
	const struct verify_task *k = &v->tasks[i];
	const struct section *s = &v->h->sections[k->s];
	uint64_t at = (uint64_t)k->b * CACHE_BLOCK;
	size_t len = s->length - at < CACHE_BLOCK ? (size_t)(s->length - at) : CACHE_BLOCK;
	v->sums[k->s][k->b] = checksum64(v->base + s->offset + at, len, k->b);
}

/* Checks every section's checksum, on several threads when the file is big. Returns the
 * first section whose checksum fails, or -1. */
static int verify_sections(const char *base, const struct header *h)
{
	struct verify v;
	uint64_t total = 0;
	uint32_t n = 0;
	int bad = -1;

	memset(&v, 0, sizeof v);
	v.base = base;
	v.h = h;
	for (int s = 0; s < S__COUNT; s++) {
		uint32_t nb = (uint32_t)((h->sections[s].length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		v.sums[s] = xcalloc(nb ? nb : 1, sizeof(uint64_t));
		n += nb;
		total += h->sections[s].length;
	}
	v.tasks = xcalloc(n ? n : 1, sizeof *v.tasks);
	/* the biggest sections first, so the threads end together */
	for (int s = 0; s < S__COUNT; s++)
		for (uint32_t b = 0; (uint64_t)b * CACHE_BLOCK < h->sections[s].length; b++)
			v.tasks[v.ntasks++] = (struct verify_task){ (uint32_t)s, b };
	if (total >= PARALLEL_MIN)
		parallel_for((int)v.ntasks, verify_block, &v);
	else
		for (uint32_t i = 0; i < v.ntasks; i++)
			verify_block(&v, (int)i);
	for (int s = 0; s < S__COUNT; s++) {
		uint32_t nb = (uint32_t)((h->sections[s].length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		if (bad < 0 && checksum64(v.sums[s], nb * sizeof(uint64_t), (uint64_t)s) != h->sections[s].check)
			bad = s;
		free(v.sums[s]);
	}
	free(v.tasks);
	return bad;
}

/* The state of one read: the mapping and the trace being filled. */
struct reader {
	const char *base;
	const struct header *h;
	struct trace *t;
	char *cause;
};

static const void *sec(const struct reader *r, enum section_kind s) { return r->base + r->h->sections[s].offset; }
static uint64_t count(const struct reader *r, enum section_kind s)
{
	return r->h->sections[s].length / cache_elem_size[s];
}

static bool read_strings(struct reader *r, const struct meta *m)
{
	struct trace *t = r->t;
	uint64_t n = count(r, S_STR_LEN), nslots = count(r, S_STR_SLOTS), at = 0, empty = 0;
	const uint32_t *len = sec(r, S_STR_LEN), *slots = sec(r, S_STR_SLOTS);
	const char *bytes = sec(r, S_STR_BYTES);
	uint64_t nbytes = r->h->sections[S_STR_BYTES].length;

	if (n == 0 || n >= UINT32_MAX || count(r, S_STR_HASH) != n || len[0] != 0)
		return cache_refuse(&r->cause, "the string table is not whole");
	if (nslots != m->nslots || nslots < 2 * n || nslots > UINT32_MAX || (nslots & (nslots - 1)) != 0)
		return cache_refuse(&r->cause, "the string slots do not fit the strings");
	for (uint64_t i = 0; i < nslots; i++) {
		if (slots[i] > n)
			return cache_refuse(&r->cause, "a string slot is out of range");
		empty += slots[i] == 0;
	}
	if (empty == 0)
		return cache_refuse(&r->cause, "the string slots are full");
	const char **str = xmalloc(n * sizeof *str);
	for (uint64_t i = 0; i < n; i++) {
		if (len[i] >= nbytes - at || bytes[at + len[i]] != '\0') {
			free(str);
			return cache_refuse(&r->cause, "string %llu runs past the string bytes", (unsigned long long)i);
		}
		str[i] = bytes + at;
		at += (uint64_t)len[i] + 1;
	}
	if (at != nbytes || at != m->str_bytes) {
		free(str);
		return cache_refuse(&r->cause, "the string bytes do not add up");
	}
	strtab_init_borrowed(&t->strings, str, (uint32_t)n, len, sec(r, S_STR_HASH), slots, (uint32_t)nslots, m->seed,
	                     (size_t)nbytes);
	return true;
}

static bool read_text(struct reader *r, const struct meta *m)
{
	static const char *const codecs[] = { "plain", "gzip", "zstd" };
	struct trace *t = r->t;
	const char *p = sec(r, S_TEXT), *e = p + r->h->sections[S_TEXT].length;
	const char *nul;

	if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
		return cache_refuse(&r->cause, "the codec is missing");
	for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
		if (strcmp(p, codecs[i]) == 0)
			t->codec = codecs[i];
	if (t->codec == NULL)
		return cache_refuse(&r->cause, "unknown codec");
	p = nul + 1;
	if (m->has_error) {
		if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
			return cache_refuse(&r->cause, "the error text is cut");
		t->error = xstrdup(p);
		p = nul + 1;
	}
	if (count(r, S_WARN_TAGS) != m->nwarnings)
		return cache_refuse(&r->cause, "warning tags and warnings differ");
	t->warnings = xcalloc(m->nwarnings ? m->nwarnings : 1, sizeof *t->warnings);
	for (uint32_t i = 0; i < m->nwarnings; i++) {
		if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
			return cache_refuse(&r->cause, "warning %u is cut", i);
		t->warnings[t->nwarnings++] = xstrdup(p);
		p = nul + 1;
	}
	if (p != e)
		return cache_refuse(&r->cause, "the text has bytes left over");
	t->warning_tags = (struct warning_tag *)sec(r, S_WARN_TAGS);
	return true;
}

/* Rebuilds the tracks and their rows, row trees and busy spans over the mapping. */
static bool read_tracks(struct reader *r)
{
	struct trace *t = r->t;
	const struct ctrack *ct = sec(r, S_TRACKS);
	const struct crow *cr = sec(r, S_ROWS);
	struct slice *slices = (struct slice *)sec(r, S_SLICES);
	struct gpu_word *sgpu = (struct gpu_word *)sec(r, S_SLICE_GPU);
	uint64_t *sargs = (uint64_t *)sec(r, S_SLICE_ARGS);
	struct long_dur *slong = (struct long_dur *)sec(r, S_LONG_DURS);
	uint16_t *lo = (uint16_t *)sec(r, S_ROW_LO);
	uint32_t *base = (uint32_t *)sec(r, S_ROW_BASE), *wide = (uint32_t *)sec(r, S_ROW_WIDE),
		 *maxt = (uint32_t *)sec(r, S_ROW_MAX);
	int64_t *sums = (int64_t *)sec(r, S_ROW_SUM), *bsums = (int64_t *)sec(r, S_BUSY_SUM);
	uint32_t *rtf = (uint32_t *)sec(r, S_RT_FIRST), *rtn = (uint32_t *)sec(r, S_RT_N);
	struct span *rts = (struct span *)sec(r, S_RT_SPANS), *busy = (struct span *)sec(r, S_BUSY);
	uint64_t nt = count(r, S_TRACKS), at_slice = 0, at_sgpu = 0, at_sargs = 0, at_long = 0, at_row = 0, at_idx = 0,
		 at_base = 0, at_wide = 0, at_sum = 0, at_max = 0, at_rt = 0, at_rts = 0, at_busy = 0, at_bsum = 0,
		 nstr = t->strings.n;

	if (nt >= UINT32_MAX)
		return cache_refuse(&r->cause, "too many tracks");
	t->tracks = xcalloc(nt ? nt : 1, sizeof *t->tracks);
	t->ntracks = (uint32_t)nt;
	for (uint64_t i = 0; i < nt; i++) {
		const struct ctrack *c = &ct[i];
		struct track *tr = &t->tracks[i];
		if (c->kind > TRACK_OTHER || c->pid_is_str > 1 || c->tid_is_str > 1 || c->named > 1 || c->nested > 1 ||
		    c->has_gpu > 1 || c->has_args > 1 || !cache_id_ok(c->name, nstr, false) ||
		    !cache_id_ok(c->process, t->nprocesses, true) || (c->pid_is_str && (uint64_t)c->pid >= nstr) ||
		    (c->tid_is_str && (uint64_t)c->tid >= nstr) || c->annotation_rows > c->nrows ||
		    (c->nslices > 0) != (c->nrows > 0))
			return cache_refuse(&r->cause, "track %llu does not hold together", (unsigned long long)i);
#define COPY(f) tr->f = c->f;
		CACHE_TRACK_FIELDS(COPY)
#undef COPY
		if (c->nslices > count(r, S_SLICES) - at_slice)
			return cache_refuse(&r->cause, "track %llu's slices run past the slices",
			                    (unsigned long long)i);
		tr->slices = slices + at_slice;
		tr->nslices = tr->cap = c->nslices;
		at_slice += c->nslices;
		if (c->has_gpu) {
			uint64_t nw = ((uint64_t)c->nslices + 63) / 64;
			if (nw > count(r, S_SLICE_GPU) - at_sgpu)
				return cache_refuse(&r->cause, "track %llu's GPU links run past their array",
				                    (unsigned long long)i);
			tr->gpu_words = sgpu + at_sgpu;
			at_sgpu += nw;
		}
		if (c->nlong > count(r, S_LONG_DURS) - at_long)
			return cache_refuse(&r->cause, "track %llu's long lengths run past their array",
			                    (unsigned long long)i);
		tr->long_durs = c->nlong ? slong + at_long : NULL;
		tr->nlong = tr->long_cap = c->nlong;
		at_long += c->nlong;
		if (c->has_args) {
			if (c->nslices > count(r, S_SLICE_ARGS) - at_sargs)
				return cache_refuse(&r->cause, "track %llu's args run past their array",
				                    (unsigned long long)i);
			tr->args = sargs + at_sargs;
			at_sargs += c->nslices;
		}
		if (c->nrows > count(r, S_ROWS) - at_row)
			return cache_refuse(&r->cause, "track %llu's rows run past the rows", (unsigned long long)i);
		tr->nrows = c->nrows;
		tr->rows = xcalloc(c->nrows ? c->nrows : 1, sizeof *tr->rows);
		uint64_t in_rows = 0;
		for (uint16_t k = 0; k < c->nrows; k++) {
			const struct crow *rc = &cr[at_row + k];
			struct row *row = &tr->rows[k];
			uint64_t nsum = (uint64_t)rc->n / ROW_BLOCK + 1,
				 nmax = 2 * (((uint64_t)rc->n + ROW_BLOCK - 1) / ROW_BLOCK) + 1,
				 nbase = ((uint64_t)rc->n + ROW_BLOCK - 1) / ROW_BLOCK,
				 nwide = (uint64_t)rc->nwide * ROW_BLOCK;
			if (rc->n > count(r, S_ROW_LO) - at_idx || nbase > count(r, S_ROW_BASE) - at_base ||
			    nwide > count(r, S_ROW_WIDE) - at_wide || rc->nwide > nbase ||
			    nsum > count(r, S_ROW_SUM) - at_sum || nmax > count(r, S_ROW_MAX) - at_max ||
			    rc->has_max_tree != 1 || rc->pad != 0)
				return cache_refuse(&r->cause, "track %llu row %u runs past its arrays",
				                    (unsigned long long)i, k);
			row->n = rc->n;
			row->max_dur = rc->max_dur;
			row->lo = lo + at_idx;
			row->base = base + at_base;
			row->wide = rc->nwide ? wide + at_wide : NULL;
			row->nwide = rc->nwide;
			row->block_sum = sums + at_sum;
			at_idx += rc->n;
			at_base += nbase;
			at_wide += nwide;
			at_sum += nsum;
			in_rows += rc->n;
			row->max_tree = maxt + at_max; /* the index makes one for every row */
			for (uint64_t q = 1; q + 1 < nmax; q++)
				if (row->max_tree[q] >= rc->n)
					return cache_refuse(&r->cause,
					                    "track %llu row %u: a max tree node is out of range",
					                    (unsigned long long)i, k);
			at_max += nmax;
			/* the wide blocks named in order, each once; then every entry in range */
			uint32_t next_wide = 0;
			for (uint64_t b = 0; b < nbase; b++)
				if ((row->base[b] & ROW_WIDE) && (row->base[b] & ~ROW_WIDE) != next_wide++)
					return cache_refuse(&r->cause,
					                    "track %llu row %u: a wide block is out of place",
					                    (unsigned long long)i, k);
			if (next_wide != rc->nwide)
				return cache_refuse(&r->cause, "track %llu row %u: its wide blocks are not all named",
				                    (unsigned long long)i, k);
			for (uint32_t q = 0; q < rc->n; q++)
				if (row_idx(row, q) >= c->nslices)
					return cache_refuse(&r->cause,
					                    "track %llu row %u: a slice index is out of range",
					                    (unsigned long long)i, k);
		}
		at_row += c->nrows;
		if (in_rows != c->nslices)
			return cache_refuse(&r->cause, "track %llu: its rows do not hold its slices",
			                    (unsigned long long)i);
		if (c->rt_leaves != 0) {
			uint64_t nodes = 2 * (uint64_t)c->rt_leaves;
			if ((c->rt_leaves & (c->rt_leaves - 1)) != 0 || c->rt_leaves < c->nrows ||
			    c->rt_leaves > 2 * (uint64_t)c->nrows || nodes > count(r, S_RT_FIRST) - at_rt ||
			    nodes > count(r, S_RT_N) - at_rt || c->rt_nspans > count(r, S_RT_SPANS) - at_rts)
				return cache_refuse(&r->cause, "track %llu: its row tree does not fit",
				                    (unsigned long long)i);
			struct row_tree *rt = xcalloc(1, sizeof *rt);
			tr->row_tree = rt;
			rt->leaves = c->rt_leaves;
			rt->first = rtf + at_rt;
			rt->n = rtn + at_rt;
			rt->spans = rts + at_rts;
			for (uint64_t q = 1; q < nodes; q++)
				if ((uint64_t)rt->first[q] + rt->n[q] > c->rt_nspans)
					return cache_refuse(&r->cause, "track %llu: a row tree node is out of range",
					                    (unsigned long long)i);
			at_rt += nodes;
			at_rts += c->rt_nspans;
		}
		if (c->nbusy > count(r, S_BUSY) - at_busy ||
		    (uint64_t)c->nbusy / ROW_BLOCK + 1 > count(r, S_BUSY_SUM) - at_bsum)
			return cache_refuse(&r->cause, "track %llu: its busy spans run past their arrays",
			                    (unsigned long long)i);
		tr->busy = c->nbusy ? busy + at_busy : NULL;
		tr->nbusy = c->nbusy;
		tr->busy_block_sum = bsums + at_bsum;
		at_busy += c->nbusy;
		at_bsum += (uint64_t)c->nbusy / ROW_BLOCK + 1;
	}
	if (at_slice != count(r, S_SLICES) || at_sgpu != count(r, S_SLICE_GPU) || at_sargs != count(r, S_SLICE_ARGS) ||
	    at_long != count(r, S_LONG_DURS) || at_row != count(r, S_ROWS) || at_idx != count(r, S_ROW_LO) ||
	    at_base != count(r, S_ROW_BASE) || at_wide != count(r, S_ROW_WIDE) || at_sum != count(r, S_ROW_SUM) ||
	    at_max != count(r, S_ROW_MAX) || at_rt != count(r, S_RT_FIRST) || at_rt != count(r, S_RT_N) ||
	    at_rts != count(r, S_RT_SPANS) || at_busy != count(r, S_BUSY) || at_bsum != count(r, S_BUSY_SUM))
		return cache_refuse(&r->cause, "the tracks do not account for every stored element");
	return true;
}

static bool read_counters(struct reader *r)
{
	struct trace *t = r->t;
	const struct ccounter *cc = sec(r, S_COUNTERS);
	int64_t *ts = (int64_t *)sec(r, S_COUNTER_TS);
	double *val = (double *)sec(r, S_COUNTER_VAL);
	uint64_t n = count(r, S_COUNTERS), at = 0;

	if (n >= UINT32_MAX || count(r, S_COUNTER_TS) != count(r, S_COUNTER_VAL))
		return cache_refuse(&r->cause, "the counters do not hold together");
	t->counters = xcalloc(n ? n : 1, sizeof *t->counters);
	for (uint64_t i = 0; i < n; i++) {
		struct counter *c = &t->counters[i];
		if (cc[i].name >= t->strings.n || cc[i].key >= t->strings.n || cc[i].pid_is_str > 1 ||
		    (cc[i].pid_is_str && (uint64_t)cc[i].pid >= t->strings.n) || cc[i].n > count(r, S_COUNTER_TS) - at)
			return cache_refuse(&r->cause, "counter %llu does not hold together", (unsigned long long)i);
		c->pid_is_str = cc[i].pid_is_str;
		c->pid = cc[i].pid;
		c->name = cc[i].name;
		c->key = cc[i].key;
		c->n = c->cap = cc[i].n;
		c->ts = ts + at;
		c->value = val + at;
		for (uint32_t k = 0; k < cc[i].n; k++)
			if (!cache_time_ok(c->ts[k]))
				return cache_refuse(&r->cause, "counter %llu: a sample lies out of range",
				                    (unsigned long long)i);
		at += cc[i].n;
		t->ncounters++;
	}
	if (at != count(r, S_COUNTER_TS))
		return cache_refuse(&r->cause, "the counters do not account for every sample");
	return true;
}

/* Points the trace's flat arrays at their sections. */
#define POINT(field, nfield, kind)                                                                \
	do {                                                                                      \
		if (count(r, kind) >= UINT32_MAX)                                                 \
			return cache_refuse(&r->cause, "too many %s", cache_section_names[kind]); \
		t->field = count(r, kind) ? (void *)sec(r, kind) : NULL;                          \
		t->nfield = (uint32_t)count(r, kind);                                             \
	} while (0)

/* POINT for an array the builder grows: its capacity is its count. */
#define POINT_GROWN(field, nfield, capfield, kind) \
	do {                                       \
		POINT(field, nfield, kind);        \
		t->capfield = t->nfield;           \
	} while (0)

static bool read_model(struct reader *r)
{
	struct trace *t = r->t;
	const struct meta *m = sec(r, S_META);

	if (count(r, S_META) != 1)
		return cache_refuse(&r->cause, "the meta section is missing");
	if (m->status > LOAD_TRUNCATED)
		return cache_refuse(&r->cause, "a failed load was stored");
	if (m->has_base > 1 || m->legacy > 1 || m->shared_launch > 1 || m->has_error > 1 ||
	    m->has_error != (m->status == LOAD_TRUNCATED))
		return cache_refuse(&r->cause, "a flag of the trace is neither true nor false, or says another status");
#define COPY(f) t->f = m->f;
	CACHE_META_FIELDS(COPY)
#undef COPY
	memcpy(t->count_by_ph, m->count_by_ph, sizeof t->count_by_ph);
	if (!read_text(r, m) || !read_strings(r, m))
		return false;
	if (count(r, S_CATS) < 1 || count(r, S_CATS) > TRACE_MAX_CATS)
		return cache_refuse(&r->cause, "%llu categories", (unsigned long long)count(r, S_CATS));
	t->ncats = (uint32_t)count(r, S_CATS);
	memcpy(t->cats, sec(r, S_CATS), t->ncats * sizeof *t->cats);
	for (uint32_t i = 0; i < t->ncats; i++)
		if (t->cats[i] >= t->strings.n || (i == 0) != (t->cats[i] == 0))
			return cache_refuse(&r->cause, "category %u is out of range", i);
	/* the slices' kinds, read where they lie (never interned into: the index does not run) */
	if (count(r, S_KINDS) >= UINT32_MAX)
		return cache_refuse(&r->cause, "too many slice kinds");
	t->nkinds = (uint32_t)count(r, S_KINDS);
	t->kinds = t->nkinds ? (struct slice_kind *)sec(r, S_KINDS) : NULL;
	t->kind_table = NULL;
	for (uint32_t i = 0; i < t->nkinds; i++) {
		const struct slice_kind *k = &t->kinds[i];
		if (k->name >= t->strings.n || k->cat_ix >= t->ncats || k->cls >= SC__COUNT ||
		    (k->flags & ~(SF_FROM_BE | SF_UNCLOSED | SF_PARTIAL)) != 0)
			return cache_refuse(&r->cause, "slice kind %u is out of range", i);
	}
	POINT(processes, nprocesses, S_PROCESSES);
	POINT(devices, ndevices, S_DEVICES);
	POINT_GROWN(gpu, ngpu, gpu_cap, S_GPU);
	POINT_GROWN(gpu_places, ngpu_places, gpu_places_cap, S_GPU_PLACES);
	POINT_GROWN(wide_ids, nwide_ids, wide_ids_cap, S_WIDE_IDS);
	POINT_GROWN(gpu_bytes, ngpu_bytes, gpu_bytes_cap, S_GPU_BYTES);
	POINT_GROWN(launches, nlaunches, launches_cap, S_LAUNCHES);
	POINT_GROWN(aside, naside, aside_cap, S_ASIDE);
	POINT(flows, nflows, S_FLOWS);
	POINT_GROWN(instants, ninstants, instants_cap, S_INSTANTS);
	POINT_GROWN(mem, nmem, mem_cap, S_MEM);
	POINT_GROWN(mem_runs, nmem_runs, mem_runs_cap, S_MEM_RUNS);
	POINT_GROWN(flops, nflops, flops_cap, S_FLOPS);
	POINT_GROWN(comm_ops, ncomm_ops, comm_ops_cap, S_COMM);
	POINT(steps, nsteps, S_STEPS);
	POINT_GROWN(blocks, nblocks, blocks_cap, S_BLOCKS);
	POINT_GROWN(series, nseries, series_cap, S_SERIES);
	if (t->nblocks > 0 && !event_blocks_ok(t, t->events))
		return cache_refuse(&r->cause, "its map of the events does not add up");
	return read_tracks(r) && read_counters(r) &&
	       cache_check_model(r->t, r->h->file_bytes >= PARALLEL_MIN, &r->cause);
}

/* Checks the header and the section table; CAUSE/WHY on a refusal. */
static bool header_ok(struct reader *r, uint64_t size, const struct cache_key *key, int *why)
{
	const struct header *h = r->h;
	struct header want;

	*why = CACHE_STALE;
	if (size < HEADER_BYTES || memcmp(h->magic, CACHE_MAGIC, 8) != 0)
		return cache_refuse(&r->cause, size < HEADER_BYTES ? "shorter than its header" : "not a ttrace cache");
	if (h->format != CACHE_FORMAT_VERSION || h->endian != ENDIAN_MARK || h->header_bytes != HEADER_BYTES)
		return cache_refuse(&r->cause, "written in another format (version %u)", h->format);
	cache_header_id(&want, key);
	if (h->layout != want.layout || memcmp(h->version, want.version, sizeof h->version) != 0 ||
	    h->build_len != want.build_len || memcmp(h->build, want.build, sizeof h->build) != 0)
		return cache_refuse(&r->cause, "written by another build of ttrace (%.*s)",
		                    (int)strnlen(h->version, sizeof h->version), h->version);
	if (memcmp(&h->key, key, sizeof *key) != 0)
		return cache_refuse(&r->cause, "written for another file, or before the file changed");
	*why = CACHE_DAMAGED;
	if (checksum64(h, offsetof(struct header, check), 0) != h->check)
		return cache_refuse(&r->cause, "its header's checksum does not match");
	return cache_table_ok(h, size, &r->cause);
}

struct trace *cache_read(int fd, const char *path, const struct cache_key *key, const void **args, size_t *args_len,
                         char **cause, int *why)
{
	struct reader r;
	struct stat sb;
	double t0 = monotime_seconds(), t1, t2;
	void *map;

	memset(&r, 0, sizeof r);
	*why = CACHE_DAMAGED;
	if (fstat(fd, &sb) < 0) {
		*cause = xasprintf("cannot read the cache: %s", strerror(errno));
		return NULL;
	}
	if ((uint64_t)sb.st_size < HEADER_BYTES) {
		*cause = xstrdup("the cache is shorter than its header");
		return NULL;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		*cause = xasprintf("cannot map the cache: %s", strerror(errno));
		return NULL;
	}
	r.base = map;
	r.h = map;
	/* a cache cut while it is mapped reads as zeros past the cut, not as a SIGBUS */
	map_guard_add(map, (size_t)sb.st_size);
	if (!header_ok(&r, (uint64_t)sb.st_size, key, why)) {
		map_guard_remove(map);
		munmap(map, (size_t)sb.st_size);
		*cause = r.cause;
		return NULL;
	}
	madvise(map, (size_t)sb.st_size, MADV_WILLNEED);
	t1 = monotime_seconds();
	int bad = verify_sections(r.base, r.h);
	t2 = monotime_seconds();
	if (bad >= 0) {
		map_guard_remove(map);
		munmap(map, (size_t)sb.st_size);
		*cause = xasprintf("the checksum of its %s does not match", cache_section_names[bad]);
		return NULL;
	}
	r.t = xcalloc(1, sizeof *r.t);
	r.t->cache_map = map;
	r.t->cache_map_len = (size_t)sb.st_size;
	r.t->path = xstrdup(path);
	r.t->cache = TRACE_CACHE_READ;
	if (!read_model(&r) || map_guard_lost(map)) {
		if (r.cause == NULL)
			r.cause = xstrdup("it was cut while it was read");
		trace_free(r.t);
		*cause = r.cause;
		return NULL;
	}
	*args = sec(&r, S_ARGS);
	*args_len = (size_t)r.h->sections[S_ARGS].length;
	if (test_knobs().cache_times) /* for bench/cache */
		fprintf(stderr, "ttrace: cache %.1f MB: header %.1f ms, checksums %.1f ms, indices %.1f ms\n",
		        (double)sb.st_size / 1e6, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (monotime_seconds() - t2) * 1e3);
	*why = 0;
	return r.t;
}
