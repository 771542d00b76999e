/* chrome_scan.c: the streaming scanner for Chrome trace-event JSON.
 *
 * Data model: a window `buf[0..len)` over the decompressed stream, starting at stream
 * offset `base`, always followed by a NUL sentinel. Parsing functions work on plain
 * pointers into the window and never look past the sentinel: when one reaches it, it
 * returns NEED_MORE and the driver refills the window, keeping the bytes from the start
 * of the current event (or top-level value) onwards, and parses that element again from
 * its start. Events are small next to the window (a few MB), so the re-parse is rare.
 *
 * Lines are counted only in bytes that leave the window, so a location's line and
 * column cost a count over at most one window, and only when there is a problem.
 *
 * The window's size is bounded (struct scan_limits): refill sets `full` when it cannot
 * grow, and the element that needs more is then read past in a streaming skip
 * (skip_oversized) or, in a range scan, left to a scan in one piece. Nesting is counted
 * only where values are skipped (skip_container, skip_value, big_skip_step), the only
 * places a document can nest; ST_FATAL carries "too deep" up to the top level. */
#include "parsers/chrome_scan.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/xalloc.h"

/* The window's first size (it grows for a bigger element): 256 KB reads cost nothing
 * measurable against 1 MB ones, and a compressed file's parse holds its window (and
 * scratch) at the peak of its load: 0.6-0.9 MB less than 1 MB windows on the 96 and 100
 * MB .zst traces (bench/RESULTS.md "Compressed input: smaller buffers"). */
#define WINDOW_INITIAL ((size_t)1 << 18)
/* Progress is reported every this many bytes (the timeline's LOADING figure moves by it). */
#define PROGRESS_STEP (1u << 20)
#define PAD 64

/* The window (and scratch) of a range scan that asked to keep it (scan_range.keep_window),
 * held for this thread's next scan: a 1 GB compressed stream is parsed in a thousand
 * chunks, and the program keeps blocks this big mmapped (ui/main.c), so a fresh window
 * per chunk cost a page fault per 4 KB of it. Freed by the key's destructor at thread
 * exit. */
struct spare_window {
	char *buf, *scratch;
	size_t cap, scratch_cap;
};

static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *p)
{
	struct spare_window *w = p;
	free(w->buf);
	free(w->scratch);
	free(w);
}

static void spare_key_init(void)
{
	if (pthread_key_create(&spare_key, spare_free) != 0)
		fatal("cannot create a thread key");
}

/* Takes this thread's spare window, or NULL. */
static struct spare_window *spare_take(void)
{
	pthread_once(&spare_once, spare_key_init);
	struct spare_window *w = pthread_getspecific(spare_key);
	if (w != NULL)
		pthread_setspecific(spare_key, NULL);
	return w;
}

enum step { ST_OK, ST_NEED_MORE, ST_ERROR, ST_STOPPED, ST_MISSED, ST_FATAL };

static struct scan_limits limits = { SCAN_WINDOW_SMALL, SCAN_EVENT_MAX, SCAN_DEPTH_MAX };

void scan_set_limits(const struct scan_limits *l)
{
	static const struct scan_limits defaults = { SCAN_WINDOW_SMALL, SCAN_EVENT_MAX, SCAN_DEPTH_MAX };
	limits = l != NULL ? *l : defaults;
	limits.window_small = (limits.window_small + 4095) & ~(size_t)4095;
	limits.event_max = (limits.event_max + 4095) & ~(size_t)4095;
	if (limits.event_max < limits.window_small)
		limits.event_max = limits.window_small;
	if (limits.depth_max < 1)
		limits.depth_max = 1;
}

struct scanner {
	struct input *in;
	const struct scan_sink *sink;
	struct scan_stats *stats;

	char *buf;            /* the window, cap + PAD bytes allocated */
	size_t cap, len;
	uint64_t base;        /* stream offset of buf[0] */
	bool eof;             /* input has nothing more */
	bool full;            /* the last refill failed: the window is at its largest */
	struct scan_limits lim;
	char *input_cause;    /* why input ended badly, or NULL */
	bool cancelled;       /* the sink's cancel flag ended the input */

	uint64_t lines_before; /* newlines in [start, base) */
	uint64_t last_nl;      /* stream offset just past the last newline before base, 0: none */
	const struct scan_range *range;
	bool pre_known;        /* newlines before range->start counted (lazily, for locations) */
	uint64_t pre_lines, pre_last_nl;
	uint64_t next_progress;

	char *scratch;        /* unescaped strings of the current event; never reallocated mid-event */
	size_t scratch_used, scratch_cap;

	/* error of the last ST_ERROR step */
	const char *err_at;
	const char *err_msg;

	unsigned reported[SO__COUNT];
	uint64_t counted_to[SO__COUNT]; /* 1 + the offset of the last problem counted, 0: none */
	uint64_t events_in_array;
};

/* ---- window management --------------------------------------------------------- */

static size_t count_newlines(const char *p, size_t n)
{
	size_t c = 0, i = 0;
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (i + 16 <= n) {
		/* up to 255 blocks per round: each byte lane counts matches, then a SAD sums them */
		__m128i acc = zero;
		size_t end = i + 255 * 16 < n ? i + 255 * 16 : n;
		for (; i + 16 <= end; i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), nl));
		__m128i s = _mm_sad_epu8(acc, zero);
		c += (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
	}
#endif
	for (; i < n; i++)
		c += p[i] == '\n';
	return c;
}

/* Newlines in the file before OFFSET, and the offset just past the last of them. */
static void count_lines_before(struct input *in, uint64_t offset, uint64_t *lines, uint64_t *last_nl)
{
	const size_t chunk = 1u << 20;
	char *buf = xmalloc(chunk);
	uint64_t at = 0;
	*lines = 0;
	*last_nl = 0;
	while (at < offset) {
		size_t want = offset - at < chunk ? (size_t)(offset - at) : chunk;
		ssize_t n = input_pread(in, buf, want, at);
		if (n <= 0)
			break;
		*lines += count_newlines(buf, (size_t)n);
		const char *q = memrchr(buf, '\n', (size_t)n);
		if (q != NULL)
			*last_nl = at + (uint64_t)(q - buf) + 1;
		at += (uint64_t)n;
	}
	free(buf);
}

static void locate(struct scanner *s, const char *at, uint64_t *line, uint64_t *col)
{
	size_t pos = (size_t)(at - s->buf);
	uint64_t nl_after;
	const char *q;

	if (!s->pre_known) {
		s->pre_known = true;
		if (s->range != NULL && s->range->lines_known) {
			s->pre_lines = s->range->lines_before;
			s->pre_last_nl = s->range->last_nl_before;
		} else if (s->range != NULL && s->range->start > 0) {
			count_lines_before(s->in, s->range->start, &s->pre_lines, &s->pre_last_nl);
		}
	}
	nl_after = s->last_nl ? s->last_nl : s->pre_last_nl;
	if (pos > s->len)
		pos = s->len;
	*line = s->pre_lines + s->lines_before + count_newlines(s->buf, pos) + 1;
	q = memrchr(s->buf, '\n', pos);
	if (q != NULL)
		nl_after = s->base + (uint64_t)(q - s->buf) + 1;
	*col = s->base + pos - nl_after + 1;
}

