/* memory.c: the Memory view's figures (see memory.h).
 *
 * One pass over the samples sorts them into devices; each device's curve is sorted by
 * time and scanned for its peaks (the operator running at a peak is found in the index,
 * src/index.h). The samples are then sorted by thread and time and swept with the
 * thread's slices, so that each meets the slices open at its time, and its bytes go to
 * the operator names among them through a hash keyed by (device, name); a second hash
 * keyed by (device, instance) finds the instance that allocated most for Enter. */
#include "src/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "src/ops.h"

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
	/* splitmix64's finaliser: every key bit reaches the low bits the table uses */
	uint64_t h = a ^ b * 0x9e3779b97f4a7c15ull;
	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ h >> 27) * 0x94d049bb133111ebull;
	return (uint32_t)(h ^ h >> 31);
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
	static const char *const names[] = { "cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
		                             "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
		                             "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone" };
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
static uint32_t first_at(const struct mem_device *d, int64_t t) { return i64_lower_bound(d->ts, d->n, t); }

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
	return slice_cls(t, s) == SC_CPU_OP || slice_cls(t, s) == SC_USER_ANNOTATION || slice_cls(t, s) == SC_PYTHON ||
	       ops_counts_as_op(t, s);
}

/* The slice of row R of TR whose [start, end) holds TS and that WANT accepts, or TT_NONE. */
static uint32_t row_holding(const struct trace *t, const struct track *tr, uint16_t r, int64_t ts,
                            bool (*want)(const struct trace *, const struct slice *))
{
	uint32_t a, b;
	index_row_range(tr, r, ts, ts + 1, &a, &b);
	for (uint32_t k = a; k < b; k++) {
		uint32_t i = row_idx(&tr->rows[r], k);
		const struct slice *s = &tr->slices[i];
		if (s->ts <= ts && ts - s->ts < slice_dur(tr, s) && want(t, s))
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
	for (int r = slice_depth(t, &tr->slices[deepest]); r >= 0; r--) {
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

/* The operator running on the thread of sample K when it was taken. */
static struct slice_ref op_running(const struct trace *t, uint32_t k)
{
	uint32_t ti = mem_run_of(t, k)->track;
	const struct track *tr = cpu_track(t, ti);
	uint32_t i = tr != NULL ? innermost(t, tr, t->mem[k].ts, ops_counts_as_op) : TT_NONE;
	return i == TT_NONE ? (struct slice_ref){ TT_NONE, TT_NONE } : (struct slice_ref){ ti, i };
}

/* ---- the analysis ----------------------------------------------------------------------- */

static bool sample_less(const uint32_t *x, const uint32_t *y, const struct trace *t)
{
	int64_t a = t->mem[*x].ts, b = t->mem[*y].ts;
	return a != b ? a < b : *x < *y;
}
SORT_DEFINE_CTX(sort_samples, uint32_t, const struct trace *, sample_less)

static bool step_less(const uint32_t *x, const uint32_t *y, const struct trace *t)
{
	int64_t a = t->steps[*x].ts, b = t->steps[*y].ts;
	return a != b ? a < b : *x < *y;
}
SORT_DEFINE_CTX(sort_steps, uint32_t, const struct trace *, step_less)

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

static uint32_t device_of(struct memory_report *r, const struct mem_run *m)
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

/* The first of D's curve samples at or after T, found through their index in T's samples
 * (the curve's points are made only for drawing: memory_points). */
static uint32_t first_sample_at(const struct trace *t, const struct mem_device *d, int64_t at)
{
	uint32_t lo = 0, hi = d->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->mem[d->sample[mid]].ts < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void analyse_curve(const struct trace *t, const struct memory_report *r, struct mem_device *d)
{
	uint32_t peak_a = 0, peak_r = 0, hint = 0;
	for (uint32_t k = 0; k < d->n; k++) {
		const struct mem_sample ms = mem_sample_near(t, d->sample[k], &hint), *m = &ms;
		if (k == 0 || m->total_allocated > d->peak_allocated) {
			d->peak_allocated = m->total_allocated;
			d->peak_allocated_ts = m->ts;
			d->reserved_at_peak = m->total_reserved;
			peak_a = k;
		}
		if (k == 0 || m->total_reserved > d->peak_reserved) {
			d->peak_reserved = m->total_reserved;
			d->peak_reserved_ts = m->ts;
			peak_r = k;
		}
		int64_t unused = tt_sub(m->total_reserved, m->total_allocated);
		if (k == 0 || unused > d->max_unused) {
			d->max_unused = unused;
			d->max_unused_ts = m->ts;
		}
	}
	d->peak_allocated_op = d->peak_reserved_op = (struct slice_ref){ TT_NONE, TT_NONE };
	if (d->n > 0) {
		d->peak_allocated_op = op_running(t, d->sample[peak_a]);
		d->peak_reserved_op = op_running(t, d->sample[peak_r]);
	}
	d->step_allocated = xmalloc((r->nsteps ? r->nsteps : 1) * sizeof *d->step_allocated);
	for (uint32_t s = 0; s < r->nsteps; s++) {
		/* the state when the step begins: the last sample at or before its start */
		int64_t at = t->steps[r->steps[s]].ts;
		uint32_t i = first_sample_at(t, d, at == INT64_MAX ? at : at + 1);
		d->step_allocated[s] = i > 0 ? t->mem[d->sample[i - 1]].total_allocated : -1;
	}
}

/* The curve of device D derived from its samples' Bytes (memory.h), when none of its
 * samples has the totals; BYTES: how many of them have Bytes. */
static void derive_curve(const struct trace *t, const struct memory_report *r, struct mem_device *d, uint32_t bytes,
                         uint32_t dev, const uint32_t *dev_of)
{
	struct mem_derived *x = &d->derived;
	x->peak_op = (struct slice_ref){ TT_NONE, TT_NONE };
	if (d->n > 0 || bytes == 0)
		return;
	x->sample = xmalloc(bytes * sizeof *x->sample);
	x->ts = xmalloc(bytes * sizeof *x->ts);
	x->allocated = xmalloc(bytes * sizeof *x->allocated);
	uint32_t hint = 0;
	for (uint32_t i = 0; i < t->nmem; i++)
		if (dev_of[i] == dev && mem_run_near(t, i, &hint)->flags & MEM_HAS_BYTES)
			x->sample[x->n++] = i;
	sort_samples(x->sample, x->n, t);
	int64_t sum = 0, low = 0;
	for (uint32_t k = 0; k < x->n; k++) {
		const struct mem_sample ms = mem_sample_near(t, x->sample[k], &hint), *m = &ms;
		sum = tt_add(sum, m->bytes);
		x->ts[k] = m->ts;
		x->allocated[k] = sum;
		if (sum < low)
			low = sum;
	}
	x->base = -low;
	uint32_t peak = 0;
	for (uint32_t k = 0; k < x->n; k++) {
		x->allocated[k] = tt_add(x->allocated[k], x->base);
		if (k == 0 || x->allocated[k] > x->peak) {
			x->peak = x->allocated[k];
			x->peak_ts = x->ts[k];
			peak = k;
		}
	}
	x->peak_op = op_running(t, x->sample[peak]);
	x->step_allocated = xmalloc((r->nsteps ? r->nsteps : 1) * sizeof *x->step_allocated);
	for (uint32_t s = 0; s < r->nsteps; s++) {
		int64_t at = t->steps[r->steps[s]].ts;
		uint32_t i = i64_lower_bound(x->ts, x->n, at == INT64_MAX ? at : at + 1);
		x->step_allocated[s] = i > 0 ? x->allocated[i - 1] : -1;
	}
}

/* The slices of one thread open at a time, outermost first: a sweep over the thread's
 * slices (in start order, longer first) and its samples (in time order) finds every
 * sample's enclosing slices at once, where looking each up in the index would cost a
 * binary search per nesting level per sample. Each open slice keeps the bytes its own
 * samples allocated and its row: when it closes, it may be its row's top instance. */
struct open_slice {
	uint32_t idx;      /* in the track's slices */
	uint32_t row, dev; /* its row in memory_report.rows for device DEV, or TT_NONE */
	int64_t self;      /* bytes its own samples allocated */
};

struct sweep {
	const struct trace *t;
	struct memory_report *r;
	struct hash rows; /* (device, name) -> row */
	uint32_t rows_cap;
	uint32_t ti; /* the thread swept */
	struct open_slice *v;
	uint32_t n, cap;
	uint32_t next; /* the next slice of the thread to open */
};

static int64_t end_of(const struct track *tr, const struct slice *s) { return tt_add(s->ts, slice_dur(tr, s)); }

static bool holds(const struct track *tr, const struct slice *s, int64_t ts)
{
	return s->ts <= ts && ts < end_of(tr, s);
}

static void close_top(struct sweep *w)
{
	const struct open_slice *o = &w->v[--w->n];
	if (o->row == TT_NONE || o->self <= 0)
		return;
	struct mem_op_row *row = &w->r->rows[o->row];
	if (o->self > row->top_bytes) { /* ties: the first to close */
		row->top_bytes = o->self;
		row->top = (struct slice_ref){ w->ti, o->idx };
	}
}

/* Opens the thread's slices that start at or before TS and closes those that end by then. */
static void sweep_to(struct sweep *w, int64_t ts)
{
	const struct track *tr = &w->t->tracks[w->ti];
	while (w->next < tr->nslices && tr->slices[w->next].ts <= ts) {
		const struct slice *s = &tr->slices[w->next];
		while (w->n > 0 && end_of(tr, &tr->slices[w->v[w->n - 1].idx]) <= s->ts)
			close_top(w);
		if (w->n == w->cap)
			w->v = xreallocarray(w->v, w->cap = w->cap ? w->cap * 2 : 64, sizeof *w->v);
		w->v[w->n++] = (struct open_slice){ w->next++, TT_NONE, TT_NONE, 0 };
	}
	while (w->n > 0 && end_of(tr, &tr->slices[w->v[w->n - 1].idx]) <= ts)
		close_top(w);
}

static uint32_t row_of(struct sweep *w, uint32_t dev, uint32_t name)
{
	bool added;
	struct memory_report *r = w->r;
	uint32_t row = hash_get(&w->rows, (uint64_t)dev << 32 | name, 0, r->nrows, &added);
	if (added) {
		if (r->nrows == w->rows_cap)
			r->rows = xreallocarray(r->rows, w->rows_cap = w->rows_cap ? w->rows_cap * 2 : 64,
			                        sizeof *r->rows);
		memset(&r->rows[row], 0, sizeof *r->rows);
		r->rows[row].device = dev;
		r->rows[row].name = name;
		r->rows[row].top = (struct slice_ref){ TT_NONE, TT_NONE };
		r->rows[row].top_bytes = 0;
		r->nrows++;
	}
	return row;
}

/* Adds sample M (of device DEV) to the operators among the open slices holding it. */
static void attach(struct sweep *w, uint32_t dev, const struct mem_sample *m)
{
	const struct trace *t = w->t;
	const struct track *tr = &t->tracks[w->ti];
	int node = (int)w->n - 1;
	while (node >= 0 && !(holds(tr, &tr->slices[w->v[node].idx], m->ts) && is_node(t, &tr->slices[w->v[node].idx])))
		node--;
	if (node < 0 || !ops_counts_as_op(t, &tr->slices[w->v[node].idx]))
		return; /* no operator holds it: the plugin's "staled" records */
	w->r->devices[dev].attached++;
	int64_t b = m->flags & MEM_HAS_BYTES && m->bytes > 0 ? m->bytes : 0;
	int64_t inc = m->flags & MEM_HAS_BYTES ? m->bytes : 0; /* absent Bytes: the plugin's default 0 */
	for (int k = node; k >= 0; k--) {
		struct open_slice *o = &w->v[k];
		const struct slice *s = &tr->slices[o->idx];
		bool self = k == node;
		if (!self && !(holds(tr, s, m->ts) && ops_counts_as_op(t, s)))
			continue;
		uint32_t row = o->dev == dev ? o->row : row_of(w, dev, slice_name(t, s));
		struct mem_op_row *x = &w->r->rows[row];
		if (b > 0)
			x->allocs++;
		x->alloc_bytes = tt_add(x->alloc_bytes, b);
		x->increase = tt_add(x->increase, inc);
		if (!self) {
			if (o->self == 0) { /* its row, for the next sample (the top waits for self bytes) */
				o->row = row;
				o->dev = dev;
			}
			continue;
		}
		if (b > 0)
			x->self_allocs++;
		x->self_alloc_bytes = tt_add(x->self_alloc_bytes, b);
		x->self_increase = tt_add(x->self_increase, inc);
		if (o->dev != dev && o->self > 0)
			continue; /* its bytes count on the device it met first (one instance, one top) */
		o->row = row;
		o->dev = dev;
		o->self = tt_add(o->self, b);
	}
}

/* A sample on a CPU thread, with the thread (its run's: looked up once, not in the sort). */
struct thread_sample {
	uint32_t track, i;
};

static bool by_thread_less(const struct thread_sample *x, const struct thread_sample *y, const struct trace *t)
{
	if (x->track != y->track)
		return x->track < y->track;
	int64_t a = t->mem[x->i].ts, b = t->mem[y->i].ts;
	return a != b ? a < b : x->i < y->i;
}
SORT_DEFINE_CTX(sort_by_thread, struct thread_sample, const struct trace *, by_thread_less)

static void attach_all(const struct trace *t, struct memory_report *r, const uint32_t *dev_of)
{
	struct thread_sample *order = xmalloc(t->nmem * sizeof *order);
	uint32_t n = 0, hint = 0;
	for (uint32_t i = 0; i < t->nmem; i++) {
		uint32_t track = mem_run_near(t, i, &hint)->track;
		if (cpu_track(t, track) != NULL)
			order[n++] = (struct thread_sample){ track, i };
	}
	sort_by_thread(order, n, t);
	struct sweep w = { .t = t, .r = r };
	for (uint32_t k = 0; k < n; k++) {
		const struct mem_sample ms = mem_sample_near(t, order[k].i, &hint), *m = &ms;
		if (k == 0 || m->track != w.ti) {
			while (w.n > 0)
				close_top(&w);
			w.ti = m->track;
			w.next = 0;
		}
		sweep_to(&w, m->ts);
		attach(&w, dev_of[order[k].i], m);
	}
	while (w.n > 0)
		close_top(&w);
	free(w.v);
	free(order);
	free(w.rows.s);
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
			if (slice_name(t, s) < ns && want[slice_name(t, s)] && ops_counts_as_op(t, s))
				calls[slice_name(t, s)]++;
		}
	}
	for (uint32_t i = 0; i < r->nrows; i++)
		r->rows[i].calls = r->rows[i].name < ns ? calls[r->rows[i].name] : 0;
	free(calls);
	free(want);
}

void memory_curves(const struct trace *t, struct memory_report *r)
{
	memset(r, 0, sizeof *r);
	r->samples = t->nmem;
	/* CPU steps (the plugin's), in time order */
	r->steps = xmalloc((t->nsteps ? t->nsteps : 1) * sizeof *r->steps);
	for (uint32_t i = 0; i < t->nsteps; i++)
		if (!t->steps[i].gpu)
			r->steps[r->nsteps++] = i;
	sort_steps(r->steps, r->nsteps, t);
	if (t->nmem == 0)
		return;
	uint32_t *dev_of = xmalloc(t->nmem * sizeof *dev_of), hint = 0;
	for (uint32_t i = 0; i < t->nmem; i++)
		dev_of[i] = device_of(r, mem_run_near(t, i, &hint));
	/* device_of inserts in order: positions settle only once all are known */
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_sample ms = mem_sample_near(t, i, &hint), *m = &ms;
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
		md->n = 0;
	}
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_sample ms = mem_sample_near(t, i, &hint), *m = &ms;
		if (m->total_allocated >= 0 && m->total_reserved >= 0) {
			struct mem_device *md = &r->devices[dev_of[i]];
			md->sample[md->n++] = i;
		}
	}
	uint32_t *bytes = xcalloc(r->ndevices, sizeof *bytes);
	for (uint32_t i = 0; i < t->nmem; i++)
		bytes[dev_of[i]] += (mem_run_near(t, i, &hint)->flags & MEM_HAS_BYTES) != 0;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		sort_samples(r->devices[d].sample, r->devices[d].n, t);
		analyse_curve(t, r, &r->devices[d]);
		derive_curve(t, r, &r->devices[d], bytes[d], d, dev_of);
	}
	free(bytes);
	free(dev_of);
}

