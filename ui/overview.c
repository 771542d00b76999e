/* overview.c: the Overview report (see overview.h). */
#include "ui/overview.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "lib/timefmt.h"
#include "src/analysis.h"
#include "ui/escape.h"
#include "ui/gpu_summary.h"
#include "ui/jsonw.h"
#include "ui/report.h"
#include "ui/table.h"

/* What the window is: the plugin's steps, or the whole CPU span when there is none. */
static const char *window_text(const struct gap_report *g, char *buf, size_t n)
{
	char a[48];
	if (g->from_steps && g->nsteps == 1)
		snprintf(buf, n, "ProfilerStep#%lld as the TensorBoard plugin stretches it to the device, %s",
		         (long long)g->steps[0].number, timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	else if (g->from_steps && g->nsteps > 0)
		snprintf(buf, n, "ProfilerStep#%lld..#%lld as the TensorBoard plugin stretches them to the device, %s",
		         (long long)g->steps[0].number, (long long)g->steps[g->nsteps - 1].number,
		         timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	else
		snprintf(buf, n, "no ProfilerStep: the span of the CPU operators stretched to the device, %s",
		         timefmt_dur(g->tb_end - g->tb_start, a, sizeof a));
	return buf;
}

static void overview_json(struct jsonw *w, struct trace *t)
{
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	const struct gpu_metrics *m = trace_gpu_metrics(t);
	jsonw_key(w, "window");
	jsonw_object(w);
	jsonw_key(w, "start_ns");
	jsonw_int(w, g->tb_start);
	jsonw_key(w, "end_ns");
	jsonw_int(w, g->tb_end);
	jsonw_key(w, "from_steps");
	jsonw_bool(w, g->from_steps);
	jsonw_end_object(w);
	struct column cols[GPU_SUMMARY_COLS];
	struct table tb;
	table_init(&tb, cols, gpu_summary_columns(cols));
	gpu_summary_fill(&tb, t, m);
	jsonw_key(w, "devices");
	table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	table_free(&tb);
}

static void overview_text(FILE *f, struct trace *t)
{
	const struct gap_report *g = &trace_gaps(t, ANALYSIS_DEFAULT_MIN_GAP)->r;
	const struct gpu_metrics *m = trace_gpu_metrics(t);
	char buf[256];
	fprintf(f, "   window: %s\n\n", window_text(g, buf, sizeof buf));
	if (m->n == 0) {
		fputs("   GPU summary: no GPU kernel in this trace (record with ProfilerActivity.CUDA)\n\n", f);
		return;
	}
	struct column cols[GPU_SUMMARY_COLS];
	struct table tb;
	table_init(&tb, cols, gpu_summary_columns(cols));
	gpu_summary_fill(&tb, t, m);
	fputs("   GPU summary (the TensorBoard plugin's definitions over the window; see ttrace(1))\n", f);
	table_write_text(f, &tb, NULL, 0, TABLE_ALL, REPORT_WIDTH, "   ");
	table_free(&tb);
	fputs("   (utilization: |union of kernels| / window; SM efficiency: min(1, sum of blocks per SM) over time /\n"
	      "   window; occupancy: time-weighted mean of est. achieved occupancy; Tensor Cores: kernel time by name,\n"
	      "   the plugin's list and newer names; TC (plugin list): its list alone)\n",
	      f);
	for (uint32_t i = 0; i < m->n; i++)
		if (!m->devices[i].has_bps || !m->devices[i].has_occ)
			fprintf(f, "   GPU %d: no kernel carries %s (Kineto writes them for CUDA kernels only)\n",
			        m->devices[i].device,
			        !m->devices[i].has_bps && !m->devices[i].has_occ ? "'blocks per SM' or 'est. achieved occupancy %'"
			        : !m->devices[i].has_bps                         ? "'blocks per SM'"
			                                                         : "'est. achieved occupancy %'");
	fputc('\n', f);
}

void report_overview(FILE *f, struct trace *const *traces, int n, bool json)
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
			overview_json(&w, t);
			jsonw_end_object(&w);
		} else {
			fputs("== ", f);
			escape_term(f, t->path, strlen(t->path));
			fputc('\n', f);
			overview_text(f, t);
		}
	}
	if (json) {
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	}
}
