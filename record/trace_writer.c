/* trace_writer.c: CUPTI activity records to Chrome trace events (see trace_writer.h).
 *
 * Layout, as Kineto writes it (libkineto/src/output_json.cpp):
 *  - host calls (cuda_runtime, cuda_driver), NVTX ranges (user_annotation), CUPTI overhead
 *    (overhead) on pid = the process, tid = the system thread id;
 *  - GPU work (kernel, gpu_memcpy, gpu_memset, cuda_sync) on pid = the device, tid = the
 *    stream; the device's process is labelled "GPU N", its streams "stream N";
 *  - an "ac2g" flow from each launching call ("s") to its GPU work ("f", bp "e"), by
 *    correlation id.
 * Times are microseconds from baseTimeNanoseconds with three decimals, written from
 * integer nanoseconds so that no precision is lost however long the run. */
#include "config.h"
#include "record/trace_writer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/buf.h"
#include "record/map64.h"
#include "record/occupancy.h"

struct named {
	uint64_t key; /* pid << 32 | tid; or (device + 1) << 32 | stream */
	char *name;
};

/* An NVTX range begun and not yet ended: CUPTI gives its start and its end as two
 * records with one id, possibly in different buffers. */
struct open_range {
	uint32_t id;
	uint64_t start;
	uint32_t pid, tid;
	char *name, *domain;
	struct annot *annot; /* made at its first launch */
};

/* The GPU work of an NVTX range, for its gpu_user_annotation spans (one per stream it
 * ran on, from its first GPU operation's start to its last one's end, as Kineto makes
 * them for record_function ranges). A launch made while the range is the innermost open
 * one on the launching thread counts as pending until its GPU record comes; the spans
 * are written when the range has ended and nothing is pending (or at the end, with
 * tw_flush_annotations). GPU work whose record comes before its launch's (another
 * buffer completed first) is not counted. */
struct span {
	uint32_t dev, stream;
	uint64_t start, end;
};

struct annot {
	char *name, *domain;
	bool ended;
	uint32_t pending;
	struct span *spans;
	size_t nspans;
	struct annot *prev, *next; /* all live ones */
};

/* The ranges open on one thread, innermost last. */
struct thread_ranges {
	uint64_t key; /* pid << 32 | tid */
	uint32_t *ids;
	size_t n, cap;
};

#define CORR_MAX (1u << 20) /* launches awaiting their GPU work at once, at most */

struct dev_info {
	bool seen;      /* work ran on it */
	bool occ_ready; /* occ is made from rec */
	struct occ_device occ;
	bool have_record;
	tw_device rec;
	char *name;
};

#define API_CACHE 4096

/* A kernel name, mangled, and what it demangles to (NULL: keep it as it is). */
struct demangled {
	char *mangled, *name;
	uint64_t hash;
};

struct tw {
	struct tw_options opt;
	char *process_name, *hostname;
	struct buf text;
	struct map64 threads; /* set of pid << 32 | tid of host threads named */
	struct map64 streams; /* set of (device + 1) << 32 | stream of streams named */
	struct named *thread_names, *stream_keys;
	size_t nthread_names, nstream_keys;
	struct dev_info *dev;
	unsigned ndev;
	uint32_t *ctx_dev; /* context id -> device + 1 (0: unknown) */
	size_t nctx;
	struct map64 ranges; /* NVTX id -> struct open_range (allocated) */
	uint64_t dropped;
	struct tw_stats st;
	/* names of runtime [0] and driver [1] calls by callback id, stripped; launch or not */
	char *api_name[2][API_CACHE];
	bool api_launch[2][API_CACHE];
	struct thread_ranges *tr;
	size_t ntr;
	struct map64 corr; /* correlation id -> the struct annot its launch was made in */
	struct annot *annots;
	uint64_t corr_full;
	/* kernel names: mangled -> demangled (NULL: keep as is) */
	struct demangled *dm;
	size_t dm_cap, dm_n;
};
/* clang-format on */

static char *dupstr(const char *s)
{
	if (s == NULL)
		return NULL;
	char *d = strdup(s);
	if (d == NULL)
		abort();
	return d;
}

static void annot_free(struct tw *w, struct annot *a);
static void range_free(struct open_range *r);

struct tw *tw_new(const struct tw_options *opt)
{
	struct tw *w = calloc(1, sizeof *w);
	if (w == NULL)
		abort();
	w->opt = *opt;
	w->process_name = dupstr(opt->process_name ? opt->process_name : "process");
	w->hostname = dupstr(opt->hostname ? opt->hostname : "");
	w->opt.process_name = w->process_name;
	w->opt.hostname = w->hostname;
	return w;
}

void tw_free(struct tw *w)
{
	if (w == NULL)
		return;
	free(w->text.p);
	free(w->threads.slot);
	free(w->streams.slot);
	for (size_t i = 0; i < w->nthread_names; i++)
		free(w->thread_names[i].name);
	free(w->thread_names);
	free(w->stream_keys);
	for (unsigned i = 0; i < w->ndev; i++)
		free(w->dev[i].name);
	free(w->dev);
	free(w->ctx_dev);
	for (size_t i = 0; i < w->ranges.cap; i++)
		if (w->ranges.slot[i].val != NULL)
			range_free(w->ranges.slot[i].val);
	free(w->ranges.slot);
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < API_CACHE; i++)
			free(w->api_name[d][i]);
	for (size_t i = 0; i < w->dm_cap; i++) {
		free(w->dm[i].mangled);
		free(w->dm[i].name);
	}
	free(w->dm);
	while (w->annots)
		annot_free(w, w->annots);
	for (size_t i = 0; i < w->ntr; i++)
		free(w->tr[i].ids);
	free(w->tr);
	free(w->corr.slot);
	free(w->process_name);
	free(w->hostname);
	free(w);
}

