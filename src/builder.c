/* builder.c: the scanner's sink. Events are appended to their track in file order;
 * everything that needs the whole file (sorting, depth, links) waits for
 * builder_finish, which hands the model to the index (src/index.c). */
#include "src/builder.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "src/index.h"

/* Times must lie within this many ns (146 years) of the time base, so that slice ends
 * (ts + dur) and spans (end - start) never overflow int64. */
#define TIME_LIMIT ((int64_t)1 << 62)

struct open_b {
	int64_t ts;
	uint64_t args, offset;
	uint32_t name, cat;
};

struct bstack {
	struct open_b *v;
	uint32_t n, cap;
};

/* An E event of a later part whose B lies in an earlier part. */
struct orphan_e {
	int64_t ts;
	uint64_t offset;
	uint32_t track;
};

struct builder {
	struct trace *t;
	uint64_t seed;            /* strtab_seed(): pids and tids from a file cannot be made to collide */
	/* (pid, tid) -> track */
	uint32_t *track_slots;
	uint32_t nslots;
	uint32_t tracks_cap;
	uint32_t last_track;
	struct scan_id last_pid, last_tid;
	char last_pid_buf[64], last_tid_buf[64];
	/* pid -> process */
	uint32_t processes_cap;
	uint32_t *process_slots;   /* open addressing: process index + 1, 0 when free */
	uint32_t nprocess_slots;
	struct bstack *stacks;     /* by track */
	uint32_t nstacks;
	uint32_t counters_cap;
	uint32_t last_counter;
	int64_t max_end;
	bool saw_cat;
	bool part;                 /* a later part of a file parsed in parallel */
	struct orphan_e *orphans;
	uint32_t norphans, orphans_cap;
	uint32_t empty_name;       /* id of "" */
};

struct builder *builder_new(struct trace *t)
{
	struct builder *b = xcalloc(1, sizeof *b);
	b->t = t;
	b->seed = strtab_seed();
	b->last_track = TT_NONE;
	b->last_counter = TT_NONE;
	b->max_end = INT64_MIN;
	t->rank = -1;
	t->world_size = -1;
	t->schema_version = -1;
	return b;
}

static void qnote(struct builder *b, enum quality_kind k, const struct scan_event *ev, uint32_t name,
                  uint32_t track)
{
	struct quality *q = &b->t->quality;
	uint64_t n = q->count[k]++;
	if (n < QUALITY_EXAMPLES) {
		q->ex[k][n].offset = ev ? ev->offset : 0;
		q->ex[k][n].ts = ev ? ev->ts : 0;
		q->ex[k][n].name = name;
		q->ex[k][n].track = track;
	}
}

static uint32_t intern(struct builder *b, const struct scan_str *s)
{
	/* an absent field is {NULL, 0}: memcmp must not see the NULL */
	return strtab_intern(&b->t->strings, s->p != NULL ? s->p : "", s->len);
}

static void id_key(struct builder *b, const struct scan_id *id, bool *is_str, int64_t *v)
{
	if (!id->present) {
		*is_str = true;
		*v = 0; /* "" */
	} else if (id->is_str) {
		*is_str = true;
		*v = intern(b, &id->str);
	} else {
		*is_str = false;
		*v = id->num;
	}
}

static uint64_t track_hash(uint64_t seed, bool ps, int64_t p, bool ts, int64_t t)
{
	uint64_t h = ((uint64_t)p ^ seed) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)t + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
	h ^= (uint64_t)ps << 1 | (uint64_t)ts;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	return h ^ h >> 29;
}

static void grow_track_slots(struct builder *b)
{
	uint32_t ns = b->nslots ? b->nslots * 2 : 64;
	uint32_t *slots = xcalloc(ns, sizeof *slots);
	for (uint32_t i = 0; i < b->t->ntracks; i++) {
		struct track *tr = &b->t->tracks[i];
		uint32_t h = (uint32_t)track_hash(b->seed, tr->pid_is_str, tr->pid, tr->tid_is_str, tr->tid) & (ns - 1);
		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = i + 1;
	}
	free(b->track_slots);
	b->track_slots = slots;
	b->nslots = ns;
}

static uint32_t process_hash(uint64_t seed, bool is_str, int64_t pid)
{
	uint64_t h = ((uint64_t)pid ^ (uint64_t)is_str << 63 ^ seed) + 0x9e3779b97f4a7c15ull;
	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ h >> 27) * 0x94d049bb133111ebull;
	return (uint32_t)(h ^ h >> 31);
}

static void grow_process_slots(struct builder *b)
{
	uint32_t ns = b->nprocess_slots ? b->nprocess_slots * 2 : 64;
	uint32_t *slots = xcalloc(ns, sizeof *slots);
	for (uint32_t i = 0; i < b->t->nprocesses; i++) {
		const struct process *p = &b->t->processes[i];
		uint32_t h = process_hash(b->seed, p->pid_is_str, p->pid) & (ns - 1);
		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = i + 1;
	}
	free(b->process_slots);
	b->process_slots = slots;
	b->nprocess_slots = ns;
}

