/* cache_dir.h: the directory of binary caches (src/cache.h) and how a load uses it.
 *
 * Caches live in $XDG_CACHE_HOME/ttrace (else ~/.cache/ttrace), never beside the input.
 * A file's cache is named after the input's base name and a checksum of its real path,
 * device and inode, so a changed file's cache is replaced in place; inside, the key
 * (real path, size, modification time in ns, device, inode, and a checksum of the first
 * and last 64 KB) says whether it still describes the file. Only regular files of at
 * least TTRACE_CACHE_MIN bytes (default 1 MiB) are cached. A cache is written to a
 * temporary file in the directory, then renamed over the old one; after each write the
 * directory is trimmed to its cap (TTRACE_CACHE_MAX, default 10% of its file system
 * and at most 20 GB) by removing the caches used least recently (a read touches its
 * file's modification time). TTRACE_NO_CACHE=1, or cache_dir_disable (--no-cache), turns
 * it all off. */
#ifndef TT_CACHE_DIR_H
#define TT_CACHE_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "src/cache.h"
#include "src/model.h"

#define CACHE_DIR_DEFAULT_MAX ((uint64_t)20 << 30)
#define CACHE_DIR_DEFAULT_MIN ((uint64_t)1 << 20)

/* Turns caching off for this process (--no-cache). */
void cache_dir_disable(void);
/* True when a load of PATH should use the cache: caching on, PATH a regular file big
 * enough (FORCE: whatever its size, for ttrace index). */
bool cache_dir_wanted(const char *path, bool force);
/* True when PATH exists and is not a regular file (a FIFO, a device, a directory). */
bool cache_dir_is_other(const char *path);
/* Computes PATH's key into *KEY. Returns 0, or -1 with *cause set (allocated). */
int cache_dir_key(const char *path, struct cache_key *key, char **cause);
/* Returns the trace PATH's valid cache holds (with its args store), or NULL: no cache, a
 * stale one or a damaged one (then *note says why, allocated, and *DAMAGED whether it was
 * damaged rather than out of date; else *note is NULL). KEY is PATH's key. */
struct trace *cache_dir_open(const char *path, const struct cache_key *key, char **note, bool *damaged);
/* Writes the cache of T, loaded from PATH whose key was KEY before the load, now. Returns
 * 0, or -1 with *cause set (allocated): the directory cannot be written, the file changed
 * while it loaded, ... */
int cache_dir_save(const struct trace *t, const struct cache_key *key, char **cause);
/* Writes the cache of T on a thread of its own; T->finish_cache_save waits for it (trace_free
 * calls it), then sets T->cache to TRACE_CACHE_SAVED or NOT_SAVED. */
void cache_dir_save_async(struct trace *t, const struct cache_key *key);
/* The cache directory (allocated), or NULL when neither XDG_CACHE_HOME nor HOME is set. */
char *cache_dir_path(void);

#endif
