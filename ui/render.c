/* render.c: draws the view into the cell grid (see render.h).
 *
 * Coordinates: line 0 is the header, line 1 the time ruler, then the track area (one
 * line per track row, with group headings), the details panel and the status line.
 * The track column is on the left; timeline column x covers [col_time(x), col_time(x+1)).
 * Each timeline cell asks the index for the slice covering most of its time span
 * (index_row_dominant), so a frame costs rows x columns x O(log n) whatever the trace. */
#include "ui/render.h"
#include "ui/view_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/compiled.h"
#include "src/gaps.h"
#include "src/index.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/counter_track.h"
#include "ui/gpu_lines.h"
#include "lib/escape.h"
#include "ui/names.h"

#define PALETTE 12

uint8_t render_color_of(const struct trace *t, uint32_t name)
{
	return (uint8_t)(1 + strtab_hash(trace_str(t, name), strtab_len(&t->strings, name)) % PALETTE);
}

static void fill(struct grid *g, int x0, int x1, int y, uint32_t ch, enum cell_style st)
{
	for (int x = x0; x < x1; x++)
		grid_set(g, x, y, ch, st, 0);
}

/* Time T of the file as wall-clock UTC when it looks like the Unix epoch, else as file
 * time in seconds ("@12.345678901 s"). */
static void absolute_time(const struct trace *t, int64_t ts, char *buf, size_t n)
{
	int64_t abs = tt_add(t->has_base ? t->base_ns : 0, ts);
	if (abs < 0) {
		char off[48];
		snprintf(buf, n, "@%s", timefmt_offset(abs, off, sizeof off));
	} else if (model_time_is_epoch(abs)) {
		time_t secs = (time_t)(abs / 1000000000);
		struct tm tm;
		char day[32];
		gmtime_r(&secs, &tm);
		strftime(day, sizeof day, "%H:%M:%S", &tm);
		snprintf(buf, n, "%s.%09lld UTC", day, (long long)(abs % 1000000000));
	} else {
		snprintf(buf, n, "@%lld.%09lld s", (long long)(abs / 1000000000), (long long)(abs % 1000000000));
	}
}

static void header(struct grid *g, const struct view *v, const struct render_opts *o)
{
	char a[48], b[48], c[48], d[48], rk[48] = "", line[512], file[160];
	const struct trace *t = v->t;
	int64_t tw = view_timeline_w(v);
	fill(g, 0, g->w, 0, ' ', CS_HEADER);
	escape_term_buf(trace_name(t), strlen(trace_name(t)), file, sizeof file);
	if (v->nts > 1) {
		/* several ranks: how many and the alignment in force, instead of one file */
		if (v->align == ALIGN_COLLECTIVE)
			snprintf(rk, sizeof rk, "%d ranks  align: collective (residual %s)", v->nts,
			         timefmt_dur(v->rr.residual, c, sizeof c));
		else
			snprintf(rk, sizeof rk, "%d ranks  align: %s", v->nts, align_mode_name(v->align));
		file[0] = '\0';
	} else if (t->rank >= 0) {
		snprintf(rk, sizeof rk, "rank %d/%d  ", t->rank, t->world_size);
	}
	/* the window first: a long path is cut at the right edge, never the figures */
	if (v->abs_time) {
		absolute_time(t, v->t0, a, sizeof a);
		absolute_time(t, v->t1, b, sizeof b);
	} else {
		timefmt_offset(tt_sub(v->t0, v->start), a, sizeof a);
		timefmt_offset(tt_sub(v->t1, v->start), b, sizeof b);
	}
	/* a file cut short or with problems says so here, not only after quitting (Q shows them) */
	char mark[64] = "";
	uint32_t problems = 0;
	bool cut = false;
	for (int r = 0; r < v->nts; r++) {
		problems += quality_problems(v->ts[r]);
		cut |= v->ts[r]->status == LOAD_TRUNCATED;
	}
	if (v->loading >= 0) {
		/* still loading: what is drawn is what was read so far (ui/loading.c) */
		char got[32], all[32];
		if (v->loading_files > 1) /* the first file alone is shown until all have loaded */
			snprintf(mark, sizeof mark, "LOADING %.0f%% (file 1 of %d shown)  ", 100 * v->loading,
			         v->loading_files);
		else if (v->loading_total > 0 && v->loading_bytes >= v->loading_total)
			snprintf(mark, sizeof mark, "LOADING: all %s read, indexing  ",
			         timefmt_bytes((double)v->loading_total, all, sizeof all));
		else
			snprintf(mark, sizeof mark, "LOADING %.0f%% (%s of %s)  ", 100 * v->loading,
			         timefmt_bytes((double)v->loading_bytes, got, sizeof got),
			         timefmt_bytes((double)v->loading_total, all, sizeof all));
	} else if (problems > 0) {
		snprintf(mark, sizeof mark, "!%s %u data problem%s (Q)  ", cut ? " cut short," : "", problems,
		         problems == 1 ? "" : "s");
	}
	snprintf(line, sizeof line, "ttrace  %s .. %s (%s)  %s/col  %s%s%s", a, b,
	         timefmt_dur(v->t1 - v->t0, c, sizeof c), timefmt_dur((v->t1 - v->t0) / tw, d, sizeof d), mark, rk,
	         file);
	grid_text(g, 0, 0, g->w, line, CS_HEADER, 0);
	(void)o;
}

