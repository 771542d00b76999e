/* memory.c: the Memory view's figures (see memory.h).
 *
 * One pass over the samples sorts them into devices; each device's curve is sorted by
 * time and scanned for its peaks. Each sample with a thread is then placed in its
 * thread's slices (src/index.h: the deepest row holding its time, then the rows below
 * it), and its bytes go to the operator names above it through a hash keyed by (device,
 * name); a second hash keyed by (device, instance) finds the instance that allocated
 * most for Enter. */
#include "src/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "src/tables.h"

/* ---- a small open-addressing hash of (a, b) keys to row numbers ------------------------ */

struct hash_slot {
	uint64_t a, b;
	uint32_t v; /* row + 1; 0: empty */
};

struct hash {
	struct hash_slot *s;
	uint32_t cap, n; /* cap a power of two */
};

static uint32_t hash_of(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h ^ h >> 29);
}

/* The row of (A, B), adding it as row NEXT when new (*ADDED says which). */
static uint32_t hash_get(struct hash *h, uint64_t a, uint64_t b, uint32_t next, bool *added)
{
	if ((h->n + 1) * 2 > h->cap) {
		struct hash old = *h;
		h->cap = old.cap ? old.cap * 2 : 64;
		h->s = xcalloc(h->cap, sizeof *h->s);
		h->n = 0;
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.s[i].v != 0) {
				uint32_t k = hash_of(old.s[i].a, old.s[i].b) & (h->cap - 1);
				while (h->s[k].v != 0)
					k = (k + 1) & (h->cap - 1);
				h->s[k] = old.s[i];
				h->n++;
			}
		free(old.s);
	}
	uint32_t k = hash_of(a, b) & (h->cap - 1);
	while (h->s[k].v != 0) {
		if (h->s[k].a == a && h->s[k].b == b) {
			*added = false;
			return h->s[k].v - 1;
		}
		k = (k + 1) & (h->cap - 1);
	}
	h->s[k] = (struct hash_slot){ a, b, next + 1 };
	h->n++;
	*added = true;
	return next;
}

/* ---- names -------------------------------------------------------------------------- */

const char *memory_type_name(int type, char *buf, size_t n)
{
	/* c10/core/DeviceType.h, lower case as torch.device prints them */
	static const char *const names[] = { "cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
		                             "fpga", "maia", "xla", "vulkan", "metal", "xpu", "mps",
		                             "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone" };
	if (type < 0)
		return "unknown";
	if ((size_t)type < sizeof names / sizeof *names)
		return names[type];
	snprintf(buf, n, "type %d", type);
	return buf;
}

const char *memory_device_name(const struct mem_device *d, char *buf, size_t n)
{
	char tb[24];
	const char *type = memory_type_name(d->type, tb, sizeof tb);
	if (d->id < 0)
		snprintf(buf, n, "%s", type);
	else
		snprintf(buf, n, "%s:%d", type, d->id);
	return buf;
}

/* ---- the curve ---------------------------------------------------------------------- */

