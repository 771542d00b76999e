/* args_side.h: the side store: a copy of events' args text kept in memory, compressed,
 * for inputs that cannot be read back at an offset in reasonable time (a zstd file in one
 * big frame) or at all (standard input, a pipe, a FIFO).
 *
 * While the file loads, the scanner's thread adds each slice's args with its stream
 * offset, in increasing offset order. Records gather into chunks of about
 * ARGS_SIDE_CHUNK bytes, each compressed on its own with zstd (fast level), so a read
 * decompresses one chunk (well under a millisecond) and memory stays near the compressed
 * size of the args. Compression runs on the adding thread, or, when asked, on a thread of
 * the store's own beside it (one chunk in flight while the next fills), so that a spare
 * core pays for it. Once finished, the store is an args_store (src/args.h). */
#ifndef TT_ARGS_SIDE_H
#define TT_ARGS_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/args.h"

/* 512 KB: the chunk being filled and the one being compressed are held at once, beside
 * the model; against 1 MB, that is 1 MB less at the peak of a compressed file, for a few
 * percent more compressed bytes (t1000.zst's peak: +0.8 MB of 169 MB) (bench/RESULTS.md
 * "Compressed input: smaller buffers"). */
#define ARGS_SIDE_CHUNK ((size_t)1 << 19)

struct args_side;

/* Returns an empty side store that keeps at most LIMIT bytes of args text (0: no limit);
 * BACKGROUND: compress on a thread of its own. The caller owns it (args_side_free, or
 * args_side_finish and then the store's free). */
struct args_side *args_side_new(uint64_t limit, bool background);
/* Makes S (not compressing in the background, nothing added yet) take its buffers and
 * compression context from the calling thread's spares and leave them there when it is
 * finished, for the thread's next store; the spares are freed when the thread exits. For a
 * thread that fills many small stores (the chunks of a compressed stream); S must then be
 * added to and finished on that thread. */
void args_side_keep_buffers(struct args_side *s);
/* Keeps the LEN bytes at TEXT as the args at stream OFFSET, which must be past every offset
 * added before. Once the limit would be passed, nothing more is kept and the store is
 * over its limit for good. */
void args_side_add(struct args_side *s, uint64_t offset, const char *text, uint32_t len);
/* Moves everything SRC holds after what DST holds (SRC's offsets all follow DST's: the next
 * part of the same stream) and frees SRC. Neither may compress in the background. */
void args_side_append(struct args_side *dst, struct args_side *src);
/* Ends the adding: compresses what is pending and stops the background thread. Returns
 * true, or false when the store went over its limit (it then holds nothing). */
bool args_side_finish(struct args_side *s);
/* The bytes of args text added so far (all of them, kept or not). */
uint64_t args_side_added(const struct args_side *s);
/* S as an args store, once finished; freeing the store frees S. */
struct args_store *args_side_store(struct args_side *s);
/* Returns a finished store over the chunks a side store saved (args_store_ops.save: the
 * LEN bytes after the tag at BLOB), which it points into rather than copies: BLOB must
 * outlive it. NULL when they do not make a sound store. */
struct args_side *args_side_restore(const void *blob, size_t len);
/* Frees S (finishing it first when needed). NULL is a no-op. */
void args_side_free(struct args_side *s);

#endif
