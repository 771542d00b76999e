/* compress.h: for the unit tests, gzip members and zstd frames made in memory, so that
 * compressed fixtures of any shape (members, frames, block sizes) are generated, not
 * committed. Each appends to *OUT (grown with xrealloc) and advances *LEN. */
#ifndef TT_TEST_COMPRESS_H
#define TT_TEST_COMPRESS_H

#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/xalloc.h"

/* The gzip member of SRC[0..n). A small MEM_LEVEL makes small deflate blocks (gzip's 8
 * makes blocks of about 100 KB of trace text): many places for seek points. */
static inline void gzip_member(const char *src, size_t n, int mem_level, char **out, size_t *len)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, mem_level, Z_DEFAULT_STRATEGY) != Z_OK)
		fatal("deflateInit2");
	size_t bound = deflateBound(&z, (uLong)n);
	*out = xrealloc(*out, *len + bound);
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)*out + *len;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fatal("deflate");
	*len += bound - z.avail_out;
	deflateEnd(&z);
}

/* One zstd frame of SRC[0..n). */
static inline void zstd_frame(const char *src, size_t n, char **out, size_t *len)
{
	size_t bound = ZSTD_compressBound(n);
	*out = xrealloc(*out, *len + bound);
	size_t k = ZSTD_compress(*out + *len, bound, src, n, 3);
	if (ZSTD_isError(k))
		fatal("ZSTD_compress");
	*len += k;
}

/* A skippable frame of 4 bytes (pzstd puts one before each frame). */
static inline void zstd_skippable(char **out, size_t *len)
{
	static const unsigned char f[] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'p', 'a', 'd', '!' };
	*out = xrealloc(*out, *len + sizeof f);
	memcpy(*out + *len, f, sizeof f);
	*len += sizeof f;
}

#endif
