/* chrome_scan.c: the driver of the streaming scanner for Chrome trace-event JSON: the
 * top-level value (an object of header keys around traceEvents, or a bare array), the
 * events array element by element, the window's refills, the streaming skip of elements too
 * big for the window, and the messages that say why a scan ended.
 *
 * The scanner is five files, one idea each: scan_window.c (the window over the input, and
 * locations), scan_lex.c (JSON strings, numbers and skipped values), scan_event.c (one
 * event), scan_args.c (the args kept: a table of keys) and this one. Nesting is counted
 * only where values are skipped (scan_lex.c's skips, big_skip_step here), the only places
 * a document can nest; ST_FATAL carries "too deep" up to the top level. */
#include "parsers/chrome_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/scan_args.h"
#include "parsers/scan_event.h"
#include "parsers/scan_lex.h"
#include "parsers/scan_window.h"

static enum scan_step skip_oversized(struct scanner *s, size_t *posp);

/* Scans the elements of an events array; *pp is just past '['. Returns ST_OK at the
 * closing ']' (consumed), ST_NEED_MORE when the input ends inside it (or, in a range
 * scan, an element outgrows the window), ST_FATAL with err_at/err_msg set when a value
 * nests too deep. */
static enum scan_step scan_events(struct scanner *s, size_t *posp)
{
	struct scan_event ev;
	size_t pos = *posp;

