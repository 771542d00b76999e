/* builder.c: the format-neutral model builder (see builder.h). Calls append to their
 * track in source order; what needs the whole source (sorting, depth, links, steps)
 * waits for builder_finish, which hands the model to the index (src/index.c).
 *
 * Tracks and processes are found through open-addressing hash tables keyed by their ids,
 * seeded per builder (strtab_seed) so that a file cannot choose ids that collide. Open
 * begins are a stack per track; a later part keeps the ends it cannot match (orphans)
 * for builder_merge (src/builder_merge.c), which closes them with the begins the earlier
 * parts left open. Snapshots are src/builder_snapshot.c. */
#include "src/builder.h"
#include "src/kinds.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/builder_state.h"
#include "src/index.h"

static const struct where nowhere = { 0, 0 };

static void check_time(int64_t ts)
{
	if (ts <= -BUILDER_TIME_LIMIT || ts >= BUILDER_TIME_LIMIT)
		BUG("time %lld outside the builder's limits", (long long)ts);
}

struct builder *builder_new(struct trace *t)
{
	struct builder *b = xcalloc(1, sizeof *b);
	b->t = t;
	if (t->kind_table == NULL)
		kinds_init(t);
	b->seed = strtab_seed();
	b->last_counter = TT_NONE;
	b->max_end = INT64_MIN;
	t->ncats = 1; /* cats[0]: no category */
	t->rank = -1;
	t->world_size = -1;
	t->schema_version = -1;
	return b;
}

struct builder *builder_new_part(struct trace *t)
{
	struct builder *b = builder_new(t);
	b->part = true;
	return b;
}

static void note_at(struct builder *b, enum quality_kind k, struct where w, uint32_t name, uint32_t track)
{
	struct quality *q = &b->t->quality;
	uint64_t n = q->count[k]++;
	if (n < QUALITY_EXAMPLES) {
		q->ex[k][n].offset = w.origin;
		q->ex[k][n].ts = w.ts;
		q->ex[k][n].name = name;
		q->ex[k][n].track = track;
	}
}

void builder_note(struct builder *b, enum quality_kind k, uint64_t origin, int64_t ts, uint32_t name, uint32_t track)
{
	note_at(b, k, (struct where){ origin, ts }, name, track);
}

void builder_count(struct builder *b, enum quality_kind k, uint64_t n)
{
	b->t->quality.count[k] += n;
	if (k == Q_ASYNC)
		b->t->async_events += n;
}

void builder_warn(struct builder *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	trace_warn(b->t, "%s", msg);
	free(msg);
}

/* Where S[0..LEN) goes in the builder's string memo: from its length and its first and
 * last 8 bytes (fewer when it is shorter). */
static inline uint32_t str_memo_slot(const char *s, size_t len)
{
	uint64_t a = 0, z = 0;
	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&z, s + len - 8, 8);
	} else if (len > 0) {
		a = (unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
		    (uint64_t)(unsigned char)s[len - 1] << 16;
	}
	uint64_t h = (a ^ (z * 0x9e3779b97f4a7c15ull) ^ len) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 40) & (STR_MEMO - 1);
}

uint32_t builder_string(struct builder *b, const char *s, size_t len)
{
	struct strtab *st = &b->t->strings;
	/* an absent string may come as {NULL, 0}: memcmp must not see the NULL */
	if (s == NULL)
		s = "";
	uint32_t slot = str_memo_slot(s, len), id = b->str_memo[slot];
	if (id != 0 && id <= st->n && strtab_len(st, id - 1) == len && memcmp(strtab_get(st, id - 1), s, len) == 0)
		return id - 1;
	id = strtab_intern(st, s, len);
	b->str_memo[slot] = id + 1;
	return id;
}

void builder_source_event(struct builder *b, char ph, bool has_category)
{
	b->t->events++;
	b->t->count_by_ph[(unsigned char)ph & 127]++;
	b->saw_cat |= has_category;
}

/* ---- processes and tracks -------------------------------------------------------------- */

static uint64_t track_hash(uint64_t seed, bool ps, int64_t p, bool ts, int64_t t)
{
	uint64_t h = ((uint64_t)p ^ seed) * 0x9e3779b97f4a7c15ull ^
	             ((uint64_t)t + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
	h ^= (uint64_t)ps << 1 | (uint64_t)ts;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	return h ^ h >> 29;
}

/* Hashes of the I-th track, process and GPU place of B's trace, for grow_slots. */
static uint32_t track_slot_hash(const struct builder *b, uint32_t i)
{
	const struct track *tr = &b->t->tracks[i];
	return (uint32_t)track_hash(b->seed, tr->pid_is_str, tr->pid, tr->tid_is_str, tr->tid);
}

/* Replaces the open-addressing table *SLOTS (*NSLOTS slots, each an index + 1 or 0 when
 * free) by one of twice the slots, or FIRST, holding the indices 0 .. N - 1. */
static void grow_slots(const struct builder *b, uint32_t **slots, uint32_t *nslots, uint32_t first, uint32_t n,
                       uint32_t (*hash)(const struct builder *, uint32_t))
{
	uint32_t ns = *nslots ? *nslots * 2 : first;
	uint32_t *v = xcalloc(ns, sizeof *v);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = hash(b, i) & (ns - 1);
		while (v[h])
			h = (h + 1) & (ns - 1);
		v[h] = i + 1;
	}
	free(*slots);
	*slots = v;
	*nslots = ns;
}

