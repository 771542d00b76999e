/* test_input.c: parsers/input.c against files written to a temporary directory: every
 * codec read back byte for byte, magic over name, truncated and corrupt streams (good
 * prefix, then -1 with an offset), stdin through a pipe, closing early, zstd windows
 * over the limit and the large grants, and reopening a file only while it is the same. */
#include "parsers/input.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "lib/xalloc.h"
#include "tests/unit/tap.h"

#define BIG_LEN ((size_t)5000003)

struct buf {
	unsigned char *p;
	size_t len, cap;
};

struct result {
	struct buf data;
	int rc; /* what the last input_read returned: 0 or -1 */
	char *cause;
	enum input_codec codec;
	uint64_t file_size, file_off, data_off;
};

static char tmpdir[PATH_MAX];
static char *made[64];
static int nmade;

static char *tpath(const char *name) { return xasprintf("%s/%s", tmpdir, name); }

static char *write_file(const char *name, const void *p, size_t len)
{
	char *path = tpath(name);
	FILE *f = fopen(path, "wb");

	if (f == NULL || (len > 0 && fwrite(p, 1, len, f) != len) || fclose(f) != 0)
		fatal("cannot write %s: %s", path, strerror(errno));
	if (nmade < (int)(sizeof made / sizeof made[0]))
		made[nmade++] = xstrdup(path);
	return path;
}

static void cat(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = b->cap * 2 > b->len + len ? b->cap * 2 : b->len + len;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/* Trace-like JSON lines from a fixed LCG: compresses about as well as real traces. */
static struct buf make_text(size_t len, uint32_t seed)
{
	static const char *names[] = { "aten::mm",
		                       "aten::add_",
		                       "cudaLaunchKernel",
		                       "void at::native::vectorized_elementwise_kernel<4>",
		                       "ncclKernel_AllReduce_RING_LL_Sum_float",
		                       "Memcpy HtoD (Pageable -> Device)" };
	struct buf b = { xmalloc(len), len, len };
	char line[512];
	size_t off = 0;
	uint32_t x = seed;
	double ts = 1700000000000.0;
	int n;

	while (off < len) {
		x = x * 1664525u + 1013904223u;
		ts += (x >> 20) / 7.0;
		n = snprintf(line, sizeof line,
		             "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %u, "
		             "\"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, \"args\": "
		             "{\"correlation\": %u, \"stream\": %u}},\n",
		             names[(x >> 8) % 6], (x >> 4) % 8, (x >> 12) % 16, ts, (x >> 16) / 1000.0, x % 1000003,
		             (x >> 24) % 8);
		if ((size_t)n > len - off)
			n = (int)(len - off);
		memcpy(b.p + off, line, (size_t)n);
		off += (size_t)n;
	}
	return b;
}

static struct buf gz_member(const void *p, size_t len)
{
	z_stream z;
	struct buf b;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		fatal("deflateInit2");
	b.p = xmalloc(deflateBound(&z, len) + 32);
	z.next_in = (unsigned char *)p;
	z.avail_in = (uInt)len;
	z.next_out = b.p;
	z.avail_out = (uInt)(deflateBound(&z, len) + 32);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fatal("deflate");
	b.len = b.cap = z.total_out;
	deflateEnd(&z);
	return b;
}

static struct buf zst_frame(const void *p, size_t len, int checksum)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct buf b;
	size_t r;

	b.p = xmalloc(ZSTD_compressBound(len));
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
	r = ZSTD_compress2(c, b.p, ZSTD_compressBound(len), p, len);
	if (ZSTD_isError(r))
		fatal("ZSTD_compress2: %s", ZSTD_getErrorName(r));
	b.len = b.cap = r;
	ZSTD_freeCCtx(c);
	return b;
}

/* A zstd frame of raw blocks holding P, whose header asks for a window of 2^WLOG bytes
 * and gives no content size (hand-made: a compressor would shrink the window to fit). */