static uint32_t process_lookup(struct builder *b, bool is_str, int64_t pid)
{
	struct trace *t = b->t;
	uint32_t h;

	if ((uint64_t)(t->nprocesses + 1) * 2 > b->nprocess_slots)
		grow_process_slots(b);
	h = process_hash(b->seed, is_str, pid) & (b->nprocess_slots - 1);
	for (;; h = (h + 1) & (b->nprocess_slots - 1)) {
		uint32_t s = b->process_slots[h];
		if (s == 0)
			break;
		if (t->processes[s - 1].pid == pid && t->processes[s - 1].pid_is_str == is_str)
			return s - 1;
	}
	if (t->nprocesses == b->processes_cap) {
		b->processes_cap = b->processes_cap ? b->processes_cap * 2 : 16;
		t->processes = xreallocarray(t->processes, b->processes_cap, sizeof *t->processes);
	}
	struct process *p = &t->processes[t->nprocesses];
	memset(p, 0, sizeof *p);
	p->pid_is_str = is_str;
	p->pid = pid;
	p->sort_index = INT64_MIN;
	b->process_slots[h] = t->nprocesses + 1;
	return t->nprocesses++;
}

static uint32_t track_lookup_key(struct builder *b, bool ps, int64_t p, bool ts, int64_t tid)
{
	struct trace *t = b->t;
	uint32_t h;

	if ((uint64_t)(t->ntracks + 1) * 2 > b->nslots)
		grow_track_slots(b);
	h = (uint32_t)track_hash(b->seed, ps, p, ts, tid) & (b->nslots - 1);
	for (;; h = (h + 1) & (b->nslots - 1)) {
		uint32_t s = b->track_slots[h];
		if (s == 0)
			break;
		struct track *tr = &t->tracks[s - 1];
		if (tr->pid == p && tr->tid == tid && tr->pid_is_str == ps && tr->tid_is_str == ts)
			return s - 1;
	}
	if (t->ntracks == b->tracks_cap) {
		b->tracks_cap = b->tracks_cap ? b->tracks_cap * 2 : 16;
		t->tracks = xreallocarray(t->tracks, b->tracks_cap, sizeof *t->tracks);
	}
	struct track *tr = &t->tracks[t->ntracks];
	memset(tr, 0, sizeof *tr);
	tr->pid_is_str = ps;
	tr->pid = p;
	tr->tid_is_str = ts;
	tr->tid = tid;
	tr->device = -1;
	tr->stream = -1;
	tr->sort_index = INT64_MIN;
	tr->process = process_lookup(b, ps, p);
	b->track_slots[h] = t->ntracks + 1;
	return t->ntracks++;
}

static bool same_id(const struct scan_id *a, const struct scan_id *c)
{
	if (a->present != c->present || a->is_str != c->is_str)
		return false;
	if (!a->is_str)
		return a->num == c->num;
	return a->str.len == c->str.len && memcmp(a->str.p, c->str.p, a->str.len) == 0;
}

static void remember_id(struct scan_id *dst, char *buf, size_t bufsz, const struct scan_id *src)
{
	*dst = *src;
	if (src->is_str) {
		if (src->str.len >= bufsz) {
			dst->present = false; /* too long to cache */
			return;
		}
		memcpy(buf, src->str.p, src->str.len);
		dst->str.p = buf;
	}
}

static uint32_t track_of(struct builder *b, const struct scan_event *ev)
{
	bool ps, ts;
	int64_t p, tid;

	if (b->last_track != TT_NONE && b->last_pid.present && same_id(&b->last_pid, &ev->pid) &&
	    same_id(&b->last_tid, &ev->tid))
		return b->last_track;
	id_key(b, &ev->pid, &ps, &p);
	id_key(b, &ev->tid, &ts, &tid);
	b->last_track = track_lookup_key(b, ps, p, ts, tid);
	remember_id(&b->last_pid, b->last_pid_buf, sizeof b->last_pid_buf, &ev->pid);
	remember_id(&b->last_tid, b->last_tid_buf, sizeof b->last_tid_buf, &ev->tid);
	if (!ev->pid.present)
		b->last_pid.present = false;
	return b->last_track;
}

static uint64_t pack_args(const struct scan_event *ev)
{
	if (ev->args_len == 0)
		return 0;
	return (ev->args_offset << 24) | (ev->args_len < 0xffffff ? ev->args_len : 0xffffff);
}

static uint32_t add_gpu_info(struct builder *b, const struct scan_event *ev)
{
	struct trace *t = b->t;
	if (t->ngpu == t->gpu_cap) {
		t->gpu_cap = t->gpu_cap ? t->gpu_cap * 2 : 1024;
		t->gpu = xreallocarray(t->gpu, t->gpu_cap, sizeof *t->gpu);
	}
	struct gpu_info *g = &t->gpu[t->ngpu];
	g->correlation = ev->have & SA_CORRELATION ? ev->correlation : -1;
	g->external_id = ev->have & SA_EXTERNAL_ID ? ev->external_id : -1;
	g->stream = ev->have & SA_STREAM ? ev->stream : -1;
	g->bytes = ev->have & SA_BYTES ? ev->bytes : -1;
	g->device = ev->have & SA_DEVICE ? (int32_t)ev->device : -1;
	for (int i = 0; i < 3; i++) {
		g->grid[i] = ev->have & SA_GRID ? ev->grid[i] : 0;
		g->block[i] = ev->have & SA_BLOCK ? ev->block[i] : 0;
	}
	g->blocks_per_sm = ev->have & SA_BLOCKS_PER_SM ? (float)ev->blocks_per_sm : NAN;
	g->occupancy = ev->have & SA_OCCUPANCY ? (float)ev->occupancy : NAN;
	g->pg = ev->have & SA_PG_NAME ? intern(b, &ev->pg_name) : 0;
	g->self.track = g->peer.track = TT_NONE;
	g->self.idx = g->peer.idx = TT_NONE;
	return t->ngpu++;
}

