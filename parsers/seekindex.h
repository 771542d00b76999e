/* seekindex.h: seek points into a compressed file, recorded while it is first
 * decompressed, and the args stores (src/args.h) that read a regular file back: at an
 * offset for a plain file, from the nearest seek point for gzip and zstd.
 *
 * gzip: at a deflate block boundary every SEEK_GZIP_SPAN bytes of output (zlib's
 * examples/zran.c): the compressed bit position and the 32 KB window that the next block
 * may refer back to (kept as a raw deflate stream), so inflate can start there with
 * inflatePrime and inflateSetDictionary. Members follow one another (cat a.gz b.gz, bgzip):
 * a point lies inside one member, and reading on crosses into the next.
 * zstd: where each frame starts. libzstd cannot resume inside a frame, so this helps only
 * files of several frames (pzstd, the seekable format, cat a.zst b.zst): when a frame is
 * bigger than SEEK_ZSTD_FRAME_MAX the loader keeps the args in a side store instead
 * (src/args_side.h).
 *
 * Every read opens the file again by its name and goes on only while it is the same file
 * (device, inode, size and modification time: parsers/input.h input_open_same), so a file
 * changed after loading gives a clear message, never wrong args. */
#ifndef TT_SEEKINDEX_H
#define TT_SEEKINDEX_H

#include <stdbool.h>
#include <stdint.h>

#include <zlib.h>

#include "parsers/input.h"
#include "src/args.h"

/* 2 MB: a read inflates at most that much from its point (2.5 ms at the 800 MB/s inflate
 * reaches on trace JSON here, under the 10 ms the details panel may wait; the operator
 * view's args are read in windows of 4 MB, so it pays at most half a span more a window),
 * and packing the windows costs 37 us a MB of output: 1 MB spans cost 2-8% of a gzip load
 * with deflate's packing (bench/RESULTS.md, "gzip windows"). */
#define SEEK_GZIP_SPAN ((uint64_t)2 << 20)
/* Reading from a frame's start to its end takes about 3 ms for 4 MB on the 2-core
 * machine (zstd decompresses trace JSON at 1.3-2 GB/s there); pzstd's frames of 8 MiB
 * took up to 16 ms on a busy machine, past the 10 ms the details panel may wait. */
#define SEEK_ZSTD_FRAME_MAX ((uint64_t)4 << 20)

struct seek_index;

/* Sets the gzip span and the zstd frame bound of indexes made after the call (0: the
 * SEEK_* defaults); for tests, which need many points in a small file. */
void seek_set_limits(uint64_t gzip_span, uint64_t zstd_frame_max);

/* Returns an empty index for a file of CODEC (gzip or zstd); the caller owns it. */
struct seek_index *seek_index_new(enum input_codec codec);
/* gzip, from the inflating thread after each inflate(Z_BLOCK) of Z (which must still be
 * able to give its window): IN_OFF compressed bytes consumed, OUT_OFF bytes produced.
 * Records a point when Z stopped at a block boundary SEEK_GZIP_SPAN past the last one. */
void seek_index_gzip(struct seek_index *x, z_stream *z, uint64_t in_off, uint64_t out_off);
/* Whether a gzip point is due at OUT_OFF bytes of output (SEEK_GZIP_SPAN past the last):
 * inflate need stop at block boundaries only then. */
bool seek_index_gzip_due(const struct seek_index *x, uint64_t out_off);
/* zstd: a frame (or skippable frame) starts at compressed byte IN_OFF, stream offset
 * OUT_OFF. */
void seek_index_zstd_frame(struct seek_index *x, uint64_t in_off, uint64_t out_off);
/* How far the stream was decompressed (bytes), when decompression ends or stops. */
void seek_index_end(struct seek_index *x, uint64_t out_off);
/* True when every part of the stream lies within a short read from a point: always for
 * gzip; for zstd, when no frame holds more than SEEK_ZSTD_FRAME_MAX bytes. */
bool seek_index_quick(const struct seek_index *x);
/* Seek points recorded (the file's start included), the stream offset of point I, and
 * the bytes of memory the index holds. */
uint32_t seek_index_points(const struct seek_index *x);
uint64_t seek_index_point(const struct seek_index *x, uint32_t i);
uint64_t seek_index_memory(const struct seek_index *x);
void seek_index_free(struct seek_index *x);
/* Returns the index a seek store saved (args_store_ops.save: the LEN bytes after the tag
 * at BLOB), copied, or NULL when they do not make a sound index. */
struct seek_index *seek_index_restore(const void *blob, size_t len);

/* Returns a store that reads the regular file PATH, identified by ID, back: at an offset
 * when X is NULL (a plain file), else through X, which the store takes over. */
struct args_store *seek_store_new(const char *path, const struct input_file *id, struct seek_index *x);

/* Returns whether ST is a store seek_store_new made, whose reads give any range of the
 * decompressed stream (not only args); false for NULL. */
bool seek_store_reads_any(const struct args_store *st);

#endif
