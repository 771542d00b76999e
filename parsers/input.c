/* input.c: the byte source under every parser: a file or stdin, sniffed for gzip or
 * zstd by magic bytes, and decompressed on a background thread when compressed.
 *
 * Plain input is read() straight into the caller's buffer; nothing else runs. For
 * gzip and zstd a producer thread reads the compressed bytes and inflates them directly
 * into a queue of slots; input_read copies out of the slot at the head of the queue. A
 * gzip slot is a buffer of its own (RING_SLOTS of SLOT_SIZE bytes); a zstd slot is a piece
 * of one round buffer, `zbuf`, which is the decoder's window too (zstd's buffer-less
 * decoding: the producer writes a block only where the reader holds nothing, so the
 * reader needs no copy of the window's bytes). The queue's state shared by the two threads
 * is one count, `filled` (slots published and not yet released, the one being read
 * included), plus `done`/`stop`/`prod_waiting` flags, all under `lock`. The producer only
 * fills slot (head + filled) % nslots, which the consumer never touches, so slot contents
 * need no lock; the mutex hand-off orders them. Each side waits on its own condition
 * variable: empty -> non-empty wakes the consumer, and a release wakes the producer when
 * it waits.
 *
 * Errors (truncated or corrupt stream, read error) are recorded by the producer after it
 * has published every byte decompressed before them, so the consumer sees all the good
 * data first, then -1. When stdin is a pipe the producer may sit in read(): it polls the
 * pipe together with a wake-up pipe that input_close writes to, so closing never hangs on
 * a stalled writer.
 *
 * A regular compressed file also gets a seek index (parsers/seekindex.h), which only the
 * producer writes: gzip inflates with Z_BLOCK so that it stops at deflate block
 * boundaries, where points are recorded; zstd notes where each frame starts. The loader
 * takes the index once the producer is stopped (input_take_index).
 *
 * Large grants: a count of free grants under one process-wide lock. An input takes at
 * most one, from its producer (a zstd frame with a big window, seen by reading the frame
 * header before the decoder does) or from its reader (a scanner window past its small
 * size), and gives it back when closed; waiters are woken on every give-back and when
 * their input is being closed. */
#include "parsers/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY /* the buffer-less decoder: zstd_run */
#include <zstd.h>
#include <zstd_errors.h>

#include "parsers/seekindex.h"
#include "lib/xalloc.h"

#define RING_SLOTS 4
#define SLOT_SIZE ((size_t)256 << 10)
#define SRC_BUF_SIZE ((size_t)256 << 10)
/* zstd: the pieces of the ring published at once (the ring's queue), the size past which
 * a piece is published, and the smallest ring */
#define ZQUEUE 32
#define ZPIECE ((size_t)64 << 10)
#define ZRING_MIN ((size_t)64 << 10)
/* the slots the reader releases before it wakes a waiting producer (or all it held) */
#define ZWAKE 2
/* A compressed file smaller than this reads through buffers a quarter of that size: its
 * whole stream takes a fraction of a second, and the 1 MB it saves is 2% of a 50 MB
 * trace's JSON (bench/RESULTS.md "v100 at a quarter of its JSON"). */
#define SMALL_FILE ((uint64_t)16 << 20)
#define SMALL_BUF_SHIFT 2
#define SNIFF_LEN 4
#define ZSTD_HEADER_MAX 18 /* ZSTD_FRAMEHEADERSIZE_MAX */

static pthread_mutex_t large_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t large_cond = PTHREAD_COND_INITIALIZER;
static unsigned large_slots = INPUT_LARGE_SLOTS, large_used;

struct slot {
	unsigned char *buf;
	size_t len;
	uint64_t src_off; /* compressed bytes consumed when the slot was published */
};

struct input {
	char *path;
	const char *name; /* for messages: the path, or "stdin" */
	int fd;
	bool own_fd;
	bool is_reg;
	uint64_t dev, ino;
	int64_t mtime_ns, ctime_ns;
	enum input_codec codec;
	uint64_t file_size;

	unsigned char sniff[SNIFF_LEN];
	size_t sniff_len;
	size_t sniff_pos; /* plain only: how much of sniff input_read has served */

	uint64_t file_off;
	uint64_t data_off;
	bool eof;
	char *err;    /* set once the input has ended badly; every later read repeats it */
	bool large;   /* under large_lock: holds a large grant */
	bool closing; /* under large_lock: input_close has begun */

	/* Memory input (input_open_mem): bytes handed over by the caller. */
	const char *mem;
	size_t mem_len, mem_pos;
	char *mem_end_cause;

	/* Compressed input only. */
	bool threaded;
	pthread_t thread;
	int wake[2];
	z_stream z;
	ZSTD_DCtx *zds;
	unsigned char *src;

	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	pthread_cond_t notfull;
	struct slot ring[ZQUEUE];
	unsigned int nslots;   /* gzip: RING_SLOTS buffers of its own; zstd: ZQUEUE pieces of zbuf */
	unsigned int filled;   /* under lock */
	bool prod_waiting;     /* under lock: the producer waits for the reader to release */
	unsigned int released; /* under lock: slots released since the producer began to wait */
	bool done;             /* under lock: producer has finished */
	bool stop;             /* under lock: consumer wants the producer gone */
	char *prod_err;        /* under lock once done */
	uint64_t final_off;    /* under lock once done */

