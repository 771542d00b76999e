/* app.c: the app, its stack of panels and the main loop (see app.h). */
#include "ui/app.h"
#include "ui/advice_view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/test_knobs.h"
#include "lib/map_guard.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "ui/loading.h"
#include "ui/panels.h"
#include "ui/source.h"
#include "ui/view.h"

void panel_clear(struct grid *g, struct rect r, enum cell_style style)
{
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			grid_set(g, x, y, ' ', style, 0);
}

static void layout(struct app *app, struct panel *p)
{
	if (p->ops->layout != NULL)
		p->ops->layout(p, app);
	else
		p->r = (struct rect){ 0, 0, app->w, app->h };
}

void app_init(struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h, bool ascii)
{
	memset(app, 0, sizeof *app);
	app->ts = ts;
	app->nts = n;
	app->ro.ascii = ascii;
	app->w = w > 20 ? w : 20; /* a smaller terminal shows the top left */
	app->h = h > 8 ? h : 8;
	app->gap_min = ANALYSIS_DEFAULT_MIN_GAP;
	keymap_init(&app->keys);
	app->tl = view_new(app, ts, n, align, app->w, app->h);
	app->stack[app->depth++] = view_panel(app->tl);
	layout(app, view_panel(app->tl));
}

void app_set_gap_min(struct app *app, int64_t ns)
{
	if (ns <= 0 || ns == app->gap_min)
		return;
	app->gap_min = ns;
	view_set_gap_min(app->tl, ns);
}

void app_free(struct app *app)
{
	while (app->depth > 0) {
		struct panel *p = app->stack[--app->depth];
		p->ops->free(p);
	}
	free(app->shown);
	trace_free(app->snapshot);
	free(app->loaded); /* the array: its traces went to the caller (loading_end) */
	for (int i = 0; i < app->nswaps; i++)
		trace_free(app->swaps[i].new);
	free(app->swaps);
	for (int i = 0; i < app->nmemory; i++)
		free(app->memory[i].data);
	free(app->memory);
	memset(app, 0, sizeof *app);
}

int app_load_keymap(struct app *app, const char *path, char **cause) { return keymap_load(&app->keys, path, cause); }

struct panel *app_top(const struct app *app) { return app->stack[app->depth - 1]; }

void app_push(struct app *app, struct panel *p)
{
	if (app->depth == APP_MAX_PANELS) {
		p->ops->free(p);
		app_status(app, "too many panels open: Esc closes one");
		return;
	}
	app->stack[app->depth++] = p;
	layout(app, p);
}

void app_pop(struct app *app)
{
	if (app->depth <= 1)
		return;
	struct panel *p = app->stack[--app->depth];
	p->ops->free(p);
}

void *app_memory(struct app *app, const void *key, size_t size)
{
	for (int i = 0; i < app->nmemory; i++)
		if (app->memory[i].key == key)
			return app->memory[i].data;
	app->memory = xreallocarray(app->memory, (size_t)app->nmemory + 1, sizeof *app->memory);
	app->memory[app->nmemory] = (struct app_memory){ key, xcalloc(1, size) };
	return app->memory[app->nmemory++].data;
}

void app_status(struct app *app, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	view_vstatus(app->tl, fmt, ap);
	va_end(ap);
}

/* An action the top panel left: a view to open or close, quitting. */
static void app_act(struct app *app, enum action a)
{
	const struct panel_entry *e = panels_find(a);
	if (e != NULL && e->action != A_HELP && loading_blocks(app, e->name))
		return;
	if (e != NULL) {
		struct panel *top = app_top(app);
		if (app->depth > 1 && strcmp(top->ops->name, e->name) == 0) {
			app_pop(app); /* its own key closes it */
			return;
		}
		/* a view already open lower in the stack comes back on top, not twice */
		for (int i = app->depth - 1; i >= 1; i--)
			if (strcmp(app->stack[i]->ops->name, e->name) == 0) {
				struct panel *p = app->stack[i];
				memmove(&app->stack[i], &app->stack[i + 1],
				        (size_t)(app->depth - 1 - i) * sizeof *app->stack);
				app->stack[app->depth - 1] = p;
				return;
			}
		struct panel *p = e->open(app);
		if (p != NULL)
			app_push(app, p);
		return;
	}
	if (a == A_QUIT)
		app->quit = true;
	else if (a == A_EDIT_SOURCE)
		source_open_selected(app);
	else if (a == A_CLOSE || a == A_CANCEL)
		app_pop(app);
}