void memory_attach_ops(const struct trace *t, struct memory_report *r)
{
	if (r->ops_attached)
		return;
	r->ops_attached = true;
	if (t->nmem == 0)
		return;
	uint32_t *dev_of = xmalloc(t->nmem * sizeof *dev_of);
	uint32_t hint = 0;
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_run *m = mem_run_near(t, i, &hint);
		uint32_t d = 0;
		while (d + 1 < r->ndevices &&
		       (r->devices[d].type != m->device_type || r->devices[d].id != m->device_id))
			d++;
		dev_of[i] = d;
	}
	attach_all(t, r, dev_of);
	free(dev_of);
	count_calls(t, r);
	sort_rows(r->rows, r->nrows);
}

void memory_points(const struct trace *t, struct memory_report *r)
{
	for (uint32_t i = 0; i < r->ndevices; i++) {
		struct mem_device *d = &r->devices[i];
		if (d->ts != NULL)
			continue;
		size_t n = d->n ? d->n : 1;
		d->ts = xmalloc(n * sizeof *d->ts);
		d->allocated = xmalloc(n * sizeof *d->allocated);
		d->reserved = xmalloc(n * sizeof *d->reserved);
		uint32_t hint = 0;
		for (uint32_t k = 0; k < d->n; k++) {
			const struct mem_sample ms = mem_sample_near(t, d->sample[k], &hint), *m = &ms;
			d->ts[k] = m->ts;
			d->allocated[k] = m->total_allocated;
			d->reserved[k] = m->total_reserved;
		}
	}
}

void memory_analyse(const struct trace *t, struct memory_report *r)
{
	memory_curves(t, r);
	memory_points(t, r);
	memory_attach_ops(t, r);
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
		free(md->derived.ts);
		free(md->derived.allocated);
		free(md->derived.sample);
		free(md->derived.step_allocated);
	}
	free(r->devices);
	free(r->rows);
	free(r->steps);
	memset(r, 0, sizeof *r);
}
