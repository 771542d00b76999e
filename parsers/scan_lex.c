/* scan_lex.c: the Chrome trace scanner's JSON lexer (scan_lex.h): strings with their
 * escapes, integers, doubles and times (microseconds as fixed-point nanoseconds, never
 * through a double), literals, and values skipped without being kept. */
#include "parsers/scan_lex.h"
#include "parsers/scan_blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_utf8(char **o, uint32_t cp)
{
	unsigned char *u = (unsigned char *)*o;
	if (cp < 0x80) {
		*u++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*u++ = (unsigned char)(0xc0 | (cp >> 6));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*u++ = (unsigned char)(0xe0 | (cp >> 12));
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*u++ = (unsigned char)(0xf0 | (cp >> 18));
		*u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*o = (char *)u;
}

static int hex4(const char *p, uint32_t *v)
{
	uint32_t x = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* p points just past the opening quote. On ST_OK, *out holds the unescaped string (in
 * the window when it had no escape, else in scratch) and *pp is past the closing quote.
 * When want is false, the string is only skipped. */
enum scan_step scan_lex_string(struct scanner *s, const char **pp, struct scan_str *out, bool want)
{
	const char *p = *pp, *start = p;
	char *o = NULL;

	for (;;) {
		p = find_string_special(p);
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (o == NULL && want) {
				o = s->scratch + s->scratch_used;
				memcpy(o, start, (size_t)(p - start));
				o += p - start;
			} else if (o != NULL) {
				/* copy the run since the last special */
			}
			{
				char c = p[1];
				const char *run_end;
				switch (c) {
				/* clang-format off */
				case '"': case '\\': case '/':
					if (o) *o++ = c;
					p += 2;
					break;
				case 'b': if (o) *o++ = '\b'; p += 2; break;
				case 'f': if (o) *o++ = '\f'; p += 2; break;
				case 'n': if (o) *o++ = '\n'; p += 2; break;
				case 'r': if (o) *o++ = '\r'; p += 2; break;
				case 't': if (o) *o++ = '\t'; p += 2; break;
				/* clang-format on */
				case 'u': {
					uint32_t cp, lo;
					if (at_end(s, p + 5) || memchr(p + 2, '\0', 4) != NULL)
						return at_end(s, p + 1) || at_end(s, p + 2) || at_end(s, p + 3) ||
						                       at_end(s, p + 4) || at_end(s, p + 5)
						               ? ST_NEED_MORE
						               : FAIL(s, p, "bad \\u escape");
					if (hex4(p + 2, &cp) < 0) {
						scan_problem(s, SO_BAD_ESCAPE, p, "invalid \\u escape kept as text");
						if (o)
							*o++ = '\\';
						p += 1;
						break;
					}
					p += 6;
					if (cp >= 0xd800 && cp < 0xdc00) {
						if (p[0] == '\\' && p[1] == 'u' && !at_end(s, p + 5) &&
						    hex4(p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
							cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
							p += 6;
						} else if (at_end(s, p) || at_end(s, p + 1) ||
						           (p[0] == '\\' && p[1] == 'u' && at_end(s, p + 5))) {
							return ST_NEED_MORE;
						} else {
							cp = 0xfffd;
						}
					} else if (cp >= 0xdc00 && cp < 0xe000) {
						cp = 0xfffd;
					}
					if (o)
						put_utf8(&o, cp);
					break;
				}
				case '\0':
					if (at_end(s, p + 1))
						return ST_NEED_MORE;
					/* fallthrough */
				default:
					scan_problem(s, SO_BAD_ESCAPE, p, "invalid escape: backslash kept as text");
					if (o)
						*o++ = '\\';
					p += 1;
					break;
				}
				/* copy the plain run up to the next special */
				run_end = find_string_special(p);
				if (o && run_end > p) {
					memcpy(o, p, (size_t)(run_end - p));
					o += run_end - p;
				}
				p = run_end;
				if (*p == '"')
					break;
				continue;
			}
		}
		/* a byte < 0x20: the sentinel, or a raw control character kept as is */
		if (*p == '\0' && at_end(s, p))
			return ST_NEED_MORE;
		scan_problem(s, SO_CONTROL_CHAR, p, "raw control character inside a string (kept)");
		if (o) {
			const char *run_end;
			*o++ = *p++;
			run_end = find_string_special(p);
			memcpy(o, p, (size_t)(run_end - p));
			o += run_end - p;
			p = run_end;
			if (*p == '"')
				break;
		} else {
			p++;
		}
	}
	if (want) {
		if (o == NULL) {
			out->p = start;
			out->len = (uint32_t)(p - start);
		} else {
			out->p = s->scratch + s->scratch_used;
			out->len = (uint32_t)(o - out->p);
			s->scratch_used += out->len;
		}
	}
	*pp = p + 1;
	return ST_OK;
}

static inline bool maybe_nonfinite(const char *p)
{
	char c = (*p == '-' || *p == '+') ? p[1] : *p;
	return c == 'i' || c == 'I' || c == 'n' || c == 'N';
}

/* Non-finite words Kineto and others wrote: inf, -inf, nan, -nan, Infinity, NaN. */
static int lex_nonfinite(const char *p, const char **end)
{
	static const char *const words[] = { "Infinity", "inf", "NaN", "nan" };
	const char *q = p;
	if (*q == '-' || *q == '+')
		q++;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]);
		if (strncmp(q, words[i], n) == 0 && is_delim(q[n])) {
			*end = q + n;
			return 0;
		}
	}
	return -1;
}

