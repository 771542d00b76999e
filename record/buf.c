/* buf.c: growable text for the recorder's trace writer (see buf.h): numbers written by hand,
 * not by printf, on the hot paths. */
#include "record/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_reserve(struct buf *b, size_t more)
{
	if (b->n + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->n + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (p == NULL)
		abort(); /* the recorder cannot report anything without memory */
	b->p = p;
	b->cap = cap;
}

void buf_put(struct buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void buf_str(struct buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_u64(struct buf *b, uint64_t v)
{
	char t[24];
	int i = sizeof t;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_put(b, t + i, sizeof t - (size_t)i);
}

void buf_i64(struct buf *b, int64_t v)
{
	if (v < 0) {
		BUF_LIT(b, "-");
		buf_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		buf_u64(b, (uint64_t)v);
	}
}

/* V with six decimals, as printf's %f writes it (rounded half away from zero). */
void buf_fixed6(struct buf *b, double v)
{
	if (!(v >= 0 && v < 1e12)) {
		buf_printf(b, "%f", v);
		return;
	}
	uint64_t m = (uint64_t)(v * 1e6 + 0.5);
	buf_u64(b, m / 1000000);
	char f[8] = ".000000";
	uint64_t r = m % 1000000;
	for (int i = 6; i >= 1; i--, r /= 10)
		f[i] = (char)('0' + r % 10);
	buf_put(b, f, 7);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	buf_reserve(b, 256);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n >= b->cap - b->n) { /* did not fit: again with room */
		buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->n += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped, bytes that are not
 * valid UTF-8 replaced by U+FFFD (names come from the program: NVTX strings, kernels). */
void buf_json_string(struct buf *b, const char *s)
{
	buf_put(b, "\"", 1);
	if (s == NULL)
		s = "";
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			buf_put(b, e, 2);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			buf_put(b, (const char *)p, 1);
			p++;
		} else {
			int len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			int ok = len > 0;
			for (int i = 1; ok && i < len; i++)
				ok = (p[i] & 0xc0) == 0x80;
			if (ok && len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
				ok = 0; /* overlong, or a surrogate */
			if (ok && len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
				ok = 0;
			if (ok) {
				buf_put(b, (const char *)p, (size_t)len);
				p += len;
			} else {
				buf_str(b, "\\ufffd");
				p++;
			}
		}
	}
	buf_put(b, "\"", 1);
}
