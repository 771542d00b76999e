/* tty.h: the interactive timeline on the terminal: the one module that uses curses. */
#ifndef TT_TTY_H
#define TT_TTY_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"
#include "src/ranks.h"

/* Runs the timeline on trace T until the user quits. KEYMAP (or NULL) remaps keys.
 * The terminal is restored on every exit path, including signals and crashes. Returns
 * the exit status. */
int tty_run(struct trace *const *ts, int nts, enum align_mode align, int64_t gap_min, const char *keymap, bool ascii);
/* As tty_run over the NTS files of LOAD, still loading (ui/loading.h): TS[0] is the first
 * file's snapshot, which the call takes over, or its whole trace, which LOAD keeps. When
 * the load ended while the timeline was open, every file's trace (loaded or failed) goes
 * to OUT[0..nts), else (the user quit first) OUT[0] is NULL. */
struct load_session;
int tty_run_loading(struct trace *const *ts, int nts, enum align_mode align, int64_t gap_min, const char *keymap, bool ascii,
                    struct load_session *load, struct trace **out);

#endif