/* The round step (1, 2 or 5 times a power of ten, in ns) at or above APPROX. */
static int64_t nice_step(int64_t approx)
{
	int64_t p = 1;
	while (p <= INT64_MAX / 10 && p * 10 <= approx)
		p *= 10;
	if (approx <= p)
		return p;
	if (approx <= tt_mul(2, p))
		return tt_mul(2, p);
	if (approx <= tt_mul(5, p))
		return tt_mul(5, p);
	return tt_mul(10, p);
}

/* The timeline column of time T: negative left of the window, the width or more right of
 * it (clamped a little beyond both edges, whatever T). The counter tracks use it too. */
int render_col_of(const struct view *v, int64_t t)
{
	int tw = view_timeline_w(v);
	long double f = ((long double)t - (long double)v->t0) / (long double)(v->t1 - v->t0) * tw;
	if (f < -1)
		return -1;
	if (f > tw + 1)
		return tw + 1;
	return f < 0 ? -1 : (int)f;
}

static void ruler(struct grid *g, const struct view *v, const struct render_opts *o)
{
	int x0 = view_timeline_x(v), tw = view_timeline_w(v);
	char buf[48];
	fill(g, 0, g->w, 1, ' ', CS_RULER);
	grid_text(g, 0, 1, view_track_col_width(v), "time from start", CS_RULER, 0);
	/* a tick every 14 columns or so: at most tw / 14 + 2 ticks, whatever the window */
	int64_t step = nice_step(tt_mul((v->t1 - v->t0) / (tw > 0 ? tw : 1), 14));
	if (step < 1)
		step = 1;
	int64_t from = tt_sub(v->t0, v->start), to = tt_sub(v->t1, v->start);
	int64_t first = (from / step) * step;
	if (first < from)
		first = tt_add(first, step);
	/* the first tick shows its time from the start; the others, when the step is small
	 * next to it, how far they are from the first ("+2.00 us"), else their time from the
	 * start with the digits the step needs ("16.40 ms", "16.45 ms"): labels always differ */
	bool relative = first > tt_mul(step, 1000);
	int64_t first_shown = 0; /* the first labelled tick, once shown */
	bool shown = false;
	for (int64_t rel = first, k = 0; rel < to && k <= tw + 1; rel = tt_add(rel, step), k++) {
		int x = render_col_of(v, tt_add(rel, v->start));
		if (x < 0 || x >= tw)
			continue;
		grid_set(g, x0 + x, 1, o->ascii ? '|' : 0x2502, CS_RULER, 0);
		if (!shown || !relative) {
			if (relative)
				timefmt_offset(rel, buf, sizeof buf);
			else
				timefmt_tick(rel, step, buf, sizeof buf);
			first_shown = rel;
			shown = true;
		} else {
			buf[0] = '+';
			timefmt_tick(tt_sub(rel, first_shown), step, buf + 1, sizeof buf - 1);
		}
		grid_text(g, x0 + x + 1, 1, g->w, buf, CS_RULER, 0);
	}
	if (v->has_mark) {
		int a = render_col_of(v, v->mark0), b = render_col_of(v, v->mark1);
		for (int x = a < 0 ? 0 : a; x <= b && x < tw; x++)
			grid_set(g, x0 + x, 1, o->ascii ? '=' : 0x2550, CS_MARK, 0);
	}
	int cx = render_col_of(v, v->cursor);
	if (cx >= 0 && cx < tw && x0 + cx < g->w) {
		/* the cursor mark never hides a tick label's digits */
		uint32_t under = g->cells[1 * g->w + x0 + cx].ch;
		if (under == ' ' || under == '|' || under == 0x2502 || under == '=' || under == 0x2550)
			grid_set(g, x0 + cx, 1, o->ascii ? 'v' : 0x25bc, CS_CURSOR, 0);
	}
}