/* A JSON number's extent starting at p; ST_NEED_MORE if it reaches the sentinel. */
static enum scan_step number_end(struct scanner *s, const char *p, const char **end)
{
	const char *q = p;
	while ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.' || *q == 'e' || *q == 'E')
		q++;
	if (at_end(s, q))
		return ST_NEED_MORE;
	if (q == p || !is_delim(*q))
		return FAIL(s, q, "malformed number");
	*end = q;
	return ST_OK;
}

int scan_parse_us_as_ns(const char *p, const char *end, int64_t *ns)
{
	bool neg = false;
	unsigned __int128 mant = 0;
	int frac_digits = 0, digits = 0;
	long exp10 = 0;
	bool round_up = false;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	while (p < end && *p >= '0' && *p <= '9') {
		if (mant < ((unsigned __int128)1 << 100))
			mant = mant * 10 + (unsigned)(*p - '0');
		else
			exp10++;
		p++;
		digits++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (mant < ((unsigned __int128)1 << 100)) {
				mant = mant * 10 + (unsigned)(*p - '0');
				frac_digits++;
			}
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return -1;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		long e = 0;
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		while (p < end && *p >= '0' && *p <= '9') {
			if (e < 100000)
				e = e * 10 + (*p - '0');
			p++;
		}
		exp10 += eneg ? -e : e;
	}
	if (p != end)
		return -1;
	/* value = mant * 10^(exp10 - frac_digits) us = mant * 10^(exp10 - frac_digits + 3) ns */
	exp10 += 3 - frac_digits;
	if (mant == 0) {
		*ns = 0;
		return 0;
	}
	while (exp10 < 0) {
		round_up = (mant % 10) >= 5;
		mant /= 10;
		exp10++;
		if (mant == 0 && !round_up) {
			*ns = 0;
			return 0;
		}
		if (exp10 < 0)
			round_up = false;
	}
	if (round_up)
		mant++;
	while (exp10 > 0) {
		if (mant > (unsigned __int128)INT64_MAX)
			return -1;
		mant *= 10;
		exp10--;
	}
	if (mant > (unsigned __int128)INT64_MAX + (neg ? 1 : 0))
		return -1;
	*ns = neg ? (int64_t)(0 - (uint64_t)mant) : (int64_t)mant;
	return 0;
}

/* The leading decimal digits (up to 8) of the 8 bytes at P: how many there are, their value
 * in *V. Eight bytes at a time rather than a multiply a digit (a trace's times and ids are
 * 7 to 16 digits; their parse was a tenth of a load's CPU). P's 8 bytes must be readable:
 * the window has SCAN_PAD bytes past its end. */
