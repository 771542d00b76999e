/* layout.c: where things are on the timeline's screen, and its lines: groups of tracks
 * (a process, a GPU, or a role when several ranks are laid out by role), each track's
 * rows, a device's utilization line, the memory counter tracks (ui/counter_track.h).
 *
 * A GPU's memory counter goes right under its utilization line, at the top of the GPU's
 * group: both are the whole device over time, read together, and stay in sight above a
 * long list of streams. Counters of no GPU group (cpu, a device that ran no kernel) form a
 * group "memory" at the end of their rank; by role, every rank's counters form the last
 * group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/index.h"
#include "lib/xalloc.h"
#include "ui/counter_track.h"
#include "ui/gpu_lines.h"
#include "lib/escape.h"
#include "ui/view_state.h"

int view_details_h(const struct view *v)
{
	int h = v->h >= 30 ? 7 : v->h >= 20 ? 5 : 3;
	/* enlarged: all but the header, the ruler, four lines of tracks and the status line */
	if (v->details_big && v->h - 7 > h)
		h = v->h - 7;
	return h;
}
int view_track_col_width(const struct view *v)
{
	int w = v->w / 4;
	return w < 14 ? 14 : w > 36 ? 36 : w;
}
int view_timeline_x(const struct view *v) { return view_track_col_width(v) + 1; }
int view_timeline_w(const struct view *v)
{
	int w = v->w - view_timeline_x(v);
	return w > 1 ? w : 1;
}
int view_area_y(const struct view *v)
{
	(void)v;
	return 2;
}
int view_area_h(const struct view *v)
{
	int h = v->h - view_area_y(v) - view_details_h(v) - 1;
	return h > 1 ? h : 1;
}

static bool is_gpu(const struct track *tr) { return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM; }

/* Tracks of one group: a CPU process (pid), a GPU device, or the rest. */
static bool same_group(const struct track *a, const struct track *b)
{
	if (is_gpu(a) != is_gpu(b) || (a->kind == TRACK_OTHER) != (b->kind == TRACK_OTHER))
		return false;
	if (is_gpu(a))
		return a->device == b->device;
	if (a->kind == TRACK_OTHER)
		return true;
	return a->pid == b->pid && a->pid_is_str == b->pid_is_str;
}

uint16_t layout_rows_shown(const struct view *v, const struct track *tr)
{
	uint16_t rows = tr->nrows ? tr->nrows : 1;
	if (v->fold_rows > 0 && tr->kind == TRACK_CPU && rows > v->fold_rows)
		rows = v->fold_rows;
	return rows;
}

/* Lines the layout takes with CPU threads folded to FOLD rows (0: all). */
static uint32_t lines_with(struct view *v, uint16_t fold)
{
	uint16_t saved = v->fold_rows;
	v->fold_rows = fold;
	uint32_t n = 0;
	for (uint32_t g = 0; g < v->ngroups; g++) {
		const struct view_group *gr = &v->groups[g];
		n++;
		if (gr->collapsed)
			continue;
		n += (gr->device >= 0) + 2 * gr->ncounters;
		if (gr->device >= 0 && !v->partial && !v->deferred && gpu_lines_has_sm(v, gr->rank, gr->device))
			n++; /* its SM efficiency line */
		for (uint32_t k = 0; k < gr->ntracks; k++)
			n += layout_rows_shown(v, view_track(v, v->order[gr->first_track_order + k]));
	}
	v->fold_rows = saved;
	return n;
}

void layout_fold_to_fit(struct view *v)
{
	int area = view_area_h(v);
	bool gpu = false;
	for (uint32_t i = 0; i < v->ngroups; i++)
		gpu |= v->groups[i].device >= 0;
	v->fold_rows = 0;
	if (!gpu || lines_with(v, 0) <= (uint32_t)area)
		return; /* everything fits, or no GPU to bring into view */
	v->fold_rows = 2;
	for (uint16_t k = 8; k > 2; k--)
		if (lines_with(v, k) <= (uint32_t)area) {
			v->fold_rows = k;
			break;
		}
}

