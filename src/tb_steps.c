/* tb_steps.c: the TensorBoard plugin's steps (see tb_steps.h). */
#include "src/tb_steps.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static inline bool is_gpu_op(uint8_t cls) { return cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET; }
static inline bool is_gpu_track(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

/* cuLaunchKernel and the other driver calls: not runtime events to the plugin. */
static bool is_driver_call(const struct trace *t, uint32_t driver_cat, const struct slice *s)
{
	return slice_cat(t, s) == driver_cat;
}

struct tb_step *tb_steps_find(const struct trace *t, uint32_t *nout)
{
	uint32_t n = 0;
	/* the category's string id, found once (strings are interned: one id per text) */
	uint32_t driver_cat = strtab_find(&t->strings, "cuda_driver", 11);
	for (uint32_t i = 0; i < t->nsteps; i++)
		n += !t->steps[i].gpu;
	struct tb_step *s = xcalloc(n ? n : 1, sizeof *s);
	int64_t *dev_end = xcalloc(n ? n : 1, sizeof *dev_end);
	if (n == 0) {
		/* one step "0": the span of the cpu_op (Operator) events, as the plugin computes it
		 * on the reference traces (b200: 86,429 us) */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			for (uint32_t i = 0; i < tr->nslices; i++) {
				const struct slice *sl = &tr->slices[i];
				if (slice_cls(t, sl) != SC_CPU_OP)
					continue;
				if (sl->ts < lo)
					lo = sl->ts;
				if (sl->ts + slice_dur(tr, sl) > hi)
					hi = sl->ts + slice_dur(tr, sl);
			}
		}
		if (lo == INT64_MAX) {
			lo = t->start;
			hi = t->end;
		}
		s[0] = (struct tb_step){ .number = 0, .start = lo, .end = hi };
		n = 1;
	} else {
		uint32_t k = 0;
		for (uint32_t i = 0; i < t->nsteps; i++)
			if (!t->steps[i].gpu)
				s[k++] = (struct tb_step){ .number = t->steps[i].number,
					                   .start = t->steps[i].ts,
					                   .end = t->steps[i].ts + t->steps[i].dur };
	}
	for (uint32_t i = 0; i < n; i++) {
		dev_end[i] = INT64_MIN;
		s[i].host_start = s[i].start;
		s[i].host_end = s[i].end;
	}
	/* device work launched by runtime calls lying wholly inside each host step (the
	 * plugin's runtimes: not cuda_driver calls) */
	uint8_t *matched = xcalloc(t->ngpu ? t->ngpu : 1, 1);
	int64_t first_dev_start = INT64_MAX; /* of the work the first step launched */
	uint64_t nmatched = 0;
	struct gpu_walk gw = gpu_walk_start(t);
	struct slice_ref self;
	uint32_t fg;
	while (gpu_walk_next(&gw, &fg, &self)) {
		const struct gpu_info *gi = &t->gpu[fg];
		if (fg + TT_PREFETCH_AHEAD < t->ngpu)
			slice_prefetch(t, t->gpu[fg + TT_PREFETCH_AHEAD].peer);
		if (gi->peer.track == TT_NONE)
			continue;
		const struct slice *rt = &t->tracks[self.track].slices[self.idx];
		if (is_gpu_op(slice_cls(t, rt)))
			continue; /* the GPU side of a link */
		const struct slice *op = &t->tracks[gi->peer.track].slices[gi->peer.idx];
		uint32_t lo = 0, hi = n;
		while (lo < hi) { /* last step starting at or before the call */
			uint32_t mid = lo + (hi - lo) / 2;
			if (s[mid].start <= rt->ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || rt->ts + slice_dur(&t->tracks[self.track], rt) > s[lo - 1].end ||
		    is_driver_call(t, driver_cat, rt))
			continue;
		int64_t op_end = op->ts + slice_dur(&t->tracks[gi->peer.track], op);
		if (op_end > dev_end[lo - 1])
			dev_end[lo - 1] = op_end;
		s[lo - 1].launched++;
		if (lo == 1 && op->ts < first_dev_start)
			first_dev_start = op->ts;
		uint32_t og = track_gpu_at(&t->tracks[gi->peer.track], gi->peer.idx);
		if (og != TT_NONE)
			matched[og] = 1;
		nmatched++;
	}
	/* the first step starts no earlier than device work launched outside every step that
	 * ends before the first step's own device work begins (the plugin's
	 * _find_device_steps: work launched before the profiler's first step); work with no
	 * correlation id (MTIA's DMA requests) was launched by no call, before or after */
	int64_t prev_end = INT64_MIN;
	if (nmatched > 0 && first_dev_start != INT64_MAX)
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			if (!is_gpu_track(tr))
				continue;
			for (uint32_t i = 0; i < tr->nslices; i++) {
				const struct slice *sl = &tr->slices[i];
				int64_t end = sl->ts + slice_dur(tr, sl);
				uint32_t g = track_gpu_at(tr, i);
				if (is_gpu_op(slice_cls(t, sl)) && (g == TT_NONE || !matched[g]) &&
				    (g == TT_NONE || gpu_correlation(t, &t->gpu[g]) >= 0) && end < first_dev_start &&
				    end > prev_end)
					prev_end = end;
			}
		}
	free(matched);
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].start < prev_end)
			s[i].start = prev_end;
		if (dev_end[i] > s[i].end)
			s[i].end = dev_end[i];
		prev_end = s[i].end;
	}
	/* trailing steps that launched nothing go; so does a last step below 80% of the one
	 * before; when no step launched anything (a CPU-only trace) every step stays */
	if (t->nsteps > 0 && nmatched > 0) {
		while (n > 1 && s[n - 1].launched == 0)
			n--;
		if (n > 1 && (uint64_t)s[n - 1].launched * 5 < (uint64_t)s[n - 2].launched * 4)
			n--;
	}
	free(dev_end);
	*nout = n;
	return s;
}
