/* builder_state.h: the state of a builder (src/builder.c) and the steps of building that
 * merging the parts of a parallel parse (src/builder_merge.c) does again, and that a
 * snapshot (src/builder_snapshot.c) copies. Not for parsers: they see src/builder.h. */
#ifndef TT_BUILDER_STATE_H
#define TT_BUILDER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/builder.h"
#include "src/model.h"
#include "src/kernel_class.h"

struct open_b {
	int64_t ts;
	uint64_t args, origin;
	uint32_t name, cat;
};

struct bstack {
	struct open_b *v;
	uint32_t n, cap;
};

/* An end of a later part whose begin lies in an earlier part. Its name is kept as bytes
 * (in builder.orphan_names), not interned: the part's strings all join the merged table,
 * and a one-piece parse interns an end's name only when nothing is open to close. */
struct orphan_e {
	int64_t ts;
	uint64_t origin;
	uint32_t track;
	uint32_t name_len;
	size_t name_at; /* in orphan_names */
};

#define KIND_MEMO 1024
#define STR_MEMO 512
struct builder {
	struct trace *t;
	/* the strings interned last, by a look at their length and ends: id + 1 (0: empty),
	 * checked against the table's bytes; an event's name and category are mostly one
	 * seen a few events before, and a hit costs a compare, not a hash of the name */
	uint32_t str_memo[STR_MEMO];
	/* the kinds interned last, by (name, category, class, flags) + 1 (0: empty): most
	 * slices are of a kind seen a few slices before */
	uint64_t kind_key[KIND_MEMO];
	uint32_t kind_of[KIND_MEMO];
	struct kernel_comm_memo comm; /* which kernel names are communication (kernel_class.h) */
	uint64_t seed;                /* strtab_seed(): ids from a file cannot be made to collide */
	uint32_t *track_slots;        /* open addressing: track index + 1, 0 when free */
	uint32_t nslots;
	uint32_t tracks_cap;
	uint32_t processes_cap;
	uint32_t *process_slots; /* open addressing: process index + 1, 0 when free */
	uint32_t nprocess_slots;
	uint32_t *place_slots; /* open addressing: GPU place index + 1, 0 when free */
	uint32_t nlaunch_slots;
	uint32_t *launch_slots; /* open addressing: launch index + 1, 0 when free (none after a merge
	                         * appended a part's: rebuilt from the array when next needed) */
	uint32_t nplace_slots;
	uint32_t last_place;      /* intern_place's last answer: kernels come in runs of a stream */
	uint32_t *flow_ctx_slots; /* open addressing: flow context index + 1, 0 when free */
	uint32_t nflow_ctx_slots;
	uint32_t last_flow_ctx; /* intern_flow_ctx's last answer + 1, 0: none yet */
	struct bstack *stacks;  /* by track */
	uint32_t nstacks;
	uint32_t counters_cap;
	uint32_t last_counter; /* series of the last sample: counters come in runs */
	int64_t max_end;
	uint8_t last_cat; /* cat_index's last answer: slices come in runs of a category */
	bool saw_cat;
	bool part; /* a later part of a source parsed in parallel */
	struct orphan_e *orphans;
	uint32_t norphans, orphans_cap;
	char *orphan_names;
	size_t orphan_names_len, orphan_names_cap;
};

/* Where a quality example came from: the source's offset and the event's time. */
struct where {
	uint64_t origin;
	int64_t ts;
};

/* Sets *DST, a name of a process or track, to VALUE: a repeat counts as duplicate
 * metadata; another name is a conflict noted at W for TRACK, which keeps the first
 * (KEEP_FIRST) or takes the new. */
void builder_set_name(struct builder *b, struct where w, uint32_t *dst, uint32_t value, bool keep_first,
                      uint32_t track);

/* Sets *DST, a sort index, to VALUE; a repeat counts as duplicate metadata. */
void builder_set_sort_index(struct builder *b, int64_t *dst, int64_t value);

/* The index in the trace's gpu_places of place P, added when new. */
uint32_t builder_intern_place(struct builder *b, const struct gpu_place *p);
/* The index of launch K in trace.launches, added when new: a kernel launched again with the
 * same grid, block, registers, shared memory and occupancy (most are: a few hundred
 * distinct launches for tens of thousands of kernels) shares the entry. Compared as bytes,
 * every NaN made the one NAN. */
uint32_t builder_intern_launch(struct builder *b, const struct kernel_launch *k);
/* The index in trace.flow_ctx of flow ends of category CAT (a string id) whose ids' high
 * 32 bits are ID_HI, added when new. */
uint32_t builder_intern_flow_ctx(struct builder *b, uint32_t cat, uint32_t id_hi);

/* Notes that GPU fact GPU of T moved BYTES (in GPU order). */
void builder_add_bytes(struct trace *t, uint32_t gpu, int64_t bytes);

/* The index in trace.cats of category CAT (a string id), added when new; past the
 * table's room, builder_cat_overflow's. */
uint8_t builder_cat_index(struct builder *b, uint32_t cat);

/* The shared entry of categories past the table's room, "(other categories)". */
uint8_t builder_cat_overflow(struct builder *b);

/* Appends a slice to track TI (see builder.c). */
void builder_push_slice(struct builder *b, uint32_t ti, int64_t ts, int64_t dur, uint32_t name, uint32_t cat,
                        uint8_t cls, uint64_t args, uint8_t flags, struct where w, bool complete,
                        const struct builder_gpu *gpu);

/* The stack of open begins of track TI, made when new. */
struct bstack *builder_stack_of(struct builder *b, uint32_t ti);

/* Pushes the open begin O on ST. */
void builder_stack_push(struct bstack *st, const struct open_b *o);

/* Whether C is the series of process PID named NAME with key KEY. */
bool builder_counter_is(const struct counter *c, struct builder_id pid, uint32_t name, uint32_t key);

/* Frees B, not its trace. */
void builder_free_state(struct builder *b);

#endif
