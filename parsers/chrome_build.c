/* chrome_build.c: the Chrome trace-event format, as PyTorch's Kineto and older exporters
 * write it, in terms of the model builder (see chrome_build.h).
 *
 * Phases: X is a complete slice, B/E open and close one (nesting per thread), i/I an
 * instant (Kineto's "[memory]" instants are memory samples), C samples counters (one
 * series per numeric arg), s/t/f are flow ends, M names threads and processes; async
 * b/e/n and samples (P) are counted, not modelled. A thread is (pid, tid), either of
 * which may be a number or a string. Header keys: baseTimeNanoseconds, distributedInfo
 * and deviceProperties (parsed here with cJSON: small, rare objects), displayTimeUnit,
 * schemaVersion. */
#include "parsers/chrome_build.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "lib/zero.h"

/* The args of an event that are facts of a GPU operation or of its launch. */
#define GPU_ARGS                                                                                           \
	(SA_CORRELATION | SA_EXTERNAL_ID | SA_DEVICE | SA_STREAM | SA_GRID | SA_BLOCK | SA_BLOCKS_PER_SM | \
	 SA_OCCUPANCY | SA_BYTES | SA_PG_NAME | SA_REGS | SA_SMEM)

void chrome_build_init(struct chrome_build *cb, struct builder *b)
{
	memset(cb, 0, sizeof *cb);
	cb->b = b;
	cb->last_track = TT_NONE;
}

static uint32_t intern(struct chrome_build *cb, const struct scan_str *s)
{
	return builder_string(cb->b, s->p, s->len);
}

