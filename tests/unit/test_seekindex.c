/* test_seekindex.c: seek points recorded while gzip and zstd files decompress, and reading
 * any range back through them: at a point, across a point, across a gzip member or zstd
 * frame boundary, at the very end; never from a file that changed. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parsers/input.h"
#include "parsers/seekindex.h"
#include "lib/xalloc.h"
#include "tests/unit/compress.h"
#include "tests/unit/tap.h"

static char tmpdir[] = "/tmp/ttrace-test-seek-XXXXXX";

/* Trace-like text that compresses about as real traces do (not to nothing). */
static char *make_text(size_t n)
{
	char *t = xmalloc(n + 1);
	uint32_t r = 12345;
	size_t i = 0;
	while (i < n) {
		char line[160];
		r = r * 1103515245u + 12345u;
		uint32_t h = r * 2654435761u;
		int k = snprintf(
			line, sizeof line,
			"  {\"ph\": \"X\", \"name\": \"op%u\", \"ts\": %u, \"args\": {\"v\": %u, \"id\": \"%08x\"}},\n",
			(r >> 16) % 500, r % 100000, r >> 8, h);
		for (int j = 0; j < k && i < n; j++)
			t[i++] = line[j];
	}
	t[n] = '\0';
	return t;
}

static char *write_file(const char *name, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fatal("cannot write %s", path);
	return path;
}

/* Decompresses PATH once as the loader does and returns its index; *ID identifies it. */
static struct seek_index *index_of(const char *path, const char *text, size_t n, struct input_file *id)
{
	char *cause = NULL, *buf = xmalloc(n + 1);
	struct input *in = input_open(path, &cause);
	size_t got = 0;
	ssize_t k;

	if (in == NULL)
		fatal("%s", cause);
	while ((k = input_read(in, buf + got, n + 1 - got, &cause)) > 0)
		got += (size_t)k;
	ok(k == 0 && got == n && memcmp(buf, text, n) == 0, "%s: decompresses to the text", path);
	ok(input_file_identity(in, id), "%s: has an identity", path);
	struct seek_index *x = input_take_index(in);
	input_close(in);
	free(buf);
	return x;
}

/* Reads [off, off + len) through ST and compares it with TEXT. Returns 1 when equal. */
static int same(struct args_store *st, const char *text, uint64_t off, size_t len)
{
	char *buf = xmalloc(len + 1), *cause = NULL;
	int rc = st->ops->read(st, off, len, buf, &cause);
	int eq = rc == 0 && memcmp(buf, text + off, len) == 0;
	if (!eq)
		printf("#   read [%llu, +%zu): %s\n", (unsigned long long)off, len, rc == 0 ? "differs" : cause);
	free(cause);
	free(buf);
	return eq;
}

/* Reads ranges at, across and between X's points; at the start and at the end. */
static void check_reads(const char *what, const char *path, const struct input_file *id, struct seek_index *x,
                        const char *text, size_t n)
{
	uint32_t np = seek_index_points(x), bad = 0, tried = 0;
	struct args_store *st = seek_store_new(path, id, x);

	for (uint32_t i = 0; i < np; i++) {
		uint64_t p = seek_index_point(x, i);
		if (p >= n)
			BUG("a point at the end of the stream");
		tried += 2;
		bad += !same(st, text, p, p + 300 <= n ? 300 : n - p);
		if (p >= 100)
			bad += !same(st, text, p - 100, p + 100 <= n ? 200 : n - (p - 100));
	}
	uint32_t r = 7;
	for (int i = 0; i < 100; i++) {
		r = r * 1103515245u + 12345u;
		uint64_t off = r % n;
		size_t len = 1 + (r >> 8) % 3000;
		if (off + len > n)
			len = n - off;
		tried++;
		bad += !same(st, text, off, len);
	}
	tried += 3;
	bad += !same(st, text, 0, 50);
	bad += !same(st, text, n - 1, 1);
	bad += !same(st, text, n - 5000, 5000);
	is_int(bad, 0, "%s: %u ranges read back through %u points equal the text", what, tried, np);
	args_store_free(st);
}