static void push_slice(struct builder *b, uint32_t ti, const struct scan_event *ev, int64_t ts, int64_t dur,
                       uint32_t name, uint32_t cat, uint64_t args, uint8_t flags)
{
	struct track *tr = &b->t->tracks[ti];
	struct slice *s;
	enum slice_class cls = model_classify(strtab_get(&b->t->strings, cat), strtab_len(&b->t->strings, cat));

	if (tr->nslices == tr->cap) {
		/* small at first: a file may hold a track per pid for 200k pids */
		tr->cap = tr->cap ? tr->cap + tr->cap / 2 + 16 : 4;
		tr->slices = xreallocarray(tr->slices, tr->cap, sizeof *tr->slices);
	}
	if (tr->nslices > 0) {
		const struct slice *prev = &tr->slices[tr->nslices - 1];
		if (prev->ts == ts && prev->dur == dur && prev->name == name)
			qnote(b, Q_EXACT_DUPLICATE, ev, name, ti);
	}
	s = &tr->slices[tr->nslices++];
	s->ts = ts;
	s->dur = dur;
	s->args = args;
	s->name = name;
	s->cat = cat;
	s->depth = 0;
	s->cls = (uint8_t)cls;
	s->flags = flags;
	s->gpu = TT_NONE;
	if (cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET) {
		tr->gpu_slices++;
		if (dur == 0)
			qnote(b, Q_ZERO_DUR_KERNEL, ev, name, ti);
		if (cls == SC_KERNEL && model_is_comm_kernel(strtab_get(&b->t->strings, name)))
			tr->comm_kernels++;
	}
	if (ev != NULL && (cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET ||
	                   ((cls == SC_RUNTIME || cls == SC_SYNC) && (ev->have & SA_CORRELATION))))
		s->gpu = add_gpu_info(b, ev);
	if (ts + dur > b->max_end)
		b->max_end = ts + dur;
}

static void on_slice(struct builder *b, const struct scan_event *ev)
{
	uint32_t ti = track_of(b, ev);
	uint32_t name = intern(b, &ev->name);
	uint32_t cat = intern(b, &ev->cat);
	int64_t dur = ev->dur;

	b->t->tracks[ti].events++;
	if (!ev->has_dur || dur < 0) {
		qnote(b, Q_NEGATIVE_DUR, ev, name, ti);
		dur = 0;
	}
	if (dur > TIME_LIMIT - ev->ts)
		dur = TIME_LIMIT - ev->ts;
	push_slice(b, ti, ev, ev->ts, dur, name, cat, pack_args(ev), 0);
}

static struct bstack *stack_of(struct builder *b, uint32_t ti)
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

static void stack_push(struct bstack *st, const struct open_b *o)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->v = xreallocarray(st->v, st->cap, sizeof *st->v);
	}
	st->v[st->n++] = *o;
}

static void on_begin(struct builder *b, const struct scan_event *ev)
{
	uint32_t ti = track_of(b, ev);
	struct open_b o;

	b->t->tracks[ti].events++;
	o.ts = ev->ts;
	o.args = pack_args(ev);
	o.offset = ev->offset;
	o.name = intern(b, &ev->name);
	o.cat = intern(b, &ev->cat);
	stack_push(stack_of(b, ti), &o);
	if (ev->ts > b->max_end)
		b->max_end = ev->ts;
}

static void on_end(struct builder *b, const struct scan_event *ev)
{
	uint32_t ti = track_of(b, ev);
	struct bstack *st = ti < b->nstacks ? &b->stacks[ti] : NULL;

	b->t->tracks[ti].events++;
	if (st == NULL || st->n == 0) {
		if (b->part) {
			if (b->norphans == b->orphans_cap) {
				b->orphans_cap = b->orphans_cap ? b->orphans_cap * 2 : 16;
				b->orphans = xreallocarray(b->orphans, b->orphans_cap, sizeof *b->orphans);
			}
			b->orphans[b->norphans].ts = ev->ts;
			b->orphans[b->norphans].offset = ev->offset;
			b->orphans[b->norphans].track = ti;
			b->norphans++;
			return;
		}
		qnote(b, Q_UNMATCHED_END, ev, intern(b, &ev->name), ti);
		return;
	}
	struct open_b o = st->v[--st->n];
	int64_t dur = ev->ts - o.ts;
	if (dur < 0) {
		qnote(b, Q_NEGATIVE_DUR, ev, o.name, ti);
		dur = 0;
	}
	push_slice(b, ti, NULL, o.ts, dur, o.name, o.cat, o.args, SF_FROM_BE);
}

