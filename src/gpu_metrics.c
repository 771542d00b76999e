/* gpu_metrics.c: the plugin's GPU Summary figures per device (see gpu_metrics.h). One
 * pass gathers the kernels; each device is then swept in time order. */
#include "src/gpu_metrics.h"

#include <math.h>
#include <stdlib.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/kernels.h"
#include "src/kernel_class.h"

/* 32 bytes a kernel: the 1 GB trace has a million of them. */
struct kcall {
	int64_t start, end;
	float bps, occ;
	int32_t device;
};

static inline bool kcall_less(const struct kcall *a, const struct kcall *b)
{
	return a->device != b->device ? a->device < b->device : a->start < b->start;
}
SORT_DEFINE(sort_kcalls, struct kcall, kcall_less)

/* A running kernel of the SM-efficiency sweep: when it ends, and its blocks per SM. */
struct active {
	int64_t end;
	double bps;
};

static void heap_push(struct active *h, uint32_t *n, struct active x)
{
	uint32_t i = (*n)++;
	while (i > 0 && h[(i - 1) / 2].end > x.end) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static struct active heap_pop(struct active *h, uint32_t *n)
{
	struct active top = h[0], x = h[--*n];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].end < h[c].end)
			c++;
		if (h[c].end >= x.end)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = x;
	return top;
}

static inline int64_t clip_len(int64_t a, int64_t b, int64_t lo, int64_t hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	return b > a ? b - a : 0;
}

/* Where a sweep's segments go: summed over [lo, hi) (the figure), or appended to a curve
 * (the timeline). */
struct sink {
	int64_t lo, hi;
	double integral;
	struct gpu_curve *curve; /* NULL: sum only */
	uint32_t cap;
};

/* Adds [A, B) at height H (> 0) to K: the segments come in time order and do not overlap. */
static void sink_add(struct sink *k, int64_t a, int64_t b, double h)
{
	if (b <= a)
		return;
	if (k->curve == NULL) {
		k->integral += h * (double)clip_len(a, b, k->lo, k->hi);
		return;
	}
	struct gpu_curve *c = k->curve;
	double last = c->n > 0 ? c->cum[c->n - 1] : 0;
	if (c->n + 2 > k->cap) {
		k->cap = k->cap ? k->cap * 2 : 256;
		c->t = xreallocarray(c->t, k->cap, sizeof *c->t);
		c->cum = xreallocarray(c->cum, k->cap, sizeof *c->cum);
	}
	if (c->n >= 2 && c->t[c->n - 1] == a &&
	    (c->cum[c->n - 1] - c->cum[c->n - 2]) == h * (double)(c->t[c->n - 1] - c->t[c->n - 2])) {
		/* the same height going on: the last segment grows */
		c->t[c->n - 1] = b;
		c->cum[c->n - 1] = last + h * (double)(b - a);
		return;
	}
	if (c->n == 0 || c->t[c->n - 1] != a) { /* a hole before: flat */
		c->t[c->n] = a;
		c->cum[c->n++] = last;
	}
	c->t[c->n] = b;
	c->cum[c->n++] = last + h * (double)(b - a);
}

/* min(1, Σ bps) over time of the N kernels K (one device, by start), as segments into
 * SINK: a sweep over starts in order with the running kernels in a heap by end, so that
 * only the kernels running at once are held (a sort of every start and end held far more:
 * bench/RESULTS.md, "Figures moved out of the code"). *ANY: some kernel had blocks per SM. */
