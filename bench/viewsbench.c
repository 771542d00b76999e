/* viewsbench.c: how long each view takes to open, the first time, on a loaded trace: loads
 * the files as ttrace does, sets up the app headless (ui/app.h) at 160x50, draws the
 * timeline once, then for each view presses its key and draws the frame (what the user
 * waits for: the analysis, computed once and cached, the table and the drawing), and
 * presses the key again to close it.
 *
 *   viewsbench FILE...
 *
 * Prints one markdown row per view: its key, name and milliseconds. Target: <= 100 ms. */
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: viewsbench FILE...\n", stderr);
		return 2;
	}
	int n = argc - 1;
	struct trace **ts = calloc((size_t)n, sizeof *ts);
	struct load_options opt = { 0 };
	double t0 = now();
	load_traces(argv + 1, n, &opt, ts);
	double load = now() - t0;
	for (int i = 0; i < n; i++)
		if (ts[i] == NULL || ts[i]->status == LOAD_FAILED) {
			fprintf(stderr, "viewsbench: %s: cannot load\n", argv[1 + i]);
			return 1;
		}
	struct app app;
	struct grid g;
	grid_init(&g, 160, 50);
	t0 = now();
	app_init(&app, ts, n, ALIGN_COLLECTIVE, 160, 50, false);
	app_draw(&app, &g);
	double tl = now() - t0;
	printf("| view | key | first open, ms |\n|---|---|---|\n");
	printf("| (load, %d file%s) | | %.0f |\n| timeline | | %.1f |\n", n, n > 1 ? "s" : "", load * 1e3, tl * 1e3);
	/* every view the key table opens, by its default key */
	static const struct {
		int key;
		enum action a;
	} views[] = { { 'V', A_OVERVIEW }, { 'O', A_OP_VIEW }, { 'K', A_KERNEL_VIEW }, { 'U', A_MEMORY_VIEW }, { 'o', A_GAP_LIST }, { 'p', A_DIST_VIEW } };
	for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
		t0 = now();
		app_key(&app, views[i].key);
		app_draw(&app, &g);
		double ms = (now() - t0) * 1e3;
		bool opened = app.depth > 1;
		printf("| %s | %c | %.1f%s |\n", action_name(views[i].a), views[i].key, ms, opened ? "" : " (did not open)");
		if (opened)
			app_key(&app, views[i].key);
	}
	app_free(&app);
	grid_free(&g);
	for (int i = 0; i < n; i++)
		trace_free(ts[i]);
	free(ts);
	return 0;
}