static void on_instant(struct builder *b, const struct scan_event *ev)
{
	struct trace *t = b->t;
	static const char mem[] = "[memory]";

	if (ev->name.len == sizeof mem - 1 && memcmp(ev->name.p, mem, sizeof mem - 1) == 0) {
		if (t->nmem == t->mem_cap) {
			t->mem_cap = t->mem_cap ? t->mem_cap * 2 : 1024;
			t->mem = xreallocarray(t->mem, t->mem_cap, sizeof *t->mem);
		}
		struct mem_sample *m = &t->mem[t->nmem++];
		m->ts = ev->ts;
		m->total_allocated = ev->have & SA_TOTAL_ALLOC ? ev->total_allocated : -1;
		m->total_reserved = ev->have & SA_TOTAL_RESERVED ? ev->total_reserved : -1;
		m->bytes = ev->have & SA_BYTES ? ev->bytes : -1;
		m->device_type = ev->have & SA_DEVICE_TYPE ? (int32_t)ev->device_type : -1;
		m->device_id = ev->have & SA_DEVICE_ID ? (int32_t)ev->device_id : -1;
		if (ev->pid.present) {
			uint32_t ti = track_of(b, ev);
			t->tracks[ti].events++;
		}
		return;
	}
	if (t->ninstants == t->instants_cap) {
		t->instants_cap = t->instants_cap ? t->instants_cap * 2 : 256;
		t->instants = xreallocarray(t->instants, t->instants_cap, sizeof *t->instants);
	}
	struct instant *in = &t->instants[t->ninstants++];
	in->ts = ev->ts;
	in->name = intern(b, &ev->name);
	in->cat = intern(b, &ev->cat);
	in->scope = ev->scope;
	in->track = TT_NONE;
	if (ev->pid.present && ev->scope != 'g' && ev->scope != 'p') {
		in->track = track_of(b, ev);
		t->tracks[in->track].events++;
	}
}