/* The first curve point at or after T. */
static uint32_t first_at(const struct mem_device *d, int64_t t)
{
	uint32_t lo = 0, hi = d->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (d->ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool memory_range_max(const struct mem_device *d, int64_t t0, int64_t t1, int64_t *allocated, int64_t *reserved)
{
	uint32_t i = first_at(d, t0);
	bool any = false;
	int64_t a = 0, r = 0;
	if (i > 0) { /* the value carried in */
		a = d->allocated[i - 1];
		r = d->reserved[i - 1];
		any = true;
	}
	for (; i < d->n && d->ts[i] < t1; i++) {
		if (!any || d->allocated[i] > a)
			a = d->allocated[i];
		if (!any || d->reserved[i] > r)
			r = d->reserved[i];
		any = true;
	}
	if (any) {
		*allocated = a;
		*reserved = r;
	}
	return any;
}

/* ---- placing a sample in its thread --------------------------------------------------- */

static bool is_node(const struct trace *t, const struct slice *s)
{
	/* the plugin's tree: operators, user annotations (ProfilerStep#N too), Python
	 * functions; runtime calls hang off operators and hold no samples of their own */
	return s->cls == SC_CPU_OP || s->cls == SC_USER_ANNOTATION || s->cls == SC_PYTHON || tables_counts_as_op(t, s);
}

/* The slice of row R of TR whose [start, end) holds TS and that WANT accepts, or TT_NONE. */
static uint32_t row_holding(const struct trace *t, const struct track *tr, uint16_t r, int64_t ts,
                            bool (*want)(const struct trace *, const struct slice *))
{
	uint32_t a, b;
	index_row_range(tr, r, ts, ts + 1, &a, &b);
	for (uint32_t k = a; k < b; k++) {
		uint32_t i = tr->rows[r].idx[k];
		const struct slice *s = &tr->slices[i];
		if (s->ts <= ts && ts - s->ts < s->dur && want(t, s))
			return i;
	}
	return TT_NONE;
}

/* The innermost slice of TR holding TS that WANT accepts, or TT_NONE. */
static uint32_t innermost(const struct trace *t, const struct track *tr, int64_t ts,
                          bool (*want)(const struct trace *, const struct slice *))
{
	uint32_t deepest = index_slice_at(tr, ts);
	if (deepest == TT_NONE)
		return TT_NONE;
	for (int r = tr->slices[deepest].depth; r >= 0; r--) {
		uint32_t i = row_holding(t, tr, (uint16_t)r, ts, want);
		if (i != TT_NONE)
			return i;
	}
	return TT_NONE;
}

static const struct track *cpu_track(const struct trace *t, uint32_t ti)
{
	return ti < t->ntracks && t->tracks[ti].kind == TRACK_CPU ? &t->tracks[ti] : NULL;
}

static struct slice_ref op_running(const struct trace *t, const struct mem_sample *m)
{
	const struct track *tr = cpu_track(t, m->track);
	uint32_t i = tr != NULL ? innermost(t, tr, m->ts, tables_counts_as_op) : TT_NONE;
	return i == TT_NONE ? (struct slice_ref){ TT_NONE, TT_NONE } : (struct slice_ref){ m->track, i };
}

/* ---- the analysis ----------------------------------------------------------------------- */

static const struct trace *sort_t;

static bool sample_less(const uint32_t *x, const uint32_t *y)
{
	int64_t a = sort_t->mem[*x].ts, b = sort_t->mem[*y].ts;
	return a != b ? a < b : *x < *y;
}
SORT_DEFINE(sort_samples, uint32_t, sample_less)

static bool step_less(const uint32_t *x, const uint32_t *y)
{
	int64_t a = sort_t->steps[*x].ts, b = sort_t->steps[*y].ts;
	return a != b ? a < b : *x < *y;
}
SORT_DEFINE(sort_steps, uint32_t, step_less)

static bool row_less(const struct mem_op_row *x, const struct mem_op_row *y)
{
	if (x->self_alloc_bytes != y->self_alloc_bytes)
		return x->self_alloc_bytes > y->self_alloc_bytes;
	if (x->alloc_bytes != y->alloc_bytes)
		return x->alloc_bytes > y->alloc_bytes;
	if (x->device != y->device)
		return x->device < y->device;
	return x->name < y->name;
}
SORT_DEFINE(sort_rows, struct mem_op_row, row_less)

static uint32_t device_of(struct memory_report *r, const struct mem_sample *m)
{
	uint32_t i = 0;
	while (i < r->ndevices && (r->devices[i].type < m->device_type ||
	                           (r->devices[i].type == m->device_type && r->devices[i].id < m->device_id)))
		i++;
	if (i < r->ndevices && r->devices[i].type == m->device_type && r->devices[i].id == m->device_id)
		return i;
	/* devices are few: keep them sorted by insertion */
	r->devices = xreallocarray(r->devices, (size_t)r->ndevices + 1, sizeof *r->devices);
	memmove(&r->devices[i + 1], &r->devices[i], (r->ndevices - i) * sizeof *r->devices);
	memset(&r->devices[i], 0, sizeof *r->devices);
	r->devices[i].type = m->device_type;
	r->devices[i].id = m->device_id;
	r->ndevices++;
	return i;
}

static void analyse_curve(const struct trace *t, const struct memory_report *r, struct mem_device *d)
{
	for (uint32_t k = 0; k < d->n; k++) {
		const struct mem_sample *m = &t->mem[d->sample[k]];
		d->ts[k] = m->ts;
		d->allocated[k] = m->total_allocated;
		d->reserved[k] = m->total_reserved;
		if (k == 0 || m->total_allocated > d->peak_allocated) {
			d->peak_allocated = m->total_allocated;
			d->peak_allocated_ts = m->ts;
			d->reserved_at_peak = m->total_reserved;
			d->peak_allocated_op = op_running(t, m);
		}
		if (k == 0 || m->total_reserved > d->peak_reserved) {
			d->peak_reserved = m->total_reserved;
			d->peak_reserved_ts = m->ts;
			d->peak_reserved_op = op_running(t, m);
		}
		int64_t unused = tt_sub(m->total_reserved, m->total_allocated);
		if (k == 0 || unused > d->max_unused) {
			d->max_unused = unused;
			d->max_unused_ts = m->ts;
		}
	}
	d->step_allocated = xmalloc((r->nsteps ? r->nsteps : 1) * sizeof *d->step_allocated);
	for (uint32_t s = 0; s < r->nsteps; s++) {
		/* the state when the step begins: the last sample at or before its start */
		int64_t at = t->steps[r->steps[s]].ts;
		uint32_t i = first_at(d, at == INT64_MAX ? at : at + 1);
		d->step_allocated[s] = i > 0 ? d->allocated[i - 1] : -1;
	}
}

/* Adds sample M (of device DEV, its Bytes B) to the operators holding it. */
static void attach(const struct trace *t, struct memory_report *r, struct hash *rows, struct hash *inst,
                   int64_t **inst_bytes, uint32_t *ninst, uint32_t *rows_cap, uint32_t dev, const struct mem_sample *m)
{
	const struct track *tr = cpu_track(t, m->track);
	if (tr == NULL)
		return;
	uint32_t node = innermost(t, tr, m->ts, is_node);
	if (node == TT_NONE || !tables_counts_as_op(t, &tr->slices[node]))
		return; /* no operator holds it: the plugin's "staled" records */
	r->devices[dev].attached++;
	int64_t b = m->flags & MEM_HAS_BYTES && m->bytes > 0 ? m->bytes : 0;
	int64_t inc = m->flags & MEM_HAS_BYTES ? m->bytes : 0; /* absent Bytes: the plugin's default 0 */
	bool self = true;
	for (int d = tr->slices[node].depth; d >= 0; d--) {
		uint32_t i = self ? node : row_holding(t, tr, (uint16_t)d, m->ts, tables_counts_as_op);
		if (i == TT_NONE)
			continue;
		const struct slice *s = &tr->slices[i];
		bool added;
		uint32_t row = hash_get(rows, (uint64_t)dev << 32 | s->name, 0, r->nrows, &added);
		if (added) {
			if (r->nrows == *rows_cap)
				r->rows = xreallocarray(r->rows, *rows_cap = *rows_cap ? *rows_cap * 2 : 64, sizeof *r->rows);
			memset(&r->rows[row], 0, sizeof *r->rows);
			r->rows[row].device = dev;
			r->rows[row].name = s->name;
			r->rows[row].top = (struct slice_ref){ TT_NONE, TT_NONE };
			r->rows[row].top_bytes = -1;
			r->nrows++;
		}
		struct mem_op_row *o = &r->rows[row];
		if (b > 0)
			o->allocs++;
		o->alloc_bytes = tt_add(o->alloc_bytes, b);
		o->increase = tt_add(o->increase, inc);
		if (self) {
			if (b > 0)
				o->self_allocs++;
			o->self_alloc_bytes = tt_add(o->self_alloc_bytes, b);
			o->self_increase = tt_add(o->self_increase, inc);
			uint32_t k = hash_get(inst, (uint64_t)dev << 32 | m->track, i, *ninst, &added);
			if (added) {
				if ((*ninst & (*ninst - 1)) == 0) /* a power of two: full */
					*inst_bytes = xreallocarray(*inst_bytes, *ninst ? *ninst * 2 : 1, sizeof **inst_bytes);
				(*inst_bytes)[(*ninst)++] = 0;
			}
			int64_t sum = (*inst_bytes)[k] = tt_add((*inst_bytes)[k], b);
			if (sum > o->top_bytes) {
				o->top_bytes = sum;
				o->top = (struct slice_ref){ m->track, i };
			}
		}
		self = false;
	}
}

static void count_calls(const struct trace *t, struct memory_report *r)
{
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	uint64_t *calls = xcalloc(ns, sizeof *calls);
	uint8_t *want = xcalloc(ns, 1);
	for (uint32_t i = 0; i < r->nrows; i++)
		if (r->rows[i].name < ns)
			want[r->rows[i].name] = 1;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->name < ns && want[s->name] && tables_counts_as_op(t, s))
				calls[s->name]++;
		}
	}
	for (uint32_t i = 0; i < r->nrows; i++)
		r->rows[i].calls = r->rows[i].name < ns ? calls[r->rows[i].name] : 0;
	free(calls);
	free(want);
}