/* A rank's tint: the palette colour of its position. */
static uint8_t rank_color(int rank) { return (uint8_t)(1 + rank % PALETTE); }

static void row_label(const struct view *v, uint32_t id, char *buf, size_t n)
{
	char name[96], rk[24] = "";
	const struct trace *t = view_trace_of(v, id);
	const struct track *tr = view_track(v, id);
	trace_str_escaped(t, tr->name, name, sizeof name);
	if (v->nts > 1 && v->by_role)
		snprintf(rk, sizeof rk, "r%d ", view_rank_label(v, view_rank_of(id)));
	snprintf(buf, n, "  %s%s%s", rk, name, tr->kind == TRACK_GPU_COMM ? " [comm]" : "");
}

static void timeline_line(struct grid *g, struct view *v, const struct render_opts *o, const int64_t *colt, int y,
                          const struct view_line *l)
{
	const struct trace *t = view_trace_of(v, l->track);
	const struct track *tr = view_track(v, l->track);
	int rank = view_rank_of(l->track);
	const uint8_t *nm = v->name_matches[rank];
	int64_t sh = v->shift[rank];
	int x0 = view_timeline_x(v), tw = view_timeline_w(v);
	uint32_t run_slice = TT_NONE;
	int run_start = 0;
	int cx = render_col_of(v, v->cursor);
	int m0 = v->has_mark ? render_col_of(v, v->mark0) : -2, m1 = v->has_mark ? render_col_of(v, v->mark1) : -2;

	for (int x = 0; x <= tw; x++) {
		uint32_t s = TT_NONE;
		bool full = false;
		if (x < tw && l->row < tr->nrows) {
			int64_t a = tt_sub(colt[x], sh), b = tt_sub(colt[x + 1], sh);
			if (b <= a)
				b = tt_add(a, 1);
			s = index_row_dominant(tr, l->row, a, b);
			if (s != TT_NONE) {
				const struct slice *sl = &tr->slices[s];
				full = sl->ts <= a && tt_add(sl->ts, slice_dur(tr, sl)) >= b;
				enum cell_style st = CS_SLICE;
				if (v->sel.track == l->track && v->sel.idx == s)
					st = CS_SLICE_SEL;
				else if (nm != NULL && nm[slice_name(t, sl)])
					st = CS_MATCH;
				uint32_t ch;
				if (slice_cls(t, sl) == SC_GPU_ANNOTATION) {
					/* a label over GPU work, not work: a thin line in its own rows */
					ch = o->ascii ? '-' : 0x2500;
					if (st == CS_SLICE)
						st = CS_ANNOTATION;
				} else if (full)
					ch = o->ascii ? '#' : 0x2588;
				else if (index_row_busy(tr, l->row, a, b) >= tt_sub(b, a) / 2 + tt_sub(b, a) % 2)
					ch = o->ascii ? '=' : 0x258c;
				else
					ch = o->ascii ? '|' : 0x258f; /* tiny work never vanishes */
				grid_set(g, x0 + x, y, ch, st, render_color_of(t, slice_name(t, sl)));
			} else {
				uint32_t ch = ' ';
				enum cell_style st = CS_EMPTY;
				int64_t ga = tt_sub(colt[x], sh), gb = tt_sub(colt[x + 1], sh);
				if ((tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) &&
				    view_in_gap(v, rank, tr->device, ga, gb > ga ? gb : tt_add(ga, 1))) {
					ch = o->ascii ? '.' : 0x2591;
					st = CS_GAP;
				}
				if (x == cx) {
					ch = o->ascii ? ':' : 0x2506;
					st = CS_CURSOR;
				} else if (v->has_mark && (x == m0 || x == m1)) {
					ch = o->ascii ? '!' : 0x2502;
					st = CS_MARK;
				}
				grid_set(g, x0 + x, y, ch, st, 0);
			}
		}
		/* a label on each run of full columns of one slice, when it has room */
		uint32_t key = full ? s : TT_NONE;
		if (key != run_slice) {
			int len = x - run_start;
			if (run_slice != TT_NONE && len >= 3) {
				char name[256];
				const struct slice *sl = &tr->slices[run_slice];
				trace_str_escaped(t, slice_name(t, sl), name, sizeof name);
				const struct cell *c0 = &g->cells[y * g->w + x0 + run_start];
				grid_text(g, x0 + run_start, y, x0 + x, name, (enum cell_style)c0->style, c0->color);
			}
			run_slice = key;
			run_start = x;
		}
	}
}

