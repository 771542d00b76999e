/* model.c: classification rules and lifecycle of the trace model. */
#include "src/model.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "src/args.h"
#include "lib/map_guard.h"
#include "lib/xalloc.h"
#include "src/kinds.h"

const struct mem_run *mem_run_of(const struct trace *t, uint32_t i)
{
	uint32_t lo = 0, hi = t->nmem_runs; /* the last run that starts at or before I */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->mem_runs[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return &t->mem_runs[lo];
}

const struct mem_run *mem_run_near(const struct trace *t, uint32_t i, uint32_t *hint)
{
	uint32_t h = *hint;
	const struct mem_run *r = t->mem_runs;
	if (h < t->nmem_runs && r[h].first <= i) {
		if (h + 1 == t->nmem_runs || i < r[h + 1].first)
			return &r[h];
		if (h + 2 == t->nmem_runs || i < r[h + 2].first) {
			*hint = h + 1;
			return &r[h + 1];
		}
	}
	const struct mem_run *found = mem_run_of(t, i);
	*hint = (uint32_t)(found - r);
	return found;
}

struct mem_sample mem_sample_near(const struct trace *t, uint32_t i, uint32_t *hint)
{
	const struct mem_value *v = &t->mem[i];
	const struct mem_run *r = mem_run_near(t, i, hint);
	return (struct mem_sample){ .ts = v->ts,
		                    .total_allocated = v->total_allocated,
		                    .total_reserved = r->total_reserved,
		                    .bytes = v->bytes,
		                    .track = r->track,
		                    .device_id = r->device_id,
		                    .device_type = r->device_type,
		                    .flags = r->flags };
}

struct slice_ref gpu_self(const struct trace *t, uint32_t g)
{
	const struct slice_ref none = { TT_NONE, TT_NONE };
	uint32_t lo = 0, hi = t->ntracks;
	while (lo < hi) { /* the first track whose facts end past g */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct track *tr = &t->tracks[mid];
		if ((uint64_t)tr->gpu_first + tr->gpu_count <= g)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->ntracks)
		return none;
	const struct track *tr = &t->tracks[lo];
	if (tr->gpu_words == NULL || g < tr->gpu_first)
		return none;
	uint32_t k = g - tr->gpu_first, a = 0, b = (tr->nslices + 63) / 64;
	while (b - a > 1) { /* the last word with at most k facts before it */
		uint32_t m = a + (b - a) / 2;
		if (tr->gpu_words[m].before <= k)
			a = m;
		else
			b = m;
	}
	uint64_t x = tr->gpu_words[a].bits;
	for (uint32_t j = k - tr->gpu_words[a].before; j > 0 && x != 0; j--)
		x &= x - 1;
	if (x == 0)
		return none;
	return (struct slice_ref){ lo, a * 64 + (uint32_t)__builtin_ctzll(x) };
}

int64_t track_long_dur(const struct track *tr, uint32_t i)
{
	uint32_t lo = 0, hi = tr->nlong;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->long_durs[mid].idx < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == tr->nlong || tr->long_durs[lo].idx != i)
		BUG("slice %u of a track is long but its length is not kept (the slice of another track?)", i);
	return tr->long_durs[lo].dur;
}

const struct kernel_launch kernel_launch_none = { { 0, 0, 0 }, { 0, 0, 0 }, NAN, NAN, -1, -1 };

uint32_t trace_id_code(struct trace *t, int64_t id)
{
	if (id >= 0 && id < (int64_t)GPU_ID_WIDE)
		return (uint32_t)id;
	if (id == -1 || t->nwide_ids >= GPU_ID_MAX_WIDE)
		return GPU_ID_NONE;
	if (t->nwide_ids == t->wide_ids_cap) {
		t->wide_ids_cap = t->wide_ids_cap ? t->wide_ids_cap * 2 : 16;
		t->wide_ids = xreallocarray(t->wide_ids, t->wide_ids_cap, sizeof *t->wide_ids);
	}
	t->wide_ids[t->nwide_ids] = id;
	return GPU_ID_WIDE + t->nwide_ids++;
}

int64_t gpu_bytes(const struct trace *t, const struct gpu_info *g)
{
	uint32_t want = (uint32_t)(g - t->gpu), lo = 0, hi = t->ngpu_bytes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->gpu_bytes[mid].gpu < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ngpu_bytes && t->gpu_bytes[lo].gpu == want ? t->gpu_bytes[lo].bytes : -1;
}

