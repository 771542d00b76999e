/* report.c: the non-interactive reports (--report=summary|gaps|distributed [--json],
 * --check). Every list in them is a table view defined once (ui/op_table.h,
 * ui/track_table.h, ui/step_table.h, ui/gpu_table.h, ui/gap_list.h, ui/dist_view.h) and
 * written by ui/table.h as text or as JSON; this file adds the sentences around them.
 * Every string taken from a trace goes through lib/escape.h. */
#include "config.h"
#include "ui/reports.h"
#include "ui/report.h"
#include "ui/comm_stats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "src/analysis.h"
#include "src/data_limits.h"
#include "src/gaps.h"
#include "src/ranks.h"
#include "src/index.h"
#include "src/kernels.h"
#include "src/ops.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/dist_view.h"
#include "lib/escape.h"
#include "ui/gap_list.h"
#include "ui/gpu_table.h"
#include "ui/jsonw.h"
#include "ui/names.h"
#include "ui/op_table.h"
#include "ui/step_table.h"
#include "ui/table.h"
#include "ui/track_table.h"

static int width = REPORT_WIDTH_DEFAULT;

int report_width(void) { return width; }

void report_width_init(int given)
{
	int w = given;
	const char *cols = getenv("COLUMNS");
	char *end;
	if (w < 0 && cols != NULL && *cols != '\0') {
		long v = strtol(cols, &end, 10);
		if (*end == '\0' && v > 0 && v <= 100000)
			w = (int)v;
	}
	struct winsize ws;
	if (w < 0 && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	if (w < 0)
		w = REPORT_WIDTH_DEFAULT;
	width = w < REPORT_WIDTH_MIN ? REPORT_WIDTH_MIN : w > REPORT_WIDTH_MAX ? REPORT_WIDTH_MAX : w;
}

/* Text reports fit this many columns: longer names are elided in the middle (whole in JSON). */
#define TOP_N 20
#define NAME_COLS 100

static void put_name(FILE *f, const struct trace *t, uint32_t id, size_t max)
{
	char buf[4 * NAME_COLS + 64];
	const char *s = trace_str(t, id);
	uint32_t n = strtab_len(&t->strings, id);
	if (max > NAME_COLS)
		max = NAME_COLS;
	escape_term_buf(s, n, buf, max + 1);
	fputs(buf, f);
	if (strlen(buf) < n && strlen(buf) >= max)
		fputs("...", f);
}

/* Writes TB, one of the summary's tables, and frees it: as JSON under KEY when W is given,
 * else as text under the heading TITLE, or NONE in its place when it is EMPTY. */
static void summary_table(FILE *f, struct jsonw *w, struct table *tb, const char *key, const char *title,
                          const char *none, bool empty)
{
	if (w != NULL) {
		jsonw_key(w, key);
		table_write_json(w, tb, NULL, 0, TABLE_ALL);
	} else {
		fprintf(f, "\n   %s\n", title);
		if (empty)
			fprintf(f, "   %s\n", none);
		else
			table_write_text(f, tb, NULL, 0, TABLE_ALL, REPORT_WIDTH, "   ");
	}
	table_free(tb);
}

/* The tables of one trace's summary, the same in text (to F) and in JSON (to W when given):
 * the steps (JSON only: the text counts them in its header), the tracks, the top
 * operators and the top kernels. */
static void summary_tables(FILE *f, struct jsonw *w, const struct trace *t)
{
	struct table tb;
	char title[128];

	if (w != NULL) {
		step_table_init(&tb, t);
		summary_table(f, w, &tb, "steps", NULL, NULL, false);
	}
	track_table_init(&tb, t);
	summary_table(f, w, &tb, "tracks",
	              "Tracks (busy = union of the track's slices; GPU streams: kernels, memcpys, memsets)", NULL,
	              false);

	struct op_report ops;
	ops_thread_self(t, &ops);
	op_table_init(&tb, t, ops.rows, ops.n < TOP_N ? ops.n : TOP_N);
	snprintf(title, sizeof title,
	         "Top %d operators by self CPU time (self = duration minus direct children on the thread)", TOP_N);
	summary_table(f, w, &tb, "top_operators", title, "(no operators)", ops.n == 0);
	ops_free(&ops);

	struct kernel_report ks;
	kernels_times(t, &ks);
	kernel_table_init(&tb, t, ks.rows, ks.n < TOP_N ? ks.n : TOP_N);
	snprintf(title, sizeof title, "Top %d kernels by total GPU time (sum of durations)", TOP_N);
	summary_table(f, w, &tb, "top_kernels", title, "(no kernels)", ks.n == 0);
	kernels_free(&ks);
}

static void summary_text(FILE *f, const struct trace *t)
{
	char a[64], b[64], c[64];

	fprintf(f, "== ");
	escape_term(f, trace_name(t), strlen(trace_name(t)));
	fprintf(f, " (%s, %s of JSON, %" PRIu64 " events, loaded %sin %.2f s)\n", t->codec,
	        timefmt_bytes((double)t->bytes, a, sizeof a), t->events,
	        t->cache == TRACE_CACHE_READ ? "from its cache " : "", t->load_seconds);
	if (t->status == LOAD_TRUNCATED) {
		fprintf(f, "   TRUNCATED: ");
		escape_term(f, t->error, strlen(t->error));
		fputc('\n', f);
	}
	struct data_limits dl;
	data_limits_trace(t, -1, NULL, &dl);
	report_limits(f, NULL, &dl);
	if (t->rank >= 0) {
		if (t->world_size > 0)
			fprintf(f, "   rank %d of %d", t->rank, t->world_size);
		else
			fprintf(f, "   rank %d (world size not given)", t->rank);
		if (t->backend) {
			fputs(" (", f);
			escape_term(f, trace_str(t, t->backend), strtab_len(&t->strings, t->backend));
			fputc(')', f);
		}
		fputc('\n', f);
	} else
		fprintf(f, "   rank: unknown (no distributedInfo)\n");
	if (t->has_base)
		fprintf(f, "   time base: baseTimeNanoseconds %" PRId64 " (file times below are ns after it)\n",
		        t->base_ns);
	{
		/* absolute times that look like the Unix epoch (2001 to 2096) are shown as UTC */
		int64_t abs_start = tt_add(t->has_base ? t->base_ns : 0, t->start);
		char when[64] = "";
		if (model_time_is_epoch(abs_start)) {
			time_t secs = (time_t)(abs_start / 1000000000);
			struct tm tm;
			if (gmtime_r(&secs, &tm) != NULL) {
				char day[32];
				strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm);
				snprintf(when, sizeof when, ", starting %s.%06lld UTC", day,
				         (long long)(abs_start % 1000000000 / 1000));
			}
		}
		fprintf(f, "   span: %s%s (file time %s to %s)\n", timefmt_dur(t->end - t->start, a, sizeof a), when,
		        timefmt_offset(t->start, b, sizeof b), timefmt_offset(t->end, c, sizeof c));
	}
	{
		uint32_t ncpu = 0;
		for (uint32_t i = 0; i < t->nsteps; i++)
			ncpu += !t->steps[i].gpu;
		if (ncpu > 0)
			fprintf(f, "   steps: %u (ProfilerStep#%" PRId64 "..#%" PRId64 ")\n", ncpu, t->steps[0].number,
			        t->steps[ncpu - 1].number);
		else
			fprintf(f, "   steps: none (no ProfilerStep#N)\n");
	}
	fprintf(f,
	        "   events: %" PRIu64 " X, %" PRIu64 " B/E, %" PRIu64 " instants, %" PRIu64 " counters, %" PRIu64
	        " flow, %" PRIu64 " metadata, %" PRIu64 " async\n",
	        t->count_by_ph['X'], t->count_by_ph['B'] + t->count_by_ph['E'],
	        t->count_by_ph['i'] + t->count_by_ph['I'], t->count_by_ph['C'],
	        t->count_by_ph['s'] + t->count_by_ph['t'] + t->count_by_ph['f'], t->count_by_ph['M'], t->async_events);

	summary_tables(f, NULL, t);

	struct set_aside sa;
	trace_set_aside(t, &sa);
	if (sa.ranges > 0 || sa.overhead > 0) {
		fprintf(f, "\n   Set aside from every GPU figure (not GPU work)\n");
		if (sa.ranges > 0)
			fprintf(f,
			        "   %10" PRIu64
			        "  %-28s %s in all: CUPTI range-profiler ranges (cuda_profiler_range), not kernels\n",
			        sa.ranges, "profiler_ranges", timefmt_dur(sa.ranges_ns, a, sizeof a));
		if (sa.overhead > 0)
			fprintf(f, "   %10" PRIu64 "  %-28s %s in all: CUPTI overhead spans (category overhead)\n",
			        sa.overhead, "cupti_overhead", timefmt_dur(sa.overhead_ns, a, sizeof a));
	}

	fprintf(f, "\n   Data quality\n");
	bool any = false;
	for (int q = 0; q < Q__COUNT; q++) {
		if (t->quality.count[q] == 0)
			continue;
		any = true;
		fprintf(f, "   %10" PRIu64 "  %-28s %s\n", t->quality.count[q], quality_key(q), quality_text(q));
	}
	if (!any)
		fprintf(f, "   nothing odd found\n");
	fputc('\n', f);
}

