/* cache_parts.c: the cache image described part by part, field by field, for tests and
 * fuzzing (src/cache.h: cache_nparts, cache_part, cache_reseal), so that a forger changes
 * values as a writer that recomputes the checksums would. */
#include "src/cache_format.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/checksum.h"
#include "lib/xalloc.h"

/* clang-format off */
#define F(type, member, kind) { #member, offsetof(type, member), sizeof(((type *)0)->member), kind }
#define FIELDS(a) a, sizeof a / sizeof *a

static const struct cache_field f_byte[] = { { "byte", 0, 1, CV_OTHER } };
static const struct cache_field f_u32_count[] = { { "value", 0, 4, CV_COUNT } };
static const struct cache_field f_u32_id[] = { { "value", 0, 4, CV_ID } };
static const struct cache_field f_u16[] = { { "value", 0, 2, CV_OTHER } };
static const struct cache_field f_u64[] = { { "value", 0, 8, CV_OTHER } };
static const struct cache_field f_time[] = { { "value", 0, 8, CV_TIME } };
static const struct cache_field f_event_block[] = {
	F(struct event_block, first, CV_COUNT), F(struct event_block, lo, CV_TIME), F(struct event_block, hi, CV_TIME),
	F(struct event_block, cm_lo, CV_TIME), F(struct event_block, cm_hi, CV_TIME), F(struct event_block, flow_lo, CV_OTHER), F(struct event_block, flow_hi, CV_OTHER),
	F(struct event_block, events, CV_COUNT), F(struct event_block, flags, CV_OTHER),
};
static const struct cache_field f_sample_series[] = {
	F(struct sample_series, key, CV_OTHER), F(struct sample_series, min_ts, CV_TIME),
};
static const struct cache_field f_meta[] = {
	F(struct meta, bytes, CV_COUNT), F(struct meta, file_bytes, CV_COUNT), F(struct meta, events, CV_COUNT),
	F(struct meta, async_events, CV_COUNT), F(struct meta, count_by_ph[88], CV_COUNT),
	F(struct meta, base_ns, CV_TIME), F(struct meta, start, CV_TIME), F(struct meta, end, CV_TIME),
	F(struct meta, seed, CV_OTHER), F(struct meta, str_bytes, CV_COUNT), F(struct meta, rank, CV_OTHER),
	F(struct meta, world_size, CV_OTHER), F(struct meta, schema_version, CV_OTHER), F(struct meta, status, CV_ENUM),
	F(struct meta, backend, CV_ID), F(struct meta, display_time_unit, CV_ID), F(struct meta, clock, CV_ID), F(struct meta, nwarnings, CV_COUNT),
	F(struct meta, nslots, CV_COUNT), F(struct meta, block_shift, CV_OTHER), F(struct meta, has_base, CV_BOOL), F(struct meta, legacy, CV_BOOL),
	F(struct meta, shared_launch, CV_BOOL), F(struct meta, has_error, CV_BOOL),
	F(struct meta, quality.count[Q_CPU_PARTIAL_OVERLAP], CV_COUNT),
	F(struct meta, quality.count[Q_TS_ZERO_OUTLIER], CV_COUNT),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].ts, CV_TIME),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].name, CV_ID),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].track, CV_ID),
	F(struct meta, quality.ex[Q_TS_ZERO_OUTLIER][0].track, CV_ID),
};
static const struct cache_field f_warn_tag[] = {
	F(struct warning_tag, group, CV_OTHER), F(struct warning_tag, max, CV_OTHER),
};
static const struct cache_field f_ctrack[] = {
	F(struct ctrack, pid, CV_OTHER), F(struct ctrack, tid, CV_OTHER), F(struct ctrack, stream, CV_OTHER),
	F(struct ctrack, sort_index, CV_OTHER), F(struct ctrack, busy_total, CV_TIME), F(struct ctrack, kind, CV_ENUM),
	F(struct ctrack, name, CV_ID), F(struct ctrack, process, CV_ID), F(struct ctrack, events, CV_COUNT),
	F(struct ctrack, nslices, CV_COUNT), F(struct ctrack, nlong, CV_COUNT), F(struct ctrack, nbusy, CV_COUNT),
	F(struct ctrack, gpu_slices, CV_COUNT), F(struct ctrack, comm_kernels, CV_COUNT),
	F(struct ctrack, rt_leaves, CV_COUNT), F(struct ctrack, rt_nspans, CV_COUNT),
	F(struct ctrack, gpu_first, CV_COUNT), F(struct ctrack, gpu_count, CV_COUNT), F(struct ctrack, device, CV_OTHER),
	F(struct ctrack, nrows, CV_COUNT), F(struct ctrack, annotation_rows, CV_COUNT),
	F(struct ctrack, pid_is_str, CV_BOOL), F(struct ctrack, tid_is_str, CV_BOOL), F(struct ctrack, named, CV_BOOL),
	F(struct ctrack, nested, CV_BOOL), F(struct ctrack, has_gpu, CV_BOOL), F(struct ctrack, has_args, CV_BOOL),
};
static const struct cache_field f_gpu_word[] = {
	F(struct gpu_word, bits, CV_OTHER), F(struct gpu_word, before, CV_COUNT), F(struct gpu_word, pad, CV_OTHER),
};
static const struct cache_field f_slice[] = {
	F(struct slice, ts, CV_TIME), F(struct slice, dur32, CV_TIME), F(struct slice, kind, CV_ID),
};
static const struct cache_field f_kind[] = {
	F(struct slice_kind, name, CV_ID), F(struct slice_kind, depth, CV_ID), F(struct slice_kind, cat_ix, CV_ID),
	{ "cls, flags", offsetof(struct slice_kind, cat_ix) + 1, 1, CV_ENUM },
};
static const struct cache_field f_long_dur[] = {
	F(struct long_dur, idx, CV_ID), F(struct long_dur, unused, CV_OTHER), F(struct long_dur, dur, CV_TIME),
};
static const struct cache_field f_crow[] = {
	F(struct crow, max_dur, CV_TIME), F(struct crow, n, CV_COUNT), F(struct crow, has_max_tree, CV_BOOL),
	F(struct crow, nwide, CV_COUNT), F(struct crow, pad, CV_OTHER),
};
static const struct cache_field f_span[] = { F(struct span, start, CV_TIME), F(struct span, end, CV_TIME) };
static const struct cache_field f_process[] = {
	F(struct process, pid_is_str, CV_BOOL), F(struct process, pid, CV_OTHER), F(struct process, name, CV_ID),
	F(struct process, labels, CV_ID), F(struct process, sort_index, CV_OTHER),
};
static const struct cache_field f_device[] = {
	F(struct device_props, id, CV_OTHER), F(struct device_props, name, CV_ID),
	F(struct device_props, num_sms, CV_OTHER), F(struct device_props, max_threads_per_sm, CV_OTHER),
	F(struct device_props, compute_major, CV_OTHER), F(struct device_props, total_global_mem, CV_OTHER),
};
static const struct cache_field f_gpu[] = {
	F(struct gpu_info, corr_code, CV_OTHER), F(struct gpu_info, ext_code, CV_OTHER),
	F(struct gpu_info, peer.track, CV_ID),
	F(struct gpu_info, peer.idx, CV_ID), F(struct gpu_info, place, CV_ID), F(struct gpu_info, launch, CV_ID),
};
static const struct cache_field f_gpu_place[] = {
	F(struct gpu_place, stream, CV_OTHER), F(struct gpu_place, device, CV_OTHER), F(struct gpu_place, pg, CV_ID),
};
static const struct cache_field f_gpu_bytes[] = {
	F(struct gpu_bytes, gpu, CV_ID), F(struct gpu_bytes, pad, CV_OTHER), F(struct gpu_bytes, bytes, CV_OTHER),
};
static const struct cache_field f_launch[] = {
	F(struct kernel_launch, grid[0], CV_OTHER), F(struct kernel_launch, block[2], CV_OTHER),
	F(struct kernel_launch, blocks_per_sm, CV_OTHER), F(struct kernel_launch, occupancy, CV_OTHER),
	F(struct kernel_launch, regs, CV_OTHER), F(struct kernel_launch, smem, CV_OTHER),
};
static const struct cache_field f_aside[] = {
	F(struct aside_slice, ts, CV_TIME), F(struct aside_slice, dur, CV_TIME), F(struct aside_slice, name, CV_ID),
	F(struct aside_slice, track, CV_ID),
};
static const struct cache_field f_flow[] = {
	F(struct flow, id_code, CV_OTHER), F(struct flow, cat, CV_ID), F(struct flow, from.track, CV_ID),
	F(struct flow, from.idx, CV_ID), F(struct flow, to.track, CV_ID), F(struct flow, to.idx, CV_ID),
	F(struct flow, ts_from, CV_TIME), F(struct flow, ts_to, CV_TIME),
};
static const struct cache_field f_instant[] = {
	F(struct instant, ts, CV_TIME), F(struct instant, name, CV_ID), F(struct instant, cat, CV_ID),
	F(struct instant, track, CV_ID), F(struct instant, scope, CV_ENUM),
};
static const struct cache_field f_mem[] = {
	F(struct mem_value, ts, CV_TIME),
	F(struct mem_value, total_allocated, CV_OTHER),
	F(struct mem_value, bytes, CV_OTHER),
};
static const struct cache_field f_mem_run[] = {
	F(struct mem_run, first, CV_COUNT),          F(struct mem_run, track, CV_ID),
	F(struct mem_run, total_reserved, CV_OTHER), F(struct mem_run, device_id, CV_ENUM),
	F(struct mem_run, device_type, CV_ENUM),     F(struct mem_run, flags, CV_ENUM),
	F(struct mem_run, pad, CV_OTHER),
};
static const struct cache_field f_flops[] = { F(struct flop_count, ts, CV_TIME), F(struct flop_count, flops, CV_OTHER) };
static const struct cache_field f_comm[] = {
	F(struct comm_op, external_id, CV_OTHER), F(struct comm_op, name, CV_ID), F(struct comm_op, cat, CV_ID),
};
static const struct cache_field f_ccounter[] = {
	F(struct ccounter, pid, CV_OTHER), F(struct ccounter, name, CV_ID), F(struct ccounter, key, CV_ID),
	F(struct ccounter, n, CV_COUNT), F(struct ccounter, pid_is_str, CV_BOOL),
};
static const struct cache_field f_step[] = {
	F(struct step, number, CV_OTHER), F(struct step, ts, CV_TIME), F(struct step, dur, CV_TIME),
	F(struct step, ref.track, CV_ID), F(struct step, ref.idx, CV_ID), F(struct step, gpu, CV_BOOL),
};
/* the header's scalars; its identity and key are left out: a change there is a stale file */
static const struct cache_field f_header[] = {
	F(struct header, format, CV_ENUM), F(struct header, header_bytes, CV_COUNT),
	F(struct header, nsections, CV_COUNT), F(struct header, file_bytes, CV_COUNT),
};
static const struct cache_field f_section[] = {
	F(struct section, kind, CV_ENUM), F(struct section, elem, CV_COUNT), F(struct section, offset, CV_COUNT),
	F(struct section, length, CV_COUNT),
};
/* clang-format on */