/* Kineto's categories and the legacy exporter's, by the class each gives. */
static const struct {
	const char *cat;
	uint32_t len;
	enum slice_class cls;
} slice_classes[] = {
#define CLASS(lit, cls)                   \
	{                                 \
		lit, sizeof(lit) - 1, cls \
	}
	CLASS("cpu_op", SC_CPU_OP),
	CLASS("cuda_runtime", SC_RUNTIME),
	CLASS("cuda_driver", SC_RUNTIME),
	CLASS("cuda_sync", SC_SYNC),
	CLASS("cuda_profiler_range", SC_PROFILER_RANGE),
	CLASS("gpu_memcpy", SC_MEMCPY),
	CLASS("gpu_memset", SC_MEMSET),
	CLASS("gpu_user_annotation", SC_GPU_ANNOTATION),
	CLASS("kernel", SC_KERNEL),
	CLASS("Kernel", SC_KERNEL),
	CLASS("Memcpy", SC_MEMCPY),
	CLASS("Memset", SC_MEMSET),
	CLASS("Operator", SC_CPU_OP),
	CLASS("python_function", SC_PYTHON),
	CLASS("Runtime", SC_RUNTIME),
	CLASS("user_annotation", SC_USER_ANNOTATION),
#undef CLASS
};

enum slice_class model_classify(const char *cat, uint32_t n)
{
	for (size_t i = 0; i < sizeof slice_classes / sizeof *slice_classes; i++)
		if (slice_classes[i].len == n && memcmp(cat, slice_classes[i].cat, n) == 0)
			return slice_classes[i].cls;
	return SC_OTHER;
}

void trace_set_aside(const struct trace *t, struct set_aside *out)
{
	uint32_t overhead_cat = strtab_find(&t->strings, "overhead", 8);

	memset(out, 0, sizeof *out);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (slice_cls(t, s) == SC_PROFILER_RANGE) {
				out->ranges++;
				out->ranges_ns += slice_dur(tr, s);
			} else if (overhead_cat != TT_NONE && overhead_cat != 0 && slice_cat(t, s) == overhead_cat) {
				out->overhead++;
				out->overhead_ns += slice_dur(tr, s);
			}
		}
	}
}

bool model_time_is_epoch(int64_t abs_ns)
{
	/* 2001-09-09 to 2096-10-02: no profile runs that long after a boot or a profiler start */
	return abs_ns >= 1000000000000000000ll && abs_ns < 4000000000000000000ll;
}

const char *track_kind_name(enum track_kind k)
{
	switch (k) {
	case TRACK_CPU: return "cpu_thread";
	case TRACK_GPU_COMPUTE: return "gpu_compute";
	case TRACK_GPU_COMM: return "gpu_comm";
	case TRACK_OTHER: return "other";
	}
	return "other";
}