static uint32_t process_hash(uint64_t seed, bool is_str, int64_t pid)
{
	uint64_t h = ((uint64_t)pid ^ (uint64_t)is_str << 63 ^ seed) + 0x9e3779b97f4a7c15ull;
	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ h >> 27) * 0x94d049bb133111ebull;
	return (uint32_t)(h ^ h >> 31);
}

static uint32_t process_slot_hash(const struct builder *b, uint32_t i)
{
	const struct process *p = &b->t->processes[i];
	return process_hash(b->seed, p->pid_is_str, p->pid);
}

uint32_t builder_process(struct builder *b, struct builder_id pid)
{
	struct trace *t = b->t;
	uint32_t h;

	if ((uint64_t)(t->nprocesses + 1) * 2 > b->nprocess_slots)
		grow_slots(b, &b->process_slots, &b->nprocess_slots, 64, t->nprocesses, process_slot_hash);
	h = process_hash(b->seed, pid.is_str, pid.v) & (b->nprocess_slots - 1);
	for (;; h = (h + 1) & (b->nprocess_slots - 1)) {
		uint32_t s = b->process_slots[h];
		if (s == 0)
			break;
		if (t->processes[s - 1].pid == pid.v && t->processes[s - 1].pid_is_str == pid.is_str)
			return s - 1;
	}
	if (t->nprocesses == b->processes_cap) {
		b->processes_cap = b->processes_cap ? b->processes_cap * 2 : 16;
		t->processes = xreallocarray(t->processes, b->processes_cap, sizeof *t->processes);
	}
	struct process *p = &t->processes[t->nprocesses];
	memset(p, 0, sizeof *p);
	p->pid_is_str = pid.is_str;
	p->pid = pid.v;
	p->sort_index = INT64_MIN;
	b->process_slots[h] = t->nprocesses + 1;
	return t->nprocesses++;
}

uint32_t builder_track(struct builder *b, struct builder_id pid, struct builder_id tid)
{
	struct trace *t = b->t;
	uint32_t h;

	if ((uint64_t)(t->ntracks + 1) * 2 > b->nslots)
		grow_slots(b, &b->track_slots, &b->nslots, 64, t->ntracks, track_slot_hash);
	h = (uint32_t)track_hash(b->seed, pid.is_str, pid.v, tid.is_str, tid.v) & (b->nslots - 1);
	for (;; h = (h + 1) & (b->nslots - 1)) {
		uint32_t s = b->track_slots[h];
		if (s == 0)
			break;
		struct track *tr = &t->tracks[s - 1];
		if (tr->pid == pid.v && tr->tid == tid.v && tr->pid_is_str == pid.is_str &&
		    tr->tid_is_str == tid.is_str)
			return s - 1;
	}
	if (t->ntracks == b->tracks_cap) {
		b->tracks_cap = b->tracks_cap ? b->tracks_cap * 2 : 16;
		t->tracks = xreallocarray(t->tracks, b->tracks_cap, sizeof *t->tracks);
	}
	struct track *tr = &t->tracks[t->ntracks];
	memset(tr, 0, sizeof *tr);
	tr->pid_is_str = pid.is_str;
	tr->pid = pid.v;
	tr->tid_is_str = tid.is_str;
	tr->tid = tid.v;
	tr->device = -1;
	tr->stream = -1;
	tr->sort_index = INT64_MIN;
	tr->process = builder_process(b, pid);
	b->track_slots[h] = t->ntracks + 1;
	return t->ntracks++;
}

/* ---- metadata ------------------------------------------------------------------------- */

void builder_set_name(struct builder *b, struct where w, uint32_t *dst, uint32_t value, bool keep_first, uint32_t track)
{
	if (*dst == 0) {
		*dst = value;
		return;
	}
	if (*dst == value) {
		b->t->quality.count[Q_DUP_METADATA]++;
		return;
	}
	note_at(b, Q_CONFLICT_METADATA, w, value, track);
	if (!keep_first)
		*dst = value;
}

void builder_set_sort_index(struct builder *b, int64_t *dst, int64_t value)
{
	if (*dst == value)
		b->t->quality.count[Q_DUP_METADATA]++;
	*dst = value;
}

