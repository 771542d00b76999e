/* cache_format.h: the binary cache's layout as its writer (src/cache_write.c), its reader
 * (src/cache.c) and the fuzzing helpers (src/cache_parts.c) share it: the header, the
 * section table, and the records from which the reader rebuilds the structs that hold
 * pointers. src/cache.h describes the file. */
#ifndef TT_CACHE_FORMAT_H
#define TT_CACHE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/cache.h"
#include "src/model.h"

#define CACHE_MAGIC "TTRCACHE"
#define CACHE_BLOCK ((size_t)1 << 20)
#define CACHE_ALIGN 64
#define HEADER_BYTES 4096u
#define ENDIAN_MARK 0x0102030405060708ull
/* files smaller than this are checksummed on the reading thread alone */
#define PARALLEL_MIN ((size_t)8 << 20)
#define MAX_VERIFY_THREADS 8

/* clang-format off */
enum section_kind {
	S_META, S_TEXT, S_WARN_TAGS,
	S_STR_LEN, S_STR_HASH, S_STR_SLOTS, S_STR_BYTES,
	S_TRACKS, S_SLICES, S_SLICE_GPU, S_SLICE_ARGS, S_LONG_DURS, S_CATS, S_ROWS, S_ROW_LO, S_ROW_BASE, S_ROW_WIDE, S_ROW_SUM, S_ROW_MAX,
	S_RT_FIRST, S_RT_N, S_RT_SPANS, S_BUSY, S_BUSY_SUM,
	S_PROCESSES, S_DEVICES, S_GPU, S_GPU_PLACES, S_WIDE_IDS, S_GPU_BYTES, S_LAUNCHES, S_ASIDE, S_FLOWS, S_INSTANTS, S_MEM, S_MEM_RUNS, S_FLOPS, S_COMM,
	S_COUNTERS, S_COUNTER_TS, S_COUNTER_VAL, S_STEPS, S_ARGS, S_BLOCKS, S_SERIES, S_KINDS,
	S__COUNT
};
/* clang-format on */

struct section {
	uint32_t kind, elem;     /* elem: bytes per element */
	uint64_t offset, length; /* in the file */
	uint64_t check;          /* checksum64 of the blocks' checksums */
};

struct header {
	char magic[8];
	uint32_t format, header_bytes;
	uint64_t endian;
	uint64_t layout;   /* checksum of the stored structs' sizes and offsets */
	char version[32];  /* PACKAGE_VERSION */
	uint8_t build[32]; /* the program's build id (or version and build date) */
	uint32_t build_len, nsections;
	struct cache_key key;
	uint64_t file_bytes; /* the whole cache file */
	struct section sections[S__COUNT];
	uint64_t check; /* checksum64 of the header up to here */
};

/* The trace's scalar fields. */
struct meta {
	uint64_t bytes, file_bytes, events, async_events;
	uint64_t count_by_ph[128];
	int64_t base_ns, start, end;
	uint64_t seed; /* the string table's slot hash seed */
	uint64_t str_bytes;
	int32_t rank, world_size, schema_version;
	uint32_t status, backend, display_time_unit, clock, nwarnings, nslots, block_shift;
	uint8_t has_base, legacy, shared_launch, has_error;
	struct quality quality;
};

struct ctrack {
	int64_t pid, tid, stream, sort_index, busy_total;
	uint32_t kind, name, process, events, nslices, nlong, nbusy, gpu_slices, comm_kernels, rt_leaves, rt_nspans;
	uint32_t gpu_first, gpu_count;
	int32_t device;
	uint16_t nrows, annotation_rows;
	uint8_t pid_is_str, tid_is_str, named, nested, has_gpu, has_args;
};

struct crow {
	int64_t max_dur;
	uint32_t n, has_max_tree, nwide, pad; /* nwide: wide blocks (struct row) */
};

struct ccounter {
	int64_t pid;
	uint32_t name, key, n, pid_is_str;
};

/* The fields of struct meta that hold a field of the trace of the same name, as it is:
 * the writer copies each in (m.F = t->F), the reader back (t->F = m->F). */
/* clang-format off */
#define CACHE_META_FIELDS(X)                                                                                         \
	X(bytes) X(file_bytes) X(events) X(async_events) X(base_ns) X(start) X(end) X(rank) X(world_size)            \
	X(schema_version) X(status) X(backend) X(display_time_unit) X(clock) X(has_base) X(legacy) X(shared_launch)  \
	X(quality) X(block_shift)
/* clang-format on */

/* The fields of struct ctrack that hold a field of the track of the same name, as it is
 * (the counts of its arrays aside: the reader checks each against its section). */
/* clang-format off */
#define CACHE_TRACK_FIELDS(X)                                                                                        \
	X(pid) X(tid) X(stream) X(sort_index) X(busy_total) X(kind) X(name) X(process) X(events) X(gpu_slices)      \
	X(comm_kernels) X(device) X(annotation_rows) X(pid_is_str) X(tid_is_str) X(named) X(nested) X(gpu_first)       \
	X(gpu_count)
/* clang-format on */

/* Bytes per element of each section. */
extern const uint32_t cache_elem_size[S__COUNT];

/* Each section's name, for messages ("string lengths"). */
extern const char *const cache_section_names[S__COUNT];

/* Fills H (zeroed first) with this build's identity (magic, format, byte order, layout of
 * the stored structs, version, build id) and KEY. */
void cache_header_id(struct header *h, const struct cache_key *key);

/* Checks the section table of H, a header whose checksum holds, for a file of SIZE bytes.
 * Returns false, with *CAUSE set as cache_refuse sets it, when a section lies elsewhere
 * than the writer puts it. */
bool cache_table_ok(const struct header *h, uint64_t size, char **cause);

/* Sets *CAUSE to the message FMT makes (allocated) unless it is set already, and returns
 * false, so that a check can end with return cache_refuse(...). */
bool cache_refuse(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
