/* crop.c: the crop subcommand (see crop.h). The first scan matches what needs matching
 * (B/E pairs, flows, async ids, the last counter samples before the window) into a bit per
 * event, holding the texts that may be kept; when they outgrow the hold limit a second scan
 * copies the kept events' bytes. Either scan reads the whole input, or, where the trace's
 * map of event blocks (src/event_blocks.h) says which, only the blocks the window needs
 * (cmd/crop_blocks.h), each checked against the map, falling back to the whole input. */
#include "cmd/crop.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/crop_blocks.h"
#include "cmd/scan_file.h"
#include "parsers/scan_keys.h"
#include "cmd/trace_out.h"
#include "lib/escape.h"
#include "lib/test_knobs.h"
#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "parsers/load.h"
#include "parsers/load_part.h"
#include "parsers/seekindex.h"
#include "record/map64.h"
#include "src/analysis.h"
#include "src/event_blocks.h"

static void usage(FILE *f)
{
	fputs("Usage: ttrace crop [OPTIONS] IN -o OUT\n"
	      "Write the events of a window of the trace IN as a trace of its own: every header key and\n"
	      "metadata event, the slices that overlap the window (whole), B/E pairs closed, flows inside\n"
	      "it, the last counter and memory samples before it; each event's bytes as in IN. OUT is\n"
	      "plain JSON, gzip or zstd by its name (.json, .json.gz, .json.zst; - for standard output).\n"
	      "\n"
	      "  --from=T, --to=T   the window, as offsets from the trace's start (12ms, 1.5s, +250us)\n"
	      "  --step=N           the window of ProfilerStep#N, as the TensorBoard plugin stretches it\n"
	      "                     to the device (the kernels it launched are in it)\n"
	      "  -o, --output=OUT   the file to write\n"
	      "  -f, --force        replace OUT when it exists (never an input)\n"
	      "  -q, --quiet        say nothing on success\n"
	      "  -h, --help         show this help and exit\n"
	      "Exit status: 0 when OUT was written, 1 when not, 2 on a usage error.\n",
	      f);
}

/* ---- the crop ------------------------------------------------------------------------ */

struct be_stack {
	uint64_t *idx;
	int64_t *ts;
	char **text; /* held copies (NULL when not held) */
	uint32_t *len;
	uint32_t n, cap;
};

struct last {
	uint64_t idx;
	int64_t ts;
	char *text; /* its held copy, or NULL */
	uint32_t len;
};

/* What decides a held event at the end: nothing (kept), its flow's or its async id's KEY. */
enum held_kind { HK_KEEP, HK_FLOW, HK_ASYNC };

/* An event's text held for the one-pass crop. */
struct held {
	uint64_t idx, key;
	char *text;
	uint32_t len;
	enum held_kind kind;
};

/* Past this many bytes held, the texts are let go and the file is read a second time. */
#define CROP_HOLD_MAX ((size_t)256 << 20)

struct id_span {
	int64_t lo, hi;
};

struct header {
	char *key, *json;
	uint32_t klen;
	uint64_t len;
};

struct crop {
	const char *path;
	int64_t w0, w1; /* the window [w0, w1), ns */
	uint64_t i;     /* the event's index in the file */
	/* first pass */
	uint8_t *keep; /* a bit per event: kept by the matching */
	uint64_t keep_cap;
	struct map64 stacks; /* pid, tid -> struct be_stack: open B events */
	struct map64 lasts;  /* counter series, [memory] device -> struct last before the window */
	struct map64 flows;  /* cat, id -> 1: every event inside so far; 3: one outside */
	struct map64 asyncs; /* cat, id -> struct id_span */
	struct header *h;
	int nh;
	uint64_t events;
	/* one pass: the texts that may be kept, while they fit in CROP_HOLD_MAX */
	bool holding;
	size_t hold_max; /* CROP_HOLD_MAX, or the test knob's */
	struct held *held;
	size_t nheld, heldcap, held_bytes;
	struct crop_blocks *lo; /* reading the blocks the window needs: the flow ids inside go there */
	/* second pass */
	struct trace_out *out;
	uint64_t kept;
	bool failed;
};