void builder_track_name(struct builder *b, uint32_t track, uint32_t name, uint64_t origin, int64_t ts)
{
	struct track *tr = &b->t->tracks[track];
	builder_set_name(b, (struct where){ origin, ts }, &tr->name, name, false, track);
	tr->named = true;
}

void builder_track_sort_index(struct builder *b, uint32_t track, int64_t sort_index)
{
	builder_set_sort_index(b, &b->t->tracks[track].sort_index, sort_index);
}

void builder_process_name(struct builder *b, uint32_t process, uint32_t name, uint64_t origin, int64_t ts)
{
	builder_set_name(b, (struct where){ origin, ts }, &b->t->processes[process].name, name, true, TT_NONE);
}

void builder_process_labels(struct builder *b, uint32_t process, uint32_t labels, uint64_t origin, int64_t ts)
{
	builder_set_name(b, (struct where){ origin, ts }, &b->t->processes[process].labels, labels, false, TT_NONE);
}

void builder_process_sort_index(struct builder *b, uint32_t process, int64_t sort_index)
{
	builder_set_sort_index(b, &b->t->processes[process].sort_index, sort_index);
}

/* ---- slices --------------------------------------------------------------------------- */

/* True when IN gives any launch fact (grid, block, blocks per SM, occupancy, registers,
 * shared memory). */
static bool has_launch(const struct builder_gpu *in)
{
	for (int i = 0; i < 3; i++)
		if (in->grid[i] != 0 || in->block[i] != 0)
			return true;
	return !isnan(in->blocks_per_sm) || !isnan(in->occupancy) || in->regs != -1 || in->smem != -1;
}

static uint32_t launch_hash(uint64_t seed, const struct kernel_launch *k)
{
	uint64_t w[5], h = seed;
	_Static_assert(sizeof *k == sizeof w, "a kernel launch is 40 bytes, no padding");
	memcpy(w, k, sizeof w);
	for (int i = 0; i < 5; i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h >> 32);
}

static uint32_t launch_slot_hash(const struct builder *b, uint32_t i)
{
	return launch_hash(b->seed, &b->t->launches[i]);
}

uint32_t builder_intern_launch(struct builder *b, const struct kernel_launch *launch)
{
	struct trace *t = b->t;
	struct kernel_launch k = *launch;
	k.blocks_per_sm = isnan(k.blocks_per_sm) ? NAN : k.blocks_per_sm;
	k.occupancy = isnan(k.occupancy) ? NAN : k.occupancy;
	if ((uint64_t)(t->nlaunches + 1) * 2 > b->nlaunch_slots)
		grow_slots(b, &b->launch_slots, &b->nlaunch_slots, 256, t->nlaunches, launch_slot_hash);
	uint32_t h = launch_hash(b->seed, &k) & (b->nlaunch_slots - 1);
	for (;; h = (h + 1) & (b->nlaunch_slots - 1)) {
		uint32_t e = b->launch_slots[h];
		if (e == 0)
			break;
		if (memcmp(&t->launches[e - 1], &k, sizeof k) == 0)
			return e - 1;
	}
	if (t->nlaunches == t->launches_cap) {
		t->launches_cap = t->launches_cap ? t->launches_cap * 2 : 256;
		t->launches = xreallocarray(t->launches, t->launches_cap, sizeof *t->launches);
	}
	t->launches[t->nlaunches] = k;
	b->launch_slots[h] = t->nlaunches + 1;
	return t->nlaunches++;
}

static uint32_t add_launch(struct builder *b, const struct builder_gpu *in)
{
	struct kernel_launch k;
	for (int i = 0; i < 3; i++) {
		k.grid[i] = in->grid[i];
		k.block[i] = in->block[i];
	}
	k.blocks_per_sm = in->blocks_per_sm;
	k.occupancy = in->occupancy;
	k.regs = in->regs;
	k.smem = in->smem;
	return builder_intern_launch(b, &k);
}

static uint32_t place_hash(uint64_t seed, const struct gpu_place *p)
{
	return (uint32_t)track_hash(seed, false, p->stream, false,
	                            (int64_t)((uint64_t)(uint32_t)p->device << 32 | p->pg));
}

static uint32_t place_slot_hash(const struct builder *b, uint32_t i)
{
	return place_hash(b->seed, &b->t->gpu_places[i]);
}

