/* scan_window.h: the scanner's state and its window over the input, shared by the files of
 * the Chrome trace scanner (chrome_scan.c drives it; scan_lex.c, scan_event.c and
 * scan_args.c parse inside the window).
 *
 * Data model: a window `buf[0..len)` over the decompressed stream, starting at stream
 * offset `base`, always followed by SCAN_PAD NUL bytes (the sentinel). Parsing functions
 * work on plain pointers into the window and never look past the sentinel: when one
 * reaches it, it returns ST_NEED_MORE and the driver refills the window, keeping the bytes
 * from the start of the current event (or top-level value) onwards, and parses that element
 * again from its start. Events are small next to the window (a few MB), so the re-parse is
 * rare.
 *
 * Lines are counted only in bytes that leave the window, so a location's line and column
 * cost a count over at most one window, and only when there is a problem.
 *
 * The window's size is bounded (struct scan_limits): scan_refill sets `full` when it cannot
 * grow, and the element that needs more is then read past in a streaming skip or, in a
 * range scan, left to a scan in one piece. */
#ifndef TT_SCAN_WINDOW_H
#define TT_SCAN_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/chrome_scan.h"
#include "parsers/input.h"

/* NUL bytes after the window's data: the sentinel, and room for 16-byte loads past it. */
#define SCAN_PAD 64

/* What a parsing step ended with. */
enum scan_step {
	ST_OK,        /* parsed; the pointer is past it */
	ST_NEED_MORE, /* reached the sentinel: refill and parse the element again */
	ST_ERROR,     /* malformed: err_at and err_msg say where and what */
	ST_STOPPED,   /* a range scan reached its stop offset */
	ST_MISSED,    /* a range scan passed its stop offset without an element there */
	ST_FATAL,     /* nested too deep (err_at, err_msg): the scan stops */
};

struct spare_window;

struct scanner {
	struct input *in;
	const struct scan_sink *sink;
	struct scan_stats *stats;

	char *buf; /* the window, cap + SCAN_PAD bytes allocated */
	size_t cap, len;
	uint64_t base; /* stream offset of buf[0] */
	bool eof;      /* input has nothing more */
	bool full;     /* the last refill failed: the window is at its largest */
	struct scan_limits lim;
	bool wide_blocks;  /* skips read 64 bytes with AVX-512BW (parsers/scan_blocks.h) */
	char *input_cause; /* why input ended badly, or NULL */
	bool cancelled;    /* the sink's cancel flag ended the input */

	uint64_t lines_before; /* newlines in [start, base) */
	uint64_t last_nl;      /* stream offset just past the last newline before base, 0: none */
	const struct scan_range *range;
	bool pre_known; /* newlines before range->start counted (lazily, for locations) */
	uint64_t pre_lines, pre_last_nl;
	/* A plain regular file (input_is_seekable): lines_before and last_nl are not kept as the
	 * window moves; a location counts the file's newlines before the window by reading it
	 * again, from where the previous location's count ended: lazy_lines_to newlines in
	 * [0, lazy_to), the last of them ending at lazy_last_nl (0: none). One pass at most
	 * over what the scan read, and only when a problem is reported. */
	bool lazy_lines;
	uint64_t lazy_to, lazy_lines_to, lazy_last_nl;
	uint64_t next_progress;

	char *scratch; /* unescaped strings of the current event; never reallocated mid-event */
	size_t scratch_used, scratch_cap;

	/* error of the last ST_ERROR step */
	const char *err_at;
	const char *err_msg;

	unsigned reported[SO__COUNT];
	uint64_t counted_to[SO__COUNT]; /* 1 + the offset of the last problem counted, 0: none */
	uint64_t events_in_array;

	struct spare_window *spare; /* kept for the thread's next range scan (scan_window_close) */

	/* A plain regular file's window is mapped from the file, not read into a buffer
	 * (scan_window.c, "Mapped windows"): buf points into the mapping [map, map + map_len)
	 * of the descriptor map_fd, whose file had map_size bytes when the scan began. */
	bool mapped;
	int map_fd;
	uint64_t map_size;
	char *map;
	size_t map_len;
};

/* Sets S up for a scan of IN into SINK and STATS (RANGE may be NULL): clears S and STATS,
 * takes the limits of scan_set_limits and an empty window (this thread's spare one when
 * RANGE asks to keep it). The window is read by the first scan_refill. */
void scan_window_open(struct scanner *s, struct input *in, const struct scan_sink *sink, const struct scan_range *range,
                      struct scan_stats *stats);
/* Ends S's scan: frees its window, or keeps it for the thread's next scan when its range
 * asked to (freed at thread exit), and frees input_cause. */
void scan_window_close(struct scanner *s);

/* Says that the scan has reached stream offset AT (the sink's progress, every
 * PROGRESS_STEP bytes): for a mapped window, whose bytes are all there at once, as its
 * events are parsed. */
void scan_window_progress(struct scanner *s, uint64_t at);

/* True when the file under S's mapped window was cut while it was read (its bytes then read
 * as zeros): sets input_cause to say so, once. False for a window that is read. */
bool scan_window_cut(struct scanner *s);

/* Discards buf[0..keep) and reads more; reports progress to the sink about every MB.
 * Returns 1 if bytes were added, 0 if none can be (end of input, cancelled, or the window
 * is at its largest: `full`). */
int scan_refill(struct scanner *s, size_t keep);

/* The line and column (from 1, counted from the file's start) of AT in the window. */
void scan_locate(struct scanner *s, const char *at, uint64_t *line, uint64_t *col);

/* Counts a problem of KIND at AT and hands the first few to the sink with MSG. */
void scan_problem(struct scanner *s, enum scan_oddity kind, const char *at, const char *msg);

/* The stream offset of AT in the window. */
static inline uint64_t scan_offset(const struct scanner *s, const char *at)
{
	return s->base + (uint64_t)(at - s->buf);
}

/* Whether P is at (or past) the sentinel: the window's data ends there. */
static inline bool at_end(const struct scanner *s, const char *p) { return p >= s->buf + s->len; }

/* ST_ERROR at P with message M. */
#define FAIL(s, p, m) ((s)->err_at = (p), (s)->err_msg = (m), ST_ERROR)
/* ST_NEED_MORE when P is at the sentinel, else ST_ERROR at P with message M. */
#define NEED_OR_FAIL(s, p, m) (at_end((s), (p)) ? ST_NEED_MORE : FAIL((s), (p), (m)))

/* ST_FATAL: a value at AT nests deeper than the limit. */
static inline enum scan_step scan_too_deep(struct scanner *s, const char *at)
{
	s->err_at = at;
	s->err_msg = "values nested too deep";
	return ST_FATAL;
}

#endif
