/* loading.c: the timeline while its traces load (see loading.h).
 *
 * The loader makes snapshots of what it has read of the first file (parsers/load.h);
 * each new one replaces the trace under the timeline, and the first file's whole trace
 * replaces the last, then every file's once all have loaded. The user's place survives
 * the swaps: the window (unless it showed everything, which then grows with it), the
 * cursor, the selected slice and line, found again by their track's ids, since track
 * numbers change as tracks appear; the search, run again; the places to go back to and
 * the bookmarks, by their times (their slices are forgotten). The first file is rank 0 of
 * the aligned set, whose view time and ids are its own, so all of these hold when the
 * other ranks come. The views over analyses open once everything is there: an analysis of
 * part of a trace would be wrong, not incomplete. */
#include "ui/loading.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/load.h"
#include "parsers/merged_file.h"
#include "ui/view_state.h"

/* What identifies a track across snapshots: its pid and tid as the file writes them. */
struct track_key {
	bool pid_is_str, tid_is_str;
	const char *pid, *tid; /* the string, when an id is one */
	int64_t pidv, tidv;
};

static struct track_key key_of(const struct trace *t, const struct track *tr)
{
	struct track_key k = { tr->pid_is_str, tr->tid_is_str, NULL, NULL, tr->pid, tr->tid };
	if (k.pid_is_str)
		k.pid = strtab_get(&t->strings, (uint32_t)tr->pid);
	if (k.tid_is_str)
		k.tid = strtab_get(&t->strings, (uint32_t)tr->tid);
	return k;
}

static bool key_is(const struct track_key *a, const struct track_key *b)
{
	if (a->pid_is_str != b->pid_is_str || a->tid_is_str != b->tid_is_str)
		return false;
	if (a->pid_is_str ? strcmp(a->pid, b->pid) != 0 : a->pidv != b->pidv)
		return false;
	return a->tid_is_str ? strcmp(a->tid, b->tid) == 0 : a->tidv == b->tidv;
}

/* The track of T with key K, or TT_NONE. */
static uint32_t find_track(const struct trace *t, const struct track_key *k)
{
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track_key o = key_of(t, &t->tracks[i]);
		if (key_is(&o, k))
			return i;
	}
	return TT_NONE;
}