/* The index of place P in trace.gpu_places, added when new ([0] is "none given"). */
uint32_t builder_intern_place(struct builder *b, const struct gpu_place *p)
{
	struct trace *t = b->t;
	if (t->ngpu_places == 0) {
		t->gpu_places_cap = 4;
		t->gpu_places = xreallocarray(NULL, t->gpu_places_cap, sizeof *t->gpu_places);
		t->gpu_places[t->ngpu_places++] = (struct gpu_place){ -1, -1, 0 };
		b->last_place = 0;
	}
	const struct gpu_place *last = &t->gpu_places[b->last_place];
	if (last->stream == p->stream && last->device == p->device && last->pg == p->pg)
		return b->last_place;
	if ((uint64_t)(t->ngpu_places + 1) * 2 > b->nplace_slots)
		grow_slots(b, &b->place_slots, &b->nplace_slots, 16, t->ngpu_places, place_slot_hash);
	uint32_t h = place_hash(b->seed, p) & (b->nplace_slots - 1);
	for (;; h = (h + 1) & (b->nplace_slots - 1)) {
		uint32_t k = b->place_slots[h];
		if (k == 0)
			break;
		const struct gpu_place *q = &t->gpu_places[k - 1];
		if (q->stream == p->stream && q->device == p->device && q->pg == p->pg)
			return b->last_place = k - 1;
	}
	if (t->ngpu_places == t->gpu_places_cap) {
		t->gpu_places_cap *= 2;
		t->gpu_places = xreallocarray(t->gpu_places, t->gpu_places_cap, sizeof *t->gpu_places);
	}
	t->gpu_places[t->ngpu_places] = *p;
	b->place_slots[h] = t->ngpu_places + 1;
	return b->last_place = t->ngpu_places++;
}

void builder_add_bytes(struct trace *t, uint32_t gpu, int64_t bytes)
{
	if (t->ngpu_bytes == t->gpu_bytes_cap) {
		t->gpu_bytes_cap = t->gpu_bytes_cap ? t->gpu_bytes_cap * 2 : 64;
		t->gpu_bytes = xreallocarray(t->gpu_bytes, t->gpu_bytes_cap, sizeof *t->gpu_bytes);
	}
	t->gpu_bytes[t->ngpu_bytes++] = (struct gpu_bytes){ gpu, 0, bytes };
}

static uint32_t add_gpu_info(struct builder *b, const struct builder_gpu *in)
{
	struct trace *t = b->t;
	if (t->ngpu == t->gpu_cap) {
		t->gpu_cap = t->gpu_cap ? t->gpu_cap * 2 : 1024;
		t->gpu_facts = xreallocarray(t->gpu_facts, t->gpu_cap, sizeof *t->gpu_facts);
		t->gpu_fact_track = xreallocarray(t->gpu_fact_track, t->gpu_cap, sizeof *t->gpu_fact_track);
	}
	struct gpu_fact *g = &t->gpu_facts[t->ngpu];
	struct gpu_place p = { -1, -1, 0 };
	if (in != NULL) {
		g->corr_code = in->has_correlation ? trace_id_code(t, in->correlation) : GPU_ID_NONE;
		g->ext_code = trace_id_code(t, in->external_id);
		p.stream = in->stream >= 0 && in->stream <= INT32_MAX ? (int32_t)in->stream : -1;
		p.device = in->device;
		p.pg = in->pg != NULL ? builder_string(b, in->pg, in->pg_len) : 0;
		if (in->bytes != -1)
			builder_add_bytes(t, t->ngpu, in->bytes);
		g->launch = has_launch(in) ? add_launch(b, in) : TT_NONE;
	} else {
		g->corr_code = g->ext_code = GPU_ID_NONE;
		g->launch = TT_NONE;
	}
	g->place = builder_intern_place(b, &p);
	return t->ngpu++;
}

/* The index in trace.cats of category CAT (a string id), added when new. Past the table's
 * room every further category shares its last entry, "(other categories)". */
uint8_t builder_cat_index(struct builder *b, uint32_t cat)
{
	struct trace *t = b->t;
	if (cat == 0)
		return 0;
	if (t->cats[b->last_cat] == cat)
		return b->last_cat;
	for (uint32_t i = 1; i < t->ncats && i < TRACE_MAX_CATS - 1; i++)
		if (t->cats[i] == cat)
			return b->last_cat = (uint8_t)i;
	if (t->ncats < TRACE_MAX_CATS - 1) {
		t->cats[t->ncats] = cat;
		return b->last_cat = (uint8_t)t->ncats++;
	}
	return builder_cat_overflow(b);
}

/* The shared entry of categories past the table's room. */
uint8_t builder_cat_overflow(struct builder *b)
{
	struct trace *t = b->t;
	if (t->ncats < TRACE_MAX_CATS) {
		static const char other[] = "(other categories)";
		t->cats[TRACE_MAX_CATS - 1] = builder_string(b, other, sizeof other - 1);
		t->ncats = TRACE_MAX_CATS;
	}
	return TRACE_MAX_CATS - 1;
}

/* The words of a track's gpu_bits for CAP slices. */
static size_t gpu_bit_words(uint32_t cap) { return cap ? ((size_t)cap + 63) / 64 : 1; }