static inline unsigned lead_digits8(const char *p, uint64_t *v)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t w;
	memcpy(&w, p, 8);
	/* a byte is 0 here exactly when it is '0'..'9' (its high nibble 3, and no carry out
	 * of it when 6 is added); carries from a non-digit only reach the bytes after it */
	uint64_t t = ((w & 0xf0 * ones) ^ 0x30 * ones) | (((w + 0x06 * ones) & 0xf0 * ones) ^ 0x30 * ones);
	unsigned n = t == 0 ? 8 : (unsigned)__builtin_ctzll(t) / 8;
	if (n == 0) {
		*v = 0;
		return 0;
	}
	if (n < 8) /* the digits to the high end, '0's before them */
		w = (w << (8 * (8 - n))) | ((0x30 * ones) >> (8 * n));
	w -= 0x30 * ones;
	w = w * 10 + (w >> 8); /* pairs of digits */
	w = ((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32)) +
	     ((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))) >>
	    32;
	*v = (uint32_t)w;
	return n;
}

/* The leading decimal digits (up to 16) at P, as lead_digits8 reads them: how many, and
 * their value in *V. */
static inline unsigned lead_digits16(const char *p, uint64_t *v)
{
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
	unsigned n = lead_digits8(p, v);
	if (n == 8) {
		uint64_t y;
		unsigned m = lead_digits8(p + 8, &y);
		*v = *v * pow10[m] + y;
		n += m;
	}
	return n;
}

/* Parses an integer-valued field (fraction truncated). Values past int64 are clamped and
 * counted; values up to UINT64_MAX are kept as their uint64 bits in *u. */
enum scan_step scan_lex_int(struct scanner *s, const char **pp, int64_t *v, uint64_t *u, bool *nonfinite)
{
	const char *p = *pp, *end;
	bool neg = false;
	uint64_t x = 0;
	bool over = false;
	enum scan_step st;

	*nonfinite = false;
	{
		const char *q = p;
		uint64_t fx = 0;
		bool fneg = *q == '-';
		q += fneg;
		int nd = (int)lead_digits16(q, &fx);
		q += nd;
		while (*q >= '0' && *q <= '9' && nd < 18) {
			fx = fx * 10 + (uint64_t)(*q++ - '0');
			nd++;
		}
		if (nd > 0 && is_delim(*q)) {
			*v = fneg ? -(int64_t)fx : (int64_t)fx;
			if (u)
				*u = fneg ? (uint64_t)0 - fx : fx;
			*pp = q;
			return ST_OK;
		}
	}
	if ((*p == 'i' || *p == 'I' || *p == 'n' || *p == 'N' ||
	     ((*p == '-' || *p == '+') && (p[1] == 'i' || p[1] == 'I' || p[1] == 'n' || p[1] == 'N')))) {
		if (lex_nonfinite(p, &end) == 0) {
			scan_problem(s, SO_NONFINITE, p, "non-finite number (inf/nan) read as missing");
			*nonfinite = true;
			*v = 0;
			if (u)
				*u = 0;
			*pp = end;
			return ST_OK;
		}
	}
	st = number_end(s, p, &end);
	if (st != ST_OK)
		return st;
	if (*p == '-') {
		neg = true;
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = true;
		else
			x = x * 10 + d;
		p++;
	}
	if (p < end && (*p == 'e' || *p == 'E' || *p == '.')) {
		/* 12.5 or 1e3 where an integer was expected: through strtod, truncated */
		char tmp[64];
		size_t n = (size_t)(end - *pp);
		double d;
		if (n >= sizeof tmp)
			n = sizeof tmp - 1;
		memcpy(tmp, *pp, n);
		tmp[n] = '\0';
		d = strtod(tmp, NULL);
		neg = d < 0;
		if (neg)
			d = -d;
		if (d >= 18446744073709551616.0)
			over = true;
		else
			x = (uint64_t)d;
	}
	if (over || (neg && x > (uint64_t)INT64_MAX + 1)) {
		scan_problem(s, SO_INT_OVERFLOW, *pp, "integer out of range (clamped)");
		x = neg ? (uint64_t)INT64_MAX + 1 : UINT64_MAX;
	}
	if (u)
		*u = neg ? (uint64_t)0 - x : x;
	if (neg)
		*v = x > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)x;
	else
		*v = x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
	*pp = end;
	return ST_OK;
}