	unsigned int head; /* consumer: slot being read */
	size_t head_pos;
	bool holding; /* consumer: ring[head] is published and being read */

	unsigned int tail;          /* producer: slot being filled */
	uint64_t produced;          /* producer: bytes published */
	struct seek_index *index;   /* producer: seek points of a regular file, or NULL */
	size_t slot_size, src_size; /* SLOT_SIZE and SRC_BUF_SIZE, smaller for a small file */

	/* zstd: the ring the decoder writes and the reader reads, and its write position */
	unsigned char *zbuf;
	size_t zcap, zw;
};

const char *input_codec_name(enum input_codec c)
{
	switch (c) {
	case INPUT_PLAIN: return "plain";
	case INPUT_GZIP: return "gzip";
	case INPUT_ZSTD: return "zstd";
	}
	return "unknown";
}

enum input_codec input_codec(const struct input *in) { return in->codec; }
uint64_t input_file_size(const struct input *in) { return in->file_size; }
uint64_t input_file_offset(const struct input *in) { return in->file_off; }
uint64_t input_data_offset(const struct input *in) { return in->data_off; }
const char *input_path(const struct input *in) { return in->path; }

/* zstd frames start with 28 b5 2f fd; pzstd output starts with a skippable frame,
 * 5? 2a 4d 18, which the zstd decoder steps over by itself. */
static enum input_codec sniff_codec(const unsigned char *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return INPUT_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return INPUT_ZSTD;
	if (n >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18)
		return INPUT_ZSTD;
	return INPUT_PLAIN;
}

static ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The compressed bytes of a head, read in chunks of this many. */
#define HEAD_CHUNK 16384

ssize_t input_head(const char *path, void *buf, size_t len)
{
	/* stat, not open, first: opening a FIFO would hand its writer a reader that goes away */
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	unsigned char *src = xmalloc(HEAD_CHUNK);
	ssize_t n = read_retry(fd, src, HEAD_CHUNK), got = 0;
	enum input_codec codec = n > 0 ? sniff_codec(src, (size_t)n) : INPUT_PLAIN;
	if (n < 0) {
		got = -1;
	} else if (codec == INPUT_PLAIN) {
		got = n < (ssize_t)len ? n : (ssize_t)len;
		memcpy(buf, src, (size_t)got);
		while (got >= 0 && (size_t)got < len && (n = read_retry(fd, (char *)buf + got, len - (size_t)got)) != 0)
			got = n < 0 ? -1 : got + n;
	} else if (codec == INPUT_GZIP) {
		z_stream z;
		memset(&z, 0, sizeof z);
		if (inflateInit2(&z, 15 + 16) != Z_OK)
			fatal("out of memory (inflateInit2)");
		z.next_out = buf;
		z.avail_out = (uInt)len;
		z.next_in = src;
		z.avail_in = (uInt)n;
		int rc = Z_OK;
		while (z.avail_out > 0 && rc == Z_OK) {
			if (z.avail_in == 0) {
				if ((n = read_retry(fd, src, HEAD_CHUNK)) <= 0)
					break;
				z.next_in = src;
				z.avail_in = (uInt)n;
			}
			rc = inflate(&z, Z_NO_FLUSH);
		}
		got = rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR ? (ssize_t)(len - z.avail_out) : -1;
		inflateEnd(&z);
	} else {
		/* one context kept for the heads of many files (its window is not allocated and
		 * faulted in again for each); a second caller at once gets one of its own */
		static ZSTD_DCtx *kept;
		static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
		bool mine = pthread_mutex_trylock(&kept_lock) == 0;
		ZSTD_DCtx *d = mine ? kept : NULL;
		if (d == NULL && (d = ZSTD_createDCtx()) == NULL)
			fatal("out of memory (ZSTD_createDCtx)");
		ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
		ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 27);
		ZSTD_outBuffer out = { buf, len, 0 };
		ZSTD_inBuffer zin = { src, (size_t)n, 0 };
		while (out.pos < out.size) {
			if (zin.pos == zin.size) {
				if ((n = read_retry(fd, src, HEAD_CHUNK)) <= 0)
					break;
				zin.size = (size_t)n;
				zin.pos = 0;
			}
			if (ZSTD_isError(ZSTD_decompressStream(d, &out, &zin))) {
				out.pos = 0;
				got = -1;
				break;
			}
		}
		if (got == 0)
			got = (ssize_t)out.pos;
		if (mine) {
			kept = d;
			pthread_mutex_unlock(&kept_lock);
		} else {
			ZSTD_freeDCtx(d);
		}
	}
	free(src);
	close(fd);
	return got;
}

/* Producer side of a read from the compressed source. Returns the count, 0 at end of
 * file, -1 with errno on error, or -2 when input_close asked the producer to stop. */
