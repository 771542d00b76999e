/* panel.h: what the screen is made of: a stack of panels over the app (ui/app.h).
 *
 * A panel is a small set of operations: a name, the key context its bindings live in, an
 * action to act on, the mouse, drawing into its rectangle of the grid, freeing. The
 * timeline lies at the bottom of the stack; views (a table, the help, a prompt) open
 * above it. Only the top panel gets keys and the mouse; every panel is drawn, bottom
 * first, each over the one below it within its rectangle. */
#ifndef TT_PANEL_H
#define TT_PANEL_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/grid.h"
#include "ui/keys.h"

struct app;
struct panel;

struct rect {
	int x, y, w, h;
};

struct render_opts {
	bool ascii; /* no Unicode block glyphs */
};

struct panel_ops {
	const char *name;
	enum key_context ctx;
	/* Acts on A, the action KEY has in this panel's context (or globally); A_NONE for an
	 * unbound key (a prompt takes it as text). Returns false when the panel leaves the
	 * action to the app (a view to open, quitting). */
	bool (*act)(struct panel *p, struct app *app, enum action a, int key);
	/* A mouse event at screen position (X, Y); may be NULL. */
	void (*mouse)(struct panel *p, struct app *app, enum mouse_kind kind, int x, int y);
	/* Draws the panel into its rectangle P->r of G. */
	void (*draw)(struct panel *p, struct app *app, struct grid *g, const struct render_opts *o);
	/* The key hints for the status line while the panel is on top; may be NULL. */
	void (*hints)(struct panel *p, struct app *app, char *buf, size_t n);
	/* Sets P->r for a screen of the app's size; may be NULL (then the whole screen). */
	void (*layout)(struct panel *p, struct app *app);
	void (*free)(struct panel *p);
};

struct panel {
	const struct panel_ops *ops;
	struct rect r;
};

/* Fills R of G with blanks of STYLE: a panel starts by covering what lies below it. */
void panel_clear(struct grid *g, struct rect r, enum cell_style style);

#endif