static const struct {
	const char *key, *text;
} quality_names[Q__COUNT] = {
	[Q_MALFORMED_EVENT] = { "malformed_events", "events that could not be parsed and were skipped" },
	[Q_CONTROL_CHAR] = { "control_chars", "raw control bytes inside strings (kept, shown escaped)" },
	[Q_BAD_ESCAPE] = { "bad_escapes", "invalid backslash escapes (backslash kept as text)" },
	[Q_NONFINITE] = { "nonfinite_numbers", "bare inf/nan numbers (read as non-finite or missing)" },
	[Q_INT_OVERFLOW] = { "out_of_range_numbers", "numbers past the 64-bit range (clamped)" },
	[Q_NOT_OBJECT] = { "non_object_events", "elements of traceEvents that are not objects (skipped)" },
	[Q_MISSING_TS] = { "missing_ts", "events without a usable ts (skipped)" },
	[Q_MISSING_PH] = { "missing_ph", "events without ph (skipped)" },
	[Q_NEGATIVE_DUR] = { "negative_dur", "slices with a negative or missing dur (clamped to 0)" },
	[Q_UNKNOWN_PH] = { "unknown_ph", "events of a phase ttrace does not show (counted, skipped)" },
	[Q_SAMPLE_SKIPPED] = { "samples_skipped", "P sample events (counted, not shown)" },
	[Q_ASYNC] = { "async_events", "async b/e/n events (counted, not shown yet)" },
	[Q_UNMATCHED_END] = { "unmatched_end", "E events with no open B on their thread (skipped)" },
	[Q_UNCLOSED_BEGIN] = { "unclosed_begin", "B events never closed (kept, ending at the trace end)" },
	[Q_DUP_METADATA] = { "duplicate_metadata", "M records repeating an earlier one (ignored)" },
	[Q_CONFLICT_METADATA] = { "conflicting_metadata",
	                          "M records renaming a process (first name kept) or a thread (last kept)" },
	[Q_FLOW_NO_START] = { "flow_finish_without_start", "flow ends (f) with no start (s) of the same id" },
	[Q_FLOW_NO_FINISH] = { "flow_start_without_finish", "flow starts (s) with no finish (f)" },
	[Q_FLOW_REPEATED_ID] = { "flow_repeated_ids", "flow ids used by more than one start or finish" },
	[Q_FLOW_UNBOUND] = { "flow_unbound", "flow ends with no slice at their time on their track" },
	[Q_CPU_PARTIAL_OVERLAP] = { "cpu_partial_overlaps",
	                            "CPU slices overlapping a neighbour without nesting (own row)" },
	[Q_GPU_OVERLAP] = { "gpu_stream_overlaps", "GPU slices overlapping another on the same stream (overflow row)" },
	[Q_ZERO_DUR_KERNEL] = { "zero_duration_kernels", "kernels, memcpys and memsets with dur 0" },
	[Q_TS_ZERO_OUTLIER] = { "ts_zero_outliers", "events at ts 0 far from the rest of the trace (set aside)" },
	[Q_EXACT_DUPLICATE] = { "exact_duplicates", "slices identical to the previous one on their track" },
	[Q_KERNEL_NO_LAUNCH] = { "gpu_without_launch", "GPU activity with no runtime call of the same correlation" },
	[Q_INVALID_UTF8] = { "invalid_utf8_strings", "distinct strings with invalid UTF-8 (shown escaped)" },
};

const char *quality_key(enum quality_kind q) { return quality_names[q].key; }
const char *quality_text(enum quality_kind q) { return quality_names[q].text; }

static const char *id_text(const struct trace *t, bool is_str, int64_t v, char *buf, size_t n)
{
	if (is_str)
		snprintf(buf, n, "%s", strtab_get(&t->strings, (uint32_t)v));
	else
		snprintf(buf, n, "%" PRId64, v);
	return buf;
}

const char *track_pid_text(const struct trace *t, const struct track *tr, char *buf, size_t n)
{
	return id_text(t, tr->pid_is_str, tr->pid, buf, n);
}

const char *track_tid_text(const struct trace *t, const struct track *tr, char *buf, size_t n)
{
	return id_text(t, tr->tid_is_str, tr->tid, buf, n);
}

const char *track_process_name(const struct trace *t, const struct track *tr)
{
	if (tr->process == TT_NONE || tr->process >= t->nprocesses)
		return "";
	return strtab_get(&t->strings, t->processes[tr->process].name);
}

const char *trace_device_noun(const struct trace *t, int32_t device)
{
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if ((tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) && tr->device == device)
			return strncmp(track_process_name(t, tr), "MTIA", 4) == 0 ? "MTIA" : "GPU";
	}
	return "GPU";
}

static int track_cmp(const void *a, const void *b, void *arg)
{
	const struct trace *ot = arg;
	const struct track *x = &ot->tracks[*(const uint32_t *)a];
	const struct track *y = &ot->tracks[*(const uint32_t *)b];
	int gx = x->kind == TRACK_CPU ? 0 : x->kind == TRACK_OTHER ? 2 : 1;
	int gy = y->kind == TRACK_CPU ? 0 : y->kind == TRACK_OTHER ? 2 : 1;
	if (gx != gy)
		return gx - gy;
	if (gx == 1) {
		if (x->device != y->device)
			return x->device < y->device ? -1 : 1;
		if (x->stream != y->stream)
			return x->stream < y->stream ? -1 : 1;
	}
	if (x->pid_is_str != y->pid_is_str)
		return x->pid_is_str ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->sort_index != y->sort_index)
		return x->sort_index < y->sort_index ? -1 : 1;
	if (x->tid_is_str != y->tid_is_str)
		return x->tid_is_str ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

uint32_t *trace_track_order(const struct trace *t)
{
	uint32_t *o = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *o);
	for (uint32_t i = 0; i < t->ntracks; i++)
		o[i] = i;
	qsort_r(o, t->ntracks, sizeof *o, track_cmp, (void *)t);
	return o;
}

