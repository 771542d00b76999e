/* report.c: the non-interactive reports (--report=summary [--json], --check). Every
 * string taken from a trace goes through ui/escape.h. */
#include "config.h"
#include "ui/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/gaps.h"
#include "src/ranks.h"
#include "src/index.h"
#include "src/tables.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/escape.h"
#include "ui/jsonw.h"

#define TOP_N 20
#define NAME_COLS 100

static const char *str(const struct trace *t, uint32_t id) { return strtab_get(&t->strings, id); }

static void put_name(FILE *f, const struct trace *t, uint32_t id, size_t max)
{
	char buf[4 * NAME_COLS + 64];
	const char *s = str(t, id);
	uint32_t n = strtab_len(&t->strings, id);
	if (max > NAME_COLS)
		max = NAME_COLS;
	escape_term_buf(s, n, buf, max + 1);
	fputs(buf, f);
	if (strlen(buf) < n && strlen(buf) >= max)
		fputs("...", f);
}

static void track_label(const struct trace *t, const struct track *tr, char *buf, size_t n)
{
	char pid[64], tid[64], name[160], proc[96];
	escape_term_buf(str(t, tr->name), strtab_len(&t->strings, tr->name), name, sizeof name);
	if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) {
		snprintf(buf, n, "GPU %d %s", tr->device, name);
		return;
	}
	track_pid_text(t, tr, pid, sizeof pid);
	track_tid_text(t, tr, tid, sizeof tid);
	const char *pn = track_process_name(t, tr);
	escape_term_buf(pn, strlen(pn), proc, sizeof proc);
	char epid[96];
	escape_term_buf(pid, strlen(pid), epid, sizeof epid);
	if (proc[0])
		snprintf(buf, n, "%s [pid %s] %s", proc, epid, name);
	else
		snprintf(buf, n, "[pid %s] %s", epid, name);
}

