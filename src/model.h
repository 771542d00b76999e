/* model.h: the trace model of one file (one rank), read-only once loaded.
 *
 * Times are int64 nanoseconds relative to the file's time base (`base_ns` when the file
 * has `baseTimeNanoseconds`, else 0: the absolute time of t is base_ns + t).
 *
 * Tracks come from (pid, tid). Each track holds its slices (X events and matched B/E
 * pairs) in one array sorted by (start, longer first, file order: src/index.c), and an interval
 * index over them (src/index.h): rows by depth, in which slices never overlap, each a
 * list of slice indices in time order with sparse prefix sums of durations, plus the
 * merged union of the track's busy time. Nothing is dropped: overlapping GPU slices
 * get overflow rows, partially overlapping CPU slices get a row of their own.
 *
 * Bulk data is flat arrays indexed by uint32_t; strings are ids into `strings`. */
#ifndef TT_MODEL_H
#define TT_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strtab.h"

#define TT_NONE UINT32_MAX

struct args_store;
struct kind_table;

enum track_kind {
	TRACK_CPU,         /* a CPU thread */
	TRACK_GPU_COMPUTE, /* a GPU stream of kernels/memcpy/memset */
	TRACK_GPU_COMM,    /* a GPU stream whose kernels are mostly communication (kernel_class.h) */
	TRACK_OTHER,       /* pseudo-tracks: "Spans", "Traces", overhead... */
};

/* What a slice is, from its category (and name where the category is missing). */
enum slice_class {
	SC_OTHER,
	SC_CPU_OP,          /* cpu_op, Operator, legacy exporter ops */
	SC_USER_ANNOTATION, /* user_annotation (ProfilerStep#N, record_function) */
	SC_PYTHON,          /* python_function */
	SC_RUNTIME,         /* cuda_runtime, Runtime, cuda_driver */
	SC_KERNEL,          /* kernel, Kernel */
	SC_MEMCPY,          /* gpu_memcpy, Memcpy */
	SC_MEMSET,          /* gpu_memset, Memset */
	SC_GPU_ANNOTATION,  /* gpu_user_annotation */
	SC_SYNC,            /* cuda_sync */
	SC_PROFILER_RANGE,  /* cuda_profiler_range: a CUPTI range-profiler range, not GPU work */
	SC__COUNT
};

enum slice_flag {
	SF_FROM_BE = 1,  /* a matched B/E pair */
	SF_UNCLOSED = 2, /* a B with no E: ends at the end of the trace */
	SF_PARTIAL = 4,  /* overlaps a neighbour without nesting (CPU) or overlaps on a stream (GPU) */
};

/* Room in trace.cats: 254 categories, then "(other categories)". */
#define TRACE_MAX_CATS 256

/* The length of a slice that does not fit in slice.dur32: in its track's long_durs. */
#define SLICE_LONG UINT32_MAX

/* What a slice is besides its times, shared by the slices alike: a trace holds a few
 * thousand of them (bench/RESULTS.md), its slices an index into its table (src/kinds.h). */
struct slice_kind {
	uint32_t name;     /* string id */
	uint16_t depth;    /* row */
	uint8_t cat_ix;    /* index into trace.cats */
	uint8_t cls : 4;   /* enum slice_class */
	uint8_t flags : 4; /* enum slice_flag */
};
_Static_assert(sizeof(struct slice_kind) == 8, "a slice kind is 8 bytes");

/* 16 bytes per slice: the trace's bulk. Its length is read with slice_dur (lengths of 4.29 s
 * or more are in the track's long_durs); its name, row, category, class and flags with
 * slice_name, slice_depth, slice_cat_ix, slice_cls and slice_flags (its kind in the
 * trace's table); its args reference and GPU facts link are in its track's `args` and
 * `gpu` arrays (slice_args, slice_gpu). */
struct slice {
	int64_t ts;
	uint32_t dur32; /* ns; SLICE_LONG: see long_durs */
	uint32_t kind;  /* index into trace.kinds */
} __attribute__((packed, aligned(4)));

/* A slice of 4.29 s or more: its index in its track and its length. */
struct long_dur {
	uint32_t idx;
	uint32_t unused;
	int64_t dur;
};

/* A slice set aside (trace.aside). */
struct aside_slice {
	int64_t ts, dur;
	uint32_t name, track;
};

_Static_assert(sizeof(struct slice) == 16, "a slice is 16 bytes");
_Static_assert(SC__COUNT <= 16 && SF_PARTIAL < 16, "a slice's class and flags take 4 bits each");

struct slice_ref {
	uint32_t track, idx;
};

/* Extra facts of GPU activity and of runtime calls, for linking and the analyses. 24 bytes
 * (most of them are runtime calls, which have no stream, device, bytes or launch facts):
 * read the ids, stream, device, process group and bytes through gpu_correlation() and
 * the others below, which decode what is stored here. The index numbers the facts in the
 * order of their slices, track by track (index_gpu_facts), so that a slice finds its fact
 * through its track's gpu_words and a fact its slice through gpu_self(): neither needs a
 * link of its own (4 bytes a slice and 8 a fact: an eighth of the v100 216k trace's model). */
