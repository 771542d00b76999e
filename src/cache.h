/* cache.h: the binary cache of one loaded trace: the whole model in one file, written
 * after a parse and mapped, not parsed, on the next open.
 *
 * The file is a header (magic, format version, ttrace version, the build's identity, the
 * host's byte order and the sizes and offsets of every stored struct, the input's key),
 * a table of sections, then the sections, each 64-byte aligned: the model's flat arrays
 * as they are in memory (slices, rows' index arrays, prefix sums, max trees, row trees,
 * busy spans, GPU infos, flows, instants, memory samples, ...), the string table
 * (lengths, slot hashes, slots and the bytes), and small per-track, per-row and
 * per-counter records from which the reader rebuilds the structs that hold pointers.
 *
 * Reading maps the file (MAP_PRIVATE) and points the trace's arrays into the mapping: only
 * the track, row, counter and string-pointer arrays are allocated. Nothing read is trusted:
 * the header, the section table (each section where the writer puts it: none overlaps the
 * header or another), every section's checksum (XXH64 over 1 MiB blocks, verified on
 * several threads) and every index the code dereferences (string, track, slice, row,
 * GPU-info ids, the rows' and row trees' ranges) are checked before the trace is
 * returned, so a stale, foreign, cut or damaged file is refused, never used. So are the
 * values, as strictly as the parser checks its input, since whoever can write the file
 * can recompute its checksums: bools 0 or 1 (read as bytes before any is loaded as a
 * bool), enums and flags in range, times within the builder's limits (no slice end
 * overflows), and what the index relies on as src/index.c makes it (slices sorted, each
 * CPU slice's row the depth of its stack, rows in time order without overlaps, prefix
 * sums, max trees, row trees, busy spans, steps, the span, the GPU facts' links back).
 *
 * Analyses computed on first use are not stored: they are computed again. The args store
 * is the caller's: its saved state travels as an opaque section.
 *
 * The writer is src/cache_write.c, the reader src/cache.c, the checks of the values
 * src/cache_check.c, the parts for tests and fuzzing src/cache_parts.c, and what they
 * share of the layout src/cache_format.h. */
#ifndef TT_CACHE_H
#define TT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/model.h"

/* Bump when the meaning of any stored field changes without its size or place changing
 * (a new slice class, another rule for rows...): older files are then refused. */
#define CACHE_FORMAT_VERSION 9

/* What names an input: a cache holds the model of the file with this key only. */
struct cache_key {
	uint64_t path_hash; /* checksum64 of the input's real path */
	uint64_t size, dev, ino;
	int64_t mtime_ns;
	int64_t ctime_ns;   /* status change time: moves with any write, even one that puts
	                     * the mtime back (touch -r), and with chmod, chown, link */
	uint64_t edge_hash; /* checksum64 of the first and last 64 KB */
};

/* Writes T (a loaded trace, not failed), for KEY, with the args store's saved state ARGS
 * (ARGS_LEN bytes; may be empty), to the file open on FD from its current offset, which
 * must be 0. Returns 0, or -1 with *cause set (allocated: a write error). */
int cache_write(int fd, const struct trace *t, const struct cache_key *key, const void *args, size_t args_len,
                char **cause);

enum cache_refusal {
	CACHE_STALE = 1,   /* another input, another version of it, or another ttrace: expected */
	CACHE_DAMAGED = 2, /* cut, or a checksum or an index does not hold: worth saying */
};

/* Maps the cache file open on FD and returns the trace it holds for KEY, named PATH, with
 * no args store (T->args NULL), its arrays pointing into the mapping, which it owns.
 * *ARGS and *ARGS_LEN give the args store's saved state (inside the mapping). Returns
 * NULL with *cause set (allocated) and *why (enum cache_refusal) when the file cannot be
 * used. FD may be closed afterwards. With TTRACE_CACHE_TIMES set in the environment, says
 * on stderr how long the checks took (for bench/cache). */
struct trace *cache_read(int fd, const char *path, const struct cache_key *key, const void **args, size_t *args_len,
                         char **cause, int *why);

/* ---- for tests and fuzzing (tests/fuzz/fuzz_cache.c) -------------------------------------
 * Whoever can write a cache file can recompute its checksums: they prove nothing about its
 * values, which cache_read checks as strictly as the parser checks its input. These let a
 * fuzzer forge caches as such a writer would, so that its changes reach those checks. */

/* What a stored value is, so that a fuzzer tries the values a reader must refuse. */
enum cache_value {
	CV_BOOL,  /* 0 or 1 */
	CV_ENUM,  /* one of a few values */
	CV_TIME,  /* ns (a time, a length, a sum of lengths) */
	CV_ID,    /* an index into another array, or TT_NONE */
	CV_COUNT, /* a number of elements, or a place in the file */
	CV_OTHER, /* anything the parser may give (ids, sizes, doubles...) */
};

struct cache_field {
	const char *name;
	uint32_t offset, size; /* in its element; size 1, 2, 4 or 8 */
	enum cache_value kind;
};

/* A part of a cache image: a section, or the header's scalars, or its section table. */
struct cache_part {
	const char *name;
	uint64_t offset; /* in the image */
	uint64_t count;  /* elements that lie inside the image */
	uint32_t elem;   /* bytes per element */
	uint32_t nfields;
	const struct cache_field *fields;
};

/* How many parts cache_part describes: the sections, then the header, then its table. */
unsigned cache_nparts(void);

/* Describes part I of the cache image IMAGE (LEN bytes) as its header says it lies. Returns
 * false when I is out of range or LEN is shorter than a header. */
bool cache_part(const void *image, size_t len, unsigned i, struct cache_part *p);

/* Recomputes the checksums of the cache image IMAGE (LEN bytes) after its bytes were
 * changed: each section that lies inside the image, then the header. Returns 1 when the
 * header and section table then pass cache_read's checks (but for the key, which is the
 * caller's), so that a read goes on to check the values; 0 when a read refuses the image
 * at its header or table; -1 when LEN is shorter than a header. */
int cache_reseal(void *image, size_t len);

#endif