static uint64_t offset_of(const struct scanner *s, const char *at)
{
	return s->base + (uint64_t)(at - s->buf);
}

/* Discards buf[0..keep), reads more. Returns 1 if bytes were added, 0 if none can be. */
static int refill(struct scanner *s, size_t keep)
{
	size_t added = 0;

	if (keep > 0) {
		const char *q = memrchr(s->buf, '\n', keep);
		s->lines_before += count_newlines(s->buf, keep);
		if (q != NULL)
			s->last_nl = s->base + (uint64_t)(q - s->buf) + 1;
		memmove(s->buf, s->buf + keep, s->len - keep);
		s->len -= keep;
		s->base += keep;
	}
	s->full = false;
	if (s->eof)
		return 0;
	if (s->sink->cancel != NULL && atomic_load(s->sink->cancel)) {
		s->eof = true;
		s->cancelled = true;
		memset(s->buf + s->len, 0, PAD);
		return 0;
	}
	if (s->len == s->cap) {
		size_t ncap = s->cap * 2;
		if (s->cap < s->lim.window_small) {
			if (ncap > s->lim.window_small)
				ncap = s->lim.window_small;
		} else {
			if (s->cap >= s->lim.event_max || s->range != NULL || input_hold_large(s->in) < 0) {
				s->full = true;
				return 0;
			}
			if (ncap > s->lim.event_max)
				ncap = s->lim.event_max;
		}
		s->buf = xrealloc(s->buf, ncap + PAD);
		s->cap = ncap;
		free(s->scratch);
		s->scratch_cap = ncap + PAD;
		s->scratch = xmalloc(s->scratch_cap);
	}
	while (s->len < s->cap) {
		char *cause = NULL;
		ssize_t n = input_read(s->in, s->buf + s->len, s->cap - s->len, &cause);
		if (n > 0) {
			s->len += (size_t)n;
			added += (size_t)n;
			/* Fill the window fully only when it has room for a big read. */
			if (s->cap - s->len < (64u << 10))
				break;
			continue;
		}
		s->eof = true;
		if (n < 0)
			s->input_cause = cause;
		break;
	}
	memset(s->buf + s->len, 0, PAD);
	s->stats->bytes = s->base + s->len;
	if (s->sink->progress != NULL && s->stats->bytes >= s->next_progress) {
		s->sink->progress(s->sink->ctx, s->stats->bytes, input_file_offset(s->in));
		s->next_progress = s->stats->bytes + PROGRESS_STEP;
	}
	return added > 0;
}

/* Counts a problem of KIND at AT and reports the first few. An element that runs past the
 * window is parsed again from its start once the window holds more, and meets its
 * problems again: those at or before the last one counted are not counted twice (a string
 * of raw control characters across a window's end was counted once per try, so the
 * count hung on where the reads ended, found by fuzz_loader's split-vs-whole oracle). */
static void problem(struct scanner *s, enum scan_oddity kind, const char *at, const char *msg)
{
	uint64_t line, col, off = offset_of(s, at);

	if (off < s->counted_to[kind])
		return;
	s->counted_to[kind] = off + 1;
	s->stats->count[kind]++;
	if (s->sink->problem == NULL || s->reported[kind] >= SCAN_PROBLEMS_REPORTED)
		return;
	s->reported[kind]++;
	locate(s, at, &line, &col);
	s->sink->problem(s->sink->ctx, kind, offset_of(s, at), line, col, msg);
}

/* ---- lexical helpers (all stop at the sentinel) ---------------------------------- */

