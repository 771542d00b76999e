/* args_text.h: an event's args as text, for the screen and the reports: what ui/ may use
 * of the args (parsers/args_json.h, which holds the parsed cJSON object, stays in parsers/).
 *
 * Both read the args from the trace's args store (src/args.h): from the file, a checkpoint
 * or a compressed copy. They are I/O: call them when the selection changes, never while a
 * frame is drawn. */
#ifndef TT_ARGS_TEXT_H
#define TT_ARGS_TEXT_H

#include <stdint.h>

#include "src/model.h"

/* The args ARGS points at as one line of JSON (normalised when they parse, else the raw text),
 * allocated; NULL with *cause (allocated) when they cannot be read. Not escaped for a
 * terminal: the caller does that. */
char *args_one_line(const struct trace *t, uint64_t args, char **cause);
/* The args ARGS points at one per line, "key: value" (strings as their text, other values as JSON;
 * "Call stack" as a line per frame, indented; the raw text as one line when they do not
 * parse), lines ended by '\n', allocated; NULL
 * with *cause as args_one_line. Not escaped for a terminal. */
char *args_lines(const struct trace *t, uint64_t args, char **cause);

#endif