static const struct {
	const struct cache_field *fields;
	uint32_t n;
} part_fields[S__COUNT + 2] = {
	[S_META] = { FIELDS(f_meta) },
	[S_TEXT] = { FIELDS(f_byte) },
	[S_WARN_TAGS] = { FIELDS(f_warn_tag) },
	[S_STR_LEN] = { FIELDS(f_u32_count) },
	[S_STR_HASH] = { FIELDS(f_u64) },
	[S_STR_SLOTS] = { FIELDS(f_u32_id) },
	[S_STR_BYTES] = { FIELDS(f_byte) },
	[S_TRACKS] = { FIELDS(f_ctrack) },
	[S_SLICES] = { FIELDS(f_slice) },
	[S_SLICE_GPU] = { FIELDS(f_gpu_word) },
	[S_SLICE_ARGS] = { FIELDS(f_u64) },
	[S_LONG_DURS] = { FIELDS(f_long_dur) },
	[S_CATS] = { FIELDS(f_u32_id) },
	[S_ROWS] = { FIELDS(f_crow) },
	[S_ROW_LO] = { FIELDS(f_u16) },
	[S_ROW_BASE] = { FIELDS(f_u32_id) },
	[S_ROW_WIDE] = { FIELDS(f_u32_id) },
	[S_ROW_SUM] = { FIELDS(f_time) },
	[S_ROW_MAX] = { FIELDS(f_u32_id) },
	[S_RT_FIRST] = { FIELDS(f_u32_count) },
	[S_RT_N] = { FIELDS(f_u32_count) },
	[S_RT_SPANS] = { FIELDS(f_span) },
	[S_BUSY] = { FIELDS(f_span) },
	[S_BUSY_SUM] = { FIELDS(f_time) },
	[S_PROCESSES] = { FIELDS(f_process) },
	[S_DEVICES] = { FIELDS(f_device) },
	[S_GPU] = { FIELDS(f_gpu) },
	[S_GPU_PLACES] = { FIELDS(f_gpu_place) },
	[S_WIDE_IDS] = { FIELDS(f_u64) },
	[S_GPU_BYTES] = { FIELDS(f_gpu_bytes) },
	[S_LAUNCHES] = { FIELDS(f_launch) },
	[S_ASIDE] = { FIELDS(f_aside) },
	[S_FLOWS] = { FIELDS(f_flow) },
	[S_INSTANTS] = { FIELDS(f_instant) },
	[S_MEM] = { FIELDS(f_mem) },
	[S_MEM_RUNS] = { FIELDS(f_mem_run) },
	[S_FLOPS] = { FIELDS(f_flops) },
	[S_COMM] = { FIELDS(f_comm) },
	[S_COUNTERS] = { FIELDS(f_ccounter) },
	[S_COUNTER_TS] = { FIELDS(f_time) },
	[S_COUNTER_VAL] = { FIELDS(f_u64) },
	[S_STEPS] = { FIELDS(f_step) },
	[S_ARGS] = { FIELDS(f_byte) },
	[S_BLOCKS] = { FIELDS(f_event_block) },
	[S_SERIES] = { FIELDS(f_sample_series) },
	[S_KINDS] = { FIELDS(f_kind) },
	[S__COUNT] = { FIELDS(f_header) },
	[S__COUNT + 1] = { FIELDS(f_section) },
};
#undef F
#undef FIELDS