static const unsigned char ws_table[256] = { [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1 };

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

static inline bool at_end(const struct scanner *s, const char *p)
{
	return p >= s->buf + s->len;
}

#define FAIL(s, p, m) ((s)->err_at = (p), (s)->err_msg = (m), ST_ERROR)
#define NEED_OR_FAIL(s, p, m) (at_end((s), (p)) ? ST_NEED_MORE : FAIL((s), (p), (m)))

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
static enum step lex_string(struct scanner *s, const char **pp, struct scan_str *out, bool want)
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
				case '"': case '\\': case '/':
					if (o) *o++ = c;
					p += 2;
					break;
				case 'b': if (o) *o++ = '\b'; p += 2; break;
				case 'f': if (o) *o++ = '\f'; p += 2; break;
				case 'n': if (o) *o++ = '\n'; p += 2; break;
				case 'r': if (o) *o++ = '\r'; p += 2; break;
				case 't': if (o) *o++ = '\t'; p += 2; break;
				case 'u': {
					uint32_t cp, lo;
					if (at_end(s, p + 5) || memchr(p + 2, '\0', 4) != NULL)
						return at_end(s, p + 1) || at_end(s, p + 2) || at_end(s, p + 3) ||
						               at_end(s, p + 4) || at_end(s, p + 5)
						           ? ST_NEED_MORE
						           : FAIL(s, p, "bad \\u escape");
					if (hex4(p + 2, &cp) < 0) {
						problem(s, SO_BAD_ESCAPE, p, "invalid \\u escape kept as text");
						if (o) *o++ = '\\';
						p += 1;
						break;
					}
					p += 6;
					if (cp >= 0xd800 && cp < 0xdc00) {
						if (p[0] == '\\' && p[1] == 'u' && !at_end(s, p + 5) &&
						    hex4(p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
							cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
							p += 6;
						} else if (at_end(s, p) || at_end(s, p + 1) || (p[0] == '\\' && p[1] == 'u' && at_end(s, p + 5))) {
							return ST_NEED_MORE;
						} else {
							cp = 0xfffd;
						}
					} else if (cp >= 0xdc00 && cp < 0xe000) {
						cp = 0xfffd;
					}
					if (o) put_utf8(&o, cp);
					break;
				}
				case '\0':
					if (at_end(s, p + 1))
						return ST_NEED_MORE;
					/* fallthrough */
				default:
					problem(s, SO_BAD_ESCAPE, p, "invalid escape: backslash kept as text");
					if (o) *o++ = '\\';
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
		problem(s, SO_CONTROL_CHAR, p, "raw control character inside a string (kept)");
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

static inline bool is_delim(char c)
{
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
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
static enum step number_end(struct scanner *s, const char *p, const char **end)
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

/* Parses an integer-valued field (fraction truncated). Values past int64 are clamped and
 * counted; values up to UINT64_MAX are kept as their uint64 bits in *u. */
static enum step lex_int(struct scanner *s, const char **pp, int64_t *v, uint64_t *u, bool *nonfinite)
{
	const char *p = *pp, *end;
	bool neg = false;
	uint64_t x = 0;
	bool over = false;
	enum step st;

	*nonfinite = false;
	{
		const char *q = p;
		uint64_t fx = 0;
		int nd = 0;
		bool fneg = *q == '-';
		q += fneg;
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
	if ((*p == 'i' || *p == 'I' || *p == 'n' || *p == 'N' || ((*p == '-' || *p == '+') &&
	     (p[1] == 'i' || p[1] == 'I' || p[1] == 'n' || p[1] == 'N')))) {
		if (lex_nonfinite(p, &end) == 0) {
			problem(s, SO_NONFINITE, p, "non-finite number (inf/nan) read as missing");
			*nonfinite = true;
			*v = 0;
			if (u) *u = 0;
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
		problem(s, SO_INT_OVERFLOW, *pp, "integer out of range (clamped)");
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

static enum step lex_double(struct scanner *s, const char **pp, double *v)
{
	const char *p = *pp, *end;
	char tmp[64];
	enum step st;

	if (maybe_nonfinite(p) && lex_nonfinite(p, &end) == 0) {
		problem(s, SO_NONFINITE, p, "non-finite number (inf/nan)");
		*v = (p[0] == 'n' || p[0] == 'N' || p[1] == 'n' || p[1] == 'N') ? NAN : (*p == '-' ? -INFINITY : INFINITY);
		*pp = end;
		return ST_OK;
	}
	st = number_end(s, p, &end);
	if (st != ST_OK)
		return st;
	size_t n = (size_t)(end - p);
	if (n >= sizeof tmp)
		n = sizeof tmp - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	*v = strtod(tmp, NULL);
	*pp = end;
	return ST_OK;
}

static enum step lex_time(struct scanner *s, const char **pp, int64_t *ns, bool *ok)
{
	const char *p = *pp, *end;
	enum step st;

	/* fast path: [0-9]{1,16}(.[0-9]{0,3})? followed by a delimiter */
	{
		const char *q = p;
		uint64_t v = 0;
		int nd = 0, nf = 0;
		while (*q >= '0' && *q <= '9' && nd < 16) {
			v = v * 10 + (uint64_t)(*q++ - '0');
			nd++;
		}
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
		st = lex_string(s, &p, &str, true);
		if (st != ST_OK)
			return st;
		*ok = scan_parse_us_as_ns(str.p, str.p + str.len, ns) == 0;
		*pp = p;
		return ST_OK;
	}
	if (maybe_nonfinite(p) && lex_nonfinite(p, &end) == 0) {
		problem(s, SO_NONFINITE, p, "non-finite time (inf/nan) read as missing");
		*pp = end;
		return ST_OK;
	}
	st = number_end(s, p, &end);
	if (st != ST_OK)
		return st;
	if (scan_parse_us_as_ns(p, end, ns) == 0)
		*ok = true;
	else
		problem(s, SO_INT_OVERFLOW, p, "time is not a valid number or is out of range: read as missing");
	*pp = end;
	return ST_OK;
}

static enum step lex_literal(struct scanner *s, const char **pp)
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

/* Byte classes for skipping containers: what can change the depth or hide a bracket. */
enum { K_NONE, K_QUOTE, K_OPEN, K_CLOSE, K_NUL, K_LETTER };
static const unsigned char skip_class[256] = {
	[0] = K_NUL, ['"'] = K_QUOTE, ['['] = K_OPEN, ['{'] = K_OPEN, [']'] = K_CLOSE, ['}'] = K_CLOSE,
	['i'] = K_LETTER, ['I'] = K_LETTER, ['n'] = K_LETTER, ['N'] = K_LETTER,
};

/* Skips an object or array at p without tokenising its numbers and literals: only
 * strings, brackets and possible non-finite words matter. Malformed content inside a
 * skipped value is not diagnosed (it is never used); brackets must balance. */
static enum step too_deep(struct scanner *s, const char *at)
{
	s->err_at = at;
	s->err_msg = "values nested too deep";
	return ST_FATAL;
}

static enum step skip_container(struct scanner *s, const char **pp)
{
	const char *p = *pp + 1;
	unsigned depth = 1;
	enum step st;

	for (;;) {
		while (skip_class[(unsigned char)*p] == K_NONE)
			p++;
		switch (skip_class[(unsigned char)*p]) {
		case K_QUOTE:
			p++;
			st = lex_string(s, &p, NULL, false);
			if (st != ST_OK)
				return st;
			break;
		case K_OPEN:
			if (++depth > s->lim.depth_max)
				return too_deep(s, p);
			p++;
			break;
		case K_CLOSE:
			p++;
			if (--depth == 0) {
				*pp = p;
				return ST_OK;
			}
			break;
		case K_LETTER: {
			const char *q = p, *end;
			if (q[-1] == '-' || q[-1] == '+')
				q--;
			if (lex_nonfinite(q, &end) == 0 && (q == p ? !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')) : true)) {
				problem(s, SO_NONFINITE, q, "non-finite number (inf/nan)");
				p = end;
			} else {
				p++;
			}
			break;
		}
		default: /* NUL */
			if (at_end(s, p))
				return ST_NEED_MORE;
			return FAIL(s, p, "unexpected NUL byte");
		}
	}
}

/* Skips any JSON value inside the window (objects/arrays iteratively). */
static enum step skip_value(struct scanner *s, const char **pp)
{
	if (**pp == '{' || **pp == '[')
		return skip_container(s, pp);
	const char *p = *pp, *end;
	unsigned depth = 0;
	enum step st;

	for (;;) {
		p = skip_ws(p);
		switch (*p) {
		case '{':
		case '[':
			if (++depth > s->lim.depth_max)
				return too_deep(s, p);
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
			st = lex_string(s, &p, NULL, false);
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
				problem(s, SO_NONFINITE, p, "non-finite number (inf/nan)");
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

/* ---- events ---------------------------------------------------------------------- */

static inline bool key_is(const struct scan_str *k, const char *lit, uint32_t n)
{
	return k->len == n && memcmp(k->p, lit, n) == 0;
}
#define KEY(k, lit) key_is((k), lit, (uint32_t)(sizeof(lit) - 1))

static enum step lex_id(struct scanner *s, const char **pp, struct scan_id *id)
{
	const char *p = *pp;
	enum step st;
	bool nf;

	id->present = true;
	if (*p == '"') {
		struct scan_str str;
		p++;
		st = lex_string(s, &p, &str, true);
		if (st != ST_OK)
			return st;
		/* decimal digits in a string: the number (old files write tids both ways) */
		bool digits = str.len > 0 && str.len < 19;
		for (uint32_t i = 0; digits && i < str.len; i++)
			digits = str.p[i] >= '0' && str.p[i] <= '9';
		if (digits || (str.len > 1 && str.len < 19 && str.p[0] == '-' && str.p[1] >= '0' && str.p[1] <= '9')) {
			int64_t v = 0;
			bool neg = str.p[0] == '-', okd = true;
			for (uint32_t i = neg; i < str.len; i++) {
				if (str.p[i] < '0' || str.p[i] > '9') { okd = false; break; }
				v = v * 10 + (str.p[i] - '0');
			}
			if (okd) {
				id->is_str = false;
				id->num = neg ? -v : v;
				*pp = p;
				return ST_OK;
			}
		}
		id->is_str = true;
		id->str = str;
		*pp = p;
		return ST_OK;
	}
	id->is_str = false;
	st = lex_int(s, &p, &id->num, NULL, &nf);
	if (st != ST_OK)
		return st;
	*pp = p;
	return ST_OK;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static enum step lex_flow_id(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp;
	enum step st;
	bool nf;
	int64_t v;

	if (*p == '"') {
		struct scan_str str;
		p++;
		st = lex_string(s, &p, &str, true);
		if (st != ST_OK)
			return st;
		char *endp;
		char tmp[32];
		if (str.len > 0 && str.len < sizeof tmp) {
			memcpy(tmp, str.p, str.len);
			tmp[str.len] = '\0';
			errno = 0;
			unsigned long long x = strtoull(tmp, &endp, 0);
			if (*endp == '\0' && errno == 0) {
				ev->id = x;
				ev->has_id = true;
				*pp = p;
				return ST_OK;
			}
		}
		ev->id = hash_bytes(str.p, str.len);
		ev->has_id = true;
		*pp = p;
		return ST_OK;
	}
	st = lex_int(s, &p, &v, &ev->id, &nf);
	if (st != ST_OK)
		return st;
	ev->has_id = !nf;
	*pp = p;
	return ST_OK;
}

static enum step lex_int3(struct scanner *s, const char **pp, int32_t out[3])
{
	const char *p = *pp;
	enum step st;
	int i = 0;
	bool nf;

	if (*p != '[')
		return skip_value(s, pp);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*pp = p + 1;
		return ST_OK;
	}
	for (;;) {
		int64_t v;
		if (*p == '"' || *p == '{' || *p == '[')
			return skip_value(s, pp); /* not a plain int array: skip whole */
		st = lex_int(s, &p, &v, NULL, &nf);
		if (st != ST_OK)
			return st;
		if (i < 3)
			out[i] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
		i++;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			*pp = p + 1;
			return ST_OK;
		}
		return NEED_OR_FAIL(s, p, "expected ',' or ']' in an array");
	}
}

static enum step parse_args(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp, *open = p;
	enum step st;
	bool nf;
	uint64_t u;
	bool counter = ev->ph == 'C';

	p = skip_ws(p + 1);
	if (*p == '}') {
		p++;
		goto done;
	}
	for (;;) {
		struct scan_str k;
		if (*p != '"')
			return NEED_OR_FAIL(s, p, "expected a key in args");
		p++;
		st = lex_string(s, &p, &k, true);
		if (st != ST_OK)
			return st;
		p = skip_ws(p);
		if (*p != ':')
			return NEED_OR_FAIL(s, p, "expected ':' after a key in args");
		p = skip_ws(p + 1);
		st = ST_OK;
		bool handled = true;
		switch (k.len) {
		case 4:
			if (KEY(&k, "grid")) {
				st = lex_int3(s, &p, ev->grid);
				ev->have |= SA_GRID;
			} else if (KEY(&k, "name") && *p == '"') {
				p++;
				st = lex_string(s, &p, &ev->m_name, true);
				ev->have |= SA_M_NAME;
			} else if (KEY(&k, "Addr")) {
				if (*p != 'n')
					ev->have |= SA_ADDR;
				st = skip_value(s, &p);
			} else {
				handled = false;
			}
			break;
		case 5:
			if (KEY(&k, "block")) {
				st = lex_int3(s, &p, ev->block);
				ev->have |= SA_BLOCK;
			} else if ((KEY(&k, "bytes") || KEY(&k, "Bytes")) && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->bytes, &u, &nf);
				if (!nf) ev->have |= SA_BYTES;
			} else if (!counter && KEY(&k, "flops") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->flops, &u, &nf);
				if (!nf) ev->have |= SA_FLOPS;
			} else {
				handled = false;
			}
			break;
		case 6:
			if (KEY(&k, "device") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->device, &u, &nf);
				if (!nf) ev->have |= SA_DEVICE;
			} else if (KEY(&k, "stream") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->stream, &u, &nf);
				if (!nf) ev->have |= SA_STREAM;
			} else if (KEY(&k, "labels") && *p == '"') {
				p++;
				st = lex_string(s, &p, &ev->m_labels, true);
				ev->have |= SA_M_LABELS;
			} else {
				handled = false;
			}
			break;
		case 9:
			if (KEY(&k, "Device Id") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->device_id, &u, &nf);
				if (!nf) ev->have |= SA_DEVICE_ID;
			} else {
				handled = false;
			}
			break;
		case 10:
			if (KEY(&k, "sort_index") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->m_sort_index, &u, &nf);
				if (!nf) ev->have |= SA_M_SORT;
			} else {
				handled = false;
			}
			break;
		case 11:
			if (*p == '"' || *p == '{' || *p == '[') {
				handled = false;
			} else if (KEY(&k, "correlation")) {
				st = lex_int(s, &p, &ev->correlation, &u, &nf);
				if (!nf) ev->have |= SA_CORRELATION;
			} else if (KEY(&k, "External id") || KEY(&k, "external id")) {
				st = lex_int(s, &p, &ev->external_id, &u, &nf);
				if (!nf) ev->have |= SA_EXTERNAL_ID;
			} else if (KEY(&k, "Device Type")) {
				st = lex_int(s, &p, &ev->device_type, &u, &nf);
				if (!nf) ev->have |= SA_DEVICE_TYPE;
			} else {
				handled = false;
			}
			break;
		case 13:
			if (KEY(&k, "blocks per SM") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_double(s, &p, &ev->blocks_per_sm);
				ev->have |= SA_BLOCKS_PER_SM;
			} else if (KEY(&k, "shared memory") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->smem, &u, &nf);
				if (!nf) ev->have |= SA_SMEM;
			} else {
				handled = false;
			}
			break;
		case 14:
			if (KEY(&k, "Total Reserved") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->total_reserved, &u, &nf);
				if (!nf) ev->have |= SA_TOTAL_RESERVED;
			} else {
				handled = false;
			}
			break;
		case 15:
			if (KEY(&k, "Total Allocated") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->total_allocated, &u, &nf);
				if (!nf) ev->have |= SA_TOTAL_ALLOC;
			} else {
				handled = false;
			}
			break;
		case 18:
			if (KEY(&k, "Process Group Name") && *p == '"') {
				p++;
				st = lex_string(s, &p, &ev->pg_name, true);
				ev->have |= SA_PG_NAME;
			} else {
				handled = false;
			}
			break;
		case 20:
			if (KEY(&k, "registers per thread") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_int(s, &p, &ev->regs, &u, &nf);
				if (!nf) ev->have |= SA_REGS;
			} else {
				handled = false;
			}
			break;
		case 25:
			if (KEY(&k, "est. achieved occupancy %") && *p != '"' && *p != '{' && *p != '[') {
				st = lex_double(s, &p, &ev->occupancy);
				ev->have |= SA_OCCUPANCY;
			} else {
				handled = false;
			}
			break;
		default:
			handled = false;
			break;
		}
		if (!handled) {
			if (counter && ev->ncounter < SCAN_MAX_COUNTER_VALUES &&
			    (*p == '-' || (*p >= '0' && *p <= '9') || *p == 'i' || *p == 'I' || *p == 'N' || *p == 'n')) {
				double v;
				st = lex_double(s, &p, &v);
				if (st == ST_OK) {
					ev->counter_key[ev->ncounter] = k;
					ev->counter_value[ev->ncounter] = v;
					ev->ncounter++;
				}
			} else {
				st = skip_value(s, &p);
			}
		}
		if (st != ST_OK)
			return st;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == '}') {
			p++;
			break;
		}
		return NEED_OR_FAIL(s, p, "expected ',' or '}' in args");
	}
done:
	ev->args_offset = offset_of(s, open);
	ev->args_len = (uint32_t)(p - open);
	ev->args_text = open;
	*pp = p;
	return ST_OK;
}