static void summary_json(struct jsonw *w, const struct trace *t)
{
	char buf[128];
	jsonw_object(w);
	jsonw_key(w, "path");
	jsonw_str(w, t->path);
	struct data_limits dl;
	data_limits_trace(t, -1, NULL, &dl);
	report_limits(NULL, w, &dl);
	jsonw_key(w, "status");
	jsonw_str(w, t->status == LOAD_OK ? "ok" : t->status == LOAD_TRUNCATED ? "truncated" : "failed");
	jsonw_key(w, "error");
	if (t->error)
		jsonw_str(w, t->error);
	else
		jsonw_null(w);
	jsonw_key(w, "codec");
	jsonw_str(w, t->codec);
	jsonw_key(w, "json_bytes");
	jsonw_uint(w, t->bytes);
	jsonw_key(w, "file_bytes");
	jsonw_uint(w, t->file_bytes);
	jsonw_key(w, "events");
	jsonw_uint(w, t->events);
	jsonw_key(w, "events_by_phase");
	jsonw_object(w);
	for (int c = 0; c < 128; c++) {
		if (t->count_by_ph[c] == 0)
			continue;
		if (c > 0x20 && c < 0x7f)
			snprintf(buf, sizeof buf, "%c", c);
		else
			snprintf(buf, sizeof buf, "0x%02x", c);
		jsonw_key(w, buf);
		jsonw_uint(w, t->count_by_ph[c]);
	}
	jsonw_end_object(w);
	jsonw_key(w, "rank");
	if (t->rank >= 0)
		jsonw_int(w, t->rank);
	else
		jsonw_null(w);
	jsonw_key(w, "world_size");
	if (t->world_size >= 0)
		jsonw_int(w, t->world_size);
	else
		jsonw_null(w);
	jsonw_key(w, "base_time_ns");
	if (t->has_base)
		jsonw_int(w, t->base_ns);
	else
		jsonw_null(w);
	jsonw_key(w, "start_ns");
	jsonw_int(w, t->start);
	jsonw_key(w, "end_ns");
	jsonw_int(w, t->end);
	jsonw_key(w, "span_ns");
	jsonw_int(w, t->end - t->start);
	jsonw_key(w, "legacy_format");
	jsonw_bool(w, t->legacy);
	summary_tables(NULL, w, t);

	struct set_aside sa;
	trace_set_aside(t, &sa);
	jsonw_key(w, "set_aside");
	jsonw_object(w);
	jsonw_key(w, "profiler_ranges");
	jsonw_object(w);
	jsonw_key(w, "count");
	jsonw_uint(w, sa.ranges);
	jsonw_key(w, "time_ns");
	jsonw_int(w, sa.ranges_ns);
	jsonw_end_object(w);
	jsonw_key(w, "cupti_overhead");
	jsonw_object(w);
	jsonw_key(w, "count");
	jsonw_uint(w, sa.overhead);
	jsonw_key(w, "time_ns");
	jsonw_int(w, sa.overhead_ns);
	jsonw_end_object(w);
	jsonw_end_object(w);

	jsonw_key(w, "quality");
	jsonw_object(w);
	for (int q = 0; q < Q__COUNT; q++) {
		jsonw_key(w, quality_key(q));
		jsonw_uint(w, t->quality.count[q]);
	}
	jsonw_end_object(w);
	jsonw_key(w, "warnings");
	jsonw_array(w);
	for (uint32_t i = 0; i < t->nwarnings; i++)
		jsonw_str(w, t->warnings[i]);
	jsonw_end_array(w);
	jsonw_end_object(w);
}

