/* view.c: view state, the key table and the actions (see view.h). No drawing here. */
#include "ui/view.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/index.h"
#include "src/ranks.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/escape.h"

static const struct {
	const char *name, *text;
} actions[A__COUNT] = {
	[A_NONE] = { "none", "nothing" },
	[A_ZOOM_IN] = { "zoom-in", "zoom in around the cursor" },
	[A_ZOOM_OUT] = { "zoom-out", "zoom out around the cursor" },
	[A_ZOOM_IN_BIG] = { "zoom-in-big", "zoom in fast" },
	[A_ZOOM_OUT_BIG] = { "zoom-out-big", "zoom out fast" },
	[A_PAN_LEFT] = { "pan-left", "pan left" },
	[A_PAN_RIGHT] = { "pan-right", "pan right" },
	[A_PAN_LEFT_BIG] = { "pan-left-big", "pan left by half a screen" },
	[A_PAN_RIGHT_BIG] = { "pan-right-big", "pan right by half a screen" },
	[A_CURSOR_LEFT] = { "cursor-left", "move the time cursor left" },
	[A_CURSOR_RIGHT] = { "cursor-right", "move the time cursor right" },
	[A_CURSOR_LEFT_BIG] = { "cursor-left-big", "move the time cursor 10 columns left" },
	[A_CURSOR_RIGHT_BIG] = { "cursor-right-big", "move the time cursor 10 columns right" },
	[A_ROW_UP] = { "row-up", "select the row above" },
	[A_ROW_DOWN] = { "row-down", "select the row below" },
	[A_PAGE_UP] = { "page-up", "scroll a page up" },
	[A_PAGE_DOWN] = { "page-down", "scroll a page down" },
	[A_HOME] = { "home", "go to the start of the trace" },
	[A_END] = { "end", "go to the end of the trace" },
	[A_SELECT] = { "select", "select the slice under the cursor" },
	[A_FIT] = { "fit", "fit the selection, the mark or the whole trace" },
	[A_MARK] = { "mark", "mark the selected slice or range" },
	[A_CLEAR_MARKS] = { "clear-marks", "clear the mark" },
	[A_RANGE] = { "range", "start or end a range selection at the cursor" },
	[A_SEARCH] = { "search", "search slice names" },
	[A_NEXT_MATCH] = { "next-match", "next match" },
	[A_PREV_MATCH] = { "prev-match", "previous match" },
	[A_NEXT_SLICE] = { "next-slice", "next slice on the row" },
	[A_PREV_SLICE] = { "prev-slice", "previous slice on the row" },
	[A_FLOW_FORWARD] = { "flow-forward", "follow the flow forward (CPU launch to GPU kernel)" },
	[A_FLOW_BACK] = { "flow-back", "follow the flow back (GPU kernel to CPU launch)" },
	[A_TOGGLE_GROUP] = { "toggle-group", "collapse or expand the group" },
	[A_ABS_TIME] = { "absolute-time", "show the window in absolute time (UTC) or from the trace start" },
	[A_LAYOUT] = { "layout", "ranks: tracks by rank or by role" },
	[A_ALIGN_NEXT] = { "align-next", "ranks: next alignment: raw, step, collective" },
	[A_SHIFT_EARLIER] = { "shift-earlier", "ranks: shift the selected rank earlier" },
	[A_SHIFT_LATER] = { "shift-later", "ranks: shift the selected rank later" },
	[A_DIST_VIEW] = { "distributed", "ranks: the distributed view (Enter jumps)" },
	[A_NEXT_GAP] = { "next-gap", "next GPU gap in time" },
	[A_PREV_GAP] = { "prev-gap", "previous GPU gap in time" },
	[A_BIGGEST_GAP] = { "biggest-gap", "the next gap by size, longest first" },
	[A_GAP_LIST] = { "gap-list", "list the gaps (Enter jumps; t: by time or length; c: cause)" },
	[A_GAP_MIN_UP] = { "gap-min-up", "double the minimum gap length" },
	[A_GAP_MIN_DOWN] = { "gap-min-down", "halve the minimum gap length" },
	[A_HELP] = { "help", "show or hide this help" },
	[A_QUIT] = { "quit", "quit" },
	[A_CANCEL] = { "cancel", "cancel: close help, else the range, else the search, else the selection" },
};

const char *action_name(enum action a) { return a < A__COUNT ? actions[a].name : "?"; }
const char *action_text(enum action a) { return a < A__COUNT ? actions[a].text : "?"; }

const struct binding view_default_bindings[] = {
	{ 'w', A_ZOOM_IN },           { 's', A_ZOOM_OUT },         { 'W', A_ZOOM_IN_BIG },
	{ 'S', A_ZOOM_OUT_BIG },      { 'a', A_PAN_LEFT },         { 'd', A_PAN_RIGHT },
	{ 'A', A_PAN_LEFT_BIG },      { 'D', A_PAN_RIGHT_BIG },    { TT_KEY_LEFT, A_CURSOR_LEFT },
	{ 'h', A_CURSOR_LEFT },       { TT_KEY_RIGHT, A_CURSOR_RIGHT }, { 'l', A_CURSOR_RIGHT },
	{ TT_KEY_S_LEFT, A_CURSOR_LEFT_BIG }, { 'H', A_CURSOR_LEFT_BIG }, { TT_KEY_S_RIGHT, A_CURSOR_RIGHT_BIG },
	{ 'L', A_CURSOR_RIGHT_BIG },  { TT_KEY_UP, A_ROW_UP },     { 'k', A_ROW_UP },
	{ TT_KEY_DOWN, A_ROW_DOWN },  { 'j', A_ROW_DOWN },         { TT_KEY_PGUP, A_PAGE_UP },
	{ TT_KEY_PGDN, A_PAGE_DOWN }, { TT_KEY_HOME, A_HOME },     { TT_KEY_END, A_END },
	{ TT_KEY_ENTER, A_SELECT },   { 'f', A_FIT },              { 'F', A_FIT },
	{ 'm', A_MARK },              { 'M', A_MARK },             { 'x', A_CLEAR_MARKS },
	{ 'v', A_RANGE },             { '/', A_SEARCH },           { 'n', A_NEXT_MATCH },
	{ 'N', A_PREV_MATCH },        { TT_KEY_S_ENTER, A_PREV_MATCH }, { '.', A_NEXT_SLICE },
	{ ',', A_PREV_SLICE },        { ']', A_FLOW_FORWARD },     { '[', A_FLOW_BACK },
	{ TT_KEY_TAB, A_TOGGLE_GROUP },
	{ 't', A_ABS_TIME },
	{ 'R', A_LAYOUT },
	{ 'y', A_ALIGN_NEXT },
	{ '{', A_SHIFT_EARLIER },
	{ '}', A_SHIFT_LATER },
	{ 'p', A_DIST_VIEW },
	{ 'g', A_NEXT_GAP },
	{ 'G', A_PREV_GAP },          { 'b', A_BIGGEST_GAP },      { 'o', A_GAP_LIST },
	{ '>', A_GAP_MIN_UP },        { '<', A_GAP_MIN_DOWN },     { '?', A_HELP },
	{ 'q', A_QUIT },
	{ TT_KEY_ESC, A_CANCEL },     { 0, A_NONE },
};

