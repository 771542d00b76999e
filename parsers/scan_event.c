/* scan_event.c: the Chrome trace scanner's event parser (scan_event.h): the keys every event
 * has (ph, name, cat, pid, tid, ts, dur, id, s, bp), its args through scan_args.c, and
 * how the scan finds the next event after a malformed one. */
#include "parsers/scan_event.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/zero.h"
#include "parsers/scan_args.h"
#include "parsers/scan_lex.h"

/* A pid or tid: a number, or a string (a number when it holds only decimal digits). */
static enum scan_step lex_id(struct scanner *s, const char **pp, struct scan_id *id)
{
	const char *p = *pp;
	enum scan_step st;
	bool nf;

	id->present = true;
	if (*p == '"') {
		struct scan_str str;
		p++;
		st = scan_lex_string(s, &p, &str, true);
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
				if (str.p[i] < '0' || str.p[i] > '9') {
					okd = false;
					break;
				}
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
	st = scan_lex_int(s, &p, &id->num, NULL, &nf);
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

/* A flow or async id: a number, a string holding one (strtoull, any base), else the
 * string's hash. */
static enum scan_step lex_flow_id(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp;
	enum scan_step st;
	bool nf;
	int64_t v;

	if (*p == '"') {
		struct scan_str str;
		p++;
		st = scan_lex_string(s, &p, &str, true);
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
	st = scan_lex_int(s, &p, &v, &ev->id, &nf);
	if (st != ST_OK)
		return st;
	ev->has_id = !nf;
	*pp = p;
	return ST_OK;
}

/* How far ahead of an event a mapped window is prefetched: a few events on. */
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 2048
#endif

enum scan_step scan_parse_event(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp;
	if (s->mapped) /* the file's pages, not a buffer a copy warmed (scan_window.c) */
		for (int q = 0; q < 6; q++)
			__builtin_prefetch(p + PREFETCH_AHEAD + 64 * q);
	enum scan_step st;
	struct scan_str k, v;

	zero_small(ev, offsetof(struct scan_event, counter_key)); /* ncounter says how many values */
	s->scratch_used = 0;
	ev->offset = scan_offset(s, p);
	p = skip_ws(p + 1);
	if (*p == '}') {
		*pp = p + 1;
		return ST_OK;
	}
	/* Kineto's layouts first (slices, flows, instants): their keys in their order, each
	 * matched with its colon and space in one compare and its value read as the loop below
	 * would: a branch that is always taken, where the loop's dispatch on each key
	 * mispredicts (bench/RESULTS.md, "Kineto's layout"). A key that is not the layout's
	 * next (another order, other spacing, a value of another type, a key the layout lacks)
	 * is left to the loop, which goes on from there: every key is still read in the file's
	 * order, so the event is the loop's. */
#define KEY_IS(lit) (memcmp(p, lit, sizeof lit - 1) == 0 && (p += sizeof lit - 1, true))
#define NEXT_KEY()                        \
	do {                              \
		if (st != ST_OK)          \
			return st;        \
		if (*p != ',')            \
			goto after_value; \
		p = skip_ws(p + 1);       \
	} while (0)
	if (KEY_IS("\"ph\": \"")) {
		st = scan_lex_string(s, &p, &v, true);
		if (st == ST_OK && v.len > 0)
			ev->ph = v.p[0];
		NEXT_KEY();
		if (KEY_IS("\"id\": ")) { /* flows: id, pid, tid, ts, cat, name, bp */
			st = lex_flow_id(s, &p, ev);
			NEXT_KEY();
		}
		if (KEY_IS("\"cat\": \"")) {
			st = scan_lex_string(s, &p, &ev->cat, true);
			NEXT_KEY();
		}
		if (KEY_IS("\"s\": \"")) { /* instants: their scope */
			st = scan_lex_string(s, &p, &v, true);
			if (st == ST_OK && v.len > 0)
				ev->scope = v.p[0];
			NEXT_KEY();
		}
		if (KEY_IS("\"name\": \"")) {
			st = scan_lex_string(s, &p, &ev->name, true);
			NEXT_KEY();
		}
		if (KEY_IS("\"pid\": ")) {
			st = lex_id(s, &p, &ev->pid);
			NEXT_KEY();
		}
		if (KEY_IS("\"tid\": ")) {
			st = lex_id(s, &p, &ev->tid);
			NEXT_KEY();
		}
		if (KEY_IS("\"ts\": ")) {
			st = scan_lex_time(s, &p, &ev->ts, &ev->has_ts);
			if (st == ST_OK && !ev->has_ts)
				ev->ts_nonfinite = true;
			NEXT_KEY();
		}
		if (KEY_IS("\"dur\": ")) {
			st = scan_lex_time(s, &p, &ev->dur, &ev->has_dur);
			NEXT_KEY();
		}
		if (KEY_IS("\"cat\": \"")) { /* a flow's, after its time */
			st = scan_lex_string(s, &p, &ev->cat, true);
			NEXT_KEY();
		}
		if (KEY_IS("\"name\": \"")) {
			st = scan_lex_string(s, &p, &ev->name, true);
			NEXT_KEY();
		}
		if (KEY_IS("\"bp\": \"")) {
			st = scan_lex_string(s, &p, &v, true);
			if (st == ST_OK && v.len > 0)
				ev->bp = v.p[0];
			NEXT_KEY();
		}
		if (*p == '"' && memcmp(p, "\"args\": {", 10) == 0) {
			p += 9;
			st = scan_parse_args(s, &p, ev);
			if (st != ST_OK)
				return st;
			goto after_value;
		}
	}
#undef KEY_IS
#undef NEXT_KEY
	for (;;) {
		if (*p != '"')
			return NEED_OR_FAIL(s, p, "expected '\"' to begin a key");
		p++;
		st = scan_lex_key(s, &p, &k);
		if (st != ST_OK)
			return st;
		p = skip_ws(p);
		if (*p != ':')
			return NEED_OR_FAIL(s, p, "expected ':' after a key");
		p = skip_ws(p + 1);
		st = ST_OK;
		switch (k.len) {
		case 1:
			if (k.p[0] == 's' && *p == '"') {
				p++;
				st = scan_lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->scope = v.p[0];
			} else {
				st = scan_skip_value(s, &p);
			}
			break;
		case 2:
			if (k.p[0] == 'p' && k.p[1] == 'h' && *p == '"') {
				p++;
				st = scan_lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->ph = v.p[0];
			} else if (k.p[0] == 't' && k.p[1] == 's') {
				st = scan_lex_time(s, &p, &ev->ts, &ev->has_ts);
				if (st == ST_OK && !ev->has_ts)
					ev->ts_nonfinite = true;
			} else if (k.p[0] == 'i' && k.p[1] == 'd') {
				st = lex_flow_id(s, &p, ev);
			} else if (k.p[0] == 'b' && k.p[1] == 'p' && *p == '"') {
				p++;
				st = scan_lex_string(s, &p, &v, true);
				if (st == ST_OK && v.len > 0)
					ev->bp = v.p[0];
			} else {
				st = scan_skip_value(s, &p);
			}
			break;
		case 3:
			if (k.p[0] == 'p' && k.p[1] == 'i' && k.p[2] == 'd') {
				st = lex_id(s, &p, &ev->pid);
			} else if (k.p[0] == 't' && k.p[1] == 'i' && k.p[2] == 'd') {
				st = lex_id(s, &p, &ev->tid);
			} else if (k.p[0] == 'd' && k.p[1] == 'u' && k.p[2] == 'r') {
				st = scan_lex_time(s, &p, &ev->dur, &ev->has_dur);
			} else if (k.p[0] == 'c' && k.p[1] == 'a' && k.p[2] == 't' && *p == '"') {
				p++;
				st = scan_lex_string(s, &p, &ev->cat, true);
			} else {
				st = scan_skip_value(s, &p);
			}
			break;
		case 4:
			if (memcmp(k.p, "name", 4) == 0 && *p == '"') {
				p++;
				st = scan_lex_string(s, &p, &ev->name, true);
			} else if (memcmp(k.p, "args", 4) == 0 && *p == '{') {
				st = scan_parse_args(s, &p, ev);
			} else {
				st = scan_skip_value(s, &p);
			}
			break;
		default: st = scan_skip_value(s, &p); break;
		}
		if (st != ST_OK)
			return st;
after_value:
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

const char *scan_resync(struct scanner *s, const char *from, const char **scan_point)
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