static ssize_t src_read(struct input *in, void *buf, size_t len)
{
	struct pollfd pfd[2];
	int r;

	if (!in->is_reg) {
		pfd[0].fd = in->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = in->wake[0];
		pfd[1].events = POLLIN;
		do {
			pfd[0].revents = pfd[1].revents = 0;
			r = poll(pfd, 2, -1);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return -1;
		if (pfd[1].revents != 0)
			return -2;
	}
	return read_retry(in->fd, buf, len);
}

/* The producer waits (under lock) for the reader to release slots: woken once the reader
 * has released ZWAKE slots, or all it held (read_ring): a wake-up a slot cost a context
 * switch a slot, and the reader of a small window releases a slot or two a read. */
static void producer_wait(struct input *in)
{
	in->prod_waiting = true;
	in->released = 0;
	pthread_cond_wait(&in->notfull, &in->lock);
	in->prod_waiting = false;
}

/* Returns the slot to fill next, waiting for one to free up; NULL once stopped. */
static struct slot *ring_claim(struct input *in)
{
	bool stop;

	pthread_mutex_lock(&in->lock);
	while (in->filled == in->nslots && !in->stop) {
		producer_wait(in);
	}
	stop = in->stop;
	pthread_mutex_unlock(&in->lock);
	if (stop)
		return NULL;
	in->ring[in->tail].len = 0;
	return &in->ring[in->tail];
}

static void ring_publish(struct input *in, struct slot *s, uint64_t src_off)
{
	s->src_off = src_off;
	in->produced += s->len;
	pthread_mutex_lock(&in->lock);
	if (in->filled++ == 0)
		pthread_cond_signal(&in->nonempty);
	pthread_mutex_unlock(&in->lock);
	in->tail = (in->tail + 1) % in->nslots;
}

static void ring_finish(struct input *in, char *err, uint64_t src_off)
{
	pthread_mutex_lock(&in->lock);
	in->done = true;
	in->prod_err = err;
	in->final_off = src_off;
	pthread_cond_signal(&in->nonempty);
	pthread_mutex_unlock(&in->lock);
}

static char *read_error(const struct input *in, int errnum)
{
	return xasprintf("%s: read error: %s", in->name, strerror(errnum));
}

/* The gzip producer. Members follow one another (pigz, cat a.gz b.gz); zero bytes after
 * the last member (tape padding) are skipped, anything else there is an error. */
static void gzip_run(struct input *in)
{
	z_stream *z = &in->z;
	struct slot *s = NULL;
	uint64_t total = in->sniff_len;
	bool in_member = true, padding = false, out_full = false;
	char *err = NULL;
	ssize_t n;
	int ret;

	memcpy(in->src, in->sniff, in->sniff_len);
	z->next_in = in->src;
	z->avail_in = (uInt)in->sniff_len;
	for (;;) {
		if (z->avail_in == 0 && !out_full) {
			n = src_read(in, in->src, in->src_size);
			if (n == -2)
				return;
			if (n < 0) {
				err = read_error(in, errno);
				break;
			}
			if (n == 0) {
				if (in_member)
					err = xasprintf("%s: gzip stream truncated at compressed "
					                "byte %llu (no end-of-stream marker)",
					                in->name, (unsigned long long)total);
				break;
			}
			total += (uint64_t)n;
			z->next_in = in->src;
			z->avail_in = (uInt)n;
		}
		if (!in_member) {
			while (z->avail_in > 0 && z->next_in[0] == 0) {
				z->next_in++;
				z->avail_in--;
				padding = true;
			}
			if (z->avail_in == 0)
				continue;
			if (padding || z->next_in[0] != 0x1f) {
				err = xasprintf("%s: trailing garbage after gzip stream at "
				                "compressed byte %llu",
				                in->name, (unsigned long long)(total - z->avail_in));
				break;
			}
			inflateReset(z);
			in_member = true;
		}
		if (s == NULL) {
			if ((s = ring_claim(in)) == NULL)
				return;
			z->next_out = s->buf;
			z->avail_out = (uInt)in->slot_size;
		}
		/* Z_BLOCK stops at block boundaries too: the places to record seek points, asked
		 * for only once this call's output may reach where the next point is due */
		ret = inflate(z,
		              in->index != NULL && seek_index_gzip_due(in->index, in->produced + s->len + z->avail_out)
		                      ? Z_BLOCK
		                      : Z_NO_FLUSH);
		s->len = in->slot_size - z->avail_out;
		if (in->index != NULL)
			seek_index_gzip(in->index, z, total - z->avail_in, in->produced + s->len);
		if (ret == Z_STREAM_END) {
			in_member = false;
		} else if (ret == Z_MEM_ERROR) {
			fatal("out of memory (inflate)");
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			err = xasprintf("%s: corrupt gzip data at compressed byte %llu: %s", in->name,
			                (unsigned long long)(total - z->avail_in),
			                z->msg != NULL ? z->msg : zError(ret));
			break;
		}
		/* Z_STREAM_END comes only once the member is fully flushed. */
		out_full = in_member && z->avail_out == 0;
		if (z->avail_out == 0) {
			ring_publish(in, s, total - z->avail_in);
			s = NULL;
		}
	}
	if (s != NULL && s->len > 0)
		ring_publish(in, s, total - z->avail_in);
	ring_finish(in, err, total - z->avail_in);
}

static char *zstd_error(const struct input *in, size_t ret, uint64_t off)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
		return xasprintf("%s: zstd frame at compressed byte %llu needs a window larger than the "
		                 "%llu MiB limit (made with --long?)",
		                 in->name, (unsigned long long)off, (unsigned long long)(INPUT_ZSTD_WINDOW_MAX >> 20));
	return xasprintf("%s: corrupt zstd data at compressed byte %llu: %s", in->name, (unsigned long long)off,
	                 ZSTD_getErrorName(ret));
}

