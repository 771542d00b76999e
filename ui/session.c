/* session.c: the app of one opening of the timeline, from its start to its end
 * (session.h). */
#include "ui/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "ui/loading.h"

/* Ends an app that was loading N files: gives up the load if it still runs, frees the app
 * (and the snapshot it showed); every file's trace, when the load ended, goes to
 * OUT[0..n), else OUT[0] is NULL. */
static void end_loading(struct app *app, struct trace **out, int n)
{
	bool ended = loading_end(app, out);
	app_free(app);
	if (!ended) {
		for (int i = 0; i < n; i++)
			trace_free(out[i]);
		out[0] = NULL;
	}
}

int session_run(const struct session_opts *o, struct frontend *fe, struct grid *g, struct trace **out, char **cause)
{
	struct app app;
	int w, h;

	fe->size(fe, &w, &h);
	if (o->load != NULL) {
		/* the app shows TS[0] through app.shown (app_init keeps the pointer to FIRST:
		 * loading_begin moves it) */
		struct trace *first = o->ts[0];
		app_init(&app, &first, 1, o->align, w, h, o->ascii);
		loading_begin(&app, o->load, first);
	} else {
		app_init(&app, o->ts, o->nts, o->align, w, h, o->ascii);
	}
	app_set_gap_min(&app, o->gap_min);
	app.first_view = o->first_view;
	int rc = 0;
	int bad = o->keymap != NULL ? app_load_keymap(&app, o->keymap, cause) : 0;
	if (bad < 0) {
		rc = 2;
	} else {
		if (bad > 0 && *cause != NULL) {
			/* the lines the key map could not use are skipped; the first is said, escaped */
			char first[200], esc[400];
			const char *nl = strchr(*cause, '\n');
			snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - *cause) : (int)strlen(*cause), *cause);
			escape_term_buf(first, strlen(first), esc, sizeof esc);
			if (bad > 1)
				app_status(&app, "key map: %s; %d more skipped (? lists the keys)", esc, bad - 1);
			else
				app_status(&app, "key map: %s (? lists the keys)", esc);
		}
		free(*cause);
		*cause = NULL;
		app_run(&app, fe, g);
	}
	if (o->load != NULL)
		end_loading(&app, out, o->nts);
	else
		app_free(&app);
	return rc;
}