static void track_area(struct grid *g, struct view *v, const struct render_opts *o)
{
	int y0 = view_area_y(v), ah = view_area_h(v), tcw = view_track_col_width(v), tw = view_timeline_w(v);
	/* every column's start time, once per frame: the same for every line */
	int64_t *colt = xmalloc(((size_t)tw + 2) * sizeof *colt);
	for (int x = 0; x <= tw + 1; x++)
		colt[x] = view_col_time(v, x);
	for (int i = 0; i < ah; i++) {
		int li = v->top + i, y = y0 + i;
		fill(g, 0, g->w, y, ' ', CS_EMPTY);
		grid_set(g, tcw, y, o->ascii ? '|' : 0x2502, CS_TRACK, 0);
		if (li < 0 || (uint32_t)li >= v->nlines) {
			fill(g, 0, tcw, y, ' ', CS_TRACK);
			continue;
		}
		const struct view_line *l = &v->lines[li];
		bool sel = li == v->sel_line;
		char label[160];
		if (view_line_is_counter(l)) {
			fill(g, 0, tcw, y, ' ', sel ? CS_HILITE : CS_TRACK);
			counter_track_label(v, l, label, sizeof label);
			grid_text(g, 0, y, tcw, label, sel ? CS_HILITE : CS_TRACK, 0);
			counter_track_draw(g, v, o, colt, y, l);
			continue;
		}
		if (l->track == TT_NONE && (l->row == VIEW_ROW_UTIL || l->row == VIEW_ROW_SM)) {
			/* the device's utilization and SM efficiency lines (ui/gpu_lines.h) */
			fill(g, 0, tcw, y, ' ', sel ? CS_HILITE : CS_TRACK);
			grid_text(g, 0, y, tcw, l->row == VIEW_ROW_UTIL ? "  utilization" : "  SM efficiency",
			          sel ? CS_HILITE : CS_TRACK, 0);
			gpu_lines_draw(g, v, o, colt, y, l);
			continue;
		}
		if (l->track == TT_NONE) {
			const struct view_group *gr = &v->groups[l->group];
			/* a group of counters only (a rank's memory) counts its counters */
			snprintf(label, sizeof label, "%s %s (%u)",
			         gr->collapsed ? (o->ascii ? "+" : "\u25b8") : (o->ascii ? "-" : "\u25be"), gr->title,
			         gr->ntracks ? gr->ntracks : gr->ncounters);
			fill(g, 0, g->w, y, ' ', CS_GROUP);
			/* several ranks: each rank's headings tinted with its colour */
			grid_text(g, 0, y, tcw, label, sel ? CS_HILITE : CS_GROUP,
			          v->nts > 1 && gr->rank >= 0 && !sel ? rank_color(gr->rank) : 0);
			continue;
		}
		fill(g, 0, tcw, y, ' ', sel ? CS_HILITE : CS_TRACK);
		const struct track *ltr = view_track(v, l->track);
		uint16_t shown = layout_rows_shown(v, ltr);
		if (l->row == 0)
			row_label(v, l->track, label, sizeof label);
		else if (l->row + 1 == shown && shown < ltr->nrows) /* the last row of a folded thread */
			snprintf(label, sizeof label, "    %u +%u rows (z)", l->row, ltr->nrows - shown);
		else
			snprintf(label, sizeof label, "    %u", l->row);
		grid_text(g, 0, y, tcw, label, sel ? CS_HILITE : CS_TRACK, 0);
		timeline_line(g, v, o, colt, y, l);
	}
	free(colt);
}