struct gpu_info {
	uint32_t corr_code;    /* correlation id, coded (gpu_id_value): absent reads -1 */
	uint32_t ext_code;     /* External id, coded the same way */
	struct slice_ref peer; /* runtime call <-> GPU activity linked by correlation, or {TT_NONE} */
	uint32_t place;        /* index into trace.gpu_places: stream, device, process group */
	uint32_t launch;       /* index into trace.launches, or TT_NONE when no launch fact was given */
};
_Static_assert(sizeof(struct gpu_info) == 24, "GPU facts are 24 bytes");

/* Which of 64 slices of a track have a GPU fact (bit k: slice 64w + k), and how many of the
 * track's slices before them do: the k-th such slice of the track owns fact
 * track.gpu_first + k. */
struct gpu_word {
	uint64_t bits;
	uint32_t before;
	uint32_t pad;
};

/* The set bits of X. Not __builtin_popcountll: without -mpopcnt (not in baseline x86-64)
 * that is a call into libgcc's table loop at every slice_gpu. */
static inline uint32_t gpu_bits_count(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* A GPU fact while the trace is built: gpu_info without the links, which only the index
 * can make. 16 bytes: a file of 65k facts holds 1 MB less at the end of its parse. */
struct gpu_fact {
	uint32_t corr_code, ext_code, place, launch; /* as in gpu_info */
};

/* An id (correlation, External, flow) stored in 32 bits: values 0 .. GPU_ID_WIDE - 1 as
 * they are, -1 (absent) as GPU_ID_NONE, any other value as GPU_ID_WIDE + its index in
 * trace.wide_ids (ids are counters: no trace seen has one past 2^32, but a file may say
 * anything). */
#define GPU_ID_WIDE 0xF0000000u
#define GPU_ID_NONE 0xFFFFFFFFu
#define GPU_ID_MAX_WIDE (GPU_ID_NONE - GPU_ID_WIDE) /* past that many, a wide id reads absent */

/* Where GPU activity ran, shared by the facts that say the same (a handful per trace):
 * trace.gpu_places[0] is "none given", the place of runtime calls. */
struct gpu_place {
	int32_t stream; /* -1 when absent (or outside int32: a stream id is a small number) */
	int32_t device; /* -1 when absent */
	uint32_t pg;    /* collectives: "Process Group Name" string id, 0 when absent */
};

/* The byte count of a memcpy or memset: kept apart, a few percent of the facts have one. */
struct gpu_bytes {
	uint32_t gpu; /* index into trace.gpu; the array is sorted by it */
	uint32_t pad;
	int64_t bytes;
};

/* A kernel's launch facts, where the file gives any (40 bytes, kernels only). */
struct kernel_launch {
	int32_t grid[3], block[3]; /* 0 when absent */
	float blocks_per_sm;       /* NAN when absent */
	float occupancy;           /* est. achieved occupancy %, NAN when absent */
	int32_t regs;              /* registers per thread, -1 when absent */
	int32_t smem;              /* shared memory per block (static + dynamic) bytes, -1 when absent */
};

/* One row of a track: slices that never overlap, in time order. Their indices into
 * track.slices (row_idx) are stored in 2 bytes each: a block of ROW_BLOCK entries keeps
 * its first index in `base` and each entry's distance from it in `lo`, unless they lie
 * further apart than ROW_SPAN (or the first is ROW_WIDE or more): then `base` says
 * ROW_WIDE | k and the block's entries are whole in wide[k * ROW_BLOCK ..] (their `lo`
 * is 0; 2 blocks of 3,236 on a generated 100 MB trace). 2.06 bytes an entry instead of 4:
 * a legacy trace's row index was a sixth of its model. */
struct row {
	uint16_t *lo;       /* by entry: its index less its block's base (0 in a wide block) */
	uint32_t *base;     /* by block: its first entry's index, or ROW_WIDE | its place in wide */
	uint32_t *wide;     /* the wide blocks' entries, ROW_BLOCK each */
	uint32_t n, nwide;  /* entries; wide blocks */
	int64_t *block_sum; /* block_sum[b] = sum of durations of entries [0 .. b*ROW_BLOCK) */
	uint32_t *max_tree; /* segment tree over blocks: position of the longest slice */
	int64_t max_dur;
};
#define ROW_BLOCK 64
#define ROW_WIDE 0x80000000u
#define ROW_SPAN 0xFFFFu

/* The index into track.slices of entry I of ROW. */
static inline uint32_t row_idx(const struct row *row, uint32_t i)
{
	uint32_t b = row->base[i / ROW_BLOCK];
	if (__builtin_expect((b & ROW_WIDE) != 0, 0))
		return row->wide[(size_t)(b & ~ROW_WIDE) * ROW_BLOCK + i % ROW_BLOCK];
	return b + row->lo[i];
}

/* Block B of ROW, read entry by entry with row_block_idx: one look at its base for all. */
struct row_block {
	uint32_t base;
	const uint16_t *lo;   /* its entries' distances, when it is not wide */
	const uint32_t *wide; /* its entries, when it is; else NULL */
};
static inline struct row_block row_block_at(const struct row *row, uint32_t b)
{
	uint32_t v = row->base[b];
	if (__builtin_expect((v & ROW_WIDE) != 0, 0))
		return (struct row_block){ 0, NULL, row->wide + (size_t)(v & ~ROW_WIDE) * ROW_BLOCK };
	return (struct row_block){ v, row->lo + (size_t)b * ROW_BLOCK, NULL };
}
/* Entry J (0 .. ROW_BLOCK - 1) of block BK. */
static inline uint32_t row_block_idx(struct row_block bk, uint32_t j)
{
	return bk.wide != NULL ? bk.wide[j] : bk.base + bk.lo[j];
}

struct span {
	int64_t start, end;
};

/* Which rows of a deep track hold a time, when its rows do not nest: built by
 * src/index.c, read by index_slice_at (src/index_query.c), freed with the trace. */
struct warning_tag {
	uint8_t group, max; /* group 0: not grouped */
};

struct row_tree {
	uint32_t leaves;     /* a power of two, at least nrows */
	uint32_t *first, *n; /* by node (1-based, children 2i and 2i+1): its spans */
	struct span *spans;
};

struct track {
	enum track_kind kind;
	bool pid_is_str, tid_is_str;
	int64_t pid, tid;   /* numbers, or string ids when *_is_str */
	uint32_t name;      /* thread_name, or a synthesised "thread N"/"stream N" */
	uint32_t process;   /* index into trace.processes */
	int32_t device;     /* GPU device for GPU tracks, else -1 */
	int64_t stream;     /* GPU stream for GPU tracks, else -1 */
	int64_t sort_index; /* thread_sort_index, else INT64_MIN */
	bool named;         /* thread_name seen */
	uint32_t events;    /* events of any kind attributed to the track */

	struct slice *slices; /* sorted by (ts, dur descending, file order) */
	uint32_t nslices, cap;
	uint64_t *gpu_bits;         /* while the trace is built: bit k set when the k-th slice
	                             * pushed has a GPU fact (kernels, memcpy/memset, runtime calls);
	                             * NULL when none has. Its facts are the ones trace.gpu_fact_track
	                             * says are the track's, in order (a 4-byte fact index a slice
	                             * was 0.48 MB at the end of the v100 trace's scan) */
	uint32_t *gpu;              /* while the index sorts the slices, made from those: by slice,
	                             * index into trace.gpu_facts or TT_NONE; NULL when no slice of
	                             * the track has one. The index turns it into: */
	struct gpu_word *gpu_words; /* by 64 slices: which have a fact (NULL: none has) */
	uint32_t gpu_first;         /* the fact of the first slice that has one */
	uint32_t gpu_count;         /* the slices that have one */
	uint64_t *args;             /* by slice: (byte offset of args '{' << 24) | min(length, 2^24 - 1),
	                             * 0: none or empty; NULL when no slice of the track has args */
	struct long_dur *long_durs; /* the slices of SLICE_LONG, by index */
	uint32_t nlong, long_cap;
	struct row *rows;
	uint16_t nrows;
	uint16_t annotation_rows;  /* GPU tracks: the last n rows hold gpu_user_annotation */
	bool nested;               /* CPU, no partial overlap: every slice's row above holds its parent */
	struct row_tree *row_tree; /* deep tracks that do not nest: which rows hold a time (src/index.c) */

	struct span *busy; /* merged union of all slices; NULL for a track of one row, or
	                    * whose rows nest: index_track_busy reads row 0 then */
	uint32_t nbusy;
	int64_t *busy_block_sum;
	int64_t busy_total;
	uint32_t gpu_slices;   /* kernels+memcpy+memset */
	uint32_t comm_kernels; /* communication kernels (kernel_class_is_comm_name) */
};

struct process {
	bool pid_is_str;
	int64_t pid;
	uint32_t name, labels; /* string ids, 0 when absent */
	int64_t sort_index;    /* INT64_MIN when absent */
};

/* A flow's end while the trace is built: 20 bytes (a trace of 65k ends held 0.26 MB more at
 * the end of its parse with the id and category whole). */
struct flow_end {
	int64_t ts;
	uint32_t id_lo;      /* the id's low 32 bits */
	uint32_t ctx;        /* index into trace.flow_ctx: the category and the id's high bits */
	uint32_t track : 30; /* a trace holds fewer tracks (each costs over 100 bytes) */
	uint32_t ph : 2;     /* enum flow_ph */
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct flow_end) == 20, "a flow end is 20 bytes");

