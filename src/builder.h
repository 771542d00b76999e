/* builder.h: builds a trace model (src/model.h) from calls that name tracks, slices,
 * instants, counters, flows, device properties and metadata, whatever the source format.
 * parsers/chrome_build.c translates Chrome trace events into these calls; a recorder
 * that never writes JSON can make the same calls.
 *
 * Call order: builder_new (or builder_new_part), then any calls below from one thread
 * in source order, then builder_finish, which closes what is left open, classifies and
 * names tracks, builds the index (src/index.h), links flows and launches, finds steps and
 * frees the builder. Until then the model's content belongs to the builder: callers
 * change it through these calls only (the loader may set the trace's source facts:
 * path, codec, status, error, bytes). The trace itself belongs to the caller throughout.
 *
 * Vocabulary: strings are ids of the trace's string table (builder_string); a slice's
 * class comes from its category (model_classify: "kernel", "cuda_runtime", ...) unless the
 * source gives one (builder_slice.cls); a
 * track's kind (CPU thread, GPU stream) is derived from its slices when the model is
 * finished. ORIGIN is where an event came from in its source (a byte offset; 0 when
 * unknown): it only locates the examples of the quality counts. Times are ns and must
 * lie within BUILDER_TIME_LIMIT of the time base: a source sets aside other times (and
 * counts them, Q_MISSING_TS) before calling; a call with one is a bug.
 *
 * A file may be parsed in parts on several threads: each part has its builder
 * (builder_new_part for all but the first), and builder_merge appends the parts in
 * source order. Warnings and quality counts merge as if the file were one part. */
#ifndef TT_BUILDER_H
#define TT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/helper.h"
#include "src/model.h"

/* Times must lie within this many ns (146 years) of the time base, so that slice ends
 * (ts + dur) and spans (end - start) never overflow int64. */
#define BUILDER_TIME_LIMIT ((int64_t)1 << 62)

struct builder;

/* A process or thread id as the source writes it: a number, or a string (V is then its
 * string id). Ids of the two kinds never match each other. */
struct builder_id {
	bool is_str;
	int64_t v;
};

/* One complete slice. */
struct builder_slice {
	int64_t ts;
	int64_t dur;   /* negative: unknown or bad, counted (Q_NEGATIVE_DUR) and taken as 0 */
	uint32_t name; /* string id */
	uint32_t cat;  /* string id: gives the slice's class */
	uint64_t args; /* what the trace's args reader needs to find the slice's args, 0: none */
	uint64_t origin;
	uint8_t cls; /* enum slice_class where the source knows it better than the category
	              * does (MTIA's device work); SC_OTHER (0): the category's */
};

/* What a source knows of a GPU operation (kernel, memcpy, memset) or of the runtime call
 * that launched it. Kept for GPU operations (all absent when the source knows nothing)
 * and for runtime calls and syncs that have a correlation id, which links them. */
struct builder_gpu {
	bool has_correlation;
	int64_t correlation;
	int64_t external_id; /* -1 when absent, as are stream, bytes and device */
	int64_t stream;
	int64_t bytes; /* memcpy/memset bytes */
	int32_t device;
	int32_t grid[3], block[3]; /* 0 when absent */
	float blocks_per_sm;       /* NAN when absent, as is occupancy */
	float occupancy;           /* est. achieved occupancy % */
	int32_t regs, smem;        /* registers per thread, shared memory bytes; -1 when absent */
	const char *pg;            /* collectives: the process group's name (PG_LEN bytes), NULL when
	                            * absent; read during the call, interned only when kept */
	uint32_t pg_len;
};

/* Where a flow end is on its flow. */
enum builder_flow_point {
	FLOW_START = 's',
	FLOW_STEP = 't',
	FLOW_FINISH = 'f',
};

/* Returns a builder that fills T (allocated and zeroed, its strings initialised), which
 * it sets up as an empty model. Never NULL. */
