/* out.c: the recorder's output file, whole at every checkpoint (see out.h). */
#include "record/out.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

struct out {
	int fd;
	ZSTD_CCtx *cctx; /* NULL: plain JSON */
	char *pend;      /* bytes for the next checkpoint: compressed, or plain text */
	size_t pend_n, pend_cap;
	bool frame_open;   /* a zstd frame has input not yet ended */
	uint64_t data_end; /* the end of the events: where the closing starts */
	uint64_t file_end; /* the file's length */
	uint64_t json_bytes;
	bool failed;
	bool stream;   /* a FIFO or a device: written in order, the closing at out_close */
	char *closing; /* stream: the last checkpoint's closing, as it goes into the file */
	size_t closing_n;
};

static int reserve(struct out *o, size_t more)
{
	if (o->pend_n + more <= o->pend_cap)
		return 0;
	size_t cap = o->pend_cap ? o->pend_cap : 1 << 16;
	while (cap < o->pend_n + more)
		cap *= 2;
	char *p = realloc(o->pend, cap);
	if (p == NULL)
		return -1;
	o->pend = p;
	o->pend_cap = cap;
	return 0;
}

static int put(struct out *o, const void *p, size_t n)
{
	if (reserve(o, n) != 0)
		return -1;
	memcpy(o->pend + o->pend_n, p, n);
	o->pend_n += n;
	return 0;
}

/* Runs the compressor over IN (NULL: no input) with directive END, into pend. */
static int compress(struct out *o, const char *in, size_t n, ZSTD_EndDirective end)
{
	ZSTD_inBuffer ib = { in, n, 0 };
	for (;;) {
		if (reserve(o, ZSTD_CStreamOutSize()) != 0)
			return -1;
		ZSTD_outBuffer ob = { o->pend + o->pend_n, o->pend_cap - o->pend_n, 0 };
		size_t left = ZSTD_compressStream2(o->cctx, &ob, &ib, end);
		if (ZSTD_isError(left)) {
			errno = EIO;
			return -1;
		}
		o->pend_n += ob.pos;
		if (end == ZSTD_e_continue ? ib.pos == ib.size : left == 0)
			return 0;
	}
}

static int pwrite_all(int fd, const char *p, size_t n, uint64_t at)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)at);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	return 0;
}

/* Writes N bytes at P to the stream FD in order. A FIFO whose reader has gone gives EPIPE,
 * not a SIGPIPE that would kill the program: SIGPIPE is blocked in this thread for the
 * write, and one that the write raised is taken back before it is unblocked. */
static int write_stream(int fd, const char *p, size_t n)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	int r = 0;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -1;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	int e = errno;
	if (r != 0 && e == EPIPE && !was_pending) {
		const struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return r;
}

/* The closing as it goes into the file: a frame of its own when compressed. */
static char *closing_bytes(struct out *o, const char *closing, size_t n, size_t *out_n)
{
	if (o->cctx == NULL) {
		char *c = malloc(n ? n : 1);
		if (c != NULL)
			memcpy(c, closing, n);
		*out_n = n;
		return c;
	}
	size_t cap = ZSTD_compressBound(n);
	char *c = malloc(cap);
	if (c == NULL)
		return NULL;
	size_t r = ZSTD_compress(c, cap, closing, n, 3);
	if (ZSTD_isError(r)) {
		free(c);
		errno = EIO;
		return NULL;
	}
	*out_n = r;
	return c;
}

