/* escape.c: terminal- and JSON-safe output of untrusted text. */
#include "ui/escape.h"

#include <stdint.h>
#include <string.h>

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
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

/* Emits one unit of escaped text through PUT; returns bytes consumed from P. */
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
	if (n >= 2 && !(n == 2 && c == 0xc2 && p[1] < 0xa0)) { /* C1 controls are U+0080..U+009F */
		memcpy(out, p, (size_t)n);
		*outn = (size_t)n;
		return (size_t)n;
	}
	if (n == 2) { /* a C1 control: escape its code point */
		out[0] = '\\';
		out[1] = 'u';
		out[2] = '0';
		out[3] = '0';
		out[4] = hex[p[1] >> 4 & 0xf];
		out[5] = hex[p[1] & 0xf];
		*outn = 6;
		return 2;
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
			if (k > 0) {
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