struct builder *builder_new(struct trace *t);
/* As builder_new, for a later part of a source parsed in parallel: ends whose begin is in
 * an earlier part are kept for builder_merge instead of being counted as unmatched. */
struct builder *builder_new_part(struct trace *t);
/* Appends what SRC (the next part of the same source, in order) collected to DST,
 * closing SRC's leftover ends with DST's open begins; frees SRC and its trace. */
void builder_merge(struct builder *dst, struct builder *src);
/* As builder_merge, SRC's slices appended to their tracks by helper H's thread while this
 * one merges the rest (NULL: as builder_merge); H is left idle. */
void builder_merge_helped(struct builder *dst, struct builder *src, struct helper *h);
/* Returns a copy of B and (in *TP) of its trace as they are now, for a snapshot of a load
 * in progress: merged (builder_merge) and finished like parts, the copies give a model of
 * what was read so far, while B goes on. Begins still open and ends of later parts whose
 * begins are elsewhere are left out of the copy: their slices appear when the whole source
 * is read. The copy has no args store, warnings or cache. Returns NULL (and *TP NULL)
 * when *CANCEL (NULL: never) is set before the copy is made whole. */
struct builder *builder_snapshot(const struct builder *b, struct trace **tp, const _Atomic bool *cancel);
/* Frees B without finishing its trace (when a parallel parse is abandoned). */
void builder_abort(struct builder *b);
/* Finishes the model: closes open begins at the last time seen (Q_UNCLOSED_BEGIN),
 * classifies and names tracks, builds the index, links flows and launches, finds steps.
 * Frees B. */
void builder_finish(struct builder *b);
/* As builder_finish, the index's work split with helper H's thread (src/index.h). */
void builder_finish_helped(struct builder *b, struct helper *h);

/* Returns the id of the LEN bytes at S (interned in the trace's string table). */
uint32_t builder_string(struct builder *b, const char *s, size_t len);

/* Returns the index of the process PID in trace.processes, adding it when new. */
uint32_t builder_process(struct builder *b, struct builder_id pid);
/* Returns the index of the track (PID, TID) in trace.tracks, adding it (and its process)
 * when new. */
uint32_t builder_track(struct builder *b, struct builder_id pid, struct builder_id tid);

/* Metadata. A name set twice to the same value counts Q_DUP_METADATA; to another value
 * Q_CONFLICT_METADATA (noted with ORIGIN and TS), and then a thread or the labels take
 * the later one, a process keeps its first name. A sort index set twice to the same
 * value counts Q_DUP_METADATA; the last one wins. */
void builder_track_name(struct builder *b, uint32_t track, uint32_t name, uint64_t origin, int64_t ts);
void builder_track_sort_index(struct builder *b, uint32_t track, int64_t sort_index);
void builder_process_name(struct builder *b, uint32_t process, uint32_t name, uint64_t origin, int64_t ts);
void builder_process_labels(struct builder *b, uint32_t process, uint32_t labels, uint64_t origin, int64_t ts);
void builder_process_sort_index(struct builder *b, uint32_t process, int64_t sort_index);

/* Events. Each call that names a track counts one event of it (track.events). */

/* Adds the complete slice S to TRACK, with GPU facts (NULL when the source has none). */
void builder_slice(struct builder *b, uint32_t track, const struct builder_slice *s, const struct builder_gpu *gpu);
/* Opens a slice on TRACK at TS, to be closed by the next builder_end of the track
 * (begins and ends nest, as a stack per track). */
void builder_begin(struct builder *b, uint32_t track, int64_t ts, uint32_t name, uint32_t cat, uint64_t args,
                   uint64_t origin);
/* Closes the innermost open begin of TRACK at TS (before its start: counted as
 * Q_NEGATIVE_DUR, a zero-length slice). Returns false when none is open, except in a
 * later part, which keeps the end (and a copy of NAME, its NAME_LEN bytes) for
 * builder_merge, which counts it as Q_UNMATCHED_END under NAME if nothing earlier was
 * open; on false the caller counts the end as Q_UNMATCHED_END (builder_note). */