/* Gives track TR its GPU fact bits (all clear) if it has none. */
static void track_gpu_bits(struct track *tr)
{
	if (tr->gpu_bits == NULL)
		tr->gpu_bits = xcalloc(gpu_bit_words(tr->cap), sizeof *tr->gpu_bits);
}

/* Gives track TR an args array (all 0) if it has none. */
static void track_args_array(struct track *tr)
{
	if (tr->args == NULL)
		tr->args = xcalloc(tr->cap ? tr->cap : 1, sizeof *tr->args);
}

/* Appends a slice to track TI. Complete slices (COMPLETE) keep GPU facts: all GPU
 * operations, and runtime calls and syncs with a correlation id; slices closed from a
 * begin keep none. Examples of the notes it takes are located at W. */
void builder_push_slice(struct builder *b, uint32_t ti, int64_t ts, int64_t dur, uint32_t name, uint32_t cat,
                        uint8_t given, uint64_t args, uint8_t flags, struct where w, bool complete,
                        const struct builder_gpu *gpu)
{
	struct track *tr = &b->t->tracks[ti];
	struct slice *s;
	enum slice_class cls = given != SC_OTHER && given < SC__COUNT ? (enum slice_class)given
	                                                              : model_classify(strtab_get(&b->t->strings, cat),
	                                                                               strtab_len(&b->t->strings, cat));

	if (tr->nslices == tr->cap) {
		/* small at first: a file may hold a track per pid for 200k pids */
		size_t words = ((size_t)tr->nslices + 63) / 64; /* in use: the rest are clear */
		tr->cap = tr->cap ? tr->cap + tr->cap / 2 + 16 : 4;
		tr->slices = xreallocarray(tr->slices, tr->cap, sizeof *tr->slices);
		if (tr->gpu_bits != NULL) {
			tr->gpu_bits = xreallocarray(tr->gpu_bits, gpu_bit_words(tr->cap), sizeof *tr->gpu_bits);
			memset(tr->gpu_bits + words, 0, (gpu_bit_words(tr->cap) - words) * sizeof *tr->gpu_bits);
		}
		if (tr->args != NULL)
			tr->args = xreallocarray(tr->args, tr->cap, sizeof *tr->args);
	}
	if (tr->nslices > 0) {
		const struct slice *prev = &tr->slices[tr->nslices - 1];
		if (prev->ts == ts && slice_dur(tr, prev) == dur && slice_name(b->t, prev) == name)
			note_at(b, Q_EXACT_DUPLICATE, w, name, ti);
	}
	uint32_t at = tr->nslices++;
	s = &tr->slices[at];
	s->ts = ts;
	s->dur32 = dur < SLICE_LONG ? (uint32_t)dur : SLICE_LONG;
	if (dur >= SLICE_LONG) {
		if (tr->nlong == tr->long_cap) {
			tr->long_cap = tr->long_cap ? tr->long_cap * 2 : 4;
			tr->long_durs = xreallocarray(tr->long_durs, tr->long_cap, sizeof *tr->long_durs);
		}
		tr->long_durs[tr->nlong++] = (struct long_dur){ at, 0, dur };
	}
	uint8_t cat_ix = builder_cat_index(b, cat);
	uint64_t key =
		((uint64_t)name | (uint64_t)cat_ix << 32 | (uint64_t)(cls & 15) << 40 | (uint64_t)(flags & 15) << 44) +
		1;
	uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 54) % KIND_MEMO;
	if (b->kind_key[h] != key) {
		b->kind_key[h] = key;
		b->kind_of[h] = kinds_intern(
			b->t, (struct slice_kind){ name, 0, cat_ix, (uint8_t)cls & 15, (uint8_t)(flags & 15) });
	}
	s->kind = b->kind_of[h];
	if (cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET) {
		tr->gpu_slices++;
		if (dur == 0)
			note_at(b, Q_ZERO_DUR_KERNEL, w, name, ti);
		if (cls == SC_KERNEL && kernel_comm_memo_is(&b->comm, &b->t->strings, name))
			tr->comm_kernels++;
	}
	if (complete && (cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET ||
	                 ((cls == SC_RUNTIME || cls == SC_SYNC) && gpu != NULL && gpu->has_correlation))) {
		uint32_t g = add_gpu_info(b, gpu); /* (which may move gpu_fact_track) */
		b->t->gpu_fact_track[g] = ti;
		track_gpu_bits(tr);
		tr->gpu_bits[at / 64] |= (uint64_t)1 << (at % 64);
	}
	if (args != 0)
		track_args_array(tr);
	if (tr->args != NULL)
		tr->args[at] = args;
	if (ts + dur > b->max_end)
		b->max_end = ts + dur;
}