static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ TT_KEY_ENTER, "Enter" }, { TT_KEY_S_ENTER, "S-Enter" }, { TT_KEY_ESC, "Esc" },
	{ TT_KEY_UP, "Up" },       { TT_KEY_DOWN, "Down" },       { TT_KEY_LEFT, "Left" },
	{ TT_KEY_RIGHT, "Right" }, { TT_KEY_S_LEFT, "S-Left" },   { TT_KEY_S_RIGHT, "S-Right" },
	{ TT_KEY_PGUP, "PgUp" },   { TT_KEY_PGDN, "PgDn" },       { TT_KEY_HOME, "Home" },
	{ TT_KEY_END, "End" },     { TT_KEY_TAB, "Tab" },         { TT_KEY_BACKSPACE, "BS" },
	{ TT_KEY_RESIZE, "Resize" }, { '<', "lt" },                { ' ', "Space" },
};

const char *view_key_for(const struct view *v, enum action a)
{
	for (size_t i = 0; v->bindings[i].key != 0; i++)
		if (v->bindings[i].action == a)
			return key_name(v->bindings[i].key);
	return "?";
}

const char *key_name(int key)
{
	static char buf[8];
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (key_names[i].key == key && key != '<' && key != ' ')
			return key_names[i].name;
	if (key == ' ')
		return "Space";
	if (key > 0x20 && key < 0x7f) {
		buf[0] = (char)key;
		buf[1] = '\0';
		return buf;
	}
	snprintf(buf, sizeof buf, "#%d", key);
	return buf;
}

static int key_from_name(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (strlen(key_names[i].name) == n && strncasecmp(key_names[i].name, name, n) == 0)
			return key_names[i].key;
	return -1;
}

/* "<Click:40,5>" and the like: a mouse event at a screen position. */
static int mouse_from_name(const char *name, size_t n)
{
	static const struct {
		const char *word;
		enum mouse_kind kind;
	} words[] = { { "Click:", TT_CLICK }, { "Press:", TT_PRESS }, { "Release:", TT_RELEASE },
		      { "WheelUp:", TT_WHEEL_UP }, { "WheelDown:", TT_WHEEL_DOWN } };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t wl = strlen(words[i].word);
		int x, y;
		char tail;
		if (n > wl && strncasecmp(name, words[i].word, wl) == 0 &&
		    sscanf(name + wl, "%d,%d%c", &x, &y, &tail) == 3 && tail == '>' && x >= 0 && y >= 0 && x < 4096 &&
		    y < 4096)
			return TT_MOUSE(words[i].kind, x, y);
	}
	return -1;
}

int view_parse_keys(const char *script, int **keys, char **cause)
{
	size_t n = strlen(script), k = 0;
	int *out = xmalloc((n + 1) * sizeof *out);
	for (size_t i = 0; i < n;) {
		if (script[i] == '<') {
			const char *e = strchr(script + i, '>');
			int key = -1;
			if (e != NULL)
				key = key_from_name(script + i + 1, (size_t)(e - script - i - 1));
			if (e != NULL && key < 0)
				key = mouse_from_name(script + i + 1, (size_t)(e - script - i));
			if (e == NULL || key < 0) {
				*cause = xasprintf("unknown key at offset %zu of the key script: %.20s", i, script + i);
				free(out);
				return -1;
			}
			out[k++] = key;
			i = (size_t)(e - script) + 1;
		} else {
			out[k++] = (unsigned char)script[i++];
		}
	}
	*keys = out;
	return (int)k;
}

/* ---- layout ------------------------------------------------------------------------ */

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

static void build_lines(struct view *v)
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

static void build_groups(struct view *v)
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

static void set_status(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_status(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->status, sizeof v->status, fmt, ap);
	va_end(ap);
}

static void set_window(struct view *v, int64_t t0, int64_t w);
static int64_t width(const struct view *v);

static void fit_all(struct view *v) { set_window(v, v->start, tt_sub(v->end, v->start)); }