static void on_counter(struct builder *b, const struct scan_event *ev)
{
	struct trace *t = b->t;
	bool ps;
	int64_t pid;
	uint32_t name = intern(b, &ev->name);

	id_key(b, &ev->pid, &ps, &pid);
	for (unsigned k = 0; k < ev->ncounter; k++) {
		uint32_t key = intern(b, &ev->counter_key[k]);
		uint32_t ci = TT_NONE;
		if (b->last_counter != TT_NONE) {
			struct counter *c = &t->counters[b->last_counter];
			if (c->pid == pid && c->pid_is_str == ps && c->name == name && c->key == key)
				ci = b->last_counter;
		}
		for (uint32_t i = 0; ci == TT_NONE && i < t->ncounters; i++) {
			struct counter *c = &t->counters[i];
			if (c->pid == pid && c->pid_is_str == ps && c->name == name && c->key == key)
				ci = i;
		}
		if (ci == TT_NONE) {
			if (t->ncounters == b->counters_cap) {
				b->counters_cap = b->counters_cap ? b->counters_cap * 2 : 8;
				t->counters = xreallocarray(t->counters, b->counters_cap, sizeof *t->counters);
			}
			ci = t->ncounters++;
			memset(&t->counters[ci], 0, sizeof t->counters[ci]);
			t->counters[ci].pid = pid;
			t->counters[ci].pid_is_str = ps;
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
		c->ts[c->n] = ev->ts;
		c->value[c->n] = ev->counter_value[k];
		c->n++;
	}
}

static void on_flow(struct builder *b, const struct scan_event *ev)
{
	struct trace *t = b->t;
	if (!ev->has_id) {
		qnote(b, Q_FLOW_UNBOUND, ev, intern(b, &ev->name), TT_NONE);
		return;
	}
	if (t->nflow_ends == t->flow_ends_cap) {
		t->flow_ends_cap = t->flow_ends_cap ? t->flow_ends_cap * 2 : 1024;
		t->flow_ends = xreallocarray(t->flow_ends, t->flow_ends_cap, sizeof *t->flow_ends);
	}
	struct flow_end *f = &t->flow_ends[t->nflow_ends++];
	f->id = ev->id;
	f->ts = ev->ts;
	f->track = track_of(b, ev);
	f->cat = intern(b, &ev->cat);
	f->ph = ev->ph;
	f->bp = ev->bp;
}

static bool set_name(struct builder *b, const struct scan_event *ev, uint32_t *dst, uint32_t value,
                     bool keep_first, uint32_t track)
{
	if (*dst == 0) {
		*dst = value;
		return true;
	}
	if (*dst == value) {
		b->t->quality.count[Q_DUP_METADATA]++;
		return false;
	}
	qnote(b, Q_CONFLICT_METADATA, ev, value, track);
	if (!keep_first)
		*dst = value;
	return true;
}

static void on_metadata(struct builder *b, const struct scan_event *ev)
{
	struct trace *t = b->t;
	const struct scan_str *n = &ev->name;
	bool ps;
	int64_t pid;

#define NAMEIS(lit) (n->len == sizeof(lit) - 1 && memcmp(n->p, lit, n->len) == 0)
	if (NAMEIS("thread_name") || NAMEIS("thread_sort_index")) {
		uint32_t ti = track_of(b, ev);
		struct track *tr = &t->tracks[ti];
		if (NAMEIS("thread_name") && (ev->have & SA_M_NAME)) {
			uint32_t v = intern(b, &ev->m_name);
			set_name(b, ev, &tr->name, v, false, ti);
			tr->named = true;
		} else if (ev->have & SA_M_SORT) {
			if (tr->sort_index == ev->m_sort_index)
				t->quality.count[Q_DUP_METADATA]++;
			tr->sort_index = ev->m_sort_index;
		}
		return;
	}
	id_key(b, &ev->pid, &ps, &pid);
	if (NAMEIS("process_name") && (ev->have & SA_M_NAME)) {
		uint32_t v = intern(b, &ev->m_name), pi = process_lookup(b, ps, pid);
		set_name(b, ev, &t->processes[pi].name, v, true, TT_NONE);
	} else if (NAMEIS("process_labels") && (ev->have & SA_M_LABELS)) {
		uint32_t v = intern(b, &ev->m_labels), pi = process_lookup(b, ps, pid);
		set_name(b, ev, &t->processes[pi].labels, v, false, TT_NONE);
	} else if (NAMEIS("process_sort_index") && (ev->have & SA_M_SORT)) {
		uint32_t pi = process_lookup(b, ps, pid);
		struct process *p = &t->processes[pi];
		if (p->sort_index == ev->m_sort_index)
			t->quality.count[Q_DUP_METADATA]++;
		p->sort_index = ev->m_sort_index;
	}
#undef NAMEIS
}

static void on_event(void *ctx, const struct scan_event *ev)
{
	struct builder *b = ctx;
	struct trace *t = b->t;

	t->events++;
	t->count_by_ph[(unsigned char)ev->ph & 127]++;
	if (ev->cat.len > 0)
		b->saw_cat = true;
	if (ev->ph == 0) {
		qnote(b, Q_MISSING_PH, ev, intern(b, &ev->name), TT_NONE);
		return;
	}
	if (ev->ph != 'M' && (!ev->has_ts || ev->ts <= -TIME_LIMIT || ev->ts >= TIME_LIMIT)) {
		qnote(b, Q_MISSING_TS, ev, intern(b, &ev->name), TT_NONE);
		return;
	}
	switch (ev->ph) {
	case 'X':
		on_slice(b, ev);
		break;
	case 'B':
		on_begin(b, ev);
		break;
	case 'E':
		on_end(b, ev);
		break;
	case 'i':
	case 'I':
		on_instant(b, ev);
		break;
	case 'C':
		on_counter(b, ev);
		break;
	case 's':
	case 't':
	case 'f':
		on_flow(b, ev);
		break;
	case 'M':
		on_metadata(b, ev);
		break;
	case 'b':
	case 'e':
	case 'n':
		t->async_events++;
		b->t->quality.count[Q_ASYNC]++;
		break;
	case 'P':
		b->t->quality.count[Q_SAMPLE_SKIPPED]++;
		break;
	default:
		qnote(b, Q_UNKNOWN_PH, ev, intern(b, &ev->name), TT_NONE);
		break;
	}
}

static int64_t json_int(const cJSON *o, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v) && v->valuedouble >= -9.2e18 && v->valuedouble <= 9.2e18)
		return (int64_t)v->valuedouble;
	if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
		char *end;
		long long x = strtoll(v->valuestring, &end, 10);
		if (*end == '\0')
			return x;
	}
	return dflt;
}

static void header_distributed(struct builder *b, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	if (o == NULL) {
		trace_warn(b->t, "distributedInfo is not valid JSON: ignored");
		return;
	}
	if (cJSON_IsObject(o)) {
		const cJSON *be = cJSON_GetObjectItemCaseSensitive(o, "backend");
		b->t->rank = (int32_t)json_int(o, "rank", -1);
		b->t->world_size = (int32_t)json_int(o, "world_size", -1);
		if (cJSON_IsString(be))
			b->t->backend = strtab_intern(&b->t->strings, be->valuestring, strlen(be->valuestring));
	}
	cJSON_Delete(o);
}

static void header_devices(struct builder *b, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	const cJSON *d;
	if (o == NULL) {
		trace_warn(b->t, "deviceProperties is not valid JSON: ignored");
		return;
	}
	if (cJSON_IsArray(o)) {
		int n = cJSON_GetArraySize(o);
		/* a repeated key: the last one wins */
		free(b->t->devices);
		b->t->ndevices = 0;
		b->t->devices = xcalloc((size_t)n + 1, sizeof *b->t->devices);
		cJSON_ArrayForEach(d, o)
		{
			if (!cJSON_IsObject(d))
				continue;
			struct device_props *p = &b->t->devices[b->t->ndevices++];
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(d, "name");
			p->id = (int32_t)json_int(d, "id", b->t->ndevices - 1);
			p->name = cJSON_IsString(nm) ? strtab_intern(&b->t->strings, nm->valuestring, strlen(nm->valuestring)) : 0;
			p->num_sms = (int32_t)json_int(d, "numSms", 0);
			p->max_threads_per_sm = (int32_t)json_int(d, "maxThreadsPerMultiprocessor", 0);
			p->compute_major = (int32_t)json_int(d, "computeMajor", 0);
			p->compute_minor = (int32_t)json_int(d, "computeMinor", 0);
			p->total_global_mem = json_int(d, "totalGlobalMem", 0);
		}
	}
	cJSON_Delete(o);
}