void builder_slice(struct builder *b, uint32_t track, const struct builder_slice *s, const struct builder_gpu *gpu)
{
	struct where w = { s->origin, s->ts };
	int64_t dur = s->dur;

	check_time(s->ts);
	b->t->tracks[track].events++;
	if (dur < 0) {
		note_at(b, Q_NEGATIVE_DUR, w, s->name, track);
		dur = 0;
	}
	if (dur > BUILDER_TIME_LIMIT - s->ts)
		dur = BUILDER_TIME_LIMIT - s->ts;
	builder_push_slice(b, track, s->ts, dur, s->name, s->cat, s->cls, s->args, 0, w, true, gpu);
}

struct bstack *builder_stack_of(struct builder *b, uint32_t ti)
{
	if (ti >= b->nstacks) {
		uint32_t n = b->nstacks ? b->nstacks : 16;
		while (n <= ti)
			n *= 2;
		b->stacks = xreallocarray(b->stacks, n, sizeof *b->stacks);
		memset(b->stacks + b->nstacks, 0, (n - b->nstacks) * sizeof *b->stacks);
		b->nstacks = n;
	}
	return &b->stacks[ti];
}

void builder_stack_push(struct bstack *st, const struct open_b *o)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->v = xreallocarray(st->v, st->cap, sizeof *st->v);
	}
	st->v[st->n++] = *o;
}

void builder_begin(struct builder *b, uint32_t track, int64_t ts, uint32_t name, uint32_t cat, uint64_t args,
                   uint64_t origin)
{
	struct open_b o = { .ts = ts, .args = args, .origin = origin, .name = name, .cat = cat };

	check_time(ts);
	b->t->tracks[track].events++;
	builder_stack_push(builder_stack_of(b, track), &o);
	if (ts > b->max_end)
		b->max_end = ts;
}

bool builder_end(struct builder *b, uint32_t track, int64_t ts, uint64_t origin, const char *name, size_t name_len)
{
	struct bstack *st = track < b->nstacks ? &b->stacks[track] : NULL;

	check_time(ts);
	b->t->tracks[track].events++;
	if (st == NULL || st->n == 0) {
		if (!b->part)
			return false;
		if (b->norphans == b->orphans_cap) {
			b->orphans_cap = b->orphans_cap ? b->orphans_cap * 2 : 16;
			b->orphans = xreallocarray(b->orphans, b->orphans_cap, sizeof *b->orphans);
		}
		if (name_len > UINT32_MAX)
			name_len = UINT32_MAX;
		if (b->orphan_names_len + name_len > b->orphan_names_cap) {
			b->orphan_names_cap = (b->orphan_names_len + name_len) * 2 + 64;
			b->orphan_names = xreallocarray(b->orphan_names, b->orphan_names_cap, 1);
		}
		if (name_len > 0)
			memcpy(b->orphan_names + b->orphan_names_len, name, name_len);
		b->orphans[b->norphans++] =
			(struct orphan_e){ ts, origin, track, (uint32_t)name_len, b->orphan_names_len };
		b->orphan_names_len += name_len;
		return true;
	}
	struct open_b o = st->v[--st->n];
	int64_t dur = ts - o.ts;
	if (dur < 0) {
		note_at(b, Q_NEGATIVE_DUR, (struct where){ origin, ts }, o.name, track);
		dur = 0;
	}
	builder_push_slice(b, track, o.ts, dur, o.name, o.cat, SC_OTHER, o.args, SF_FROM_BE, nowhere, false, NULL);
	return true;
}

/* ---- instants, memory, counters, flows ------------------------------------------------ */

void builder_instant(struct builder *b, uint32_t track, int64_t ts, uint32_t name, uint32_t cat, char scope)
{
	struct trace *t = b->t;

	check_time(ts);
	if (t->ninstants == t->instants_cap) {
		t->instants_cap = t->instants_cap ? t->instants_cap * 2 : 256;
		t->instants = xreallocarray(t->instants, t->instants_cap, sizeof *t->instants);
	}
	struct instant *in = &t->instants[t->ninstants++];
	in->ts = ts;
	in->name = name;
	in->cat = cat;
	in->scope = scope;
	in->track = track;
	if (track != TT_NONE)
		t->tracks[track].events++;
}