static int gap_cmp_start(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static struct gap *gaps_in_time_order(const struct gap_report *g)
{
	struct gap *out = xmalloc((g->ngaps ? g->ngaps : 1) * sizeof *out);
	if (g->ngaps > 0)
		memcpy(out, g->gaps, g->ngaps * sizeof *out);
	qsort(out, g->ngaps, sizeof *out, gap_cmp_start);
	return out;
}

static int gap_cmp_device(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* G's device gaps by device, then by start: the renderer finds a device's gap at a time
 * by binary search, however many devices the trace has. */
static struct gap *gaps_by_device(const struct gap_report *g)
{
	struct gap *out = xmalloc((g->ngaps ? g->ngaps : 1) * sizeof *out);
	if (g->ngaps > 0) {
		memcpy(out, g->gaps, g->ngaps * sizeof *out);
		qsort(out, g->ngaps, sizeof *out, gap_cmp_device);
	}
	return out;
}

static int device_cmp(const void *a, const void *b, void *arg)
{
	const struct device_gaps *d = arg;
	int32_t x = d[*(const uint32_t *)a].device, y = d[*(const uint32_t *)b].device;
	return x < y ? -1 : x > y;
}

/* The positions of G's devices, by device number. */
static uint32_t *devices_by_number(const struct gap_report *g)
{
	uint32_t *o = xcalloc(g->ndevices ? g->ndevices : 1, sizeof *o);
	for (uint32_t i = 0; i < g->ndevices; i++)
		o[i] = i;
	if (g->ndevices > 1)
		qsort_r(o, g->ndevices, sizeof *o, device_cmp, g->devices);
	return o;
}

static int gap_cmp_len(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	int64_t dx = tt_sub(x->end, x->start), dy = tt_sub(y->end, y->start);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : (x->device > y->device) - (x->device < y->device);
}

/* The gaps the gap keys and the gap list visit: every rank's, longest first, in view time,
 * their slice references as view ids. */
static void build_nav(struct view *v)
{
	uint32_t n = 0;
	for (int r = 0; r < v->nts; r++)
		n += v->rank_gaps[r].ngaps;
	free(v->nav);
	free(v->gaps_by_time);
	v->nav = xmalloc((n ? n : 1) * sizeof *v->nav);
	v->nnav = 0;
	for (int r = 0; r < v->nts; r++) {
		const struct gap_report *gr = &v->rank_gaps[r];
		for (uint32_t i = 0; i < gr->ngaps; i++) {
			struct gap g = gr->gaps[i];
			g.rank = r;
			g.start = tt_add(g.start, v->shift[r]);
			g.end = tt_add(g.end, v->shift[r]);
			if (g.track != TT_NONE)
				g.track = view_id(r, g.track);
			if (g.cpu.track != TT_NONE)
				g.cpu.track = view_id(r, g.cpu.track);
			if (g.next.track != TT_NONE)
				g.next.track = view_id(r, g.next.track);
			v->nav[v->nnav++] = g;
		}
	}
	qsort(v->nav, v->nnav, sizeof *v->nav, gap_cmp_len);
	struct gap_report all = { .gaps = v->nav, .ngaps = v->nnav };
	v->gaps_by_time = gaps_in_time_order(&all);
}

static void compute_gaps(struct view *v)
{
	for (int r = 0; r < v->nts; r++) {
		gaps_free(&v->rank_gaps[r]);
		free(v->rank_gaps_by_device[r]);
		free(v->rank_devices[r]);
		gaps_analyse(v->ts[r], v->gap_min, &v->rank_gaps[r]);
		v->rank_gaps_by_device[r] = gaps_by_device(&v->rank_gaps[r]);
		v->rank_devices[r] = devices_by_number(&v->rank_gaps[r]);
	}
	build_nav(v);
	v->gap_at = v->gap_rank = 0;
	v->gap_sel = v->gap_top = 0;
}

/* The distributed view's order: the straggler first, then by how often each rank arrived
 * last, then by position. */
static int dist_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_report *rr = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if ((x == rr->straggler) != (y == rr->straggler))
		return x == rr->straggler ? -1 : 1;
	if (rr->ranks[x].arrived_last != rr->ranks[y].arrived_last)
		return rr->ranks[x].arrived_last > rr->ranks[y].arrived_last ? -1 : 1;
	return (x > y) - (x < y);
}

/* Each rank's shift from the alignment in force, and the span of them all. */
static void align_ranks(struct view *v)
{
	if (v->nts > 1) {
		struct rank_report *rr = &v->rr;
		ranks_free(rr);
		ranks_analyse(v->ts, v->nts, v->align, v->manual, rr);
		int64_t ref = tt_add(v->t->has_base ? v->t->base_ns : 0, rr->ranks[0].offset);
		for (int r = 0; r < v->nts; r++) {
			const struct trace *t = v->ts[r];
			v->shift[r] = tt_sub(tt_add(t->has_base ? t->base_ns : 0, rr->ranks[r].offset), ref);
			v->manual[r] = rr->ranks[r].offset;
		}
		v->align_ref = ref;
		for (int r = 0; r < v->nts; r++)
			v->dist_order[r] = r;
		qsort_r(v->dist_order, (size_t)v->nts, sizeof *v->dist_order, dist_cmp, rr);
	}
	v->start = INT64_MAX;
	v->end = INT64_MIN;
	for (int r = 0; r < v->nts; r++) {
		if (tt_add(v->ts[r]->start, v->shift[r]) < v->start)
			v->start = tt_add(v->ts[r]->start, v->shift[r]);
		if (tt_add(v->ts[r]->end, v->shift[r]) > v->end)
			v->end = tt_add(v->ts[r]->end, v->shift[r]);
	}
	if (v->start > v->end)
		v->start = v->end = 0;
}

void view_init(struct view *v, struct trace *const *ts, int n, enum align_mode align, int w, int h)
{
	int given = n;
	memset(v, 0, sizeof *v);
	if (n > VIEW_MAX_RANKS)
		n = VIEW_MAX_RANKS;
	v->t = ts[0];
	v->ts = ts;
	v->nts = n;
	v->align = align;
	v->shift = xcalloc((size_t)n, sizeof *v->shift);
	v->dist_order = xcalloc((size_t)n, sizeof *v->dist_order);
	v->manual = xcalloc((size_t)n, sizeof *v->manual);
	v->rank_gaps = xcalloc((size_t)n, sizeof *v->rank_gaps);
	v->rank_gaps_by_device = xcalloc((size_t)n, sizeof *v->rank_gaps_by_device);
	v->rank_devices = xcalloc((size_t)n, sizeof *v->rank_devices);
	v->name_matches = xcalloc((size_t)n, sizeof *v->name_matches);
	v->w = w > 20 ? w : 20; /* as view_resize: a smaller terminal shows the top left */
	v->h = h > 8 ? h : 8;
	v->sel.track = v->sel.idx = TT_NONE;
	v->args_for.track = v->args_for.idx = TT_NONE;
	v->dragging = false;
	size_t nb = 0;
	while (view_default_bindings[nb].key != 0 && nb + 1 < sizeof v->bindings / sizeof *v->bindings) {
		v->bindings[nb] = view_default_bindings[nb];
		nb++;
	}
	align_ranks(v);
	build_groups(v);
	build_lines(v);
	fit_all(v);
	v->gap_min = 100000;
	v->gap_filter = -1;
	v->gap_device = INT32_MIN;
	compute_gaps(v);
	v->cursor = v->t0;
	v->sel_line = v->nlines > 1 ? 1 : 0;
	if (given > n)
		set_status(v, "warning: the timeline shows the first %d of %d ranks", n, given);
	else if (v->nts > 1 && v->rr.warnings[0])
		set_status(v, "warning: %s", v->rr.warnings);
}

static void free_name_matches(struct view *v)
{
	for (int r = 0; r < v->nts; r++) {
		free(v->name_matches[r]);
		v->name_matches[r] = NULL;
	}
}

void view_free(struct view *v)
{
	free(v->order);
	free(v->groups);
	free(v->lines);
	free(v->matches);
	free_name_matches(v);
	free(v->name_matches);
	free(v->args_text);
	free(v->gaps_by_time);
	for (int r = 0; r < v->nts; r++) {
		gaps_free(&v->rank_gaps[r]);
		free(v->rank_gaps_by_device[r]);
		free(v->rank_devices[r]);
	}
	free(v->nav);
	free(v->rank_gaps);
	free(v->rank_gaps_by_device);
	free(v->rank_devices);
	free(v->shift);
	free(v->manual);
	ranks_free(&v->rr);
	free(v->dist_order);
	memset(v, 0, sizeof *v);
}

void view_resize(struct view *v, int w, int h)
{
	v->w = w > 20 ? w : 20;
	v->h = h > 8 ? h : 8;
	set_window(v, v->t0, width(v)); /* at least 1 ns per column of the new width */
}

enum action view_action_for(const struct view *v, int key)
{
	for (size_t i = 0; i < sizeof v->bindings / sizeof *v->bindings && v->bindings[i].key != 0; i++)
		if (v->bindings[i].key == key)
			return v->bindings[i].action;
	return A_NONE;
}

int view_load_keymap(struct view *v, const char *path, char **cause)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int lineno = 0;
	if (f == NULL) {
		*cause = xasprintf("cannot open key map %s", path);
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char key[64], act[64];
		int *keys = NULL, nk;
		char *err = NULL;
		lineno++;
		if (line[0] == '#' || sscanf(line, "%63s %63s", key, act) != 2)
			continue;
		nk = view_parse_keys(key, &keys, &err);
		enum action a = A__COUNT;
		for (int i = 0; i < A__COUNT; i++)
			if (strcmp(actions[i].name, act) == 0)
				a = (enum action)i;
		if (nk != 1 || a == A__COUNT) {
			*cause = xasprintf("%s:%d: expected a key and an action name (e.g. \"z zoom-in\")", path, lineno);
			free(err);
			free(keys);
			fclose(f);
			return -1;
		}
		size_t i;
		for (i = 0; v->bindings[i].key != 0; i++)
			if (v->bindings[i].key == keys[0])
				break;
		if (v->bindings[i].key == 0 && i + 1 >= sizeof v->bindings / sizeof *v->bindings) {
			free(keys);
			continue;
		}
		if (v->bindings[i].key == 0)
			v->bindings[i + 1] = (struct binding){ 0, A_NONE };
		v->bindings[i] = (struct binding){ keys[0], a };
		free(keys);
	}
	fclose(f);
	return 0;
}

