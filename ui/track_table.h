/* track_table.h: the summary's track table: each track of a trace with its kind, its
 * process and thread, its size and how busy it is, one definition for the text and the
 * JSON of --report=summary. */
#ifndef TT_TRACK_TABLE_H
#define TT_TRACK_TABLE_H

#include "src/model.h"
#include "ui/table.h"

/* Sets TB up (free with table_free) with a row per track of T, in the timeline's order,
 * each tagged with its track id. */
void track_table_init(struct table *tb, const struct trace *t);

#endif