/* ---- times ------------------------------------------------------------------------- */

static int64_t host_ns(const struct tw *w, uint64_t cupti_ns) { return (int64_t)cupti_ns + w->opt.clock_offset_ns; }

static void note_time(struct tw *w, uint64_t start, uint64_t end)
{
	if (start == 0)
		return;
	uint64_t s = (uint64_t)host_ns(w, start), e = (uint64_t)host_ns(w, end > start ? end : start);
	if (w->st.first_ns == 0 || s < w->st.first_ns)
		w->st.first_ns = s;
	if (e > w->st.last_ns)
		w->st.last_ns = e;
}

/* NS as microseconds with three decimals: "12.345" */
static void put_us(struct buf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		BUF_LIT(b, "-");
	buf_u64(b, a / 1000);
	char f[4] = { '.', (char)('0' + a / 100 % 10), (char)('0' + a / 10 % 10), (char)('0' + a % 10) };
	buf_put(b, f, 4);
}

static void put_ts(struct tw *w, uint64_t cupti_ns)
{
	put_us(&w->text, host_ns(w, cupti_ns) - (int64_t)w->opt.base_ns);
}

static void put_dur(struct tw *w, uint64_t start, uint64_t end)
{
	put_us(&w->text, end > start ? (int64_t)(end - start) : 0);
}

/* ---- metadata ------------------------------------------------------------------------
 * Names of processes, threads and streams are written in the closing (tw_suffix), inside
 * the event array: each checkpoint's closing names everything seen so far, once, with
 * the latest name (an NVTX thread name given after the thread's first call wins), so that
 * no reader sees a thread renamed. */

static void named_add(struct named **v, size_t *n, uint64_t key, char *name)
{
	struct named *p = realloc(*v, (*n + 1) * sizeof **v);
	if (p == NULL)
		abort();
	p[*n].key = key;
	p[*n].name = name;
	*v = p;
	(*n)++;
}

static void see_thread(struct tw *w, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	if (!map64_put(&w->threads, key, SET_MEMBER))
		return;
	/* read now: the thread may be gone when the file is closed */
	named_add(&w->thread_names, &w->nthread_names, key, w->opt.thread_name ? w->opt.thread_name(pid, tid) : NULL);
}

static struct dev_info *dev_at(struct tw *w, uint32_t id);

static void see_gpu(struct tw *w, uint32_t dev)
{
	struct dev_info *d = dev_at(w, dev);
	if (d != NULL)
		d->seen = true;
}

static void see_stream(struct tw *w, uint32_t dev, uint32_t stream)
{
	see_gpu(w, dev);
	uint64_t key = ((uint64_t)dev + 1) << 32 | stream;
	if (map64_put(&w->streams, key, SET_MEMBER))
		named_add(&w->stream_keys, &w->nstream_keys, key, NULL);
}

static void meta_event(struct buf *b, const char *what, uint32_t pid, uint32_t tid, const char *key, const char *value)
{
	buf_printf(b,
	           ",\n{\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
	           ", \"args\": {\"%s\": ",
	           what, pid, tid, key);
	buf_json_string(b, value);
	buf_str(b, "}}");
}

static void meta_sort(struct buf *b, const char *what, uint32_t pid, uint32_t tid, long long v)
{
	buf_printf(b,
	           ",\n{\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
	           ", \"args\": {\"sort_index\": %lld}}",
	           what, pid, tid, v);
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct named *)a)->key, y = ((const struct named *)b)->key;
	return x < y ? -1 : x > y;
}

/* The metadata events of everything seen, in a stable order. */
static void put_metadata(struct tw *w, struct buf *b)
{
	if (w->nthread_names > 1)
		qsort(w->thread_names, w->nthread_names, sizeof *w->thread_names, key_cmp);
	for (size_t i = 0; i < w->nthread_names; i++) {
		uint32_t pid = (uint32_t)(w->thread_names[i].key >> 32), tid = (uint32_t)w->thread_names[i].key;
		char fallback[32];
		snprintf(fallback, sizeof fallback, "thread %" PRIu32, tid);
		meta_event(b, "thread_name", pid, tid, "name",
		           w->thread_names[i].name ? w->thread_names[i].name : fallback);
	}
	for (uint32_t dev = 0; dev < w->ndev; dev++) {
		if (!w->dev[dev].seen)
			continue;
		char label[32];
		snprintf(label, sizeof label, "GPU %" PRIu32, dev);
		meta_event(b, "process_name", dev, 0, "name", w->process_name);
		meta_event(b, "process_labels", dev, 0, "labels", label);
		meta_sort(b, "process_sort_index", dev, 0, 0x1000000LL + dev);
	}
	if (w->nstream_keys > 1)
		qsort(w->stream_keys, w->nstream_keys, sizeof *w->stream_keys, key_cmp);
	for (size_t i = 0; i < w->nstream_keys; i++) {
		uint32_t dev = (uint32_t)(w->stream_keys[i].key >> 32) - 1, stream = (uint32_t)w->stream_keys[i].key;
		char name[32];
		snprintf(name, sizeof name, "stream %" PRIu32, stream);
		meta_event(b, "thread_name", dev, stream, "name", name);
		meta_sort(b, "thread_sort_index", dev, stream, stream);
	}
}

