/* seekindex.c: seek points recorded while a compressed file loads, and the stores that
 * read a regular file's args back through them.
 *
 * Points are in stream order: point 0 is the file's start (for gzip, a member header read
 * in gzip mode; every later gzip point is inside a member, read as raw deflate, and the
 * 8-byte trailer at its member's end is stepped over before the next member's header).
 * A read finds the last point at or before the offset, starts decompressing there and
 * throws away the bytes before the offset: at most one span (gzip) or one frame (zstd).
 * Each read has its own decoder and buffers, so reads need no lock. */
#include "parsers/seekindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#include "lib/xalloc.h"
#include "parsers/input.h"

#define WINDOW_SIZE 32768u /* deflate's window */
/* Stored windows are raw deflate streams, level 1, matches within 8 KB (windowBits 13),
 * memLevel 5: a 32 KB window of the v100 trace takes 74 us (the stream reset for each) and
 * keeps 8.4%. Not zstd (22 us, 9%): its compressor's code (0.3 MB of libzstd's pages)
 * stayed resident through every gzip load, where deflate's code lies among the pages
 * inflate keeps mapped. The stream's state (48 KB at these settings, 192-256 KB with the
 * whole window, which is no faster) lives while the file is decompressed. */
#define WINDOW_LEVEL 1
#define WINDOW_BITS 13
#define WINDOW_MEM_LEVEL 5
#define READ_IN ((size_t)64 << 10)
#define READ_OUT ((size_t)128 << 10)

struct seek_point {
	uint64_t in_off;     /* compressed bytes before the point */
	uint64_t out_off;    /* stream offset of the point */
	uint8_t bits;        /* gzip: unused high bits of byte in_off - 1, which the point starts in */
	bool header;         /* gzip: at a member header (gzip mode), not inside a member */
	uint32_t window_len; /* gzip: window bytes before compression */
	uint32_t packed_len;
	char *packed; /* gzip: the window, as a raw deflate stream */
};

static uint64_t gzip_span = SEEK_GZIP_SPAN, zstd_frame_max = SEEK_ZSTD_FRAME_MAX;

void seek_set_limits(uint64_t span, uint64_t frame_max)
{
	gzip_span = span != 0 ? span : SEEK_GZIP_SPAN;
	zstd_frame_max = frame_max != 0 ? frame_max : SEEK_ZSTD_FRAME_MAX;
}

struct seek_index {
	enum input_codec codec;
	uint64_t span, frame_max;
	struct seek_point *p;
	uint32_t n, cap;
	uint64_t out_end;
	uint64_t packed_bytes;
	unsigned char *window; /* while recording gzip points: the window, then room to pack it */
	z_stream pack;         /* and the deflate stream that packs it, reset for each */
	bool packing;          /* pack is made */
	bool restored;         /* read back from a cache file: a window that does not decompress
	                        * is damage, not a bug */
};

/* The recording's memory (the window, its packed copy, deflate's state) in pages of its own,
 * given back whole: freed into the inflating thread's malloc arena, 0.15 MB of it stayed
 * resident through the rest of a load. */
#define PAGES_HEAD 16 /* the mapping's length, before the block (keeps it 16-byte aligned) */
static void *pages_get(size_t n)
{
	size_t len = n + PAGES_HEAD;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof len);
	return p + PAGES_HEAD;
}

static void pages_put(void *block)
{
	size_t len;
	if (block == NULL)
		return;
	memcpy(&len, (char *)block - PAGES_HEAD, sizeof len);
	munmap((char *)block - PAGES_HEAD, len);
}

static voidpf deflate_get(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return pages_get((size_t)items * size);
}

static void deflate_put(voidpf opaque, voidpf block)
{
	(void)opaque;
	pages_put(block);
}

/* The packed copy's room: deflateBound's for a window at a memLevel other than 8 */
#define PACK_ROOM (WINDOW_SIZE + (WINDOW_SIZE + 7) / 8 + (WINDOW_SIZE + 63) / 64 + 5)

/* Gives back the window's pages and the deflate stream's. */
static void stop_packing(struct seek_index *x)
{
	if (x->packing)
		deflateEnd(&x->pack);
	x->packing = false;
	pages_put(x->window);
	x->window = NULL;
}

static struct seek_point *add_point(struct seek_index *x)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 64;
		x->p = xreallocarray(x->p, x->cap, sizeof *x->p);
	}
	memset(&x->p[x->n], 0, sizeof *x->p);
	return &x->p[x->n++];
}