void builder_memory(struct builder *b, uint32_t track, const struct mem_sample *m)
{
	struct trace *t = b->t;

	check_time(m->ts);
	if (t->nmem == t->mem_cap) {
		t->mem_cap = t->mem_cap ? t->mem_cap * 2 : 1024;
		t->mem = xreallocarray(t->mem, t->mem_cap, sizeof *t->mem);
	}
	struct mem_run r = { .first = t->nmem,
		             .track = track,
		             .total_reserved = m->total_reserved,
		             .device_id = m->device_id,
		             .device_type = m->device_type,
		             .flags = m->flags };
	if (t->nmem_runs == 0 || !mem_run_same(&t->mem_runs[t->nmem_runs - 1], &r)) {
		if (t->nmem_runs == t->mem_runs_cap) {
			t->mem_runs_cap = t->mem_runs_cap ? t->mem_runs_cap * 2 : 64;
			t->mem_runs = xreallocarray(t->mem_runs, t->mem_runs_cap, sizeof *t->mem_runs);
		}
		t->mem_runs[t->nmem_runs++] = r;
	}
	t->mem[t->nmem++] = (struct mem_value){ m->ts, m->total_allocated, m->bytes };
	if (track != TT_NONE)
		t->tracks[track].events++;
}

void builder_flops(struct builder *b, int64_t ts, int64_t flops)
{
	struct trace *t = b->t;

	check_time(ts);
	if (t->nflops == t->flops_cap) {
		t->flops_cap = t->flops_cap ? t->flops_cap * 2 : 256;
		t->flops = xreallocarray(t->flops, t->flops_cap, sizeof *t->flops);
	}
	t->flops[t->nflops++] = (struct flop_count){ ts, flops };
}

void builder_comm_op(struct builder *b, uint32_t name, uint32_t cat, int64_t external_id)
{
	struct trace *t = b->t;

	if (t->ncomm_ops == t->comm_ops_cap) {
		t->comm_ops_cap = t->comm_ops_cap ? t->comm_ops_cap * 2 : 64;
		t->comm_ops = xreallocarray(t->comm_ops, t->comm_ops_cap, sizeof *t->comm_ops);
	}
	t->comm_ops[t->ncomm_ops++] = (struct comm_op){ external_id, name, cat };
}

bool builder_counter_is(const struct counter *c, struct builder_id pid, uint32_t name, uint32_t key)
{
	return c->pid == pid.v && c->pid_is_str == pid.is_str && c->name == name && c->key == key;
}

void builder_counter(struct builder *b, struct builder_id pid, uint32_t name, uint32_t key, int64_t ts, double value)
{
	struct trace *t = b->t;
	uint32_t ci = TT_NONE;

	check_time(ts);
	if (b->last_counter != TT_NONE && builder_counter_is(&t->counters[b->last_counter], pid, name, key))
		ci = b->last_counter;
	for (uint32_t i = 0; ci == TT_NONE && i < t->ncounters; i++)
		if (builder_counter_is(&t->counters[i], pid, name, key))
			ci = i;
	if (ci == TT_NONE) {
		if (t->ncounters == b->counters_cap) {
			b->counters_cap = b->counters_cap ? b->counters_cap * 2 : 8;
			t->counters = xreallocarray(t->counters, b->counters_cap, sizeof *t->counters);
		}
		ci = t->ncounters++;
		memset(&t->counters[ci], 0, sizeof t->counters[ci]);
		t->counters[ci].pid = pid.v;
		t->counters[ci].pid_is_str = pid.is_str;
		t->counters[ci].name = name;
		t->counters[ci].key = key;
	}
	b->last_counter = ci;
	struct counter *c = &t->counters[ci];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->ts = xreallocarray(c->ts, c->cap, sizeof *c->ts);
		c->value = xreallocarray(c->value, c->cap, sizeof *c->value);
	}
	c->ts[c->n] = ts;
	c->value[c->n] = value;
	c->n++;
}

static uint32_t flow_ctx_hash(uint64_t seed, uint32_t cat, uint32_t id_hi)
{
	return process_hash(seed, false, (int64_t)((uint64_t)cat << 32 | id_hi));
}

static uint32_t flow_ctx_slot_hash(const struct builder *b, uint32_t i)
{
	return flow_ctx_hash(b->seed, b->t->flow_ctx[i].cat, b->t->flow_ctx[i].id_hi);
}

uint32_t builder_intern_flow_ctx(struct builder *b, uint32_t cat, uint32_t id_hi)
{
	struct trace *t = b->t;
	if (b->last_flow_ctx != 0) {
		const struct flow_ctx *last = &t->flow_ctx[b->last_flow_ctx - 1];
		if (last->cat == cat && last->id_hi == id_hi)
			return b->last_flow_ctx - 1;
	}
	if ((uint64_t)(t->nflow_ctx + 1) * 2 > b->nflow_ctx_slots)
		grow_slots(b, &b->flow_ctx_slots, &b->nflow_ctx_slots, 16, t->nflow_ctx, flow_ctx_slot_hash);
	uint32_t h = flow_ctx_hash(b->seed, cat, id_hi) & (b->nflow_ctx_slots - 1);
	for (;; h = (h + 1) & (b->nflow_ctx_slots - 1)) {
		uint32_t k = b->flow_ctx_slots[h];
		if (k == 0)
			break;
		if (t->flow_ctx[k - 1].cat == cat && t->flow_ctx[k - 1].id_hi == id_hi)
			return (b->last_flow_ctx = k) - 1;
	}
	if (t->nflow_ctx == t->flow_ctx_cap) {
		t->flow_ctx_cap = t->flow_ctx_cap ? 2 * t->flow_ctx_cap : 4;
		t->flow_ctx = xreallocarray(t->flow_ctx, t->flow_ctx_cap, sizeof *t->flow_ctx);
	}
	t->flow_ctx[t->nflow_ctx] = (struct flow_ctx){ cat, id_hi };
	b->flow_ctx_slots[h] = t->nflow_ctx + 1;
	b->last_flow_ctx = t->nflow_ctx + 1;
	return t->nflow_ctx++;
}