/* Parses one event object at p ('{'). */
static enum step parse_event(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp;
	enum step st;
	struct scan_str k, v;

	memset(ev, 0, offsetof(struct scan_event, counter_key));
	s->scratch_used = 0;
	ev->offset = offset_of(s, p);
	p = skip_ws(p + 1);
	if (*p == '}') {
		*pp = p + 1;
		return ST_OK;
	}
	for (;;) {
		if (*p != '"')
			return NEED_OR_FAIL(s, p, "expected '\"' to begin a key");
		p++;
		{
			/* keys are short and plain: scan them byte by byte, else the full lexer */
			const char *q = p;
			while ((unsigned char)*q > '"' && *q != '\\' && q - p < 24)
				q++;
			if (*q == '"') {
				k.p = p;
				k.len = (uint32_t)(q - p);
				p = q + 1;
			} else {
				st = lex_string(s, &p, &k, true);
				if (st != ST_OK)
					return st;
			}
		}
		p = skip_ws(p);
		if (*p != ':')
			return NEED_OR_FAIL(s, p, "expected ':' after a key");
		p = skip_ws(p + 1);
		st = ST_OK;
		switch (k.len) {
		case 1:
			if (k.p[0] == 's' && *p == '"') {
				p++;
				st = lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->scope = v.p[0];
			} else {
				st = skip_value(s, &p);
			}
			break;
		case 2:
			if (k.p[0] == 'p' && k.p[1] == 'h' && *p == '"') {
				p++;
				st = lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->ph = v.p[0];
			} else if (k.p[0] == 't' && k.p[1] == 's') {
				st = lex_time(s, &p, &ev->ts, &ev->has_ts);
				if (st == ST_OK && !ev->has_ts)
					ev->ts_nonfinite = true;
			} else if (k.p[0] == 'i' && k.p[1] == 'd') {
				st = lex_flow_id(s, &p, ev);
			} else if (k.p[0] == 'b' && k.p[1] == 'p' && *p == '"') {
				p++;
				st = lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->bp = v.p[0];
			} else {
				st = skip_value(s, &p);
			}
			break;
		case 3:
			if (k.p[0] == 'p' && k.p[1] == 'i' && k.p[2] == 'd') {
				st = lex_id(s, &p, &ev->pid);
			} else if (k.p[0] == 't' && k.p[1] == 'i' && k.p[2] == 'd') {
				st = lex_id(s, &p, &ev->tid);
			} else if (k.p[0] == 'd' && k.p[1] == 'u' && k.p[2] == 'r') {
				st = lex_time(s, &p, &ev->dur, &ev->has_dur);
			} else if (k.p[0] == 'c' && k.p[1] == 'a' && k.p[2] == 't' && *p == '"') {
				p++;
				st = lex_string(s, &p, &ev->cat, true);
			} else {
				st = skip_value(s, &p);
			}
			break;
		case 4:
			if (memcmp(k.p, "name", 4) == 0 && *p == '"') {
				p++;
				st = lex_string(s, &p, &ev->name, true);
			} else if (memcmp(k.p, "args", 4) == 0 && *p == '{') {
				st = parse_args(s, &p, ev);
			} else {
				st = skip_value(s, &p);
			}
			break;
		default:
			st = skip_value(s, &p);
			break;
		}
		if (st != ST_OK)
			return st;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == '}') {
			*pp = p + 1;
			return ST_OK;
		}
		return NEED_OR_FAIL(s, p, "expected ',' or '}' after a value in an event");
	}
}

