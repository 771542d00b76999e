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
 * the header, every section's checksum (XXH64 over 1 MiB blocks, verified on several
 * threads) and every index the code dereferences (string, track, slice, row, GPU-info
 * ids, the rows' and row trees' ranges) are checked before the trace is returned, so a
 * stale, foreign, cut or damaged file is refused, never used.
 *
 * Analyses computed on first use are not stored: they are computed again. The args store
 * is the caller's: its saved state travels as an opaque section. */
#ifndef TT_CACHE_H
#define TT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "src/model.h"

/* Bump when the meaning of any stored field changes without its size or place changing
 * (a new slice class, another rule for rows...): older files are then refused. */
#define CACHE_FORMAT_VERSION 4

/* What names an input: a cache holds the model of the file with this key only. */
struct cache_key {
	uint64_t path_hash;  /* checksum64 of the input's real path */
	uint64_t size, dev, ino;
	int64_t mtime_ns;
	int64_t ctime_ns;    /* status change time: moves with any write, even one that puts
	                      * the mtime back (touch -r), and with chmod, chown, link */
	uint64_t edge_hash;  /* checksum64 of the first and last 64 KB */
};

/* Writes T (a loaded trace, not failed), for KEY, with the args store's saved state ARGS
 * (ARGS_LEN bytes; may be empty), to the file open on FD from its current offset, which
 * must be 0. Returns 0, or -1 with *cause set (allocated: a write error). */
int cache_write(int fd, const struct trace *t, const struct cache_key *key, const void *args, size_t args_len,
                char **cause);

enum cache_refusal {
	CACHE_STALE = 1,     /* another input, another version of it, or another ttrace: expected */
	CACHE_DAMAGED = 2,   /* cut, or a checksum or an index does not hold: worth saying */
};

/* Maps the cache file open on FD and returns the trace it holds for KEY, named PATH, with
 * no args store (T->args NULL), its arrays pointing into the mapping, which it owns.
 * *ARGS and *ARGS_LEN give the args store's saved state (inside the mapping). Returns
 * NULL with *cause set (allocated) and *why (enum cache_refusal) when the file cannot be
 * used. FD may be closed afterwards. With TTRACE_CACHE_TIMES set in the environment, says
 * on stderr how long the checks took (for bench/cache). */
struct trace *cache_read(int fd, const char *path, const struct cache_key *key, const void **args,
                         size_t *args_len, char **cause, int *why);

#endif
