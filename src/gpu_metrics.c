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

/* ∫ min(1, Σ bps) over [lo, hi) of the N kernels K (one device, by start): a sweep over
 * starts in order with the running kernels in a heap by end, so that only the kernels
 * running at once are held (a sort of every start and end held far more: bench/RESULTS.md,
 * "Figures moved out of the code"). */
static double sm_integral(const struct kcall *k, uint32_t n, int64_t lo, int64_t hi, bool *any)
{
	uint32_t cap = 64, na = 0;
	struct active *h = xmalloc(cap * sizeof *h);
	double sum = 0, integral = 0;
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
			integral += (sum < 1 ? sum : 1) * (double)clip_len(t, next, lo, hi);
	}
	free(h);
	return integral;
}

static void device_figures(const struct trace *t, const struct kcall *k, uint32_t n, int64_t lo, int64_t hi,
                           struct gpu_metrics_device *d)
{
	(void)t;
	double win = hi > lo ? (double)(hi - lo) : 0;
	/* utilization: the union of the kernels inside the window */
	int64_t busy = 0, cur_a = 0, cur_b = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		if (k[i].start > cur_b) {
			if (cur_b != INT64_MIN)
				busy += clip_len(cur_a, cur_b, lo, hi);
			cur_a = k[i].start;
			cur_b = k[i].end;
		} else if (k[i].end > cur_b) {
			cur_b = k[i].end;
		}
	}
	if (cur_b != INT64_MIN)
		busy += clip_len(cur_a, cur_b, lo, hi);
	d->kernel_busy = busy;
	d->utilization = win > 0 ? (double)busy / win : NAN;
	d->sm_efficiency = NAN;
	double integral = sm_integral(k, n, lo, hi, &d->has_bps);
	if (d->has_bps && win > 0)
		d->sm_efficiency = integral / win;
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

void gpu_metrics_analyse(const struct trace *t, int64_t start, int64_t end, struct gpu_metrics *m)
{
	*m = (struct gpu_metrics){ .start = start, .end = end };
	uint64_t nk = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (t->tracks[ti].kind == TRACK_GPU_COMPUTE || t->tracks[ti].kind == TRACK_GPU_COMM)
			nk += t->tracks[ti].gpu_slices;
	struct kcall *k = xmalloc((size_t)(nk ? nk : 1) * sizeof *k);
	/* Tensor Core verdicts per name, decided once per string */
	uint8_t *tc = xcalloc(t->strings.n ? t->strings.n : 1, 1); /* 0 unknown, else 1 | 2 ours | 4 plugin's */
	uint32_t n = 0, dcap = 0, last = 0;
	bool sorted = true;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->cls != SC_KERNEL || s->name >= t->strings.n)
				continue;
			const struct gpu_info *g = slice_gpu(tr, s) != TT_NONE ? &t->gpu[slice_gpu(tr, s)] : NULL;
			int32_t dev = g && gpu_device(t, g) >= 0 ? gpu_device(t, g) : tr->device;
			if (dev < 0)
				dev = 0;
			if (tc[s->name] == 0) { /* 1: seen; 2: matrix unit; 4: on the plugin's list; 8: unit unknown */
				const char *nm = strtab_get(&t->strings, s->name);
				struct kernel_class kc;
				kernel_class_of(nm, KC_ACT_KERNEL, tr->kind == TRACK_GPU_COMM, &kc);
				tc[s->name] = (uint8_t)(1 | (kc.unit == KC_UNIT_MATRIX ? 2 : 0) |
				                        (kernel_on_plugin_tc_list(nm) ? 4 : 0) |
				                        (kc.unit == KC_UNIT_UNKNOWN ? 8 : 0));
			}
			struct gpu_metrics_device *d = device_of(m, &dcap, dev, &last);
			d->kernels++;
			d->kernel_time = tt_add(d->kernel_time, slice_dur(tr, s));
			if (tc[s->name] & 2)
				d->tc_time = tt_add(d->tc_time, slice_dur(tr, s));
			if (tc[s->name] & 4)
				d->tc_plugin_time = tt_add(d->tc_plugin_time, slice_dur(tr, s));
			if (tc[s->name] & 8)
				d->unknown_time = tt_add(d->unknown_time, slice_dur(tr, s));
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
	if (n == 0) {
		free(m->devices);
		m->devices = NULL;
		m->n = 0;
		free(k);
		free(tc);
		return;
	}
	if (!sorted) /* one stream per device comes sorted */
		sort_kcalls(k, n);
	qsort(m->devices, m->n, sizeof *m->devices, device_cmp);
	for (uint32_t i = 0, d = 0; i < n; d++) {
		uint32_t j = i;
		while (j < n && k[j].device == k[i].device)
			j++;
		device_figures(t, k + i, j - i, start, end, &m->devices[d]);
		i = j;
	}
	free(k);
	free(tc);
}

void gpu_metrics_free(struct gpu_metrics *m)
{
	free(m->devices);
	*m = (struct gpu_metrics){ 0 };
}