/* After a malformed event starting at `from`, finds the next "}, {" boundary and
 * returns a pointer to its '{', or the ']' closing the array ("} ]"), or NULL when the
 * window ends first (the caller refills and retries from the returned scan point). */
static const char *resync(struct scanner *s, const char *from, const char **scan_point)
{
	const char *p = from;
	const char *end = s->buf + s->len;

	while (p < end) {
		const char *q = memchr(p, '}', (size_t)(end - p));
		const char *r;
		if (q == NULL)
			break;
		r = skip_ws(q + 1);
		if (at_end(s, r)) {
			*scan_point = q;
			return NULL;
		}
		if (*r == ',') {
			r = skip_ws(r + 1);
			if (at_end(s, r)) {
				*scan_point = q;
				return NULL;
			}
			/* "}, {" starts the next event; "}, 7" or "}, [" an element that is not
			 * one; "}, \"" is more likely the next key of an object inside the event. */
			if (*r != '"' && *r != '}' && *r != ']' && *r != ':' && *r != ',')
				return r;
		} else if (*r == ']') {
			return r;
		}
		p = q + 1;
	}
	*scan_point = end;
	return NULL;
}

/* ---- top level --------------------------------------------------------------------- */

enum { DONE_ARRAY_END = 1 };

static enum step skip_oversized(struct scanner *s, size_t *posp);

/* Scans the elements of an events array; *pp is just past '['. Returns ST_OK at the
 * closing ']' (consumed), ST_NEED_MORE when the input ends inside it (or, in a range
 * scan, an element outgrows the window), ST_FATAL with err_at/err_msg set when a value
 * nests too deep. */
static enum step scan_events(struct scanner *s, size_t *posp)
{
	struct scan_event ev;
	size_t pos = *posp;

