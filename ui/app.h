/* app.h: the app: the loaded traces, their shared analyses, the key table and the stack
 * of panels (ui/panel.h), and the one main loop that serves the terminal (ui/tty.c) and
 * the headless key script (--dump-screen) alike, the frontend being the only difference.
 *
 * The timeline (ui/view.h) is always at the bottom of the stack. Views are opened by name
 * through their action (ui/views.c registers them); an action the top panel leaves is
 * looked up there, then quits or is ignored. */
#ifndef TT_APP_H
#define TT_APP_H

#include <stdbool.h>

#include "src/model.h"
#include "src/ranks.h"
#include "ui/grid.h"
#include "ui/keys.h"
#include "ui/panel.h"

#define APP_MAX_PANELS 16

struct view;
struct load_session;

struct app {
	struct trace *const *ts; /* every rank's trace */
	int nts;
	struct keymap keys;
	struct render_opts ro;
	int w, h; /* screen size */
	struct panel *stack[APP_MAX_PANELS];
	int depth;
	struct view *tl; /* the timeline: stack[0] */
	bool quit;
	/* traces still loading (ui/loading.h) */
	struct load_session *load; /* the load, until it ends */
	struct trace **shown;      /* what the timeline shows of a load (the app's array): ts points here */
	struct trace *snapshot;    /* the snapshot of the first file shown (the app's), or NULL */
	struct trace **loaded;     /* every file's trace once the load ended (the caller's), else NULL */
	int nloaded;
	bool load_failed; /* the load ended and no file loaded: nothing to show */
	int first_view;   /* a view (enum action) to open once the load has ended (--diff); A_NONE: none */
	int64_t gap_min;  /* the gaps the timeline starts with (--gap-min), ns */
	/* traces read from a cache that was cut while mapped, and the parses that replace them
	 * (the new ones are the app's; loading_recover) */
	/* clang-format off */
	struct trace_swap {
		struct trace *old, *new;
	} *swaps;
	/* clang-format on */
	int nswaps;
	/* what kinds of panel keep between their openings (app_memory) */
	/* clang-format off */
	struct app_memory {
		const void *key;
		void *data;
	} *memory;
	/* clang-format on */
	int nmemory;
	struct frontend *fe; /* the main loop's, while it runs (source.h hands the terminal over) */
};

/* Sets up the app over the N traces TS at size W x H with the timeline open. */
void app_init(struct app *app, struct trace *const *ts, int n, enum align_mode align, int w, int h, bool ascii);
/* Sets the shortest gap the timeline's gap keys and list show (--gap-min; < and > change
 * it in the timeline). */
void app_set_gap_min(struct app *app, int64_t ns);
/* Frees the app, and the shown array and snapshot of a load (not the traces it loaded). */
void app_free(struct app *app);
/* Reads a key map into the key table (keys.h). Returns 0 or -1 with *cause. */
int app_load_keymap(struct app *app, const char *path, char **cause);

struct panel *app_top(const struct app *app);
/* Pushes P (allocated; the app frees it when it closes) on top of the stack. */
void app_push(struct app *app, struct panel *p);
/* Closes and frees the top panel (never the timeline). */
void app_pop(struct app *app);
/* The memory a kind of panel keeps between its openings (where a list was left, say):
 * SIZE bytes under KEY (something of the kind's own, e.g. its table_owner), zeroed the
 * first time; the app frees it. SIZE must be the same at every call with KEY. */
void *app_memory(struct app *app, const void *key, size_t size);
/* Sets the status line's message (printf-like). */
void app_status(struct app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One key, mouse event or resize (TT_KEY_RESIZE is handled by app_resize). */
void app_key(struct app *app, int key);
void app_resize(struct app *app, int w, int h);
/* Draws every panel and the status line into G (resized to the app's size). */
void app_draw(struct app *app, struct grid *g);

/* What the main loop needs from where the keys come from and the frames go to. */
struct frontend {
	/* The next key: a key code, a mouse code, TT_KEY_RESIZE, -1 for nothing within about
	 * WAIT_MS (poll again), or -2 when the input has ended (the script is done, a signal
	 * arrived). */
	int (*next_key)(struct frontend *fe, int wait_ms);
	/* Shows the frame just drawn. */
	void (*present)(struct frontend *fe, const struct grid *g);
	/* The screen size after a TT_KEY_RESIZE. */
	void (*size)(struct frontend *fe, int *w, int *h);
	/* Called with how long each action and each frame took (ms); may be NULL. */
	void (*timing)(struct frontend *fe, int key, double action_ms, double frame_ms);
	/* Runs the command ARGV with the terminal handed over, and takes it back; returns its
	 * wait status, -1 when it could not start. NULL: there is no terminal (the command
	 * runs without one). */
	int (*run)(struct frontend *fe, char *const argv[]);
};

/* The main loop: draw, present, read a key, act, until quit or the input ends. The last
 * frame drawn stays in G. */
void app_run(struct app *app, struct frontend *fe, struct grid *g);

#endif