static struct buf raw_frame(const void *p, size_t len, unsigned wlog)
{
	const unsigned char hdr[6] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, (unsigned char)((wlog - 10) << 3) };
	struct buf b = { NULL, 0, 0 };
	size_t off = 0, n;
	uint32_t bh;

	cat(&b, hdr, sizeof hdr);
	do {
		n = len - off > 65536 ? 65536 : len - off;
		bh = (uint32_t)(n << 3) | (off + n == len ? 1u : 0u); /* raw block, last bit */
		unsigned char h[3] = { (unsigned char)bh, (unsigned char)(bh >> 8), (unsigned char)(bh >> 16) };
		cat(&b, h, 3);
		cat(&b, (const unsigned char *)p + off, n);
		off += n;
	} while (off < len);
	return b;
}

/* Compresses P in NPARTS members or frames of uneven size, concatenated. */
static struct buf multi(const unsigned char *p, size_t len, int nparts, int zstd)
{
	struct buf b = { NULL, 0, 0 }, part;
	size_t off = 0, n;
	int i;

	for (i = 0; i < nparts; i++) {
		n = i == nparts - 1 ? len - off : len / (size_t)(nparts + i);
		part = zstd ? zst_frame(p + off, n, 0) : gz_member(p + off, n);
		cat(&b, part.p, part.len);
		free(part.p);
		off += n;
	}
	return b;
}

static struct result slurp(const char *path, size_t bufsz)
{
	struct result r;
	struct input *in;
	unsigned char *tmp = xmalloc(bufsz);
	ssize_t n;

	memset(&r, 0, sizeof r);
	r.rc = -2;
	if ((in = input_open(path, &r.cause)) == NULL) {
		free(tmp);
		return r;
	}
	r.codec = input_codec(in);
	r.file_size = input_file_size(in);
	while ((n = input_read(in, tmp, bufsz, &r.cause)) > 0)
		cat(&r.data, tmp, (size_t)n);
	r.rc = (int)n;
	r.file_off = input_file_offset(in);
	r.data_off = input_data_offset(in);
	input_close(in);
	free(tmp);
	return r;
}

static void result_free(struct result *r)
{
	free(r->data.p);
	free(r->cause);
}

static int same(const struct buf *got, const struct buf *want)
{
	return got->len == want->len && (want->len == 0 || memcmp(got->p, want->p, want->len) == 0);
}

static void check_roundtrip(const char *what, const char *path, const struct buf *want, enum input_codec codec,
                            size_t bufsz)
{
	struct result r = slurp(path, bufsz);

	is_int(r.rc, 0, "%s (buffer %zu): clean end", what, bufsz);
	ok(r.cause == NULL, "%s (buffer %zu): no cause", what, bufsz);
	is_str(input_codec_name(r.codec), input_codec_name(codec), "%s: codec", what);
	ok(same(&r.data, want), "%s (buffer %zu): %zu bytes back identical", what, bufsz, want->len);
	is_int(r.data_off, want->len, "%s: data offset at end", what);
	is_int(r.file_off, r.file_size, "%s: file offset at end is the file size", what);
	result_free(&r);
}

/* The bytes delivered are a prefix of WANT, then -1 with a cause holding every NEEDLE. */
static void check_bad(const char *what, const char *path, const struct buf *want, size_t min_good, const char *needle1,
                      const char *needle2)
{
	struct result r = slurp(path, 65536);
	struct input *in;
	char tmp[16], *cause = NULL;

	is_int(r.rc, -1, "%s: ends with -1", what);
	ok(r.cause != NULL && strstr(r.cause, needle1) != NULL && strstr(r.cause, needle2) != NULL,
	   "%s: cause \"%s\" has \"%s\" and \"%s\"", what, r.cause ? r.cause : "(null)", needle1, needle2);
	ok(r.cause != NULL && strstr(r.cause, path) != NULL, "%s: cause names the file", what);
	ok(r.data.len >= min_good, "%s: salvaged %zu bytes (>= %zu)", what, r.data.len, min_good);
	ok(r.data.len <= want->len && (min_good == 0 || memcmp(r.data.p, want->p, min_good) == 0),
	   "%s: salvaged bytes are the original's", what);
	result_free(&r);

	in = input_open(path, &cause);
	while (input_read(in, tmp, sizeof tmp, &cause) > 0)
		;
	free(cause);
	cause = NULL;
	is_int(input_read(in, tmp, sizeof tmp, &cause), -1, "%s: -1 again after -1", what);
	ok(cause != NULL, "%s: with a cause again", what);
	free(cause);
	input_close(in);
}

