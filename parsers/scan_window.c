/* scan_window.c: the Chrome trace scanner's window over its input: reading more, growing
 * within the limits, keeping a thread's window between range scans, and turning a place in
 * the window into a line and column for the problems it reports (scan_window.h). */
#include "parsers/scan_window.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/map_guard.h"
#include "parsers/scan_blocks.h"
#include "lib/test_knobs.h"
#include "lib/xalloc.h"

/* The window's first size (it grows for a bigger element): reads of this size cost no
 * more than bigger ones, and a compressed file's parse holds its window (and scratch) at
 * the peak of its load (bench/RESULTS.md "Compressed input: smaller buffers"). */
#define WINDOW_INITIAL ((size_t)1 << 18)
#define WINDOW_STREAM ((size_t)1 << 17)
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

/* Mapped windows. A small plain regular file (MAP_MAX bytes or less: the many ranks of a
 * distributed job) is not read into the window: the window is one mapping of all the
 * file's pages (read-only, populated at once), so the kernel's copy of every byte (about a
 * tenth of such a load's CPU) is not made, and the scanner prefetches ahead of itself what
 * the copy would have brought into the cache (bench/RESULTS.md, "Issue 33: a job's ranks
 * mapped, not read"). A bigger file is read: mapped in windows it took as long, and its
 * windows counted in the resident set at the scan's peak. Past the data: the page holding
 * the SCAN_PAD bytes after it is made writable (a private copy of that page; the file is
 * never written) and zeroed, on an anonymous page mapped under the window's end when the
 * file's last page has no room. The mapping is guarded (lib/map_guard.h): a file cut while
 * it is mapped reads as zeros from then on instead of killing ttrace with SIGBUS, and the
 * scan ends saying so (scan_window_cut). A file that cannot be mapped is read. */

#define MAP_MAX ((uint64_t)16 << 20)

static size_t page_size(void)
{
	static _Atomic size_t pg;
	size_t p = atomic_load_explicit(&pg, memory_order_relaxed);
	if (p == 0) {
		long v = sysconf(_SC_PAGESIZE);
		p = v > 0 ? (size_t)v : 4096;
		atomic_store_explicit(&pg, p, memory_order_relaxed);
	}
	return p;
}

static void unmap_window(char *map, size_t len)
{
	map_guard_remove(map);
	munmap(map, len);
}

/* Maps the file's bytes [OFF, OFF + N) with SCAN_PAD zero bytes after them into *MAP
 * (*LEN bytes, guarded). Returns where the bytes begin, or NULL. */
static char *map_window(const struct scanner *s, uint64_t off, size_t n, char **map, size_t *len)
{
	const size_t pg = page_size();
	const uint64_t from = off & ~(uint64_t)(pg - 1);
	const size_t lead = (size_t)(off - from);
	const size_t want = (lead + n + SCAN_PAD + pg - 1) & ~(pg - 1);
	const uint64_t file_end = (s->map_size + pg - 1) & ~(uint64_t)(pg - 1);
	const size_t of_file = file_end - from < want ? (size_t)(file_end - from) : want;
	char *m;

	if (of_file < want) {
		/* past the file's last page: anonymous zeros under the window's end */
		m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		if (of_file > 0 && mmap(m, of_file, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, s->map_fd,
		                        (off_t)from) == MAP_FAILED) {
			munmap(m, want);
			return NULL;
		}
	} else {
		m = mmap(NULL, want, PROT_READ, MAP_PRIVATE | MAP_POPULATE, s->map_fd, (off_t)from);
		if (m == MAP_FAILED)
			return NULL;
	}
	if (map_guard_add(m, want) != 0) {
		munmap(m, want);
		return NULL;
	}
	/* the sentinel: whatever follows the data there (the file's next bytes, or, past its end,
	 * zeros or what was written since the scan began) becomes SCAN_PAD zeros */
	char *end = m + lead + n;
	char *page = m + ((size_t)(end - m) & ~(pg - 1));
	size_t span = ((size_t)(end + SCAN_PAD - page) + pg - 1) & ~(pg - 1);
	if (mprotect(page, span, PROT_READ | PROT_WRITE) != 0) {
		unmap_window(m, want);
		return NULL;
	}
	memset(end, 0, SCAN_PAD);
	*map = m;
	*len = want;
	return m + lead;
}