/* A decimal number without an exponent, [-]digits[.digits], whose digits make an integer
 * M below 2^53 with at most 22 of them after the point, as a double in *V: M and the power
 * of ten are exact doubles, so one division gives what strtod gives (Clinger's fast
 * path). False for anything else, which strtod reads. */
static bool lex_double_fast(const char *p, const char *end, double *v)
{
	static const double pow10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
		                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	bool neg = *p == '-';
	const char *q = p + neg, *digits = q;
	uint64_t m = 0;
	unsigned frac = 0;

	if (end - q > 20) /* 19 digits and a point at most: M cannot wrap */
		return false;
	for (; q < end && *q >= '0' && *q <= '9'; q++)
		m = m * 10 + (uint64_t)(*q - '0');
	if (q == digits || q - digits > 19)
		return false;
	if (q < end && *q == '.') {
		const char *f = ++q;
		for (; q < end && *q >= '0' && *q <= '9'; q++)
			m = m * 10 + (uint64_t)(*q - '0');
		frac = (unsigned)(q - f);
		if (frac == 0 || frac > 22)
			return false;
	}
	if (q != end || m > ((uint64_t)1 << 53))
		return false;
	double x = (double)m / pow10[frac];
	*v = neg ? -x : x;
	return true;
}

enum scan_step scan_lex_double(struct scanner *s, const char **pp, double *v)
{
	const char *p = *pp, *end;
	char tmp[64];
	enum scan_step st;

	if (maybe_nonfinite(p) && lex_nonfinite(p, &end) == 0) {
		scan_problem(s, SO_NONFINITE, p, "non-finite number (inf/nan)");
		*v = (p[0] == 'n' || p[0] == 'N' || p[1] == 'n' || p[1] == 'N') ? NAN
		                                                                : (*p == '-' ? -INFINITY : INFINITY);
		*pp = end;
		return ST_OK;
	}
	st = number_end(s, p, &end);
	if (st != ST_OK)
		return st;
	if (lex_double_fast(p, end, v)) {
		*pp = end;
		return ST_OK;
	}
	size_t n = (size_t)(end - p);
	if (n >= sizeof tmp)
		n = sizeof tmp - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	*v = strtod(tmp, NULL);
	*pp = end;
	return ST_OK;
}

enum scan_step scan_lex_time(struct scanner *s, const char **pp, int64_t *ns, bool *ok)
{
	const char *p = *pp, *end;
	enum scan_step st;

	/* fast path: [0-9]{1,16}(.[0-9]{0,3})? followed by a delimiter */
	{
		const char *q = p;
		uint64_t v = 0;
		int nf = 0;
		int nd = (int)lead_digits16(q, &v); /* 16 digits at most, as byte by byte */
		q += nd;
		if (nd > 0) {
			if (*q == '.') {
				q++;
				while (*q >= '0' && *q <= '9' && nf < 3) {
					v = v * 10 + (uint64_t)(*q++ - '0');
					nf++;
				}
			}
			if (is_delim(*q)) {
				static const uint64_t scale[4] = { 1000, 100, 10, 1 };
				*ns = (int64_t)(v * scale[nf]);
				*ok = true;
				*pp = q;
				return ST_OK;
			}
		}
	}
	*ok = false;
	if (*p == '"') { /* a time as a string: tolerated, parsed from the text */
		struct scan_str str;
		p++;
		st = scan_lex_string(s, &p, &str, true);
		if (st != ST_OK)
			return st;
		*ok = scan_parse_us_as_ns(str.p, str.p + str.len, ns) == 0;
		*pp = p;
		return ST_OK;
	}
	if (maybe_nonfinite(p) && lex_nonfinite(p, &end) == 0) {
		scan_problem(s, SO_NONFINITE, p, "non-finite time (inf/nan) read as missing");
		*pp = end;
		return ST_OK;
	}
	st = number_end(s, p, &end);
	if (st != ST_OK)
		return st;
	if (scan_parse_us_as_ns(p, end, ns) == 0)
		*ok = true;
	else
		scan_problem(s, SO_INT_OVERFLOW, p, "time is not a valid number or is out of range: read as missing");
	*pp = end;
	return ST_OK;
}

