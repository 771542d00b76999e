/* trace_out.c: a trace file that ttrace writes (see trace_out.h). */
#include "cmd/trace_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/xalloc.h"

enum codec { OUT_PLAIN, OUT_GZIP, OUT_ZSTD };

#define OUT_BUF (1u << 18)

struct trace_out {
	int fd;
	char *created; /* the path of a file this writer created (removed on failure), or NULL */
	char *path;    /* for messages */
	enum codec codec;
	z_stream z;
	ZSTD_CCtx *zc;
	unsigned char *buf; /* compressed bytes (or plain ones) waiting to be written */
	size_t n;
	int err;          /* the first errno, 0 when none */
	const char *what; /* what failed, with err */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

const char *trace_out_file_kind(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	                     : "not a regular file";
}

static bool is_input(const struct stat *st, const struct out_avoid *avoid, int n)
{
	for (int i = 0; i < n; i++)
		if ((uint64_t)st->st_dev == avoid[i].dev && (uint64_t)st->st_ino == avoid[i].ino)
			return true;
	return false;
}

/* The descriptor PATH is written through, by the rules of trace_out.h; -1 with *CAUSE. */
static int open_path(const char *path, bool force, const struct out_avoid *avoid, int n, bool *created, char **cause)
{
	struct stat st;
	*created = false;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			*cause = xasprintf(
				"%s is a symbolic link: ttrace does not write through one (name the file itself)",
				path);
			return -1;
		}
		if (is_input(&st, avoid, n)) {
			*cause = xasprintf("%s is the input: ttrace never writes over an input", path);
			return -1;
		}
		if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
			if (!force) {
				*cause = xasprintf("%s exists and is %s (-f writes into it)", path,
				                   trace_out_file_kind(st.st_mode));
				return -1;
			}
			int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				*cause = xasprintf("cannot write into %s: %s", path, strerror(errno));
			return fd;
		}
		if (!S_ISREG(st.st_mode)) {
			*cause = xasprintf("%s is %s: -o names a file, a FIFO or a character device", path,
			                   trace_out_file_kind(st.st_mode));
			return -1;
		}
		if (!force) {
			*cause = xasprintf("%s exists (-f overwrites it)", path);
			return -1;
		}
		if (unlink(path) != 0) {
			*cause = xasprintf("cannot remove %s: %s", path, strerror(errno));
			return -1;
		}
	} else if (errno != ENOENT) {
		*cause = xasprintf("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		*cause = xasprintf("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	*created = true;
	return fd;
}

struct trace_out *trace_out_open(const char *path, bool force, const struct out_avoid *avoid, int n, char **cause)
{
	struct trace_out *o = xcalloc(1, sizeof *o);
	bool created = false;
	*cause = NULL;
	if (strcmp(path, "-") == 0) {
		struct stat st;
		if (fstat(STDOUT_FILENO, &st) == 0 && is_input(&st, avoid, n)) {
			*cause = xasprintf("standard output is the input: ttrace never writes over an input");
			free(o);
			return NULL;
		}
		o->fd = STDOUT_FILENO;
	} else {
		o->fd = open_path(path, force, avoid, n, &created, cause);
		if (o->fd < 0) {
			free(o);
			return NULL;
		}
	}
	o->path = xstrdup(path);
	o->created = created ? xstrdup(path) : NULL;
	o->codec = strcmp(path, "-") == 0    ? OUT_PLAIN
	           : ends_with(path, ".gz")  ? OUT_GZIP
	           : ends_with(path, ".zst") ? OUT_ZSTD
	                                     : OUT_PLAIN;
	o->buf = xmalloc(OUT_BUF);
	if (o->codec == OUT_GZIP && deflateInit2(&o->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		o->err = ENOMEM;
		o->what = "gzip";
	} else if (o->codec == OUT_ZSTD) {
		o->zc = ZSTD_createCCtx();
		if (o->zc == NULL) {
			o->err = ENOMEM;
			o->what = "zstd";
		} else {
			ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel, 3);
			ZSTD_CCtx_setParameter(o->zc, ZSTD_c_checksumFlag, 1);
		}
	}
	return o;
}

static void put(struct trace_out *o, const unsigned char *p, size_t len)
{
	while (len > 0 && o->err == 0) {
		ssize_t w = write(o->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			o->what = "write";
			return;
		}
		p += w;
		len -= (size_t)w;
	}
}

static void flush(struct trace_out *o)
{
	put(o, o->buf, o->n);
	o->n = 0;
}

/* Compresses LEN bytes of BUF (FINISH: and ends the stream) into o->buf, written out as it fills. */
static void deflate_some(struct trace_out *o, const void *buf, size_t len, bool finish)
{
	o->z.next_in = (Bytef *)(uintptr_t)buf;
	o->z.avail_in = (uInt)len;
	for (;;) {
		o->z.next_out = o->buf + o->n;
		o->z.avail_out = (uInt)(OUT_BUF - o->n);
		int r = deflate(&o->z, finish ? Z_FINISH : Z_NO_FLUSH);
		o->n = OUT_BUF - o->z.avail_out;
		if (r == Z_STREAM_ERROR) {
			o->err = EIO;
			o->what = "gzip";
			return;
		}
		if (o->n == OUT_BUF)
			flush(o);
		if (finish ? r == Z_STREAM_END : o->z.avail_in == 0)
			return;
		if (o->err)
			return;
	}
}

static void zstd_some(struct trace_out *o, const void *buf, size_t len, bool finish)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	for (;;) {
		ZSTD_outBuffer out = { o->buf, OUT_BUF, o->n };
		size_t r = ZSTD_compressStream2(o->zc, &out, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
		o->n = out.pos;
		if (ZSTD_isError(r)) {
			o->err = EIO;
			o->what = "zstd";
			return;
		}
		if (o->n == OUT_BUF || (finish && r == 0))
			flush(o);
		if (o->err || (finish ? r == 0 : in.pos == in.size))
			return;
	}
}

int trace_out_write(struct trace_out *o, const void *buf, size_t len)
{
	if (o->err)
		return -1;
	if (len > UINT32_MAX / 2) { /* zlib's counts are 32-bit: in parts */
		while (len > 0 && !o->err) {
			size_t k = len < (1u << 30) ? len : (1u << 30);
			trace_out_write(o, buf, k);
			buf = (const char *)buf + k;
			len -= k;
		}
		return o->err ? -1 : 0;
	}
	if (o->codec == OUT_GZIP)
		deflate_some(o, buf, len, false);
	else if (o->codec == OUT_ZSTD)
		zstd_some(o, buf, len, false);
	else {
		if (o->n + len > OUT_BUF)
			flush(o);
		if (len >= OUT_BUF)
			put(o, buf, len);
		else {
			memcpy(o->buf + o->n, buf, len);
			o->n += len;
		}
	}
	return o->err ? -1 : 0;
}

static void release(struct trace_out *o, bool remove_created)
{
	if (o->codec == OUT_GZIP)
		deflateEnd(&o->z);
	ZSTD_freeCCtx(o->zc);
	if (o->fd != STDOUT_FILENO && o->fd >= 0)
		close(o->fd);
	if (remove_created && o->created != NULL)
		unlink(o->created);
	free(o->created);
	free(o->path);
	free(o->buf);
	free(o);
}

int trace_out_close(struct trace_out *o, char **cause)
{
	*cause = NULL;
	if (o->err == 0) {
		if (o->codec == OUT_GZIP)
			deflate_some(o, "", 0, true);
		else if (o->codec == OUT_ZSTD)
			zstd_some(o, "", 0, true);
		flush(o);
	}
	if (o->err == 0 && o->fd != STDOUT_FILENO && close(o->fd) != 0) {
		o->err = errno;
		o->what = "close";
	}
	if (o->fd != STDOUT_FILENO)
		o->fd = -1;
	if (o->err == 0) {
		release(o, false);
		return 0;
	}
	*cause = xasprintf("cannot write %s: %s: %s%s", o->path, o->what, strerror(o->err),
	                   o->created != NULL ? " (the file is removed)" : "");
	release(o, true);
	return -1;
}

void trace_out_json_string(struct trace_out *o, const char *s, size_t n)
{
	trace_out_write(o, "\"", 1);
	size_t run = 0; /* bytes copied as they are, waiting */
	for (size_t k = 0; k < n; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (ch != '"' && ch != '\\' && ch >= 0x20) {
			run++;
			continue;
		}
		trace_out_write(o, s + k - run, run);
		run = 0;
		char esc[8];
		if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = (char)ch;
			trace_out_write(o, esc, 2);
		} else {
			snprintf(esc, sizeof esc, "\\u%04x", ch);
			trace_out_write(o, esc, 6);
		}
	}
	trace_out_write(o, s + n - run, run);
	trace_out_write(o, "\"", 1);
}

void trace_out_abort(struct trace_out *o)
{
	if (o != NULL)
		release(o, true);
}