void app_key(struct app *app, int key)
{
	struct panel *top = app_top(app);
	if (key == TT_KEY_RESIZE)
		return;
	if (TT_IS_MOUSE(key)) {
		/* only the top panel gets the mouse: a click on a list does not reach the timeline */
		if (top->ops->mouse != NULL)
			top->ops->mouse(top, app, TT_MOUSE_KIND(key), TT_MOUSE_X(key), TT_MOUSE_Y(key));
		view_prepare_details(app->tl); /* a click may select: its args are read now, not in a frame */
		return;
	}
	enum action a = keymap_action(&app->keys, top->ops->ctx, key);
	struct view_pos before;
	view_pos_take(app->tl, &before);
	if (!top->ops->act(top, app, a, key))
		app_act(app, a);
	places_after_action(app->tl, a, &before); /* a jump leaves a place to come back to */
	view_prepare_details(app->tl);            /* the selection's args, read before the frame */
}

void app_resize(struct app *app, int w, int h)
{
	app->w = w > 20 ? w : 20;
	app->h = h > 8 ? h : 8;
	for (int i = 0; i < app->depth; i++)
		layout(app, app->stack[i]);
}

void app_draw(struct app *app, struct grid *g)
{
	if (g->w != app->w || g->h != app->h) {
		grid_free(g);
		grid_init(g, app->w, app->h);
	}
	/* bottom first; the status line goes over all but the top panel, so that a prompt
	 * on top can take its place */
	for (int i = 0; i < app->depth - 1; i++)
		app->stack[i]->ops->draw(app->stack[i], app, g, &app->ro);
	char hints[200] = "";
	struct panel *top = app_top(app);
	if (top->ops->hints != NULL)
		top->ops->hints(top, app, hints, sizeof hints);
	view_draw_status(g, app->tl, hints);
	top->ops->draw(top, app, g, &app->ro);
}

static double now_ms(void) { return 1e3 * monotime_seconds(); }

void app_run(struct app *app, struct frontend *fe, struct grid *g)
{
	/* volatile: kept across a jump back from a cut cache (below) */
	volatile int key = -1;
	volatile double action_ms = 0;
	volatile bool hinted = false;
	volatile unsigned seen = map_guard_generation();
	sigjmp_buf guard;
	/* bench/live: end once the whole trace is drawn, loaded live or not */
	bool quit_when_whole = test_knobs().quit_loaded;
	app->fe = fe;
	for (;;) {
		/* a cache cut while mapped (lib/map_guard.h): a read of it jumps back here, or
		 * another thread saw it; its trace is parsed again and replaces it */
		if (sigsetjmp(guard, 1) != 0)
			map_guard_disarm();
		if (map_guard_generation() != seen) {
			seen = map_guard_generation();
			loading_recover(app);
			key = -1;
		}
		map_guard_arm(&guard);
		double t0 = now_ms();
		app_draw(app, g);
		if (fe->timing != NULL)
			fe->timing(fe, key, action_ms, now_ms() - t0);
		fe->present(fe, g);
		if (app->quit || (quit_when_whole && app->load == NULL))
			break;
		if (view_complete(app->tl)) {
			/* a big trace's gaps, utilization and counters, after its first frame */
			app_draw(app, g);
			fe->present(fe, g);
		}
		if (app->first_view != A_NONE && app->load == NULL) {
			/* the view asked for on the command line, once every trace is there */
			enum action a = (enum action)app->first_view;
			app->first_view = A_NONE;
			app_act(app, a);
			continue;
		}
		if (!hinted && app->load == NULL) {
			/* the findings after the first frame (of the whole load), so that the timeline
			 * shows at once; a serious one is hinted at in the status line */
			hinted = true;
			advice_hint(app);
			if (view_has_status(app->tl)) {
				app_draw(app, g);
				fe->present(fe, g);
			}
		}
		/* while loading, wake up soon enough to show what came at once (a load's end
		 * noticed late was a visible part of a big trace's load: bench/RESULTS.md, "Figures
		 * moved out of the code"); else often enough to notice signals */
		while ((key = fe->next_key(fe, app->load != NULL ? 20 : 200)) == -1)
			if (app->load != NULL && loading_poll(app))
				break; /* a newer snapshot, the whole trace or more read: draw again */
		if (key == -1) {
			action_ms = 0;
			continue;
		}
		if (key == -2)
			break;
		if (key == TT_KEY_RESIZE) {
			int w, h;
			fe->size(fe, &w, &h);
			app_resize(app, w, h);
			key = -1;
			continue;
		}
		double t1 = now_ms();
		app_key(app, key);
		action_ms = now_ms() - t1;
	}
	map_guard_disarm();
}