/* Runs slurp("-") with fd 0 reading a pipe that a child fills with DATA. */
static struct result slurp_stdin(const struct buf *data, size_t bufsz)
{
	struct result r;
	int fds[2], saved;
	pid_t pid;

	if (pipe(fds) != 0 || (saved = dup(0)) < 0)
		fatal("pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		size_t off = 0;
		ssize_t n;

		close(fds[0]);
		while (off < data->len && (n = write(fds[1], data->p + off, data->len - off)) > 0)
			off += (size_t)n;
		_exit(off == data->len ? 0 : 1);
	}
	close(fds[1]);
	dup2(fds[0], 0);
	close(fds[0]);
	r = slurp("-", bufsz);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);
	return r;
}

static void test_stdin(const struct buf *small, const struct buf *big)
{
	struct buf gz = gz_member(big->p, big->len);
	struct result r;

	r = slurp_stdin(small, 4096);
	is_int(r.rc, 0, "stdin plain: clean end");
	is_str(input_codec_name(r.codec), "plain", "stdin plain: codec");
	ok(same(&r.data, small), "stdin plain: bytes identical");
	is_int(r.file_size, 0, "stdin plain: no file size for a pipe");
	result_free(&r);

	r = slurp_stdin(&gz, 65536);
	is_int(r.rc, 0, "stdin gzip: clean end");
	is_str(input_codec_name(r.codec), "gzip", "stdin gzip: codec");
	ok(same(&r.data, big), "stdin gzip: %zu bytes identical", big->len);
	is_int(r.file_off, gz.len, "stdin gzip: file offset counts the compressed bytes");
	result_free(&r);

	/* A tiny stdin: the sniff must cope with fewer than 4 bytes. */
	{
		struct buf two = { (unsigned char *)"{}", 2, 2 };

		r = slurp_stdin(&two, 1);
		is_int(r.rc, 0, "stdin 2 bytes: clean end");
		ok(same(&r.data, &two), "stdin 2 bytes: identical");
		result_free(&r);
	}
	free(gz.p);
}

/* A writer that sends half a gzip stream and then stalls forever: close must not hang. */
static void test_stdin_stalled(const struct buf *big)
{
	struct buf gz = gz_member(big->p, big->len);
	struct input *in;
	char *cause = NULL, tmp[1024];
	int fds[2], saved;
	pid_t pid;

	if (pipe(fds) != 0 || (saved = dup(0)) < 0)
		fatal("pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		size_t off = 0;
		ssize_t n;

		close(fds[0]);
		while (off < gz.len / 2 && (n = write(fds[1], gz.p + off, gz.len / 2 - off)) > 0)
			off += (size_t)n;
		for (;;)
			pause();
	}
	close(fds[1]);
	dup2(fds[0], 0);
	close(fds[0]);
	in = input_open("-", &cause);
	ok(in != NULL, "stalled stdin: opens");
	is_int(input_read(in, tmp, sizeof tmp, &cause), sizeof tmp, "stalled stdin: reads 1 KB");
	ok(memcmp(tmp, big->p, sizeof tmp) == 0, "stalled stdin: the right 1 KB");
	usleep(100 * 1000);
	input_close(in);
	ok(1, "stalled stdin: close returns while the writer stalls");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	dup2(saved, 0);
	close(saved);
	free(gz.p);
}

static void test_close_early(const char *what, const char *path, const struct buf *want)
{
	struct input *in;
	char *cause = NULL, tmp[1024];

	in = input_open(path, &cause);
	is_int(input_read(in, tmp, sizeof tmp, &cause), sizeof tmp, "%s: read 1 KB", what);
	ok(memcmp(tmp, want->p, sizeof tmp) == 0, "%s: the right 1 KB", what);
	usleep(50 * 1000); /* let the producer fill the ring and block */
	input_close(in);
	ok(1, "%s: closed after 1 KB", what);

	in = input_open(path, &cause);
	input_close(in);
	ok(1, "%s: closed without reading", what);
}

