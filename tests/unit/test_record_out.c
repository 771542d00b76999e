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

/* The file's content as a reader sees it: decompressed through every frame. */
static char *content(const char *path, bool zstd)
{
	size_t n;
	char *raw = slurp(path, &n);
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

int main(void)
{
	run(true);
	run(false);
	return done_testing();
}
