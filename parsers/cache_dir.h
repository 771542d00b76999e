/* cache_dir.h: the directory of binary caches (src/cache.h) and how a load uses it.
 *
 * Caches live in $XDG_CACHE_HOME/ttrace (else ~/.cache/ttrace), never beside the input;
 * when that base directory is not the user's own (a shared scratch directory), in
 * BASE/ttrace-UID instead. A cache is data trusted as if ttrace had parsed it, so it is
 * read and written only where nobody else can change it, as ssh treats its keys: the
 * directory must be the user's, writable by neither group nor others, every directory
 * above it the user's or root's and writable by no one else unless sticky, and the cache
 * file a regular file of the user's that group and others cannot write. Otherwise the
 * cache is neither read nor written, and the load says why.
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
/* True when a load of PATH should write its cache: caching on, PATH a regular file big
 * enough (FORCE: whatever its size, for ttrace index). */
bool cache_dir_wanted(const char *path, bool force);
/* True when a load of PATH may read an existing cache: caching on, PATH a regular file
 * (of any size: a file under TTRACE_CACHE_MIN that ttrace index cached is read too). */
bool cache_dir_readable(const char *path);
/* Checks TTRACE_CACHE_MAX and TTRACE_CACHE_MIN: 0, or -1 with *MSG (allocated) naming the
 * value that is not a byte count. */
int cache_dir_check_env(char **msg);
/* Removes the temporary files of caches being written now. Async-signal-safe. */
void cache_dir_remove_temporaries(void);
/* Makes SIGINT, SIGTERM and SIGHUP, where their action is the default, remove the
 * temporary files of caches being written before the process ends. */
void cache_dir_guard_signals(void);
/* True when PATH exists and is not a regular file (a FIFO, a device, a directory). */
bool cache_dir_is_other(const char *path);
/* Computes PATH's key into *KEY. Returns 0, or -1 with *cause set (allocated). */
int cache_dir_key(const char *path, struct cache_key *key, char **cause);
/* Makes *KEY, a merged trace's key (parsers/merged_file.h), the key of its rank at POS: each
 * rank has a cache of its own (its path's checksum mixed with POS), beside the file's. A
 * trace with t->merged set is saved under its rank's key (t->merged_pos). */
void cache_dir_key_rank(struct cache_key *key, int32_t pos);
/* Returns the trace PATH's valid cache holds (with its args store), or NULL: no cache, a
 * stale one, a damaged one or one that cannot be trusted (then *note says why, allocated,
 * and *DAMAGED whether it is worth a warning, damaged or untrusted, rather than out of
 * date; else *note is NULL). KEY is PATH's key. */
struct trace *cache_dir_open(const char *path, const struct cache_key *key, char **note, bool *damaged);
/* Gives T, read by cache_read from the cache of the input with KEY (T->path), the args store
 * whose saved state is BLOB (LEN bytes, in the mapping). For cache_dir_open and the cache's
 * fuzz target. */
void cache_dir_restore_args(struct trace *t, const struct cache_key *key, const char *blob, size_t len);
/* Writes the cache of T, loaded from PATH whose key was KEY before the load, now. Returns
 * 0, or -1 with *cause set (allocated): the directory cannot be written, the file changed
 * while it loaded, ... */
int cache_dir_save(const struct trace *t, const struct cache_key *key, char **cause);
/* Writes the cache of T on a thread of its own; T->finish_cache_save waits for it (trace_free
 * calls it), then sets T->cache to TRACE_CACHE_SAVED or NOT_SAVED. */
void cache_dir_save_async(struct trace *t, const struct cache_key *key);
/* The cache directory (allocated), or NULL when neither XDG_CACHE_HOME nor HOME is set.
 * It may not exist yet. */
char *cache_dir_path(void);

#endif