int main(void)
{
	const size_t n = 400000;
	char *text, *gz = NULL, *zs = NULL, *path, *cause = NULL;
	size_t gzlen = 0, zslen = 0;
	struct input_file id;
	struct seek_index *x;

	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	text = make_text(n);
	seek_set_limits(16 << 10, 64 << 10);

	/* gzip, one member */
	gzip_member(text, n, 1, &gz, &gzlen);
	path = write_file("one.gz", gz, gzlen);
	x = index_of(path, text, n, &id);
	ok(seek_index_points(x) >= 20, "gzip: points every 16 KB of 400 KB (%u)", seek_index_points(x));
	ok(seek_index_quick(x), "gzip: an index is always quick");
	check_reads("gzip one member", path, &id, x, text, n);

	/* saved and restored (as a cache keeps it): the same reads; a stored window that does not
	 * inflate to its length is damage, told as such, not a crash or other bytes. The saved
	 * layout: the tag, a 32-byte header, 32 bytes a point, then the windows in point order
	 * (point 0, the file's start, has none: the first window is point 1's). */
	{
		struct seek_index *x2 = index_of(path, text, n, &id);
		uint32_t np = seek_index_points(x2);
		uint64_t p1 = seek_index_point(x2, 1);
		struct args_store *s2 = seek_store_new(path, &id, x2);
		size_t len = 0;
		char *blob = args_store_save(s2, &len), rb[64];
		ok(blob != NULL && len > 1 + 32 + (size_t)np * 32 && blob[0] == ARGS_SAVED_SEEK,
		   "gzip: the index saves (%zu bytes for %u points)", len, np);
		struct seek_index *r = seek_index_restore(blob + 1, len - 1);
		ok(r != NULL, "gzip: the saved index restores");
		check_reads("gzip restored", path, &id, r, text, n);
		blob[1 + 32 + (size_t)np * 32] = (char)0xff; /* point 1's window: a block of the reserved type */
		r = seek_index_restore(blob + 1, len - 1);
		ok(r != NULL, "gzip: an index whose window is damaged still restores (its table is sound)");
		struct args_store *s3 = seek_store_new(path, &id, r);
		int rc3 = s3->ops->read(s3, p1 + 10, 20, rb, &cause);
		ok(rc3 < 0 && cause != NULL && strstr(cause, "damaged") != NULL,
		   "gzip: a read through the damaged window is refused: %s", cause ? cause : "(none)");
		ok(same(s3, text, 5, 100), "gzip: a read before it (point 0, no window) still reads");
		free(cause);
		cause = NULL;
		args_store_free(s3);
		args_store_free(s2);
		free(blob);
	}

	/* a checkpoint stays valid only while the file is the same: rewrite its bytes in place */
	x = index_of(path, text, n, &id);
	struct args_store *st = seek_store_new(path, &id, x);
	{
		FILE *f = fopen(path, "r+b");
		fwrite(gz, 1, gzlen, f);
		fclose(f);
		struct timespec t[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
		utimensat(AT_FDCWD, path, t, 0);
	}
	char buf[64];
	int rc = st->ops->read(st, 200000, 10, buf, &cause);
	ok(rc < 0 && cause && strstr(cause, "changed"), "gzip: a file modified since loading is not read: %s",
	   cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	args_store_free(st);
	unlink(path);
	free(path);

	/* gzip, three members of uneven sizes: reads cross member ends from points inside */
	free(gz);
	gz = NULL;
	gzlen = 0;
	gzip_member(text, 100000, 2, &gz, &gzlen);
	gzip_member(text + 100000, 150001, 8, &gz, &gzlen);
	gzip_member(text + 250001, n - 250001, 2, &gz, &gzlen);
	path = write_file("three.gz", gz, gzlen);
	x = index_of(path, text, n, &id);
	ok(seek_index_points(x) >= 15, "gzip members: points (%u)", seek_index_points(x));
	check_reads("gzip three members", path, &id, x, text, n);
	{
		struct args_store *s2;
		x = index_of(path, text, n, &id);
		s2 = seek_store_new(path, &id, x);
		ok(same(s2, text, 99000, 2000) && same(s2, text, 250001 - 3000, 6000),
		   "gzip members: ranges across both member ends");
		args_store_free(s2);
	}
	unlink(path);
	free(path);

	/* zstd, one frame: one point; too big a frame for the index to be quick */
	zstd_frame(text, n, &zs, &zslen);
	path = write_file("one.zst", zs, zslen);
	x = index_of(path, text, n, &id);
	is_int(seek_index_points(x), 1, "zstd one frame: one point");
	ok(!seek_index_quick(x), "zstd one frame of 400 KB: not quick with frames of at most 64 KB");
	check_reads("zstd one frame", path, &id, x, text, n);
	unlink(path);
	free(path);

	/* zstd, frames of 50 KB with skippable frames between: one point each */
	free(zs);
	zs = NULL;
	zslen = 0;
	for (size_t off = 0; off < n; off += 50000) {
		zstd_skippable(&zs, &zslen);
		zstd_frame(text + off, off + 50000 <= n ? 50000 : n - off, &zs, &zslen);
	}
	path = write_file("frames.zst", zs, zslen);
	x = index_of(path, text, n, &id);
	is_int(seek_index_points(x), 8, "zstd frames: a point per frame");
	ok(seek_index_quick(x), "zstd frames of 50 KB: quick");
	check_reads("zstd frames", path, &id, x, text, n);
	unlink(path);
	free(path);

	/* a plain file: read at the offset; a file renamed over it is not read */
	path = write_file("plain.json", text, n);
	{
		struct input *in = input_open(path, &cause);
		input_file_identity(in, &id);
		ok(input_take_index(in) == NULL, "plain: no index");
		input_close(in);
		st = seek_store_new(path, &id, NULL);
		ok(same(st, text, 123456, 1000), "plain: a range read at its offset");
		char *other = write_file("other.json", text, n);
		rename(other, path);
		free(other);
		rc = st->ops->read(st, 10, 10, buf, &cause);
		ok(rc < 0 && cause && strstr(cause, "changed"), "plain: a file renamed over it is not read: %s",
		   cause ? cause : "(none)");
		free(cause);
		args_store_free(st);
	}
	unlink(path);
	free(path);

	free(gz);
	free(zs);
	free(text);
	rmdir(tmpdir);
	return done_testing();
}