/* What flow ends share: their category and the high half of their ids (a few in a trace). */
struct flow_ctx {
	uint32_t cat;   /* string id */
	uint32_t id_hi; /* the id's high 32 bits */
};
enum flow_ph { FLOW_PH_S, FLOW_PH_T, FLOW_PH_F }; /* sorted in this order at equal times */
#define FLOW_END_MAX_TRACKS ((uint32_t)1 << 30)

/* A flow: a start ('s') linked to a finish ('f') with the same (cat, id). */
struct flow {             /* 40 bytes */
	uint32_t id_code; /* the flow's id (a 64-bit value), coded as gpu_id_value reads */
	uint32_t cat;
	struct slice_ref from, to; /* slices bound at each end, or {TT_NONE} */
	int64_t ts_from, ts_to;
};

struct instant {
	int64_t ts;
	uint32_t name, cat, track;
	char scope;
};

/* One sample of a [memory] event (Kineto's profile_memory=True), whole: as a parser gives it
 * to the builder and mem_sample_near gives it back. The trace keeps less (mem_value). */
enum mem_flag {
	MEM_HAS_ADDR = 1,  /* args carry an "Addr" (PyTorch 1.10 on; the plugin's curve needs it) */
	MEM_HAS_BYTES = 2, /* args carry "Bytes" (bytes is then the value, -1 included) */
};