static enum scan_step lex_literal(struct scanner *s, const char **pp)
{
	const char *p = *pp;
	static const char *const lits[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		size_t k = 0;
		while (k < n && p[k] == lits[i][k])
			k++;
		if (k == n) {
			if (at_end(s, p + n))
				return ST_NEED_MORE;
			if (is_delim(p[n])) {
				*pp = p + n;
				return ST_OK;
			}
		} else if (at_end(s, p + k)) {
			return ST_NEED_MORE;
		}
	}
	return FAIL(s, p, "unexpected character where a value was expected");
}

/* The scalar end of a skip: the byte at P is a letter outside a string (i, I, n or N: a
 * non-finite number is counted, anything else passed) or a NUL (the sentinel, or an error).
 * *PP moves past what was read. */
static enum scan_step skip_letter_or_nul(struct scanner *s, const char **pp)
{
	const char *p = *pp, *q = p, *end;

	if (*p == '\0')
		return at_end(s, p) ? ST_NEED_MORE : FAIL(s, p, "unexpected NUL byte");
	if (q[-1] == '-' || q[-1] == '+')
		q--;
	if (lex_nonfinite(q, &end) == 0 &&
	    (q == p ? !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')) : true)) {
		scan_problem(s, SO_NONFINITE, q, "non-finite number (inf/nan)");
		*pp = end;
	} else {
		*pp = p + 1;
	}
	return ST_OK;
}

#if SCAN_BLOCKS
/* Skips an object or array at p without tokenising its numbers and literals, 64 bytes at a
 * time: which bytes lie inside strings follows from the quotes (the parity of those before
 * them), and the brackets outside strings are counted. The walk hands a string to the
 * lexer at its first backslash or control byte (escapes, and the problems the lexer
 * counts), and a byte outside strings to skip_letter_or_nul. Malformed content inside a
 * skipped value is not diagnosed (it is never used); brackets must balance. */
static inline __attribute__((always_inline)) enum scan_step skip_walk(struct scanner *s, const char **pp, bool wide)
{
	const char *p = *pp + 1;
	const unsigned depth_max = s->lim.depth_max;
	unsigned depth = 1;
	uint64_t in_string = 0; /* all ones when the block begins inside a string */
	enum scan_step st;

	for (;;) {
		struct scan_block b;
#if SCAN_BLOCKS_AVX512
		if (wide)
			scan_block_avx512(p, &b);
		else
#endif
			scan_block_sse2(p, &b);
		uint64_t str = prefix_xor(b.quote) ^ in_string; /* a string's opening quote and its bytes */
		uint64_t stop = (b.stop_in & str) | (b.stop_out & ~str);
		uint64_t before = stop != 0 ? (stop & (0 - stop)) - 1 : ~(uint64_t)0;
		uint64_t close = b.close & ~str & before;
		uint64_t brackets = (b.open & ~str & before) | close;
		while (brackets != 0) {
			unsigned i = (unsigned)__builtin_ctzll(brackets);
			depth = depth + 1 - 2 * (unsigned)((close >> i) & 1);
			if (depth == 0) {
				*pp = p + i + 1;
				return ST_OK;
			}
			if (depth > depth_max)
				return scan_too_deep(s, p + i);
			brackets &= brackets - 1;
		}
		if (stop == 0) {
			in_string = 0 - (str >> 63);
			p += 64;
			continue;
		}
		unsigned k = (unsigned)__builtin_ctzll(stop);
		p += k;
		if ((str >> k) & 1)
			st = scan_lex_string(s, &p, NULL, false); /* from its backslash to its end */
		else
			st = skip_letter_or_nul(s, &p);
		if (st != ST_OK)
			return st;
		in_string = 0;
	}
}
#if SCAN_BLOCKS_AVX512
__attribute__((target("avx512bw"))) static enum scan_step skip_container_avx512(struct scanner *s, const char **pp)
{
	return skip_walk(s, pp, true);
}
#endif

static enum scan_step skip_container(struct scanner *s, const char **pp)
{
#if SCAN_BLOCKS_AVX512
	if (s->wide_blocks)
		return skip_container_avx512(s, pp);
#endif
	return skip_walk(s, pp, false);
}
#else
/* Byte classes for skipping containers: what can change the depth or hide a bracket. */
enum { K_NONE, K_QUOTE, K_OPEN, K_CLOSE, K_NUL, K_LETTER };
static const unsigned char skip_class[256] = {
	[0] = K_NUL,     ['"'] = K_QUOTE,  ['['] = K_OPEN,   ['{'] = K_OPEN,   [']'] = K_CLOSE,
	['}'] = K_CLOSE, ['i'] = K_LETTER, ['I'] = K_LETTER, ['n'] = K_LETTER, ['N'] = K_LETTER,
};

/* Skips an object or array at p without tokenising its numbers and literals: only
 * strings, brackets and possible non-finite words matter. Malformed content inside a
 * skipped value is not diagnosed (it is never used); brackets must balance. */
static enum scan_step skip_container(struct scanner *s, const char **pp)
{
	const char *p = *pp + 1;
	unsigned depth = 1;
	enum scan_step st;

