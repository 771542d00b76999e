/* args.c: lazy args: read an event's args bytes back from its file and parse them.
 * Only a regular file is read back, and only while it is the same file (device and inode)
 * that was loaded: reopening standard input, a pipe or a FIFO would read other bytes or
 * wait forever. */
#include "src/args.h"

#include <stdlib.h>
#include <string.h>

#include "parsers/input.h"
#include "lib/xalloc.h"

/* Reads LEN bytes at stream OFFSET of T's file into BUF. Returns 0 or -1 with *cause. */
static int read_range(const struct trace *t, uint64_t offset, size_t len, char *buf, char **cause)
{
	const char *path = t->path;
	char *err = NULL;
	struct input *in;

	if (!t->regular) {
		*cause = xstrdup("args unavailable: input was not a regular file");
		return -1;
	}
	in = input_reopen(path, t->file_dev, t->file_ino, &err);
	if (in == NULL) {
		*cause = err;
		return -1;
	}
	if (input_is_seekable(in)) {
		ssize_t n = input_pread(in, buf, len, offset);
		input_close(in);
		if (n != (ssize_t)len) {
			*cause = xasprintf("%s: cannot read %zu bytes at byte %llu (has the file changed?)", path, len,
			                   (unsigned long long)offset);
			return -1;
		}
		return 0;
	}
	/* compressed: decompress up to the range (cost grows with the offset) */
	char *skip = xmalloc(1u << 16);
	uint64_t at = 0;
	size_t got = 0;
	while (got < len) {
		ssize_t n;
		if (at < offset) {
			size_t want = offset - at < (1u << 16) ? (size_t)(offset - at) : (1u << 16);
			n = input_read(in, skip, want, &err);
			if (n > 0)
				at += (uint64_t)n;
		} else {
			n = input_read(in, buf + got, len - got, &err);
			if (n > 0)
				got += (size_t)n;
		}
		if (n <= 0) {
			free(skip);
			input_close(in);
			*cause = err ? err
			             : xasprintf("%s: ends before byte %llu (has the file changed?)", path,
			                         (unsigned long long)(offset + len));
			return -1;
		}
	}
	free(skip);
	input_close(in);
	return 0;
}

/* Copies TEXT, turning bare inf/-inf/nan/Infinity/NaN tokens outside strings into null. */
static char *finite_copy(const char *text, size_t n, int *count)
{
	char *o = xmalloc(n * 2 + 8), *q = o;
	bool in_str = false, esc = false;
	*count = 0;
	for (size_t i = 0; i < n;) {
		char c = text[i];
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			*q++ = c;
			i++;
			continue;
		}
		if (c == '"') {
			in_str = true;
			*q++ = c;
			i++;
			continue;
		}
		static const char *const words[] = { "-Infinity", "Infinity", "-inf", "inf", "-nan", "nan", "NaN" };
		bool replaced = false;
		for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
			size_t k = strlen(words[w]);
			if (i + k <= n && memcmp(text + i, words[w], k) == 0 &&
			    (i == 0 || strchr(" \t\r\n:,[", text[i - 1]) != NULL)) {
				memcpy(q, "null", 4);
				q += 4;
				i += k;
				(*count)++;
				replaced = true;
				break;
			}
		}
		if (!replaced)
			*q++ = text[i++];
	}
	*q = '\0';
	return o;
}

int event_args_read(const struct trace *t, const struct slice *s, struct event_args *out, char **cause)
{
	uint64_t offset = s->args >> 24;
	size_t len = (size_t)(s->args & 0xffffff);
	char *fixed;

	memset(out, 0, sizeof *out);
	if (s->args == 0 || len == 0) {
		*cause = xstrdup("this event has no args");
		return -1;
	}
	if (len == 0xffffff) {
		*cause = xstrdup("this event's args are 16 MB or more: not read back");
		return -1;
	}
	out->text = xmalloc(len + 1);
	if (read_range(t, offset, len, out->text, cause) < 0) {
		free(out->text);
		out->text = NULL;
		return -1;
	}
	out->text[len] = '\0';
	if (out->text[0] != '{') {
		*cause = xasprintf("%s: byte %llu is not the start of this event's args (has the file changed?)", t->path,
		                   (unsigned long long)offset);
		free(out->text);
		out->text = NULL;
		return -1;
	}
	fixed = finite_copy(out->text, len, &out->nonfinite);
	out->json = cJSON_ParseWithLength(fixed, strlen(fixed));
	free(fixed);
	return 0;
}

void event_args_free(struct event_args *a)
{
	cJSON_Delete(a->json);
	free(a->text);
	memset(a, 0, sizeof *a);
}