/* The args of the selected slice, one per line and wrapped to the width, in lines Y .. Y1
 * of G: as many as fit, from the page the details panel is at (I pages). They were read
 * when the selection changed (view_prepare_details): drawing reads no file. */
static void args_lines_draw(struct grid *g, struct view *v, int y, int y1)
{
	if (v->args_text == NULL || v->args_for.track != v->sel.track || v->args_for.idx != v->sel.idx)
		return;
	/* display lines: each arg from its start, its continuations indented */
	int w = g->w - 2, avail = y1 - y, total = 0;
	if (w < 8 || avail <= 0)
		return;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && total > avail && avail > 1)
			avail--; /* the last line says there is more */
		int line = 0, first = v->details_page * avail;
		for (const char *p = v->args_text; *p != '\0';) {
			const char *end = strchr(p, '\n');
			if (end == NULL) /* every line ends with one; a guard */
				end = p + strlen(p);
			bool cont = false;
			do { /* one display line: up to W code points (w - 4 on continuations) */
				int room = cont ? w - 4 : w, cps = 0;
				const char *q = p;
				while (q < end && (cps < room || (*q & 0xc0) == 0x80)) {
					if ((*q & 0xc0) != 0x80)
						cps++;
					if (cps > room)
						break;
					q++;
				}
				if (pass == 1 && line >= first && line < first + avail) {
					char buf[1024];
					int len =
						(int)(q - p) < (int)sizeof buf - 5 ? (int)(q - p) : (int)sizeof buf - 5;
					snprintf(buf, sizeof buf, "%s%.*s", cont ? "    " : "", len, p);
					grid_text(g, 1, y + line - first, g->w, buf, CS_DETAILS, 0);
				}
				line++;
				p = q;
				cont = true;
			} while (p < end);
			p = *end != '\0' ? end + 1 : end;
		}
		total = line;
		v->details_pages = (total + avail - 1) / avail;
		if (v->details_page >= v->details_pages)
			v->details_page = 0;
	}
	if (total > avail) { /* say there is more, and how to see it, on a line of its own */
		char more[96];
		snprintf(more, sizeof more, " %d more lines of args: I %s (page %d/%d) ",
		         total - avail * (v->details_page + 1) > 0 ? total - avail * (v->details_page + 1) : 0,
		         v->details_big ? "pages" : "enlarges", v->details_page + 1, v->details_pages);
		grid_text(g, 1, y1 - 1, g->w, more, CS_HILITE, 0);
	}
}