void memory_analyse(const struct trace *t, struct memory_report *r)
{
	memset(r, 0, sizeof *r);
	r->samples = t->nmem;
	sort_t = t;
	/* CPU steps (the plugin's), in time order */
	r->steps = xmalloc((t->nsteps ? t->nsteps : 1) * sizeof *r->steps);
	for (uint32_t i = 0; i < t->nsteps; i++)
		if (!t->steps[i].gpu)
			r->steps[r->nsteps++] = i;
	sort_steps(r->steps, r->nsteps);
	if (t->nmem == 0)
		return;
	uint32_t *dev_of = xmalloc(t->nmem * sizeof *dev_of);
	for (uint32_t i = 0; i < t->nmem; i++)
		dev_of[i] = device_of(r, &t->mem[i]);
	/* device_of inserts in order: positions settle only once all are known */
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_sample *m = &t->mem[i];
		uint32_t d = 0;
		while (r->devices[d].type != m->device_type || r->devices[d].id != m->device_id)
			d++;
		dev_of[i] = d;
		struct mem_device *md = &r->devices[d];
		md->samples++;
		if (!(m->flags & MEM_HAS_ADDR))
			md->without_addr++;
		if (m->bytes > 0) {
			md->allocations++;
			md->allocated_bytes = tt_add(md->allocated_bytes, m->bytes);
		}
		if (m->total_allocated >= 0 && m->total_reserved >= 0)
			md->n++;
	}
	for (uint32_t d = 0; d < r->ndevices; d++) {
		struct mem_device *md = &r->devices[d];
		size_t n = md->n ? md->n : 1;
		md->sample = xmalloc(n * sizeof *md->sample);
		md->ts = xmalloc(n * sizeof *md->ts);
		md->allocated = xmalloc(n * sizeof *md->allocated);
		md->reserved = xmalloc(n * sizeof *md->reserved);
		md->n = 0;
	}
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_sample *m = &t->mem[i];
		if (m->total_allocated >= 0 && m->total_reserved >= 0) {
			struct mem_device *md = &r->devices[dev_of[i]];
			md->sample[md->n++] = i;
		}
	}
	for (uint32_t d = 0; d < r->ndevices; d++) {
		sort_samples(r->devices[d].sample, r->devices[d].n);
		analyse_curve(t, r, &r->devices[d]);
	}
	/* operators */
	struct hash rows = { 0 }, inst = { 0 };
	int64_t *inst_bytes = NULL;
	uint32_t ninst = 0, rows_cap = 0;
	for (uint32_t i = 0; i < t->nmem; i++)
		attach(t, r, &rows, &inst, &inst_bytes, &ninst, &rows_cap, dev_of[i], &t->mem[i]);
	free(rows.s);
	free(inst.s);
	free(inst_bytes);
	free(dev_of);
	count_calls(t, r);
	sort_rows(r->rows, r->nrows);
}

const struct mem_op_row *memory_op_row(const struct memory_report *r, uint32_t device, uint32_t name)
{
	for (uint32_t i = 0; i < r->nrows; i++)
		if (r->rows[i].device == device && r->rows[i].name == name)
			return &r->rows[i];
	return NULL;
}

void memory_free(struct memory_report *r)
{
	for (uint32_t d = 0; d < r->ndevices; d++) {
		struct mem_device *md = &r->devices[d];
		free(md->ts);
		free(md->allocated);
		free(md->reserved);
		free(md->sample);
		free(md->step_allocated);
	}
	free(r->devices);
	free(r->rows);
	free(r->steps);
	memset(r, 0, sizeof *r);
}