void builder_flow(struct builder *b, uint32_t track, int64_t ts, uint64_t id, uint32_t cat,
                  enum builder_flow_point point)
{
	struct trace *t = b->t;
	uint32_t ctx = builder_intern_flow_ctx(b, cat, (uint32_t)(id >> 32));

	check_time(ts);
	if (t->nflow_ends == t->flow_ends_cap) {
		t->flow_ends_cap = t->flow_ends_cap ? t->flow_ends_cap * 2 : 1024;
		t->flow_ends = xreallocarray(t->flow_ends, t->flow_ends_cap, sizeof *t->flow_ends);
	}
	struct flow_end *f = &t->flow_ends[t->nflow_ends++];
	if (track >= FLOW_END_MAX_TRACKS) /* the tracks would take over 100 GB */
		BUG("flow end on track %u", track);
	/* One store of the whole entry: assigning the bit-fields one by one reads the word
	 * first, and on a fresh page that read maps the zero page, so the write then faults
	 * again and flushes the other cores' TLBs (6% of a 100 MB load's CPU). */
	*f = (struct flow_end){
		.ts = ts,
		.id_lo = (uint32_t)id,
		.ctx = ctx,
		.track = track,
		.ph = point == FLOW_START  ? FLOW_PH_S
		      : point == FLOW_STEP ? FLOW_PH_T
		                           : FLOW_PH_F,
	};
}

/* ---- header facts --------------------------------------------------------------------- */

void builder_base_time(struct builder *b, int64_t base_ns)
{
	b->t->has_base = true;
	b->t->base_ns = base_ns;
}

void builder_distributed(struct builder *b, int32_t rank, int32_t world_size, uint32_t backend)
{
	b->t->rank = rank;
	b->t->world_size = world_size;
	if (backend != 0)
		b->t->backend = backend;
}

void builder_devices(struct builder *b, const struct device_props *dev, uint32_t n)
{
	free(b->t->devices);
	b->t->devices = xcalloc((size_t)n + 1, sizeof *b->t->devices);
	if (n > 0)
		memcpy(b->t->devices, dev, n * sizeof *dev);
	b->t->ndevices = n;
}

void builder_display_time_unit(struct builder *b, uint32_t unit) { b->t->display_time_unit = unit; }

void builder_clock(struct builder *b, uint32_t clock) { b->t->clock = clock; }

void builder_schema_version(struct builder *b, int32_t version) { b->t->schema_version = version; }

void builder_free_state(struct builder *b)
{
	kernel_comm_memo_free(&b->comm);
	for (uint32_t i = 0; i < b->nstacks; i++)
		free(b->stacks[i].v);
	free(b->stacks);
	free(b->orphans);
	free(b->orphan_names);
	free(b->track_slots);
	free(b->process_slots);
	free(b->place_slots);
	free(b->flow_ctx_slots);
	free(b->launch_slots);
	free(b);
}

void builder_abort(struct builder *b) { builder_free_state(b); }

void builder_finish(struct builder *b) { builder_finish_helped(b, NULL); }

void builder_finish_helped(struct builder *b, struct helper *h)
{
	struct trace *t = b->t;

	/* begins never closed end at the last time seen */
	for (uint32_t ti = 0; ti < b->nstacks; ti++) {
		struct bstack *st = &b->stacks[ti];
		while (st->n > 0) {
			struct open_b o = st->v[--st->n];
			note_at(b, Q_UNCLOSED_BEGIN, (struct where){ o.origin, o.ts }, o.name, ti);
			builder_push_slice(b, ti, o.ts, b->max_end > o.ts ? b->max_end - o.ts : 0, o.name, o.cat,
			                   SC_OTHER, o.args, SF_FROM_BE | SF_UNCLOSED, nowhere, false, NULL);
		}
	}
	t->quality.count[Q_UNMATCHED_END] += b->norphans;
	t->legacy = !b->saw_cat && t->events > 0;
	builder_free_state(b);
	index_build_helped(t, h);
}