static void details(struct grid *g, struct view *v, const struct render_opts *o)
{
	const struct trace *t = v->t;
	int y0 = view_area_y(v) + view_area_h(v), dh = view_details_h(v);
	char line[1024], a[48], b[48], c[48], name[512];
	for (int i = 0; i < dh; i++)
		fill(g, 0, g->w, y0 + i, ' ', CS_DETAILS);
	fill(g, 0, g->w, y0, o->ascii ? '-' : 0x2500, CS_DETAILS);
	grid_text(g, 2, y0, g->w, " details ", CS_DETAILS, 0);
	if (v->gap_shown) {
		const struct gap *gp = &v->gap_cur;
		char rk[24] = "";
		if (v->nts > 1)
			snprintf(rk, sizeof rk, "rank %d ", view_rank_label(v, gp->rank));
		snprintf(line, sizeof line, "gap %s on %s%s %d at %s: %s (HTA: %s)",
		         timefmt_dur(tt_sub(gp->end, gp->start), b, sizeof b), rk,
		         trace_device_noun(view_rank_trace(v, gp->rank), gp->device), gp->device,
		         timefmt_offset(tt_sub(gp->start, v->start), a, sizeof a), gap_cause_text(gp->cause),
		         hta_class_key(gp->hta));
		grid_text(g, 1, y0 + 1, g->w, line, CS_HILITE, 0);
		y0++;
		dh--;
		if (gp->user.track != TT_NONE && gp->cpu.track != TT_NONE && dh > 2) {
			/* the user's line, and the library frames from it down to the CPU slice */
			struct slice_ref user = { gp->user.track & VIEW_TRACK_MASK, gp->user.idx },
					 cpu = { gp->cpu.track & VIEW_TRACK_MASK, gp->cpu.idx };
			char chain[960], esc[960];
			gaps_user_chain(view_rank_trace(v, gp->rank), user, cpu, chain, sizeof chain);
			escape_term_buf(chain, strlen(chain), esc, sizeof esc);
			snprintf(line, sizeof line, "your code: %s", esc);
			grid_text(g, 1, y0 + 1, g->w, line, CS_DETAILS, 0);
			y0++;
			dh--;
		}
	}
	const struct view_line *cur = view_cur_line(v);
	if (cur != NULL && view_line_is_counter(cur)) {
		/* on a counter, its values at the cursor, whatever slice is selected */
		counter_track_details(g, v, cur, y0 + 1, dh - 1);
		return;
	}
	if (cur != NULL && cur->track == TT_NONE && (cur->row == VIEW_ROW_UTIL || cur->row == VIEW_ROW_SM)) {
		gpu_lines_details(g, v, cur, y0 + 1, dh - 1); /* the bucket at the cursor */
		return;
	}
	if (v->sel.track == TT_NONE) {
		snprintf(line, sizeof line,
		         "cursor at %s. Enter selects the slice under the cursor; / searches; ? lists "
		         "every key.",
		         timefmt_offset(tt_sub(v->cursor, v->start), a, sizeof a));
		grid_text(g, 1, y0 + 1, g->w, line, CS_DETAILS, 0);
		return;
	}
	t = view_trace_of(v, v->sel.track);
	const struct track *tr = view_track(v, v->sel.track);
	char rk[24] = "";
	if (v->nts > 1)
		snprintf(rk, sizeof rk, "rank %d ", view_rank_label(v, view_rank_of(v->sel.track)));
	const struct slice *s = &tr->slices[v->sel.idx];
	char tname[96], cat[64];
	trace_str_escaped(t, slice_name(t, s), name, sizeof name);
	trace_str_escaped(t, tr->name, tname, sizeof tname);
	trace_str_escaped(t, slice_cat(t, s), cat, sizeof cat);
	grid_text(g, 1, y0 + 1, g->w, name, CS_HILITE, 0);
	int64_t self = slice_dur(tr, s);
	if (slice_depth(t, s) + 1 < tr->nrows && tr->kind == TRACK_CPU)
		self -= index_row_busy(tr, (uint16_t)(slice_depth(t, s) + 1), s->ts, s->ts + slice_dur(tr, s));
	snprintf(line, sizeof line, "%s on %s%s, row %u: start %s, dur %s, self %s", cat[0] ? cat : "(no category)", rk,
	         tname, slice_depth(t, s),
	         timefmt_offset(tt_sub(tt_add(s->ts, view_shift_of(v, v->sel.track)), v->start), a, sizeof a),
	         timefmt_dur(slice_dur(tr, s), b, sizeof b), timefmt_dur(self, c, sizeof c));
	grid_text(g, 1, y0 + 2, g->w, line, CS_DETAILS, 0);
	int yl = y0 + 3;
	if (slice_gpu(tr, s) != TT_NONE && yl < y0 + dh) {
		const struct gpu_info *gi = &t->gpu[slice_gpu(tr, s)];
		char peer[512] = "", op[256] = "";
		if (gi->peer.track != TT_NONE) {
			/* the operator that launched it, past launcher frames and a graph's replay (src/compiled.h) */
			const struct track *pt = &t->tracks[gi->peer.track];
			const struct slice *ps = &pt->slices[gi->peer.idx];
			trace_str_escaped(t, slice_name(t, ps), peer, sizeof peer);
			uint32_t par = compiled_launching_slice(t, gi->peer, NULL);
			if (par != TT_NONE)
				trace_str_escaped(t, slice_name(t, &pt->slices[par]), op, sizeof op);
		}
		if (slice_cls(t, s) == SC_MEMCPY || slice_cls(t, s) == SC_MEMSET)
			snprintf(line, sizeof line, "%s%lld bytes  launched by %s%s%s (] [ follow)",
			         gpu_bytes(t, gi) >= 0 ? "" : "(no byte count) ",
			         (long long)(gpu_bytes(t, gi) >= 0 ? gpu_bytes(t, gi) : 0), op[0] ? op : "",
			         op[0] ? " via " : "", peer[0] ? peer : "(no launch)");
		else if (slice_cls(t, s) == SC_KERNEL) {
			const struct kernel_launch *kl = gpu_launch(t, gi);
			char occ[32] = "occupancy ?"; /* NaN: the trace does not give it */
			if (kl->occupancy == kl->occupancy)
				snprintf(occ, sizeof occ, "occupancy %.0f%%", (double)kl->occupancy);
			snprintf(line, sizeof line, "grid %d,%d,%d block %d,%d,%d %s  launched by %s%s%s%s",
			         kl->grid[0], kl->grid[1], kl->grid[2], kl->block[0], kl->block[1], kl->block[2], occ,
			         op[0] ? op : "", op[0] ? " via " : "", peer[0] ? peer : "(no launch)",
			         " (] [ follow)");
		} else
			snprintf(line, sizeof line, "launched %s (] follows)", peer[0] ? peer : "nothing on the GPU");
		grid_text(g, 1, yl++, g->w, line, CS_DETAILS, 0);
	}
	if (yl < y0 + dh)
		args_lines_draw(g, v, yl, y0 + dh);
}