static void sm_sweep(const struct kcall *k, uint32_t n, struct sink *sink, bool *any)
{
	uint32_t cap = 64, na = 0;
	struct active *h = xmalloc(cap * sizeof *h);
	double sum = 0;
	uint32_t i = 0;
	while (i < n && !(k[i].bps > 0)) /* NAN (absent) and 0 add nothing, as in the plugin */
		i++;
	while (i < n || na > 0) {
		/* the next time anything starts or ends; everything at it is applied together */
		int64_t t = i < n && (na == 0 || k[i].start < h[0].end) ? k[i].start : h[0].end;
		while (na > 0 && h[0].end == t)
			sum -= heap_pop(h, &na).bps;
		for (; i < n && k[i].start == t; i++) {
			if (!(k[i].bps > 0))
				continue;
			*any = true;
			if (na == cap)
				h = xreallocarray(h, cap *= 2, sizeof *h);
			heap_push(h, &na, (struct active){ k[i].end, k[i].bps });
			sum += k[i].bps;
		}
		while (i < n && !(k[i].bps > 0))
			i++;
		if (na == 0)
			sum = 0; /* no float residue between busy periods */
		int64_t next = i < n && (na == 0 || k[i].start < h[0].end) ? k[i].start : na > 0 ? h[0].end : t;
		if (sum > 0)
			sink_add(sink, t, next, sum < 1 ? sum : 1);
	}
	free(h);
}

/* The union of the N kernels K (one device, by start), as segments of height 1 into SINK. */
static void union_sweep(const struct kcall *k, uint32_t n, struct sink *sink)
{
	int64_t cur_a = 0, cur_b = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		if (k[i].start > cur_b) {
			if (cur_b != INT64_MIN)
				sink_add(sink, cur_a, cur_b, 1);
			cur_a = k[i].start;
			cur_b = k[i].end;
		} else if (k[i].end > cur_b) {
			cur_b = k[i].end;
		}
	}
	if (cur_b != INT64_MIN)
		sink_add(sink, cur_a, cur_b, 1);
}

static void device_figures(const struct trace *t, const struct kcall *k, uint32_t n, int64_t lo, int64_t hi,
                           struct gpu_metrics_device *d)
{
	(void)t;
	double win = hi > lo ? (double)(hi - lo) : 0;
	/* utilization: the union of the kernels inside the window (integers: exact in a double) */
	struct sink u = { lo, hi, 0, NULL, 0 };
	union_sweep(k, n, &u);
	d->kernel_busy = (int64_t)u.integral;
	d->utilization = win > 0 ? u.integral / win : NAN;
	d->sm_efficiency = NAN;
	struct sink sm = { lo, hi, 0, NULL, 0 };
	sm_sweep(k, n, &sm, &d->has_bps);
	if (d->has_bps && win > 0)
		d->sm_efficiency = sm.integral / win;
	/* occupancy: weighted by each kernel's time inside the window; overlaps each count */
	double occ_w = 0, occ_d = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(k[i].occ >= 0))
			continue;
		d->has_occ = true;
		double len = (double)clip_len(k[i].start, k[i].end, lo, hi);
		occ_w += k[i].occ * len;
		occ_d += len;
	}
	d->occupancy = occ_d > 0 ? occ_w / occ_d : NAN;
	d->tensor_cores = d->kernel_time > 0 ? (double)d->tc_time / (double)d->kernel_time : NAN;
	d->unit_unknown = d->kernel_time > 0 ? (double)d->unknown_time / (double)d->kernel_time : NAN;
	d->tensor_cores_plugin = d->kernel_time > 0 ? (double)d->tc_plugin_time / (double)d->kernel_time : NAN;
}

/* The device's place in M (added when new); the last found is tried first. */
static struct gpu_metrics_device *device_of(struct gpu_metrics *m, uint32_t *cap, int32_t dev, uint32_t *last)
{
	if (*last < m->n && m->devices[*last].device == dev)
		return &m->devices[*last];
	for (uint32_t d = 0; d < m->n; d++)
		if (m->devices[d].device == dev)
			return &m->devices[*last = d];
	if (m->n == *cap)
		m->devices = xreallocarray(m->devices, *cap = *cap ? *cap * 2 : 4, sizeof *m->devices);
	m->devices[m->n] = (struct gpu_metrics_device){ .device = dev };
	return &m->devices[*last = m->n++];
}

