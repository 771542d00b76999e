/* render.h: draws a view (ui/view.h) into a cell grid (ui/grid.h). No curses here. */
#ifndef TT_RENDER_H
#define TT_RENDER_H

#include <stdbool.h>

#include "ui/grid.h"
#include "ui/view.h"

struct render_opts {
	bool ascii;      /* no Unicode block glyphs (the locale is not UTF-8) */
};

/* Redraws the whole screen of V into G (resized to the view's size when needed). V's
 * args cache may be filled (the selected slice's args are read on demand). */
void render(struct grid *g, struct view *v, const struct render_opts *o);
/* The palette index (1..12) of a slice name: the same name, the same colour. */
uint8_t render_color_of(const struct trace *t, uint32_t name);

#endif