/* The slice of track TI of T that starts at TS, lasts DUR and is named NAME, or TT_NONE. */
static uint32_t find_slice(const struct trace *t, uint32_t ti, int64_t ts, int64_t dur, const char *name)
{
	const struct track *tr = &t->tracks[ti];
	uint32_t lo = 0, hi = tr->nslices;
	while (lo < hi) { /* slices are sorted by start */
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->slices[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tr->nslices && tr->slices[lo].ts == ts; lo++)
		if (slice_dur(tr, &tr->slices[lo]) == dur &&
		    strcmp(strtab_get(&t->strings, slice_name(t, &tr->slices[lo])), name) == 0)
			return lo;
	return TT_NONE;
}

void loading_begin(struct app *app, struct load_session *s, struct trace *first)
{
	app->load = s;
	app->shown = xmalloc(sizeof *app->shown);
	app->shown[0] = first;
	app->snapshot = first->snapshot_bytes > 0 ? first : NULL;
	app->ts = app->shown;
	app->nts = 1;
	app->tl->ts = app->shown;
	app->tl->t = first;
	app->tl->loading_files = load_files(s);
	loading_update(app);
}

bool loading_update(struct app *app)
{
	struct view *v = app->tl;
	uint64_t got, total;
	if (app->load == NULL)
		return false;
	double f = load_fraction(app->load, &got, &total);
	bool changed = (int)(100 * f) != (int)(100 * v->loading) || v->loading < 0;
	v->loading = f < 0 ? 0 : f;
	v->loading_bytes = got;
	v->loading_total = total;
	return changed;
}

/* Keeps place P across a swap: its times hold, its slice and track numbers may not. */
static void forget_refs(struct view_pos *p)
{
	p->sel.track = p->sel.idx = TT_NONE;
	p->line_track = TT_NONE;
	p->gap_shown = false;
}

/* Puts the N traces TS (an array the app takes) under the timeline in place of what it
 * shows, keeping the user's place; SNAPSHOT is TS[0] when that is a snapshot (the app's),
 * else NULL. What it showed is rank 0's, the first file's; SAME_FIRST says TS[0] is that
 * file's too (else, the first file having failed, the selection and line are dropped). */
static void adopt(struct app *app, struct trace **ts, int n, struct trace *snapshot, bool same_first)
{
	struct view *v = app->tl;
	struct trace *old = v->ts[0], *t = ts[0]; /* the keys below point into OLD */
	struct trace **old_shown = app->shown, *old_snapshot = app->snapshot;
	bool whole = v->t0 <= v->start && v->t1 >= v->end; /* the window showed everything */
	int64_t t0 = v->t0, t1 = v->t1, cursor = v->cursor;
	int top = v->top, sel_line = v->sel_line;
	struct track_key sel_key = { 0 }, line_key = { 0 };
	bool has_sel = false, has_line = false;
	uint16_t line_row = 0;
	int64_t sel_ts = 0, sel_dur = 0;
	const char *sel_name = NULL;
	char query[sizeof v->query];
	char status[sizeof v->status];
	enum align_mode align = v->align;
	double loading = v->loading;
	uint64_t lb = v->loading_bytes, lt = v->loading_total;

	if (same_first && v->sel.track != TT_NONE && view_rank_of(v->sel.track) == 0) {
		const struct track *tr = view_track(v, v->sel.track);
		const struct slice *s = &tr->slices[v->sel.idx];
		sel_key = key_of(old, tr);
		sel_ts = s->ts;
		sel_dur = slice_dur(tr, s);
		sel_name = strtab_get(&old->strings, slice_name(old, s));
		has_sel = true;
	}
	const struct view_line *l = view_cur_line(v);
	if (same_first && l != NULL && l->track != TT_NONE && view_rank_of(l->track) == 0) {
		line_key = key_of(old, view_track(v, l->track));
		line_row = l->row;
		has_line = true;
	}
	memcpy(query, v->query, sizeof query);
	memcpy(status, v->status, sizeof status);
	/* the places to go back to and the bookmarks, by time */
	struct history history = v->history;
	struct bookmark *bookmarks = v->bookmarks;
	uint32_t nbookmarks = v->nbookmarks, made = v->bookmarks_made, bversion = v->bookmarks_version;
	v->bookmarks = NULL;

	/* the keys above point into OLD: it is freed last */
	struct panel base = v->base;
	int nfiles = v->loading_files;
	app->gap_min = v->gap_min; /* as < and > left it */
	view_free(v);
	app->shown = ts;
	app->snapshot = snapshot;
	app->ts = ts;
	app->nts = n;
	view_init(v, app, ts, n, align, app->w, app->h);
	v->base = base;
	v->loading_files = nfiles;
	if (!whole)
		view_set_window_range(v, t0, t1);
	v->cursor = cursor;
	if (has_line) {
		uint32_t ti = find_track(t, &line_key);
		for (uint32_t i = 0; ti != TT_NONE && i < v->nlines; i++)
			if (v->lines[i].track == ti && v->lines[i].row == line_row) {
				sel_line = (int)i;
				break;
			}
	}
	v->sel_line = sel_line >= 0 && (uint32_t)sel_line < v->nlines ? sel_line : (v->nlines > 1 ? 1 : 0);
	v->top = top >= 0 && (uint32_t)top < v->nlines ? top : 0;
	if (has_sel) {
		uint32_t ti = find_track(t, &sel_key);
		uint32_t si = ti != TT_NONE ? find_slice(t, ti, sel_ts, sel_dur, sel_name) : TT_NONE;
		if (si != TT_NONE) {
			v->sel.track = ti;
			v->sel.idx = si;
		}
	}
	if (query[0] != '\0') {
		memcpy(v->query, query, sizeof query);
		search_run(v);
	}
	view_prepare_details(v);
	v->history = history;
	for (int i = 0; i < v->history.n; i++)
		forget_refs(&v->history.e[i]);
	v->bookmarks = bookmarks;
	v->nbookmarks = nbookmarks;
	v->bookmarks_made = made;
	v->bookmarks_version = bversion + 1;
	for (uint32_t i = 0; i < nbookmarks; i++)
		forget_refs(&v->bookmarks[i].pos);
	if (v->status[0] == '\0')
		memcpy(v->status, status, sizeof status);
	v->loading = app->load != NULL ? loading : -1;
	v->loading_bytes = lb;
	v->loading_total = lt;
	free(old_shown);
	if (old_snapshot != snapshot)
		trace_free(old_snapshot); /* the keys above pointed into it */
}

/* T, or the parse that replaced it when its cache was cut (loading_recover). */
static struct trace *current(const struct app *app, struct trace *t)
{
	for (int i = 0; i < app->nswaps; i++)
		if (app->swaps[i].old == t)
			return app->swaps[i].new;
	return t;
}

/* T's file parsed again: the same rank of a merged trace when T is one (its cache is named
 * after its place in the file), else the whole file. */
static struct trace *reload(const struct trace *t, struct load_options *opt)
{
	struct merged_file mf;
	char *cause = NULL;
	struct trace *nt;
	int rc = t->merged ? merged_file_read(t->path, &mf, &cause) : 0;
	free(cause);
	if (rc == 1 && t->merged_pos >= 0 && t->merged_pos < mf.nranks) {
		struct merged_rank *r = &mf.ranks[t->merged_pos];
		r->group_pos = t->merged_pos;
		r->group_n = mf.nranks;
		const struct merged_rank *one[1] = { r };
		opt->merged = one;
		nt = load_trace(t->path, opt);
		opt->merged = NULL;
	} else {
		nt = load_trace(t->path, opt);
	}
	if (rc == 1)
		merged_file_release(&mf);
	return nt;
}

bool loading_recover(struct app *app)
{
	int n = app->nts, k = 0;
	struct trace **ts = xcalloc((size_t)n, sizeof *ts);
	const char *first = NULL;

	for (int i = 0; i < n; i++) {
		struct trace *t = app->ts[i];
		ts[i] = t;
		if (!trace_cache_lost(t))
			continue;
		/* parsed again, as without its cache (the cut one is refused as damaged); its new
		 * cache is written before it is shown */
		struct load_options opt = { 0 };
		opt.quiet = true;
		struct trace *nt = reload(t, &opt);
		if (nt->finish_cache_save != NULL)
			nt->finish_cache_save(nt);
		app->swaps = xreallocarray(app->swaps, (size_t)app->nswaps + 1, sizeof *app->swaps);
		app->swaps[app->nswaps++] = (struct trace_swap){ t, nt };
		ts[i] = nt;
		if (first == NULL)
			first = nt->path;
		k++;
	}
	if (k == 0) {
		free(ts);
		return false;
	}
	/* the views over the old traces go; the timeline keeps its window, not its selection */
	while (app->depth > 1)
		app_pop(app);
	adopt(app, ts, n, app->snapshot, false);
	app_status(app, "the cache of %s%s was cut while in use: parsed again", first, k > 1 ? " and others" : "");
	return true;
}

/* ONE trace in an array of its own, for adopt. */
static struct trace **one(struct trace *t)
{
	struct trace **a = xmalloc(sizeof *a);
	a[0] = t;
	return a;
}

bool loading_poll(struct app *app)
{
	if (app->load == NULL)
		return false;
	bool changed = loading_update(app);
	if (load_wait(app->load, 0)) {
		int n = load_files(app->load);
		struct trace **all = xcalloc((size_t)n, sizeof *all);
		trace_free(load_take_snapshot(app->load));
		load_finish(app->load, all);
		app->load = NULL;
		app->loaded = all;
		app->nloaded = n;
		/* the timeline shows the files that loaded, one per rank (as ui/main.c does) */
		struct trace **usable = xcalloc((size_t)n, sizeof *usable);
		int k = 0;
		for (int i = 0; i < n; i++)
			if (all[i]->status != LOAD_FAILED)
				usable[k++] = current(app, all[i]);
		if (k == 0) {
			/* nothing more to show than what was shown: the caller says why */
			free(usable);
			app->load_failed = true;
			app->tl->loading = -1;
			app->quit = true;
			return true;
		}
		adopt(app, usable, k, NULL, usable[0] == current(app, all[0]));
		return true;
	}
	if (app->snapshot != NULL) {
		/* the first of several files has loaded: it replaces its snapshot */
		struct trace *first = load_file_done(app->load, 0);
		if (first != NULL && first->status != LOAD_FAILED) {
			first = current(app, first);
			trace_free(load_take_snapshot(app->load));
			adopt(app, one(first), 1, NULL, true);
			return true;
		}
	}
	struct trace *snap = load_take_snapshot(app->load);
	if (snap != NULL) {
		if (app->snapshot == NULL) { /* the first file's whole trace is shown already */
			trace_free(snap);
			return changed;
		}
		adopt(app, one(snap), 1, snap, true);
		return true;
	}
	return changed;
}

bool loading_blocks(struct app *app, const char *view_name)
{
	if (app->load == NULL)
		return false;
	app_status(app, "the %s view opens when %s loaded (%.0f%% read)", view_name,
	           app->tl->loading_files > 1 ? "every file has" : "the trace has",
	           100 * (app->tl->loading < 0 ? 0 : app->tl->loading));
	return true;
}

bool loading_end(struct app *app, struct trace **out)
{
	if (app->load != NULL) {
		/* quit while loading: the load is given up; its traces are freed after the app,
		 * which may show the first */
		load_cancel(app->load);
		load_finish(app->load, out);
		app->load = NULL;
		return false;
	}
	if (app->loaded != NULL)
		memcpy(out, app->loaded, (size_t)app->nloaded * sizeof *out);
	return true;
}