bool builder_end(struct builder *b, uint32_t track, int64_t ts, uint64_t origin, const char *name, size_t name_len);
/* Adds an instant event at TS on TRACK, or on no track (TT_NONE: global or process
 * scope, or no thread known); SCOPE is 't', 'p', 'g' or 0 as the source says. */
void builder_instant(struct builder *b, uint32_t track, int64_t ts, uint32_t name, uint32_t cat, char scope);
/* Adds a sample of memory use (fields absent from the source are -1); TRACK, when not
 * TT_NONE, is the thread it came from: kept in the sample's track (M->track is ignored),
 * where src/memory.c finds the operator that allocated. */
void builder_memory(struct builder *b, uint32_t track, const struct mem_sample *m);
/* Records that the operator starting at TS counted FLOPS floating-point operations
 * (with_flops=True); kept apart from the slices, which stay 32 bytes. */
void builder_flops(struct builder *b, int64_t ts, int64_t flops);
/* Records that a complete event named NAME (nccl:... or gloo:...) of category CAT carries
 * External id EXTERNAL_ID: the kernels with the same External id are its communication. */
void builder_comm_op(struct builder *b, uint32_t name, uint32_t cat, int64_t external_id);
/* Appends (TS, VALUE) to the counter series (PID, NAME, KEY), adding it when new. */
void builder_counter(struct builder *b, struct builder_id pid, uint32_t name, uint32_t key, int64_t ts, double value);
/* Adds one end of the flow (CAT, ID) at TS on TRACK. Ends are paired when the model is
 * finished (each start with the next finish in time) and bound to the slice of their
 * track that starts at TS, else to the deepest one that holds TS, whatever the source's
 * binding point ("bp": "e" binds to the enclosing slice, which that rule finds too). */
void builder_flow(struct builder *b, uint32_t track, int64_t ts, uint64_t id, uint32_t cat,
                  enum builder_flow_point point);

/* The source as a whole. */

/* Counts one event of the source, of phase PH (a Chrome phase letter, 0 when it had
 * none), and whether it had a category: a source in which no event has one is from the
 * legacy exporter (trace.legacy), whose slices the analyses then take as CPU ops. */
void builder_source_event(struct builder *b, char ph, bool has_category);
/* Counts one oddity of kind K, keeping ORIGIN, TS, the string NAME and TRACK (or
 * TT_NONE) as an example while fewer than QUALITY_EXAMPLES are kept. */
void builder_note(struct builder *b, enum quality_kind k, uint64_t origin, int64_t ts, uint32_t name, uint32_t track);
/* Counts N oddities of kind K without examples (Q_ASYNC also counts trace.async_events:
 * async events are counted, not modelled). */
void builder_count(struct builder *b, enum quality_kind k, uint64_t n);
/* Adds a warning about the source as a whole. */
void builder_warn(struct builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Header facts; in a source parsed in parts, the first part that has one wins, except
 * the base time: the last one given. */

/* Times are relative to BASE_NS (absolute time = base + ts). */
void builder_base_time(struct builder *b, int64_t base_ns);
/* The rank of this trace among WORLD_SIZE (each -1 when unknown), and the
 * communication backend's name (string id, 0 when unknown: an earlier one stays). */
void builder_distributed(struct builder *b, int32_t rank, int32_t world_size, uint32_t backend);
/* The GPUs' properties: a copy of DEV[0..n) replaces any given before. */
void builder_devices(struct builder *b, const struct device_props *dev, uint32_t n);
/* The display time unit the source asks for (string id). */
void builder_display_time_unit(struct builder *b, uint32_t unit);
/* The clock the source's times come from, as the writer names it (string id). */
void builder_clock(struct builder *b, uint32_t clock);
/* The source format's schema version. */
void builder_schema_version(struct builder *b, int32_t version);

#endif
