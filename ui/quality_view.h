/* quality_view.h: the data-quality panel: what --check prints, in the timeline.
 *
 * One row per kind of problem the loader counted (src/model.h, struct quality) with its
 * examples folded below it, the loader's warnings, and whether the file was cut short;
 * Enter on an example shows its place. The header of the timeline marks a file with
 * problems (quality_problems, src/model.h) so that they are not seen only after quitting. */
#ifndef TT_QUALITY_VIEW_H
#define TT_QUALITY_VIEW_H

#include <stdint.h>

#include "src/model.h"
#include "ui/panel.h"

/* Opens the panel over the focused rank's trace. */
struct panel *quality_view_open(struct app *app);

#endif