	for (;;) {
		const char *p = skip_ws(s->buf + pos);
		enum step st;

		if (at_end(s, p)) {
			pos = (size_t)(p - s->buf);
			if (!refill(s, pos)) {
				*posp = 0;
				/* a part of a stream (load.c's chunks) ends just before the element
				 * that begins the next part: that is its stop */
				if (s->range != NULL && s->range->stop != 0 && s->len == 0 && s->base == s->range->stop)
					return ST_STOPPED;
				return ST_NEED_MORE;
			}
			pos = 0;
			continue;
		}
		if (*p == ']') {
			*posp = (size_t)(p + 1 - s->buf);
			return ST_OK;
		}
		if (*p == ',') { /* between elements (also tolerates a stray comma) */
			pos = (size_t)(p + 1 - s->buf);
			continue;
		}
		const char *start = p;
		if (s->range != NULL && s->range->stop != 0) {
			uint64_t off = offset_of(s, p);
			if (off >= s->range->stop) {
				*posp = (size_t)(p - s->buf);
				return off == s->range->stop ? ST_STOPPED : ST_MISSED;
			}
		}
		if (*p == '{') {
			st = parse_event(s, &p, &ev);
		} else {
			st = skip_value(s, &p);
			if (st == ST_OK) {
				problem(s, SO_NOT_OBJECT, start, "an element of traceEvents is not an object (skipped)");
				pos = (size_t)(p - s->buf);
				goto after;
			}
		}
		if (st == ST_NEED_MORE) {
			size_t keep = (size_t)(start - s->buf);
			if (!refill(s, keep)) {
				if (s->full && s->range == NULL) {
					st = skip_oversized(s, &pos);
					if (st == ST_OK)
						goto after;
					if (st == ST_FATAL)
						return st;
					*posp = pos;
					return ST_NEED_MORE;
				}
				*posp = 0; /* window begins at the incomplete element */
				return ST_NEED_MORE;
			}
			pos = 0;
			continue;
		}
		if (st == ST_FATAL)
			return st;
		if (st == ST_ERROR) {
			char msg[160];
			snprintf(msg, sizeof msg, "malformed event skipped: %s", s->err_msg);
			problem(s, SO_MALFORMED_EVENT, s->err_at, msg);
			/* resynchronise at the next event */
			const char *from = s->err_at > start ? s->err_at : start + 1;
			for (;;) {
				const char *scan_point = NULL;
				const char *r = resync(s, from, &scan_point);
				if (r != NULL) {
					pos = (size_t)(r - s->buf);
					break;
				}
				size_t keep = (size_t)(scan_point - s->buf);
				if (!refill(s, keep)) {
					*posp = s->len;
					return ST_NEED_MORE;
				}
				from = s->buf;
			}
			continue;
		}
		s->stats->events++;
		s->events_in_array++;
		s->sink->event(s->sink->ctx, &ev);
		pos = (size_t)(p - s->buf);
after:
		p = skip_ws(s->buf + pos);
		if (*p == ',') {
			pos = (size_t)(p + 1 - s->buf);
		} else if (*p == ']') {
			*posp = (size_t)(p + 1 - s->buf);
			return ST_OK;
		} else if (at_end(s, p)) {
			pos = (size_t)(p - s->buf);
		} else {
			problem(s, SO_MALFORMED_EVENT, p, "expected ',' or ']' after an event");
			pos = (size_t)(p - s->buf);
			/* resync from here */
			const char *scan_point = NULL;
			const char *r = resync(s, p, &scan_point);
			if (r != NULL)
				pos = (size_t)(r - s->buf);
			else
				pos = (size_t)(scan_point - s->buf);
		}
	}
}

/* A streaming value skipper for top-level header values, resumable across refills:
 * state is (depth, in_string, escaped). Captures the raw text up to `cap_max`. */
struct big_skip {
	unsigned depth;     /* at most depth_max */
	bool in_string, escaped, started, scalar;
	char *cap;
	size_t cap_len, cap_size;
	uint64_t total;
	bool capture;
};

static void capture_bytes(struct big_skip *b, const char *p, size_t n)
{
	b->total += n;
	if (!b->capture)
		return;
	if (b->cap_len + n > SCAN_HEADER_MAX) {
		b->capture = false;
		free(b->cap);
		b->cap = NULL;
		return;
	}
	if (b->cap_len + n + 1 > b->cap_size) {
		b->cap_size = (b->cap_len + n + 1) * 2;
		b->cap = xrealloc(b->cap, b->cap_size);
	}
	memcpy(b->cap + b->cap_len, p, n);
	b->cap_len += n;
	b->cap[b->cap_len] = '\0';
}

/* Consumes bytes from *pos; returns 1 when the value ended, 0 when the window ran out,
 * -1 (err_at and err_msg set) when it nests deeper than depth_max. */
static int big_skip_step(struct scanner *s, struct big_skip *b, size_t *pos)
{
	const char *p = s->buf + *pos, *end = s->buf + s->len, *start = p;

	while (p < end) {
		char c = *p;
		if (b->in_string) {
			if (!b->escaped) {
				p = find_string_special(p); /* stops at the sentinel at the latest */
				if (p >= end)
					break;
				c = *p;
			}
			if (b->escaped) {
				b->escaped = false;
			} else if (c == '\\') {
				b->escaped = true;
			} else if (c == '"') {
				b->in_string = false;
				if (b->depth == 0) {
					p++;
					capture_bytes(b, start, (size_t)(p - start));
					*pos = (size_t)(p - s->buf);
					return 1;
				}
			}
			p++;
			continue;
		}
		if (!b->started) {
			b->started = true;
			if (c == '"') {
				b->in_string = true;
			} else if (c == '{' || c == '[') {
				b->depth = 1;
			} else {
				b->scalar = true;
			}
			p++;
			continue;
		}
		if (b->scalar) {
			if (is_delim(c)) {
				capture_bytes(b, start, (size_t)(p - start));
				*pos = (size_t)(p - s->buf);
				return 1;
			}
			p++;
			continue;
		}
		if (c == '"') {
			b->in_string = true;
		} else if (c == '{' || c == '[') {
			if (++b->depth > s->lim.depth_max) {
				capture_bytes(b, start, (size_t)(p - start));
				*pos = (size_t)(p - s->buf);
				too_deep(s, p);
				return -1;
			}
		} else if (c == '}' || c == ']') {
			if (--b->depth == 0) {
				p++;
				capture_bytes(b, start, (size_t)(p - start));
				*pos = (size_t)(p - s->buf);
				return 1;
			}
		}
		p++;
	}
	capture_bytes(b, start, (size_t)(p - start));
	*pos = (size_t)(p - s->buf);
	return 0;
}

static void size_text(char *buf, size_t n, size_t bytes)
{
	if (bytes % ((size_t)1 << 20) == 0)
		snprintf(buf, n, "%zu MiB", bytes >> 20);
	else
		snprintf(buf, n, "%zu KiB", bytes >> 10);
}

/* The element at buf[0] fills the largest window: reports it, then reads past its end
 * without keeping it. Returns ST_OK with *posp just past it, ST_NEED_MORE with *posp at
 * the window's end when the input ends inside it, or ST_FATAL. */
static enum step skip_oversized(struct scanner *s, size_t *posp)
{
	struct big_skip b;
	char msg[160], lim[32];
	size_t pos = 0;
	int r;

	size_text(lim, sizeof lim, s->lim.event_max);
	snprintf(msg, sizeof msg, "malformed event skipped: larger than %s (the limit on one event)", lim);
	problem(s, SO_MALFORMED_EVENT, s->buf, msg);
	memset(&b, 0, sizeof b);
	for (;;) {
		r = big_skip_step(s, &b, &pos);
		if (r > 0) {
			*posp = pos;
			return ST_OK;
		}
		if (r < 0)
			return ST_FATAL;
		if (!refill(s, s->len)) {
			*posp = s->len;
			return ST_NEED_MORE;
		}
		pos = 0;
	}
}