struct seek_index *seek_index_new(enum input_codec codec)
{
	struct seek_index *x = xcalloc(1, sizeof *x);
	x->codec = codec;
	x->span = gzip_span;
	x->frame_max = zstd_frame_max;
	add_point(x)->header = true; /* the file's start */
	return x;
}

bool seek_index_gzip_due(const struct seek_index *x, uint64_t out_off)
{
	return out_off - x->p[x->n - 1].out_off >= x->span;
}

void seek_index_gzip(struct seek_index *x, z_stream *z, uint64_t in_off, uint64_t out_off)
{
	struct seek_point *pt;
	uInt wlen = WINDOW_SIZE;
	z_stream *d = &x->pack;
	size_t bound, n;

	/* 128: stopped at a block boundary (or just after a member header); 64: in the
	 * member's last block, whose end is the member's end, not a place to start */
	if ((z->data_type & 128) == 0 || (z->data_type & 64) != 0)
		return;
	if (!seek_index_gzip_due(x, out_off))
		return;
	if (x->window == NULL && (x->window = pages_get(WINDOW_SIZE + PACK_ROOM)) == NULL)
		fatal("out of memory (a gzip window)");
	if (inflateGetDictionary(z, x->window, &wlen) != Z_OK)
		return;
	if (!x->packing) {
		memset(d, 0, sizeof *d);
		d->zalloc = deflate_get;
		d->zfree = deflate_put;
		if (deflateInit2(d, WINDOW_LEVEL, Z_DEFLATED, -WINDOW_BITS, WINDOW_MEM_LEVEL, Z_DEFAULT_STRATEGY) !=
		    Z_OK)
			fatal("out of memory (deflateInit2)");
		x->packing = true;
	} else if (deflateReset(d) != Z_OK) {
		BUG("deflateReset");
	}
	bound = deflateBound(d, wlen);
	if (bound > PACK_ROOM)
		BUG("deflateBound says %zu bytes for a window", bound);
	d->next_in = x->window;
	d->avail_in = wlen;
	d->next_out = x->window + WINDOW_SIZE;
	d->avail_out = (uInt)PACK_ROOM;
	if (deflate(d, Z_FINISH) != Z_STREAM_END)
		fatal("cannot compress a gzip window: %s", d->msg != NULL ? d->msg : "deflate did not finish");
	n = PACK_ROOM - d->avail_out;
	pt = add_point(x);
	pt->in_off = in_off;
	pt->out_off = out_off;
	pt->bits = (uint8_t)(z->data_type & 7);
	pt->window_len = wlen;
	pt->packed_len = (uint32_t)n;
	pt->packed = xmalloc(n);
	memcpy(pt->packed, x->window + WINDOW_SIZE, n);
	x->packed_bytes += n;
}

void seek_index_zstd_frame(struct seek_index *x, uint64_t in_off, uint64_t out_off)
{
	/* frames that add no bytes (skippable, empty) are read through from the first */
	if (out_off == x->p[x->n - 1].out_off)
		return;
	struct seek_point *pt = add_point(x);
	pt->in_off = in_off;
	pt->out_off = out_off;
}

void seek_index_end(struct seek_index *x, uint64_t out_off)
{
	x->out_end = out_off;
	/* a point where the last frame ended starts nothing */
	if (x->n > 1 && x->p[x->n - 1].out_off >= out_off)
		x->n--;
	/* the recording is over: its buffers go */
	stop_packing(x);
}

bool seek_index_quick(const struct seek_index *x)
{
	if (x->codec != INPUT_ZSTD)
		return true;
	for (uint32_t i = 0; i < x->n; i++) {
		uint64_t end = i + 1 < x->n ? x->p[i + 1].out_off : x->out_end;
		if (end > x->p[i].out_off && end - x->p[i].out_off > x->frame_max)
			return false;
	}
	return true;
}

uint32_t seek_index_points(const struct seek_index *x) { return x->n; }

uint64_t seek_index_point(const struct seek_index *x, uint32_t i) { return i < x->n ? x->p[i].out_off : 0; }

uint64_t seek_index_memory(const struct seek_index *x)
{
	return sizeof *x + (uint64_t)x->cap * sizeof *x->p + x->packed_bytes;
}