unsigned cache_nparts(void) { return S__COUNT + 2; }

bool cache_part(const void *image, size_t len, unsigned i, struct cache_part *p)
{
	const struct header *h = image;

	if (i >= S__COUNT + 2 || len < HEADER_BYTES)
		return false;
	memset(p, 0, sizeof *p);
	p->fields = part_fields[i].fields;
	p->nfields = part_fields[i].n;
	if (i == S__COUNT) {
		p->name = "header";
		p->elem = offsetof(struct header, sections);
		p->count = 1;
	} else if (i == S__COUNT + 1) {
		p->name = "section table";
		p->offset = offsetof(struct header, sections);
		p->elem = sizeof(struct section);
		p->count = S__COUNT;
	} else {
		const struct section *x = &h->sections[i];
		p->name = cache_section_names[i];
		p->offset = x->offset;
		p->elem = cache_elem_size[i];
		if (x->offset <= len)
			p->count = ((x->length < len - x->offset ? x->length : len - x->offset)) / cache_elem_size[i];
	}
	return true;
}

int cache_reseal(void *image, size_t len)
{
	struct header *h = image;
	struct header want;
	char *cause = NULL;
	size_t cap = 1;
	uint64_t *sums;

	if (len < HEADER_BYTES)
		return -1;
	sums = xmalloc(cap * sizeof *sums);
	for (int s = 0; s < S__COUNT; s++) {
		struct section *x = &h->sections[s];
		if (x->offset > len || x->length > len - x->offset)
			continue;
		size_t nb = (size_t)((x->length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		if (nb > cap)
			sums = xreallocarray(sums, cap = nb, sizeof *sums);
		for (size_t b = 0; b < nb; b++) {
			uint64_t at = (uint64_t)b * CACHE_BLOCK;
			size_t n = x->length - at < CACHE_BLOCK ? (size_t)(x->length - at) : CACHE_BLOCK;
			sums[b] = checksum64((const char *)image + x->offset + at, n, b);
		}
		x->check = checksum64(sums, nb * sizeof *sums, (uint64_t)s);
	}
	free(sums);
	h->check = checksum64(h, offsetof(struct header, check), 0);

	/* what header_ok checks, but for the key */
	memset(&want, 0, sizeof want);
	cache_header_id(&want, &h->key);
	if (memcmp(h->magic, CACHE_MAGIC, 8) != 0 || h->format != CACHE_FORMAT_VERSION || h->endian != ENDIAN_MARK ||
	    h->header_bytes != HEADER_BYTES || h->layout != want.layout ||
	    memcmp(h->version, want.version, sizeof h->version) != 0 || h->build_len != want.build_len ||
	    memcmp(h->build, want.build, sizeof h->build) != 0)
		return 0;
	bool ok = cache_table_ok(h, len, &cause);
	free(cause);
	return ok ? 1 : 0;
}