/* The message of an ST_FATAL step; the scan stops there. */
static enum scan_result fatal_result(struct scanner *s, char **cause)
{
	uint64_t line, col;

	locate(s, s->err_at, &line, &col);
	*cause = xasprintf("%s: %s (over %u levels) at line %llu, column %llu (byte %llu): stopped reading there",
	                   input_path(s->in), s->err_msg, s->lim.depth_max, (unsigned long long)line,
	                   (unsigned long long)col, (unsigned long long)offset_of(s, s->err_at));
	return s->stats->events > 0 ? SCAN_TRUNCATED : SCAN_NOT_TRACE;
}

static const char *guess_format(const char *key, uint32_t n)
{
	if (n >= 13 && memcmp(key, "rocprofiler-", 12) == 0)
		return "looks like rocprofv3 output";
	if (n == 10 && memcmp(key, "traceEvent", 10) == 0)
		return NULL;
	return NULL;
}

enum scan_result scan_run(struct input *in, const struct scan_sink *sink, struct scan_stats *stats,
                          char **cause)
{
	return scan_run_range(in, sink, NULL, stats, cause);
}

/* Scans the events array at pos; leaves scan_run_range when it stopped, missed its stop
 * or the input ended inside it. */
#define EVENTS_OR_LEAVE()                                                                  \
	do {                                                                               \
		st0 = scan_events(s, &pos);                                                \
		if (st0 == ST_STOPPED || st0 == ST_MISSED) {                               \
			res = st0 == ST_STOPPED ? SCAN_STOPPED : SCAN_MISSED_STOP;          \
			goto out;                                                          \
		}                                                                          \
		if (st0 == ST_FATAL) {                                                     \
			res = fatal_result(s, cause);                                      \
			goto out_keep_cause;                                               \
		}                                                                          \
		if (st0 != ST_OK) {                                                        \
			res = SCAN_TRUNCATED;                                              \
			goto truncated;                                                    \
		}                                                                          \
	} while (0)

enum scan_result scan_run_range(struct input *in, const struct scan_sink *sink, const struct scan_range *range,
                                struct scan_stats *stats, char **cause)
{
	struct scanner sc;
	struct scanner *s = &sc;
	enum scan_result res = SCAN_OK;
	size_t pos = 0;
	bool have_events = false;
	char first_keys[200] = "";
	const char *hint = NULL;
	uint64_t elements_seen = 0;

	memset(s, 0, sizeof *s);
	memset(stats, 0, sizeof *stats);
	*cause = NULL;
	s->in = in;
	s->sink = sink;
	s->stats = stats;
	s->lim = limits;
	s->cap = WINDOW_INITIAL < s->lim.window_small ? WINDOW_INITIAL : s->lim.window_small;
	struct spare_window *spare = range != NULL && range->keep_window ? spare_take() : NULL;
	if (spare != NULL && spare->cap == s->cap) {
		s->buf = spare->buf;
		s->scratch = spare->scratch;
		s->scratch_cap = spare->scratch_cap;
	} else {
		if (spare != NULL)
			spare_free(spare);
		spare = NULL;
		s->buf = xmalloc(s->cap + PAD);
		s->scratch_cap = s->cap + PAD;
		s->scratch = xmalloc(s->scratch_cap);
	}
	s->next_progress = PROGRESS_STEP;
	memset(s->buf, 0, PAD);
	s->range = range;
	enum step st0;
	if (range != NULL && range->start > 0) {
		/* a part of a file parsed in parallel: the input is at an event of the array */
		s->base = range->start;
		s->next_progress = range->start + PROGRESS_STEP;
		refill(s, 0);
		have_events = true;
		pos = 0;
		EVENTS_OR_LEAVE();
		if (range->top_is_object)
			goto members;
		goto trailing;
	}