/* ---- devices and contexts ------------------------------------------------------------ */

static struct dev_info *dev_at(struct tw *w, uint32_t id)
{
	if (id > 4096)
		return NULL; /* not a device number a record should carry */
	if (id >= w->ndev) {
		struct dev_info *d = realloc(w->dev, (id + 1) * sizeof *d);
		if (d == NULL)
			abort();
		memset(d + w->ndev, 0, (id + 1 - w->ndev) * sizeof *d);
		w->dev = d;
		w->ndev = id + 1;
	}
	return &w->dev[id];
}

static void note_context(struct tw *w, uint32_t ctx, uint32_t dev)
{
	if (ctx > (1u << 20))
		return;
	if (ctx >= w->nctx) {
		size_t n = ctx + 16;
		uint32_t *m = realloc(w->ctx_dev, n * sizeof *m);
		if (m == NULL)
			abort();
		memset(m + w->nctx, 0, (n - w->nctx) * sizeof *m);
		w->ctx_dev = m;
		w->nctx = n;
	}
	w->ctx_dev[ctx] = dev + 1;
}

/* The device a context runs on, or -1. */
static long context_device(const struct tw *w, uint32_t ctx)
{
	return ctx < w->nctx && w->ctx_dev[ctx] != 0 ? (long)w->ctx_dev[ctx] - 1 : -1;
}

/* The properties the occupancy calculator needs, from CUPTI's device record. CUPTI does
 * not give the opt-in shared memory per block nor the reserved shared memory: since
 * Ampere a block reserves 1 KB and may opt in to the rest of the SM's shared memory. */
static void occ_from_device(const tw_device *r, struct occ_device *d)
{
	memset(d, 0, sizeof *d);
	d->cc_major = (int)r->computeCapabilityMajor;
	d->cc_minor = (int)r->computeCapabilityMinor;
	d->max_threads_per_block = (int)r->maxThreadsPerBlock;
	d->max_threads_per_sm = (int)(r->maxWarpsPerMultiprocessor * r->numThreadsPerWarp);
	d->regs_per_block = (int)r->maxRegistersPerBlock;
	d->regs_per_sm = (int)r->maxRegistersPerMultiprocessor;
	d->warp_size = (int)r->numThreadsPerWarp;
	d->num_sms = (int)r->numMultiprocessors;
	d->max_blocks_per_sm = (int)r->maxBlocksPerMultiprocessor;
	d->shmem_per_block = (long)r->maxSharedMemoryPerBlock;
	d->shmem_per_sm = (long)r->maxSharedMemoryPerMultiprocessor;
	d->reserved_shmem_per_block = r->computeCapabilityMajor >= 8 ? 1024 : 0;
	d->shmem_per_block_optin = d->shmem_per_sm - d->reserved_shmem_per_block;
	if (d->shmem_per_block_optin < d->shmem_per_block)
		d->shmem_per_block_optin = d->shmem_per_block;
}

static void on_device(struct tw *w, const tw_device *r)
{
	struct dev_info *d = dev_at(w, r->id);
	if (d == NULL)
		return;
	free(d->name);
	d->rec = *r;
	d->name = dupstr(r->name);
	d->rec.name = NULL;
	d->have_record = true;
	d->occ_ready = false;
}

static void gpu_done(struct tw *w, uint32_t corr, uint32_t dev, uint32_t stream, uint64_t start, uint64_t end);
static void launch_in_range(struct tw *w, uint32_t pid, uint32_t tid, uint32_t corr, uint64_t ts);

/* ---- GPU work ------------------------------------------------------------------------ */

static void flow_end(struct tw *w, uint32_t corr, uint32_t dev, uint32_t stream, uint64_t start)
{
	if (w->opt.no_api || corr == 0)
		return;
	/* (the annotation's span is extended by the caller, gpu_done, which knows the end) */
	struct buf *b = &w->text;
	BUF_LIT(b, ",\n{\"ph\": \"f\", \"id\": ");
	buf_u64(b, corr);
	BUF_LIT(b, ", \"pid\": ");
	buf_u64(b, dev);
	BUF_LIT(b, ", \"tid\": ");
	buf_u64(b, stream);
	BUF_LIT(b, ", \"ts\": ");
	put_ts(w, start);
	buf_str(&w->text, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
}

static void gpu_event_head(struct tw *w, const char *cat, const char *name, uint32_t dev, uint32_t stream,
                           uint64_t start, uint64_t end)
{
	see_stream(w, dev, stream);
	note_time(w, start, end);
	struct buf *b = &w->text;
	BUF_LIT(b, ",\n{\"ph\": \"X\", \"cat\": \"");
	buf_str(b, cat);
	BUF_LIT(b, "\", \"name\": ");
	buf_json_string(b, name);
	BUF_LIT(b, ", \"pid\": ");
	buf_u64(b, dev);
	BUF_LIT(b, ", \"tid\": ");
	buf_u64(b, stream);
	BUF_LIT(b, ", \"ts\": ");
	put_ts(w, start);
	BUF_LIT(b, ", \"dur\": ");
	put_dur(w, start, end);
}

/* A kernel's name as written: demangled once per distinct name (a run has few). */
static const char *kernel_name(struct tw *w, const char *mangled)
{
	if (mangled == NULL)
		return "(unnamed kernel)";
	if (w->opt.demangle == NULL)
		return mangled;
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)mangled; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	if ((w->dm_n + 1) * 2 > w->dm_cap) {
		size_t cap = w->dm_cap ? w->dm_cap * 2 : 256;
		struct demangled *t = calloc(cap, sizeof *t);
		if (t == NULL)
			abort();
		for (size_t i = 0; i < w->dm_cap; i++)
			if (w->dm[i].mangled) {
				size_t j = w->dm[i].hash & (cap - 1);
				while (t[j].mangled)
					j = (j + 1) & (cap - 1);
				t[j] = w->dm[i];
			}
		free(w->dm);
		w->dm = t;
		w->dm_cap = cap;
	}
	size_t j = h & (w->dm_cap - 1);
	while (w->dm[j].mangled) {
		if (w->dm[j].hash == h && strcmp(w->dm[j].mangled, mangled) == 0)
			return w->dm[j].name ? w->dm[j].name : w->dm[j].mangled;
		j = (j + 1) & (w->dm_cap - 1);
	}
	w->dm[j].mangled = dupstr(mangled);
	w->dm[j].name = w->opt.demangle(mangled);
	w->dm[j].hash = h;
	w->dm_n++;
	return w->dm[j].name ? w->dm[j].name : w->dm[j].mangled;
}