static bool inside(const struct crop *c, int64_t t) { return t >= c->w0 && t < c->w1; }

static bool overlaps(const struct crop *c, int64_t a, int64_t b)
{
	return b > a ? a < c->w1 && b > c->w0 : inside(c, a);
}

static void mark(struct crop *c, uint64_t i)
{
	if (i / 8 >= c->keep_cap) {
		uint64_t cap = c->keep_cap ? c->keep_cap : 4096;
		while (i / 8 >= cap)
			cap *= 2;
		c->keep = xreallocarray(c->keep, cap, 1);
		memset(c->keep + c->keep_cap, 0, cap - c->keep_cap);
		c->keep_cap = cap;
	}
	c->keep[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool marked(const struct crop *c, uint64_t i) { return i / 8 < c->keep_cap && (c->keep[i / 8] >> (i % 8)) & 1; }

static bool is_flow(char ph) { return ph == 's' || ph == 't' || ph == 'f'; }
static bool is_async(char ph)
{
	return ph == 'b' || ph == 'e' || ph == 'n' || ph == 'S' || ph == 'T' || ph == 'p' || ph == 'F';
}

static uint64_t scoped_id(const struct scan_event *ev, uint64_t salt)
{
	return key_nonzero(key_mix(key_mix(salt, key_bytes(ev->cat.p, ev->cat.len)), ev->id));
}

/* Keeps, under KEY, event I at TS when it is the latest before the window so far. */
/* A copy of LEN bytes of TEXT counted against CROP_HOLD_MAX, or NULL when holding stops
 * (or stopped) there. */
static char *hold_copy(struct crop *c, const char *text, uint32_t len);

/* Holds TEXT (a copy of it, or COPY, already made: owned from now on) as event IDX. */
static void hold(struct crop *c, uint64_t idx, const char *text, uint32_t len, char *copy, enum held_kind kind,
                 uint64_t key)
{
	if (copy == NULL)
		copy = hold_copy(c, text, len);
	if (copy == NULL)
		return;
	if (c->nheld == c->heldcap)
		c->held = xreallocarray(c->held, c->heldcap = c->heldcap ? c->heldcap * 2 : 1024, sizeof *c->held);
	c->held[c->nheld++] = (struct held){ idx, key, copy, len, kind };
}

/* Lets every held text go: the file will be read again. */
static void stop_holding(struct crop *c)
{
	c->holding = false;
	for (size_t k = 0; k < c->nheld; k++)
		free(c->held[k].text);
	free(c->held);
	c->held = NULL;
	c->nheld = c->heldcap = 0;
	for (size_t k = 0; k < c->stacks.cap; k++) {
		struct be_stack *st = c->stacks.slot[k].val;
		for (uint32_t j = 0; st != NULL && j < st->n; j++) {
			free(st->text[j]);
			st->text[j] = NULL;
		}
	}
	for (size_t k = 0; k < c->lasts.cap; k++) {
		struct last *l = c->lasts.slot[k].val;
		if (l != NULL) {
			free(l->text);
			l->text = NULL;
		}
	}
}

/* Lets the held copy *P (LEN bytes) go, if any. */
static void unhold(struct crop *c, char **p, uint32_t len)
{
	if (*p != NULL) {
		free(*p);
		*p = NULL;
		c->held_bytes -= len;
	}
}

static char *hold_copy(struct crop *c, const char *text, uint32_t len)
{
	if (!c->holding)
		return NULL;
	if (c->held_bytes + len > c->hold_max) {
		stop_holding(c);
		return NULL;
	}
	c->held_bytes += len;
	char *p = xmalloc(len ? len : 1);
	memcpy(p, text, len);
	return p;
}

/* Notes ID as the id of a flow event inside the window (the blocks holding others of it
 * are read too). */

static void last_before(struct crop *c, uint64_t key, uint64_t i, int64_t ts, const struct scan_event *ev)
{
	if (ts >= c->w0)
		return;
	struct last *l = map64_get(&c->lasts, key);
	if (l == NULL) {
		l = xcalloc(1, sizeof *l);
		l->ts = INT64_MIN;
		map64_put(&c->lasts, key, l);
	}
	if (ts >= l->ts) {
		l->ts = ts;
		l->idx = i;
		unhold(c, &l->text, l->len); /* before the copy: holding may stop there, freeing every text */
		l->len = ev->text_len;
		l->text = hold_copy(c, ev->text, ev->text_len);
	}
}

static void match_event(void *ctx, const struct scan_event *ev)
{
	struct crop *c = ctx;
	uint64_t i = c->i++, series;
	if (ev->ph == 'M')
		hold(c, i, ev->text, ev->text_len, NULL, HK_KEEP, 0);
	if (!ev->has_ts || ev->ts_nonfinite)
		return;
	if (ev->ph == 'B' || ev->ph == 'E') {
		uint64_t key = key_nonzero(key_id(key_id(0x42, &ev->pid), &ev->tid));
		struct be_stack *s = map64_get(&c->stacks, key);
		if (ev->ph == 'B') {
			if (s == NULL) {
				s = xcalloc(1, sizeof *s);
				map64_put(&c->stacks, key, s);
			}
			if (s->n == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 16;
				s->idx = xreallocarray(s->idx, s->cap, sizeof *s->idx);
				s->ts = xreallocarray(s->ts, s->cap, sizeof *s->ts);
				s->text = xreallocarray(s->text, s->cap, sizeof *s->text);
				s->len = xreallocarray(s->len, s->cap, sizeof *s->len);
			}
			s->idx[s->n] = i;
			s->text[s->n] = hold_copy(c, ev->text, ev->text_len);
			s->len[s->n] = ev->text_len;
			s->ts[s->n++] = ev->ts;
		} else if (s != NULL && s->n > 0) {
			s->n--;
			if (overlaps(c, s->ts[s->n], ev->ts)) { /* the pair, both ends */
				mark(c, s->idx[s->n]);
				mark(c, i);
				if (s->text[s->n] != NULL) {
					char *b = s->text[s->n];
					s->text[s->n] = NULL; /* the held list owns it now */
					hold(c, s->idx[s->n], NULL, s->len[s->n], b, HK_KEEP, 0);
					hold(c, i, ev->text, ev->text_len, NULL, HK_KEEP, 0);
				}
			} else {
				unhold(c, &s->text[s->n], s->len[s->n]);
			}
		} else if (inside(c, ev->ts)) {
			mark(c, i); /* an E without its B */
			hold(c, i, ev->text, ev->text_len, NULL, HK_KEEP, 0);
		}
	} else if (key_series(ev, &series)) { /* a counter, a [memory] sample */
		last_before(c, series, i, ev->ts, ev);
		if (inside(c, ev->ts))
			hold(c, i, ev->text, ev->text_len, NULL, HK_KEEP, 0);
	} else if (is_flow(ev->ph) && ev->has_id) {
		uint64_t key = scoped_id(ev, 0x46);
		struct slot64 *s = map64_find(&c->flows, key);
		uintptr_t st = inside(c, ev->ts) ? 1 : 3;
		if (s == NULL)
			map64_put(&c->flows, key, (void *)st);
		else
			s->val = (void *)((uintptr_t)s->val | st);
		if (st == 1) { /* decided at the end: every event of the flow inside */
			hold(c, i, ev->text, ev->text_len, NULL, HK_FLOW, key);
			if (c->lo != NULL)
				crop_blocks_note_flow(c->lo, ev->id);
		}
	} else if (is_async(ev->ph) && ev->has_id) {
		uint64_t key = scoped_id(ev, 0x41);
		hold(c, i, ev->text, ev->text_len, NULL, HK_ASYNC, key); /* decided by the id's span at the end */
		struct id_span *sp = map64_get(&c->asyncs, key);
		if (sp == NULL) {
			sp = xmalloc(sizeof *sp);
			sp->lo = sp->hi = ev->ts;
			map64_put(&c->asyncs, key, sp);
		}
		if (ev->ts < sp->lo)
			sp->lo = ev->ts;
		if (ev->ts > sp->hi)
			sp->hi = ev->ts;
	} else if (ev->ph == 'X' ? overlaps(c, ev->ts, ev->has_dur && ev->dur > 0 ? ev->ts + ev->dur : ev->ts)
	                         : ev->ph != 'M' && !is_flow(ev->ph) && inside(c, ev->ts)) {
		hold(c, i, ev->text, ev->text_len, NULL, HK_KEEP, 0); /* as keeps() decides them */
	}
}

static void match_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct crop *c = ctx;
	c->h = xreallocarray(c->h, (size_t)c->nh + 1, sizeof *c->h);
	struct header *h = &c->h[c->nh++];
	h->key = xstrndup(key, keylen);
	h->klen = keylen;
	h->json = json != NULL ? xstrndup(json, (size_t)len) : NULL;
	h->len = len;
}

/* After the first pass: B events still open, and the last samples before the window. */
static void match_end(struct crop *c)
{
	for (size_t k = 0; k < c->stacks.cap; k++) {
		struct be_stack *s = c->stacks.slot[k].val;
		if (s == NULL)
			continue;
		for (uint32_t j = 0; j < s->n; j++) {
			if (s->ts[j] < c->w1) { /* open to the end of the trace */
				mark(c, s->idx[j]);
				char *b = s->text[j];
				s->text[j] = NULL;
				if (b != NULL)
					hold(c, s->idx[j], NULL, s->len[j], b, HK_KEEP, 0);
			} else {
				unhold(c, &s->text[j], s->len[j]);
			}
		}
		s->n = 0;
	}
	for (size_t k = 0; k < c->lasts.cap; k++) {
		struct last *l = c->lasts.slot[k].val;
		if (l != NULL) {
			mark(c, l->idx);
			char *b = l->text;
			l->text = NULL;
			if (b != NULL)
				hold(c, l->idx, NULL, l->len, b, HK_KEEP, 0);
		}
	}
}

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The one pass's end: the held texts that are kept, in file order. */
static void write_held(struct crop *c)
{
	qsort(c->held, c->nheld, sizeof *c->held, held_cmp);
	for (size_t k = 0; k < c->nheld; k++) {
		const struct held *h = &c->held[k];
		if (k > 0 && h->idx == c->held[k - 1].idx)
			continue; /* held twice (a last sample that is also kept otherwise): once */
		if (h->kind == HK_FLOW && (uintptr_t)map64_get(&c->flows, h->key) != 1)
			continue;
		if (h->kind == HK_ASYNC) {
			const struct id_span *sp = map64_get(&c->asyncs, h->key);
			if (sp == NULL || !overlaps(c, sp->lo, sp->hi))
				continue;
		}
		if (c->kept++ > 0)
			trace_out_write(c->out, ",\n", 2);
		trace_out_write(c->out, h->text, h->len);
	}
}

static bool keeps(struct crop *c, const struct scan_event *ev, uint64_t i)
{
	if (marked(c, i) || ev->ph == 'M')
		return true;
	if (!ev->has_ts || ev->ts_nonfinite || ev->ph == 'B' || ev->ph == 'E')
		return false;
	if (ev->ph == 'X')
		return overlaps(c, ev->ts, ev->has_dur && ev->dur > 0 ? ev->ts + ev->dur : ev->ts);
	if (is_flow(ev->ph)) {
		if (!ev->has_id)
			return false;
		return (uintptr_t)map64_get(&c->flows, scoped_id(ev, 0x46)) == 1;
	}
	if (is_async(ev->ph) && ev->has_id) {
		const struct id_span *sp = map64_get(&c->asyncs, scoped_id(ev, 0x41));
		return sp != NULL && overlaps(c, sp->lo, sp->hi);
	}
	return inside(c, ev->ts); /* instants, counters, the rest */
}

static void copy_event(void *ctx, const struct scan_event *ev)
{
	struct crop *c = ctx;
	uint64_t i = c->i++;
	if (!keeps(c, ev, i))
		return;
	if (c->kept++ > 0)
		trace_out_write(c->out, ",\n", 2);
	trace_out_write(c->out, ev->text, ev->text_len);
}

/* The blocks read for their flows only: each flow event outside the window marks its flow
 * as crossing the window's edge (as the matching does). Nothing of them is kept. */
static void flow_event(void *ctx, const struct scan_event *ev)
{
	struct crop *c = ctx;
	if (!ev->has_ts || ev->ts_nonfinite || !is_flow(ev->ph) || !ev->has_id)
		return;
	uint64_t key = scoped_id(ev, 0x46);
	struct slot64 *s = map64_find(&c->flows, key);
	uintptr_t st = inside(c, ev->ts) ? 1 : 3; /* 1 only where the map lied: the checks say so */
	if (s == NULL)
		map64_put(&c->flows, key, (void *)st);
	else
		s->val = (void *)((uintptr_t)s->val | st);
}

/* The first pass over the blocks of T's map that the window needs (src/event_blocks.h):
 * those with metadata, B/E or async events, events in the window, counter or memory samples
 * before it, the first and the last (the header keys); then those holding other events of
 * the flows inside the window. KNOB: TTRACE_TEST_CROP_READ. False (the caller then reads
 * the whole file) when T has no map to trust, the blocks are too much of the file, a read
 * fails or what is read is not what the map says. */
static bool locate(struct crop *c, const struct trace *t, struct crop_blocks *lo, int knob)
{
	if (knob == 1 || t == NULL || t->status != LOAD_OK || !t->regular || !seek_store_reads_any(t->args) ||
	    !event_blocks_ok(t, t->events))
		return false;
	lo->t = t;
	bool *need = xcalloc(t->nblocks, sizeof *need);
	uint32_t first = UINT32_MAX, last = 0;
	for (uint32_t k = 0; k < t->nblocks; k++)
		if (t->blocks[k].events > 0) {
			first = first == UINT32_MAX ? k : first;
			last = k;
		}
	for (uint32_t k = 0; k < t->nblocks; k++) {
		const struct event_block *b = &t->blocks[k];
		need[k] = b->events > 0 && (k == first || k == last || (b->flags & (EB_META | EB_BE | EB_ASYNC)) ||
		                            (b->lo < c->w1 && b->hi >= c->w0));
	}
	for (uint32_t i = 0; i < t->nseries; i++)
		map64_put(&lo->series, t->series[i].key, (void *)(uintptr_t)(i + 1));
	if (!crop_blocks_need_samples(lo, c->w0, need)) {
		free(need);
		return false;
	}
	crop_blocks_add(lo, need, 0);
	bool ok = knob == 2 || (double)lo->bytes <= BLOCKS_MAX_SHARE * (double)t->bytes;
	char *cause = NULL;
	if (ok) {
		struct scan_sink sink = { .ctx = c, .event = match_event, .header = match_header };
		c->lo = lo;
		ok = crop_blocks_scan(lo, 0, lo->n, &sink, &cause);
		c->lo = NULL;
		lo->n1 = lo->n;
	}
	if (ok && lo->nids > 0) { /* the blocks with other events of those flows */
		crop_blocks_sort_flows(lo);
		bool *more = xcalloc(t->nblocks, sizeof *more);
		for (uint32_t k = 0; k < t->nblocks; k++) {
			const struct event_block *b = &t->blocks[k];
			more[k] = !need[k] && b->events > 0 && (b->flags & EB_FLOW) &&
			          crop_blocks_has_flow_in(lo, b->flow_lo, b->flow_hi);
		}
		crop_blocks_add(lo, more, 0);
		free(more);
		struct scan_sink sink = { .ctx = c, .event = flow_event };
		ok = crop_blocks_scan(lo, lo->n1, lo->n, &sink, &cause);
	}
	free(cause);
	free(need);
	return ok;
}

static void ignore_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	(void)ctx, (void)key, (void)keylen, (void)json, (void)len;
}

