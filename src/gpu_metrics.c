/* gpu_metrics.c: the plugin's GPU Summary figures per device (see gpu_metrics.h). One
 * pass gathers the kernels; each device is then swept in time order. */
#include "src/gpu_metrics.h"

#include <math.h>
#include <stdlib.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/kernels.h"

struct kcall {
	int32_t device;
	int64_t start, end, dur;
	float bps, occ;
	bool tc, tc_plugin;
};

static inline bool kcall_less(const struct kcall *a, const struct kcall *b)
{
	return a->device != b->device ? a->device < b->device : a->start < b->start;
}
SORT_DEFINE(sort_kcalls, struct kcall, kcall_less)

/* A point of the SM-efficiency sweep: blocks per SM that start (+) or end (-) at t. */
struct edge {
	int64_t t;
	double d;
};

static inline bool edge_less(const struct edge *a, const struct edge *b) { return a->t < b->t; }
SORT_DEFINE(sort_edges, struct edge, edge_less)

static inline int64_t clip_len(int64_t a, int64_t b, int64_t lo, int64_t hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	return b > a ? b - a : 0;
}

/* ∫ min(1, Σ bps) over [lo, hi) of the N kernels K (one device, by start). */
static double sm_integral(const struct kcall *k, uint32_t n, int64_t lo, int64_t hi, bool *any)
{
	struct edge *e = xmalloc(2 * (size_t)(n ? n : 1) * sizeof *e);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(k[i].bps > 0)) /* NAN (absent) and 0 add nothing, as in the plugin */
			continue;
		*any = true;
		e[m++] = (struct edge){ k[i].start, k[i].bps };
		e[m++] = (struct edge){ k[i].end, -(double)k[i].bps };
	}
	sort_edges(e, m);
	double sum = 0, integral = 0;
	uint32_t active = 0;
	for (uint32_t i = 0; i < m;) {
		int64_t t = e[i].t;
		for (; i < m && e[i].t == t; i++) {
			sum += e[i].d;
			active += e[i].d > 0 ? 1 : (uint32_t)-1;
		}
		if (active == 0)
			sum = 0; /* no float residue between busy periods */
		if (i < m && sum > 0)
			integral += (sum < 1 ? sum : 1) * (double)clip_len(t, e[i].t, lo, hi);
	}
	free(e);
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
	d->tensor_cores_plugin = d->kernel_time > 0 ? (double)d->tc_plugin_time / (double)d->kernel_time : NAN;
}

void gpu_metrics_analyse(const struct trace *t, int64_t start, int64_t end, struct gpu_metrics *m)
{
	*m = (struct gpu_metrics){ .start = start, .end = end };
	uint64_t nk = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (t->tracks[ti].kind == TRACK_GPU_COMPUTE || t->tracks[ti].kind == TRACK_GPU_COMM)
			nk += t->tracks[ti].nslices;
	struct kcall *k = xmalloc((size_t)(nk ? nk : 1) * sizeof *k);
	/* Tensor Core verdicts per name, decided once per string */
	uint8_t *tc = xcalloc(t->strings.n ? t->strings.n : 1, 1); /* 0 unknown, else 1 | 2 ours | 4 plugin's */
	uint32_t n = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->cls != SC_KERNEL || s->name >= t->strings.n)
				continue;
			const struct gpu_info *g = s->gpu != TT_NONE ? &t->gpu[s->gpu] : NULL;
			int32_t dev = g && g->device >= 0 ? g->device : tr->device;
			if (dev < 0)
				dev = 0;
			if (tc[s->name] == 0)
				tc[s->name] = (uint8_t)(1 | (kernel_uses_tensor_cores(strtab_get(&t->strings, s->name)) ? 2 : 0) |
							(kernel_on_plugin_tc_list(strtab_get(&t->strings, s->name)) ? 4 : 0));
			k[n++] = (struct kcall){ dev, s->ts, tt_add(s->ts, s->dur), s->dur, g ? g->blocks_per_sm : NAN,
						 g ? g->occupancy : NAN, (tc[s->name] & 2) != 0,
						 (tc[s->name] & 4) != 0 };
		}
	}
	if (n == 0) {
		free(k);
		free(tc);
		return;
	}
	sort_kcalls(k, n);
	uint32_t ndev = 1;
	for (uint32_t i = 1; i < n; i++)
		ndev += k[i].device != k[i - 1].device;
	m->devices = xcalloc(ndev, sizeof *m->devices);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		struct gpu_metrics_device *d = &m->devices[m->n++];
		d->device = k[i].device;
		for (; j < n && k[j].device == k[i].device; j++) {
			d->kernels++;
			d->kernel_time = tt_add(d->kernel_time, k[j].dur);
			if (k[j].tc)
				d->tc_time = tt_add(d->tc_time, k[j].dur);
			if (k[j].tc_plugin)
				d->tc_plugin_time = tt_add(d->tc_plugin_time, k[j].dur);
		}
		device_figures(t, k + i, j - i, start, end, d);
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