struct mem_sample {
	int64_t ts;
	int64_t total_allocated, total_reserved, bytes; /* -1 when absent */
	uint32_t track;                                 /* the thread it was recorded on, or TT_NONE */
	int16_t device_id;                              /* -1 when absent (CPU samples say -1 too) */
	int8_t device_type;                             /* c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP...; -1 when absent */
	uint8_t flags;                                  /* enum mem_flag */
};

/* What the trace keeps of a sample: 24 bytes. What consecutive samples share (their thread,
 * device, reserved total and which args came) is kept once a run, in trace.mem_runs: the
 * reserved total moves only when the allocator takes or gives back a segment, and the v100
 * trace's 28,010 samples make 2,482 runs (40 bytes a sample before: 0.45 MB more). */
struct mem_value {
	int64_t ts;
	int64_t total_allocated, bytes; /* as in mem_sample */
};

/* A run of samples that share these (mem_sample's fields of the same names). */
struct mem_run {
	uint32_t first; /* its first sample: runs in sample order, the first run's is 0 */
	uint32_t track;
	int64_t total_reserved;
	int16_t device_id;
	int8_t device_type;
	uint8_t flags;
	uint32_t pad; /* 0 */
};
_Static_assert(sizeof(struct mem_value) == 24 && sizeof(struct mem_run) == 24, "memory samples in 24 bytes");

/* Whether samples of runs A and B share what a run holds (not where they start). */
static inline bool mem_run_same(const struct mem_run *a, const struct mem_run *b)
{
	return a->track == b->track && a->total_reserved == b->total_reserved && a->device_id == b->device_id &&
	       a->device_type == b->device_type && a->flags == b->flags;
}

/* The FLOP count of one operator (`"flops"` in its args: with_flops=True), at its start. */
struct flop_count {
	int64_t ts;
	int64_t flops;
};

/* A collective's CPU op (named nccl:... or gloo:...) and its External id, for finding the
 * kernels it launched as the TensorBoard plugin does (by equal External ids). */
struct comm_op {
	int64_t external_id;
	uint32_t name; /* string id */
	uint32_t cat;  /* string id */
};

/* A counter series ("C" events): one per (pid, name, key). */
struct counter {
	bool pid_is_str;
	int64_t pid;
	uint32_t name, key;
	int64_t *ts;
	double *value;
	uint32_t n, cap;
};

struct step {
	int64_t number; /* N of ProfilerStep#N */
	int64_t ts, dur;
	struct slice_ref ref;
	bool gpu; /* the gpu_user_annotation copy */
};

/* Data-quality counts, one per kind of oddity; quality.c names and explains them. */
enum quality_kind {
	Q_MALFORMED_EVENT,
	Q_CONTROL_CHAR,
	Q_BAD_ESCAPE,
	Q_NONFINITE,
	Q_INT_OVERFLOW,
	Q_NOT_OBJECT,
	Q_MISSING_TS,
	Q_MISSING_PH,
	Q_NEGATIVE_DUR,
	Q_UNKNOWN_PH,
	Q_SAMPLE_SKIPPED,
	Q_ASYNC,
	Q_UNMATCHED_END,
	Q_UNCLOSED_BEGIN,
	Q_DUP_METADATA,
	Q_CONFLICT_METADATA,
	Q_FLOW_NO_START,
	Q_FLOW_NO_FINISH,
	Q_FLOW_REPEATED_ID,
	Q_FLOW_UNBOUND,
	Q_CPU_PARTIAL_OVERLAP,
	Q_GPU_OVERLAP,
	Q_ZERO_DUR_KERNEL,
	Q_TS_ZERO_OUTLIER,
	Q_EXACT_DUPLICATE,
	Q_KERNEL_NO_LAUNCH,
	Q_INVALID_UTF8,
	Q__COUNT
};

#define QUALITY_EXAMPLES 3

struct quality_example {
	uint64_t offset; /* byte offset of the event in the decompressed stream */
	int64_t ts;
	uint32_t name;  /* string id */
	uint32_t track; /* or TT_NONE */
};

struct quality {
	uint64_t count[Q__COUNT];
	struct quality_example ex[Q__COUNT][QUALITY_EXAMPLES];
};

enum load_status {
	LOAD_OK,
	LOAD_TRUNCATED, /* usable: what came before the cut */
	LOAD_FAILED,    /* unusable: not a trace, cannot open, ... */
};

/* What a load did with the binary cache (src/cache.h). */
enum trace_cache {
	TRACE_CACHE_OFF,       /* not asked for, or not a regular file */
	TRACE_CACHE_READ,      /* the model was read from a valid cache */
	TRACE_CACHE_SAVING,    /* parsed; the cache is being written (cache_save) */
	TRACE_CACHE_SAVED,     /* parsed, and the cache written */
	TRACE_CACHE_NOT_SAVED, /* parsed; the cache could not be written (cache_note says why) */
};

struct device_props {
	int32_t id;
	uint32_t name; /* string id */
	int32_t num_sms, max_threads_per_sm, compute_major, compute_minor;
	int64_t total_global_mem;
};

/* What the events that begin in one block of the decompressed stream hold (trace.blocks):
 * enough for a crop to know which blocks a window needs. Times are the scanner's, raw. */