static void on_kernel(struct tw *w, const tw_kernel *k)
{
	w->st.kernels++;
	gpu_event_head(w, "kernel", kernel_name(w, k->name), k->deviceId, k->streamId, k->start, k->end);
	struct buf *b = &w->text;
	BUF_LIT(b, ",\n  \"args\": {\"queued\": 0, \"device\": ");
	buf_u64(b, k->deviceId);
	BUF_LIT(b, ", \"context\": ");
	buf_u64(b, k->contextId);
	BUF_LIT(b, ", \"stream\": ");
	buf_u64(b, k->streamId);
	BUF_LIT(b, ", \"correlation\": ");
	buf_u64(b, k->correlationId);
	BUF_LIT(b, ", \"registers per thread\": ");
	buf_u64(b, k->registersPerThread);
	BUF_LIT(b, ", \"shared memory\": ");
	buf_i64(b, (int64_t)k->staticSharedMemory + k->dynamicSharedMemory);
	BUF_LIT(b, ", \"static shared memory\": ");
	buf_i64(b, k->staticSharedMemory);
	BUF_LIT(b, ", \"dynamic shared memory\": ");
	buf_i64(b, k->dynamicSharedMemory);
	struct dev_info *d = k->deviceId < w->ndev ? &w->dev[k->deviceId] : NULL;
	if (d != NULL && d->have_record && d->rec.numMultiprocessors > 0) {
		/* Kineto (DeviceProperties.cpp, CuptiActivity.cpp): blocks per SM = blocks / SMs and
		 * warps per SM = that x threads per block / 32, in float, printed with %f; est.
		 * achieved occupancy % = (int)(0.5 + the calculator's figure), left out when the
		 * calculator has none (Kineto writes -99 then). */
		float bps = occ_kineto_blocks_per_sm(k->gridX, k->gridY, k->gridZ, (int)d->rec.numMultiprocessors);
		float wps = occ_kineto_warps_per_sm(bps, k->blockX, k->blockY, k->blockZ);
		BUF_LIT(b, ", \"blocks per SM\": ");
		buf_fixed6(b, bps);
		BUF_LIT(b, ", \"warps per SM\": ");
		buf_fixed6(b, wps);
		if (!d->occ_ready) {
			occ_from_device(&d->rec, &d->occ);
			d->occ_ready = true;
		}
		double occ = occ_kineto_estimate(&d->occ, k->registersPerThread, k->staticSharedMemory,
		                                 k->dynamicSharedMemory, k->blockX, k->blockY, k->blockZ, bps);
		if (occ >= 0) {
			BUF_LIT(b, ", \"est. achieved occupancy %\": ");
			buf_i64(b, (int)(0.5 + occ));
		}
	}
	BUF_LIT(b, ", \"grid\": [");
	buf_i64(b, k->gridX);
	BUF_LIT(b, ", ");
	buf_i64(b, k->gridY);
	BUF_LIT(b, ", ");
	buf_i64(b, k->gridZ);
	BUF_LIT(b, "], \"block\": [");
	buf_i64(b, k->blockX);
	BUF_LIT(b, ", ");
	buf_i64(b, k->blockY);
	BUF_LIT(b, ", ");
	buf_i64(b, k->blockZ);
	BUF_LIT(b, "]}}");
	flow_end(w, k->correlationId, k->deviceId, k->streamId, k->start);
	gpu_done(w, k->correlationId, k->deviceId, k->streamId, k->start, k->end);
}