/* Reads IN to its end into a buffer; returns what input_read returned last. */
static int drain(struct input *in, struct buf *out, char **cause)
{
	unsigned char tmp[8192];
	ssize_t n;

	while ((n = input_read(in, tmp, sizeof tmp, cause)) > 0)
		cat(out, tmp, (size_t)n);
	return (int)n;
}

/* A zstd frame of P compressed with a window of 2^WLOG bytes and no content size in its
 * header (so that the decoder cannot size its buffer to the content). */
static struct buf zst_frame_wlog(const void *p, size_t len, int wlog)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct buf b;
	size_t r;

	b.p = xmalloc(ZSTD_compressBound(len) + 64);
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	r = ZSTD_compress2(c, b.p, ZSTD_compressBound(len) + 64, p, len);
	if (ZSTD_isError(r))
		fatal("ZSTD_compress2: %s", ZSTD_getErrorName(r));
	b.len = b.cap = r;
	ZSTD_freeCCtx(c);
	return b;
}

/* The zstd decoder writes straight into the ring the reader reads (parsers/input.c): a
 * small window wraps the ring many times, with matches reaching back across its end; a
 * later frame with a bigger window grows it between frames; a window of 1 KB makes blocks
 * of 1 KB; skippable frames between them are stepped over; a file cut inside a skippable
 * frame is a truncated frame. Each read back whole, with read sizes small and large. */
static void test_zstd_ring(const struct buf *big)
{
	static const unsigned char skip[] = { 0x5f, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5 };
	static const int wlogs[] = { 17, 22, 10, 17 };
	struct buf b = { NULL, 0, 0 }, want = { NULL, 0, 0 }, f;
	size_t part = big->len / 4;
	char *p, *why;

	for (size_t i = 0; i < sizeof wlogs / sizeof wlogs[0]; i++) {
		f = zst_frame_wlog(big->p + i * part, part, wlogs[i]);
		cat(&b, f.p, f.len);
		free(f.p);
		cat(&want, big->p + i * part, part);
		if (i == 1)
			cat(&b, skip, sizeof skip);
	}
	p = write_file("ring.json.zst", b.p, b.len);
	check_roundtrip("zstd windows 2^17, 2^22, 2^10, 2^17", p, &want, INPUT_ZSTD, 7);
	check_roundtrip("zstd windows 2^17, 2^22, 2^10, 2^17", p, &want, INPUT_ZSTD, 1 << 20);
	free(p);

	/* cut inside the skippable frame: what came before, then a truncated frame */
	f = zst_frame_wlog(big->p, part, 17);
	free(b.p);
	memset(&b, 0, sizeof b);
	cat(&b, f.p, f.len);
	cat(&b, skip, 9);
	free(f.p);
	p = write_file("cut-skip.json.zst", b.p, b.len);
	why = xasprintf("zstd frame truncated at compressed byte %zu", b.len);
	want.len = part;
	check_bad("zstd cut in a skippable frame", p, &want, part, why, "zstd");
	free(why);
	free(p);
	free(b.p);
	free(want.p);
}

