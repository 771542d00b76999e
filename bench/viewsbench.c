/* viewsbench.c: how long each view takes to open, the first time, on a loaded trace: for
 * each view, loads the files as ttrace does, sets up the app headless (ui/app.h) at
 * 160x50, draws the timeline once, then presses the view's key and draws the frame (what
 * the user waits for: the analysis, computed once and cached, the table and the drawing),
 * each view on a fresh load so that it finds nothing of another's in the cache.
 *
 *   viewsbench [--view=KEY] FILE...
 *
 * With --view, only the view of that key, so that each view can be measured in a fresh
 * process (bench/views does): in one process, the views after the first find the heap
 * that the previous loads freed, and skip the page faults of fresh memory.
 *
 * Prints one markdown row per view: its name, key and milliseconds, with the load and the
 * first timeline frame before it. Target: <= 100 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers/load.h"
#include "ui/app.h"
#include "ui/grid.h"
#include "ui/keys.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Loads the files, sets up the app and draws the timeline; returns the load seconds. */
static double setup(char **paths, int n, struct trace **ts, struct app *app, struct grid *g, double *tl)
{
	struct load_options opt = { 0 };
	double t0 = now();
	load_traces(paths, n, &opt, ts);
	double load = now() - t0;
	for (int i = 0; i < n; i++)
		if (ts[i] == NULL || ts[i]->status == LOAD_FAILED) {
			fprintf(stderr, "viewsbench: %s: cannot load\n", paths[i]);
			exit(1);
		}
	t0 = now();
	app_init(app, ts, n, ALIGN_COLLECTIVE, 160, 50, false);
	app_draw(app, g);
	*tl = now() - t0;
	return load;
}

static void teardown(struct trace **ts, int n, struct app *app)
{
	app_free(app);
	for (int i = 0; i < n; i++)
		trace_free(ts[i]);
}

int main(int argc, char **argv)
{
	int only = 0;
	if (argc > 1 && strncmp(argv[1], "--view=", 7) == 0) {
		only = (unsigned char)argv[1][7];
		argv++;
		argc--;
	}
	if (argc < 2) {
		fputs("usage: viewsbench [--view=KEY] FILE...\n", stderr);
		return 2;
	}
	int n = argc - 1;
	struct trace **ts = calloc((size_t)n, sizeof *ts);
	struct app app;
	struct grid g;
	grid_init(&g, 160, 50);
	/* every view the key table opens, by its default key; each on a fresh load, so that
	 * none finds another's analysis in the cache (the Operators view reads the memory
	 * table, the Overview the gaps) */
	static const struct {
		int key;
		enum action a;
	} views[] = { { 'V', A_OVERVIEW },    { 'O', A_OP_VIEW },  { 'K', A_KERNEL_VIEW },
		      { 'U', A_MEMORY_VIEW }, { 'o', A_GAP_LIST }, { 'p', A_DIST_VIEW } };
	if (only == 0)
		printf("| view | key | first open, ms | load, s | timeline, ms |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
		if (only != 0 && views[i].key != only)
			continue;
		double tl, load = setup(argv + 1, n, ts, &app, &g, &tl);
		double t0 = now();
		app_key(&app, views[i].key);
		app_draw(&app, &g);
		double ms = (now() - t0) * 1e3;
		bool opened = app.depth > 1;
		printf("| %s | %c | %.1f%s | %.2f | %.1f |\n", action_name(views[i].a), views[i].key, ms,
		       opened ? "" : " (did not open)", load, tl * 1e3);
		teardown(ts, n, &app);
	}
	grid_free(&g);
	free(ts);
	return 0;
}
