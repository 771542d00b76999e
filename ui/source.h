/* source.h: jump to source: the file and line of a Python frame as Kineto writes it
 * ("train.py(45): step"), found on this machine (as recorded, under a prefix rewritten,
 * or under a root directory) and opened in the user's editor, the terminal handed over
 * for the time it runs. */
#ifndef TT_SOURCE_H
#define TT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct app;

/* Where recorded paths are looked for besides where they say: --source-root=DIR (a
 * relative path under DIR, an absolute one's trailing parts under DIR) and
 * --source-map=FROM=TO (a path starting with FROM has it replaced by TO). NULL: none. */
struct source_opts {
	const char *root;
	const char *map; /* "FROM=TO" */
};

/* The first of FILE's candidates under O that is a regular file here, into PATH (N
 * bytes): true; else false, with the candidates tried, "; "-separated, in TRIED (TN). */
bool source_resolve(const struct source_opts *o, const char *file, char *path, size_t n, char *tried, size_t tn);
/* The command that opens PATH at LINE, into ARGV (at most MAX - 1 words, NULL after them,
 * pointing into BUF of N bytes): TTRACE_EDITOR as a template of words where %f is the
 * file, %l the line and %% a percent sign; else $VISUAL, else $EDITOR (their words), else
 * vi, followed by +LINE and PATH, the convention of vi, vim, nvim, emacs and nano. No
 * shell reads it: a path is one word whatever it holds. Returns the words, 0 when they
 * do not fit. */
int source_editor_argv(const char *path, int line, char **argv, int max, char *buf, size_t n);
/* Sets the places looked in for the rest of the program (--source-root, --source-map);
 * the strings must stay alive. */
void source_set_opts(const char *root, const char *map);
/* Opens FRAME's source in the editor (the app's frontend hands the terminal over) and
 * says on the status line what it did, or which paths it tried. WHAT names the frame's
 * origin in messages ("the selected slice"). */
void source_open_frame(struct app *app, const char *frame, const char *what);
/* The innermost Python frame at or above the timeline's selected slice, opened as
 * source_open_frame does; says so when there is none. */
void source_open_selected(struct app *app);

#endif