void layout_build_lines(struct view *v)
{
	uint32_t cap = 16;
	v->nlines = 0;
	free(v->lines);
	v->lines = xmalloc(cap * sizeof *v->lines);
	for (uint32_t g = 0; g < v->ngroups; g++) {
		const struct view_group *gr = &v->groups[g];
		if (v->nlines + 1 >= cap)
			v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
		v->lines[v->nlines++] = (struct view_line){ TT_NONE, VIEW_ROW_HEADING, g, 0 };
		if (gr->collapsed)
			continue;
		if (gr->device >= 0 && !v->partial && !v->deferred) { /* of part of the kernels: wrong */
			if (v->nlines + 1 >= cap)
				v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
			v->lines[v->nlines++] = (struct view_line){ TT_NONE, VIEW_ROW_UTIL, g, 0 };
			if (gpu_lines_has_sm(v, gr->rank, gr->device)) {
				if (v->nlines + 1 >= cap)
					v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
				v->lines[v->nlines++] = (struct view_line){ TT_NONE, VIEW_ROW_SM, g, 0 };
			}
		}
		for (uint32_t k = 0; k < gr->ncounters; k++) {
			uint32_t c = v->counter_order[gr->first_counter + k];
			if (v->nlines + 2 >= cap)
				v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
			v->lines[v->nlines++] = (struct view_line){ TT_NONE, VIEW_ROW_COUNTER_TOP, g, c };
			v->lines[v->nlines++] = (struct view_line){ TT_NONE, VIEW_ROW_COUNTER_LOW, g, c };
		}
		for (uint32_t k = 0; k < gr->ntracks; k++) {
			uint32_t ti = v->order[gr->first_track_order + k];
			uint16_t rows = layout_rows_shown(v, view_track(v, ti));
			for (uint16_t r = 0; r < rows; r++) {
				if (v->nlines + 1 >= cap)
					v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
				v->lines[v->nlines++] = (struct view_line){ ti, r, g, 0 };
			}
		}
	}
	if (v->sel_line >= (int)v->nlines)
		v->sel_line = v->nlines ? (int)v->nlines - 1 : 0;
}

/* The role of a track in the by-role layout: 0 compute streams, 1 communication streams,
 * 2 the main CPU thread of each rank (the busiest), 3 the rest. */
static int role_of(const struct trace *t, uint32_t ti, uint32_t main_thread)
{
	const struct track *tr = &t->tracks[ti];
	if (tr->kind == TRACK_GPU_COMPUTE)
		return 0;
	if (tr->kind == TRACK_GPU_COMM)
		return 1;
	return ti == main_thread ? 2 : 3;
}

static uint32_t main_thread_of(const struct trace *t)
{
	uint32_t best = TT_NONE;
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].kind == TRACK_CPU &&
		    (best == TT_NONE || t->tracks[i].busy_total > t->tracks[best].busy_total))
			best = i;
	return best;
}

/* Places rank R's counters not yet PLACED: under each GPU group of the rank from group
 * FIRST on, then in a group of their own at the end. */
static void place_counters(struct view *v, int r, uint32_t first, bool *placed, uint32_t *nc)
{
	for (uint32_t g = first; g < v->ngroups; g++) {
		struct view_group *gr = &v->groups[g];
		gr->first_counter = *nc;
		if (gr->device < 0)
			continue;
		for (uint32_t c = 0; c < v->ncounters; c++)
			if (!placed[c] && v->counters[c].rank == r &&
			    counter_track_on_gpu(&v->counters[c], gr->device)) {
				placed[c] = true;
				v->counter_order[(*nc)++] = c;
				gr->ncounters++;
			}
	}
	uint32_t from = *nc;
	for (uint32_t c = 0; c < v->ncounters; c++)
		if (!placed[c] && v->counters[c].rank == r) {
			placed[c] = true;
			v->counter_order[(*nc)++] = c;
		}
	if (*nc > from) {
		struct view_group *g = &v->groups[v->ngroups++];
		char rk[24] = "";
		if (v->nts > 1)
			snprintf(rk, sizeof rk, "r%d ", view_rank_label(v, r));
		g->rank = r;
		g->device = -1;
		g->first_counter = from;
		g->ncounters = *nc - from;
		snprintf(g->title, sizeof g->title, "%smemory", rk);
	}
}