static const char *memcpy_kind(unsigned k)
{
	static const char *const names[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
		                             "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP" };
	return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

static const char *memory_kind(unsigned k)
{
	static const char *const names[] = { "Unknown", "Pageable", "Pinned",        "Device",
		                             "Array",   "Managed",  "Device Static", "Managed Static" };
	return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

static void put_bandwidth(struct tw *w, uint64_t bytes, uint64_t start, uint64_t end)
{
	/* Kineto: "memory bandwidth (GB/s)" = bytes / duration in ns (bytes per ns is GB/s) */
	if (end > start)
		buf_printf(&w->text, ", \"memory bandwidth (GB/s)\": %f", (double)bytes / (double)(end - start));
}

/* A memcpy or memset: the same args, Kineto's. */
static void copy_event(struct tw *w, const char *cat, const char *name, uint32_t dev, uint32_t ctx, uint32_t stream,
                       uint32_t corr, uint64_t bytes, uint64_t start, uint64_t end)
{
	gpu_event_head(w, cat, name, dev, stream, start, end);
	buf_printf(&w->text,
	           ",\n  \"args\": {\"device\": %" PRIu32 ", \"context\": %" PRIu32 ", \"stream\": %" PRIu32
	           ", \"correlation\": %" PRIu32 ", \"bytes\": %" PRIu64,
	           dev, ctx, stream, corr, bytes);
	put_bandwidth(w, bytes, start, end);
	buf_str(&w->text, "}}");
	flow_end(w, corr, dev, stream, start);
	gpu_done(w, corr, dev, stream, start, end);
}

static void on_memcpy(struct tw *w, const tw_memcpy *m)
{
	w->st.memcpys++;
	char name[96];
	snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", memcpy_kind(m->copyKind), memory_kind(m->srcKind),
	         memory_kind(m->dstKind));
	copy_event(w, "gpu_memcpy", name, m->deviceId, m->contextId, m->streamId, m->correlationId, m->bytes, m->start,
	           m->end);
}

static void on_memset(struct tw *w, const tw_memset *m)
{
	w->st.memsets++;
	char name[64];
	snprintf(name, sizeof name, "Memset (%s)", memory_kind(m->memoryKind));
	copy_event(w, "gpu_memset", name, m->deviceId, m->contextId, m->streamId, m->correlationId, m->bytes, m->start,
	           m->end);
}

static const char *sync_kind(unsigned t)
{
	switch (t) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "Event Sync";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "Stream Wait Event";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "Stream Sync";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "Context Sync";
	default: return "Unknown Sync";
	}
}

/* "not applicable" in a sync record: CUDA 11.8's headers define it as -1, later ones as
 * 0xFFFFFFFFU */
#define SYNC_NONE ((uint32_t)CUPTI_SYNCHRONIZATION_INVALID_VALUE)

/* A synchronisation goes on its stream's row, as Kineto puts it; a context or event sync
 * (no stream) on stream 0 of its device's row set. */
static void on_sync(struct tw *w, const tw_sync *s)
{
	w->st.syncs++;
	long dev = context_device(w, s->contextId);
	uint32_t stream = s->streamId == SYNC_NONE ? 0 : s->streamId;
	uint32_t d = dev < 0 ? 0 : (uint32_t)dev;
	gpu_event_head(w, "cuda_sync", sync_kind(s->type), d, stream, s->start, s->end);
	struct buf *b = &w->text;
	buf_printf(b,
	           ",\n  \"args\": {\"cuda_sync_kind\": \"%s\", \"stream\": %lld, \"correlation\": %" PRIu32
	           ", \"device\": %ld, \"context\": %" PRIu32 ", \"wait_on_cuda_event_id\": %lld}}",
	           sync_kind(s->type), s->streamId == SYNC_NONE ? -1LL : (long long)s->streamId, s->correlationId, dev,
	           s->contextId, s->cudaEventId == SYNC_NONE ? -1LL : (long long)s->cudaEventId);
}

/* ---- host calls -------------------------------------------------------------------- */

void tw_api_name(const char *cupti_name, char *out, size_t n)
{
	if (n == 0)
		return;
	snprintf(out, n, "%s", cupti_name ? cupti_name : "");
	char *v = strstr(out, "_v");
	/* "_v7000", "_v3020_ptds", "_ptsz": the version and stream-mode suffixes */
	while (v != NULL) {
		if (v[2] >= '0' && v[2] <= '9') {
			*v = '\0';
			break;
		}
		v = strstr(v + 2, "_v");
	}
	size_t l = strlen(out);
	if (l > 5 && (strcmp(out + l - 5, "_ptsz") == 0 || strcmp(out + l - 5, "_ptds") == 0))
		out[l - 5] = '\0';
}