void render_timeline(struct grid *g, struct view *v, const struct render_opts *o)
{
	header(g, v, o);
	ruler(g, v, o);
	track_area(g, v, o);
	details(g, v, o);
}

void render_status(struct grid *g, const struct view *v, const char *hints)
{
	int y = g->h - 1;
	char line[512], a[48];
	if (hints == NULL)
		hints = "";
	fill(g, 0, g->w, y, ' ', CS_STATUS);
	if (v->status[0])
		snprintf(line, sizeof line, "%s", v->status);
	else if (v->has_mark)
		snprintf(line, sizeof line, "mark %s", timefmt_dur(tt_sub(v->mark1, v->mark0), a, sizeof a));
	else
		line[0] = '\0';
	if (v->ranging && !v->status[0]) {
		size_t n = strlen(line);
		snprintf(line + n, sizeof line - n, "%srange %s", n ? "  " : "",
		         timefmt_dur(v->cursor > v->range_anchor ? tt_sub(v->cursor, v->range_anchor)
		                                                 : tt_sub(v->range_anchor, v->cursor),
		                     a, sizeof a));
	}
	grid_text(g, 0, y, g->w, line, CS_STATUS, 0);
	int hx = g->w - (int)strlen(hints);
	if (hx > (int)strlen(line) + 2)
		grid_text(g, hx, y, g->w, hints, CS_STATUS, 0);
}
