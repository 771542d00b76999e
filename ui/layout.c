/* layout.c: where things are on the timeline's screen, and its lines: groups of tracks
 * (a process, a GPU, or a role when several ranks are laid out by role), each track's
 * rows, a device's utilization line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/index.h"
#include "lib/xalloc.h"
#include "ui/escape.h"
#include "ui/view.h"

int view_details_h(const struct view *v) { return v->h >= 30 ? 7 : v->h >= 20 ? 5 : 3; }
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
int view_area_y(const struct view *v) { (void)v; return 2; }
int view_area_h(const struct view *v)
{
	int h = v->h - view_area_y(v) - view_details_h(v) - 1;
	return h > 1 ? h : 1;
}

static bool is_gpu(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

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
		v->lines[v->nlines++] = (struct view_line){ TT_NONE, 0, g };
		if (gr->collapsed)
			continue;
		if (gr->device >= 0) {
			if (v->nlines + 1 >= cap)
				v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
			v->lines[v->nlines++] = (struct view_line){ TT_NONE, 1, g }; /* utilization */
		}
		for (uint32_t k = 0; k < gr->ntracks; k++) {
			uint32_t ti = v->order[gr->first_track_order + k];
			const struct track *tr = view_track(v, ti);
			uint16_t rows = tr->nrows ? tr->nrows : 1;
			for (uint16_t r = 0; r < rows; r++) {
				if (v->nlines + 1 >= cap)
					v->lines = xreallocarray(v->lines, cap *= 2, sizeof *v->lines);
				v->lines[v->nlines++] = (struct view_line){ ti, r, g };
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

void layout_build_groups(struct view *v)
{
	uint32_t total = 0, k = 0;
	for (int r = 0; r < v->nts; r++)
		total += v->ts[r]->ntracks;
	free(v->order);
	free(v->groups);
	v->order = xmalloc((total ? total : 1) * sizeof *v->order);
	v->groups = xcalloc(total + 4, sizeof *v->groups);
	v->ngroups = 0;
	if (v->by_role) {
		static const char *titles[4] = { "compute streams", "communication streams", "main CPU threads", "other tracks" };
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
		return;
	}
	for (int r = 0; r < v->nts; r++) {
		const struct trace *t = v->ts[r];
		uint32_t *ord = trace_track_order(t);
		const struct track *prev = NULL;
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
					snprintf(g->title, sizeof g->title, "%sGPU %d", rk, tr->device);
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
	}
}