bool tw_is_launch(const char *name)
{
	static const char *const prefixes[] = { "cudaLaunch", "cuLaunch", "cudaMemcpy",      "cuMemcpy",
		                                "cudaMemset", "cuMemset", "cudaGraphLaunch", "cuGraphLaunch" };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static void on_api(struct tw *w, const CUpti_ActivityAPI *a, bool driver)
{
	w->st.api_calls++;
	if (w->opt.no_api)
		return;
	char tmp[128];
	const char *name;
	bool launch;
	int d = driver;
	char **cached = a->cbid < API_CACHE ? &w->api_name[d][a->cbid] : NULL;
	if (cached && *cached) {
		name = *cached;
		launch = w->api_launch[d][a->cbid];
	} else {
		const char *raw = w->opt.callback_name ? w->opt.callback_name(driver ? CUPTI_CB_DOMAIN_DRIVER_API
		                                                                     : CUPTI_CB_DOMAIN_RUNTIME_API,
		                                                              a->cbid)
		                                       : NULL;
		if (raw != NULL)
			tw_api_name(raw, tmp, sizeof tmp);
		else
			snprintf(tmp, sizeof tmp, "%s %u", driver ? "driver call" : "runtime call", (unsigned)a->cbid);
		name = tmp;
		launch = tw_is_launch(tmp);
		if (cached) {
			*cached = dupstr(tmp);
			w->api_launch[d][a->cbid] = launch;
			name = *cached;
		}
	}
	struct buf *b = &w->text;
	see_thread(w, a->processId, a->threadId);
	note_time(w, a->start, a->end);
	if (driver)
		BUF_LIT(b, ",\n{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": ");
	else
		BUF_LIT(b, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": ");
	buf_json_string(b, name);
	BUF_LIT(b, ", \"pid\": ");
	buf_u64(b, a->processId);
	BUF_LIT(b, ", \"tid\": ");
	buf_u64(b, a->threadId);
	BUF_LIT(b, ", \"ts\": ");
	put_ts(w, a->start);
	BUF_LIT(b, ", \"dur\": ");
	put_dur(w, a->start, a->end);
	BUF_LIT(b, ",\n  \"args\": {\"cbid\": ");
	buf_u64(b, a->cbid);
	BUF_LIT(b, ", \"correlation\": ");
	buf_u64(b, a->correlationId);
	BUF_LIT(b, "}}");
	if (a->correlationId != 0 && launch) {
		BUF_LIT(b, ",\n{\"ph\": \"s\", \"id\": ");
		buf_u64(b, a->correlationId);
		BUF_LIT(b, ", \"pid\": ");
		buf_u64(b, a->processId);
		BUF_LIT(b, ", \"tid\": ");
		buf_u64(b, a->threadId);
		BUF_LIT(b, ", \"ts\": ");
		put_ts(w, a->start);
		BUF_LIT(b, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
	}
	if (a->correlationId != 0 && launch)
		launch_in_range(w, a->processId, a->threadId, a->correlationId, a->start);
}

static void marker_thread(const struct tw *w, const tw_marker *m, uint32_t *pid, uint32_t *tid)
{
	if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
		*pid = m->objectId.pt.processId;
		*tid = m->objectId.pt.threadId;
	} else {
		*pid = w->opt.pid;
		*tid = 0;
	}
}

static void range_free(struct open_range *r)
{
	free(r->name);
	free(r->domain);
	free(r);
}

/* ---- GPU annotations (see struct annot) ------------------------------------------------ */

static struct thread_ranges *thread_ranges(struct tw *w, uint64_t key, bool create)
{
	for (size_t i = 0; i < w->ntr; i++)
		if (w->tr[i].key == key)
			return &w->tr[i];
	if (!create)
		return NULL;
	struct thread_ranges *t = realloc(w->tr, (w->ntr + 1) * sizeof *t);
	if (t == NULL)
		abort();
	w->tr = t;
	t = &w->tr[w->ntr++];
	memset(t, 0, sizeof *t);
	t->key = key;
	return t;
}

static void ranges_push(struct tw *w, uint64_t key, uint32_t id)
{
	struct thread_ranges *t = thread_ranges(w, key, true);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->ids = realloc(t->ids, t->cap * sizeof *t->ids);
		if (t->ids == NULL)
			abort();
	}
	t->ids[t->n++] = id;
}

static void ranges_remove(struct tw *w, uint64_t key, uint32_t id)
{
	struct thread_ranges *t = thread_ranges(w, key, false);
	if (t == NULL)
		return;
	for (size_t i = t->n; i-- > 0;)
		if (t->ids[i] == id) {
			memmove(t->ids + i, t->ids + i + 1, (t->n - i - 1) * sizeof *t->ids);
			t->n--;
			return;
		}
}

static bool corr_put(struct tw *w, uint32_t corr, struct annot *a)
{
	if (w->corr.n >= CORR_MAX) {
		w->corr_full++;
		return false;
	}
	return map64_put(&w->corr, corr, a);
}

static void annot_free(struct tw *w, struct annot *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		w->annots = a->next;
	if (a->next)
		a->next->prev = a->prev;
	free(a->name);
	free(a->domain);
	free(a->spans);
	free(a);
}

static void annot_emit(struct tw *w, struct annot *a)
{
	struct buf *b = &w->text;
	for (size_t i = 0; i < a->nspans; i++) {
		const struct span *p = &a->spans[i];
		gpu_event_head(w, "gpu_user_annotation", a->name, p->dev, p->stream, p->start, p->end);
		if (a->domain != NULL && *a->domain) {
			BUF_LIT(b, ",\n  \"args\": {\"domain\": ");
			buf_json_string(b, a->domain);
			BUF_LIT(b, "}");
		}
		BUF_LIT(b, "}");
	}
}

/* A range is over when it has ended and its GPU work has all come. */
static void annot_check(struct tw *w, struct annot *a)
{
	if (a->ended && a->pending == 0) {
		annot_emit(w, a);
		annot_free(w, a);
	}
}

static void launch_in_range(struct tw *w, uint32_t pid, uint32_t tid, uint32_t corr, uint64_t ts)
{
	struct thread_ranges *t = thread_ranges(w, (uint64_t)pid << 32 | tid, false);
	if (t == NULL)
		return;
	for (size_t i = t->n; i-- > 0;) {
		struct open_range *r = map64_get(&w->ranges, t->ids[i]);
		if (r == NULL || r->start > ts)
			continue;
		if (r->annot == NULL) {
			struct annot *a = calloc(1, sizeof *a);
			if (a == NULL)
				abort();
			a->name = dupstr(r->name);
			a->domain = dupstr(r->domain);
			a->next = w->annots;
			if (w->annots)
				w->annots->prev = a;
			w->annots = a;
			r->annot = a;
		}
		if (corr_put(w, corr, r->annot))
			r->annot->pending++;
		return;
	}
}

static void gpu_done(struct tw *w, uint32_t corr, uint32_t dev, uint32_t stream, uint64_t start, uint64_t end)
{
	struct annot *a = map64_take(&w->corr, corr);
	if (a == NULL)
		return;
	a->pending--;
	size_t i = 0;
	while (i < a->nspans && (a->spans[i].dev != dev || a->spans[i].stream != stream))
		i++;
	if (i == a->nspans) {
		a->spans = realloc(a->spans, (a->nspans + 1) * sizeof *a->spans);
		if (a->spans == NULL)
			abort();
		a->spans[a->nspans++] = (struct span){ dev, stream, start, end };
	} else {
		if (start < a->spans[i].start)
			a->spans[i].start = start;
		if (end > a->spans[i].end)
			a->spans[i].end = end;
	}
	annot_check(w, a);
}

void tw_flush_annotations(struct tw *w)
{
	struct annot *a = w->annots;
	while (a != NULL) {
		struct annot *next = a->next;
		if (a->ended) {
			annot_emit(w, a);
			annot_free(w, a);
		}
		a = next;
	}
}

static void annotation_event(struct tw *w, const char *name, const char *domain, uint32_t pid, uint32_t tid,
                             uint64_t start, uint64_t end, bool instant)
{
	see_thread(w, pid, tid);
	note_time(w, start, end);
	struct buf *b = &w->text;
	buf_printf(b, ",\n{\"ph\": \"%s\", \"cat\": \"user_annotation\", \"name\": ", instant ? "i" : "X");
	buf_json_string(b, name);
	buf_printf(b, ", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"ts\": ", pid, tid);
	put_ts(w, start);
	if (instant) {
		buf_str(b, ", \"s\": \"t\"");
	} else {
		buf_str(b, ", \"dur\": ");
		put_dur(w, start, end);
	}
	if (domain != NULL && *domain) {
		buf_str(b, ",\n  \"args\": {\"domain\": ");
		buf_json_string(b, domain);
		buf_str(b, "}");
	}
	buf_str(b, "}");
}

/* The range R is over (its end came, or its id was given to another): its GPU span
 * can be written once its GPU work has come. */
static void range_over(struct tw *w, struct open_range *r)
{
	ranges_remove(w, (uint64_t)r->pid << 32 | r->tid, r->id);
	if (r->annot) {
		r->annot->ended = true;
		annot_check(w, r->annot);
	}
	range_free(r);
}

static void on_marker(struct tw *w, const tw_marker *m)
{
	uint32_t pid, tid;
	marker_thread(w, m, &pid, &tid);
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		w->st.markers++;
		annotation_event(w, m->name ? m->name : "(mark)", m->domain, pid, tid, m->timestamp, m->timestamp,
		                 true);
	} else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		struct open_range *old = map64_take(&w->ranges, m->id);
		if (old != NULL) /* an id reused before its end came: the first range is lost */
			range_over(w, old);
		struct open_range *r = calloc(1, sizeof *r);
		if (r == NULL)
			abort();
		r->id = m->id;
		r->start = m->timestamp;
		r->pid = pid;
		r->tid = tid;
		r->name = dupstr(m->name ? m->name : "(range)");
		r->domain = dupstr(m->domain);
		map64_put(&w->ranges, m->id, r);
		ranges_push(w, (uint64_t)pid << 32 | tid, m->id);
	} else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		struct open_range *r = map64_take(&w->ranges, m->id);
		if (r == NULL)
			return; /* its start came before recording began */
		w->st.markers++;
		annotation_event(w, r->name, r->domain, r->pid, r->tid, r->start, m->timestamp, false);
		range_over(w, r);
	}
}