static void on_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct builder *b = ctx;
	struct trace *t = b->t;
#define KEYIS(lit) (keylen == sizeof(lit) - 1 && memcmp(key, lit, keylen) == 0)
	if (json == NULL) {
		if (KEYIS("distributedInfo") || KEYIS("deviceProperties") || KEYIS("baseTimeNanoseconds"))
			trace_warn(t, "header key \"%s\" is %" PRIu64 " bytes: too large, ignored", key, len);
		return;
	}
	if (KEYIS("baseTimeNanoseconds")) {
		const char *p = json;
		char *end;
		long long v;
		if (*p == '"')
			p++;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (end != p && errno == 0) {
			t->has_base = true;
			t->base_ns = v;
		} else {
			trace_warn(t, "baseTimeNanoseconds %.40s is not an integer: ignored", json);
		}
	} else if (KEYIS("distributedInfo")) {
		header_distributed(b, json);
	} else if (KEYIS("deviceProperties")) {
		header_devices(b, json);
	} else if (KEYIS("displayTimeUnit")) {
		size_t n = strlen(json);
		if (n >= 2 && json[0] == '"')
			t->display_time_unit = strtab_intern(&t->strings, json + 1, n - 2);
	} else if (KEYIS("schemaVersion")) {
		t->schema_version = atoi(json);
	}
#undef KEYIS
}

struct builder *builder_new_part(struct trace *t)
{
	struct builder *b = builder_new(t);
	b->part = true;
	return b;
}

/* Appends N elements of SIZE bytes from SRC to *DST (holding *N of *CAP). */
static void append(void **dst, uint32_t *n, uint32_t *cap, const void *src, uint32_t count, size_t size)
{
	if (count == 0)
		return;
	if (*n + count > *cap) {
		*cap = *n + count;
		*dst = xreallocarray(*dst, *cap, size);
	}
	memcpy((char *)*dst + (size_t)*n * size, src, (size_t)count * size);
	*n += count;
}