static void free_crop(struct crop *c)
{
	stop_holding(c);
	for (size_t k = 0; k < c->stacks.cap; k++) {
		struct be_stack *s = c->stacks.slot[k].val;
		if (s != NULL) {
			free(s->idx);
			free(s->ts);
			free(s->text);
			free(s->len);
			free(s);
		}
	}
	for (size_t k = 0; k < c->lasts.cap; k++)
		free(c->lasts.slot[k].val);
	for (size_t k = 0; k < c->asyncs.cap; k++)
		free(c->asyncs.slot[k].val);
	free(c->stacks.slot);
	free(c->lasts.slot);
	free(c->flows.slot);
	free(c->asyncs.slot);
	for (int k = 0; k < c->nh; k++) {
		free(c->h[k].key);
		free(c->h[k].json);
	}
	free(c->h);
	free(c->keep);
}

/* The window [*W0, *W1) of T: ProfilerStep#STEP (STEP >= 0), else FROM and TO past its
 * start (HAVE_TO: TO given, else the trace's end). False with *CAUSE. */
static bool window_of(struct trace *t, int64_t step, int64_t from, int64_t to, bool have_to, int64_t *w0, int64_t *w1,
                      char **cause)
{
	if (step >= 0) {
		const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
		for (uint32_t k = 0; k < g->nsteps; k++)
			if (g->steps[k].number == step && g->from_steps) {
				*w0 = g->steps[k].start;
				*w1 = g->steps[k].end;
				return true;
			}
		for (uint32_t k = 0; k < t->nsteps; k++) /* one the plugin drops: its host span */
			if (t->steps[k].number == step && !t->steps[k].gpu) {
				*w0 = t->steps[k].ts;
				*w1 = t->steps[k].ts + t->steps[k].dur;
				return true;
			}
		char list[200] = "";
		size_t at = 0;
		for (uint32_t k = 0; k < t->nsteps && at + 24 < sizeof list; k++)
			if (!t->steps[k].gpu)
				at += (size_t)snprintf(list + at, sizeof list - at, "%s%lld", at ? " " : "",
				                       (long long)t->steps[k].number);
		*cause =
			at ? xasprintf("no ProfilerStep#%lld in %s (its steps: %s)", (long long)step, t->path, list)
			   : xasprintf("no ProfilerStep#%lld in %s: it has no profiler step", (long long)step, t->path);
		return false;
	}
	*w0 = t->start + from;
	*w1 = have_to ? t->start + to : t->end + 1;
	if (*w1 <= *w0) {
		*cause = xasprintf("the window is empty: --to must come after --from");
		return false;
	}
	return true;
}

