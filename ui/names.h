/* names.h: the strings of a trace as the ui shows them: a name by its id, escaped for a
 * terminal, a track's full label, a name put in a table cell. The renderer, the reports
 * and the table views share these, so a name reads the same everywhere. */
#ifndef TT_NAMES_H
#define TT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "src/model.h"
#include "ui/table.h"

/* String ID of T's string table, raw (valid while T lives). */
static inline const char *trace_str(const struct trace *t, uint32_t id) { return strtab_get(&t->strings, id); }
/* Writes string ID of T escaped for a terminal into BUF (N bytes, cut to fit). */
void trace_str_escaped(const struct trace *t, uint32_t id, char *buf, size_t n);
/* Writes track TR's label, escaped, into BUF: "GPU 0 stream 7" for a GPU stream, else
 * "process [pid 12] thread" (the process name when it has one). */
void track_label(const struct trace *t, const struct track *tr, char *buf, size_t n);
/* Sets cell COL of ROW to string ID of T, raw and whole (the table escapes what it shows). */
void table_set_trace_str(struct table *tb, uint32_t row, int col, const struct trace *t, uint32_t id);

#endif