/* Makes ZIN hold at least NEED bytes from its position on, moving what it holds to
 * the front of the source buffer to read more. Returns 1, 0 when the file ends first, -1
 * with errno on a read error, -2 when input_close asked the producer to stop. */
static int src_fill(struct input *in, ZSTD_inBuffer *zin, size_t need, uint64_t *total)
{
	ssize_t n;

	while (zin->size - zin->pos < need) {
		if (zin->pos > 0) {
			memmove(in->src, (const char *)zin->src + zin->pos, zin->size - zin->pos);
			zin->size -= zin->pos;
			zin->pos = 0;
		}
		n = src_read(in, in->src + zin->size, in->src_size - zin->size);
		if (n <= 0)
			return n == 0 ? 0 : (int)n;
		*total += (uint64_t)n;
		zin->size += (size_t)n;
	}
	return 1;
}

/* The oldest byte of the zstd ring not yet released by the reader: a published piece's, or
 * else the open piece's. False when the reader holds nothing there. Under lock. */
static bool zring_oldest(const struct input *in, const struct slot *open, size_t *at)
{
	if (in->filled > 0)
		*at = (size_t)(in->ring[(in->tail + ZQUEUE - in->filled) % ZQUEUE].buf - in->zbuf);
	else if (open != NULL && open->len > 0)
		*at = (size_t)(open->buf - in->zbuf);
	else
		return false;
	return true;
}

/* Publishes the open piece *OPEN, if it holds anything, and leaves none open. */
static void zring_close(struct input *in, struct slot **open, uint64_t src_off)
{
	if (*open != NULL && (*open)->len > 0)
		ring_publish(in, *open, src_off);
	*open = NULL;
}

/* Makes room for a block of up to NEED bytes at the zstd ring's write position: back to
 * the ring's start when its end is too near (zstd's round buffer: the decoder's history is
 * then the two segments), then waiting while the reader still holds bytes there, and for a
 * queue entry when no piece is open (*OPEN). A piece is published before any wait, so
 * that the reader is never left waiting for bytes the producer holds back. Returns false
 * once stopped. */
static bool zring_reserve(struct input *in, struct slot **open, size_t need, uint64_t src_off)
{
	size_t r0;
	bool stop;

	if (in->zw + need > in->zcap) {
		zring_close(in, open, src_off);
		in->zw = 0;
	}
	pthread_mutex_lock(&in->lock);
	for (;;) {
		if (in->stop)
			break;
		bool held = zring_oldest(in, *open, &r0);
		if ((*open != NULL || in->filled < ZQUEUE) && (!held || r0 < in->zw || in->zw + need <= r0))
			break;
		if (*open != NULL && (*open)->len > 0) {
			pthread_mutex_unlock(&in->lock);
			zring_close(in, open, src_off);
			pthread_mutex_lock(&in->lock);
			continue;
		}
		producer_wait(in);
	}
	stop = in->stop;
	pthread_mutex_unlock(&in->lock);
	if (stop)
		return false;
	if (*open == NULL) {
		*open = &in->ring[in->tail];
		(*open)->buf = in->zbuf + in->zw;
		(*open)->len = 0;
	}
	return true;
}

/* Gives the zstd ring CAP bytes at least, once the reader holds nothing of it. Returns false
 * once stopped. */
static bool zring_grow(struct input *in, struct slot **open, size_t cap, uint64_t src_off)
{
	bool stop;

	zring_close(in, open, src_off);
	pthread_mutex_lock(&in->lock);
	while (in->filled > 0 && !in->stop)
		producer_wait(in);
	stop = in->stop;
	pthread_mutex_unlock(&in->lock);
	if (stop)
		return false;
	free(in->zbuf);
	in->zbuf = xmalloc(cap);
	in->zcap = cap;
	in->zw = 0;
	return true;
}

/* The zstd producer: zstd's buffer-less decoding (zstd.h, "Buffer-less streaming
 * decompression") straight into the ring the reader reads, which is the decoder's window
 * too: no window of the decoder's own beside a ring of ours, and no copy between them.
 * Frames follow one another in one stream; each frame's header is read first, to refuse a
 * window over the limit and to take a large grant for a big one before the ring grows to
 * it; skippable frames (pzstd's) are stepped over here. The decoder takes exactly the bytes
 * it asks for (ZSTD_nextSrcSizeToDecompress), at most a block, so the file ending inside
 * them is a truncated frame. */