void seek_index_free(struct seek_index *x)
{
	if (x == NULL)
		return;
	for (uint32_t i = 0; i < x->n; i++)
		free(x->p[i].packed);
	free(x->p);
	stop_packing(x);
	free(x);
}

/* ---- reading back ---------------------------------------------------------------------- */

struct seek_store {
	struct args_store store;
	char *path;
	struct input_file id;
	struct seek_index *x; /* NULL: a plain file */
};

/* The last point at or before OFFSET (point 0 is at 0). */
static const struct seek_point *point_before(const struct seek_index *x, uint64_t offset)
{
	uint32_t lo = 1, hi = x->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->p[mid].out_off <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &x->p[lo - 1];
}

/* Copies the part of OUT[0..n), which holds the stream from *AT, that falls in
 * [offset, offset + len) into BUF; advances *AT. Returns true once BUF is full. */
static bool take(const unsigned char *out, size_t n, uint64_t *at, uint64_t offset, size_t len, char *buf)
{
	uint64_t lo = *at > offset ? *at : offset, hi = *at + n < offset + len ? *at + n : offset + len;
	if (hi > lo)
		memcpy(buf + (lo - offset), out + (lo - *at), (size_t)(hi - lo));
	*at += n;
	return *at >= offset + len;
}

static char *changed(const struct seek_store *st, const char *what)
{
	return xasprintf("%s: cannot read the args back: %s (has the file changed?)", st->path, what);
}

/* Inflates PT's stored window into OUT (CAP bytes); whether it gave exactly its length. */
static bool unpack_window(const struct seek_point *pt, unsigned char *out, size_t cap)
{
	z_stream u;
	int ret;
	bool whole;

	memset(&u, 0, sizeof u);
	if (inflateInit2(&u, -15) != Z_OK)
		fatal("out of memory (inflateInit2)");
	u.next_in = (Bytef *)pt->packed;
	u.avail_in = pt->packed_len;
	u.next_out = out;
	u.avail_out = (uInt)cap;
	ret = inflate(&u, Z_FINISH);
	if (ret == Z_MEM_ERROR)
		fatal("out of memory (inflate)");
	whole = ret == Z_STREAM_END && u.avail_in == 0 && u.total_out == pt->window_len;
	inflateEnd(&u);
	return whole;
}

static int gzip_read(const struct seek_store *st, int fd, uint64_t offset, size_t len, char *buf, char **cause)
{
	const struct seek_point *pt = point_before(st->x, offset);
	unsigned char *in = xmalloc(READ_IN), *out = xmalloc(READ_OUT);
	z_stream z;
	uint64_t pos = pt->in_off, at = pt->out_off;
	bool raw = !pt->header, done = false;
	unsigned trailer = 0; /* bytes of a member's trailer still to step over */
	char *err = NULL;
	int ret;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, raw ? -15 : 15 + 16) != Z_OK)
		fatal("out of memory (inflateInit2)");
	if (pt->bits > 0) {
		unsigned char c;
		if (input_pread_fd(fd, &c, 1, pos - 1) != 1) {
			err = changed(st, "it is shorter than it was");
			goto out;
		}
		inflatePrime(&z, pt->bits, c >> (8 - pt->bits));
	}
	if (pt->window_len > 0) {
		bool whole = unpack_window(pt, out, READ_OUT);
		if (!whole && st->x->restored) {
			err = xstrdup(
				"the args' seek point read from the cache is damaged (open the file with --no-cache)");
			goto out;
		}
		if (!whole)
			BUG("a stored gzip window does not decompress");
		inflateSetDictionary(&z, out, pt->window_len);
	}
	while (!done) {
		if (z.avail_in == 0) {
			ssize_t n = input_pread_fd(fd, in, READ_IN, pos);
			if (n <= 0) {
				err = changed(st, n < 0 ? strerror(errno) : "it ends before the args");
				break;
			}
			pos += (uint64_t)n;
			z.next_in = in;
			z.avail_in = (uInt)n;
		}
		if (trailer > 0) {
			unsigned k = trailer < z.avail_in ? trailer : z.avail_in;
			z.next_in += k;
			z.avail_in -= k;
			trailer -= k;
			if (trailer == 0)
				inflateReset2(&z, 15 + 16); /* the next member, from its header */
			continue;
		}
		z.next_out = out;
		z.avail_out = (uInt)READ_OUT;
		ret = inflate(&z, Z_NO_FLUSH);
		if (ret == Z_MEM_ERROR)
			fatal("out of memory (inflate)");
		done = take(out, READ_OUT - z.avail_out, &at, offset, len, buf);
		if (done)
			break;
		if (ret == Z_STREAM_END) {
			if (raw) {
				raw = false;
				trailer = 8;
			} else {
				inflateReset(&z);
			}
		} else if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_in == 0)) {
			err = changed(st, z.msg != NULL ? z.msg : zError(ret));
			break;
		}
	}
