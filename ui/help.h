/* help.h: the help panel: the keys of the panel that was on top, grouped, scrolling. */
#ifndef TT_HELP_H
#define TT_HELP_H

#include "ui/panel.h"

struct panel *help_open(struct app *app);

#endif
