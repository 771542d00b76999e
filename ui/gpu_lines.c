/* gpu_lines.c: a GPU group's utilization and SM efficiency lines (see gpu_lines.h). */
#include "ui/gpu_lines.h"

#include <math.h>
#include <stdio.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "src/analysis.h"

bool gpu_lines_has_sm(struct view *v, int rank, int32_t device)
{
	const struct gpu_curves_device *d = gpu_curves_device(trace_gpu_curves(v->ts[rank]), device);
	return d != NULL && d->has_bps;
}

bool gpu_lines_bucket(struct view *v, int rank, int32_t device, int64_t ca, int64_t cb, struct gpu_bucket *out)
{
	const struct trace *t = v->ts[rank];
	const struct gpu_curves_device *d = gpu_curves_device(trace_gpu_curves(v->ts[rank]), device);
	int64_t sh = v->shift[rank], start = t->start, end = t->end > t->start ? t->end : tt_add(t->start, 1);
	int64_t a = tt_sub(ca, sh), b = tt_sub(cb, sh);
	if (b <= a)
		b = tt_add(a, 1);
	int64_t mid = a + (b - a) / 2;
	if (d == NULL || mid < start || mid >= end)
		return false;
	/* the plugin's size for the part of the trace in the window */
	int64_t w0 = tt_sub(v->t0, sh), w1 = tt_sub(v->t1, sh);
	if (w0 < start)
		w0 = start;
	if (w1 > end)
		w1 = end;
	int64_t size = gpu_bucket_ns(w1 > w0 ? w1 - w0 : 1);
	if (b - a > size) { /* a column longer than a bucket: the column */
		out->a = a;
		out->b = b;
		out->size = 0;
	} else {
		gpu_bucket_of(start, end, size, mid, &out->a, &out->b);
		out->size = size;
	}
	double len = (double)(out->b - out->a);
	out->util = gpu_curve_integral(&d->busy, out->a, out->b) / len;
	out->sm = d->has_bps ? gpu_curve_integral(&d->sm, out->a, out->b) / len : NAN;
	return true;
}

/* The shade of a share: 0, four steps, full. */
static int level_of(double share)
{
	if (!(share > 0))
		return 0;
	if (share >= 1)
		return 4;
	int lvl = 1 + (int)(share * 3);
	return lvl > 3 ? 3 : lvl;
}

void gpu_lines_draw(struct grid *g, struct view *v, const struct render_opts *o, const int64_t *colt, int y,
                    const struct view_line *l)
{
	static const uint32_t shades[5] = { ' ', 0x2591, 0x2592, 0x2593, 0x2588 };
	static const char ascii[5] = { ' ', '.', ':', '+', '#' };
	const struct view_group *gr = &v->groups[l->group];
	int x0 = view_timeline_x(v), tw = view_timeline_w(v);
	int64_t sh = v->shift[gr->rank];
	struct gpu_bucket bk = { 0, 0, 0, 0, 0 };
	bool have = false;
	for (int x = 0; x < tw; x++) {
		int64_t ca = colt[x], cb = colt[x + 1] > colt[x] ? colt[x + 1] : tt_add(colt[x], 1);
		int64_t a = tt_sub(ca, sh), mid = a + (tt_sub(cb, sh) - a) / 2;
		/* columns inside the bucket of the last one share its figures */
		if (!(have && bk.size > 0 && mid >= bk.a && mid < bk.b))
			have = gpu_lines_bucket(v, gr->rank, gr->device, ca, cb, &bk);
		if (!have)
			continue;
		int lvl = level_of(l->row == VIEW_ROW_UTIL ? bk.util : bk.sm);
		if (lvl == 0 && l->row == VIEW_ROW_UTIL && view_in_gap(v, gr->rank, gr->device, a, tt_sub(cb, sh)))
			grid_set(g, x0 + x, y, o->ascii ? '_' : 0x2581, CS_GAP, 0);
		else
			grid_set(g, x0 + x, y, o->ascii ? (uint32_t)ascii[lvl] : shades[lvl], CS_UTIL, 0);
	}
}

static const char *pct(double f, char *buf, size_t n)
{
	if (isnan(f))
		snprintf(buf, n, "--");
	else
		snprintf(buf, n, "%.1f%%", f * 100);
	return buf;
}

void gpu_lines_details(struct grid *g, struct view *v, const struct view_line *l, int y0, int n)
{
	const struct view_group *gr = &v->groups[l->group];
	char line[512], rk[24] = "", a[48], b[48], c[48], u[24], s[24];
	if (v->nts > 1)
		snprintf(rk, sizeof rk, "rank %d ", view_rank_label(v, gr->rank));
	int x = render_col_of(v, v->cursor);
	struct gpu_bucket bk;
	const char *dev = trace_device_noun(v->ts[gr->rank], gr->device);
	if (x < 0 || x >= view_timeline_w(v) ||
	    !gpu_lines_bucket(v, gr->rank, gr->device, view_col_time(v, x), view_col_time(v, x + 1), &bk)) {
		snprintf(line, sizeof line, "%s%s %d: the cursor is outside the trace", rk, dev, gr->device);
		if (n > 0)
			grid_text(g, 1, y0, g->w, line, CS_HILITE, 0);
		return;
	}
	int64_t sh = v->shift[gr->rank];
	snprintf(line, sizeof line, "%s%s %d, %s to %s: utilization %s, est. SM efficiency %s", rk, dev, gr->device,
	         timefmt_offset(tt_sub(tt_add(bk.a, sh), v->start), a, sizeof a),
	         timefmt_offset(tt_sub(tt_add(bk.b, sh), v->start), b, sizeof b), pct(bk.util, u, sizeof u),
	         pct(bk.sm, s, sizeof s));
	if (n > 0)
		grid_text(g, 1, y0, g->w, line, CS_HILITE, 0);
	if (n > 1) {
		if (bk.size > 0)
			snprintf(line, sizeof line,
			         "buckets of %s: the TensorBoard plugin's 10^k us, at most 100 across the window "
			         "(zoomed out: the plugin's own)",
			         timefmt_dur(bk.size, c, sizeof c));
		else
			snprintf(line, sizeof line, "a column (%s) is longer than a bucket: each column is its own",
			         timefmt_dur(bk.b - bk.a, c, sizeof c));
		grid_text(g, 1, y0 + 1, g->w, line, CS_DETAILS, 0);
	}
	if (n > 2)
		grid_text(g, 1, y0 + 2, g->w,
		          "utilization: time kernels run (not memcpy, memset); SM efficiency: min(1, sum of "
		          "blocks per SM) over time; both / the bucket",
		          CS_DETAILS, 0);
}