out:
	inflateEnd(&z);
	free(in);
	free(out);
	if (err != NULL) {
		*cause = err;
		return -1;
	}
	return 0;
}

static int zstd_read(const struct seek_store *st, int fd, uint64_t offset, size_t len, char *buf, char **cause)
{
	const struct seek_point *pt = point_before(st->x, offset);
	unsigned char *in = xmalloc(READ_IN), *out = xmalloc(READ_OUT);
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer zin = { in, 0, 0 };
	uint64_t pos = pt->in_off, at = pt->out_off;
	char *err = NULL;

	if (d == NULL)
		fatal("out of memory (ZSTD_createDCtx)");
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 27);
	for (;;) {
		if (zin.pos == zin.size) {
			ssize_t n = input_pread_fd(fd, in, READ_IN, pos);
			if (n <= 0) {
				err = changed(st, n < 0 ? strerror(errno) : "it ends before the args");
				break;
			}
			pos += (uint64_t)n;
			zin.size = (size_t)n;
			zin.pos = 0;
		}
		ZSTD_outBuffer zout = { out, READ_OUT, 0 };
		size_t r = ZSTD_decompressStream(d, &zout, &zin);
		if (ZSTD_isError(r)) {
			err = changed(st, ZSTD_getErrorName(r));
			break;
		}
		if (take(out, zout.pos, &at, offset, len, buf))
			break;
	}
	ZSTD_freeDCtx(d);
	free(in);
	free(out);
	if (err != NULL) {
		*cause = err;
		return -1;
	}
	return 0;
}

static int store_open(struct args_store *base, char **cause)
{
	const struct seek_store *st = (const struct seek_store *)base;
	return input_open_same(st->path, &st->id, cause);
}

static int store_read_open(struct args_store *base, int fd, uint64_t offset, size_t len, char *buf, char **cause)
{
	const struct seek_store *st = (const struct seek_store *)base;
	int rc = 0;

	if (st->x == NULL) {
		ssize_t n = input_pread_fd(fd, buf, len, offset);
		if (n != (ssize_t)len) {
			*cause = xasprintf("%s: cannot read %zu bytes at byte %llu (has the file changed?)", st->path,
			                   len, (unsigned long long)offset);
			rc = -1;
		}
	} else if (st->x->codec == INPUT_GZIP) {
		rc = gzip_read(st, fd, offset, len, buf, cause);
	} else {
		rc = zstd_read(st, fd, offset, len, buf, cause);
	}
	return rc;
}

static int store_read(struct args_store *base, uint64_t offset, size_t len, char *buf, char **cause)
{
	int fd = store_open(base, cause);
	if (fd < 0)
		return -1;
	int rc = store_read_open(base, fd, offset, len, buf, cause);
	close(fd);
	return rc;
}

static uint64_t store_memory(const struct args_store *base)
{
	const struct seek_store *st = (const struct seek_store *)base;
	return sizeof *st + strlen(st->path) + 1 + (st->x != NULL ? seek_index_memory(st->x) : 0);
}

static void store_free(struct args_store *base)
{
	struct seek_store *st = (struct seek_store *)base;
	seek_index_free(st->x);
	free(st->path);
	free(st);
}

/* Saved: the tag, then for a compressed file the index: codec, points, span, frame bound and
 * end, then per point its offsets, bits, header flag and window lengths, then the packed
 * windows one after the other. */
struct saved_index {
	uint32_t codec, n;
	uint64_t span, frame_max, out_end;
};

struct saved_point {
	uint64_t in_off, out_off;
	uint32_t window_len, packed_len;
	uint8_t bits, header, pad[6];
};