static void zstd_run(struct input *in)
{
	ZSTD_inBuffer zin = { in->src, in->sniff_len, 0 };
	ZSTD_frameHeader fh;
	struct slot *open = NULL;
	uint64_t total = in->sniff_len;
	char *err = NULL;
	size_t ret, need;
	int r;

#define AT (total - (zin.size - zin.pos)) /* the compressed offset of the next byte */
	memcpy(in->src, in->sniff, in->sniff_len);
	for (;;) {
		/* a frame's header, or the clean end of the stream */
		if ((r = src_fill(in, &zin, 1, &total)) <= 0)
			goto src_end;
		while ((ret = ZSTD_getFrameHeader(&fh, in->src + zin.pos, zin.size - zin.pos)) > 0 &&
		       !ZSTD_isError(ret))
			if ((r = src_fill(in, &zin, ret, &total)) <= 0)
				goto src_end;
		if (ZSTD_isError(ret)) {
			err = zstd_error(in, ret, AT);
			break;
		}
		if (fh.frameType == ZSTD_skippableFrame) {
			uint64_t skip = 8 + fh.frameContentSize; /* magic, size (headerSize is not set) */
			while (skip > 0) {
				if ((r = src_fill(in, &zin, 1, &total)) <= 0) {
					if (r == 0)
						err = xasprintf("%s: zstd frame truncated at compressed byte %llu",
						                in->name, (unsigned long long)total);
					goto src_end;
				}
				size_t k = zin.size - zin.pos < skip ? zin.size - zin.pos : (size_t)skip;
				zin.pos += k;
				skip -= k;
			}
			continue;
		}
		if (fh.windowSize > INPUT_ZSTD_WINDOW_MAX) {
			err = xasprintf("%s: zstd frame at compressed byte %llu asks for a %llu MiB "
			                "window, over the %llu MiB limit (zstd --long=N with N > 27?): "
			                "decompress it first (zstd -d --long=31)",
			                in->name, (unsigned long long)AT, (unsigned long long)(fh.windowSize >> 20),
			                (unsigned long long)(INPUT_ZSTD_WINDOW_MAX >> 20));
			break;
		}
		if (fh.windowSize > INPUT_ZSTD_WINDOW_SMALL && input_hold_large(in) < 0)
			return;
		/* the frame starts wherever the last one ended: a round buffer for a frame of
		 * unknown size, then, even when this one says it is smaller than its window */
		need = ZSTD_decodingBufferSize_min(fh.windowSize, ZSTD_CONTENTSIZE_UNKNOWN);
		if (ZSTD_isError(need)) {
			err = zstd_error(in, need, AT);
			break;
		}
		if (need < ZRING_MIN)
			need = ZRING_MIN;
		if (need > in->zcap && !zring_grow(in, &open, need, AT))
			return;
		ZSTD_decompressBegin(in->zds);
		while ((need = ZSTD_nextSrcSizeToDecompress(in->zds)) > 0) {
			if (need > in->src_size) {
				err = xasprintf("%s: corrupt zstd data at compressed byte %llu: a block of %zu bytes",
				                in->name, (unsigned long long)AT, need);
				goto done;
			}
			if ((r = src_fill(in, &zin, need, &total)) <= 0) {
				if (r == 0)
					err = xasprintf("%s: zstd frame truncated at compressed byte %llu", in->name,
					                (unsigned long long)total);
				goto src_end;
			}
			ZSTD_nextInputType_e t = ZSTD_nextInputType(in->zds);
			size_t room = 0;
			if (t == ZSTDnit_block || t == ZSTDnit_lastBlock) {
				room = fh.blockSizeMax;
				if (!zring_reserve(in, &open, room, AT))
					return;
			}
			ret = ZSTD_decompressContinue(in->zds, room > 0 ? in->zbuf + in->zw : NULL, room,
			                              in->src + zin.pos, need);
			if (ZSTD_isError(ret)) {
				err = zstd_error(in, ret, AT);
				goto done;
			}
			zin.pos += need;
			if (ret > 0) {
				open->len += ret;
				in->zw += ret;
				if (open->len >= ZPIECE) {
					ring_publish(in, open, AT);
					open = NULL;
				}
			}
		}
		if (in->index != NULL)
			seek_index_zstd_frame(in->index, AT, in->produced + (open != NULL ? open->len : 0));
	}
	goto done;
src_end:
	if (r == -2)
		return;
	if (r < 0)
		err = read_error(in, errno);
	else if (r == 0 && err == NULL && zin.size > zin.pos)
		err = xasprintf("%s: zstd frame truncated at compressed byte %llu", in->name,
		                (unsigned long long)total);
done:
	zring_close(in, &open, AT);
	ring_finish(in, err, AT);
#undef AT
}

/* Gives the whole pages inside [P, P + LEN) back to the system (they read as zeros after). */
static void drop_pages(const void *p, size_t len)
{
	const uintptr_t page = 4096;
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), z = ((uintptr_t)p + len) & ~(page - 1);
	if (z > a)
		madvise((void *)a, z - a, MADV_DONTNEED);
}

