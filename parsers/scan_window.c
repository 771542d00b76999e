/* scan_window.c: the Chrome trace scanner's window over its input: reading more, growing
 * within the limits, keeping a thread's window between range scans, and turning a place in
 * the window into a line and column for the problems it reports (scan_window.h). */
#include "parsers/scan_window.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/xalloc.h"

/* The window's first size (it grows for a bigger element): reads of this size cost no
 * more than bigger ones, and a compressed file's parse holds its window (and scratch) at
 * the peak of its load (bench/RESULTS.md "Compressed input: smaller buffers"). */
#define WINDOW_INITIAL ((size_t)1 << 18)
/* Progress is reported every this many bytes (the timeline's LOADING figure moves by it). */
#define PROGRESS_STEP (1u << 20)

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

/* Adds the newlines of the file in [FROM, TO) to *LINES, and sets *LAST_NL to the offset
 * just past the last of them when there is one. */
static void count_lines_between(struct input *in, uint64_t from, uint64_t to, uint64_t *lines, uint64_t *last_nl)
{
	const size_t chunk = 1u << 20;
	char *buf = xmalloc(chunk);
	uint64_t at = from;
	while (at < to) {
		size_t want = to - at < chunk ? (size_t)(to - at) : chunk;
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

/* Newlines in the file before OFFSET, and the offset just past the last of them. */
static void count_lines_before(struct input *in, uint64_t offset, uint64_t *lines, uint64_t *last_nl)
{
	*lines = 0;
	*last_nl = 0;
	count_lines_between(in, 0, offset, lines, last_nl);
}

void scan_locate(struct scanner *s, const char *at, uint64_t *line, uint64_t *col)
{
	size_t pos = (size_t)(at - s->buf);
	uint64_t nl_after;
	const char *q;

	if (s->lazy_lines) {
		/* a file read at offsets: the lines before the window counted now, from where
		 * the last location's count ended (from the start when the window went back) */
		if (s->base < s->lazy_to) {
			s->lazy_to = s->lazy_lines_to = s->lazy_last_nl = 0;
		}
		count_lines_between(s->in, s->lazy_to, s->base, &s->lazy_lines_to, &s->lazy_last_nl);
		s->lazy_to = s->base;
		if (pos > s->len)
			pos = s->len;
		*line = s->lazy_lines_to + count_newlines(s->buf, pos) + 1;
		nl_after = s->lazy_last_nl;
		q = memrchr(s->buf, '\n', pos);
		if (q != NULL)
			nl_after = s->base + (uint64_t)(q - s->buf) + 1;
		*col = s->base + pos - nl_after + 1;
		return;
	}
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

/* Discards buf[0..keep), reads more. Returns 1 if bytes were added, 0 if none can be. */
int scan_refill(struct scanner *s, size_t keep)
{
	size_t added = 0;

	if (keep > 0) {
		if (!s->lazy_lines) {
			const char *q = memrchr(s->buf, '\n', keep);
			s->lines_before += count_newlines(s->buf, keep);
			if (q != NULL)
				s->last_nl = s->base + (uint64_t)(q - s->buf) + 1;
		}
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
		memset(s->buf + s->len, 0, SCAN_PAD);
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
		s->buf = xrealloc(s->buf, ncap + SCAN_PAD);
		s->cap = ncap;
		free(s->scratch);
		s->scratch_cap = ncap + SCAN_PAD;
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
	memset(s->buf + s->len, 0, SCAN_PAD);
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
void scan_problem(struct scanner *s, enum scan_oddity kind, const char *at, const char *msg)
{
	uint64_t line, col, off = scan_offset(s, at);

	if (off < s->counted_to[kind])
		return;
	s->counted_to[kind] = off + 1;
	s->stats->count[kind]++;
	if (s->sink->problem == NULL || s->reported[kind] >= SCAN_PROBLEMS_REPORTED)
		return;
	s->reported[kind]++;
	scan_locate(s, at, &line, &col);
	s->sink->problem(s->sink->ctx, kind, scan_offset(s, at), line, col, msg);
}

void scan_window_open(struct scanner *s, struct input *in, const struct scan_sink *sink, const struct scan_range *range,
                      struct scan_stats *stats)
{
	memset(s, 0, sizeof *s);
	memset(stats, 0, sizeof *stats);
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
		s->spare = spare;
	} else {
		if (spare != NULL)
			spare_free(spare);
		s->buf = xmalloc(s->cap + SCAN_PAD);
		s->scratch_cap = s->cap + SCAN_PAD;
		s->scratch = xmalloc(s->scratch_cap);
	}
	memset(s->buf, 0, SCAN_PAD);
	s->range = range;
	/* a file that can be read again at offsets counts its lines only for a location */
	s->lazy_lines = input_is_seekable(in);
	if (range != NULL && range->start > 0)
		s->base = range->start; /* a part of a file: the input is at an event of the array */
	s->next_progress = s->base + PROGRESS_STEP;
}

void scan_window_close(struct scanner *s)
{
	free(s->input_cause);
	s->input_cause = NULL;
	if (s->range != NULL && s->range->keep_window) {
		struct spare_window *spare = s->spare != NULL ? s->spare : xmalloc(sizeof *spare);
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
	s->buf = s->scratch = NULL;
	s->spare = NULL;
}