static char *store_save(const struct args_store *base, size_t *len)
{
	const struct seek_store *st = (const struct seek_store *)base;
	const struct seek_index *x = st->x;
	char *blob, *p;

	if (x == NULL) {
		*len = 1;
		blob = xmalloc(1);
		blob[0] = ARGS_SAVED_FILE;
		return blob;
	}
	*len = 1 + sizeof(struct saved_index) + (size_t)x->n * sizeof(struct saved_point) + x->packed_bytes;
	blob = p = xcalloc(1, *len);
	*p++ = ARGS_SAVED_SEEK;
	struct saved_index si = { (uint32_t)x->codec, x->n, x->span, x->frame_max, x->out_end };
	memcpy(p, &si, sizeof si);
	p += sizeof si;
	for (uint32_t i = 0; i < x->n; i++) {
		struct saved_point sp;
		memset(&sp, 0, sizeof sp);
		sp.in_off = x->p[i].in_off;
		sp.out_off = x->p[i].out_off;
		sp.window_len = x->p[i].window_len;
		sp.packed_len = x->p[i].packed_len;
		sp.bits = x->p[i].bits;
		sp.header = x->p[i].header;
		memcpy(p, &sp, sizeof sp);
		p += sizeof sp;
	}
	for (uint32_t i = 0; i < x->n; i++) {
		if (x->p[i].packed_len == 0)
			continue; /* zstd points and the file's start have no window */
		memcpy(p, x->p[i].packed, x->p[i].packed_len);
		p += x->p[i].packed_len;
	}
	return blob;
}

struct seek_index *seek_index_restore(const void *blob, size_t len)
{
	const char *p = blob, *end = p + len;
	struct saved_index si;
	struct seek_index *x;

	if (len < sizeof si)
		return NULL;
	memcpy(&si, p, sizeof si);
	p += sizeof si;
	if ((si.codec != INPUT_GZIP && si.codec != INPUT_ZSTD) || si.n == 0 ||
	    si.n > (size_t)(end - p) / sizeof(struct saved_point))
		return NULL;
	x = xcalloc(1, sizeof *x);
	x->codec = (enum input_codec)si.codec;
	x->span = si.span;
	x->frame_max = si.frame_max;
	x->out_end = si.out_end;
	x->p = xcalloc(si.n, sizeof *x->p);
	x->cap = si.n;
	const char *packed = p + (size_t)si.n * sizeof(struct saved_point);
	for (uint32_t i = 0; i < si.n; i++) {
		struct saved_point sp;
		struct seek_point *pt = &x->p[x->n];
		memcpy(&sp, p + (size_t)i * sizeof sp, sizeof sp);
		/* points in stream order, windows that fit: what point_before and the reads assume */
		if (sp.packed_len > (size_t)(end - packed) || sp.window_len > WINDOW_SIZE || sp.bits > 7 ||
		    (i == 0 && (sp.out_off != 0 || sp.in_off != 0)) || (i > 0 && sp.out_off <= x->p[i - 1].out_off) ||
		    (sp.bits > 0 && sp.in_off == 0) || (sp.window_len > 0) != (sp.packed_len > 0) ||
		    (x->codec == INPUT_ZSTD && sp.packed_len > 0)) {
			seek_index_free(x);
			return NULL;
		}
		pt->in_off = sp.in_off;
		pt->out_off = sp.out_off;
		pt->bits = sp.bits;
		pt->header = sp.header != 0;
		pt->window_len = sp.window_len;
		pt->packed_len = sp.packed_len;
		if (sp.packed_len > 0) {
			pt->packed = xmalloc(sp.packed_len);
			memcpy(pt->packed, packed, sp.packed_len);
			packed += sp.packed_len;
			x->packed_bytes += sp.packed_len;
		}
		x->n++;
	}
	if (packed != end) {
		seek_index_free(x);
		return NULL;
	}
	x->restored = true;
	return x;
}

static const struct args_store_ops store_ops = { store_read, store_memory, store_free,
	                                         store_save, store_open,   store_read_open };

bool seek_store_reads_any(const struct args_store *st) { return st != NULL && st->ops == &store_ops; }

struct args_store *seek_store_new(const char *path, const struct input_file *id, struct seek_index *x)
{
	struct seek_store *st = xcalloc(1, sizeof *st);
	st->store.ops = &store_ops;
	st->store.kind = x == NULL ? "file" : x->codec == INPUT_GZIP ? "gzip checkpoints" : "zstd frames";
	st->path = xstrdup(path);
	st->id = *id;
	st->x = x;
	return &st->store;
}