/* ---- moving around --------------------------------------------------------------------- */

/* The window [t0, t1) always satisfies t0 < t1 with t1 - t0 at most INT64_MAX, at least
 * one ns per column, and at most four times the span of the traces: every width below
 * fits an int64. Times outside it are moved with saturating arithmetic (lib/tmath.h), so
 * that no key, however often pressed, and no trace, however far its times, overflows. */
static int64_t width(const struct view *v) { return v->t1 - v->t0; }

/* Sets the window to start at T0 (moved so that it shows some of the traces) and to be
 * W wide (bounded as above). */
static void set_window(struct view *v, int64_t t0, int64_t w)
{
	int64_t tw = view_timeline_w(v), span = tt_sub(v->end, v->start);
	if (tw < 1)
		tw = 1;
	if (span < tw)
		span = tw;
	if (w > tt_mul(span, 4))
		w = tt_mul(span, 4);
	if (w < tw)
		w = tw; /* at most 1 ns per column */
	int64_t lo = tt_sub(v->start, w / 2), hi = tt_sub(v->end, w / 2);
	if (t0 < lo)
		t0 = lo;
	if (t0 > hi)
		t0 = hi;
	if (t0 > INT64_MAX - w)
		t0 = INT64_MAX - w;
	v->t0 = t0;
	v->t1 = t0 + w;
}

/* Sets the window to [T0, T1), bounded as set_window does. */
static void set_window_range(struct view *v, int64_t t0, int64_t t1)
{
	set_window(v, t0, t1 > t0 ? tt_sub(t1, t0) : 1);
}

static void zoom(struct view *v, double factor)
{
	int64_t w = width(v);
	long double frac = (long double)tt_sub(v->cursor, v->t0) / (long double)w;
	if (frac < 0 || frac > 1)
		frac = 0.5;
	int64_t nw = tt_from_ldouble((long double)w * factor);
	set_window(v, tt_sub(v->cursor, tt_from_ldouble(frac * (long double)nw)), nw);
}

static void pan(struct view *v, double screens)
{
	int64_t d = tt_from_ldouble((long double)width(v) * screens);
	if (d == 0)
		d = screens < 0 ? -1 : 1;
	set_window(v, tt_add(v->t0, d), width(v));
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		v->cursor = v->t0 + width(v) / 2;
}

/* Time at the start of column X of the timeline (X may lie outside it). */
static int64_t col_time(const struct view *v, int x)
{
	return tt_add(v->t0, tt_from_ldouble((long double)width(v) * x / view_timeline_w(v)));
}

/* |A - B|, saturated. */
static int64_t distance(int64_t a, int64_t b) { return a > b ? tt_sub(a, b) : tt_sub(b, a); }

static void move_cursor(struct view *v, int cols)
{
	int64_t step = width(v) / view_timeline_w(v);
	if (step < 1)
		step = 1;
	v->cursor = tt_add(v->cursor, tt_mul(step, cols));
	if (v->cursor < v->start)
		v->cursor = v->start;
	if (v->cursor > v->end)
		v->cursor = v->end;
	if (v->cursor < v->t0 || v->cursor >= v->t1)
		set_window(v, tt_sub(v->cursor, width(v) / 2), width(v));
	if (v->ranging) {
		char d[48];
		set_status(v, "range %s (v or m marks it)", timefmt_dur(distance(v->cursor, v->range_anchor), d, sizeof d));
	}
}

static void scroll_to_line(struct view *v, int line)
{
	if (v->nlines == 0)
		return;
	if (line < 0)
		line = 0;
	if (line >= (int)v->nlines)
		line = (int)v->nlines - 1;
	v->sel_line = line;
	if (v->sel_line < v->top)
		v->top = v->sel_line;
	if (v->sel_line >= v->top + view_area_h(v))
		v->top = v->sel_line - view_area_h(v) + 1;
}

/* Selects slice R: its group expanded, its line selected and visible, the cursor on it. */
static void go_to(struct view *v, struct slice_ref r)
{
	v->gap_shown = false;
	if (r.track == TT_NONE)
		return;
	const struct slice *s = &view_track(v, r.track)->slices[r.idx];
	int64_t ts = tt_add(s->ts, view_shift_of(v, r.track));
	v->sel = r;
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++)
			if (v->order[v->groups[g].first_track_order + k] == r.track && v->groups[g].collapsed) {
				v->groups[g].collapsed = false;
				build_lines(v);
			}
	for (uint32_t i = 0; i < v->nlines; i++)
		if (v->lines[i].track == r.track && v->lines[i].row == s->depth) {
			scroll_to_line(v, (int)i);
			break;
		}
	v->cursor = ts;
	if (ts < v->t0 || ts >= v->t1) {
		int64_t w = width(v);
		if (s->dur > w)
			w = tt_add(s->dur, s->dur / 10);
		set_window(v, tt_sub(ts, w / 3), w);
	}
}

static const struct view_line *cur_line(const struct view *v)
{
	return v->sel_line >= 0 && (uint32_t)v->sel_line < v->nlines ? &v->lines[v->sel_line] : NULL;
}

