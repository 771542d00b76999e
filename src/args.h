/* args.h: an event's full `args`, read back from the file and parsed on demand.
 *
 * The loader keeps only the byte range of each event's args object; this reads those
 * bytes again (pread for plain files, a re-read of the stream for compressed ones) and
 * parses them with cJSON. Bare inf/nan (which Kineto once wrote) are read as null, and
 * the raw text is returned too, so nothing is hidden. */
#ifndef TT_ARGS_H
#define TT_ARGS_H

#include <cjson/cJSON.h>

#include "src/model.h"

struct event_args {
	char *text;      /* the raw args text as in the file (allocated, NUL-terminated) */
	cJSON *json;     /* the parsed object, or NULL when it could not be parsed */
	int nonfinite;   /* bare inf/nan tokens read as null */
};

/* Reads and parses the args of slice S of trace T. Returns 0 and fills OUT (free it with
 * event_args_free), or -1 with *cause set (allocated) when the slice has no args or the
 * file cannot be read back (changed, gone, or not a regular file: standard input, a pipe,
 * a FIFO, a device). */
int event_args_read(const struct trace *t, const struct slice *s, struct event_args *out, char **cause);
void event_args_free(struct event_args *a);

#endif