/* ---- the rest ------------------------------------------------------------------------ */

static const char *overhead_kind(unsigned k)
{
	switch (k) {
	case 1: return "Driver Compiler";
	case 1u << 16: return "CUPTI Buffer Flush";
	case 2u << 16: return "CUPTI Instrumentation";
	case 3u << 16: return "CUPTI Resource";
	case 4u << 16: return "Runtime Triggered Module Loading";
	case 5u << 16: return "Lazy Function Loading";
	case 6u << 16: return "Command Buffer Full";
	case 7u << 16: return "Activity Buffer Request";
	case 8u << 16: return "UVM Activity Init";
	default: return "Unknown Overhead";
	}
}

static void on_overhead(struct tw *w, const tw_overhead *o)
{
	w->st.overheads++;
	uint32_t pid = w->opt.pid, tid = 0;
	if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
		pid = o->objectId.pt.processId;
		tid = o->objectId.pt.threadId;
	}
	see_thread(w, pid, tid);
	note_time(w, o->start, o->end);
	struct buf *b = &w->text;
	buf_printf(b,
	           ",\n{\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"%s\", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
	           ", \"ts\": ",
	           overhead_kind((unsigned)o->overheadKind), pid, tid);
	put_ts(w, o->start);
	buf_str(b, ", \"dur\": ");
	put_dur(w, o->start, o->end);
	buf_str(b, "}");
}

/* nvtxNameOsThread: a thread's name, which wins over the system's. */
static void on_name(struct tw *w, const CUpti_ActivityName *n)
{
	if (n->objectKind != CUPTI_ACTIVITY_OBJECT_THREAD || n->name == NULL)
		return;
	uint32_t pid = n->objectId.pt.processId, tid = n->objectId.pt.threadId;
	see_thread(w, pid, tid);
	uint64_t key = (uint64_t)pid << 32 | tid;
	for (size_t i = 0; i < w->nthread_names; i++)
		if (w->thread_names[i].key == key) {
			free(w->thread_names[i].name);
			w->thread_names[i].name = dupstr(n->name);
		}
}