	for (;;) {
		while (skip_class[(unsigned char)*p] == K_NONE)
			p++;
		switch (skip_class[(unsigned char)*p]) {
		case K_QUOTE: {
			/* most strings have no escape: one search, else the full lexer */
			const char *q = find_string_special(p + 1);
			if (*q == '"') {
				p = q + 1;
				break;
			}
			p++;
			st = scan_lex_string(s, &p, NULL, false);
			if (st != ST_OK)
				return st;
			break;
		}
		case K_OPEN:
			if (++depth > s->lim.depth_max)
				return scan_too_deep(s, p);
			p++;
			break;
		case K_CLOSE:
			p++;
			if (--depth == 0) {
				*pp = p;
				return ST_OK;
			}
			break;
		default: /* a letter or NUL */
			st = skip_letter_or_nul(s, &p);
			if (st != ST_OK)
				return st;
			break;
		}
	}
}
#endif

/* Skips any JSON value inside the window (objects/arrays iteratively). */
enum scan_step scan_skip_value(struct scanner *s, const char **pp)
{
	if (**pp == '{' || **pp == '[')
		return skip_container(s, pp);
	const char *p = *pp, *end;
	unsigned depth = 0;
	enum scan_step st;

	if ((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9')) { /* most: a number */
		st = number_end(s, p, &end);
		if (st == ST_OK)
			*pp = end;
		return st;
	}

	for (;;) {
		p = skip_ws(p);
		switch (*p) {
		case '{':
		case '[':
			if (++depth > s->lim.depth_max)
				return scan_too_deep(s, p);
			p = skip_ws(p + 1);
			if (*p == '}' || *p == ']') {
				depth--;
				p++;
				break;
			}
			continue;
		case '"': {
			const char *k;
			p++;
			st = scan_lex_string(s, &p, NULL, false);
			if (st != ST_OK)
				return st;
			k = skip_ws(p);
			if (*k == ':' && depth > 0) { /* an object key: its value follows */
				p = k + 1;
				continue;
			}
			if (at_end(s, k))
				return ST_NEED_MORE;
			break;
		}
		case '\0':
			if (at_end(s, p))
				return ST_NEED_MORE;
			return FAIL(s, p, "unexpected NUL byte");
		default:
			if (maybe_nonfinite(p) && lex_nonfinite(p, &end) == 0) {
				scan_problem(s, SO_NONFINITE, p, "non-finite number (inf/nan)");
				p = end;
				break;
			}
			if (*p == '-' || (*p >= '0' && *p <= '9')) {
				st = number_end(s, p, &end);
				if (st != ST_OK)
					return st;
				p = end;
				break;
			}
			st = lex_literal(s, &p);
			if (st != ST_OK)
				return st;
			break;
		}
		/* after a value: inside a container, expect ',' or a close */
		for (;;) {
			if (depth == 0) {
				*pp = p;
				return ST_OK;
			}
			p = skip_ws(p);
			if (*p == ',') {
				p++;
				break;
			}
			if (*p == '}' || *p == ']') {
				depth--;
				p++;
				continue;
			}
			return NEED_OR_FAIL(s, p, "expected ',' or a closing bracket");
		}
	}
}