static void add_warning(struct trace *t, uint8_t group, uint8_t max, const char *fmt, va_list ap)
{
	t->warnings = xreallocarray(t->warnings, t->nwarnings + 1, sizeof *t->warnings);
	t->warning_tags = xreallocarray(t->warning_tags, t->nwarnings + 1, sizeof *t->warning_tags);
	t->warning_tags[t->nwarnings] = (struct warning_tag){ group, max };
	t->warnings[t->nwarnings++] = xvasprintf(fmt, ap);
}

void trace_warn(struct trace *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_warning(t, 0, 0, fmt, ap);
	va_end(ap);
}

void trace_warn_group(struct trace *t, uint8_t group, uint8_t max, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_warning(t, group, max, fmt, ap);
	va_end(ap);
}

/* True when P points into T's cache mapping (never freed on its own). */
static bool in_cache_map(const struct trace *t, const void *p)
{
	const char *m = t->cache_map, *q = p;
	return m != NULL && q >= m && q < m + t->cache_map_len;
}

/* Frees P unless it lies in T's cache mapping. */
static void release(const struct trace *t, void *p)
{
	if (!in_cache_map(t, p))
		free(p);
}

#if defined(__SANITIZE_ADDRESS__)
#define TT_LEAKS_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TT_LEAKS_CHECKED 1
#endif
#endif

void trace_end_of_process(struct trace *t)
{
#if defined(TT_LEAKS_CHECKED)
	trace_free(t);
#else
	if (t != NULL && t->finish_cache_save != NULL)
		t->finish_cache_save(t);
#endif
}

void trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	if (t->finish_cache_save != NULL)
		t->finish_cache_save(t);
	args_store_free(t->args);
	if (t->kind_table != NULL)
		kinds_free(t, false);
	else
		release(t, t->kinds);
	free(t->comm_names);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track *tr = &t->tracks[i];
		for (uint16_t r = 0; r < tr->nrows; r++) {
			release(t, tr->rows[r].lo);
			release(t, tr->rows[r].base);
			release(t, tr->rows[r].wide);
			release(t, tr->rows[r].block_sum);
			release(t, tr->rows[r].max_tree);
		}
		release(t, tr->rows);
		if (tr->row_tree != NULL) {
			release(t, tr->row_tree->first);
			release(t, tr->row_tree->n);
			release(t, tr->row_tree->spans);
			release(t, tr->row_tree);
		}
		release(t, tr->slices);
		release(t, tr->gpu);
		release(t, tr->gpu_bits);
		release(t, tr->gpu_words);
		release(t, tr->args);
		release(t, tr->long_durs);
		release(t, tr->busy);
		release(t, tr->busy_block_sum);
	}
	for (uint32_t i = 0; i < t->ncounters; i++) {
		release(t, t->counters[i].ts);
		release(t, t->counters[i].value);
	}
	for (uint32_t i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	release(t, t->warning_tags);
	release(t, t->tracks);
	release(t, t->processes);
	release(t, t->gpu);
	release(t, t->gpu_facts);
	release(t, t->gpu_fact_track);
	release(t, t->gpu_places);
	release(t, t->wide_ids);
	release(t, t->gpu_bytes);
	release(t, t->launches);
	release(t, t->aside);
	release(t, t->flows);
	release(t, t->flow_ends);
	release(t, t->flow_ctx);
	release(t, t->instants);
	release(t, t->mem);
	release(t, t->mem_runs);
	release(t, t->flops);
	release(t, t->comm_ops);
	release(t, t->counters);
	release(t, t->steps);
	release(t, t->blocks);
	release(t, t->series);
	free(t->series_slots);
	release(t, t->devices);
	if (t->analyses != NULL)
		t->free_analyses(t->analyses);
	free(t->path);
	free(t->name);
	free(t->error);
	strtab_free(&t->strings);
	free(t->cache_note);
	if (t->cache_map != NULL) {
		map_guard_remove(t->cache_map);
		munmap(t->cache_map, t->cache_map_len);
	}
	free(t);
}

bool trace_cache_lost(const struct trace *t)
{
	return t != NULL && t->cache_map != NULL && map_guard_lost(t->cache_map);
}

uint32_t quality_problems(const struct trace *t)
{
	uint32_t n = t->nwarnings + (t->status == LOAD_TRUNCATED);
	for (int q = 0; q < Q__COUNT; q++)
		n += t->quality.count[q] > 0;
	return n;
}