struct event_block {
	uint64_t first;            /* offset of the first event's '{' in the block; UINT64_MAX: none */
	int64_t lo, hi;            /* the earliest ts and the latest end (ts + dur of X) of its timed events */
	int64_t cm_lo, cm_hi;      /* the earliest and latest ts of its counter (C) and [memory] samples */
	uint64_t flow_lo, flow_hi; /* the least and greatest id of its timed flow events (lo > hi: none) */
	uint32_t events;           /* events in it */
	uint32_t flags;            /* EB_* */
};

/* What kinds of event a block holds (event_block.flags). */
enum {
	EB_META = 1u << 0,  /* M events */
	EB_BE = 1u << 1,    /* B or E events */
	EB_ASYNC = 1u << 2, /* async events (b e n S T p F) with an id */
	EB_FLOW = 1u << 3,  /* timed flow events (s t f) with an id */
	EB_CM = 1u << 4,    /* timed C events or [memory] instants */
	EB__ALL = (1u << 5) - 1,
};

/* A series of counter or [memory] samples (its key as crop makes it: parsers/scan_keys.h
 * key_series) and the time of its earliest sample. */
struct sample_series {
	uint64_t key;
	int64_t min_ts;
};

/* Blocks of 1 MiB unless the test knob says otherwise. */
#define EVENT_BLOCK_SHIFT 20

struct trace {
	char *path;
	char *name;           /* how reports and the screen name it: the path, or for one rank of a
	                       * merged trace "PATH [its own file's name]" (trace_name) */
	bool merged;          /* one rank of a merged trace (parsers/merged_file.h) ... */
	int32_t merged_pos;   /* ... its place among the file's ranks ... */
	int64_t merged_shift; /* ... and what its times were moved by in the file */
	const char *codec;
	bool regular; /* read from a regular file, the one file_dev/file_ino name */
	uint64_t file_dev, file_ino;
	struct args_store *args;       /* reads slices' args back (src/args.h); set by the loader, or NULL */
	struct comm_names *comm_names; /* which names are communication, made and filled as asked
	                                * (kernel_class_trace_is_comm), or NULL */
	enum load_status status;
	char *error;      /* why it failed or was truncated, or NULL */
	bool not_a_trace; /* failed: the file is not a Chrome trace (other JSON, empty), as a
	                   * sidecar beside a job's traces is; not a broken trace */
	char **warnings;
	uint32_t nwarnings;
	struct warning_tag *warning_tags; /* by warning */

	struct strtab strings;
	uint64_t bytes; /* decompressed JSON bytes */
	uint64_t file_bytes;
	uint64_t events; /* events read from traceEvents */
	uint64_t count_by_ph[128];
	double load_seconds;
	uint64_t snapshot_bytes; /* a snapshot of a load in progress (parsers/load.h): the bytes
	                          * of JSON it holds (at least 1); 0 for a whole trace */

	bool has_base;
	int64_t base_ns;
	int64_t start, end; /* span of drawn events (outliers set aside) */
	bool legacy;        /* no event has a category (the legacy exporter) */
	bool shared_launch; /* a runtime call launched several GPU activities (CUDA graphs):
	                     * its gpu_info.peer names the last of them */

	int32_t rank, world_size; /* -1 when distributedInfo lacks them */
	uint32_t backend;         /* string id */
	uint32_t display_time_unit;
	uint32_t clock;         /* string id: the clock the file's times come from, as its writer
	                         * names it ("CLOCK_REALTIME" from ttrace record); 0: unsaid */
	int32_t schema_version; /* -1 when absent */
	struct device_props *devices;
	uint32_t ndevices;

	struct track *tracks;
	uint32_t ntracks;
	struct process *processes;
	uint32_t nprocesses;

	struct gpu_info *gpu;         /* made by the index from GPU_FACTS */
	struct gpu_fact *gpu_facts;   /* while the trace is built (src/builder.c), then NULL */
	uint32_t *gpu_fact_track;     /* while the trace is built, by fact: its slice's track */
	uint32_t ngpu, gpu_cap;       /* facts, in either array */
	struct gpu_place *gpu_places; /* gpu_info.place; [0] is {-1, -1, 0} once any fact is kept */
	uint32_t ngpu_places, gpu_places_cap;
	int64_t *wide_ids; /* ids past 32 bits (gpu_id_value) */
	uint32_t nwide_ids, wide_ids_cap;
	struct gpu_bytes *gpu_bytes; /* memcpy/memset byte counts, by GPU fact (gpu_bytes()) */
	uint32_t ngpu_bytes, gpu_bytes_cap;
	/* the categories of slices (string ids), slice.cat_ix indexes it; cats[0] is 0 (none).
	 * Past the 254th, categories share the last entry, "(other categories)". */
	uint32_t cats[TRACE_MAX_CATS];
	uint32_t ncats;
	struct slice_kind *kinds; /* slice.kind indexes it (src/kinds.h) */
	uint32_t nkinds;
	struct kind_table *kind_table;  /* what interns new kinds; NULL when the table is read only */
	struct kernel_launch *launches; /* gpu_info.launch */
	uint32_t nlaunches, launches_cap;
	struct aside_slice *aside; /* outliers set aside (ts 0 kernels): not drawn, not counted */
	uint32_t naside, aside_cap;

	struct flow *flows;
	uint32_t nflows;
	struct flow_end *flow_ends; /* raw ends, freed after linking */
	uint32_t nflow_ends, flow_ends_cap;
	struct flow_ctx *flow_ctx; /* flow_end.ctx indexes it; freed with the ends */
	uint32_t nflow_ctx, flow_ctx_cap;