void layout_build_groups(struct view *v)
{
	uint32_t total = 0, k = 0, nc = 0;
	for (int r = 0; r < v->nts; r++)
		total += v->ts[r]->ntracks;
	free(v->order);
	free(v->groups);
	free(v->counter_order);
	v->order = xmalloc((total ? total : 1) * sizeof *v->order);
	v->counter_order = xmalloc((v->ncounters ? v->ncounters : 1) * sizeof *v->counter_order);
	/* a group per track at most, four roles and the counters' group, a memory group per rank */
	v->groups = xcalloc(total + 5 + (size_t)v->nts, sizeof *v->groups);
	v->ngroups = 0;
	if (v->by_role) {
		static const char *titles[4] = { "compute streams", "communication streams", "main CPU threads",
			                         "other tracks" };
		/* each rank's track order and role, once */
		uint32_t **ord = xcalloc((size_t)v->nts, sizeof *ord);
		uint8_t **role = xcalloc((size_t)v->nts, sizeof *role);
		for (int r = 0; r < v->nts; r++) {
			const struct trace *t = v->ts[r];
			uint32_t mt = main_thread_of(t);
			ord[r] = trace_track_order(t);
			role[r] = xmalloc(t->ntracks ? t->ntracks : 1);
			for (uint32_t i = 0; i < t->ntracks; i++)
				role[r][i] = (uint8_t)role_of(t, ord[r][i], mt);
		}
		for (int ro = 0; ro < 4; ro++) {
			uint32_t first = k;
			for (int r = 0; r < v->nts; r++)
				for (uint32_t i = 0; i < v->ts[r]->ntracks; i++)
					if (role[r][i] == ro)
						v->order[k++] = view_id(r, ord[r][i]);
			if (k > first) {
				struct view_group *g = &v->groups[v->ngroups++];
				g->first_track_order = first;
				g->ntracks = k - first;
				g->rank = -1;
				g->device = -1;
				g->collapsed = ro == 3;
				snprintf(g->title, sizeof g->title, "%s", titles[ro]);
			}
		}
		for (int r = 0; r < v->nts; r++) {
			free(ord[r]);
			free(role[r]);
		}
		free(ord);
		free(role);
		if (v->ncounters > 0) { /* every rank's counters, by rank */
			struct view_group *g = &v->groups[v->ngroups++];
			for (uint32_t c = 0; c < v->ncounters; c++)
				v->counter_order[c] = c;
			g->first_track_order = k;
			g->rank = -1;
			g->device = -1;
			g->ncounters = v->ncounters;
			snprintf(g->title, sizeof g->title, "memory counters");
		}
		return;
	}
	bool *placed = xcalloc(v->ncounters ? v->ncounters : 1, sizeof *placed);
	for (int r = 0; r < v->nts; r++) {
		const struct trace *t = v->ts[r];
		uint32_t *ord = trace_track_order(t);
		const struct track *prev = NULL;
		uint32_t first_group = v->ngroups;
		for (uint32_t i = 0; i < t->ntracks; i++, k++) {
			const struct track *tr = &t->tracks[ord[i]];
			v->order[k] = view_id(r, ord[i]);
			if (prev == NULL || !same_group(prev, tr)) {
				struct view_group *g = &v->groups[v->ngroups++];
				char pid[64], spid[64], name[80], rk[24] = "";
				g->first_track_order = k;
				g->rank = r;
				g->device = is_gpu(tr) ? tr->device : -1;
				if (v->nts > 1)
					snprintf(rk, sizeof rk, "r%d ", view_rank_label(v, r));
				const char *pn = track_process_name(t, tr);
				escape_term_buf(pn, strlen(pn), name, sizeof name);
				if (is_gpu(tr))
					snprintf(g->title, sizeof g->title, "%s%s %d", rk,
					         trace_device_noun(t, tr->device), tr->device);
				else if (tr->kind == TRACK_OTHER)
					snprintf(g->title, sizeof g->title, "%sother", rk);
				else if (snprintf(g->title, sizeof g->title, "%s%s %s", rk, name[0] ? name : "process",
				                  escape_term_buf(track_pid_text(t, tr, pid, sizeof pid),
				                                  strlen(track_pid_text(t, tr, pid, sizeof pid)), spid,
				                                  sizeof spid)) >= (int)sizeof g->title)
					g->title[sizeof g->title - 1] = '\0'; /* a long process name is cut */
			}
			v->groups[v->ngroups - 1].ntracks++;
			prev = tr;
		}
		free(ord);
		place_counters(v, r, first_group, placed, &nc);
	}
	free(placed);
}
