/* args_json.h: an event's args parsed (cJSON stays in parsers/).
 *
 * The text comes from the trace's args store (src/args.h). Bare inf/nan (which Kineto
 * once wrote) are read as null, and the raw text is kept too, so nothing is hidden. */
#ifndef TT_ARGS_JSON_H
#define TT_ARGS_JSON_H

#include <cjson/cJSON.h>

#include "parsers/args_text.h"
#include "src/args.h"
#include "src/model.h"

struct event_args {
	char *text;    /* the raw args text as in the file (allocated, NUL-terminated) */
	cJSON *json;   /* the parsed object, or NULL when it could not be parsed */
	int nonfinite; /* bare inf/nan tokens read as null */
};

/* Reads and parses the args of trace T that ARGS points at (a slice's: slice_args). Returns
 * 0 and fills OUT (free it with event_args_free), or -1 with *cause (allocated), as
 * args_store_text. */
int args_store_read(const struct trace *t, uint64_t args, struct event_args *out, char **cause);
/* Parses TEXT (allocated, NUL-terminated; OUT owns it then) into OUT, as args_store_read. */
void event_args_parse(char *text, struct event_args *out);
void event_args_free(struct event_args *a);
#endif