/* One scan of PATH (the file DEV/INO) through SINK; false with *CAUSE. */
static bool scan_once(const char *path, bool first, uint64_t *dev, uint64_t *ino, const struct scan_sink *sink,
                      uint64_t *events, char **cause)
{
	char *cut = NULL;
	if (!scan_file(path, first ? SCAN_FILE_FIRST : SCAN_FILE_AGAIN, "crop", dev, ino, sink, events,
	               first ? &cut : NULL, cause))
		return false;
	if (cut != NULL)
		escape_say(stderr, "ttrace crop: warning: %s (the events before the cut are cropped)", cut);
	free(cut);
	return true;
}

/* crop_file, with T the trace of PATH as loaded (NULL: not loaded), whose map of where the
 * events lie, when it has one, spares reading the blocks the window does not need.
 * *READ: the bytes read, 0 when the whole file was. */
static int crop_run(const char *path, const struct trace *t, int64_t w0, int64_t w1, const char *outp, bool force,
                    uint64_t *kept, uint64_t *total, uint64_t *read, char **cause)
{
	struct test_knobs knobs = test_knobs();
	const struct crop init = { .path = path,
		                   .w0 = w0,
		                   .w1 = w1,
		                   .holding = true,
		                   .hold_max = knobs.crop_hold_set ? (size_t)knobs.crop_hold : CROP_HOLD_MAX };
	struct crop c = init;
	struct crop_blocks lo = { 0 };
	bool ok = true;
	*cause = NULL;
	*kept = *total = *read = 0;
	/* first pass: the matching, over the blocks the window needs or else the whole file */
	uint64_t dev = 0, ino = 0, events = 0, events2 = 0;
	bool located = locate(&c, t, &lo, knobs.crop_read);
	if (located) {
		dev = t->file_dev;
		ino = t->file_ino;
		events = t->events;
		*read = lo.bytes;
	} else {
		free_crop(&c);
		crop_blocks_free(&lo);
		c = init;
		struct scan_sink sink = { .ctx = &c, .event = match_event, .header = match_header };
		if (!scan_once(path, true, &dev, &ino, &sink, &events, cause)) {
			free_crop(&c);
			return -1;
		}
	}
	match_end(&c);
	struct out_avoid avoid = { dev, ino };
	c.out = trace_out_open(outp, force, &avoid, 1, cause);
	if (c.out == NULL) {
		free_crop(&c);
		crop_blocks_free(&lo);
		return -1;
	}
	/* the header keys as they were, then the events kept */
	trace_out_write(c.out, "{", 1);
	for (int k = 0; k < c.nh; k++) {
		if (c.h[k].klen == 10 && memcmp(c.h[k].key, "ttraceCrop", 10) == 0)
			continue;          /* a crop of a crop: the new window replaces it */
		if (c.h[k].json == NULL) { /* over SCAN_HEADER_MAX: not kept by the scanner */
			escape_say(stderr,
			           "ttrace crop: warning: header key '%s' (%llu bytes) is too large to copy: left out",
			           c.h[k].key, (unsigned long long)c.h[k].len);
			continue;
		}
		trace_out_json_string(c.out, c.h[k].key, c.h[k].klen);
		trace_out_write(c.out, ": ", 2);
		trace_out_write(c.out, c.h[k].json, c.h[k].len);
		trace_out_write(c.out, ",\n", 2);
	}
	/* where it came from: the window, in the file's time */
	char prov[160];
	int pn = snprintf(prov, sizeof prov,
	                  "\"ttraceCrop\": {\"from_ns\": %lld, \"to_ns\": %lld, \"source\": ", (long long)c.w0,
	                  (long long)c.w1);
	trace_out_write(c.out, prov, (size_t)pn);
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	trace_out_json_string(c.out, base, strlen(base));
	trace_out_write(c.out, "},\n", 3);
	trace_out_write(c.out, "\"traceEvents\": [\n", 17);
	if (c.holding) { /* what is kept was held: one pass was enough */
		write_held(&c);
		events2 = events;
	} else if (located) { /* second pass: the copy, of the same blocks */
		c.i = 0;
		struct scan_sink sink = { .ctx = &c, .event = copy_event, .header = ignore_header };
		if (crop_blocks_scan(&lo, 0, lo.n1, &sink, cause))
			events2 = events;
		else if (*cause == NULL)
			*cause = xasprintf("%s changed while it was read", path);
		ok = *cause == NULL;
		*read += lo.bytes;
	} else { /* second pass: the copy */
		c.i = 0;
		struct scan_sink sink = { .ctx = &c, .event = copy_event, .header = ignore_header };
		ok = scan_once(path, false, &dev, &ino, &sink, &events2, cause);
	}
	crop_blocks_free(&lo);
	if (ok && events2 != events) {
		*cause = xasprintf("%s changed while it was read (%llu events, then %llu)", path,
		                   (unsigned long long)events, (unsigned long long)events2);
		ok = false;
	}
	if (!ok) {
		trace_out_abort(c.out);
		free_crop(&c);
		return -1;
	}
	trace_out_write(c.out, "\n]}\n", 4);
	*kept = c.kept;
	*total = events;
	int r = trace_out_close(c.out, cause);
	free_crop(&c);
	return r;
}

