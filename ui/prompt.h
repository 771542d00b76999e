/* prompt.h: a one-line text prompt on the status line (the search, a table's filter).
 *
 * Printable keys are its text; its context's bindings accept (Enter), cancel (Esc) and
 * erase (Backspace). DONE is called once, with the text and whether it was accepted; then
 * the prompt closes. CHANGE, when given, is called after every edit (a live filter). */
#ifndef TT_PROMPT_H
#define TT_PROMPT_H

#include <stdbool.h>

#include "ui/panel.h"

typedef void (*prompt_fn)(void *ctx, struct app *app, const char *text, bool accepted);

struct panel *prompt_new(const char *label, const char *initial, prompt_fn done, void *ctx);
struct panel *prompt_new_live(const char *label, const char *initial, prompt_fn done, prompt_fn change, void *ctx);

#endif
