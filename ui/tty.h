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
/* As tty_run over one trace still loading: TS[0] is LOAD's first snapshot (ui/loading.h),
 * which the call takes over. When the load ended while the timeline was open, the whole
 * trace (loaded or failed) goes to *WHOLE, else (the user quit first) NULL. */
struct load_session;
int tty_run_loading(struct trace *const *ts, int nts, enum align_mode align, const char *keymap, bool ascii,
                    struct load_session *load, struct trace **whole);

#endif