void tw_record(struct tw *w, const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: on_kernel(w, (const tw_kernel *)rec); break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: on_memcpy(w, (const tw_memcpy *)rec); break;
	case CUPTI_ACTIVITY_KIND_MEMSET: on_memset(w, (const tw_memset *)rec); break;
	case CUPTI_ACTIVITY_KIND_RUNTIME: on_api(w, (const CUpti_ActivityAPI *)rec, false); break;
	case CUPTI_ACTIVITY_KIND_DRIVER: on_api(w, (const CUpti_ActivityAPI *)rec, true); break;
	case CUPTI_ACTIVITY_KIND_MARKER: on_marker(w, (const tw_marker *)rec); break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: on_sync(w, (const tw_sync *)rec); break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD: on_overhead(w, (const tw_overhead *)rec); break;
	case CUPTI_ACTIVITY_KIND_DEVICE: on_device(w, (const tw_device *)rec); break;
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		const tw_context *c = (const tw_context *)rec;
		note_context(w, c->contextId, c->deviceId);
		break;
	}
	case CUPTI_ACTIVITY_KIND_NAME: on_name(w, (const CUpti_ActivityName *)rec); break;
	default: w->st.unknown++; break;
	}
}

void tw_set_dropped(struct tw *w, uint64_t dropped) { w->dropped = dropped; }

const char *tw_take(struct tw *w, size_t *len)
{
	buf_reserve(&w->text, 0);
	*len = w->text.n;
	w->text.n = 0; /* the bytes stay valid until the next append */
	return w->text.p;
}

char *tw_prefix(struct tw *w, size_t *len)
{
	struct buf b = { 0 };
	buf_printf(&b, "{\n  \"schemaVersion\": 1,\n  \"baseTimeNanoseconds\": %" PRIu64 ",\n", w->opt.base_ns);
	if (w->opt.rank >= 0) {
		buf_printf(&b, "  \"distributedInfo\": {\"rank\": %d", w->opt.rank);
		if (w->opt.world_size > 0)
			buf_printf(&b, ", \"world_size\": %d", w->opt.world_size);
		if (w->opt.local_rank >= 0)
			buf_printf(&b, ", \"local_rank\": %d", w->opt.local_rank);
		buf_str(&b, "},\n");
	}
	buf_str(&b, "  \"traceName\": ");
	char tn[512];
	snprintf(tn, sizeof tn, "%s.%" PRIu32, w->hostname, w->opt.pid);
	buf_json_string(&b, tn);
	buf_printf(
		&b,
		",\n  \"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %" PRIu32
		", \"tid\": 0, \"args\": {\"name\": ",
		w->opt.pid);
	buf_json_string(&b, w->process_name);
	buf_str(&b, "}}");
	buf_printf(&b,
	           ",\n{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %" PRIu32
	           ", \"tid\": 0, \"args\": {\"labels\": \"CPU\"}}",
	           w->opt.pid);
	*len = b.n;
	return b.p;
}

char *tw_suffix(struct tw *w, size_t *len)
{
	struct buf b = { 0 };
	put_metadata(w, &b);
	buf_str(&b, "\n  ],\n  \"deviceProperties\": [");
	bool first = true;
	for (unsigned i = 0; i < w->ndev; i++) {
		const struct dev_info *d = &w->dev[i];
		if (!d->have_record)
			continue;
		const tw_device *r = &d->rec;
		struct occ_device od;
		occ_from_device(r, &od);
		buf_printf(&b, "%s\n    {\"id\": %u, \"name\": ", first ? "" : ",", i);
		buf_json_string(&b, d->name);
		buf_printf(&b,
		           ", \"totalGlobalMem\": %" PRIu64 ", \"computeMajor\": %u, \"computeMinor\": %u, "
		           "\"maxThreadsPerBlock\": %u, \"maxThreadsPerMultiprocessor\": %d, \"regsPerBlock\": %u, "
		           "\"regsPerMultiprocessor\": %u, \"warpSize\": %u, \"sharedMemPerBlock\": %u, "
		           "\"sharedMemPerMultiprocessor\": %u, \"numSms\": %u, \"sharedMemPerBlockOptin\": %ld}",
		           (uint64_t)r->globalMemorySize, (unsigned)r->computeCapabilityMajor,
		           (unsigned)r->computeCapabilityMinor, (unsigned)r->maxThreadsPerBlock, od.max_threads_per_sm,
		           (unsigned)r->maxRegistersPerBlock, (unsigned)r->maxRegistersPerMultiprocessor,
		           (unsigned)r->numThreadsPerWarp, (unsigned)r->maxSharedMemoryPerBlock,
		           (unsigned)r->maxSharedMemoryPerMultiprocessor, (unsigned)r->numMultiprocessors,
		           od.shmem_per_block_optin);
		first = false;
	}
	buf_str(&b, first ? "],\n" : "\n  ],\n");
	buf_printf(&b,
	           "  \"ttrace\": {\"recorder\": \"%s\", \"clock\": \"CLOCK_REALTIME\", \"cupti_api_version\": %d, "
	           "\"dropped_records\": %" PRIu64 ", \"open_nvtx_ranges\": %zu}\n}\n",
	           PACKAGE_STRING, (int)CUPTI_API_VERSION, w->dropped, w->ranges.n);
	*len = b.n;
	return b.p;
}

void tw_stats(const struct tw *w, struct tw_stats *out)
{
	*out = w->st;
	out->open_ranges = w->ranges.n;
	unsigned n = 0;
	for (unsigned i = 0; i < w->ndev; i++)
		n += w->dev[i].have_record || w->dev[i].seen;
	out->devices = n;
}
