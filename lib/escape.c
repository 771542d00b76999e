/* escape.c: terminal- and JSON-safe output of untrusted text. */
#include "lib/escape.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

int utf8_seq_len(const unsigned char *p, const unsigned char *end)
{
	uint32_t cp;
	int n;
	if (p >= end)
		return 0;
	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2, cp = *p & 0x1f;
	else if ((*p & 0xf0) == 0xe0)
		n = 3, cp = *p & 0x0f;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	if (end - p < n)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

static uint32_t utf8_decode(const unsigned char *p, int n)
{
	uint32_t cp = n == 1 ? *p : (uint32_t)(*p & (0xff >> (n + 1)));
	for (int k = 1; k < n; k++)
		cp = cp << 6 | (p[k] & 0x3f);
	return cp;
}

bool escape_cp_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Writes into OUT the escaped form of the unit at P (a byte, or a whole UTF-8 character);
 * returns the bytes consumed from P. */
static size_t term_unit(const unsigned char *p, const unsigned char *end, char out[8], size_t *outn)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = *p;
	int n;
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		*outn = 1;
		return 1;
	}
	if (c == '\n' || c == '\t' || c == '\r') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		*outn = 2;
		return 1;
	}
	n = c >= 0x80 ? utf8_seq_len(p, end) : 0;
	if (n >= 2) {
		uint32_t cp = utf8_decode(p, n);
		if (!escape_cp_is_control(cp)) {
			memcpy(out, p, (size_t)n);
			*outn = (size_t)n;
			return (size_t)n;
		}
		/* a C1 or bidi control: its code point */
		out[0] = '\\';
		out[1] = 'u';
		for (int k = 0; k < 4; k++)
			out[2 + k] = hex[cp >> (12 - 4 * k) & 0xf];
		*outn = 6;
		return (size_t)n;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
	*outn = 4;
	return 1;
}

size_t escape_term(FILE *f, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p, *end = u + n;
	size_t written = 0;
	while (u < end) {
		const unsigned char *run = u;
		while (u < end && *u >= 0x20 && *u < 0x7f)
			u++;
		if (u > run) {
			fwrite(run, 1, (size_t)(u - run), f);
			written += (size_t)(u - run);
			continue;
		}
		char out[8];
		size_t on;
		u += term_unit(u, end, out, &on);
		fwrite(out, 1, on, f);
		written += on;
	}
	return written;
}

char *escape_term_buf(const char *p, size_t len, char *buf, size_t n)
{
	const unsigned char *u = (const unsigned char *)p, *end = u + len;
	size_t o = 0;
	if (n == 0)
		return buf;
	while (u < end) {
		char out[8];
		size_t on;
		size_t used = term_unit(u, end, out, &on);
		if (o + on >= n)
			break;
		memcpy(buf + o, out, on);
		o += on;
		u += used;
	}
	buf[o] = '\0';
	return buf;
}

void escape_json(FILE *f, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)p, *end = u + n;
	fputc('"', f);
	while (u < end) {
		const unsigned char *run = u;
		while (u < end && *u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\')
			u++;
		if (u > run)
			fwrite(run, 1, (size_t)(u - run), f);
		if (u >= end)
			break;
		unsigned char c = *u;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			u++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\t': fputs("\\t", f); break;
			case '\r': fputs("\\r", f); break;
			default: fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 0xf]); break;
			}
			u++;
		} else {
			int k = utf8_seq_len(u, end);
			if (k > 0 && escape_cp_is_control(utf8_decode(u, k))) {
				uint32_t cp = utf8_decode(u, k);
				fprintf(f, "\\u%c%c%c%c", hex[cp >> 12 & 0xf], hex[cp >> 8 & 0xf], hex[cp >> 4 & 0xf],
				        hex[cp & 0xf]);
				u += k;
			} else if (k > 0) {
				fwrite(u, 1, (size_t)k, f);
				u += k;
			} else {
				fputs("\\ufffd", f);
				u++;
			}
		}
	}
	fputc('"', f);
}

void escape_say(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	escape_term(f, s, strlen(s));
	fputc('\n', f);
	free(s);
}
