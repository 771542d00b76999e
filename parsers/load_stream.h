/* load_stream.h: a compressed file parsed in chunks on several threads. */
#ifndef TT_LOAD_STREAM_H
#define TT_LOAD_STREAM_H

#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "parsers/load_job.h"
#include "src/args_side.h"
#include "src/builder.h"

/* Compressed files this big are parsed in chunks (smaller ones in one piece). */
#define STREAM_MIN_FILE (1u << 20)

/* Parses IN, the stream of J's file, in chunks on WORKERS threads into T. Returns 0 with
 * the merged builder in *BP (on T), the args kept aside in *SIDEP (or NULL), and the scan's
 * stats, result and cause (allocated, or NULL); or -1 when a chunk boundary proved not to
 * be an event boundary, or no thread started (T must then be discarded, and the file
 * parsed again in one piece). */
int load_stream_run(struct job *j, struct trace *t, struct input *in, int workers, struct builder **bp,
                    struct args_side **sidep, struct scan_stats *stats, enum scan_result *res, char **cause);

#endif