int out_checkpoint(struct out *o, const char *closing, size_t closing_len)
{
	if (o->failed)
		return -1;
	if (o->cctx != NULL && o->frame_open) {
		if (compress(o, NULL, 0, ZSTD_e_end) != 0)
			goto fail;
		o->frame_open = false;
	}
	size_t cn;
	char *c = closing_bytes(o, closing, closing_len, &cn);
	if (c == NULL)
		goto fail;
	if (o->stream) {
		/* the events in order; the closing waits for out_close, as it cannot be taken back */
		free(o->closing);
		o->closing = c;
		o->closing_n = cn;
		if (write_stream(o->fd, o->pend, o->pend_n) != 0)
			goto fail;
		o->data_end += o->pend_n;
		o->file_end = o->data_end;
		o->pend_n = 0;
		return 0;
	}
	size_t events = o->pend_n;
	if (put(o, c, cn) != 0) {
		free(c);
		goto fail;
	}
	free(c);
	/* Cover the rest of the previous closing, if any is left past the new one. */
	uint64_t end = o->data_end + o->pend_n;
	if (end < o->file_end) {
		uint64_t gap = o->file_end - end;
		if (o->cctx == NULL) {
			if (reserve(o, gap) != 0)
				goto fail;
			memset(o->pend + o->pend_n, ' ', gap);
			o->pend_n += gap;
		} else {
			/* a skippable frame: magic 0x184D2A50, a 4-byte little-endian length, bytes */
			uint64_t body = gap < 8 ? 0 : gap - 8;
			/* clang-format off */
			unsigned char h[8] = { 0x50, 0x2a, 0x4d, 0x18, (unsigned char)body, (unsigned char)(body >> 8),
				               (unsigned char)(body >> 16), (unsigned char)(body >> 24) };
			/* clang-format on */
			if (put(o, h, 8) != 0 || reserve(o, body) != 0)
				goto fail;
			memset(o->pend + o->pend_n, 0, body);
			o->pend_n += body;
		}
	}
	if (pwrite_all(o->fd, o->pend, o->pend_n, o->data_end) != 0)
		goto fail;
	o->data_end += events;
	if (o->data_end + (o->pend_n - events) > o->file_end)
		o->file_end = o->data_end + (o->pend_n - events);
	o->pend_n = 0;
	return 0;
fail:
	o->failed = true;
	o->pend_n = 0;
	return -1;
}

/* A new out on FD (taken over) with PREFIX and an empty CLOSING written; PATH, when not
 * NULL, is removed again on failure (a file out_create made). */
static struct out *out_new(int fd, bool stream, const char *path, bool zstd, const char *prefix, size_t prefix_len,
                           const char *closing, size_t closing_len)
{
	struct out *o = calloc(1, sizeof *o);
	if (o == NULL) {
		int e = errno;
		close(fd);
		if (path != NULL)
			unlink(path);
		errno = e;
		return NULL;
	}
	o->fd = fd;
	o->stream = stream;
	if (zstd) {
		o->cctx = ZSTD_createCCtx();
		if (o->cctx == NULL)
			goto fail;
		ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_compressionLevel, 3);
		ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_checksumFlag, 1);
	}
	if (out_write(o, prefix, prefix_len) != 0 || out_checkpoint(o, closing, closing_len) != 0)
		goto fail;
	return o;
/* clang-format off */
fail: {
	int e = errno;
	close(o->fd);
	if (path != NULL)
		unlink(path);
	ZSTD_freeCCtx(o->cctx);
	free(o->pend);
	free(o->closing);
	free(o);
	errno = e ? e : EIO;
	return NULL;
}
}
/* clang-format on */

struct out *out_create(const char *path, bool zstd, const char *prefix, size_t prefix_len, const char *closing,
                       size_t closing_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	return out_new(fd, false, path, zstd, prefix, prefix_len, closing, closing_len);
}

struct out *out_stream(int fd, bool zstd, const char *prefix, size_t prefix_len, const char *closing,
                       size_t closing_len)
{
	return out_new(fd, true, NULL, zstd, prefix, prefix_len, closing, closing_len);
}

int out_write(struct out *o, const char *text, size_t len)
{
	if (o->failed)
		return -1;
	if (len == 0)
		return 0;
	o->json_bytes += len;
	int r;
	if (o->cctx != NULL) {
		r = compress(o, text, len, ZSTD_e_continue);
		o->frame_open = true;
	} else {
		r = put(o, text, len);
	}
	if (r != 0)
		o->failed = true;
	return r;
}

size_t out_pending(const struct out *o) { return o->pend_n; }

uint64_t out_file_bytes(const struct out *o) { return o->file_end; }

uint64_t out_json_bytes(const struct out *o) { return o->json_bytes; }

int out_close(struct out *o)
{
	if (o == NULL)
		return 0;
	int r = o->failed ? -1 : 0;
	if (r == 0 && o->stream && o->closing != NULL) {
		if (write_stream(o->fd, o->closing, o->closing_n) != 0)
			r = -1;
		else
			o->file_end += o->closing_n;
	}
	if (close(o->fd) != 0)
		r = -1;
	ZSTD_freeCCtx(o->cctx);
	free(o->pend);
	free(o->closing);
	free(o);
	return r;
}
