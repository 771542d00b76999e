/* builder.h: turns the scanner's events into a trace model (src/model.h).
 *
 * Call order: builder_new, then scan_run with builder_sink's sink (events and header
 * keys in file order, from one thread), then builder_finish, which closes what is left
 * open, builds the index (src/index.h) and frees the builder. The trace belongs to the
 * caller throughout. */
#ifndef TT_BUILDER_H
#define TT_BUILDER_H

#include "parsers/chrome_scan.h"
#include "src/model.h"

struct builder;

/* Returns a builder that fills T (already allocated, zeroed, with strings initialised). */
struct builder *builder_new(struct trace *t);
/* Returns a builder for a later part of a file parsed in parallel: E events whose B is
 * in an earlier part are kept for builder_merge instead of being counted as unmatched. */
struct builder *builder_new_part(struct trace *t);
/* Appends what SRC (the next part of the same file, in file order) collected to DST,
 * closing SRC's leftover E events with DST's open B events; frees SRC and its trace. */
void builder_merge(struct builder *dst, struct builder *src);
/* Fills SINK with the builder's callbacks; the progress callback is left to the caller. */
void builder_sink(struct builder *b, struct scan_sink *sink);
/* Adds the scanner's counts to the trace's quality counts. */
void builder_add_scan_stats(struct builder *b, const struct scan_stats *st);
/* Frees B without finishing its trace (when a parallel parse is abandoned). */
void builder_abort(struct builder *b);
/* Finishes the model: closes open B events, classifies tracks, builds the index, links
 * flows and launches, finds steps. Frees B. */
void builder_finish(struct builder *b);

#endif