static int device_cmp(const void *a, const void *b)
{
	const struct gpu_metrics_device *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

/* The kernels of T, sorted by device then start, into *N of them; with M, each kernel also
 * counts in its device's figures there (calls, time, Tensor Cores; devices added in the
 * order met). */
static struct kcall *gather(const struct trace *t, struct gpu_metrics *m, uint32_t *pn)
{
	uint64_t nk = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (t->tracks[ti].kind == TRACK_GPU_COMPUTE || t->tracks[ti].kind == TRACK_GPU_COMM)
			nk += t->tracks[ti].gpu_slices;
	struct kcall *k = xmalloc((size_t)(nk ? nk : 1) * sizeof *k);
	/* Tensor Core verdicts per name, decided once per string */
	uint8_t *tc = m != NULL ? xcalloc(t->strings.n ? t->strings.n : 1, 1)
	                        : NULL; /* 0 unknown, else 1 | 2 ours | 4 plugin's */
	uint32_t n = 0, dcap = 0, last = 0;
	bool sorted = true;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (i + TT_PREFETCH_AHEAD < tr->nslices) /* its GPU fact, in no order the cache can guess */
				gpu_fact_prefetch(t, track_gpu_at(tr, i + TT_PREFETCH_AHEAD));
			if (slice_cls(t, s) != SC_KERNEL || slice_name(t, s) >= t->strings.n)
				continue;
			const struct gpu_info *g = slice_gpu(tr, s) != TT_NONE ? &t->gpu[slice_gpu(tr, s)] : NULL;
			int32_t dev = g && gpu_device(t, g) >= 0 ? gpu_device(t, g) : tr->device;
			if (dev < 0)
				dev = 0;
			if (m != NULL) {
				if (tc[slice_name(t, s)] ==
				    0) { /* 1: seen; 2: matrix unit; 4: on the plugin's list; 8: unit unknown */
					const char *nm = strtab_get(&t->strings, slice_name(t, s));
					struct kernel_class kc;
					kernel_class_of(nm, KC_ACT_KERNEL, tr->kind == TRACK_GPU_COMM, &kc);
					tc[slice_name(t, s)] = (uint8_t)(1 | (kc.unit == KC_UNIT_MATRIX ? 2 : 0) |
					                                 (kernel_on_plugin_tc_list(nm) ? 4 : 0) |
					                                 (kc.unit == KC_UNIT_UNKNOWN ? 8 : 0));
				}
				struct gpu_metrics_device *d = device_of(m, &dcap, dev, &last);
				d->kernels++;
				d->kernel_time = tt_add(d->kernel_time, slice_dur(tr, s));
				if (tc[slice_name(t, s)] & 2)
					d->tc_time = tt_add(d->tc_time, slice_dur(tr, s));
				if (tc[slice_name(t, s)] & 4)
					d->tc_plugin_time = tt_add(d->tc_plugin_time, slice_dur(tr, s));
				if (tc[slice_name(t, s)] & 8)
					d->unknown_time = tt_add(d->unknown_time, slice_dur(tr, s));
			}
			if (n == nk) /* the tracks' counts are exact: this is a guard */
				k = xreallocarray(k, nk = nk * 2 + 1024, sizeof *k);
			k[n] = (struct kcall){ s->ts, tt_add(s->ts, slice_dur(tr, s)),
				               g ? gpu_launch(t, g)->blocks_per_sm : NAN,
				               g ? gpu_launch(t, g)->occupancy : NAN, dev };
			if (n > 0 && kcall_less(&k[n], &k[n - 1]))
				sorted = false;
			n++;
		}
	}
	free(tc);
	if (!sorted) /* one stream per device comes sorted */
		sort_kcalls(k, n);
	*pn = n;
	return k;
}

