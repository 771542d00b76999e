/* load_part.c: one part of a file's parse (load_part.h): the sink that relays the
 * scanner's events to the Chrome rules, and on the way serves snapshots, keeps args aside,
 * counts progress and keeps problems; and where a big plain file is cut into parts. */
#include "parsers/load_part.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/stage_clock.h"
#include "lib/xalloc.h"
#include "parsers/chrome_build.h"
#include "parsers/load_snapshots.h"
#include "parsers/scan_keys.h"
#include "src/event_blocks.h"

/* Each part after the first begins at a "}, {" found in this many bytes of its place. */
#define SPLIT_WINDOW (1u << 20)

/* The scanner has one sink context: this forwards events and header keys to the
 * Chrome rules and keeps progress and problems for the part. */
struct relay {
	struct scan_sink rules;
	struct part *part;
};

void load_block_facts(const struct scan_event *ev, uint32_t *flags, bool *timed, int64_t *end, uint64_t *series)
{
	char ph = ev->ph;
	*timed = ev->has_ts && !ev->ts_nonfinite;
	*flags = 0;
	*end = ev->ts;
	*series = 0;
	if (ph == 'M')
		*flags = EB_META;
	else if (ph == 'B' || ph == 'E')
		*flags = EB_BE;
	else if (ev->has_id &&
	         (ph == 'b' || ph == 'e' || ph == 'n' || ph == 'S' || ph == 'T' || ph == 'p' || ph == 'F'))
		*flags = EB_ASYNC;
	else if (*timed && ev->has_id && (ph == 's' || ph == 't' || ph == 'f'))
		*flags = EB_FLOW;
	else if (*timed && key_series(ev, series))
		*flags = EB_CM;
	if (*timed && ph == 'X' && ev->has_dur && ev->dur > 0)
		*end = ev->ts > INT64_MAX - ev->dur ? INT64_MAX : ev->ts + ev->dur;
}

static void relay_event(void *ctx, const struct scan_event *ev)
{
	struct relay *r = ctx;
	struct snap *sn = r->part->job->snap;
	if (sn != NULL) {
		unsigned want = atomic_load_explicit(&sn->want, memory_order_relaxed);
		if (want != r->part->served)
			snap_serve(r->part, sn, want, ev->offset);
	}
	if (r->part->job->slow_us > 0 && (++r->part->events & 1023) == 0)
		for (unsigned us = 0; us < r->part->job->slow_us && !load_job_cancelled(r->part->job); us += 10000)
			usleep(10000); /* a load given up ends at once, even slowed */
	/* only slices (X, and B whose args the slice keeps) show args */
	if (r->part->side != NULL && ev->args_len > 2 && ev->args_len < 0xffffff && (ev->ph == 'X' || ev->ph == 'B'))
		args_side_add(r->part->side, ev->args_offset, ev->args_text, ev->args_len);
	uint32_t flags;
	bool timed;
	int64_t end;
	uint64_t series;
	load_block_facts(ev, &flags, &timed, &end, &series);
	event_block_note(r->part->t, ev->offset, flags, timed, ev->ts, end, ev->id, series);
	r->rules.event(r->rules.ctx, ev);
}

static void relay_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct relay *r = ctx;
	r->rules.header(r->rules.ctx, key, keylen, json, len);
}

static void relay_progress(void *ctx, uint64_t data_bytes, uint64_t file_bytes)
{
	struct relay *r = ctx;
	struct part *p = r->part;
	load_job_progress_to(p->job, &p->last_data, &p->last_file, data_bytes, file_bytes);
}

static void relay_problem(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col,
                          const char *message)
{
	struct relay *r = ctx;
	/* grouped by kind: parts merged keep the first few of each, as one scan reports them */
	trace_warn_group(r->part->t, (uint8_t)(1 + kind), SCAN_PROBLEMS_REPORTED, "%s:%llu:%llu: byte %llu: %s",
	                 r->part->job->path, (unsigned long long)line, (unsigned long long)col,
	                 (unsigned long long)offset, message);
}

void load_part_scan(struct part *p)
{
	struct chrome_build cb;
	struct relay relay;
	struct scan_sink sink;

	chrome_build_init(&cb, p->b);
	chrome_build_sink(&cb, &relay.rules);
	relay.part = p;
	memset(&sink, 0, sizeof sink);
	sink.ctx = &relay;
	sink.event = relay_event;
	sink.header = relay_header;
	sink.progress = relay_progress;
	sink.problem = relay_problem;
	sink.cancel = p->job->cancel;
	p->res = scan_run_range(p->in, &sink, p->ranged ? &p->range : NULL, &p->stats, &p->cause);
	snap_close(p->job->snap);
	relay_progress(&relay, p->stats.bytes, input_file_offset(p->in));
	stage_clock("scan (this thread's part)");
}

void *load_part_main(void *arg)
{
	load_part_scan(arg);
	return NULL;
}

int load_part_splits(struct input *in, uint64_t size, int parts, uint64_t *splits, bool *top_is_object)
{
	char *buf = xmalloc(SPLIT_WINDOW + 1);
	int n = 0;
	ssize_t got = input_pread(in, buf, 4096, 0);
	size_t i = 0;

	if (got >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb && (unsigned char)buf[2] == 0xbf)
		i = 3;
	while (got > 0 && i < (size_t)got && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (got <= 0 || i >= (size_t)got || (buf[i] != '{' && buf[i] != '[')) {
		free(buf);
		return 0;
	}
	*top_is_object = buf[i] == '{';
	for (int k = 1; k < parts; k++) {
		uint64_t target = size / (uint64_t)parts * (uint64_t)k;
		got = input_pread(in, buf, SPLIT_WINDOW, target);
		if (got <= 0)
			break;
		for (size_t j = 0; j < (size_t)got; j++) {
			if (buf[j] != '}')
				continue;
			size_t q = j + 1;
			while (q < (size_t)got && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
				q++;
			if (q >= (size_t)got || buf[q] != ',')
				continue;
			q++;
			while (q < (size_t)got && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
				q++;
			if (q < (size_t)got && buf[q] == '{') {
				uint64_t at = target + q;
				if (n == 0 || at > splits[n - 1])
					splits[n++] = at;
				break;
			}
		}
	}
	free(buf);
	return n;
}

void load_parts_free(struct part *parts, int nsplit)
{
	for (int k = 0; k <= nsplit; k++) {
		if (k > 0) {
			input_close(parts[k].in);
			trace_free(parts[k].t);
		}
		builder_abort(parts[k].b);
		free(parts[k].cause);
	}
	args_side_free(parts[0].side);
}