static void select_under_cursor(struct view *v)
{
	const struct view_line *l = cur_line(v);
	if (l == NULL)
		return;
	if (l->track == TT_NONE) {
		view_act(v, A_TOGGLE_GROUP);
		return;
	}
	const struct track *tr = view_track(v, l->track);
	int64_t colw = width(v) / view_timeline_w(v), at = tt_sub(v->cursor, view_shift_of(v, l->track));
	uint32_t i = index_row_dominant(tr, l->row, at, tt_add(at, colw > 0 ? colw : 1));
	if (i == TT_NONE) {
		v->sel.track = v->sel.idx = TT_NONE;
		set_status(v, "nothing under the cursor on this row");
		return;
	}
	v->sel.track = l->track;
	v->sel.idx = i;
	v->gap_shown = false;
	set_status(v, "selected");
}

static void step_slice(struct view *v, int dir)
{
	const struct view_line *l = cur_line(v);
	if (l == NULL || l->track == TT_NONE)
		return;
	const struct track *tr = view_track(v, l->track);
	const struct row *row = l->row < tr->nrows ? &tr->rows[l->row] : NULL;
	if (row == NULL || row->n == 0)
		return;
	uint32_t a, b;
	int64_t from = tt_sub(v->cursor, view_shift_of(v, l->track));
	if (v->sel.track == l->track && v->sel.idx != TT_NONE)
		from = tr->slices[v->sel.idx].ts;
	if (dir > 0) {
		index_row_range(tr, l->row, tt_add(from, 1), INT64_MAX, &a, &b);
		while (a < b && tr->slices[row->idx[a]].ts <= from)
			a++;
		if (a < b)
			go_to(v, (struct slice_ref){ l->track, row->idx[a] });
	} else {
		index_row_range(tr, l->row, INT64_MIN / 2, from, &a, &b);
		while (b > a && tr->slices[row->idx[b - 1]].ts >= from)
			b--;
		if (b > a)
			go_to(v, (struct slice_ref){ l->track, row->idx[b - 1] });
	}
}

static void follow_flow(struct view *v, bool forward)
{
	if (v->sel.track == TT_NONE) {
		set_status(v, "select a slice first (Enter)");
		return;
	}
	/* flows and launches stay within the rank */
	const struct trace *t = view_trace_of(v, v->sel.track);
	int rank = view_rank_of(v->sel.track);
	uint32_t local = v->sel.track & VIEW_TRACK_MASK;
	const struct slice *s = &t->tracks[local].slices[v->sel.idx];
	bool gpu_side = s->cls == SC_KERNEL || s->cls == SC_MEMCPY || s->cls == SC_MEMSET;
	if (s->gpu != TT_NONE && t->gpu[s->gpu].peer.track != TT_NONE && forward != gpu_side) {
		go_to(v, (struct slice_ref){ view_id(rank, t->gpu[s->gpu].peer.track), t->gpu[s->gpu].peer.idx });
		set_status(v, forward ? "launched on the GPU" : "launched from the CPU");
		return;
	}
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct flow *f = &t->flows[i];
		struct slice_ref here = forward ? f->from : f->to, there = forward ? f->to : f->from;
		if (here.track == local && here.idx == v->sel.idx && there.track != TT_NONE) {
			go_to(v, (struct slice_ref){ view_id(rank, there.track), there.idx });
			char cat[64];
			escape_term_buf(strtab_get(&t->strings, f->cat), strtab_len(&t->strings, f->cat), cat, sizeof cat);
			set_status(v, "followed a %s flow", cat);
			return;
		}
	}
	set_status(v, "no flow %s from this slice", forward ? "forward" : "back");
}

static int match_cmp(const void *a, const void *b, void *arg)
{
	const struct view *v = arg;
	const struct slice_ref *x = a, *y = b;
	int64_t tx = tt_add(view_track(v, x->track)->slices[x->idx].ts, view_shift_of(v, x->track));
	int64_t ty = tt_add(view_track(v, y->track)->slices[y->idx].ts, view_shift_of(v, y->track));
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void run_search(struct view *v)
{
	uint32_t cap = 0;
	size_t qn = strlen(v->query);
	free(v->matches);
	v->matches = NULL;
	v->nmatches = v->match = 0;
	free_name_matches(v);
	if (qn == 0)
		return;
	for (int r = 0; r < v->nts; r++) {
		const struct trace *t = v->ts[r];
		uint8_t *nm = v->name_matches[r] = xcalloc(t->strings.n ? t->strings.n : 1, 1);
		for (uint32_t id = 0; id < t->strings.n; id++)
			if (strcasestr(strtab_get(&t->strings, id), v->query) != NULL)
				nm[id] = 1;
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			for (uint32_t i = 0; i < tr->nslices; i++) {
				if (!nm[tr->slices[i].name])
					continue;
				if (v->nmatches == cap)
					v->matches = xreallocarray(v->matches, cap = cap ? cap * 2 : 64, sizeof *v->matches);
				v->matches[v->nmatches++] = (struct slice_ref){ view_id(r, ti), i };
			}
		}
	}
	if (v->nmatches > 1) /* qsort wants a non-NULL array even for no elements */
		qsort_r(v->matches, v->nmatches, sizeof *v->matches, match_cmp, v);

	if (v->nmatches == 0) {
		set_status(v, "no slice name contains \"%s\"", v->query);
		return;
	}
	/* the first match at or after the cursor */
	v->match = 1;
	for (uint32_t i = 0; i < v->nmatches; i++)
		if (tt_add(view_track(v, v->matches[i].track)->slices[v->matches[i].idx].ts,
		           view_shift_of(v, v->matches[i].track)) >= v->cursor) {
			v->match = i + 1;
			break;
		}
	go_to(v, v->matches[v->match - 1]);
	set_status(v, "%u/%u", v->match, v->nmatches);
}

static void step_match(struct view *v, int dir)
{
	if (v->nmatches == 0) {
		set_status(v, v->query[0] ? "no matches" : "no search (/ starts one)");
		return;
	}
	if (dir > 0)
		v->match = v->match >= v->nmatches ? 1 : v->match + 1;
	else
		v->match = v->match <= 1 ? v->nmatches : v->match - 1;
	go_to(v, v->matches[v->match - 1]);
	set_status(v, "%u/%u", v->match, v->nmatches);
}

/* Shows gap G: the window around it, the cursor at its start, the CPU slice that
 * explains it selected, its cause in the status line. */
