/* panels.h: the views a key opens, registered in one table (ui/panels.c).
 *
 * A new view is a file under ui/ with an `open` function and a line in that table; the
 * app (ui/app.c) opens it on its action, and closes it when the same action comes while
 * it is on top. */
#ifndef TT_PANELS_H
#define TT_PANELS_H

#include <stdbool.h>

#include "ui/keys.h"
#include "ui/panel.h"

struct app;

struct panel_entry {
	enum action action;
	const char *name;                    /* the panel's ops->name */
	struct panel *(*open)(struct app *); /* NULL when there is nothing to show (it says why) */
};

/* The entry whose action is A, or NULL. */
const struct panel_entry *panels_find(enum action a);

#endif