int crop_file(const char *path, const struct trace *t, int64_t w0, int64_t w1, const char *outp, bool force,
              uint64_t *kept, uint64_t *total, char **cause)
{
	uint64_t read;
	return crop_run(path, t, w0, w1, outp, force, kept, total, &read, cause);
}

int crop_main(int argc, char **argv)
{
	enum { OPT_FROM = 256, OPT_TO, OPT_STEP };
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t from = 0, to = 0, step = -1;
	bool have_from = false, have_to = false, force = false, quiet = false;
	const char *outp = NULL;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:fqh", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_FROM:
		case OPT_TO: {
			int64_t v;
			const char *s = optarg[0] == '+' ? optarg + 1 : optarg;
			if (timefmt_parse_dur(s, &v) != 0 || v < 0) {
				escape_say(
					stderr,
					"ttrace crop: --%s wants a time from the start such as 12ms or 1.5s (got '%s')",
					ch == OPT_FROM ? "from" : "to", optarg);
				return 2;
			}
			*(ch == OPT_FROM ? &from : &to) = v;
			*(ch == OPT_FROM ? &have_from : &have_to) = true;
			break;
		}
		case OPT_STEP: {
			char *end;
			step = strtoll(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || step < 0) {
				escape_say(stderr,
				           "ttrace crop: --step wants a step number N of ProfilerStep#N (got '%s')",
				           optarg);
				return 2;
			}
			break;
		}
		case 'o': outp = optarg; break;
		case 'f': force = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || outp == NULL) {
		fputs(optind + 1 != argc ? "ttrace crop: give one input trace\n" : "ttrace crop: give -o OUT\n",
		      stderr);
		usage(stderr);
		return 2;
	}
	if (step >= 0 && (have_from || have_to)) {
		fputs("ttrace crop: --step or --from/--to, not both\n", stderr);
		return 2;
	}
	if (step < 0 && !have_from && !have_to) {
		fputs("ttrace crop: say which window: --from/--to or --step\n", stderr);
		return 2;
	}
	const char *path = argv[optind];
	if (strcmp(path, "-") == 0) {
		fputs("ttrace crop: crop reads its input twice: give a file, not standard input\n", stderr);
		return 2;
	}
	/* the window, from the trace's model (its cache when there is one) */
	struct load_options lo = { 0 };
	lo.quiet = true;
	struct trace *t = load_trace(path, &lo);
	if (t->status == LOAD_FAILED) {
		escape_say(stderr, "ttrace crop: %s", t->error != NULL ? t->error : "cannot load the input");
		trace_free(t);
		return 1;
	}
	int64_t w0, w1, origin = t->start;
	char *cause = NULL;
	bool ok = window_of(t, step, from, to, have_to, &w0, &w1, &cause);
	if (!ok) {
		trace_free(t);
		escape_say(stderr, "ttrace crop: %s", cause);
		free(cause);
		return 2;
	}
	uint64_t kept, total, read;
	int r = crop_run(path, t, w0, w1, outp, force, &kept, &total, &read, &cause);
	uint64_t bytes = t->bytes;
	trace_free(t);
	if (r != 0) {
		escape_say(stderr, "ttrace crop: %s", cause);
		free(cause);
		return 1;
	}
	if (!quiet) {
		char a[48], b[48], rb[32], tb[32], how[96] = "";
		if (read > 0) /* the blocks the window needs, found by the map */
			snprintf(how, sizeof how, " (read %s of %s)", timefmt_bytes((double)read, rb, sizeof rb),
			         timefmt_bytes((double)bytes, tb, sizeof tb));
		escape_say(stderr, "ttrace crop: %s: %llu of %llu events, +%s to +%s from the start%s", outp,
		           (unsigned long long)kept, (unsigned long long)total, timefmt_dur(w0 - origin, a, sizeof a),
		           timefmt_dur(w1 - origin, b, sizeof b), how);
	}
	return 0;
}