bool scan_window_cut(struct scanner *s)
{
	if (!s->mapped || s->map == NULL || !map_guard_lost(s->map))
		return false;
	if (s->input_cause == NULL) {
		struct stat sb;
		unsigned long long now = fstat(s->map_fd, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
		s->input_cause =
			xasprintf("%s: the file was cut while it was read (%llu bytes when the read began, %llu "
		                  "now): what came after the cut is lost",
		                  input_path(s->in), (unsigned long long)s->map_size, now);
	}
	s->eof = true;
	return true;
}

/* The file could not be mapped: the scan reads it instead, from its start, through a
 * read window of the usual first size. */
static void map_fall_back(struct scanner *s)
{
	s->mapped = false;
	s->cap = WINDOW_INITIAL < s->lim.window_small ? WINDOW_INITIAL : s->lim.window_small;
	s->buf = xmalloc(s->cap + SCAN_PAD);
	memset(s->buf, 0, SCAN_PAD);
	s->len = 0;
}

void scan_window_progress(struct scanner *s, uint64_t at)
{
	if (s->sink->progress != NULL && at >= s->next_progress) {
		s->sink->progress(s->sink->ctx, at, at);
		s->next_progress = at + PROGRESS_STEP;
	}
}

/* The end of a mapped scan's input (or its cut): all of the window was read. */
static int map_end(struct scanner *s)
{
	s->eof = true;
	scan_window_progress(s, s->base + s->len);
	return 0;
}

/* scan_refill for a mapped window: the whole rest of the file, mapped at the first refill;
 * later ones only move its start past what the scan is done with. Returns -1 when the file
 * could not be mapped (map_fall_back done: the caller reads). */
static int map_refill(struct scanner *s, size_t keep)
{
	s->buf += keep;
	s->len -= keep;
	s->base += keep;
	s->full = false;
	if (scan_window_cut(s) || s->eof)
		return map_end(s);
	if (s->sink->cancel != NULL && atomic_load(s->sink->cancel)) {
		s->eof = true;
		s->cancelled = true;
		return 0;
	}
	size_t n = (size_t)(s->map_size - s->base);
	char *p = map_window(s, s->base, n, &s->map, &s->map_len);
	if (p == NULL) {
		map_fall_back(s);
		return -1;
	}
	s->buf = p;
	s->len = n;
	s->eof = true;
	s->stats->bytes = s->base + s->len; /* as a read window's: what the scan was given */
	scan_window_progress(s, s->base);   /* then as the events are parsed (chrome_scan.c) */
	return 1;
}

/* Discards buf[0..keep), reads more. Returns 1 if bytes were added, 0 if none can be. */
int scan_refill(struct scanner *s, size_t keep)
{
	if (s->mapped) {
		int r = map_refill(s, keep);
		if (r >= 0)
			return r;
		keep = 0; /* reading instead, from the start: nothing was kept */
	}

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
			/* Fill the window fully only when it has room for a big read; a decompressed
			 * stream always (what the ring holds at the moment must not decide how far a
			 * scan that stops early has read: a parse in parts reads whole windows) */
			if (s->cap - s->len < (64u << 10) && input_codec(s->in) == INPUT_PLAIN)
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

/* Whether S's scan of IN maps its window (mapped windows, above): a plain regular file of
 * MAP_MAX bytes or less, from the scan's start, with the default limits (tests that shrink the window read, so that
 * windows still move in small fixtures), unless TTRACE_TEST_NO_MAP. */
static bool map_wanted(struct scanner *s, struct input *in)
{
	uint64_t size;
	int fd;
	if (s->lim.window_small != SCAN_WINDOW_SMALL || s->lim.event_max != SCAN_EVENT_MAX ||
	    (s->range != NULL && s->range->keep_window))
		return false;
	if ((fd = input_map_source(in, &size)) < 0 || input_data_offset(in) != s->base || size <= s->base ||
	    size - s->base > MAP_MAX || test_knobs().no_map)
		return false;
	s->mapped = true;
	s->map_fd = fd;
	s->map_size = size;
	return true;
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
#if SCAN_BLOCKS_AVX512
	s->wide_blocks = scan_wide_blocks() && !test_knobs().narrow_blocks;
#endif
	s->cap = WINDOW_INITIAL < s->lim.window_small ? WINDOW_INITIAL : s->lim.window_small;
	/* a stream (compressed, or a part of one in memory) is copied from memory that holds
	 * the bytes ahead: a smaller first window reads it as fast, and is less beside the
	 * decoder's ring at the peak; a plain file is read() in the bigger one */
	if (!input_is_seekable(in) && s->cap > WINDOW_STREAM)
		s->cap = WINDOW_STREAM;
	s->range = range;
	if (range != NULL && range->start > 0)
		s->base = range->start; /* a part of a file: the input is at an event of the array */
	s->next_progress = s->base + PROGRESS_STEP;
	if (map_wanted(s, in)) {
		static char no_window[SCAN_PAD]; /* zeros: the window before its first mapping */
		s->buf = no_window;
		s->cap = (size_t)(s->map_size - s->base); /* one window: the whole file */
		s->scratch_cap = s->cap + SCAN_PAD;
		s->scratch = xmalloc(s->scratch_cap);
		s->lazy_lines = true;
		return;
	}
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
	/* a file that can be read again at offsets counts its lines only for a location */
	s->lazy_lines = input_is_seekable(in);
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
	} else if (s->mapped) {
		if (s->map != NULL)
			unmap_window(s->map, s->map_len);
		s->map = NULL;
		free(s->scratch);
	} else {
		free(s->buf);
		free(s->scratch);
	}
	s->buf = s->scratch = NULL;
	s->spare = NULL;
}
