/* tty.h: the interactive timeline on the terminal: the one module that uses curses. */
#ifndef TT_TTY_H
#define TT_TTY_H

#include <stdbool.h>

#include "src/model.h"
#include "src/ranks.h"

/* Runs the timeline on trace T until the user quits. KEYMAP (or NULL) remaps keys.
 * The terminal is restored on every exit path, including signals and crashes. Returns
 * the exit status. */
int tty_run(struct trace *const *ts, int nts, enum align_mode align, const char *keymap, bool ascii);

#endif