void gpu_metrics_analyse(const struct trace *t, int64_t start, int64_t end, struct gpu_metrics *m)
{
	*m = (struct gpu_metrics){ .start = start, .end = end };
	uint32_t n;
	struct kcall *k = gather(t, m, &n);
	if (n == 0) {
		free(m->devices);
		m->devices = NULL;
		m->n = 0;
		free(k);
		return;
	}
	qsort(m->devices, m->n, sizeof *m->devices, device_cmp);
	for (uint32_t i = 0, d = 0; i < n; d++) {
		uint32_t j = i;
		while (j < n && k[j].device == k[i].device)
			j++;
		device_figures(t, k + i, j - i, start, end, &m->devices[d]);
		i = j;
	}
	free(k);
}

void gpu_curves_analyse(const struct trace *t, struct gpu_curves *c)
{
	*c = (struct gpu_curves){ 0 };
	uint32_t n, cap = 0;
	struct kcall *k = gather(t, NULL, &n);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && k[j].device == k[i].device)
			j++;
		if (c->n == cap)
			c->devices = xreallocarray(c->devices, cap = cap ? cap * 2 : 4, sizeof *c->devices);
		struct gpu_curves_device *d = &c->devices[c->n++];
		*d = (struct gpu_curves_device){ .device = k[i].device };
		struct sink u = { 0, 0, 0, &d->busy, 0 }, sm = { 0, 0, 0, &d->sm, 0 };
		union_sweep(k + i, j - i, &u);
		sm_sweep(k + i, j - i, &sm, &d->has_bps);
		i = j;
	}
	free(k);
}

void gpu_curves_free(struct gpu_curves *c)
{
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->devices[i].busy.t);
		free(c->devices[i].busy.cum);
		free(c->devices[i].sm.t);
		free(c->devices[i].sm.cum);
	}
	free(c->devices);
	*c = (struct gpu_curves){ 0 };
}

const struct gpu_curves_device *gpu_curves_device(const struct gpu_curves *c, int32_t device)
{
	for (uint32_t i = 0; i < c->n; i++) /* by device number: a handful */
		if (c->devices[i].device == device)
			return &c->devices[i];
	return NULL;
}

/* ∫ of C from its start to X. */
static double curve_at(const struct gpu_curve *c, int64_t x)
{
	if (c->n == 0 || x <= c->t[0])
		return 0;
	if (x >= c->t[c->n - 1])
		return c->cum[c->n - 1];
	uint32_t lo = 0, hi = c->n - 1; /* the last breakpoint at or before x: t[lo] <= x < t[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (c->t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	double rise = c->cum[hi] - c->cum[lo];
	if (rise == 0)
		return c->cum[lo];
	int64_t run = c->t[hi] - c->t[lo];
	if (rise == (double)run) /* height 1 (the union): integers stay exact */
		return c->cum[lo] + (double)(x - c->t[lo]);
	return c->cum[lo] + rise * ((double)(x - c->t[lo]) / (double)run);
}

double gpu_curve_integral(const struct gpu_curve *c, int64_t a, int64_t b)
{
	return b > a ? curve_at(c, b) - curve_at(c, a) : 0;
}

int64_t gpu_bucket_ns(int64_t range)
{
	int64_t b = 1000; /* 1 us */
	while (b <= INT64_MAX / 1000 && range > 100 * b)
		b *= 10;
	return b;
}

bool gpu_bucket_of(int64_t start, int64_t end, int64_t size, int64_t x, int64_t *a, int64_t *b)
{
	if (x < start || x >= end || size <= 0)
		return false;
	int64_t nb = (end - start) / size; /* the plugin: int(range / size) buckets, the last one longer */
	if (nb < 1)
		nb = 1;
	int64_t i = (x - start) / size;
	if (i >= nb - 1) {
		*a = start + (nb - 1) * size;
		*b = end;
	} else {
		*a = start + i * size;
		*b = *a + size;
	}
	return true;
}

void gpu_metrics_free(struct gpu_metrics *m)
{
	free(m->devices);
	*m = (struct gpu_metrics){ 0 };
}