	for (;;) {
		const char *p = skip_ws(s->buf + pos);
		enum scan_step st;

		if (at_end(s, p)) {
			pos = (size_t)(p - s->buf);
			if (!scan_refill(s, pos)) {
				*posp = 0;
				/* a part of a stream (load_stream.c's chunks) ends just before the element
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
			uint64_t off = scan_offset(s, p);
			if (off >= s->range->stop) {
				*posp = (size_t)(p - s->buf);
				return off == s->range->stop ? ST_STOPPED : ST_MISSED;
			}
		}
		if (*p == '{') {
			st = scan_parse_event(s, &p, &ev);
		} else {
			st = scan_skip_value(s, &p);
			if (st == ST_OK) {
				scan_problem(s, SO_NOT_OBJECT, start,
				             "an element of traceEvents is not an object (skipped)");
				pos = (size_t)(p - s->buf);
				goto after;
			}
		}
		if (st == ST_NEED_MORE) {
			size_t keep = (size_t)(start - s->buf);
			if (!scan_refill(s, keep)) {
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
			scan_problem(s, SO_MALFORMED_EVENT, s->err_at, msg);
			/* resynchronise at the next event */
			const char *from = s->err_at > start ? s->err_at : start + 1;
			for (;;) {
				const char *scan_point = NULL;
				const char *r = scan_resync(s, from, &scan_point);
				if (r != NULL) {
					pos = (size_t)(r - s->buf);
					break;
				}
				size_t keep = (size_t)(scan_point - s->buf);
				if (!scan_refill(s, keep)) {
					*posp = s->len;
					return ST_NEED_MORE;
				}
				from = s->buf;
			}
			continue;
		}
		s->stats->events++;
		s->events_in_array++;
		ev.text = start;
		ev.text_len = (uint32_t)(p - start);
		s->sink->event(s->sink->ctx, &ev);
		if (s->mapped && scan_offset(s, p) >= s->next_progress)
			scan_window_progress(s, scan_offset(s, p)); /* a mapped file is not read as it goes */
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
			scan_problem(s, SO_MALFORMED_EVENT, p, "expected ',' or ']' after an event");
			pos = (size_t)(p - s->buf);
			/* resync from here */
			const char *scan_point = NULL;
			const char *r = scan_resync(s, p, &scan_point);
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
	unsigned depth; /* at most depth_max */
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
				scan_too_deep(s, p);
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
static enum scan_step skip_oversized(struct scanner *s, size_t *posp)
{
	struct big_skip b;
	char msg[160], lim[32];
	size_t pos = 0;
	int r;

	size_text(lim, sizeof lim, s->lim.event_max);
	snprintf(msg, sizeof msg, "malformed event skipped: larger than %s (the limit on one event)", lim);
	scan_problem(s, SO_MALFORMED_EVENT, s->buf, msg);
	memset(&b, 0, sizeof b);
	for (;;) {
		r = big_skip_step(s, &b, &pos);
		if (r > 0) {
			*posp = pos;
			return ST_OK;
		}
		if (r < 0)
			return ST_FATAL;
		if (!scan_refill(s, s->len)) {
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

	scan_locate(s, s->err_at, &line, &col);
	*cause = xasprintf("%s: %s (over %u levels) at line %llu, column %llu (byte %llu): stopped reading there",
	                   input_path(s->in), s->err_msg, s->lim.depth_max, (unsigned long long)line,
	                   (unsigned long long)col, (unsigned long long)scan_offset(s, s->err_at));
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

enum scan_result scan_run(struct input *in, const struct scan_sink *sink, struct scan_stats *stats, char **cause)
{
	return scan_run_range(in, sink, NULL, stats, cause);
}

/* Scans the events array at pos; leaves scan_run_range when it stopped, missed its stop
 * or the input ended inside it. */
#define EVENTS_OR_LEAVE()                                                          \
	do {                                                                       \
		st0 = scan_events(s, &pos);                                        \
		if (st0 == ST_STOPPED || st0 == ST_MISSED) {                       \
			res = st0 == ST_STOPPED ? SCAN_STOPPED : SCAN_MISSED_STOP; \
			goto out;                                                  \
		}                                                                  \
		if (st0 == ST_FATAL) {                                             \
			res = fatal_result(s, cause);                              \
			goto out_keep_cause;                                       \
		}                                                                  \
		if (st0 != ST_OK) {                                                \
			res = SCAN_TRUNCATED;                                      \
			goto truncated;                                            \
		}                                                                  \
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

	*cause = NULL;
	scan_args_prepare();
	scan_window_open(s, in, sink, range, stats);
	enum scan_step st0;
	if (range != NULL && range->start > 0) {
		/* a part of a file parsed in parallel: the input is at an event of the array */
		scan_refill(s, 0);
		have_events = true;
		pos = 0;
		EVENTS_OR_LEAVE();
		if (range->top_is_object)
			goto members;
		goto trailing;
	}

	scan_refill(s, 0);
	{
		const char *p = s->buf;
		if (s->len >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
		    (unsigned char)p[2] == 0xbf)
			p += 3;
		for (;;) {
			p = skip_ws(p);
			if (!at_end(s, p) || !scan_refill(s, (size_t)(p - s->buf)))
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
			s->stats->not_a_trace = true;
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
		scan_locate(s, s->buf + pos, &line, &col);
		*cause = xasprintf("%s: not a Chrome trace: expected '{' or '[' at line %llu, column %llu "
		                   "(byte %llu), found %s",
		                   input_path(in), (unsigned long long)line, (unsigned long long)col,
		                   (unsigned long long)scan_offset(s, s->buf + pos), what);
		res = SCAN_NOT_TRACE;
		s->stats->not_a_trace = true;
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
		enum scan_step st;

		if (at_end(s, p)) {
			if (!scan_refill(s, (size_t)(p - s->buf))) {
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
			scan_locate(s, p, &line, &col);
			*cause = xasprintf("%s: %s at line %llu, column %llu (byte %llu): expected a key",
			                   input_path(in),
			                   have_events ? "malformed JSON after the events" : "not a Chrome trace",
			                   (unsigned long long)line, (unsigned long long)col,
			                   (unsigned long long)scan_offset(s, p));
			res = have_events ? SCAN_TRUNCATED : SCAN_NOT_TRACE;
			s->stats->not_a_trace = !have_events;
			goto out_keep_cause;
		}
		/* key + colon must be in the window; refill keeping from the key */
		{
			const char *q = p + 1;
			s->scratch_used = 0;
			st = scan_lex_string(s, &q, &key, true);
			if (st == ST_OK) {
				q = skip_ws(q);
				if (at_end(s, q))
					st = ST_NEED_MORE;
				else if (*q != ':')
					st = FAIL(s, q, "expected ':' after a key");
			}
			if (st == ST_NEED_MORE) {
				if (!scan_refill(s, (size_t)(p - s->buf))) {
					res = SCAN_TRUNCATED;
					pos = s->len;
					goto truncated;
				}
				pos = 0;
				continue;
			}
			if (st == ST_ERROR) {
				uint64_t line, col;
				scan_locate(s, s->err_at, &line, &col);
				*cause = xasprintf("%s: malformed JSON at line %llu, column %llu (byte %llu): %s",
				                   input_path(in), (unsigned long long)line, (unsigned long long)col,
				                   (unsigned long long)scan_offset(s, s->err_at), s->err_msg);
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
				if (!scan_refill(s, (size_t)(p - s->buf))) {
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
				if (!scan_refill(s, (size_t)(p - s->buf))) {
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
				if (!scan_refill(s, s->len)) {
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
			if (!scan_refill(s, (size_t)(p - s->buf)))
				break;
			pos = 0;
			continue;
		}
		scan_problem(s, SO_MALFORMED_EVENT, p, "unexpected data after the end of the trace (ignored)");
		break;
	}
	if (have_events && range != NULL && range->stop != 0) {
		/* the stop offset was never an element boundary of the events array */
		res = SCAN_MISSED_STOP;
		goto out;
	}
	if (!have_events) {
		*cause = xasprintf("%s: not a Chrome trace: no \"traceEvents\" (top-level key%s %s%s%s)",
		                   input_path(in), elements_seen == 1 ? "" : "s", first_keys[0] ? first_keys : "none",
		                   hint ? ", " : "", hint ? hint : "");
		res = SCAN_NOT_TRACE;
		s->stats->not_a_trace = true;
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
		scan_locate(s, at, &line, &col);
		*cause = xasprintf("%s: an element larger than %s (the limit on one element) at line %llu, column %llu "
		                   "(byte %llu): stopped reading there",
		                   input_path(in), lim, (unsigned long long)line, (unsigned long long)col,
		                   (unsigned long long)scan_offset(s, at));
		if (s->stats->events == 0)
			res = SCAN_NOT_TRACE;
		goto out_keep_cause;
	}
	{
		uint64_t line, col, eline, ecol;
		const char *at = s->buf + (pos < s->len ? pos : s->len);
		const char *end = s->buf + s->len;
		scan_locate(s, end, &eline, &ecol);
		scan_locate(s, at, &line, &col);
		if (!have_events && s->events_in_array == 0) {
			res = SCAN_NOT_TRACE;
			s->stats->not_a_trace = true;
			*cause = xasprintf("%s: not a Chrome trace: input ends at byte %llu (line %llu, column %llu) "
			                   "before any \"traceEvents\"%s%s",
			                   input_path(in), (unsigned long long)scan_offset(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   s->input_cause ? "; " : "", s->input_cause ? s->input_cause : "");
		} else if (at < end) {
			*cause = xasprintf("%s: truncated: input ends at byte %llu (line %llu, column %llu) inside the "
			                   "element that begins at byte %llu (line %llu, column %llu)%s%s",
			                   input_path(in), (unsigned long long)scan_offset(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   (unsigned long long)scan_offset(s, at), (unsigned long long)line,
			                   (unsigned long long)col, s->input_cause ? "; " : "",
			                   s->input_cause ? s->input_cause : "");
		} else {
			*cause = xasprintf("%s: truncated: input ends at byte %llu (line %llu, column %llu) before the "
			                   "JSON is closed%s%s",
			                   input_path(in), (unsigned long long)scan_offset(s, end),
			                   (unsigned long long)eline, (unsigned long long)ecol,
			                   s->input_cause ? "; " : "", s->input_cause ? s->input_cause : "");
		}
	}
out_keep_cause:
out:
	if ((res == SCAN_OK || res == SCAN_STOPPED) && *cause == NULL && scan_window_cut(s)) {
		/* the mapped file was cut under a scan that then ended cleanly over zeros */
		*cause = s->input_cause;
		s->input_cause = NULL;
		res = SCAN_TRUNCATED;
	}
	scan_window_close(s);
	return res;
}
