/* tty.h: the terminal as a frontend of the main loop (ui/app.h): the one module that uses
 * curses. It shows the frames and reads the keys; it knows nothing of traces, panels or
 * commands (ui/session.h runs the app over it). */
#ifndef TT_TTY_H
#define TT_TTY_H

#include <stdbool.h>

#include "ui/app.h"

/* Takes the terminal: curses started, and the terminal restored on every exit path from
 * then on, signals and crashes included (see tty.c). Returns the frontend (static: one
 * terminal), or NULL when the terminal cannot start (said on stderr). *ASCII becomes true
 * when the locale's character set is not UTF-8. */
/* The version of the curses library linked in ("ncurses 6.4.20221231"). */
const char *tty_curses_version(void);
struct frontend *tty_open(bool *ascii);
/* Gives the terminal back as it was. Returns 128 + N when signal N ended the session,
 * else 0. */
int tty_close(struct frontend *fe);

#endif