void builder_merge(struct builder *dst, struct builder *src)
{
	struct trace *d = dst->t, *s = src->t;
	uint32_t *smap = xmalloc(s->strings.n * sizeof *smap);
	uint32_t *tmap = xmalloc((s->ntracks ? s->ntracks : 1) * sizeof *tmap);
	uint32_t gpu_base = d->ngpu;

	for (uint32_t id = 0; id < s->strings.n; id++)
		smap[id] = strtab_intern(&d->strings, strtab_get(&s->strings, id), strtab_len(&s->strings, id));
#define KEY(is_str, v) ((is_str) ? (int64_t)smap[(uint32_t)(v)] : (v))
	for (uint32_t i = 0; i < s->nprocesses; i++) {
		const struct process *sp = &s->processes[i];
		uint32_t pi = process_lookup(dst, sp->pid_is_str, KEY(sp->pid_is_str, sp->pid));
		struct process *dp = &d->processes[pi];
		if (sp->name)
			set_name(dst, NULL, &dp->name, smap[sp->name], true, TT_NONE);
		if (sp->labels)
			set_name(dst, NULL, &dp->labels, smap[sp->labels], false, TT_NONE);
		if (sp->sort_index != INT64_MIN) {
			if (dp->sort_index == sp->sort_index)
				d->quality.count[Q_DUP_METADATA]++;
			dp->sort_index = sp->sort_index;
		}
	}
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const struct track *st = &s->tracks[i];
		uint32_t ti = track_lookup_key(dst, st->pid_is_str, KEY(st->pid_is_str, st->pid), st->tid_is_str,
		                               KEY(st->tid_is_str, st->tid));
		struct track *dt = &d->tracks[ti];
		tmap[i] = ti;
		dt->events += st->events;
		dt->gpu_slices += st->gpu_slices;
		dt->comm_kernels += st->comm_kernels;
		if (st->named) {
			set_name(dst, NULL, &dt->name, smap[st->name], false, ti);
			dt->named = true;
		}
		if (st->sort_index != INT64_MIN) {
			if (dt->sort_index == st->sort_index)
				d->quality.count[Q_DUP_METADATA]++;
			dt->sort_index = st->sort_index;
		}
		if (st->nslices > 0) {
			uint32_t first = dt->nslices;
			if (first > 0) {
				const struct slice *prev = &dt->slices[first - 1], *next = &st->slices[0];
				if (prev->ts == next->ts && prev->dur == next->dur && prev->name == smap[next->name]) {
					struct scan_event fake;
					memset(&fake, 0, sizeof fake);
					fake.ts = next->ts;
					qnote(dst, Q_EXACT_DUPLICATE, &fake, prev->name, ti);
				}
			}
			append((void **)&dt->slices, &dt->nslices, &dt->cap, st->slices, st->nslices, sizeof *st->slices);
			for (uint32_t k = first; k < dt->nslices; k++) {
				struct slice *sl = &dt->slices[k];
				sl->name = smap[sl->name];
				sl->cat = smap[sl->cat];
				if (sl->gpu != TT_NONE)
					sl->gpu += gpu_base;
			}
		}
		/* free as we go: the peak stays near the merged size, not twice it */
		free(s->tracks[i].slices);
		s->tracks[i].slices = NULL;
		s->tracks[i].nslices = 0;
	}
	for (uint32_t k = 0; k < s->ngpu; k++)
		s->gpu[k].pg = smap[s->gpu[k].pg];
	append((void **)&d->gpu, &d->ngpu, &d->gpu_cap, s->gpu, s->ngpu, sizeof *s->gpu);
	free(s->gpu);
	s->gpu = NULL;
	/* E events of SRC that close B events of DST, in file order */
	for (uint32_t k = 0; k < src->norphans; k++) {
		const struct orphan_e *o = &src->orphans[k];
		uint32_t ti = tmap[o->track];
		struct bstack *st = ti < dst->nstacks ? &dst->stacks[ti] : NULL;
		if (st == NULL || st->n == 0) {
			struct scan_event fake;
			memset(&fake, 0, sizeof fake);
			fake.offset = o->offset;
			fake.ts = o->ts;
			qnote(dst, Q_UNMATCHED_END, &fake, 0, ti);
			continue;
		}
		struct open_b b = st->v[--st->n];
		if (o->ts < b.ts) { /* as on_end counts it */
			struct scan_event fake;
			memset(&fake, 0, sizeof fake);
			fake.offset = o->offset;
			fake.ts = o->ts;
			qnote(dst, Q_NEGATIVE_DUR, &fake, b.name, ti);
		}
		push_slice(dst, ti, NULL, b.ts, o->ts > b.ts ? o->ts - b.ts : 0, b.name, b.cat, b.args, SF_FROM_BE);
	}
	/* B events SRC left open go on top of DST's */
	for (uint32_t i = 0; i < src->nstacks && i < s->ntracks; i++) {
		const struct bstack *ss = &src->stacks[i];
		for (uint32_t k = 0; k < ss->n; k++) {
			struct open_b o = ss->v[k];
			o.name = smap[o.name];
			o.cat = smap[o.cat];
			stack_push(stack_of(dst, tmap[i]), &o);
		}
	}
	{
		uint32_t first = d->nflow_ends;
		append((void **)&d->flow_ends, &d->nflow_ends, &d->flow_ends_cap, s->flow_ends, s->nflow_ends,
		       sizeof *s->flow_ends);
		for (uint32_t k = first; k < d->nflow_ends; k++) {
			d->flow_ends[k].cat = smap[d->flow_ends[k].cat];
			d->flow_ends[k].track = tmap[d->flow_ends[k].track];
		}
		free(s->flow_ends);
		s->flow_ends = NULL;
	}
	{
		uint32_t first = d->ninstants;
		append((void **)&d->instants, &d->ninstants, &d->instants_cap, s->instants, s->ninstants,
		       sizeof *s->instants);
		for (uint32_t k = first; k < d->ninstants; k++) {
			struct instant *in = &d->instants[k];
			in->name = smap[in->name];
			in->cat = smap[in->cat];
			if (in->track != TT_NONE)
				in->track = tmap[in->track];
		}
	}
	free(s->instants);
	s->instants = NULL;
	append((void **)&d->mem, &d->nmem, &d->mem_cap, s->mem, s->nmem, sizeof *s->mem);
	free(s->mem);
	s->mem = NULL;
	for (uint32_t i = 0; i < s->ncounters; i++) {
		struct counter *sc = &s->counters[i];
		int64_t pid = KEY(sc->pid_is_str, sc->pid);
		uint32_t name = smap[sc->name], key = smap[sc->key], ci = TT_NONE;
		for (uint32_t k = 0; k < d->ncounters && ci == TT_NONE; k++)
			if (d->counters[k].pid == pid && d->counters[k].pid_is_str == sc->pid_is_str &&
			    d->counters[k].name == name && d->counters[k].key == key)
				ci = k;
		if (ci == TT_NONE) {
			if (d->ncounters == dst->counters_cap) {
				dst->counters_cap = dst->counters_cap ? dst->counters_cap * 2 : 8;
				d->counters = xreallocarray(d->counters, dst->counters_cap, sizeof *d->counters);
			}
			ci = d->ncounters++;
			d->counters[ci] = *sc;
			d->counters[ci].pid = pid;
			d->counters[ci].name = name;
			d->counters[ci].key = key;
			sc->ts = NULL;
			sc->value = NULL;
			continue;
		}
		struct counter *dc = &d->counters[ci];
		uint32_t n = dc->n, cap = dc->cap;
		append((void **)&dc->ts, &n, &cap, sc->ts, sc->n, sizeof *sc->ts);
		append((void **)&dc->value, &dc->n, &dc->cap, sc->value, sc->n, sizeof *sc->value);
	}
	for (int q = 0; q < Q__COUNT; q++) {
		uint64_t have = d->quality.count[q];
		for (uint64_t k = 0; k < s->quality.count[q] && k < QUALITY_EXAMPLES && have + k < QUALITY_EXAMPLES; k++) {
			struct quality_example e = s->quality.ex[q][k];
			e.name = smap[e.name];
			if (e.track != TT_NONE)
				e.track = tmap[e.track];
			d->quality.ex[q][have + k] = e;
		}
		d->quality.count[q] += s->quality.count[q];
	}
	for (int c = 0; c < 128; c++)
		d->count_by_ph[c] += s->count_by_ph[c];
	d->events += s->events;
	d->async_events += s->async_events;
	if (s->has_base) { /* the last valid baseTimeNanoseconds wins, as in one piece */
		d->has_base = true;
		d->base_ns = s->base_ns;
	}
	if (d->rank < 0)
		d->rank = s->rank;
	if (d->world_size < 0)
		d->world_size = s->world_size;
	if (d->backend == 0 && s->backend != 0)
		d->backend = smap[s->backend];
	if (d->display_time_unit == 0 && s->display_time_unit != 0)
		d->display_time_unit = smap[s->display_time_unit];
	if (d->schema_version < 0)
		d->schema_version = s->schema_version;
	if (d->ndevices == 0 && s->ndevices > 0) {
		d->devices = s->devices;
		d->ndevices = s->ndevices;
		for (uint32_t i = 0; i < d->ndevices; i++)
			d->devices[i].name = smap[d->devices[i].name];
		s->devices = NULL;
		s->ndevices = 0;
	}
	for (uint32_t i = 0; i < s->nwarnings; i++) {
		struct warning_tag tag = s->warning_tags[i];
		uint32_t have = 0;
		if (tag.group == 0) {
			trace_warn(d, "%s", s->warnings[i]);
			continue;
		}
		for (uint32_t k = 0; k < d->nwarnings; k++)
			have += d->warning_tags[k].group == tag.group;
		if (have < tag.max) /* the first MAX of the group in file order, as one part shows */
			trace_warn_group(d, tag.group, tag.max, "%s", s->warnings[i]);
	}
	if (src->max_end > dst->max_end)
		dst->max_end = src->max_end;
	dst->saw_cat |= src->saw_cat;