static void test_windows(const struct buf *small)
{
	struct buf b = { NULL, 0, 0 }, f, got = { NULL, 0, 0 };
	struct input *in, *other;
	char *p, *p2, *want, *cause = NULL;
	int rc;

	/* a small frame, then one asking for 2^28: the first's bytes, then a clear error */
	f = zst_frame(small->p, small->len, 0);
	cat(&b, f.p, f.len);
	free(f.p);
	f = raw_frame(small->p, small->len, 28);
	cat(&b, f.p, f.len);
	free(f.p);
	p = write_file("window28.zst", b.p, b.len);
	want = xasprintf("zstd frame at compressed byte %zu asks for a 256 MiB window", b.len - f.len);
	check_bad("zstd window 2^28 in a second frame", p, small, small->len, want, "over the 128 MiB limit");
	free(want);
	free(p);
	free(b.p);
	memset(&b, 0, sizeof b);

	/* 2^27 is allowed, and takes a large grant; 2^20 does not */
	f = raw_frame(small->p, small->len, 27);
	p = write_file("window27.zst", f.p, f.len);
	free(f.p);
	check_roundtrip("zstd window 2^27", p, small, INPUT_ZSTD, 4096);
	in = input_open(p, &cause);
	rc = drain(in, &got, &cause);
	ok(rc == 0 && input_holds_large(in), "a 128 MiB window holds a large grant");
	input_close(in);
	free(got.p);
	memset(&got, 0, sizeof got);
	f = raw_frame(small->p, small->len, 20);
	p2 = write_file("window20.zst", f.p, f.len);
	free(f.p);
	in = input_open(p2, &cause);
	rc = drain(in, &got, &cause);
	ok(rc == 0 && got.len == small->len && !input_holds_large(in), "a 1 MiB window needs no grant");
	input_close(in);
	free(got.p);
	memset(&got, 0, sizeof got);

	/* one grant: a second big window waits for it, and can be closed while it waits */
	input_set_large_slots(1);
	in = input_open(p, &cause);
	rc = drain(in, &got, &cause);
	ok(rc == 0 && input_holds_large(in), "one grant: the first input holds it");
	is_int(input_hold_large(in), 0, "asking again for a held grant returns at once");
	other = input_open(p, &cause);
	ok(other != NULL && !input_holds_large(other), "the second input does not hold it");
	input_close(other); /* its producer is waiting for the grant: closing must not hang */
	ok(1, "an input waiting for a grant closes");
	input_close(in);
	free(got.p);
	memset(&got, 0, sizeof got);
	other = input_open(p, &cause);
	rc = drain(other, &got, &cause);
	ok(rc == 0 && got.len == small->len && input_holds_large(other), "once given back, the grant goes to the next");
	input_close(other);
	free(got.p);
	memset(&got, 0, sizeof got);
	input_set_large_slots(INPUT_LARGE_SLOTS);

	/* memory inputs never hold one */
	in = input_open_mem("mem", (const char *)small->p, small->len, 0, NULL);
	is_int(input_hold_large(in), -1, "a memory input gets no grant");
	input_close(in);
	free(p2);
	free(p);
}

