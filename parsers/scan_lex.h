/* scan_lex.h: the Chrome trace scanner's JSON lexer: strings, numbers, times and skipped
 * values, read inside the scanner's window (parsers/scan_window.h). Every function stops at
 * the window's sentinel and returns ST_NEED_MORE there, so that the element is parsed again
 * once the window holds more; malformed input is ST_ERROR with the scanner's err_at and
 * err_msg set. Oddities the scanner tolerates (raw control bytes, bad escapes, inf/nan,
 * integers out of range) are counted through scan_problem. The small helpers the event
 * parser calls on every key and value are inline here: they are the scanner's hot path. */
#ifndef TT_SCAN_LEX_H
#define TT_SCAN_LEX_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parsers/scan_window.h"

static const unsigned char ws_table[256] = { [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1 };

/* The first byte at or after P that is not JSON whitespace (the sentinel at the latest). */
static inline const char *skip_ws(const char *p)
{
	/* most runs are one space, or a newline and an indent of a few spaces */
	if (!ws_table[(unsigned char)*p])
		return p;
	p++;
	while (*p == ' ')
		p++;
	if (!ws_table[(unsigned char)*p])
		return p;
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      tab = _mm_set1_epi8('\t');
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
		                         _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
		unsigned bits = ~(unsigned)_mm_movemask_epi8(m) & 0xffffu;
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#else
	while (ws_table[(unsigned char)*p])
		p++;
	return p;
#endif
}

/* Finds the first '"', '\\' or byte < 0x20 at or after p. */
static inline const char *find_string_special(const char *p)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), lim = _mm_set1_epi8(0x1f);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
		                         _mm_cmpeq_epi8(_mm_min_epu8(v, lim), v));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#else
	while (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
#endif
}

/* Whether C may follow a number or a literal. */
static inline bool is_delim(char c)
{
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* P points just past the opening quote. On ST_OK, *out holds the unescaped string (in the
 * window when it had no escape, else in the scanner's scratch, valid until the next event)
 * and *pp is past the closing quote. When WANT is false, the string is only skipped. */
enum scan_step scan_lex_string(struct scanner *s, const char **pp, struct scan_str *out, bool want);

/* A key, as scan_lex_string with WANT: one search when it holds no escape (most keys: the
 * event's and its args'), else the full lexer. */
static inline enum scan_step scan_lex_key(struct scanner *s, const char **pp, struct scan_str *k)
{
	const char *q = find_string_special(*pp);
	if (*q != '"')
		return scan_lex_string(s, pp, k, true);
	k->p = *pp;
	k->len = (uint32_t)(q - *pp);
	*pp = q + 1;
	return ST_OK;
}

/* Parses an integer-valued field (fraction truncated). Values past int64 are clamped and
 * counted; values up to UINT64_MAX are kept as their uint64 bits in *u (when U is not
 * NULL). inf/nan set *nonfinite, with *v 0. */
enum scan_step scan_lex_int(struct scanner *s, const char **pp, int64_t *v, uint64_t *u, bool *nonfinite);

/* Parses a number (or inf/nan, counted) into *v. */
enum scan_step scan_lex_double(struct scanner *s, const char **pp, double *v);

/* Parses a time in microseconds (a number, or a string holding one) as fixed-point
 * nanoseconds into *ns; *ok is false when it is not a valid finite time. */
enum scan_step scan_lex_time(struct scanner *s, const char **pp, int64_t *ns, bool *ok);

/* Skips any JSON value at *pp (objects and arrays without tokenising their numbers);
 * ST_FATAL when it nests deeper than the limit. */
enum scan_step scan_skip_value(struct scanner *s, const char **pp);

#endif