static void go_to_gap(struct view *v, const struct gap *g, const char *which)
{
	char d[48], name[160] = "";
	int64_t len = tt_sub(g->end, g->start), pad = tt_add(len - len / 4, 1);
	if (g->cpu.track != TT_NONE) {
		go_to(v, g->cpu);
		const struct slice *s = &view_track(v, g->cpu.track)->slices[g->cpu.idx];
		const struct strtab *st = &view_trace_of(v, g->cpu.track)->strings;
		escape_term_buf(strtab_get(st, s->name), strtab_len(st, s->name), name, sizeof name);
	} else {
		v->sel.track = v->sel.idx = TT_NONE;
	}
	set_window_range(v, tt_sub(g->start, pad), tt_add(g->end, pad));
	v->cursor = g->start;
	v->gap_cur = *g;
	v->gap_shown = true;
	set_status(v, "%s: %s gap on GPU %d, %s%s%s (HTA: %s)", which, timefmt_dur(len, d, sizeof d), g->device,
	           gap_cause_text(g->cause), name[0] ? ": " : "", name, hta_class_key(g->hta));
}

static bool gap_passes(const struct view *v, const struct gap *g)
{
	return (v->gap_filter < 0 || (int)g->cause == v->gap_filter) &&
	       (v->gap_device == INT32_MIN || g->device == v->gap_device);
}

/* The gaps shown in the list, in its order: longest first or by time, filtered. */
static uint32_t gap_list_get(const struct view *v, uint32_t k, const struct gap **out)
{
	const struct gap *src = v->gap_list_by_time ? v->gaps_by_time : v->nav;
	uint32_t seen = 0;
	for (uint32_t i = 0; i < v->nnav; i++) {
		if (!gap_passes(v, &src[i]))
			continue;
		if (seen == k && out != NULL)
			*out = &src[i];
		seen++;
	}
	return seen;
}

uint32_t view_gap_list(const struct view *v, uint32_t k, const struct gap **out)
{
	*out = NULL;
	return gap_list_get(v, k, out);
}

int view_dist_rows(const struct view *v)
{
	return v->nts > 1 ? v->nts + (int)v->rr.ncolls : 0;
}

/* Selects the first line of rank R: its communication stream when it has one. */
static void go_to_rank(struct view *v, int r)
{
	int first = -1, comm = -1;
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (uint32_t k = 0; k < v->groups[g].ntracks; k++) {
			uint32_t id = v->order[v->groups[g].first_track_order + k];
			if (view_rank_of(id) == r && view_track(v, id)->kind == TRACK_GPU_COMM && v->groups[g].collapsed) {
				v->groups[g].collapsed = false;
				build_lines(v);
			}
		}
	for (uint32_t i = 0; i < v->nlines; i++) {
		const struct view_line *l = &v->lines[i];
		if (l->track == TT_NONE || view_rank_of(l->track) != r)
			continue;
		if (first < 0)
			first = (int)i;
		if (comm < 0 && view_track(v, l->track)->kind == TRACK_GPU_COMM)
			comm = (int)i;
	}
	v->sel.track = v->sel.idx = TT_NONE;
	if (comm >= 0 || first >= 0)
		scroll_to_line(v, comm >= 0 ? comm : first);
}

/* Shows collective C: every rank's part in the window, the last arrival selected. */
static void go_to_collective(struct view *v, const struct collective *c)
{
	int64_t a = INT64_MAX, b = INT64_MIN;
	for (int r = 0; r < v->nts; r++)
		if (c->per[r].ref.track != TT_NONE) {
			if (tt_sub(c->per[r].start, v->align_ref) < a)
				a = tt_sub(c->per[r].start, v->align_ref);
			if (tt_sub(c->per[r].end, v->align_ref) > b)
				b = tt_sub(c->per[r].end, v->align_ref);
		}
	if (c->last >= 0 && c->per[c->last].ref.track != TT_NONE)
		go_to(v, (struct slice_ref){ view_id(c->last, c->per[c->last].ref.track), c->per[c->last].ref.idx });
	if (a < b) {
		int64_t pad = tt_sub(b, a) / 4 + 1;
		set_window_range(v, tt_sub(a, pad), tt_add(b, pad));
		v->cursor = a;
	}
}

static void dist_key(struct view *v, int key)
{
	int n = view_dist_rows(v), page = view_area_h(v) - 3;
	enum action a = view_action_for(v, key);
	if (key == TT_KEY_ESC || a == A_DIST_VIEW || a == A_QUIT) {
		v->dist = false;
		return;
	}
	if (a == A_ROW_UP)
		v->dist_sel--;
	else if (a == A_ROW_DOWN)
		v->dist_sel++;
	else if (a == A_PAGE_UP)
		v->dist_sel -= page;
	else if (a == A_PAGE_DOWN)
		v->dist_sel += page;
	else if (key == TT_KEY_ENTER && v->dist_sel >= 0 && v->dist_sel < n) {
		v->dist = false;
		if (v->dist_sel < v->nts) {
			int r = v->dist_order[v->dist_sel];
			go_to_rank(v, r);
			set_status(v, "rank %d: arrived last at %u collectives, waited %lld us", v->rr.ranks[r].rank,
			           v->rr.ranks[r].arrived_last, (long long)(v->rr.ranks[r].waiting / 1000));
		} else {
			const struct collective *c = &v->rr.colls[v->dist_sel - v->nts];
			go_to_collective(v, c);
			char kind[64];
			escape_term_buf(c->kind, strlen(c->kind), kind, sizeof kind);
			set_status(v, "%s #%u: rank %d arrived last", kind, c->index,
			           c->last >= 0 ? v->rr.ranks[c->last].rank : -1);
		}
		return;
	}
	if (v->dist_sel >= n)
		v->dist_sel = n - 1;
	if (v->dist_sel < 0)
		v->dist_sel = 0;
	if (v->dist_sel < v->dist_top)
		v->dist_top = v->dist_sel;
	if (v->dist_sel >= v->dist_top + page)
		v->dist_top = v->dist_sel - page + 1;
}

