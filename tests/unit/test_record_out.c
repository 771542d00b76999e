/* test_record_out.c: the recorder's output file (record/out.c) is the whole document of
 * its last checkpoint, compressed or plain, whatever the lengths of the closings that
 * replace each other (shorter ones are padded: a skippable zstd frame, or spaces). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "record/out.h"
#include "tests/unit/tap.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)len + 1);
	*n = fread(b, 1, (size_t)len, f);
	b[*n] = '\0';
	fclose(f);
	return b;
}

/* RAW's N bytes as a reader sees them: decompressed through every frame (RAW is freed). */
static char *decode(char *raw, size_t n, bool zstd)
{
	if (raw == NULL || !zstd)
		return raw;
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	ZSTD_inBuffer in = { raw, n, 0 };
	while (in.pos < in.size) {
		ZSTD_outBuffer ob = { out + len, cap - len - 1, 0 };
		size_t r = ZSTD_decompressStream(d, &ob, &in);
		len += ob.pos;
		if (ZSTD_isError(r)) {
			printf("# zstd: %s\n", ZSTD_getErrorName(r));
			free(out);
			out = NULL;
			break;
		}
	}
	if (out)
		out[len] = '\0';
	ZSTD_freeDCtx(d);
	free(raw);
	return out;
}

/* The file's content as a reader sees it: decompressed through every frame. */
static char *content(const char *path, bool zstd)
{
	size_t n;
	char *raw = slurp(path, &n);
	return decode(raw, n, zstd);
}

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void run(bool zstd)
{
	const char *mode = zstd ? "zstd" : "plain";
	char path[] = "/tmp/ttrace-out-test-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	char closing[2048];
	memset(closing, ' ', sizeof closing);
	memcpy(closing, "]}", 2);
	struct out *o = out_create(path, zstd, "{\"a\": [0", 8, closing, 1500);
	ok(o != NULL, "%s: created", mode);
	if (o == NULL)
		return;
	char expect[8192] = "{\"a\": [0";
	srand(7);
	int good = 0, steps = 60;
	uint64_t last_size = out_file_bytes(o);
	bool grew_only = true;
	for (int i = 1; i <= steps; i++) {
		char ev[32];
		int n = snprintf(ev, sizeof ev, ",%d", i);
		out_write(o, ev, (size_t)n);
		strcat(expect, ev);
		/* closings of every length, so that each one replaces a longer or a shorter one;
		 * in zstd some end 1 to 7 bytes short of the last, the case of the smallest padding */
		size_t clen = 2 + (size_t)(rand() % (i < 30 ? 1500 : 12));
		char c[2048];
		memcpy(c, "]}", 2);
		for (size_t k = 2; k < clen; k++)
			c[k] = (char)("\n\t "[rand() % 3]);
		if (out_checkpoint(o, c, clen) != 0)
			break;
		char *got = content(path, zstd);
		if (got != NULL) {
			char want[8192];
			snprintf(want, sizeof want, "%s%.*s", expect, (int)clen, c);
			if (!zstd)
				rtrim(got), rtrim(want);
			if (strcmp(got, want) == 0)
				good++;
			else if (good == i - 1)
				printf("# step %d: got %.80s...\n", i, got);
		}
		free(got);
		if (out_file_bytes(o) < last_size)
			grew_only = false;
		last_size = out_file_bytes(o);
		struct stat st;
		if (stat(path, &st) != 0 || (uint64_t)st.st_size != out_file_bytes(o))
			grew_only = false;
	}
	is_int(good, steps, "%s: after every checkpoint the file is the document so far", mode);
	ok(grew_only, "%s: the file never shrinks, and its size is what out.c says", mode);
	ok(out_json_bytes(o) > 8, "%s: JSON bytes counted", mode);
	is_int(out_close(o), 0, "%s: closed", mode);
	errno = 0;
	struct out *again = out_create(path, zstd, "{", 1, "}", 1);
	ok(again == NULL && errno == EEXIST, "%s: an existing file is never replaced", mode);
	unlink(path);
}

/* A stream (a FIFO, a device: here a pipe) gets the opening and the events in order and
 * only the last closing, at out_close; a reader that has gone is an error, not a SIGPIPE. */
static void stream(bool zstd)
{
	const char *mode = zstd ? "zstd" : "plain";
	int p[2];
	if (pipe(p) != 0) {
		ok(0, "%s stream: pipe", mode);
		return;
	}
	struct out *o = out_stream(p[1], zstd, "{\"a\": [0", 8, "]} ", 3);
	ok(o != NULL, "%s stream: opened", mode);
	if (o == NULL)
		return;
	out_write(o, ",1", 2);
	is_int(out_checkpoint(o, "]}      ", 8), 0, "%s stream: a checkpoint", mode);
	out_write(o, ",2", 2);
	is_int(out_checkpoint(o, "], \"x\": 1}", 11), 0, "%s stream: another", mode);
	is_int(out_close(o), 0, "%s stream: closed", mode);
	char *raw = malloc(65536);
	size_t n = 0;
	ssize_t r;
	while ((r = read(p[0], raw + n, 65536 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	char *got = decode(raw, n, zstd);
	is_str(got != NULL ? got : "(undecodable)", "{\"a\": [0,1,2], \"x\": 1}",
	       "%s stream: the events in order, then the last closing alone", mode);
	free(got);

	if (pipe(p) != 0)
		return;
	close(p[0]);
	errno = 0;
	o = out_stream(p[1], zstd, "{\"a\": [0", 8, "]}", 2);
	ok(o == NULL && errno == EPIPE, "%s stream: no reader: EPIPE, and the test lives on (no SIGPIPE)", mode);
	out_close(o);
}

/* A file out_create makes never follows a symbolic link planted in its place. */
static void symlink_planted(void)
{
	char dir[] = "/tmp/ttrace-out-test-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		ok(0, "symlink: mkdtemp");
		return;
	}
	char link[64], target[64];
	snprintf(link, sizeof link, "%s/out.json", dir);
	snprintf(target, sizeof target, "%s/target", dir);
	ok(symlink(target, link) == 0, "symlink: planted");
	errno = 0;
	struct out *o = out_create(link, false, "{", 1, "}", 1);
	ok(o == NULL && errno == EEXIST, "symlink: out_create refuses it");
	out_close(o);
	ok(access(target, F_OK) != 0, "symlink: its target is not created");
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	run(true);
	run(false);
	stream(true);
	stream(false);
	symlink_planted();
	return done_testing();
}
