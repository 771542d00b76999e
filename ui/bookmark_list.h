/* bookmark_list.h: the bookmarks of the timeline (ui/places.c) as a table panel: each
 * bookmark's name, window and selection; Enter shows it again, x deletes it. */
#ifndef TT_BOOKMARK_LIST_H
#define TT_BOOKMARK_LIST_H

#include "ui/panel.h"

/* The bookmark list over APP's timeline, or NULL (saying so) when there is none. */
struct panel *bookmark_list_open(struct app *app);

#endif