	struct instant *instants;
	uint32_t ninstants, instants_cap;
	struct mem_value *mem; /* samples, in the file's order: mem_sample_near gives one whole */
	uint32_t nmem, mem_cap;
	struct mem_run *mem_runs; /* what runs of them share: none when no sample, else runs[0].first is 0 */
	uint32_t nmem_runs, mem_runs_cap;
	struct flop_count *flops; /* slices with a "flops" arg, in source order */
	uint32_t nflops, flops_cap;
	struct comm_op *comm_ops; /* complete events named nccl:.../gloo:... with an External id */
	uint32_t ncomm_ops, comm_ops_cap;
	struct counter *counters;
	uint32_t ncounters;
	struct step *steps; /* CPU steps first, then GPU, each in time order */
	uint32_t nsteps;
	/* Where the file's events lie, for a crop that reads only what it needs (cmd/crop.c):
	 * block k sums up the events whose '{' is in bytes [k << block_shift, (k + 1) <<
	 * block_shift) of the decompressed stream. Kept only for a whole load that saw every
	 * block's events (nblocks 0 otherwise). */
	struct event_block *blocks;
	uint32_t nblocks, blocks_cap, block_shift;
	struct sample_series *series; /* every series of samples of the file (with the blocks) */
	uint32_t nseries, series_cap;
	uint32_t *series_slots; /* while loading: an open-addressing index of series (1 + i), or NULL */
	uint32_t series_nslots;

	uint64_t async_events;
	struct quality quality;

	/* The binary cache (src/cache.h). A trace read from a cache keeps its bulk arrays in
	 * CACHE_MAP, a private mapping of the file: trace_free unmaps it rather than freeing
	 * what points into it. A trace whose cache is being written on a thread has
	 * FINISH_CACHE_SAVE set: trace_free calls it first, and it waits for the writer. */
	void *cache_map;
	size_t cache_map_len;
	enum trace_cache cache;
	char *cache_note;   /* why the cache was not used or not written, or NULL */
	bool cache_damaged; /* a cache was there but damaged (cache_note says how): rebuilt */
	struct cache_save *cache_save;
	void (*finish_cache_save)(struct trace *);

	/* analyses computed on first use (src/analysis.h), freed with the trace */
	struct analysis_cache *analyses;
	void (*free_analyses)(struct analysis_cache *);
};

/* The string id of S's category (0: none). */
/* Slice S of T's kind (its entry in t->kinds; the table may grow while the index runs:
 * read its address each time). */
static inline const struct slice_kind *slice_kind_of(const struct trace *t, const struct slice *s)
{
	return &__atomic_load_n(&t->kinds, __ATOMIC_ACQUIRE)[s->kind];
}
/* Slice S of T's category: its index into t->cats, and the string id there. */
static inline uint8_t slice_cat_ix(const struct trace *t, const struct slice *s) { return slice_kind_of(t, s)->cat_ix; }
static inline uint32_t slice_cat(const struct trace *t, const struct slice *s) { return t->cats[slice_cat_ix(t, s)]; }
/* The row of slice S of T (its depth). */
static inline uint16_t slice_depth(const struct trace *t, const struct slice *s) { return slice_kind_of(t, s)->depth; }
/* Slice S of T's flags (enum slice_flag). */
static inline uint8_t slice_flags(const struct trace *t, const struct slice *s) { return slice_kind_of(t, s)->flags; }
/* The class of slice S of T (enum slice_class). */
static inline enum slice_class slice_cls(const struct trace *t, const struct slice *s)
{
	return (enum slice_class)slice_kind_of(t, s)->cls;
}
/* The name of slice S of T (a string id). */
static inline uint32_t slice_name(const struct trace *t, const struct slice *s) { return slice_kind_of(t, s)->name; }

/* The index into trace.gpu of the GPU facts of slice I of TR, or TT_NONE. */
static inline uint32_t track_gpu_at(const struct track *tr, uint32_t i)
{
	if (tr->gpu_words != NULL) {
		const struct gpu_word *w = &tr->gpu_words[i / 64];
		uint64_t bit = (uint64_t)1 << (i % 64);
		if ((w->bits & bit) == 0)
			return TT_NONE;
		return tr->gpu_first + w->before + gpu_bits_count(w->bits & (bit - 1));
	}
	return tr->gpu != NULL ? tr->gpu[i] : TT_NONE; /* (while the trace is built) */
}

/* The same for slice S of TR. */
static inline uint32_t slice_gpu(const struct track *tr, const struct slice *s)
{
	return track_gpu_at(tr, (uint32_t)(s - tr->slices));
}

/* The id and the category (a string id) of flow end E of T. */
static inline uint64_t flow_end_id(const struct trace *t, const struct flow_end *e)
{
	return (uint64_t)t->flow_ctx[e->ctx].id_hi << 32 | e->id_lo;
}
static inline uint32_t flow_end_cat(const struct trace *t, const struct flow_end *e) { return t->flow_ctx[e->ctx].cat; }

/* The slice that GPU fact G of T belongs to, or {TT_NONE, TT_NONE} (a fact whose slice was
 * set aside, or G out of range). A search over the tracks and their words. */
