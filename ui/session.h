/* session.h: one opening of the timeline, whatever the frontend: the app built over the
 * traces (or over files still loading, ui/loading.h), its key map read, the main loop run
 * until the user quits or the input ends, and the app ended. The terminal (ui/tty.h) and
 * the headless key script (ui/script.h) are the two frontends; neither builds an app. */
#ifndef TT_SESSION_H
#define TT_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"
#include "src/ranks.h"
#include "ui/app.h"
#include "ui/grid.h"

struct load_session;

struct session_opts {
	struct trace *const *ts; /* every rank's trace; with a load, TS[0] alone: the first
	                          * file's snapshot (the session takes it over) or its whole
	                          * trace (the load keeps it) */
	int nts;                 /* traces, or with a load the files it reads */
	enum align_mode align;
	int64_t gap_min;           /* --gap-min, ns */
	const char *keymap;        /* a key map file to read, or NULL */
	bool ascii;                /* no Unicode block glyphs */
	struct load_session *load; /* the files still loading (the session owns it), or NULL */
	int first_view;            /* a view (enum action) to open once every trace has loaded; 0 none */
};

/* Runs the timeline of O with the frontend FE until the user quits or FE's input ends,
 * drawing into G (resized to FE's screen; the last frame drawn stays there). With a
 * load: when it ended while the timeline was open, every file's trace (loaded or failed)
 * goes to OUT[0..nts), else OUT[0] is NULL and the load is given up. Returns 0, or 2 with
 * *CAUSE (allocated) when the key map cannot be opened (then no frame was drawn); lines of
 * the key map it cannot use are skipped and said in the status line. */
int session_run(const struct session_opts *o, struct frontend *fe, struct grid *g, struct trace **out, char **cause);

#endif