void report_summary(FILE *f, struct trace *const *traces, int n, bool json)
{
	if (json) {
		struct jsonw w;
		jsonw_init(&w, f);
		jsonw_object(&w);
		jsonw_key(&w, "ttrace_version");
		jsonw_str(&w, PACKAGE_VERSION);
		jsonw_key(&w, "files");
		jsonw_array(&w);
		for (int i = 0; i < n; i++)
			if (traces[i]->status != LOAD_FAILED)
				summary_json(&w, traces[i]);
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
		return;
	}
	for (int i = 0; i < n; i++)
		if (traces[i]->status != LOAD_FAILED)
			summary_text(f, traces[i]);
}

/* The rows of TB in the order a report lists them: by the column whose key is SORT
 * (numbers largest first, text in byte order) when given, else as filled; *SHOWN of them:
 * TOP when it is positive, all for 0, else DFLT (0: all). Allocated. */
static uint32_t *report_rows(const struct table *tb, const char *sort, int top, uint32_t dflt, uint32_t *shown)
{
	uint32_t *rows = xmalloc((tb->nrows ? tb->nrows : 1) * sizeof *rows);
	for (uint32_t k = 0; k < tb->nrows; k++)
		rows[k] = k;
	int col = sort != NULL ? table_col(tb, sort) : -1;
	if (col >= 0)
		table_sort(tb, rows, tb->nrows, col, tb->cols[col].kind != COL_TEXT);
	uint32_t lim = top > 0 ? (uint32_t)top : top == 0 ? 0 : dflt;
	*shown = lim == 0 || lim > tb->nrows ? tb->nrows : lim;
	return rows;
}

/* Whether SORT (or NULL) names a column of COLS; says which ones do when not. */
static bool sort_ok(const char *sort, const struct column *cols, int n, const char *report)
{
	if (sort == NULL)
		return true;
	for (int c = 0; c < n; c++)
		if (strcmp(cols[c].key, sort) == 0)
			return true;
	char list[1024] = "";
	size_t l = 0;
	for (int c = 0; c < n && l < sizeof list; c++)
		if (c == 0 || strcmp(cols[c].key, cols[c - 1].key) != 0) /* a text/JSON pair once */
			l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", c ? ", " : "", cols[c].key);
	escape_say(stderr, "ttrace: --sort: the %s report has no column '%s' (columns: %s)", report, sort, list);
	return false;
}