struct slice_ref gpu_self(const struct trace *t, uint32_t g);
/* The run of memory sample I of T (I < T->nmem): a binary search over the runs. */
const struct mem_run *mem_run_of(const struct trace *t, uint32_t i);
/* The same, looked for first in run *HINT and the one after it (a loop that goes through
 * the samples about in order finds it there), then in all; *HINT is set to it. And sample
 * I whole, its run found so. */
const struct mem_run *mem_run_near(const struct trace *t, uint32_t i, uint32_t *hint);
struct mem_sample mem_sample_near(const struct trace *t, uint32_t i, uint32_t *hint);

/* The GPU facts that belong to a slice, in their order (which is their slices' order, track
 * by track), with their slices: struct gpu_walk w = gpu_walk_start(t); while
 * (gpu_walk_next(&w, &g, &self)) ... */
struct gpu_walk {
	const struct trace *t;
	uint32_t track, word, k; /* where the walk is, and the facts of the track passed */
	uint64_t bits;           /* the word's slices not yet walked */
};
static inline struct gpu_walk gpu_walk_start(const struct trace *t)
{
	struct gpu_walk w = { t, 0, 0, 0, 0 };
	return w;
}
static inline bool gpu_walk_next(struct gpu_walk *w, uint32_t *g, struct slice_ref *self)
{
	for (; w->track < w->t->ntracks; w->track++, w->word = 0, w->k = 0, w->bits = 0) {
		const struct track *tr = &w->t->tracks[w->track];
		if (tr->gpu_words == NULL)
			continue;
		uint32_t nw = (tr->nslices + 63) / 64;
		while (w->bits == 0 && w->word < nw)
			w->bits = tr->gpu_words[w->word++].bits;
		if (w->bits != 0) {
			self->track = w->track;
			self->idx = (w->word - 1) * 64 + (uint32_t)__builtin_ctzll(w->bits);
			w->bits &= w->bits - 1;
			*g = tr->gpu_first + w->k++;
			return true;
		}
	}
	return false;
}

/* The length of slice I of TR, which is SLICE_LONG (track_long_dur is src/model.c's). */
int64_t track_long_dur(const struct track *tr, uint32_t i);

/* The length of S in ns; S is a slice of TR. */
/* Asks the CPU to fetch the slice REF of T (when it exists) into its cache: for loops over
 * the GPU facts, which reach their slices in no order the cache can guess. The empty asm
 * keeps the prefetch: GCC 12's control-dependence DCE removes a conditional block that
 * holds nothing but a prefetch (it did here until 2026-11-28: no prefetcht0 in the loops
 * that called this). */
static inline void slice_prefetch(const struct trace *t, struct slice_ref ref)
{
	if (ref.track < t->ntracks && ref.idx < t->tracks[ref.track].nslices) {
		__builtin_prefetch(&t->tracks[ref.track].slices[ref.idx]);
		__asm__ volatile("");
	}
}
/* Asks the CPU to fetch GPU fact G of T (TT_NONE: none), for loops over a stream's slices
 * that read each one's fact. */
static inline void gpu_fact_prefetch(const struct trace *t, uint32_t g)
{
	if (g < t->ngpu) {
		__builtin_prefetch(&t->gpu[g]);
		__asm__ volatile(""); /* as slice_prefetch says */
	}
}
/* How many GPU facts ahead a loop over them prefetches their slices. */
#define TT_PREFETCH_AHEAD 16
/* For a loop over TR's slices that reads, at slice I, its GPU fact and the slice of the
 * call that launched it: fetches the fact 2 x TT_PREFETCH_AHEAD slices ahead and, that
 * fact then at hand, the launch TT_PREFETCH_AHEAD ahead. */
static inline void track_launch_prefetch(const struct trace *t, const struct track *tr, uint32_t i)
{
	if (i + 2 * TT_PREFETCH_AHEAD < tr->nslices)
		gpu_fact_prefetch(t, track_gpu_at(tr, i + 2 * TT_PREFETCH_AHEAD));
	if (i + TT_PREFETCH_AHEAD < tr->nslices) {
		uint32_t g = track_gpu_at(tr, i + TT_PREFETCH_AHEAD);
		if (g < t->ngpu)
			slice_prefetch(t, t->gpu[g].peer);
	}
}

static inline int64_t slice_dur(const struct track *tr, const struct slice *s)
{
	return s->dur32 != SLICE_LONG ? (int64_t)s->dur32 : track_long_dur(tr, (uint32_t)(s - tr->slices));
}

/* The same for slice I of TR. */
static inline int64_t track_dur_at(const struct track *tr, uint32_t i) { return slice_dur(tr, &tr->slices[i]); }

/* Where S ends: its start plus its length (saturated). */
static inline int64_t slice_end_of(const struct track *tr, const struct slice *s)
{
	int64_t d = slice_dur(tr, s);
	return s->ts > INT64_MAX - d ? INT64_MAX : s->ts + d;
}

/* Where S's args are in the file (see track.args), 0 when it has none; S is a slice of TR. */
static inline uint64_t slice_args(const struct track *tr, const struct slice *s)
{
	return tr->args != NULL ? tr->args[s - tr->slices] : 0;
}

/* The same for slice I of TR. */
static inline uint64_t track_args_at(const struct track *tr, uint32_t i) { return tr->args != NULL ? tr->args[i] : 0; }

/* Launch facts that say nothing: grid and block 0, NAN, -1. */
extern const struct kernel_launch kernel_launch_none;

