/* progress_line.c: the load's progress line for people (progress_line.h). */
#include "cmd/progress_line.h"

void progress_line_draw(FILE *f, const struct load_progress *p, bool final)
{
	double mbs = p->elapsed > 0 ? (double)p->data_bytes / 1e6 / p->elapsed : 0;
	if (p->total_file_bytes > 0) {
		double pct = 100.0 * (double)p->file_bytes / (double)p->total_file_bytes;
		if (pct > 100)
			pct = 100;
		fprintf(f, "\rttrace: loading %d/%d: %5.1f%%  %.0f MB at %.0f MB/s%s", p->files_done, p->files, pct,
		        (double)p->data_bytes / 1e6, mbs, final ? "\n" : "  ");
	} else {
		fprintf(f, "\rttrace: loading %d/%d: %.0f MB at %.0f MB/s%s", p->files_done, p->files,
		        (double)p->data_bytes / 1e6, mbs, final ? "\n" : "  ");
	}
	fflush(f);
}

void progress_line_report(void *ctx, const struct load_progress *p, bool final) { progress_line_draw(ctx, p, final); }