static void gap_list_key(struct view *v, int key)
{
	const struct gap *g = NULL;
	uint32_t n = gap_list_get(v, 0, NULL);
	int page = view_area_h(v) - 2;
	enum action a = view_action_for(v, key);
	if (key == TT_KEY_ESC || a == A_GAP_LIST || a == A_QUIT) {
		v->gap_list = false;
		return;
	}
	if (key == 't') {
		v->gap_list_by_time = !v->gap_list_by_time;
		v->gap_sel = v->gap_top = 0;
	} else if (key == 'c') {
		v->gap_filter = v->gap_filter + 1 >= GC__COUNT ? -1 : v->gap_filter + 1;
		v->gap_sel = v->gap_top = 0;
	} else if (key == 'd') {
		/* every device, then each in turn */
		uint32_t k = 0;
		if (v->gap_device != INT32_MIN)
			while (k < v->rank_gaps[0].ndevices && v->rank_gaps[0].devices[k].device != v->gap_device)
				k++, (void)0;
		if (v->gap_device == INT32_MIN)
			v->gap_device = v->rank_gaps[0].ndevices ? v->rank_gaps[0].devices[0].device : INT32_MIN;
		else
			v->gap_device = k + 1 < v->rank_gaps[0].ndevices ? v->rank_gaps[0].devices[k + 1].device : INT32_MIN;
		v->gap_sel = v->gap_top = 0;
	} else if (a == A_ROW_UP) {
		v->gap_sel--;
	} else if (a == A_ROW_DOWN) {
		v->gap_sel++;
	} else if (a == A_PAGE_UP) {
		v->gap_sel -= page;
	} else if (a == A_PAGE_DOWN) {
		v->gap_sel += page;
	} else if (key == TT_KEY_ENTER) {
		gap_list_get(v, (uint32_t)v->gap_sel, &g);
		if (g != NULL) {
			v->gap_list = false;
			go_to_gap(v, g, "gap");
		}
		return;
	}
	if (v->gap_sel >= (int)n)
		v->gap_sel = (int)n - 1;
	if (v->gap_sel < 0)
		v->gap_sel = 0;
	if (v->gap_sel < v->gap_top)
		v->gap_top = v->gap_sel;
	if (v->gap_sel >= v->gap_top + page)
		v->gap_top = v->gap_sel - page + 1;
}

void view_act(struct view *v, enum action a)
{
	switch (a) {
	case A_NONE:
	case A__COUNT:
		break;
	case A_ZOOM_IN: zoom(v, 0.8); break;
	case A_ZOOM_OUT: zoom(v, 1.25); break;
	case A_ZOOM_IN_BIG: zoom(v, 0.4); break;
	case A_ZOOM_OUT_BIG: zoom(v, 2.5); break;
	case A_PAN_LEFT: pan(v, -0.1); break;
	case A_PAN_RIGHT: pan(v, 0.1); break;
	case A_PAN_LEFT_BIG: pan(v, -0.5); break;
	case A_PAN_RIGHT_BIG: pan(v, 0.5); break;
	case A_CURSOR_LEFT: move_cursor(v, -1); break;
	case A_CURSOR_RIGHT: move_cursor(v, 1); break;
	case A_CURSOR_LEFT_BIG: move_cursor(v, -10); break;
	case A_CURSOR_RIGHT_BIG: move_cursor(v, 10); break;
	case A_ROW_UP: scroll_to_line(v, v->sel_line - 1); break;
	case A_ROW_DOWN: scroll_to_line(v, v->sel_line + 1); break;
	case A_PAGE_UP: scroll_to_line(v, v->sel_line - view_area_h(v)); break;
	case A_PAGE_DOWN: scroll_to_line(v, v->sel_line + view_area_h(v)); break;
	case A_HOME:
		v->cursor = v->start;
		move_cursor(v, 0);
		break;
	case A_END:
		v->cursor = v->end;
		move_cursor(v, 0);
		break;
	case A_SELECT:
		select_under_cursor(v); /* once the prompt has closed, n and N move between matches */
		break;
	case A_FIT:
		if (v->sel.track != TT_NONE) {
			const struct slice *s = &view_track(v, v->sel.track)->slices[v->sel.idx];
			int64_t pad = s->dur / 20 + 1, ts = tt_add(s->ts, view_shift_of(v, v->sel.track));
			set_window_range(v, tt_sub(ts, pad), tt_add(tt_add(ts, s->dur), pad));
		} else if (v->has_mark) {
			set_window_range(v, v->mark0, v->mark1);
		} else {
			fit_all(v);
		}
		if (v->cursor < v->t0 || v->cursor >= v->t1)
			v->cursor = v->t0;
		break;
	case A_MARK:
		if (v->ranging) {
			v->has_mark = true;
			v->mark0 = v->range_anchor < v->cursor ? v->range_anchor : v->cursor;
			v->mark1 = v->range_anchor < v->cursor ? v->cursor : v->range_anchor;
			v->ranging = false;
		} else if (v->sel.track != TT_NONE) {
			const struct slice *s = &view_track(v, v->sel.track)->slices[v->sel.idx];
			v->has_mark = true;
			v->mark0 = tt_add(s->ts, view_shift_of(v, v->sel.track));
			v->mark1 = tt_add(v->mark0, s->dur);
		} else {
			set_status(v, "select a slice (Enter) or a range (v) to mark");
			break;
		}
		{
			char d[48];
			set_status(v, "marked %s", timefmt_dur(tt_sub(v->mark1, v->mark0), d, sizeof d));
		}
		break;
	case A_CLEAR_MARKS:
		v->has_mark = false;
		set_status(v, "mark cleared");
		break;
	case A_RANGE:
		if (!v->ranging) {
			v->ranging = true;
			v->range_anchor = v->cursor;
			set_status(v, "range from the cursor: move, then v (or m) to mark it");
		} else {
			view_act(v, A_MARK);
		}
		break;
	case A_SEARCH:
		v->typing = true;
		v->query[0] = '\0';
		break;
	case A_NEXT_MATCH: step_match(v, 1); break;
	case A_PREV_MATCH: step_match(v, -1); break;
	case A_NEXT_SLICE: step_slice(v, 1); break;
	case A_PREV_SLICE: step_slice(v, -1); break;
	case A_FLOW_FORWARD: follow_flow(v, true); break;
	case A_FLOW_BACK: follow_flow(v, false); break;
	case A_TOGGLE_GROUP: {
		const struct view_line *l = cur_line(v);
		if (l == NULL)
			break;
		uint32_t g = l->group;
		v->groups[g].collapsed = !v->groups[g].collapsed;
		build_lines(v);
		for (uint32_t i = 0; i < v->nlines; i++)
			if (v->lines[i].group == g && v->lines[i].track == TT_NONE) {
				scroll_to_line(v, (int)i);
				break;
			}
		break;
	}
	case A_ABS_TIME:
		v->abs_time = !v->abs_time;
		set_status(v, v->abs_time ? "absolute times (t: from the trace start)" : "times from the trace start");
		break;
	case A_LAYOUT:
		if (v->nts < 2) {
			set_status(v, "one trace: nothing to lay out by rank or role");
			break;
		}
		v->by_role = !v->by_role;
		v->sel.track = v->sel.idx = TT_NONE;
		build_groups(v);
		build_lines(v);
		v->top = 0;
		v->sel_line = v->nlines > 1 ? 1 : 0;
		set_status(v, v->by_role ? "by role: compute, communication, main CPU thread of every rank"
		                         : "by rank: each rank's tracks together");
		break;
	case A_ALIGN_NEXT:
		if (v->nts < 2) {
			set_status(v, "one trace: nothing to align");
			break;
		}
		v->align = v->align == ALIGN_RAW ? ALIGN_STEP : v->align == ALIGN_STEP ? ALIGN_COLLECTIVE : ALIGN_RAW;
		align_ranks(v);
		build_nav(v);
		set_status(v, "alignment: %s", align_mode_name(v->align));
		break;
	case A_SHIFT_EARLIER:
	case A_SHIFT_LATER: {
		const struct view_line *l = cur_line(v);
		int rank = l == NULL ? -1 : l->track != TT_NONE ? view_rank_of(l->track) : v->groups[l->group].rank;
		if (v->nts < 2 || rank < 0) {
			set_status(v, v->nts < 2 ? "one trace: nothing to shift" : "select a line of one rank to shift it");
			break;
		}
		int64_t step = width(v) / 50 > 0 ? width(v) / 50 : 1;
		v->manual[rank] += a == A_SHIFT_LATER ? step : -step;
		v->align = ALIGN_MANUAL;
		align_ranks(v);
		build_nav(v);
		char d[48];
		set_status(v, "manual: rank %d shifted %s by %s", view_rank_label(v, rank),
		           a == A_SHIFT_LATER ? "later" : "earlier", timefmt_dur(step, d, sizeof d));
		break;
	}

	case A_NEXT_GAP:
	case A_PREV_GAP: {
		uint32_t n = v->nnav, i;
		if (n == 0) {
			set_status(v, "no gap of %lld ns or more (< and > change the minimum)", (long long)v->gap_min);
			break;
		}
		if (a == A_NEXT_GAP) {
			for (i = 0; i < n && v->gaps_by_time[i].start <= v->cursor; i++)
				;
			if (i == n)
				i = 0;
		} else {
			for (i = n; i > 0 && v->gaps_by_time[i - 1].start >= v->cursor; i--)
				;
			i = i == 0 ? n - 1 : i - 1;
		}
		v->gap_at = i + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u in time", i + 1, n);
		go_to_gap(v, &v->gaps_by_time[i], which);
		break;
	}
	case A_BIGGEST_GAP: {
		if (v->nnav == 0) {
			set_status(v, "no gap of %lld ns or more", (long long)v->gap_min);
			break;
		}
		v->gap_rank = v->gap_rank >= v->nnav ? 1 : v->gap_rank + 1;
		char which[48];
		snprintf(which, sizeof which, "gap %u/%u by size", v->gap_rank, v->nnav);
		go_to_gap(v, &v->nav[v->gap_rank - 1], which);
		break;
	}
	case A_GAP_LIST:
		v->gap_list = !v->gap_list;
		break;
	case A_DIST_VIEW:
		if (v->nts < 2) {
			set_status(v, "one trace: the distributed view compares several ranks");
			break;
		}
		v->dist = !v->dist;
		if (v->dist && v->rr.warnings[0])
			set_status(v, "warning: %s", v->rr.warnings);
		break;
	case A_GAP_MIN_UP:
	case A_GAP_MIN_DOWN: {
		char d[48];
		if (a == A_GAP_MIN_UP && v->gap_min < INT64_MAX / 4)
			v->gap_min *= 2;
		else if (a == A_GAP_MIN_DOWN && v->gap_min > 1)
			v->gap_min /= 2;
		compute_gaps(v);
		set_status(v, "minimum gap %s: %u gaps", timefmt_dur(v->gap_min, d, sizeof d), v->nnav);
		break;
	}
	case A_HELP: v->help = !v->help; break;
	case A_QUIT: v->quit = true; break;
	case A_CANCEL:
		if (v->help) {
			v->help = false;
		} else if (v->ranging) {
			v->ranging = false;
		} else if (v->nmatches > 0 || v->query[0]) {
			v->query[0] = '\0';
			run_search(v);
		} else {
			v->sel.track = v->sel.idx = TT_NONE;
		}
		v->status[0] = '\0';
		break;
	}
}

