/* render.h: draws the timeline (ui/view.h) into a cell grid (ui/grid.h). No curses here. */
#ifndef TT_RENDER_H
#define TT_RENDER_H

#include <stdbool.h>

#include "ui/grid.h"
#include "ui/panel.h"
#include "ui/view.h"

/* Draws the timeline V into G (of V's size): header, ruler, track area, details. V's
 * args cache may be filled (the selected slice's args are read on demand). */
void render_timeline(struct grid *g, struct view *v, const struct render_opts *o);
/* Draws the status line: V's message, mark or range on the left, HINTS on the right. */
void render_status(struct grid *g, const struct view *v, const char *hints);
/* The timeline column of view time T: -1 left of the window, the width or more right of it. */
int render_col_of(const struct view *v, int64_t t);
/* The palette index (1..12) of a slice name: the same name, the same colour. */
uint8_t render_color_of(const struct trace *t, uint32_t name);

#endif