/* The value of an id stored as CODE (see GPU_ID_WIDE): -1 when absent. */
static inline int64_t gpu_id_value(const struct trace *t, uint32_t code)
{
	if (code < GPU_ID_WIDE)
		return code;
	return code == GPU_ID_NONE || code - GPU_ID_WIDE >= t->nwide_ids ? -1 : t->wide_ids[code - GPU_ID_WIDE];
}
/* ID's code (GPU_ID_WIDE), ID kept in T's wide ids when it is one. */
uint32_t trace_id_code(struct trace *t, int64_t id);
/* F's id. */
static inline uint64_t flow_id(const struct trace *t, const struct flow *f)
{
	return (uint64_t)gpu_id_value(t, f->id_code);
}
static inline int64_t gpu_correlation(const struct trace *t, const struct gpu_info *g)
{
	return gpu_id_value(t, g->corr_code);
}
static inline int64_t gpu_external_id(const struct trace *t, const struct gpu_info *g)
{
	return gpu_id_value(t, g->ext_code);
}
static inline const struct gpu_place *gpu_place(const struct trace *t, const struct gpu_info *g)
{
	static const struct gpu_place none = { -1, -1, 0 };
	return g->place < t->ngpu_places ? &t->gpu_places[g->place] : &none;
}
static inline int32_t gpu_stream(const struct trace *t, const struct gpu_info *g) { return gpu_place(t, g)->stream; }
static inline int32_t gpu_device(const struct trace *t, const struct gpu_info *g) { return gpu_place(t, g)->device; }
static inline uint32_t gpu_pg(const struct trace *t, const struct gpu_info *g) { return gpu_place(t, g)->pg; }
/* G's memcpy/memset bytes, -1 when absent (a binary search over trace.gpu_bytes). */
int64_t gpu_bytes(const struct trace *t, const struct gpu_info *g);

/* G's launch facts, or kernel_launch_none when the file gave none (runtime calls, memcpys). */
static inline const struct kernel_launch *gpu_launch(const struct trace *t, const struct gpu_info *g)
{
	return g->launch < t->nlaunches ? &t->launches[g->launch] : &kernel_launch_none;
}

/* Returns the class of a slice of category CAT (may be empty) and name NAME. */
enum slice_class model_classify(const char *cat, uint32_t catlen);
/* "cpu_thread", "gpu_compute", "gpu_comm", "other". */
const char *track_kind_name(enum track_kind k);
/* A stable short name for a quality kind ("malformed_events") and one sentence on it. */
const char *quality_key(enum quality_kind q);
const char *quality_text(enum quality_kind q);
/* How many kinds of problem T has: quality kinds counted, warnings, and a cut (0: none). */
/* True when T was read from a cache that was cut while it was mapped (lib/map_guard.h):
 * what it holds past the cut reads as zeros, and T must be loaded again. */
bool trace_cache_lost(const struct trace *t);
uint32_t quality_problems(const struct trace *t);
/* What the trace records that is not GPU work, set aside from every GPU figure: CUPTI
 * range-profiler ranges (class SC_PROFILER_RANGE) and CUPTI overhead spans (category
 * "overhead", Kineto's pid -1), each a count and a total length (ns, not merged). */
struct set_aside {
	uint64_t ranges, overhead;
	int64_t ranges_ns, overhead_ns;
};
/* Fills *OUT for T (one pass over its slices). */
void trace_set_aside(const struct trace *t, struct set_aside *out);
/* True when ABS_NS (an absolute time: base_ns + a file time) looks like nanoseconds since
 * the Unix epoch (2001 to 2096) rather than since a boot or a profiler start. */
bool model_time_is_epoch(int64_t abs_ns);
/* Formats the track's pid or tid into BUF (strings as their text). Returns BUF. */
const char *track_pid_text(const struct trace *t, const struct track *tr, char *buf, size_t n);
const char *track_tid_text(const struct trace *t, const struct track *tr, char *buf, size_t n);
/* The process name of a track ("" when unknown). */
const char *track_process_name(const struct trace *t, const struct track *tr);
/* What device DEVICE of T is called in text: "MTIA" where Kineto's process of its tracks
 * says so (an accelerator that is not a GPU), else "GPU". A static string. */
const char *trace_device_noun(const struct trace *t, int32_t device);
/* Returns the tracks in display order (allocated; the caller frees it): CPU threads by
 * pid, sort index and tid, then GPU streams by device and stream, then the rest. */
uint32_t *trace_track_order(const struct trace *t);
/* Appends an allocated warning to the trace. */
void trace_warn(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a warning of GROUP (1-255), of which a file shows the first MAX: the parser of
 * one part reports at most MAX of a group, and merging parts keeps the first MAX in file
 * order, so that a file shows the same warnings whatever the number of parts. */
void trace_warn_group(struct trace *t, uint8_t group, uint8_t max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Frees the trace and everything it owns. NULL is a no-op. */
void trace_free(struct trace *t);
/* T at the end of the process: waits for what it still does outside memory (its cache
 * being written), and frees it only in builds whose leak checker watches the end (ASan):
 * elsewhere the process's end gives its memory back at once, where freeing 256 ranks'
 * models piece by piece took 9 ms of a 0.65 s report. NULL is a no-op. */
void trace_end_of_process(struct trace *t);
/* How reports and the screen name T: its name when it has one, else its path; T owns it. */
static inline const char *trace_name(const struct trace *t) { return t->name != NULL ? t->name : t->path; }

#endif