#undef KEY
	/* free SRC */
	for (uint32_t i = 0; i < src->nstacks; i++)
		free(src->stacks[i].v);
	free(src->stacks);
	free(src->orphans);
	free(src->track_slots);
	free(src->process_slots);
	free(src);
	trace_free(s);
	free(smap);
	free(tmap);
}

void builder_sink(struct builder *b, struct scan_sink *sink)
{
	memset(sink, 0, sizeof *sink);
	sink->ctx = b;
	sink->event = on_event;
	sink->header = on_header;
}

void builder_add_scan_stats(struct builder *b, const struct scan_stats *st)
{
	static const enum quality_kind map[SO__COUNT] = {
		[SO_MALFORMED_EVENT] = Q_MALFORMED_EVENT, [SO_CONTROL_CHAR] = Q_CONTROL_CHAR,
		[SO_BAD_ESCAPE] = Q_BAD_ESCAPE,           [SO_NONFINITE] = Q_NONFINITE,
		[SO_INT_OVERFLOW] = Q_INT_OVERFLOW,       [SO_NOT_OBJECT] = Q_NOT_OBJECT,
	};
	for (int i = 0; i < SO__COUNT; i++)
		b->t->quality.count[map[i]] += st->count[i];
	b->t->bytes = st->bytes;
}

void builder_abort(struct builder *b)
{
	for (uint32_t i = 0; i < b->nstacks; i++)
		free(b->stacks[i].v);
	free(b->stacks);
	free(b->orphans);
	free(b->track_slots);
	free(b->process_slots);
	free(b);
}

void builder_finish(struct builder *b)
{
	struct trace *t = b->t;

	/* B events never closed end at the last time seen */
	for (uint32_t ti = 0; ti < b->nstacks; ti++) {
		struct bstack *st = &b->stacks[ti];
		while (st->n > 0) {
			struct open_b o = st->v[--st->n];
			struct scan_event fake;
			memset(&fake, 0, sizeof fake);
			fake.offset = o.offset;
			fake.ts = o.ts;
			qnote(b, Q_UNCLOSED_BEGIN, &fake, o.name, ti);
			push_slice(b, ti, NULL, o.ts, b->max_end > o.ts ? b->max_end - o.ts : 0, o.name, o.cat, o.args,
			           SF_FROM_BE | SF_UNCLOSED);
		}
		free(st->v);
	}
	free(b->stacks);
	t->quality.count[Q_UNMATCHED_END] += b->norphans;
	free(b->orphans);
	t->legacy = !b->saw_cat && t->events > 0;
	free(b->track_slots);
	free(b->process_slots);
	free(b);
	index_build(t);
}