/* Gives the pages of ring slot S back to the system, once the producer is done: it never
 * writes the ring again, and the reader has read S. The ring holds the last 2 MB of the
 * stream (zstd -3's window; gzip's slots 256 KB to 1 MB) while the scanner reads it, at the
 * end of the parse, where the model is at its largest: released as they are read, the
 * ring's pages are gone by then. */
static void ring_drop(const struct slot *s) { drop_pages(s->buf, s->len); }

static void *producer_main(void *arg)
{
	struct input *in = arg;

	if (in->codec == INPUT_GZIP)
		gzip_run(in);
	else
		zstd_run(in);
	/* the compressed bytes are read no more: their buffer's pages go while the scanner
	 * reads the ring's last slots (freed with the input); so do gzip's slots the reader is
	 * done with (it drops the others as it reads them: in->done is set). Not zstd's: its
	 * slots are pieces of one buffer, and an old piece may lie under a newer one. */
	drop_pages(in->src, in->src_size);
	if (in->codec == INPUT_GZIP) {
		pthread_mutex_lock(&in->lock);
		for (unsigned int k = in->filled; k < in->nslots; k++)
			drop_pages(in->ring[(in->tail + k - in->filled) % in->nslots].buf, in->slot_size);
		pthread_mutex_unlock(&in->lock);
	}
	return NULL;
}

static bool start_producer(struct input *in, char **cause)
{
	sigset_t all, old;
	int i, e;

	if (!in->is_reg) {
		if (pipe(in->wake) != 0) {
			*cause = xasprintf("cannot read %s: pipe: %s", in->name, strerror(errno));
			in->wake[0] = in->wake[1] = -1;
			return false;
		}
		fcntl(in->wake[0], F_SETFD, FD_CLOEXEC);
		fcntl(in->wake[1], F_SETFD, FD_CLOEXEC);
	}
	if (in->codec == INPUT_GZIP) {
		if (inflateInit2(&in->z, 15 + 16) != Z_OK)
			fatal("out of memory (inflateInit2)");
	} else {
		if ((in->zds = ZSTD_createDCtx()) == NULL)
			fatal("out of memory (ZSTD_createDCtx)");
	}
	if (in->is_reg)
		in->index = seek_index_new(in->codec);
	bool small = in->is_reg && in->file_size < SMALL_FILE;
	in->slot_size = small ? SLOT_SIZE >> SMALL_BUF_SHIFT : SLOT_SIZE;
	in->src_size = small ? SRC_BUF_SIZE >> SMALL_BUF_SHIFT : SRC_BUF_SIZE;
	if (in->codec == INPUT_ZSTD && in->src_size < ZSTD_BLOCKSIZE_MAX)
		in->src_size = ZSTD_BLOCKSIZE_MAX; /* a whole block, contiguous */
	in->src = xmalloc(in->src_size);
	in->nslots = in->codec == INPUT_ZSTD ? ZQUEUE : RING_SLOTS;
	for (i = 0; in->codec == INPUT_GZIP && i < RING_SLOTS; i++)
		in->ring[i].buf = xmalloc(in->slot_size);
	pthread_mutex_init(&in->lock, NULL);
	pthread_cond_init(&in->nonempty, NULL);
	pthread_cond_init(&in->notfull, NULL);

	/* The thread takes no signals: the UI's handlers must run on the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&in->thread, NULL, producer_main, in);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		*cause = xasprintf("cannot read %s: pthread_create: %s", in->name, strerror(e));
		return false;
	}
	in->threaded = true;
	return true;
}

static void free_input(struct input *in)
{
	int i;

	if (in->codec == INPUT_GZIP && in->src != NULL)
		inflateEnd(&in->z);
	ZSTD_freeDCtx(in->zds);
	seek_index_free(in->index);
	free(in->src);
	free(in->zbuf);
	for (i = 0; in->codec == INPUT_GZIP && i < RING_SLOTS; i++)
		free(in->ring[i].buf);
	if (in->src != NULL) {
		pthread_mutex_destroy(&in->lock);
		pthread_cond_destroy(&in->nonempty);
		pthread_cond_destroy(&in->notfull);
	}
	if (in->wake[0] >= 0) {
		close(in->wake[0]);
		close(in->wake[1]);
	}
	if (in->own_fd)
		close(in->fd);
	free(in->prod_err);
	free(in->err);
	free(in->mem_end_cause);
	free(in->path);
	free(in);
}

struct input *input_open_mem(const char *path, const char *buf, size_t len, uint64_t base, const char *end_cause)
{
	struct input *in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->name = in->path;
	in->fd = -1;
	in->wake[0] = in->wake[1] = -1;
	in->codec = INPUT_PLAIN;
	in->mem = buf;
	in->mem_len = len;
	in->data_off = in->file_off = base;
	in->mem_end_cause = end_cause != NULL ? xstrdup(end_cause) : NULL;
	return in;
}

/* Sets up IN over its open fd: the file's kind, the codec, the producer. Frees IN and
 * returns NULL with *cause on failure. */
static struct input *open_fd(struct input *in, char **cause)
{
	struct stat st;
	ssize_t n;

	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->is_reg = true;
		in->file_size = (uint64_t)st.st_size;
		in->dev = (uint64_t)st.st_dev;
		in->ino = (uint64_t)st.st_ino;
		in->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		in->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	}

	/* A pipe may hand over fewer bytes than asked: loop until the magic is in. */
	while (in->sniff_len < SNIFF_LEN) {
		n = read_retry(in->fd, in->sniff + in->sniff_len, SNIFF_LEN - in->sniff_len);
		if (n < 0) {
			*cause = read_error(in, errno);
			free_input(in);
			return NULL;
		}
		if (n == 0)
			break;
		in->sniff_len += (size_t)n;
	}
	in->codec = sniff_codec(in->sniff, in->sniff_len);
	if (in->codec != INPUT_PLAIN && !start_producer(in, cause)) {
		free_input(in);
		return NULL;
	}
	return in;
}