/* A mouse event: a click selects under the pointer, a drag marks the range between
 * press and release, the wheel zooms around the pointer. */
static void view_mouse(struct view *v, int code)
{
	enum mouse_kind kind = (enum mouse_kind)((code >> 24) & 0x7);
	int x = (code & 0xfff) - view_timeline_x(v), y = (code >> 12) & 0xfff;
	int line = v->top + y - view_area_y(v);
	bool in_area = y >= view_area_y(v) && y < view_area_y(v) + view_area_h(v) && x >= 0 && x < view_timeline_w(v);
	if (kind == TT_WHEEL_UP || kind == TT_WHEEL_DOWN) {
		if (x >= 0 && x < view_timeline_w(v))
			v->cursor = col_time(v, x);
		view_act(v, kind == TT_WHEEL_UP ? A_ZOOM_IN : A_ZOOM_OUT);
		return;
	}
	if (!in_area)
		return;
	int64_t at = col_time(v, x);
	if (kind == TT_PRESS) {
		v->drag_from = at;
		v->dragging = true;
		return;
	}
	if (kind == TT_RELEASE && v->dragging && at != v->drag_from) {
		v->ranging = true;
		v->range_anchor = v->drag_from;
		v->cursor = at;
		v->dragging = false;
		view_act(v, A_MARK);
		return;
	}
	v->dragging = false;
	if (line < 0 || (uint32_t)line >= v->nlines)
		return; /* below the last line: nothing there */
	v->cursor = at;
	scroll_to_line(v, line);
	if (v->lines[v->sel_line].track != TT_NONE)
		select_under_cursor(v);
}

void view_key(struct view *v, int key)
{
	if (key == TT_KEY_RESIZE)
		return;
	if (TT_IS_MOUSE(key)) {
		/* the gap list and the distributed view cover the timeline: the mouse does not reach it */
		if (!v->gap_list && !v->dist && !v->help)
			view_mouse(v, key);
		return;
	}
	if (v->gap_list && !v->typing) {
		gap_list_key(v, key);
		return;
	}
	if (v->dist && !v->typing) {
		dist_key(v, key);
		return;
	}
	if (v->typing) {
		size_t n = strlen(v->query);
		if (key == TT_KEY_ENTER) {
			v->typing = false;
			run_search(v);
		} else if (key == TT_KEY_ESC) {
			v->typing = false;
			v->query[0] = '\0';
			run_search(v); /* no query: no matches left behind */
		} else if (key == TT_KEY_BACKSPACE) {
			if (n > 0)
				v->query[n - 1] = '\0';
		} else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof v->query) {
			v->query[n] = (char)key;
			v->query[n + 1] = '\0';
		}
		return;
	}
	if (v->help) {
		enum action a = view_action_for(v, key);
		if (a != A_HELP && a != A_CANCEL && a != A_QUIT) {
			v->help = false; /* any other key closes the help */
			return;
		}
	}
	v->status[0] = '\0';
	view_act(v, view_action_for(v, key));
}

int64_t view_col_time(const struct view *v, int x) { return col_time(v, x); }
