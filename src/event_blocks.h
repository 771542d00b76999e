/* event_blocks.h: the trace's map of where its events lie (trace.blocks, src/model.h), made
 * while the file is parsed and kept in its cache, so that a crop reads only the blocks of
 * the file that its window needs (cmd/crop.c). */
#ifndef TT_EVENT_BLOCKS_H
#define TT_EVENT_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"

/* Notes in T's blocks (made at the first call, EVENT_BLOCK_SHIFT or the test knob's size)
 * one event whose '{' is at OFFSET, with FLAGS (EB_*), TIMED with start TS and end END, of
 * flow id FLOW_ID (with EB_FLOW), a sample of the series SERIES (with EB_CM: then noted in
 * T's series too). */
void event_block_note(struct trace *t, uint64_t offset, uint32_t flags, bool timed, int64_t ts, int64_t end,
                      uint64_t flow_id, uint64_t series);

/* Frees what noting needed alone (the series' index), once the load is over. */
void event_blocks_done(struct trace *t);

/* Adds SRC's blocks and series into DST's (blocks of the same size; nothing when SRC has
 * none). */
void event_blocks_merge(struct trace *dst, const struct trace *src);

/* Drops T's blocks and series, their memory freed unless it lies in T's cache mapping. */
void event_blocks_drop(struct trace *t);

/* Returns whether T's blocks can be trusted as a map of its file's EVENTS events: there are
 * some, of a sane size, their counts add up to EVENTS, their flags and ranges well formed. */
bool event_blocks_ok(const struct trace *t, uint64_t events);

#endif
