/* progress_line.h: the line that tells people how a load is going
 * ("ttrace: loading 1/2:  42.0%  300 MB at 610 MB/s"), drawn from the numbers the loader
 * reports (struct load_progress, parsers/load.h). */
#ifndef TT_PROGRESS_LINE_H
#define TT_PROGRESS_LINE_H

#include <stdbool.h>
#include <stdio.h>

#include "parsers/load.h"

/* Draws P on F as one line that the next draw overwrites ("\r" first); FINAL ends it with
 * a newline. F is flushed. */
void progress_line_draw(FILE *f, const struct load_progress *p, bool final);

/* progress_line_draw as a load_options.progress callback: CTX is the FILE. */
void progress_line_report(void *ctx, const struct load_progress *p, bool final);

#endif