	refill(s, 0);
	{
		const char *p = s->buf;
		if (s->len >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
		    (unsigned char)p[2] == 0xbf)
			p += 3;
		for (;;) {
			p = skip_ws(p);
			if (!at_end(s, p) || !refill(s, (size_t)(p - s->buf)))
				break;
			p = s->buf;
		}
		pos = (size_t)(p - s->buf);
	}
	if (at_end(s, s->buf + pos)) {
		if (s->input_cause != NULL) {
			*cause = s->input_cause;
			s->input_cause = NULL;
			res = SCAN_IO_ERROR;
		} else {
			*cause = xasprintf("%s: not a Chrome trace: the input is empty", input_path(in));
			res = SCAN_NOT_TRACE;
		}
		goto out;
	}
	if (s->buf[pos] == '[') {
		pos++;
		have_events = true;
		EVENTS_OR_LEAVE();
		goto trailing;
	}
	if (s->buf[pos] != '{') {
		uint64_t line, col;
		unsigned char c = (unsigned char)s->buf[pos];
		char what[16];
		if (c >= 0x20 && c < 0x7f)
			snprintf(what, sizeof what, "'%c'", c);
		else
			snprintf(what, sizeof what, "byte 0x%02x", c);
		locate(s, s->buf + pos, &line, &col);
		*cause = xasprintf("%s: not a Chrome trace: expected '{' or '[' at line %llu, column %llu "
		                   "(byte %llu), found %s",
		                   input_path(in), (unsigned long long)line, (unsigned long long)col,
		                   (unsigned long long)offset_of(s, s->buf + pos), what);
		res = SCAN_NOT_TRACE;
		goto out;
	}
	pos++;
	/* object members */
members:
	for (;;) {
		const char *p = skip_ws(s->buf + pos);
		struct scan_str key;
		char keybuf[256];
		uint32_t keylen;
		enum step st;

		if (at_end(s, p)) {
			if (!refill(s, (size_t)(p - s->buf))) {
				res = SCAN_TRUNCATED;
				pos = s->len;
				goto truncated;
			}
			pos = 0;
			continue;
		}
		if (*p == '}') {
			pos = (size_t)(p + 1 - s->buf);
			break;
		}
		if (*p == ',') {
			pos = (size_t)(p + 1 - s->buf);
			continue;
		}
		if (*p != '"') {
			uint64_t line, col;
			locate(s, p, &line, &col);
			*cause = xasprintf("%s: %s at line %llu, column %llu (byte %llu): expected a key",
			                   input_path(in), have_events ? "malformed JSON after the events" : "not a Chrome trace",
			                   (unsigned long long)line, (unsigned long long)col,
			                   (unsigned long long)offset_of(s, p));
			res = have_events ? SCAN_TRUNCATED : SCAN_NOT_TRACE;
			goto out_keep_cause;
		}
		/* key + colon must be in the window; refill keeping from the key */
		{
			const char *q = p + 1;
			s->scratch_used = 0;
			st = lex_string(s, &q, &key, true);
			if (st == ST_OK) {
				q = skip_ws(q);
				if (at_end(s, q))
					st = ST_NEED_MORE;
				else if (*q != ':')
					st = FAIL(s, q, "expected ':' after a key");
			}
			if (st == ST_NEED_MORE) {
				if (!refill(s, (size_t)(p - s->buf))) {
					res = SCAN_TRUNCATED;
					pos = s->len;
					goto truncated;
				}
				pos = 0;
				continue;
			}
			if (st == ST_ERROR) {
				uint64_t line, col;
				locate(s, s->err_at, &line, &col);
				*cause = xasprintf("%s: malformed JSON at line %llu, column %llu (byte %llu): %s",
				                   input_path(in), (unsigned long long)line, (unsigned long long)col,
				                   (unsigned long long)offset_of(s, s->err_at), s->err_msg);
				res = have_events ? SCAN_TRUNCATED : SCAN_NOT_TRACE;
				goto out_keep_cause;
			}
			keylen = key.len < sizeof keybuf - 1 ? key.len : (uint32_t)sizeof keybuf - 1;
			memcpy(keybuf, key.p, keylen);
			keybuf[keylen] = '\0';
			p = skip_ws(q + 1);
			pos = (size_t)(p - s->buf);
		}
		if (keylen == 11 && memcmp(keybuf, "traceEvents", 11) == 0) {
			/* need the '[' */
			for (;;) {
				p = skip_ws(s->buf + pos);
				if (!at_end(s, p))
					break;
				if (!refill(s, (size_t)(p - s->buf))) {
					res = SCAN_TRUNCATED;
					pos = s->len;
					goto truncated;
				}
				pos = 0;
			}
			if (*p == '[') {
				have_events = true;
				pos = (size_t)(p + 1 - s->buf);
				EVENTS_OR_LEAVE();
				continue;
			}
			/* traceEvents is not an array: treat as an ordinary key */
		}
		if (strlen(first_keys) < 150) {
			size_t fl = strlen(first_keys);
			snprintf(first_keys + fl, sizeof first_keys - fl, "%s\"%.40s\"", fl ? ", " : "", keybuf);
		}
		if (hint == NULL)
			hint = guess_format(keybuf, keylen);
		/* header value: stream through it, capturing up to SCAN_HEADER_MAX */
		{
			struct big_skip b;
			memset(&b, 0, sizeof b);
			b.capture = true;
			for (;;) {
				p = skip_ws(s->buf + pos);
				if (!at_end(s, p))
					break;
				if (!refill(s, (size_t)(p - s->buf))) {
					res = SCAN_TRUNCATED;
					pos = s->len;
					goto truncated;
				}
				pos = 0;
			}
			pos = (size_t)(p - s->buf);
			int r;
			while ((r = big_skip_step(s, &b, &pos)) <= 0) {
				if (r < 0) {
					free(b.cap);
					res = fatal_result(s, cause);
					goto out_keep_cause;
				}
				if (!refill(s, s->len)) {
					free(b.cap);
					res = SCAN_TRUNCATED;
					pos = s->len;
					goto truncated;
				}
				pos = 0;
			}
			if (sink->header != NULL)
				sink->header(sink->ctx, keybuf, keylen, b.capture ? b.cap : NULL, b.total);
			free(b.cap);
			elements_seen++;
		}
	}
trailing:
	/* after the top-level value: only whitespace may follow */
	for (;;) {
		const char *p = skip_ws(s->buf + pos);
		if (at_end(s, p)) {
			if (!refill(s, (size_t)(p - s->buf)))
				break;
			pos = 0;
			continue;
		}
		problem(s, SO_MALFORMED_EVENT, p, "unexpected data after the end of the trace (ignored)");
		break;
	}
	if (have_events && range != NULL && range->stop != 0) {
		/* the stop offset was never an element boundary of the events array */
		res = SCAN_MISSED_STOP;
		goto out;
	}
	if (!have_events) {
		*cause = xasprintf("%s: not a Chrome trace: no \"traceEvents\" (top-level key%s %s%s%s)",
		                   input_path(in), elements_seen == 1 ? "" : "s",
		                   first_keys[0] ? first_keys : "none", hint ? ", " : "", hint ? hint : "");
		res = SCAN_NOT_TRACE;
		goto out;
	}
	if (s->input_cause != NULL) {
		/* JSON complete but the compressed stream was damaged after it */
		*cause = s->input_cause;
		s->input_cause = NULL;
		res = SCAN_TRUNCATED;
	}
	goto out;

truncated:
	if (s->full && range != NULL) {
		/* an element outgrew a range scan's window */
		res = SCAN_MISSED_STOP;
		goto out;
	}
	if (s->cancelled) {
		/* no location: finding a line may read the file from its start (a later part) */
		*cause = xstrdup("cancelled");
		res = SCAN_TRUNCATED;
		goto out_keep_cause;
	}
	if (s->full) {
		uint64_t line, col;
		char lim[32];
		const char *at = s->buf + (pos < s->len ? pos : 0);
		size_text(lim, sizeof lim, s->lim.event_max);
		locate(s, at, &line, &col);
		*cause = xasprintf("%s: an element larger than %s (the limit on one element) at line %llu, column %llu "
		                   "(byte %llu): stopped reading there",
		                   input_path(in), lim, (unsigned long long)line, (unsigned long long)col,
		                   (unsigned long long)offset_of(s, at));
		if (s->stats->events == 0)
			res = SCAN_NOT_TRACE;
		goto out_keep_cause;
	}
	{
		uint64_t line, col, eline, ecol;
		const char *at = s->buf + (pos < s->len ? pos : s->len);
		const char *end = s->buf + s->len;
		locate(s, end, &eline, &ecol);
		locate(s, at, &line, &col);
		if (!have_events && s->events_in_array == 0) {
			res = SCAN_NOT_TRACE;
			*cause = xasprintf("%s: not a Chrome trace: input ends at byte %llu (line %llu, column %llu) "
			                   "before any \"traceEvents\"%s%s",
			                   input_path(in), (unsigned long long)offset_of(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   s->input_cause ? "; " : "", s->input_cause ? s->input_cause : "");
		} else if (at < end) {
			*cause = xasprintf("%s: truncated: input ends at byte %llu (line %llu, column %llu) inside the "
			                   "element that begins at byte %llu (line %llu, column %llu)%s%s",
			                   input_path(in), (unsigned long long)offset_of(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   (unsigned long long)offset_of(s, at), (unsigned long long)line,
			                   (unsigned long long)col, s->input_cause ? "; " : "",
			                   s->input_cause ? s->input_cause : "");
		} else {
			*cause = xasprintf("%s: truncated: input ends at byte %llu (line %llu, column %llu) before the "
			                   "JSON is closed%s%s",
			                   input_path(in), (unsigned long long)offset_of(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   s->input_cause ? "; " : "", s->input_cause ? s->input_cause : "");
		}
	}
out_keep_cause:
out:
	free(s->input_cause);
	if (range != NULL && range->keep_window) {
		if (spare == NULL)
			spare = xmalloc(sizeof *spare);
		spare->buf = s->buf;
		spare->scratch = s->scratch;
		spare->cap = s->cap;
		spare->scratch_cap = s->scratch_cap;
		if (pthread_setspecific(spare_key, spare) != 0)
			spare_free(spare);
	} else {
		free(s->buf);
		free(s->scratch);
	}
	return res;
}