struct input *input_open(const char *path, char **cause)
{
	struct input *in;

	in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->wake[0] = in->wake[1] = -1;
	if (strcmp(path, "-") == 0) {
		in->name = "stdin";
		in->fd = STDIN_FILENO;
	} else {
		in->name = in->path;
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			*cause = xasprintf("cannot open %s: %s", path, strerror(errno));
			free_input(in);
			return NULL;
		}
		in->own_fd = true;
	}
	return open_fd(in, cause);
}

/* Opens PATH if it is still the regular file ID; with CONTENT, only if its size,
 * modification time and status change time are the same too (an edit that puts the
 * modification time back, touch -r or rsync -t --inplace, still moves the ctime). Returns the descriptor or -1 with
 * *cause. */
static int open_same(const char *path, const struct input_file *id, bool content, char **cause)
{
	struct stat st;
	int fd, fl;

	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*cause = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_dev != id->dev ||
	    (uint64_t)st.st_ino != id->ino) {
		close(fd);
		*cause = xasprintf("%s is no longer the file that was loaded (has the file changed?)", path);
		return -1;
	}
	if (content && ((uint64_t)st.st_size != id->size ||
	                (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != id->mtime_ns ||
	                (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec != id->ctime_ns)) {
		close(fd);
		*cause = xasprintf("%s has been modified since it was loaded (has the file changed?)", path);
		return -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int input_open_same(const char *path, const struct input_file *id, char **cause)
{
	return open_same(path, id, true, cause);
}

struct input *input_reopen(const char *path, uint64_t dev, uint64_t ino, char **cause)
{
	struct input_file id = { dev, ino, 0, 0, 0 };
	struct input *in;
	int fd = open_same(path, &id, false, cause);

	if (fd < 0)
		return NULL;
	in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->name = in->path;
	in->wake[0] = in->wake[1] = -1;
	in->fd = fd;
	in->own_fd = true;
	return open_fd(in, cause);
}

bool input_file_id(const struct input *in, uint64_t *dev, uint64_t *ino)
{
	if (!in->is_reg || !in->own_fd) /* stdin cannot be opened again by its name */
		return false;
	*dev = in->dev;
	*ino = in->ino;
	return true;
}

bool input_file_identity(const struct input *in, struct input_file *id)
{
	if (!input_file_id(in, &id->dev, &id->ino))
		return false;
	id->size = in->file_size;
	id->mtime_ns = in->mtime_ns;
	id->ctime_ns = in->ctime_ns;
	return true;
}

int input_hold_large(struct input *in)
{
	int rc;

	if (in->mem != NULL)
		return -1;
	pthread_mutex_lock(&large_lock);
	while (!in->large && !in->closing && large_used >= large_slots)
		pthread_cond_wait(&large_cond, &large_lock);
	if (!in->large && !in->closing) {
		in->large = true;
		large_used++;
	}
	rc = in->large ? 0 : -1;
	pthread_mutex_unlock(&large_lock);
	return rc;
}

bool input_holds_large(const struct input *in)
{
	bool b;

	pthread_mutex_lock(&large_lock);
	b = in->large;
	pthread_mutex_unlock(&large_lock);
	return b;
}

void input_set_large_slots(unsigned n)
{
	pthread_mutex_lock(&large_lock);
	large_slots = n > 0 ? n : 1;
	pthread_cond_broadcast(&large_cond);
	pthread_mutex_unlock(&large_lock);
}

static ssize_t fail(struct input *in, char **cause)
{
	if (cause != NULL)
		*cause = xstrdup(in->err);
	return -1;
}

static ssize_t read_plain(struct input *in, unsigned char *buf, size_t len)
{
	size_t k;
	ssize_t n;

	if (in->sniff_pos < in->sniff_len) {
		k = in->sniff_len - in->sniff_pos;
		if (k > len)
			k = len;
		memcpy(buf, in->sniff + in->sniff_pos, k);
		in->sniff_pos += k;
		return (ssize_t)k;
	}
	n = read_retry(in->fd, buf, len);
	if (n < 0)
		in->err = read_error(in, errno);
	else if (n == 0)
		in->eof = true;
	return n;
}

/* Copies what the ring holds, up to LEN; blocks only while nothing at all was copied. */
static ssize_t read_ring(struct input *in, unsigned char *buf, size_t len)
{
	struct slot *s;
	size_t got = 0, k;
	char *err;

	for (;;) {
		if (in->holding) {
			s = &in->ring[in->head];
			k = s->len - in->head_pos;
			if (k > len - got)
				k = len - got;
			memcpy(buf + got, s->buf + in->head_pos, k);
			in->head_pos += k;
			got += k;
			if (got == len)
				return (ssize_t)got;
		}

		pthread_mutex_lock(&in->lock);
		if (in->holding) {
			in->filled--;
			if (in->prod_waiting && (++in->released >= ZWAKE || in->filled == 0))
				pthread_cond_signal(&in->notfull);
			if (in->done)
				ring_drop(&in->ring[in->head]);
			in->head = (in->head + 1) % in->nslots;
			in->holding = false;
		}
		while (in->filled == 0 && !in->done && got == 0)
			pthread_cond_wait(&in->nonempty, &in->lock);
		if (in->filled > 0) {
			in->holding = true;
			in->head_pos = 0;
			in->file_off = in->ring[in->head].src_off;
			pthread_mutex_unlock(&in->lock);
			continue;
		}
		if (got > 0) {
			pthread_mutex_unlock(&in->lock);
			return (ssize_t)got;
		}
		err = in->prod_err;
		in->prod_err = NULL;
		in->file_off = in->final_off;
		pthread_mutex_unlock(&in->lock);
		if (err != NULL) {
			in->err = err;
			return -1;
		}
		in->eof = true;
		return 0;
	}
}

ssize_t input_read(struct input *in, void *buf, size_t len, char **cause)
{
	ssize_t n;

	if (in->err != NULL)
		return fail(in, cause);
	if (in->eof || len == 0)
		return 0;
	if (in->mem != NULL) {
		size_t k = in->mem_len - in->mem_pos;
		if (k == 0) {
			if (in->mem_end_cause != NULL) {
				in->err = xstrdup(in->mem_end_cause);
				return fail(in, cause);
			}
			in->eof = true;
			return 0;
		}
		if (k > len)
			k = len;
		memcpy(buf, in->mem + in->mem_pos, k);
		in->mem_pos += k;
		in->data_off += k;
		in->file_off = in->data_off;
		return (ssize_t)k;
	}
	if (in->codec == INPUT_PLAIN)
		n = read_plain(in, buf, len);
	else
		n = read_ring(in, buf, len);
	if (n < 0)
		return fail(in, cause);
	in->data_off += (uint64_t)n;
	if (in->codec == INPUT_PLAIN)
		in->file_off = in->data_off;
	return n;
}

/* Stops the producer, if any, waking it wherever it waits. */
static void stop_producer(struct input *in)
{
	char c = 0;

	pthread_mutex_lock(&large_lock);
	in->closing = true;
	pthread_cond_broadcast(&large_cond);
	pthread_mutex_unlock(&large_lock);
	if (in->threaded) {
		pthread_mutex_lock(&in->lock);
		in->stop = true;
		pthread_cond_signal(&in->notfull);
		pthread_mutex_unlock(&in->lock);
		if (in->wake[1] >= 0 && write(in->wake[1], &c, 1) != 1)
			BUG("cannot wake the input thread: %s", strerror(errno));
		pthread_join(in->thread, NULL);
		in->threaded = false;
	}
}

struct seek_index *input_take_index(struct input *in)
{
	struct seek_index *x;

	stop_producer(in);
	x = in->index;
	in->index = NULL;
	if (x != NULL)
		seek_index_end(x, in->produced);
	return x;
}

void input_close(struct input *in)
{
	if (in == NULL)
		return;
	stop_producer(in);
	pthread_mutex_lock(&large_lock);
	if (in->large) {
		in->large = false;
		large_used--;
		pthread_cond_broadcast(&large_cond);
	}
	pthread_mutex_unlock(&large_lock);
	free_input(in);
}

int input_map_source(const struct input *in, uint64_t *size)
{
	struct stat sb;

	if (in->codec != INPUT_PLAIN || !in->is_reg || in->mem != NULL || in->err != NULL || in->eof)
		return -1;
	if (fstat(in->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return -1;
	*size = (uint64_t)sb.st_size;
	return in->fd;
}

bool input_is_seekable(const struct input *in) { return in->codec == INPUT_PLAIN && in->is_reg; }

int input_seek(struct input *in, uint64_t offset)
{
	if (!input_is_seekable(in) || in->err != NULL)
		return -1;
	if (lseek(in->fd, (off_t)offset, SEEK_SET) < 0)
		return -1;
	in->sniff_pos = in->sniff_len;
	in->eof = false;
	in->data_off = offset;
	in->file_off = offset;
	return 0;
}

ssize_t input_pread_fd(int fd, void *buf, size_t len, uint64_t offset)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t input_pread(struct input *in, void *buf, size_t len, uint64_t offset)
{
	if (!input_is_seekable(in))
		return -1;
	return input_pread_fd(in->fd, buf, len, offset);
}