/* A pid or tid as the model keys it; an absent one is the empty string. */
static struct builder_id id_of(struct chrome_build *cb, const struct scan_id *id)
{
	if (!id->present)
		return (struct builder_id){ true, 0 };
	if (id->is_str)
		return (struct builder_id){ true, intern(cb, &id->str) };
	return (struct builder_id){ false, id->num };
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

static uint32_t track_of(struct chrome_build *cb, const struct scan_event *ev)
{
	if (cb->last_track != TT_NONE && cb->last_pid.present && same_id(&cb->last_pid, &ev->pid) &&
	    same_id(&cb->last_tid, &ev->tid))
		return cb->last_track;
	struct builder_id pid = id_of(cb, &ev->pid);
	struct builder_id tid = id_of(cb, &ev->tid);
	cb->last_track = builder_track(cb->b, pid, tid);
	remember_id(&cb->last_pid, cb->last_pid_buf, sizeof cb->last_pid_buf, &ev->pid);
	remember_id(&cb->last_tid, cb->last_tid_buf, sizeof cb->last_tid_buf, &ev->tid);
	if (!ev->pid.present)
		cb->last_pid.present = false;
	return cb->last_track;
}

/* The args reference of the model (src/model.h): the offset and length of the event's
 * args object in the decompressed file, which the details panel reads again. */
static uint64_t pack_args(const struct scan_event *ev)
{
	if (ev->args_len <= 2)
		return 0; /* none, or "{}" (every event of the legacy exporter): nothing to show */
	return (ev->args_offset << 24) | (ev->args_len < 0xffffff ? ev->args_len : 0xffffff);
}

static void gpu_facts(const struct scan_event *ev, struct builder_gpu *g)
{
	/* most X events carry one of these args (Kineto's cpu_ops carry "External id"), and
	 * most of them keep no facts: every field absent, then only what is there (zeroed 16
	 * bytes a store: a template copied in was a rep stos an event, lib/zero.h) */
	uint32_t have = ev->have;

	zero_small(g, sizeof *g);
	g->correlation = -1;
	g->external_id = -1;
	g->stream = -1;
	g->bytes = -1;
	g->device = -1;
	g->blocks_per_sm = NAN;
	g->occupancy = NAN;
	g->regs = -1;
	g->smem = -1;
	if (have & SA_CORRELATION) {
		g->has_correlation = true;
		g->correlation = ev->correlation;
	}
	if (have & SA_EXTERNAL_ID)
		g->external_id = ev->external_id;
	if (have & (SA_STREAM | SA_BYTES | SA_DEVICE | SA_GRID | SA_BLOCK | SA_BLOCKS_PER_SM | SA_OCCUPANCY |
	            SA_PG_NAME | SA_REGS | SA_SMEM)) {
		if (have & SA_STREAM)
			g->stream = ev->stream;
		if (have & SA_BYTES)
			g->bytes = ev->bytes;
		if (have & SA_DEVICE)
			g->device = (int32_t)ev->device;
		if (have & SA_GRID)
			memcpy(g->grid, ev->grid, sizeof g->grid);
		if (have & SA_BLOCK)
			memcpy(g->block, ev->block, sizeof g->block);
		if (have & SA_BLOCKS_PER_SM)
			g->blocks_per_sm = (float)ev->blocks_per_sm;
		if (have & SA_OCCUPANCY)
			g->occupancy = (float)ev->occupancy;
		if ((have & SA_REGS) && ev->regs >= 0 && ev->regs <= INT32_MAX)
			g->regs = (int32_t)ev->regs;
		if ((have & SA_SMEM) && ev->smem >= 0 && ev->smem <= INT32_MAX)
			g->smem = (int32_t)ev->smem;
		if (have & SA_PG_NAME) {
			g->pg = ev->pg_name.p != NULL ? ev->pg_name.p : "";
			g->pg_len = ev->pg_name.len;
		}
	}
}

static bool str_is(const struct scan_str *s, const char *lit)
{
	size_t n = strlen(lit);
	return s->len == n && memcmp(s->p, lit, n) == 0;
}

/* The class of an MTIA event (Meta's accelerator), which the category alone does not say,
 * or SC_OTHER: the category's. Kineto writes the runtime calls that submit device work as
 * mtia_runtime (PyTorch's cuda_runtime), and the device's own work as mtia_ccp_events on
 * the device's pid ("MTIA 9"), one thread per queue ("Stream 1 FW") and one for DMA: a job
 * that carries the correlation id of the call that submitted it is the device's kernel, a
 * dma_request its copy (memcpy); anything else there (no correlation) stays unclassified. */
static uint8_t mtia_class(const struct scan_event *ev)
{
	static const char prefix[] = "mtia_";
	if (ev->cat.len < sizeof prefix - 1 || memcmp(ev->cat.p, prefix, sizeof prefix - 1) != 0)
		return SC_OTHER;
	if (str_is(&ev->cat, "mtia_runtime"))
		return SC_RUNTIME;
	if (!str_is(&ev->cat, "mtia_ccp_events"))
		return SC_OTHER;
	if (str_is(&ev->name, "dma_request"))
		return SC_MEMCPY;
	return ev->have & SA_CORRELATION ? SC_KERNEL : SC_OTHER;
}

static void on_slice(struct chrome_build *cb, const struct scan_event *ev)
{
	struct builder_slice s;
	struct builder_gpu g;
	uint32_t ti = track_of(cb, ev);

	s.ts = ev->ts;
	s.name = intern(cb, &ev->name);
	s.cat = intern(cb, &ev->cat);
	/* a missing dur is as bad as a negative one */
	s.dur = ev->has_dur && ev->dur >= 0 ? ev->dur : -1;
	s.args = pack_args(ev);
	s.origin = ev->offset;
	s.cls = mtia_class(ev);
	if (ev->have & GPU_ARGS)
		gpu_facts(ev, &g);
	builder_slice(cb->b, ti, &s, ev->have & GPU_ARGS ? &g : NULL);
	if (ev->have & SA_FLOPS && ev->flops > 0)
		builder_flops(cb->b, s.ts, ev->flops);
	/* a collective's op: the plugin finds its kernels by External id, which the model keeps
	 * for GPU work and launches only */
	if (ev->have & SA_EXTERNAL_ID && ev->name.len > 5 &&
	    (memcmp(ev->name.p, "nccl:", 5) == 0 || memcmp(ev->name.p, "gloo:", 5) == 0))
		builder_comm_op(cb->b, s.name, s.cat, ev->external_id);
}

static void on_begin(struct chrome_build *cb, const struct scan_event *ev)
{
	uint32_t ti = track_of(cb, ev);
	uint32_t name = intern(cb, &ev->name);
	uint32_t cat = intern(cb, &ev->cat);
	builder_begin(cb->b, ti, ev->ts, name, cat, pack_args(ev), ev->offset);
}

static void on_end(struct chrome_build *cb, const struct scan_event *ev)
{
	uint32_t ti = track_of(cb, ev);
	if (!builder_end(cb->b, ti, ev->ts, ev->offset, ev->name.p, ev->name.len))
		builder_note(cb->b, Q_UNMATCHED_END, ev->offset, ev->ts, intern(cb, &ev->name), ti);
}

static void on_instant(struct chrome_build *cb, const struct scan_event *ev)
{
	static const char mem[] = "[memory]";

	if (ev->name.len == sizeof mem - 1 && memcmp(ev->name.p, mem, sizeof mem - 1) == 0) {
		/* Kineto's memory samples (profile_memory=True) */
		struct mem_sample m;
		m.ts = ev->ts;
		m.total_allocated = ev->have & SA_TOTAL_ALLOC ? ev->total_allocated : -1;
		m.total_reserved = ev->have & SA_TOTAL_RESERVED ? ev->total_reserved : -1;
		m.bytes = ev->have & SA_BYTES ? ev->bytes : -1;
		/* out of range: absent rather than wrapped into another device */
		m.device_type = ev->have & SA_DEVICE_TYPE && ev->device_type >= 0 && ev->device_type <= INT8_MAX
		                        ? (int8_t)ev->device_type
		                        : -1;
		m.device_id = ev->have & SA_DEVICE_ID && ev->device_id >= -1 && ev->device_id <= INT16_MAX
		                      ? (int16_t)ev->device_id
		                      : -1;
		m.flags = (ev->have & SA_ADDR ? MEM_HAS_ADDR : 0) | (ev->have & SA_BYTES ? MEM_HAS_BYTES : 0);
		m.track = TT_NONE; /* the builder sets it */
		builder_memory(cb->b, ev->pid.present ? track_of(cb, ev) : TT_NONE, &m);
		return;
	}
	uint32_t name = intern(cb, &ev->name);
	uint32_t cat = intern(cb, &ev->cat);
	uint32_t ti = TT_NONE;
	/* global and process instants belong to no thread */
	if (ev->pid.present && ev->scope != 'g' && ev->scope != 'p')
		ti = track_of(cb, ev);
	builder_instant(cb->b, ti, ev->ts, name, cat, ev->scope);
}

static void on_counter(struct chrome_build *cb, const struct scan_event *ev)
{
	uint32_t name = intern(cb, &ev->name);
	struct builder_id pid = id_of(cb, &ev->pid);

	for (unsigned k = 0; k < ev->ncounter; k++)
		builder_counter(cb->b, pid, name, intern(cb, &ev->counter_key[k]), ev->ts, ev->counter_value[k]);
}

static void on_flow(struct chrome_build *cb, const struct scan_event *ev)
{
	if (!ev->has_id) {
		builder_note(cb->b, Q_FLOW_UNBOUND, ev->offset, ev->ts, intern(cb, &ev->name), TT_NONE);
		return;
	}
	uint32_t ti = track_of(cb, ev);
	uint32_t cat = intern(cb, &ev->cat);
	enum builder_flow_point point = ev->ph == 's' ? FLOW_START : ev->ph == 't' ? FLOW_STEP : FLOW_FINISH;
	builder_flow(cb->b, ti, ev->ts, ev->id, cat, point);
}

static void on_metadata(struct chrome_build *cb, const struct scan_event *ev)
{
	struct builder *b = cb->b;
	const struct scan_str *n = &ev->name;

#define NAMEIS(lit) (n->len == sizeof(lit) - 1 && memcmp(n->p, lit, n->len) == 0)
	if (NAMEIS("thread_name") || NAMEIS("thread_sort_index")) {
		uint32_t ti = track_of(cb, ev);
		if (NAMEIS("thread_name") && (ev->have & SA_M_NAME))
			builder_track_name(b, ti, intern(cb, &ev->m_name), ev->offset, ev->ts);
		else if (ev->have & SA_M_SORT)
			builder_track_sort_index(b, ti, ev->m_sort_index);
		return;
	}
	struct builder_id pid = id_of(cb, &ev->pid);
	if (NAMEIS("process_name") && (ev->have & SA_M_NAME)) {
		uint32_t v = intern(cb, &ev->m_name);
		builder_process_name(b, builder_process(b, pid), v, ev->offset, ev->ts);
	} else if (NAMEIS("process_labels") && (ev->have & SA_M_LABELS)) {
		uint32_t v = intern(cb, &ev->m_labels);
		builder_process_labels(b, builder_process(b, pid), v, ev->offset, ev->ts);
	} else if (NAMEIS("process_sort_index") && (ev->have & SA_M_SORT)) {
		builder_process_sort_index(b, builder_process(b, pid), ev->m_sort_index);
	}
#undef NAMEIS
}

static void on_event(void *ctx, const struct scan_event *ev)
{
	struct chrome_build *cb = ctx;
	struct builder *b = cb->b;

	builder_source_event(b, ev->ph, ev->cat.len > 0);
	if (ev->ph == 0) {
		builder_note(b, Q_MISSING_PH, ev->offset, ev->ts, intern(cb, &ev->name), TT_NONE);
		return;
	}
	if (ev->ph != 'M' && (!ev->has_ts || ev->ts <= -BUILDER_TIME_LIMIT || ev->ts >= BUILDER_TIME_LIMIT)) {
		builder_note(b, Q_MISSING_TS, ev->offset, ev->ts, intern(cb, &ev->name), TT_NONE);
		return;
	}
	switch (ev->ph) {
	case 'X': on_slice(cb, ev); break;
	case 'B': on_begin(cb, ev); break;
	case 'E': on_end(cb, ev); break;
	case 'i':
	case 'I': on_instant(cb, ev); break;
	case 'C': on_counter(cb, ev); break;
	case 's':
	case 't':
	case 'f': on_flow(cb, ev); break;
	case 'M': on_metadata(cb, ev); break;
	case 'b':
	case 'e':
	case 'n': builder_count(b, Q_ASYNC, 1); break;
	case 'P': builder_count(b, Q_SAMPLE_SKIPPED, 1); break;
	default: builder_note(b, Q_UNKNOWN_PH, ev->offset, ev->ts, intern(cb, &ev->name), TT_NONE); break;
	}
}

/* ---- header keys ---------------------------------------------------------------------- */

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

static uint32_t json_string(struct builder *b, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? builder_string(b, v->valuestring, strlen(v->valuestring)) : 0;
}

/* "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, ...} */
static void header_distributed(struct builder *b, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	if (o == NULL) {
		builder_warn(b, "distributedInfo is not valid JSON: ignored");
		return;
	}
	if (cJSON_IsObject(o)) {
		int32_t rank = (int32_t)json_int(o, "rank", -1);
		int32_t world_size = (int32_t)json_int(o, "world_size", -1);
		builder_distributed(b, rank, world_size, json_string(b, o, "backend"));
	}
	cJSON_Delete(o);
}

/* "ttrace": {"recorder": "ttrace 0.1", "clock": "CLOCK_REALTIME", ...}: what ttrace record
 * says of the file */
static void header_ttrace(struct builder *b, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	if (o == NULL) {
		builder_warn(b, "the ttrace header is not valid JSON: ignored");
		return;
	}
	if (cJSON_IsObject(o))
		builder_clock(b, json_string(b, o, "clock"));
	cJSON_Delete(o);
}

/* "deviceProperties": [{"id": 0, "name": "NVIDIA A100...", "numSms": 108, ...}, ...] */
static void header_devices(struct builder *b, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	const cJSON *d;
	if (o == NULL) {
		builder_warn(b, "deviceProperties is not valid JSON: ignored");
		return;
	}
	if (cJSON_IsArray(o)) {
		int n = cJSON_GetArraySize(o);
		struct device_props *dev = xcalloc((size_t)n + 1, sizeof *dev);
		uint32_t ndev = 0;
		cJSON_ArrayForEach(d, o)
		{
			if (!cJSON_IsObject(d))
				continue;
			struct device_props *p = &dev[ndev++];
			p->id = (int32_t)json_int(d, "id", ndev - 1);
			p->name = json_string(b, d, "name");
			p->num_sms = (int32_t)json_int(d, "numSms", 0);
			p->max_threads_per_sm = (int32_t)json_int(d, "maxThreadsPerMultiprocessor", 0);
			p->compute_major = (int32_t)json_int(d, "computeMajor", 0);
			p->compute_minor = (int32_t)json_int(d, "computeMinor", 0);
			p->total_global_mem = json_int(d, "totalGlobalMem", 0);
		}
		builder_devices(b, dev, ndev); /* a repeated key: the last one wins */
		free(dev);
	}
	cJSON_Delete(o);
}

static void on_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct chrome_build *cb = ctx;
	struct builder *b = cb->b;
#define KEYIS(lit) (keylen == sizeof(lit) - 1 && memcmp(key, lit, keylen) == 0)
	if (json == NULL) {
		if (KEYIS("distributedInfo") || KEYIS("deviceProperties") || KEYIS("baseTimeNanoseconds"))
			builder_warn(b, "header key \"%s\" is %" PRIu64 " bytes: too large, ignored", key, len);
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
		if (end != p && errno == 0)
			builder_base_time(b, v);
		else
			builder_warn(b, "baseTimeNanoseconds %.40s is not an integer: ignored", json);
	} else if (KEYIS("distributedInfo")) {
		header_distributed(b, json);
	} else if (KEYIS("deviceProperties")) {
		header_devices(b, json);
	} else if (KEYIS("ttrace")) {
		header_ttrace(b, json);
	} else if (KEYIS("displayTimeUnit")) {
		size_t n = strlen(json);
		if (n >= 2 && json[0] == '"')
			builder_display_time_unit(b, builder_string(b, json + 1, n - 2));
	} else if (KEYIS("schemaVersion")) {
		builder_schema_version(b, atoi(json));
	}
#undef KEYIS
}

void chrome_build_sink(struct chrome_build *cb, struct scan_sink *sink)
{
	memset(sink, 0, sizeof *sink);
	sink->ctx = cb;
	sink->event = on_event;
	sink->header = on_header;
}

void chrome_build_add_stats(struct builder *b, const struct scan_stats *st)
{
	static const enum quality_kind map[SO__COUNT] = {
		[SO_MALFORMED_EVENT] = Q_MALFORMED_EVENT, [SO_CONTROL_CHAR] = Q_CONTROL_CHAR,
		[SO_BAD_ESCAPE] = Q_BAD_ESCAPE,           [SO_NONFINITE] = Q_NONFINITE,
		[SO_INT_OVERFLOW] = Q_INT_OVERFLOW,       [SO_NOT_OBJECT] = Q_NOT_OBJECT,
	};
	for (int i = 0; i < SO__COUNT; i++)
		builder_count(b, map[i], st->count[i]);
}