static void summary_text(FILE *f, const struct trace *t)
{
	char a[64], b[64], c[64];

	fprintf(f, "== ");
	escape_term(f, t->path, strlen(t->path));
	fprintf(f, " (%s, %s of JSON, %" PRIu64 " events, loaded in %.2f s)\n", t->codec,
	        timefmt_bytes((double)t->bytes, a, sizeof a), t->events, t->load_seconds);
	if (t->status == LOAD_TRUNCATED) {
		fprintf(f, "   TRUNCATED: ");
		escape_term(f, t->error, strlen(t->error));
		fputc('\n', f);
	}
	if (t->rank >= 0) {
		fprintf(f, "   rank %d of %d", t->rank, t->world_size);
		if (t->backend) {
			fputs(" (", f);
			escape_term(f, str(t, t->backend), strtab_len(&t->strings, t->backend));
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
		if (abs_start >= 1000000000000000000ll && abs_start < 4000000000000000000ll) {
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
	fprintf(f, "   events: %" PRIu64 " X, %" PRIu64 " B/E, %" PRIu64 " instants, %" PRIu64 " counters, %" PRIu64
	           " flow, %" PRIu64 " metadata, %" PRIu64 " async\n",
	        t->count_by_ph['X'], t->count_by_ph['B'] + t->count_by_ph['E'],
	        t->count_by_ph['i'] + t->count_by_ph['I'], t->count_by_ph['C'],
	        t->count_by_ph['s'] + t->count_by_ph['t'] + t->count_by_ph['f'], t->count_by_ph['M'], t->async_events);

	fprintf(f, "\n   Tracks (busy = union of the track's slices; GPU streams: kernels, memcpys, memsets)\n");
	fprintf(f, "   %-12s %10s %8s %12s  %s\n", "kind", "events", "rows", "busy", "track");
	uint32_t *order = trace_track_order(t);
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[order[k]];
		char label[400];
		track_label(t, tr, label, sizeof label);
		fprintf(f, "   %-12s %10u %8u %12s  %s\n", track_kind_name(tr->kind), tr->events, tr->nrows,
		        timefmt_dur(tr->busy_total, a, sizeof a), label);
	}
	free(order);

	uint32_t nops, nk;
	struct op_stat *ops = tables_ops(t, &nops);
	fprintf(f, "\n   Top %d operators by self CPU time (self = duration minus direct children on the thread)\n",
	        TOP_N);
	if (nops == 0)
		fprintf(f, "   (no operators)\n");
	else
		fprintf(f, "   %12s %12s %8s  %s\n", "self", "total", "calls", "name");
	for (uint32_t i = 0; i < nops && i < TOP_N; i++) {
		fprintf(f, "   %12s %12s %8" PRIu64 "  ", timefmt_dur(ops[i].self, a, sizeof a),
		        timefmt_dur(ops[i].total, b, sizeof b), ops[i].calls);
		put_name(f, t, ops[i].name, 80);
		fputc('\n', f);
	}
	free(ops);
	struct kernel_stat *ks = tables_kernels(t, &nk);
	fprintf(f, "\n   Top %d kernels by total GPU time (sum of durations)\n", TOP_N);
	if (nk == 0)
		fprintf(f, "   (no kernels)\n");
	else
		fprintf(f, "   %12s %8s %12s %12s %12s  %s\n", "total", "calls", "mean", "min", "max", "name");
	for (uint32_t i = 0; i < nk && i < TOP_N; i++) {
		char d[64], e[64];
		fprintf(f, "   %12s %8" PRIu64 " %12s %12s %12s  ", timefmt_dur(ks[i].total, a, sizeof a), ks[i].calls,
		        timefmt_dur(ks[i].total / (int64_t)ks[i].calls, b, sizeof b), timefmt_dur(ks[i].min, d, sizeof d),
		        timefmt_dur(ks[i].max, e, sizeof e));
		put_name(f, t, ks[i].name, 60);
		fputc('\n', f);
	}
	free(ks);

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
	jsonw_key(w, "steps");
	jsonw_array(w);
	for (uint32_t i = 0; i < t->nsteps; i++) {
		jsonw_object(w);
		jsonw_key(w, "number");
		jsonw_int(w, t->steps[i].number);
		jsonw_key(w, "side");
		jsonw_str(w, t->steps[i].gpu ? "gpu" : "cpu");
		jsonw_key(w, "start_ns");
		jsonw_int(w, t->steps[i].ts);
		jsonw_key(w, "dur_ns");
		jsonw_int(w, t->steps[i].dur);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);

	jsonw_key(w, "tracks");
	jsonw_array(w);
	uint32_t *order = trace_track_order(t);
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[order[k]];
		jsonw_object(w);
		jsonw_key(w, "kind");
		jsonw_str(w, track_kind_name(tr->kind));
		jsonw_key(w, "pid");
		if (tr->pid_is_str)
			jsonw_str(w, str(t, (uint32_t)tr->pid));
		else
			jsonw_int(w, tr->pid);
		jsonw_key(w, "tid");
		if (tr->tid_is_str)
			jsonw_str(w, str(t, (uint32_t)tr->tid));
		else
			jsonw_int(w, tr->tid);
		jsonw_key(w, "name");
		jsonw_strn(w, str(t, tr->name), strtab_len(&t->strings, tr->name));
		jsonw_key(w, "process");
		jsonw_str(w, track_process_name(t, tr));
		if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) {
			jsonw_key(w, "device");
			jsonw_int(w, tr->device);
			jsonw_key(w, "stream");
			jsonw_int(w, tr->stream);
		}
		jsonw_key(w, "events");
		jsonw_uint(w, tr->events);
		jsonw_key(w, "slices");
		jsonw_uint(w, tr->nslices);
		jsonw_key(w, "rows");
		jsonw_uint(w, tr->nrows);
		jsonw_key(w, "busy_ns");
		jsonw_int(w, tr->busy_total);
		jsonw_end_object(w);
	}
	free(order);
	jsonw_end_array(w);

	uint32_t nops, nk;
	struct op_stat *ops = tables_ops(t, &nops);
	jsonw_key(w, "top_operators");
	jsonw_array(w);
	for (uint32_t i = 0; i < nops && i < TOP_N; i++) {
		jsonw_object(w);
		jsonw_key(w, "name");
		jsonw_strn(w, str(t, ops[i].name), strtab_len(&t->strings, ops[i].name));
		jsonw_key(w, "calls");
		jsonw_uint(w, ops[i].calls);
		jsonw_key(w, "self_ns");
		jsonw_int(w, ops[i].self);
		jsonw_key(w, "total_ns");
		jsonw_int(w, ops[i].total);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	free(ops);
	struct kernel_stat *ks = tables_kernels(t, &nk);
	jsonw_key(w, "top_kernels");
	jsonw_array(w);
	for (uint32_t i = 0; i < nk && i < TOP_N; i++) {
		jsonw_object(w);
		jsonw_key(w, "name");
		jsonw_strn(w, str(t, ks[i].name), strtab_len(&t->strings, ks[i].name));
		jsonw_key(w, "calls");
		jsonw_uint(w, ks[i].calls);
		jsonw_key(w, "total_ns");
		jsonw_int(w, ks[i].total);
		jsonw_key(w, "mean_ns");
		jsonw_int(w, ks[i].total / (int64_t)ks[i].calls);
		jsonw_key(w, "min_ns");
		jsonw_int(w, ks[i].min);
		jsonw_key(w, "max_ns");
		jsonw_int(w, ks[i].max);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	free(ks);

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

void report_check(FILE *f, struct trace *const *traces, int n)
{
	char a[64];
	for (int i = 0; i < n; i++) {
		const struct trace *t = traces[i];
		fputs("== ", f);
		escape_term(f, t->path, strlen(t->path));
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
					fprintf(f, "ts %s, ", timefmt_offset(e->ts, a, sizeof a));
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

static void slice_desc(const struct trace *t, struct slice_ref r, char *buf, size_t n)
{
	char name[256], tname[128];
	if (r.track == TT_NONE) {
		snprintf(buf, n, "-");
		return;
	}
	const struct track *tr = &t->tracks[r.track];
	escape_term_buf(str(t, tr->slices[r.idx].name), strtab_len(&t->strings, tr->slices[r.idx].name), name,
	                sizeof name);
	escape_term_buf(str(t, tr->name), strtab_len(&t->strings, tr->name), tname, sizeof tname);
	snprintf(buf, n, "%s (%s)", name, tname);
}

static void gaps_text(FILE *f, const struct trace *t, const struct gap_report *r)
{
	char a[48], b[48], c[64], line[600];
	fputs("== ", f);
	escape_term(f, t->path, strlen(t->path));
	fputc('\n', f);
	if (r->from_steps)
		fprintf(f, "   analysed window: ProfilerStep#%lld..#%lld as the TensorBoard plugin stretches them to the device, %s\n",
		        (long long)r->steps[0].number, (long long)r->steps[r->nsteps - 1].number,
		        timefmt_dur(r->end - r->start, a, sizeof a));
	else
		fprintf(f, "   analysed window: the whole trace (no ProfilerStep#N), %s\n", timefmt_dur(r->end - r->start, a, sizeof a));
	fprintf(f, "   minimum gap: %s\n", timefmt_dur(r->min_gap, a, sizeof a));
	if (r->ndevices == 0) {
		fputs("   no GPU activity\n\n", f);
		return;
	}
	for (uint32_t d = 0; d < r->ndevices; d++) {
		const struct device_gaps *dg = &r->devices[d];
		int64_t win = r->end - r->start, tbw = r->tb_end - r->tb_start;
		fprintf(f, "   GPU %d: utilization %.2f%% (TensorBoard plugin: kernels only, union of streams, over its steps)\n",
		        dg->device, tbw > 0 ? 100.0 * (double)dg->kernel_busy / (double)tbw : 0.0);
		if (r->from_steps && r->nsteps > 1) {
			fputs("          per step:", f);
			for (uint32_t k = 0; k < r->nsteps; k++) {
				int64_t sw = r->steps[k].end - r->steps[k].start;
				fprintf(f, " #%lld %.1f%%", (long long)r->steps[k].number,
				        sw > 0 ? 100.0 * (double)dg->step_kernel_busy[k] / (double)sw : 0.0);
			}
			fputc('\n', f);
		}
		int64_t in_gaps = 0;
		for (int c2 = 0; c2 < GC__COUNT; c2++)
			in_gaps += dg->idle_by_cause[c2];
		fprintf(f, "          idle %.1f%% of the window (nothing on any stream, memcpy/memset count as busy)",
		        win > 0 ? 100.0 * (double)dg->idle / (double)win : 0.0);
		if (dg->idle > 0) {
			fputs(":", f);
			for (int c2 = 0; c2 < GC__COUNT; c2++)
				if (dg->idle_by_cause[c2] > 0)
					fprintf(f, " %.0f%% %s,", 100.0 * (double)dg->idle_by_cause[c2] / (double)dg->idle,
					        gap_cause_text((enum gap_cause)c2));
			fprintf(f, " %.0f%% in gaps under %s", 100.0 * (double)(dg->idle - in_gaps) / (double)dg->idle,
			        timefmt_dur(r->min_gap, a, sizeof a));
		}
		fputc('\n', f);
		int64_t hta_total = dg->idle_by_hta[0] + dg->idle_by_hta[1] + dg->idle_by_hta[2];
		fprintf(f, "          per-stream idle (HTA's breakdown, summed over streams): host wait %s, kernel wait %s, "
		           "other %s\n",
		        timefmt_dur(dg->idle_by_hta[HTA_HOST_WAIT], a, sizeof a),
		        timefmt_dur(dg->idle_by_hta[HTA_KERNEL_WAIT], b, sizeof b),
		        timefmt_dur(dg->idle_by_hta[HTA_OTHER], c, sizeof c));
		(void)hta_total;
	}
	fprintf(f, "\n   %u gaps of %s or more with every stream of the device idle, longest first\n", r->ngaps,
	        timefmt_dur(r->min_gap, a, sizeof a));
	if (r->ngaps > 0)
		fprintf(f, "   %-6s %14s %11s %7s  %-22s %-11s  %s\n", "device", "start", "duration", "step", "cause", "HTA class",
		        "CPU slice");
	for (uint32_t i = 0; i < r->ngaps && i < 50; i++) {
		const struct gap *g = &r->gaps[i];
		char step[24] = "-";
		if (g->step >= 0)
			snprintf(step, sizeof step, "#%lld", (long long)g->step);
		slice_desc(t, g->cpu, line, sizeof line);
		fprintf(f, "   GPU %-2d %14s %11s %7s  %-22s %-11s  %s\n", g->device,
		        timefmt_offset(g->start - t->start, a, sizeof a), timefmt_dur(g->end - g->start, b, sizeof b), step,
		        gap_cause_text(g->cause), hta_class_key(g->hta), line);
	}
	if (r->ngaps > 50)
		fprintf(f, "   ... and %u more (--json lists them all)\n", r->ngaps - 50);
	fprintf(f, "\n   %u per-stream gaps of %s or more (HTA's view: one stream idle, others may be busy), "
	           "longest first\n",
	        r->nstream_gaps, timefmt_dur(r->min_gap, a, sizeof a));
	for (uint32_t i = 0; i < r->nstream_gaps && i < 10; i++) {
		const struct gap *g = &r->stream_gaps[i];
		char tname[96], step[24] = "-";
		escape_term_buf(str(t, t->tracks[g->track].name), strtab_len(&t->strings, t->tracks[g->track].name), tname,
		                sizeof tname);
		if (g->step >= 0)
			snprintf(step, sizeof step, "#%lld", (long long)g->step);
		fprintf(f, "   GPU %-2d %-12s %14s %11s %7s  %s\n", g->device, tname, timefmt_offset(g->start - t->start, a, sizeof a),
		        timefmt_dur(g->end - g->start, b, sizeof b), step, hta_class_key(g->hta));
	}
	fputc('\n', f);
}

static void ref_json(struct jsonw *w, const struct trace *t, struct slice_ref r)
{
	if (r.track == TT_NONE) {
		jsonw_null(w);
		return;
	}
	const struct track *tr = &t->tracks[r.track];
	const struct slice *s = &tr->slices[r.idx];
	jsonw_object(w);
	jsonw_key(w, "name");
	jsonw_strn(w, str(t, s->name), strtab_len(&t->strings, s->name));
	jsonw_key(w, "track");
	jsonw_strn(w, str(t, tr->name), strtab_len(&t->strings, tr->name));
	jsonw_key(w, "start_ns");
	jsonw_int(w, s->ts);
	jsonw_key(w, "dur_ns");
	jsonw_int(w, s->dur);
	jsonw_end_object(w);
}

static void gaps_json(struct jsonw *w, const struct trace *t, const struct gap_report *r)
{
	jsonw_object(w);
	jsonw_key(w, "path");
	jsonw_str(w, t->path);
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
	jsonw_array(w);
	for (uint32_t k = 0; k < r->nsteps; k++) {
		jsonw_object(w);
		jsonw_key(w, "number");
		jsonw_int(w, r->steps[k].number);
		jsonw_key(w, "start_ns");
		jsonw_int(w, r->steps[k].start);
		jsonw_key(w, "end_ns");
		jsonw_int(w, r->steps[k].end);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "devices");
	jsonw_array(w);
	for (uint32_t d = 0; d < r->ndevices; d++) {
		const struct device_gaps *dg = &r->devices[d];
		int64_t tbw = r->tb_end - r->tb_start;
		jsonw_object(w);
		jsonw_key(w, "device");
		jsonw_int(w, dg->device);
		jsonw_key(w, "gpu_utilization");
		jsonw_object(w);
		jsonw_key(w, "definition");
		jsonw_str(w, "tensorboard_plugin");
		jsonw_key(w, "value");
		jsonw_double(w, tbw > 0 ? (double)dg->kernel_busy / (double)tbw : 0.0);
		jsonw_key(w, "kernel_busy_ns");
		jsonw_int(w, dg->kernel_busy);
		jsonw_key(w, "steps");
		jsonw_array(w);
		for (uint32_t k = 0; k < r->nsteps; k++) {
			int64_t sw = r->steps[k].end - r->steps[k].start;
			jsonw_object(w);
			jsonw_key(w, "number");
			jsonw_int(w, r->steps[k].number);
			jsonw_key(w, "value");
			jsonw_double(w, sw > 0 ? (double)dg->step_kernel_busy[k] / (double)sw : 0.0);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
		jsonw_end_object(w);
		jsonw_key(w, "busy_ns");
		jsonw_int(w, dg->busy);
		jsonw_key(w, "idle_ns");
		jsonw_int(w, dg->idle);
		jsonw_key(w, "idle_by_cause_ns");
		jsonw_object(w);
		for (int c = 0; c < GC__COUNT; c++) {
			jsonw_key(w, gap_cause_key((enum gap_cause)c));
			jsonw_int(w, dg->idle_by_cause[c]);
		}
		jsonw_end_object(w);
		jsonw_key(w, "stream_idle_by_hta_class_ns");
		jsonw_object(w);
		for (int c = 0; c < HTA__COUNT; c++) {
			jsonw_key(w, hta_class_key((enum hta_class)c));
			jsonw_int(w, dg->idle_by_hta[c]);
		}
		jsonw_end_object(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "gaps");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->ngaps; i++) {
		const struct gap *g = &r->gaps[i];
		jsonw_object(w);
		jsonw_key(w, "device");
		jsonw_int(w, g->device);
		jsonw_key(w, "start_ns");
		jsonw_int(w, g->start);
		jsonw_key(w, "end_ns");
		jsonw_int(w, g->end);
		jsonw_key(w, "dur_ns");
		jsonw_int(w, g->end - g->start);
		jsonw_key(w, "step");
		if (g->step >= 0)
			jsonw_int(w, g->step);
		else
			jsonw_null(w);
		jsonw_key(w, "cause");
		jsonw_str(w, gap_cause_key(g->cause));
		jsonw_key(w, "hta_class");
		jsonw_str(w, hta_class_key(g->hta));
		jsonw_key(w, "cpu_slice");
		ref_json(w, t, g->cpu);
		jsonw_key(w, "next_gpu_op");
		ref_json(w, t, g->next);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "stream_gaps");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->nstream_gaps; i++) {
		const struct gap *g = &r->stream_gaps[i];
		jsonw_object(w);
		jsonw_key(w, "device");
		jsonw_int(w, g->device);
		jsonw_key(w, "stream");
		jsonw_int(w, t->tracks[g->track].stream);
		jsonw_key(w, "start_ns");
		jsonw_int(w, g->start);
		jsonw_key(w, "dur_ns");
		jsonw_int(w, g->end - g->start);
		jsonw_key(w, "step");
		if (g->step >= 0)
			jsonw_int(w, g->step);
		else
			jsonw_null(w);
		jsonw_key(w, "hta_class");
		jsonw_str(w, hta_class_key(g->hta));
		jsonw_key(w, "next_gpu_op");
		ref_json(w, t, g->next);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
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
		struct gap_report r;
		if (traces[i]->status == LOAD_FAILED)
			continue;
		gaps_analyse(traces[i], min_gap, &r);
		if (json)
			gaps_json(&w, traces[i], &r);
		else
			gaps_text(f, traces[i], &r);
		gaps_free(&r);
	}
	if (json) {
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	}
}

/* ---- several ranks ------------------------------------------------------------------------- */

static void distributed_text(FILE *f, const struct rank_report *r)
{
	char a[48], b[48], c[48], d[48], e[48], w8[48];
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
	fprintf(f, "   collectives: %u matched by kind (and process group) and order (%s)\n\n", r->ncolls,
	        r->comm_from_kernels ? "NCCL/RCCL kernels" : "gloo CPU ops");
	fprintf(f, "   %4s %14s %11s %11s %11s %11s %11s %6s  %s\n", "rank", "clock offset", "compute", "comm", "overlap",
	        "exposed", "waiting", "last", "file");
	for (int i = 0; i < r->nranks; i++) {
		const struct rank_stats *s = &r->ranks[i];
		fprintf(f, "   %4d %14s %11s %11s %11s %11s %11s %6u  ", s->rank, timefmt_offset(s->offset, a, sizeof a),
		        timefmt_dur(s->compute, b, sizeof b), timefmt_dur(s->comm, c, sizeof c),
		        timefmt_dur(s->overlap, d, sizeof d), timefmt_dur(s->exposed, e, sizeof e),
		        timefmt_dur(s->waiting, w8, sizeof w8), s->arrived_last);
		escape_term(f, r->traces[i]->path, strlen(r->traces[i]->path));
		fputc('\n', f);
	}
	fputs("   (compute: union of non-communication kernels, or of CPU ops without kernels; comm: union of the\n"
	      "   collectives; overlap: their intersection (HTA); exposed: comm not hidden by compute; waiting: the\n"
	      "   latest arrival minus own arrival, summed over collectives (TraceLens); last: times arrived last)\n",
	      f);
	if (r->straggler >= 0) {
		const struct rank_stats *s = &r->ranks[r->straggler];
		int64_t others = 0;
		int no = 0;
		for (int i = 0; i < r->nranks; i++)
			if (i != r->straggler) {
				others = tt_add(others, r->ranks[i].waiting);
				no++;
			}
		uint32_t shared = 0; /* collectives that two ranks or more have: the only ones with a last arrival */
		for (uint32_t k = 0; k < r->ncolls; k++)
			shared += r->colls[k].nranks_present >= 2;
		fprintf(f, "\n   straggler: rank %d: arrived last at %u of %u collectives; it waited %s in all, the other "
		           "ranks %s on average\n",
		        s->rank, s->arrived_last, shared, timefmt_dur(s->waiting, a, sizeof a),
		        timefmt_dur(no ? others / no : 0, b, sizeof b));
	} else {
		fputs("\n   straggler: none found (no collective seen on two ranks)\n", f);
	}
	fputs("\n   collectives (aligned; arrival = start; wait = latest arrival - own arrival)\n", f);
	for (uint32_t k = 0; k < r->ncolls && k < 40; k++) {
		const struct collective *cl = &r->colls[k];
		char kind[4 * sizeof cl->kind + 8];
		escape_term_buf(cl->kind, strlen(cl->kind), kind, sizeof kind);
		fprintf(f, "   #%-3u %-14s %u/%d ranks, last rank %d, skew %s, transfer %s\n", k, kind, cl->nranks_present,
		        r->nranks, cl->last >= 0 ? r->ranks[cl->last].rank : -1, timefmt_dur(cl->skew, a, sizeof a),
		        timefmt_dur(cl->transfer, b, sizeof b));
	}
	fputc('\n', f);
}

static void distributed_json(struct jsonw *w, const struct rank_report *r)
{
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
	jsonw_key(w, "collectives_from");
	jsonw_str(w, r->comm_from_kernels ? "kernels" : "gloo_ops");
	jsonw_key(w, "straggler");
	if (r->straggler >= 0)
		jsonw_int(w, r->ranks[r->straggler].rank);
	else
		jsonw_null(w);
	jsonw_key(w, "ranks");
	jsonw_array(w);
	for (int i = 0; i < r->nranks; i++) {
		const struct rank_stats *s = &r->ranks[i];
		jsonw_object(w);
		jsonw_key(w, "rank");
		jsonw_int(w, s->rank);
		jsonw_key(w, "path");
		jsonw_str(w, r->traces[i]->path);
		jsonw_key(w, "offset_ns");
		jsonw_int(w, s->offset);
		jsonw_key(w, "compute_ns");
		jsonw_int(w, s->compute);
		jsonw_key(w, "comm_ns");
		jsonw_int(w, s->comm);
		jsonw_key(w, "overlap_ns");
		jsonw_int(w, s->overlap);
		jsonw_key(w, "exposed_comm_ns");
		jsonw_int(w, s->exposed);
		jsonw_key(w, "waiting_ns");
		jsonw_int(w, s->waiting);
		jsonw_key(w, "arrived_last");
		jsonw_uint(w, s->arrived_last);
		jsonw_key(w, "collectives");
		jsonw_uint(w, s->collectives);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "collectives");
	jsonw_array(w);
	for (uint32_t k = 0; k < r->ncolls; k++) {
		const struct collective *cl = &r->colls[k];
		jsonw_object(w);
		jsonw_key(w, "kind");
		jsonw_str(w, cl->kind);
		jsonw_key(w, "index");
		jsonw_uint(w, cl->index);
		jsonw_key(w, "last_rank");
		if (cl->last >= 0)
			jsonw_int(w, r->ranks[cl->last].rank);
		else
			jsonw_null(w);
		jsonw_key(w, "skew_ns");
		jsonw_int(w, cl->skew);
		jsonw_key(w, "transfer_ns");
		jsonw_int(w, cl->transfer);
		jsonw_key(w, "per_rank");
		jsonw_array(w);
		for (int i = 0; i < r->nranks; i++) {
			const struct coll_rank *p = &cl->per[i];
			jsonw_object(w);
			jsonw_key(w, "rank");
			jsonw_int(w, r->ranks[i].rank);
			jsonw_key(w, "present");
			jsonw_bool(w, p->ref.track != TT_NONE);
			if (p->ref.track != TT_NONE) {
				jsonw_key(w, "start_ns");
				jsonw_int(w, p->start);
				jsonw_key(w, "end_ns");
				jsonw_int(w, p->end);
				jsonw_key(w, "wait_ns");
				jsonw_int(w, p->wait);
				jsonw_key(w, "overlap_ns");
				jsonw_int(w, p->overlap);
			}
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

void report_distributed(FILE *f, struct trace *const *traces, int n, bool json, int align)
{
	struct trace **ok = xcalloc((size_t)n + 1, sizeof *ok);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (traces[i]->status != LOAD_FAILED)
			ok[m++] = traces[i];
	struct rank_report r;
	ranks_analyse(ok, m, (enum align_mode)align, NULL, &r);
	if (json) {
		struct jsonw w;
		jsonw_init(&w, f);
		distributed_json(&w, &r);
		jsonw_finish(&w);
	} else {
		distributed_text(f, &r);
	}
	ranks_free(&r);
	free(ok);
}