void report_limits(FILE *f, struct jsonw *w, const struct data_limits *l)
{
	if (w == NULL) {
		for (uint32_t i = 0; i < l->n; i++)
			fprintf(f, "   limit: %s\n", l->l[i].text);
		return;
	}
	jsonw_key(w, "limits");
	jsonw_array(w);
	for (uint32_t i = 0; i < l->n; i++) {
		jsonw_object(w);
		jsonw_key(w, "key");
		jsonw_str(w, data_limit_key(l->l[i].kind));
		jsonw_key(w, "text");
		jsonw_str(w, l->l[i].text);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

void report_files(FILE *f, struct trace *const *traces, int n, bool json, report_one_fn one, void *arg)
{
	struct jsonw w;
	if (json) {
		jsonw_init(&w, f);
		jsonw_object(&w);
		jsonw_key(&w, "ttrace_version");
		jsonw_str(&w, PACKAGE_VERSION);
		jsonw_key(&w, "files");
		jsonw_array(&w);
	}
	for (int i = 0; i < n; i++) {
		struct trace *t = traces[i];
		if (t->status == LOAD_FAILED)
			continue;
		if (json) {
			jsonw_object(&w);
			jsonw_key(&w, "path");
			jsonw_str(&w, t->path);
			one(f, &w, t, arg);
			jsonw_end_object(&w);
		} else {
			fputs("== ", f);
			escape_term(f, trace_name(t), strlen(trace_name(t)));
			fputc('\n', f);
			one(f, NULL, t, arg);
		}
	}
	if (json) {
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	}
}

struct table_args {
	const struct table_report *def;
	const struct column *cols;
	int ncols, top;
	const char *sort;
};

/* One file of report_table: its table, as JSON keys into W, or as text when W is NULL. */
static void table_one(FILE *f, struct jsonw *w, struct trace *t, void *arg)
{
	const struct table_args *a = arg;
	const struct table_report *def = a->def;
	struct table tb;
	table_init(&tb, a->cols, a->ncols);
	def->fill(&tb, t); /* from the analysis the view shares (src/analysis.h) */
	struct data_limits dl;
	if (def->limits != NULL)
		def->limits(t, &dl);
	else
		data_limits_trace(t, -1, NULL, &dl);
	report_limits(f, w, &dl);
	if (w != NULL) {
		if (def->json_head != NULL)
			def->json_head(w, t);
		jsonw_key(w, def->name);
		uint32_t nj, *jrows = report_rows(&tb, a->sort, a->top, 0, &nj); /* JSON: all unless --top */
		table_write_json(w, &tb, jrows, nj, TABLE_ALL);
		free(jrows);
	} else if (tb.nrows == 0 && (def->has_data == NULL || !def->has_data(t))) {
		fprintf(f, "   %s\n\n", def->empty);
	} else if (tb.nrows == 0) {
		if (def->text_head != NULL)
			def->text_head(f, t, a->sort);
		fputc('\n', f);
	} else {
		if (def->text_head != NULL)
			def->text_head(f, t, a->sort);
		uint32_t shown, *rows = report_rows(&tb, a->sort, a->top, def->text_rows, &shown);
		table_write_text(f, &tb, rows, shown, def->text_cols, REPORT_WIDTH, "   ");
		free(rows);
		if (tb.nrows > shown)
			fprintf(f, "   ... and %u more (--json lists them all)\n", tb.nrows - shown);
		fputc('\n', f);
	}
	table_free(&tb);
}

int report_table(FILE *f, struct trace *const *traces, int n, bool json, int top, const char *sort,
                 const struct table_report *def)
{
	struct column cols[TABLE_MAX_COLS];
	int ncols = def->columns(cols);
	if (!sort_ok(sort, cols, ncols, def->name))
		return 2;
	struct table_args a = { def, cols, ncols, top, sort };
	report_files(f, traces, n, json, table_one, &a);
	return 0;
}

void report_check(FILE *f, struct trace *const *traces, int n)
{
	char a[64];
	for (int i = 0; i < n; i++) {
		const struct trace *t = traces[i];
		fputs("== ", f);
		escape_term(f, trace_name(t), strlen(trace_name(t)));
		fputc('\n', f);
		if (t->status == LOAD_FAILED) {
			fputs("   unusable: ", f);
			escape_term(f, t->error ? t->error : "?", strlen(t->error ? t->error : "?"));
			fputs("\n\n", f);
			continue;
		}
		if (t->status == LOAD_TRUNCATED) {
			fputs("   truncated: ", f);
			escape_term(f, t->error, strlen(t->error));
			fputc('\n', f);
		}
		bool any = t->status == LOAD_TRUNCATED;
		for (int q = 0; q < Q__COUNT; q++) {
			uint64_t c = t->quality.count[q];
			if (c == 0)
				continue;
			any = true;
			fprintf(f, "   %s: %" PRIu64 " (%s)\n", quality_key(q), c, quality_text(q));
			for (int k = 0; k < QUALITY_EXAMPLES && (uint64_t)k < c; k++) {
				const struct quality_example *e = &t->quality.ex[q][k];
				if (e->name == 0 && e->offset == 0 && e->ts == 0)
					continue;
				fputs("      e.g. ", f);
				if (e->offset)
					fprintf(f, "near byte %" PRIu64 ", ", e->offset);
				if (q != Q_INVALID_UTF8)
					fprintf(f, "ts %s, ", timefmt_offset(tt_sub(e->ts, t->start), a, sizeof a));
				fputc('"', f);
				put_name(f, t, e->name, 80);
				fputc('"', f);
				if (e->track != TT_NONE && e->track < t->ntracks) {
					char label[400];
					track_label(t, &t->tracks[e->track], label, sizeof label);
					fprintf(f, " on %s", label);
				}
				fputc('\n', f);
			}
		}
		struct set_aside sa;
		trace_set_aside(t, &sa);
		if (sa.ranges > 0) {
			any = true;
			fprintf(f,
			        "   profiler_ranges: %" PRIu64 ", %s in all (CUPTI range-profiler ranges: replays for "
			        "counters, not kernels; set aside from every GPU figure)\n",
			        sa.ranges, timefmt_dur(sa.ranges_ns, a, sizeof a));
		}
		for (uint32_t w = 0; w < t->nwarnings; w++) {
			any = true;
			fputs("   warning: ", f);
			escape_term(f, t->warnings[w], strlen(t->warnings[w]));
			fputc('\n', f);
		}
		if (!any)
			fputs("   no findings\n", f);
		fputc('\n', f);
	}
}

/* ---- gaps ------------------------------------------------------------------------------ */

/* Sets TB up (over COLS) as the gap table of the N gaps G of T, times from T's start. */
static void gap_table_init(struct table *tb, struct column *cols, const struct trace *t, const struct gap *g,
                           uint32_t n)
{
	table_init(tb, cols, gap_table_columns(cols, false));
	tb->origin = t->start;
	for (uint32_t i = 0; i < n; i++)
		gap_table_add(tb, &g[i], t, g[i].cpu, g[i].next, i + 1, 0, i);
}

static void gaps_text(FILE *f, const struct trace *t, const struct gap_report *r)
{
	char a[48];
	fputs("== ", f);
	escape_term(f, trace_name(t), strlen(trace_name(t)));
	fputc('\n', f);
	struct data_limits dl;
	data_limits_trace(t, r->nsteps, NULL, &dl);
	report_limits(f, NULL, &dl);
	if (r->ndevices == 0) {
		/* nothing to find gaps in: say so, and what the trace has instead */
		fputs("   no GPU in this trace: no kernel, memcpy or memset (record with ProfilerActivity.CUDA); no gaps to find\n",
		      f);
		if (r->from_steps)
			fprintf(f, "   %u step%s: ProfilerStep#%lld..#%lld, %s\n\n", r->nsteps,
			        r->nsteps == 1 ? "" : "s", (long long)r->steps[0].number,
			        (long long)r->steps[r->nsteps - 1].number, timefmt_dur(r->end - r->start, a, sizeof a));
		else
			fprintf(f, "   no ProfilerStep#N; the trace spans %s\n\n",
			        timefmt_dur(r->end - r->start, a, sizeof a));
		return;
	}
	if (r->from_steps)
		fprintf(f,
		        "   analysed window: ProfilerStep#%lld..#%lld as the TensorBoard plugin stretches them to the device, %s\n",
		        (long long)r->steps[0].number, (long long)r->steps[r->nsteps - 1].number,
		        timefmt_dur(r->end - r->start, a, sizeof a));
	else
		fprintf(f, "   analysed window: the whole trace (no ProfilerStep#N), %s\n",
		        timefmt_dur(r->end - r->start, a, sizeof a));
	fprintf(f, "   minimum gap: %s\n", timefmt_dur(r->min_gap, a, sizeof a));
	/* the per-device figures: the table, then what a column cannot hold */
	struct gpu_table gt;
	gpu_table_init(&gt, r);
	fputc('\n', f);
	table_write_text(f, &gt.t, NULL, 0, TABLE_ALL, REPORT_WIDTH, "   ");
	gpu_table_free(&gt);
	fputs("   (utilization: the TensorBoard plugin's, kernels only, union of streams, over its steps; kernels: that\n"
	      "   union; busy: kernels, memcpys and memsets on any stream; idle: the window minus busy; host wait, kernel\n"
	      "   wait, other wait: HTA's breakdown of per-stream idle, summed over streams)\n",
	      f);
	for (uint32_t d = 0; d < r->ndevices; d++) {
		const struct device_gaps *dg = &r->devices[d];
		if (r->from_steps && r->nsteps > 1) {
			fprintf(f, "   %s %d utilization per step:", trace_device_noun(t, dg->device), dg->device);
			for (uint32_t k = 0; k < r->nsteps; k++) {
				int64_t sw = r->steps[k].end - r->steps[k].start;
				fprintf(f, " #%lld %.1f%%", (long long)r->steps[k].number,
				        sw > 0 ? 100.0 * (double)dg->step_kernel_busy[k] / (double)sw : 0.0);
			}
			fputc('\n', f);
		}
		if (dg->idle > 0) {
			int64_t in_gaps = 0;
			char item[96];
			int col = fprintf(f, "   %s %d idle by cause:", trace_device_noun(t, dg->device), dg->device);
			for (int c = 0; c <= GC__COUNT; c++) { /* GC__COUNT: the gaps too short to count */
				if (c < GC__COUNT) {
					in_gaps += dg->idle_by_cause[c];
					if (dg->idle_by_cause[c] <= 0)
						continue;
					snprintf(item, sizeof item, " %.0f%% %s,",
					         100.0 * (double)dg->idle_by_cause[c] / (double)dg->idle,
					         gap_cause_text((enum gap_cause)c));
				} else {
					snprintf(item, sizeof item, " %.0f%% in gaps under %s",
					         100.0 * (double)(dg->idle - in_gaps) / (double)dg->idle,
					         timefmt_dur(r->min_gap, a, sizeof a));
				}
				if (col + (int)strlen(item) >
				    REPORT_WIDTH - 10) { /* wrap: no line wider than the report */
					fputs("\n     ", f);
					col = 5;
				}
				col += fprintf(f, "%s", item);
			}
			fputc('\n', f);
		}
	}

	struct column cols[GAP_TABLE_MAX_COLS];
	struct table tb;
	fprintf(f, "\n   %u gaps of %s or more with every stream of the device idle, longest first\n", r->ngaps,
	        timefmt_dur(r->min_gap, a, sizeof a));
	if (r->ngaps > 0) {
		/* the gap list's own table (ui/gap_list.h): the screen and this report agree */
		gap_table_init(&tb, cols, t, r->gaps, r->ngaps < 50 ? r->ngaps : 50);
		table_write_text(f, &tb, NULL, 0, gap_table_device_cols(&tb), REPORT_WIDTH, "   ");
		table_free(&tb);
	}
	if (r->ngaps > 50)
		fprintf(f, "   ... and %u more (--json lists them all)\n", r->ngaps - 50);
	if (r->ngaps > 0) {
		/* the rules, in the order they are tried: the first that holds gives the cause */
		fputs("   (cause: the first rule that holds, in this order; \"covers\" = overlaps half the gap or more)\n",
		      f);
		for (int c = 0; c < GC__COUNT; c++)
			fprintf(f, "   %d. %s: %s\n", c + 1, gap_cause_text((enum gap_cause)c),
			        gap_cause_rule((enum gap_cause)c));
	}
	fprintf(f,
	        "\n   %u per-stream gaps of %s or more (HTA's view: one stream idle, others may be busy), "
	        "longest first\n",
	        r->nstream_gaps, timefmt_dur(r->min_gap, a, sizeof a));
	if (r->nstream_gaps > 0) {
		gap_table_init(&tb, cols, t, r->stream_gaps, r->nstream_gaps < 10 ? r->nstream_gaps : 10);
		table_write_text(f, &tb, NULL, 0, gap_table_stream_cols(&tb), REPORT_WIDTH, "   ");
		table_free(&tb);
	}
	if (r->nstream_gaps > 10)
		fprintf(f, "   ... and %u more (--json lists them all)\n", r->nstream_gaps - 10);
	fputc('\n', f);
}

static void gaps_json(struct jsonw *w, const struct trace *t, const struct gap_report *r)
{
	struct table tb;
	struct column cols[GAP_TABLE_MAX_COLS];
	struct gpu_table gt;
	jsonw_object(w);
	jsonw_key(w, "path");
	jsonw_str(w, t->path);
	struct data_limits dl;
	data_limits_trace(t, r->nsteps, NULL, &dl);
	report_limits(NULL, w, &dl);
	jsonw_key(w, "min_gap_ns");
	jsonw_int(w, r->min_gap);
	jsonw_key(w, "window");
	jsonw_object(w);
	jsonw_key(w, "start_ns");
	jsonw_int(w, r->start);
	jsonw_key(w, "end_ns");
	jsonw_int(w, r->end);
	jsonw_key(w, "from_steps");
	jsonw_bool(w, r->from_steps);
	jsonw_end_object(w);
	jsonw_key(w, "tensorboard_steps");
	tb_step_table_init(&tb, r);
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
	jsonw_key(w, "devices");
	gpu_table_init(&gt, r);
	table_write_json(w, &gt.t, NULL, 0, TABLE_ALL);
	gpu_table_free(&gt);
	jsonw_key(w, "gaps");
	gap_table_init(&tb, cols, t, r->gaps, r->ngaps);
	table_write_json(w, &tb, NULL, 0, gap_table_device_cols(&tb));
	table_free(&tb);
	jsonw_key(w, "stream_gaps");
	gap_table_init(&tb, cols, t, r->stream_gaps, r->nstream_gaps);
	table_write_json(w, &tb, NULL, 0, gap_table_stream_cols(&tb));
	table_free(&tb);
	jsonw_end_object(w);
}

void report_gaps(FILE *f, struct trace *const *traces, int n, bool json, int64_t min_gap)
{
	struct jsonw w;
	if (json) {
		jsonw_init(&w, f);
		jsonw_object(&w);
		jsonw_key(&w, "ttrace_version");
		jsonw_str(&w, PACKAGE_VERSION);
		jsonw_key(&w, "files");
		jsonw_array(&w);
	}
	for (int i = 0; i < n; i++) {
		if (traces[i]->status == LOAD_FAILED)
			continue;
		const struct gap_report *r = &trace_gaps(traces[i], min_gap)->r; /* shared with any other user */
		if (json)
			gaps_json(&w, traces[i], r);
		else
			gaps_text(f, traces[i], r);
	}
	if (json) {
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	}
}

/* ---- several ranks ------------------------------------------------------------------------- */

/* Sets TB (over COLS) and PER_RANK up as the distributed table of R, ranks in their order. */
static void dist_table_init(struct table *tb, struct column *cols, struct table *per_rank, const struct rank_report *r)
{
	int *order = xcalloc((size_t)r->nranks + 1, sizeof *order);
	for (int i = 0; i < r->nranks; i++)
		order[i] = i;
	table_init(tb, cols, dist_table_columns(cols));
	dist_per_rank_init(per_rank);
	dist_table_fill(tb, per_rank, r, order, r->nranks);
	free(order);
}

void report_wrap_text(FILE *f, const char *text, size_t col, const char *ind)
{
	size_t at = col;
	const char *p = text;
	while (*p != '\0') {
		size_t w = strcspn(p, " ");
		if (at + w + 1 > (size_t)REPORT_WIDTH && at > strlen(ind)) {
			fputc('\n', f);
			fputs(ind, f);
			at = strlen(ind);
		} else if (p != text) {
			fputc(' ', f);
			at++;
		}
		fwrite(p, 1, w, f);
		at += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void straggler_why_json(struct jsonw *w, const struct straggler_why *y)
{
	static const enum straggler_reason order[] = { SR_DATALOADER, SR_HOST_SYNC, SR_SLOWER_GPU, SR_COMPUTE };
	jsonw_object(w);
	jsonw_key(w, "key");
	jsonw_str(w, straggler_reason_key(y->reason));
	jsonw_key(w, "text");
	jsonw_str(w, y->text);
	jsonw_key(w, "collectives");
	jsonw_uint(w, y->collectives);
	jsonw_key(w, "late_ns");
	jsonw_int(w, y->late);
	jsonw_key(w, "late_before_segment_ns");
	jsonw_int(w, y->before);
	jsonw_key(w, "explained_ns");
	jsonw_object(w);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		jsonw_key(w, straggler_reason_key(order[i]));
		jsonw_int(w, y->explained[order[i]]);
	}
	jsonw_end_object(w);
	jsonw_key(w, "kernels_matched");
	jsonw_uint(w, y->matched);
	jsonw_key(w, "kernel_time_ratio");
	if (y->matched > 0)
		jsonw_double(w, y->gpu_ratio);
	else
		jsonw_null(w);
	jsonw_end_object(w);
}

static void distributed_text(FILE *f, const struct rank_report *r, const struct data_limits *dl)
{
	char a[48], b[48];
	struct column cols[DIST_TABLE_COLS];
	struct table tb, per_rank;
	fprintf(f, "== %d ranks, alignment: %s", r->nranks, align_mode_name(r->mode));
	if (r->mode == ALIGN_COLLECTIVE)
		fprintf(f, " (the same collective ends at the same time on every rank; residual spread %s)",
		        timefmt_dur(r->residual, a, sizeof a));
	fputc('\n', f);
	if (r->warnings[0]) {
		fputs("   warning: ", f);
		escape_term(f, r->warnings, strlen(r->warnings));
		fputc('\n', f);
	}
	report_limits(f, NULL, dl);
	fprintf(f, "   collectives: %u matched by kind (and process group) and order (%s)\n\n", r->ncolls,
	        r->comm_from_kernels ? "communication kernels" : "gloo CPU ops");
	/* the distributed view's own table (ui/dist_view.h): its rank rows, then its collective rows */
	dist_table_init(&tb, cols, &per_rank, r);
	uint32_t *rows = xcalloc((size_t)tb.nrows + 1, sizeof *rows);
	for (uint32_t k = 0; k < tb.nrows; k++)
		rows[k] = k;
	table_write_text(f, &tb, rows, (uint32_t)r->nranks, dist_table_rank_cols(&tb), REPORT_WIDTH, "   ");
	fputs("   (offset: added to the rank's clock; compute: union of non-communication kernels, or of CPU ops\n"
	      "   without kernels; comm: union of the collectives; overlap: their intersection (HTA); exposed: comm not\n"
	      "   hidden by compute, so with collectives on CPU threads the time no CPU op runs: the main thread waits;\n"
	      "   waiting: the latest arrival minus own arrival, summed over collectives (TraceLens); last: times\n"
	      "   arrived last)\n",
	      f);
	for (int i = 0; i < r->nranks; i++)
		if (r->ranks[i].exposed_na) {
			fputs("   (overlap, exposed n/a: " RANKS_EXPOSED_NA ")\n", f);
			break;
		}
	fputs("\n   exposed split (exp.wait: the part of exposed from the rank's arrival at a collective to the last\n"
	      "   rank's, waiting for a late rank; exp.transfer: the rest, transfer that compute did not hide)\n",
	      f);
	for (int i = 0; i < r->nranks; i++) {
		const struct rank_stats *s = &r->ranks[i];
		if (s->exposed_na)
			fprintf(f, "   rank %d: exp.wait n/a, exp.transfer n/a\n", s->rank);
		else
			fprintf(f, "   rank %d: exp.wait %s, exp.transfer %s\n", s->rank,
			        timefmt_dur(s->exposed_wait, a, sizeof a),
			        timefmt_dur(s->exposed_transfer, b, sizeof b));
	}
	if (r->straggler >= 0) {
		const struct rank_stats *s = &r->ranks[r->straggler];
		int64_t others = 0;
		int no = 0;
		for (int i = 0; i < r->nranks; i++)
			if (i != r->straggler) {
				others = tt_add(others, r->ranks[i].waiting);
				no++;
			}
		uint32_t shared = ranks_shared_collectives(r);
		fprintf(f,
		        "\n   straggler: rank %d: arrived last at %u of %u collectives; it waited %s in all, the other "
		        "ranks %s on average\n",
		        s->rank, s->arrived_last, shared, timefmt_dur(s->waiting, a, sizeof a),
		        timefmt_dur(no ? others / no : 0, b, sizeof b));
		fputs("   why: ", f);
		report_wrap_text(f, r->why.text, 8, "        ");
	} else if (r->last_most >= 0) {
		fprintf(f,
		        "\n   straggler: none: no rank arrived last at half the %u collectives or more; the last arrival\n"
		        "   moves between %d ranks (rank %d most often, at %u): each is late now and then, none always\n",
		        ranks_shared_collectives(r), ranks_last_arrivers(r), r->ranks[r->last_most].rank,
		        r->ranks[r->last_most].arrived_last);
	} else {
		fputs("\n   straggler: none found (no collective seen on two ranks)\n", f);
	}
	fprintf(f,
	        "\n   collectives (aligned; arrival = start; ranks: how many of the %d have it; skew: latest arrival -\n"
	        "   earliest; transfer: the shortest duration over ranks)\n",
	        r->nranks);
	uint32_t ncolls = r->ncolls < 40 ? r->ncolls : 40;
	if (ncolls > 0)
		table_write_text(f, &tb, rows + r->nranks, ncolls, dist_table_coll_cols(&tb), REPORT_WIDTH, "   ");
	if (r->ncolls > 40)
		fprintf(f, "   ... and %u more (--json lists them all)\n", r->ncolls - 40);
	fputc('\n', f);
	free(rows);
	table_free(&tb);
	table_free(&per_rank);
}

static void distributed_json(struct jsonw *w, const struct rank_report *r, const struct data_limits *dl,
                             struct trace *const *ts, int n)
{
	struct column cols[DIST_TABLE_COLS];
	struct table tb, per_rank;
	jsonw_object(w);
	jsonw_key(w, "ttrace_version");
	jsonw_str(w, PACKAGE_VERSION);
	jsonw_key(w, "alignment");
	jsonw_object(w);
	jsonw_key(w, "mode");
	jsonw_str(w, align_mode_name(r->mode));
	jsonw_key(w, "residual_ns");
	jsonw_int(w, r->residual);
	jsonw_end_object(w);
	jsonw_key(w, "warnings");
	jsonw_str(w, r->warnings);
	report_limits(NULL, w, dl);
	jsonw_key(w, "collectives_from");
	jsonw_str(w, r->comm_from_kernels ? "kernels" : "gloo_ops");
	jsonw_key(w, "straggler");
	if (r->straggler >= 0)
		jsonw_int(w, r->ranks[r->straggler].rank);
	else
		jsonw_null(w);
	jsonw_key(w, "last_most_often"); /* the straggler, or the rank last most often when none is */
	if (r->last_most >= 0)
		jsonw_int(w, r->ranks[r->last_most].rank);
	else
		jsonw_null(w);
	jsonw_key(w, "straggler_reason");
	if (r->straggler >= 0)
		straggler_why_json(w, &r->why);
	else
		jsonw_null(w);
	dist_table_init(&tb, cols, &per_rank, r);
	uint32_t *rows = xcalloc((size_t)tb.nrows + 1, sizeof *rows);
	for (uint32_t k = 0; k < tb.nrows; k++)
		rows[k] = k;
	jsonw_key(w, "ranks");
	table_write_json(w, &tb, rows, (uint32_t)r->nranks, dist_table_rank_cols(&tb));
	jsonw_key(w, "collectives");
	table_write_json(w, &tb, rows + r->nranks, r->ncolls, dist_table_coll_cols(&tb));
	int *labels = xcalloc((size_t)n + 1, sizeof *labels);
	for (int i = 0; i < n && i < r->nranks; i++)
		labels[i] = r->ranks[i].rank;
	comm_stats_write(NULL, w, ts, labels, n, REPORT_WIDTH, r); /* ui/comm_stats.h */
	free(labels);
	jsonw_end_object(w);
	free(rows);
	table_free(&tb);
	table_free(&per_rank);
}

void report_distributed(FILE *f, struct trace *const *traces, int n, bool json, int align)
{
	struct trace **ok = xcalloc((size_t)n + 1, sizeof *ok);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (traces[i]->status != LOAD_FAILED)
			ok[m++] = traces[i];
	/* the comparison is cached by the first trace (src/analysis.h): it keeps the set */
	const struct rank_report *r = traces_ranks(ok, m, (enum align_mode)align);
	struct data_limits dl;
	data_limits_ranks(ok, m, r, &dl);
	if (json) {
		struct jsonw w;
		jsonw_init(&w, f);
		distributed_json(&w, r, &dl, ok, m);
		jsonw_finish(&w);
	} else {
		distributed_text(f, r, &dl);
		int *labels = xcalloc((size_t)m + 1, sizeof *labels);
		for (int i = 0; i < m && i < r->nranks; i++)
			labels[i] = r->ranks[i].rank;
		comm_stats_write(f, NULL, ok, labels, m, REPORT_WIDTH, r);
		free(labels);
	}
	free(ok);
}

/* ---- the kinds (ui/reports.h) -------------------------------------------------------------- */

static int write_summary(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	report_summary(f, ts, n, o->json);
	return 0;
}

static int write_gaps(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	report_gaps(f, ts, n, o->json, o->gap_min);
	return 0;
}

static int write_distributed(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	report_distributed(f, ts, n, o->json, o->align);
	return 0;
}

static int write_check(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	(void)o;
	report_check(f, ts, n);
	return 0;
}

const struct report_kind report_summary_kind = {
	.name = "summary",
	.json = true,
	.csv = true,
	.write = write_summary,
	.help = "      --report=summary   per file: rank, span, events, tracks, top operators by\n"
		"                         self CPU time, top kernels by GPU time, data quality\n",
};
const struct report_kind report_gaps_kind = {
	.name = "gaps",
	.json = true,
	.csv = true,
	.write = write_gaps,
	.help = "      --report=gaps      per GPU: utilization, idle time by cause, the longest gaps and\n"
		"                         what the CPU was doing (see --gap-min)\n",
};
const struct report_kind report_distributed_kind = {
	.name = "distributed",
	.json = true,
	.csv = true,
	.needs_a_trace = true,
	.write = write_distributed,
	.help = "      --report=distributed  several ranks: clock alignment, per-rank compute,\n"
		"                         communication, overlap, waiting, the straggler, collectives\n"
		"                         (see --align)\n",
};
const struct report_kind report_check_kind = {
	.name = "check",
	.write = write_check,
};
