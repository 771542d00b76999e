/* crop_blocks.h: reading back the blocks of a trace's map of events (src/event_blocks.h)
 * that a crop needs, each checked against the map as it is scanned: the pieces of the
 * decompressed stream to read (runs of needed blocks), their scan through a sink, the flow
 * ids seen inside the window, and the search for the blocks that hold each series' last
 * sample before it. What to keep is cmd/crop.c's. */
#ifndef TT_CMD_CROP_BLOCKS_H
#define TT_CMD_CROP_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/chrome_scan.h"
#include "record/map64.h"
#include "src/model.h"

/* A piece of the decompressed stream read in one go: bytes [start, end), the events of
 * blocks [b0, b1) of the map; a range scan from START (0: the document's start, the header
 * keys before the events included) to the event that begins at STOP (0: to the end, the
 * header keys after the events included). */
struct piece {
	uint64_t start, stop, end;
	uint32_t b0, b1;
};

/* A piece is at most this long (split at a block's first event), unless one block is. */
#define PIECE_MAX ((uint64_t)64 << 20)

/* Past this share of the stream, reading the blocks is no faster than reading it all. */
#define BLOCKS_MAX_SHARE 0.5

/* The pieces to read, the validation of what they hold against the map. Zeroed to begin;
 * crop_blocks_free frees it. */
struct crop_blocks {
	const struct trace *t;
	struct piece *p;
	size_t n, cap;
	uint64_t bytes; /* read in all */
	/* while a piece is scanned */
	const struct piece *cur;
	uint32_t *seen; /* events seen in each of its blocks */
	bool lied;      /* an event not where the map says, or not as it says */
	/* the ids of the flow events inside the window (the first pass) */
	uint64_t *ids;
	size_t nids, idcap;
	size_t n1; /* the pieces of the first pass: the rest are read for flows */
	/* the series of samples: key -> 1 + their index in t->series; the latest sample before
	 * the window found of each (while the blocks of the last samples are looked for) */
	struct map64 series;
	int64_t *best, w0;
	bool *found;
	uint32_t nfound;
	struct scan_sink inner; /* what the events go on to */
	bool top_is_object;
};

/* Adds the pieces that read the blocks of LO->t whose NEED is set, in order (a piece at most
 * PIECE_MAX long unless one block is); NEED NULL: block ONLY alone. */
void crop_blocks_add(struct crop_blocks *lo, const bool *need, uint32_t only);

/* Reads and scans the pieces [FROM, TO) of LO through SINK, checking each event against the
 * map. False when a read failed or what was read is not what the map says (*CAUSE then
 * says why, for the message of a read that failed). */
bool crop_blocks_scan(struct crop_blocks *lo, size_t from, size_t to, const struct scan_sink *sink, char **cause);

/* Notes ID, a flow event's inside the window. */
void crop_blocks_note_flow(struct crop_blocks *lo, uint64_t id);
/* Sorts the flow ids noted, for crop_blocks_has_flow_in. */
void crop_blocks_sort_flows(struct crop_blocks *lo);
/* Whether a flow id noted (and sorted) is in [A, B]. */
bool crop_blocks_has_flow_in(const struct crop_blocks *lo, uint64_t a, uint64_t b);

/* Sets NEED for the blocks that may hold the last sample before W0 (the window's start) of
 * a series; reads blocks to find out (see crop_blocks.c). False when a read fails or
 * disagrees with the map. */
bool crop_blocks_need_samples(struct crop_blocks *lo, int64_t w0, bool *need);

/* Frees what LO holds and zeroes it. */
void crop_blocks_free(struct crop_blocks *lo);

#endif