static void test_reopen(const struct buf *small)
{
	char *p = write_file("same.json", small->p, small->len), *fifo = tpath("fifo"), *cause = NULL;
	struct buf got = { NULL, 0, 0 };
	uint64_t dev = 0, ino = 0, d2, i2;
	struct input *in;

	in = input_open(p, &cause);
	ok(input_file_id(in, &dev, &ino), "a regular file has an identity");
	input_close(in);
	in = input_reopen(p, dev, ino, &cause);
	ok(in != NULL && drain(in, &got, &cause) == 0 && same(&got, small), "reopened while it is the same file");
	input_close(in);
	free(got.p);

	in = input_reopen(p, dev, ino + 1, &cause);
	ok(in == NULL && cause != NULL && strstr(cause, "changed") != NULL, "another inode: refused: %s",
	   cause ? cause : "(none)");
	free(cause);
	cause = NULL;

	if (mkfifo(fifo, 0600) == 0) {
		in = input_reopen(fifo, dev, ino, &cause); /* would block in open() without O_NONBLOCK */
		ok(in == NULL && cause != NULL, "a FIFO in its place: refused at once: %s", cause ? cause : "(none)");
		free(cause);
		cause = NULL;
		unlink(fifo);
	} else {
		ok(1, "# SKIP mkfifo: %s", strerror(errno));
	}
	in = input_open_mem("mem", "{}", 2, 0, NULL);
	ok(!input_file_id(in, &d2, &i2), "a memory input has no file identity");
	input_close(in);
	free(fifo);
	free(p);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	struct buf small = make_text(10000, 1), big = make_text(BIG_LEN, 2);
	struct buf gz, gz3, zs, zs3, b = { NULL, 0, 0 };
	struct result r;
	char *p, *cause = NULL, *want;
	size_t sizes[] = { 7, 65536 }, i, cut;
	int k;

	alarm(300);
	snprintf(tmpdir, sizeof tmpdir, "%s/ttrace-input-XXXXXX", t != NULL && *t ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp %s: %s", tmpdir, strerror(errno));

	is_str(input_codec_name(INPUT_PLAIN), "plain", "codec name plain");
	is_str(input_codec_name(INPUT_GZIP), "gzip", "codec name gzip");
	is_str(input_codec_name(INPUT_ZSTD), "zstd", "codec name zstd");

	/* Every codec, small and bigger than the ring, read with odd buffer sizes. */
	p = write_file("small.json", small.p, small.len);
	check_roundtrip("plain small", p, &small, INPUT_PLAIN, 4096);
	free(p);
	gz = gz_member(small.p, small.len);
	p = write_file("small.json.gz", gz.p, gz.len);
	check_roundtrip("gzip small", p, &small, INPUT_GZIP, 4096);
	free(p);
	free(gz.p);
	zs = zst_frame(small.p, small.len, 1);
	p = write_file("small.json.zst", zs.p, zs.len);
	check_roundtrip("zstd small", p, &small, INPUT_ZSTD, 4096);
	free(p);
	free(zs.p);

	gz = gz_member(big.p, big.len);
	gz3 = multi(big.p, big.len, 3, 0);
	zs = zst_frame(big.p, big.len, 1);
	zs3 = multi(big.p, big.len, 3, 1);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		p = write_file("big.json", big.p, big.len);
		check_roundtrip("plain big", p, &big, INPUT_PLAIN, sizes[i]);
		free(p);
		p = write_file("big.json.gz", gz.p, gz.len);
		check_roundtrip("gzip big", p, &big, INPUT_GZIP, sizes[i]);
		free(p);
		p = write_file("big3.json.gz", gz3.p, gz3.len);
		check_roundtrip("gzip 3 members", p, &big, INPUT_GZIP, sizes[i]);
		free(p);
		p = write_file("big.json.zst", zs.p, zs.len);
		check_roundtrip("zstd big", p, &big, INPUT_ZSTD, sizes[i]);
		free(p);
		p = write_file("big3.json.zst", zs3.p, zs3.len);
		check_roundtrip("zstd 3 frames", p, &big, INPUT_ZSTD, sizes[i]);
		free(p);
	}

	/* The magic decides, never the name. */
	p = write_file("lies.json", gz.p, gz.len);
	check_roundtrip("gzip named .json", p, &big, INPUT_GZIP, 65536);
	free(p);
	p = write_file("lies.json.gz", small.p, small.len);
	check_roundtrip("plain named .gz", p, &small, INPUT_PLAIN, 65536);
	free(p);
	p = write_file("lies.json.gz.zst", zs.p, zs.len);
	check_roundtrip("zstd named .gz", p, &big, INPUT_ZSTD, 65536);
	free(p);

	/* A leading skippable frame, as pzstd writes. */
	{
		static const unsigned char skip[] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4 };

		cat(&b, skip, sizeof skip);
		cat(&b, zs.p, zs.len);
		p = write_file("skippable.zst", b.p, b.len);
		check_roundtrip("zstd after a skippable frame", p, &big, INPUT_ZSTD, 65536);
		free(p);
		free(b.p);
		memset(&b, 0, sizeof b);
	}

	/* Zero padding after gzip is accepted; other trailing bytes are an error. */
	cat(&b, gz.p, gz.len);
	cat(&b, "\0\0\0\0\0\0\0\0", 8);
	p = write_file("padded.json.gz", b.p, b.len);
	check_roundtrip("gzip + zero padding", p, &big, INPUT_GZIP, 65536);
	free(p);
	cat(&b, "junk", 4);
	p = write_file("garbage.json.gz", b.p, b.len);
	want = xasprintf("compressed byte %zu", gz.len + 8);
	check_bad("gzip + trailing garbage", p, &big, big.len, "trailing garbage", want);
	free(want);
	free(p);
	free(b.p);
	memset(&b, 0, sizeof b);

	/* Truncated: a correct prefix, then -1 naming the compressed offset. */
	cut = gz.len / 2;
	p = write_file("cut.json.gz", gz.p, cut);
	want = xasprintf("truncated at compressed byte %zu", cut);
	check_bad("gzip truncated", p, &big, 1 << 20, want, "no end-of-stream marker");
	free(want);
	free(p);
	cut = zs.len / 2;
	p = write_file("cut.json.zst", zs.p, cut);
	want = xasprintf("zstd frame truncated at compressed byte %zu", cut);
	check_bad("zstd truncated", p, &big, 1 << 20, want, "zstd");
	free(want);
	free(p);
	p = write_file("cut3.json.zst", zs3.p, zs3.len - 10);
	want = xasprintf("truncated at compressed byte %zu", zs3.len - 10);
	check_bad("zstd last frame truncated", p, &big, big.len / 2, want, "zstd");
	free(want);
	free(p);
	p = write_file("cut-header.gz", gz.p, 5);
	check_bad("gzip cut inside its header", p, &big, 0, "truncated", "compressed byte 5");
	free(p);

	/* Corrupt: what came before the damage, then -1. */
	cat(&b, gz.p, gz.len);
	for (k = 0; k < 64; k++)
		b.p[gz.len / 2 + (size_t)k] ^= 0x5a;
	p = write_file("corrupt.json.gz", b.p, b.len);
	check_bad("gzip corrupt", p, &big, 1 << 20, "corrupt gzip data at compressed byte", ": ");
	free(p);
	free(b.p);
	memset(&b, 0, sizeof b);
	cat(&b, zs.p, zs.len);
	for (k = 0; k < 64; k++)
		b.p[zs.len / 2 + (size_t)k] ^= 0x5a;
	p = write_file("corrupt.json.zst", b.p, b.len);
	check_bad("zstd corrupt", p, &big, 1 << 20, "corrupt zstd data at compressed byte", ": ");
	free(p);
	free(b.p);
	memset(&b, 0, sizeof b);

	/* Empty and missing files. */
	p = write_file("empty.json", "", 0);
	r = slurp(p, 100);
	is_int(r.rc, 0, "empty: 0 at once");
	is_int(r.data.len, 0, "empty: no bytes");
	is_str(input_codec_name(r.codec), "plain", "empty: codec plain");
	is_int(r.file_size, 0, "empty: size 0");
	result_free(&r);
	free(p);
	p = tpath("missing.json");
	ok(input_open(p, &cause) == NULL, "missing: NULL");
	ok(cause != NULL && strstr(cause, "cannot open") != NULL && strstr(cause, p) != NULL &&
	           strstr(cause, strerror(ENOENT)) != NULL,
	   "missing: cause \"%s\"", cause ? cause : "(null)");
	free(cause);
	cause = NULL;
	free(p);
	input_close(NULL);
	ok(1, "input_close(NULL) is a no-op");

	/* Progress offsets part way through a compressed file. */
	{
		struct input *in;
		char tmp[4096];

		p = write_file("progress.json.zst", zs.p, zs.len);
		in = input_open(p, &cause);
		is_str(input_path(in), p, "input_path");
		is_int(input_file_size(in), zs.len, "file size is the compressed size");
		is_int(input_read(in, tmp, sizeof tmp, &cause), sizeof tmp, "progress: read 4 KB");
		is_int(input_data_offset(in), sizeof tmp, "progress: data offset 4096");
		ok(input_file_offset(in) > 0 && input_file_offset(in) <= zs.len,
		   "progress: file offset %llu within the file", (unsigned long long)input_file_offset(in));
		input_close(in);
		free(p);
	}

	test_stdin(&small, &big);
	test_stdin_stalled(&big);
	test_windows(&small);
	test_zstd_ring(&big);
	test_reopen(&small);

	p = write_file("early.json.gz", gz.p, gz.len);
	test_close_early("gzip close early", p, &big);
	free(p);
	p = write_file("early.json.zst", zs.p, zs.len);
	test_close_early("zstd close early", p, &big);
	free(p);

	for (k = 0; k < nmade; k++) {
		unlink(made[k]);
		free(made[k]);
	}
	rmdir(tmpdir);
	free(small.p);
	free(big.p);
	free(gz.p);
	free(gz3.p);
	free(zs.p);
	free(zs3.p);
	return done_testing();
}
