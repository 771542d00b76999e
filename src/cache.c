/* cache.c: writes a loaded model to one file and maps it back (the format is described in
 * src/cache.h).
 *
 * Writing streams each section through a buffer of one checksum block (CACHE_BLOCK), so a
 * section's checksum is known when its last byte is written and the header goes in last.
 * Reading checks, in order: the header and section table (cheap, refuses stale files),
 * the checksums of every block of every section (the bulk of the time: every page of the
 * file is read once), then, building the trace, every stored index against the sizes it
 * indexes. */
#include "src/cache.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "lib/test_knobs.h"
#include "lib/checksum.h"
#include "lib/map_guard.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "src/index.h"
#include "src/builder.h"

#define CACHE_MAGIC "TTRCACHE"
#define CACHE_BLOCK ((size_t)1 << 20)
#define CACHE_ALIGN 64
#define HEADER_BYTES 4096u
#define ENDIAN_MARK 0x0102030405060708ull
/* files smaller than this are checksummed on the reading thread alone */
#define PARALLEL_MIN ((size_t)8 << 20)
#define MAX_VERIFY_THREADS 8

enum section_kind {
	S_META, S_TEXT, S_WARN_TAGS,
	S_STR_LEN, S_STR_HASH, S_STR_SLOTS, S_STR_BYTES,
	S_TRACKS, S_SLICES, S_SLICE_GPU, S_SLICE_ARGS, S_LONG_DURS, S_CATS, S_ROWS, S_ROW_IDX, S_ROW_SUM, S_ROW_MAX,
	S_RT_FIRST, S_RT_N, S_RT_SPANS, S_BUSY, S_BUSY_SUM,
	S_PROCESSES, S_DEVICES, S_GPU, S_GPU_PLACES, S_WIDE_IDS, S_GPU_BYTES, S_LAUNCHES, S_ASIDE, S_FLOWS, S_INSTANTS, S_MEM, S_FLOPS, S_COMM,
	S_COUNTERS, S_COUNTER_TS, S_COUNTER_VAL, S_STEPS, S_ARGS,
	S__COUNT
};

struct section {
	uint32_t kind, elem;       /* elem: bytes per element */
	uint64_t offset, length;   /* in the file */
	uint64_t check;            /* checksum64 of the blocks' checksums */
};

struct header {
	char magic[8];
	uint32_t format, header_bytes;
	uint64_t endian;
	uint64_t layout;           /* checksum of the stored structs' sizes and offsets */
	char version[32];          /* PACKAGE_VERSION */
	uint8_t build[32];         /* the program's build id (or version and build date) */
	uint32_t build_len, nsections;
	struct cache_key key;
	uint64_t file_bytes;       /* the whole cache file */
	struct section sections[S__COUNT];
	uint64_t check;            /* checksum64 of the header up to here */
};

/* The trace's scalar fields. */
struct meta {
	uint64_t bytes, file_bytes, events, async_events;
	uint64_t count_by_ph[128];
	int64_t base_ns, start, end;
	uint64_t seed;             /* the string table's slot hash seed */
	uint64_t str_bytes;
	int32_t rank, world_size, schema_version;
	uint32_t status, backend, display_time_unit, nwarnings, nslots;
	uint8_t has_base, legacy, shared_launch, has_error;
	struct quality quality;
};

struct ctrack {
	int64_t pid, tid, stream, sort_index, busy_total;
	uint32_t kind, name, process, events, nslices, nlong, nbusy, gpu_slices, comm_kernels, rt_leaves, rt_nspans;
	int32_t device;
	uint16_t nrows, annotation_rows;
	uint8_t pid_is_str, tid_is_str, named, nested, has_gpu, has_args;
};

struct crow {
	int64_t max_dur;
	uint32_t n, has_max_tree;
};

struct ccounter {
	int64_t pid;
	uint32_t name, key, n, pid_is_str;
};

static const uint32_t elem_size[S__COUNT] = {
	[S_META] = sizeof(struct meta), [S_TEXT] = 1, [S_WARN_TAGS] = sizeof(struct warning_tag),
	[S_STR_LEN] = sizeof(uint32_t), [S_STR_HASH] = sizeof(uint64_t), [S_STR_SLOTS] = sizeof(uint32_t),
	[S_STR_BYTES] = 1, [S_TRACKS] = sizeof(struct ctrack), [S_SLICES] = sizeof(struct slice),
	[S_SLICE_GPU] = sizeof(uint32_t), [S_SLICE_ARGS] = sizeof(uint64_t),
	[S_LONG_DURS] = sizeof(struct long_dur), [S_CATS] = sizeof(uint32_t),
	[S_ROWS] = sizeof(struct crow), [S_ROW_IDX] = sizeof(uint32_t), [S_ROW_SUM] = sizeof(int64_t),
	[S_ROW_MAX] = sizeof(uint32_t), [S_RT_FIRST] = sizeof(uint32_t), [S_RT_N] = sizeof(uint32_t),
	[S_RT_SPANS] = sizeof(struct span), [S_BUSY] = sizeof(struct span), [S_BUSY_SUM] = sizeof(int64_t),
	[S_PROCESSES] = sizeof(struct process), [S_DEVICES] = sizeof(struct device_props),
	[S_GPU] = sizeof(struct gpu_info), [S_GPU_PLACES] = sizeof(struct gpu_place),
	[S_WIDE_IDS] = sizeof(int64_t), [S_GPU_BYTES] = sizeof(struct gpu_bytes), [S_LAUNCHES] = sizeof(struct kernel_launch),
	[S_ASIDE] = sizeof(struct aside_slice), [S_FLOWS] = sizeof(struct flow),
	[S_INSTANTS] = sizeof(struct instant), [S_MEM] = sizeof(struct mem_sample),
	[S_FLOPS] = sizeof(struct flop_count), [S_COMM] = sizeof(struct comm_op),
	[S_COUNTERS] = sizeof(struct ccounter), [S_COUNTER_TS] = sizeof(int64_t), [S_COUNTER_VAL] = sizeof(double),
	[S_STEPS] = sizeof(struct step), [S_ARGS] = 1,
};

/* A checksum of the sizes and member offsets of everything stored as it is in memory: a
 * build whose structs differ refuses the file. */
static uint64_t layout_hash(void)
{
	static const uint64_t v[] = {
		sizeof(struct slice), offsetof(struct slice, dur32), offsetof(struct slice, name), sizeof(struct long_dur),
		sizeof(struct aside_slice),
		offsetof(struct slice, depth), offsetof(struct slice, cat_ix), TRACE_MAX_CATS,
		sizeof(struct gpu_info), offsetof(struct gpu_info, place), offsetof(struct gpu_info, launch),
		sizeof(struct gpu_place), offsetof(struct gpu_place, pg), sizeof(struct gpu_bytes),
		sizeof(struct kernel_launch), offsetof(struct kernel_launch, blocks_per_sm), offsetof(struct kernel_launch, smem),
		offsetof(struct gpu_info, ext_code), offsetof(struct gpu_info, self), offsetof(struct gpu_info, peer),
		sizeof(struct span), sizeof(struct warning_tag), sizeof(struct process), offsetof(struct process, name),
		offsetof(struct process, sort_index), sizeof(struct device_props), offsetof(struct device_props, total_global_mem),
		sizeof(struct flow), offsetof(struct flow, from), offsetof(struct flow, ts_from),
		sizeof(struct instant), offsetof(struct instant, name), offsetof(struct instant, scope),
		sizeof(struct mem_sample), offsetof(struct mem_sample, track), offsetof(struct mem_sample, flags),
		sizeof(struct flop_count), sizeof(struct comm_op), offsetof(struct comm_op, cat), sizeof(struct step),
		offsetof(struct step, ref), offsetof(struct step, gpu), sizeof(struct quality), Q__COUNT,
		QUALITY_EXAMPLES, SC__COUNT, ROW_BLOCK, sizeof(struct meta), sizeof(struct ctrack), sizeof(struct crow),
		sizeof(struct ccounter), sizeof(struct header), S__COUNT, CACHE_BLOCK,
	};
	return checksum64(v, sizeof v, 0);
}

/* ---- the program's identity ------------------------------------------------------------ */

static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct header *h = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
			    n->n_descsz > 0 && n->n_descsz <= sizeof h->build) {
				memcpy(h->build, desc, n->n_descsz);
				h->build_len = n->n_descsz;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the program: stop there */
}

/* Fills H's build identity: the program's GNU build id, which changes with every build, or,
 * for a program linked without one, the version and the date this file was compiled. */
static void set_build(struct header *h)
{
	memset(h->build, 0, sizeof h->build);
	h->build_len = 0;
	dl_iterate_phdr(build_id_cb, h);
	if (h->build_len == 0) {
		uint64_t v = checksum64(__DATE__ " " __TIME__ " " PACKAGE_VERSION, sizeof(__DATE__ " " __TIME__ " " PACKAGE_VERSION), 1);
		memcpy(h->build, &v, sizeof v);
		h->build_len = sizeof v;
	}
}

static void fill_header_id(struct header *h, const struct cache_key *key)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, CACHE_MAGIC, 8);
	h->format = CACHE_FORMAT_VERSION;
	h->header_bytes = HEADER_BYTES;
	h->endian = ENDIAN_MARK;
	h->layout = layout_hash();
	snprintf(h->version, sizeof h->version, "%s", PACKAGE_VERSION);
	set_build(h);
	h->key = *key;
}

/* ---- writing --------------------------------------------------------------------------- */

struct writer {
	int fd;
	char *block;               /* the current section's block being filled */
	size_t fill;
	uint64_t off;              /* file bytes written */
	uint64_t *sums;            /* checksums of the current section's full blocks */
	uint32_t nsums, sums_cap;
	struct header *h;
	int err;                   /* errno of the first failed write, or 0 */
};

static void write_all(struct writer *w, const void *p, size_t n)
{
	const char *q = p;
	while (n > 0 && w->err == 0) {
		ssize_t k = write(w->fd, q, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? errno : ENOSPC;
			return;
		}
		q += k;
		n -= (size_t)k;
		w->off += (uint64_t)k;
	}
}

static void flush_block(struct writer *w)
{
	if (w->fill == 0)
		return;
	if (w->nsums == w->sums_cap)
		w->sums = xreallocarray(w->sums, w->sums_cap = w->sums_cap ? w->sums_cap * 2 : 64, sizeof *w->sums);
	w->sums[w->nsums] = checksum64(w->block, w->fill, w->nsums);
	w->nsums++;
	write_all(w, w->block, w->fill);
	w->fill = 0;
}

static void put(struct writer *w, const void *p, size_t n)
{
	const char *q = p;
	while (n > 0) {
		size_t k = CACHE_BLOCK - w->fill < n ? CACHE_BLOCK - w->fill : n;
		memcpy(w->block + w->fill, q, k);
		w->fill += k;
		q += k;
		n -= k;
		if (w->fill == CACHE_BLOCK)
			flush_block(w);
	}
}

static void begin(struct writer *w, enum section_kind kind)
{
	static const char zeros[CACHE_ALIGN];
	if (w->off % CACHE_ALIGN != 0)
		write_all(w, zeros, CACHE_ALIGN - w->off % CACHE_ALIGN);
	w->h->sections[kind].kind = kind;
	w->h->sections[kind].elem = elem_size[kind];
	w->h->sections[kind].offset = w->off;
	w->nsums = 0;
}

static void end(struct writer *w, enum section_kind kind)
{
	flush_block(w);
	w->h->sections[kind].length = w->off - w->h->sections[kind].offset;
	w->h->sections[kind].check = checksum64(w->sums, w->nsums * sizeof *w->sums, kind);
}

/* A section that is one array as it is in memory. */
static void put_array(struct writer *w, enum section_kind kind, const void *p, size_t n)
{
	begin(w, kind);
	if (n > 0)
		put(w, p, n * elem_size[kind]);
	end(w, kind);
}

int cache_write(int fd, const struct trace *t, const struct cache_key *key, const void *args, size_t args_len,
                char **cause)
{
	struct header *h = xcalloc(1, HEADER_BYTES);
	struct writer w = { .fd = fd, .block = xmalloc(CACHE_BLOCK), .h = h };
	const struct strtab *st = &t->strings;
	struct meta m;
	int rc = 0;

	BUG_ON(sizeof *h > HEADER_BYTES);
	fill_header_id(h, key);
	h->nsections = S__COUNT;
	write_all(&w, h, HEADER_BYTES); /* a placeholder: the real header goes in last */

	memset(&m, 0, sizeof m);
	m.bytes = t->bytes;
	m.file_bytes = t->file_bytes;
	m.events = t->events;
	m.async_events = t->async_events;
	memcpy(m.count_by_ph, t->count_by_ph, sizeof m.count_by_ph);
	m.base_ns = t->base_ns;
	m.start = t->start;
	m.end = t->end;
	m.seed = st->seed;
	m.str_bytes = 0;
	for (uint32_t i = 0; i < st->n; i++)
		m.str_bytes += (uint64_t)st->len[i] + 1;
	m.rank = t->rank;
	m.world_size = t->world_size;
	m.schema_version = t->schema_version;
	m.status = t->status;
	m.backend = t->backend;
	m.display_time_unit = t->display_time_unit;
	m.nwarnings = t->nwarnings;
	m.nslots = st->nslots;
	m.has_base = t->has_base;
	m.legacy = t->legacy;
	m.shared_launch = t->shared_launch;
	m.has_error = t->error != NULL;
	m.quality = t->quality;
	put_array(&w, S_META, &m, 1);

	begin(&w, S_TEXT);
	put(&w, t->codec, strlen(t->codec) + 1);
	if (t->error != NULL)
		put(&w, t->error, strlen(t->error) + 1);
	for (uint32_t i = 0; i < t->nwarnings; i++)
		put(&w, t->warnings[i], strlen(t->warnings[i]) + 1);
	end(&w, S_TEXT);
	put_array(&w, S_WARN_TAGS, t->warning_tags, t->nwarnings);

	put_array(&w, S_STR_LEN, st->len, st->n);
	put_array(&w, S_STR_HASH, st->hashes, st->n);
	put_array(&w, S_STR_SLOTS, st->slots, st->nslots);
	begin(&w, S_STR_BYTES);
	for (uint32_t i = 0; i < st->n; i++)
		put(&w, st->str[i], (size_t)st->len[i] + 1);
	end(&w, S_STR_BYTES);

	begin(&w, S_TRACKS);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		struct ctrack c;
		memset(&c, 0, sizeof c);
		c.pid = tr->pid;
		c.tid = tr->tid;
		c.stream = tr->stream;
		c.sort_index = tr->sort_index;
		c.busy_total = tr->busy_total;
		c.kind = tr->kind;
		c.name = tr->name;
		c.process = tr->process;
		c.events = tr->events;
		c.nslices = tr->nslices;
		c.nlong = tr->nlong;
		c.nbusy = tr->nbusy;
		c.gpu_slices = tr->gpu_slices;
		c.comm_kernels = tr->comm_kernels;
		c.rt_leaves = tr->row_tree != NULL ? tr->row_tree->leaves : 0;
		c.rt_nspans = 0;
		if (tr->row_tree != NULL)
			for (uint32_t k = 1; k < 2 * tr->row_tree->leaves; k++)
				if (tr->row_tree->first[k] + tr->row_tree->n[k] > c.rt_nspans)
					c.rt_nspans = tr->row_tree->first[k] + tr->row_tree->n[k];
		c.device = tr->device;
		c.nrows = tr->nrows;
		c.annotation_rows = tr->annotation_rows;
		c.pid_is_str = tr->pid_is_str;
		c.tid_is_str = tr->tid_is_str;
		c.named = tr->named;
		c.nested = tr->nested;
		c.has_gpu = tr->gpu != NULL;
		c.has_args = tr->args != NULL;
		put(&w, &c, sizeof c);
	}
	end(&w, S_TRACKS);
	begin(&w, S_SLICES);
	for (uint32_t i = 0; i < t->ntracks; i++)
		put(&w, t->tracks[i].slices, (size_t)t->tracks[i].nslices * sizeof(struct slice));
	end(&w, S_SLICES);
	begin(&w, S_SLICE_GPU);
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].gpu != NULL)
			put(&w, t->tracks[i].gpu, (size_t)t->tracks[i].nslices * sizeof(uint32_t));
	end(&w, S_SLICE_GPU);
	begin(&w, S_SLICE_ARGS);
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].args != NULL)
			put(&w, t->tracks[i].args, (size_t)t->tracks[i].nslices * sizeof(uint64_t));
	end(&w, S_SLICE_ARGS);
	begin(&w, S_LONG_DURS);
	for (uint32_t i = 0; i < t->ntracks; i++)
		put(&w, t->tracks[i].long_durs, (size_t)t->tracks[i].nlong * sizeof(struct long_dur));
	end(&w, S_LONG_DURS);
	put_array(&w, S_CATS, t->cats, t->ncats);
	begin(&w, S_ROWS);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++) {
			const struct row *row = &t->tracks[i].rows[r];
			struct crow c = { row->max_dur, row->n, row->max_tree != NULL };
			put(&w, &c, sizeof c);
		}
	end(&w, S_ROWS);
	begin(&w, S_ROW_IDX);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++)
			put(&w, t->tracks[i].rows[r].idx, (size_t)t->tracks[i].rows[r].n * sizeof(uint32_t));
	end(&w, S_ROW_IDX);
	begin(&w, S_ROW_SUM);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++)
			put(&w, t->tracks[i].rows[r].block_sum,
			    ((size_t)t->tracks[i].rows[r].n / ROW_BLOCK + 1) * sizeof(int64_t));
	end(&w, S_ROW_SUM);
	begin(&w, S_ROW_MAX);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++) {
			const struct row *row = &t->tracks[i].rows[r];
			size_t nb = ((size_t)row->n + ROW_BLOCK - 1) / ROW_BLOCK;
			uint32_t zero = 0;
			if (row->max_tree == NULL)
				continue;
			/* nodes 1 .. 2 nb - 1 hold the tree; 0 and 2 nb are never set */
			put(&w, &zero, sizeof zero);
			if (nb > 0) {
				put(&w, row->max_tree + 1, (2 * nb - 1) * sizeof(uint32_t));
				put(&w, &zero, sizeof zero);
			}
		}
	end(&w, S_ROW_MAX);
	begin(&w, S_RT_FIRST);
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].row_tree != NULL)
			put(&w, t->tracks[i].row_tree->first, 2 * (size_t)t->tracks[i].row_tree->leaves * sizeof(uint32_t));
	end(&w, S_RT_FIRST);
	begin(&w, S_RT_N);
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].row_tree != NULL)
			put(&w, t->tracks[i].row_tree->n, 2 * (size_t)t->tracks[i].row_tree->leaves * sizeof(uint32_t));
	end(&w, S_RT_N);
	begin(&w, S_RT_SPANS);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct row_tree *rt = t->tracks[i].row_tree;
		uint32_t n = 0;
		if (rt == NULL)
			continue;
		for (uint32_t k = 1; k < 2 * rt->leaves; k++)
			if (rt->first[k] + rt->n[k] > n)
				n = rt->first[k] + rt->n[k];
		put(&w, rt->spans, (size_t)n * sizeof(struct span));
	}
	end(&w, S_RT_SPANS);
	begin(&w, S_BUSY);
	for (uint32_t i = 0; i < t->ntracks; i++)
		put(&w, t->tracks[i].busy, (size_t)t->tracks[i].nbusy * sizeof(struct span));
	end(&w, S_BUSY);
	begin(&w, S_BUSY_SUM);
	for (uint32_t i = 0; i < t->ntracks; i++)
		put(&w, t->tracks[i].busy_block_sum, ((size_t)t->tracks[i].nbusy / ROW_BLOCK + 1) * sizeof(int64_t));
	end(&w, S_BUSY_SUM);

	put_array(&w, S_PROCESSES, t->processes, t->nprocesses);
	put_array(&w, S_DEVICES, t->devices, t->ndevices);
	put_array(&w, S_GPU, t->gpu, t->ngpu);
	put_array(&w, S_GPU_PLACES, t->gpu_places, t->ngpu_places);
	put_array(&w, S_WIDE_IDS, t->wide_ids, t->nwide_ids);
	put_array(&w, S_GPU_BYTES, t->gpu_bytes, t->ngpu_bytes);
	put_array(&w, S_LAUNCHES, t->launches, t->nlaunches);
	put_array(&w, S_ASIDE, t->aside, t->naside);
	put_array(&w, S_FLOWS, t->flows, t->nflows);
	put_array(&w, S_INSTANTS, t->instants, t->ninstants);
	put_array(&w, S_MEM, t->mem, t->nmem);
	put_array(&w, S_FLOPS, t->flops, t->nflops);
	put_array(&w, S_COMM, t->comm_ops, t->ncomm_ops);
	begin(&w, S_COUNTERS);
	for (uint32_t i = 0; i < t->ncounters; i++) {
		const struct counter *c = &t->counters[i];
		struct ccounter cc = { c->pid, c->name, c->key, c->n, c->pid_is_str };
		put(&w, &cc, sizeof cc);
	}
	end(&w, S_COUNTERS);
	begin(&w, S_COUNTER_TS);
	for (uint32_t i = 0; i < t->ncounters; i++)
		put(&w, t->counters[i].ts, (size_t)t->counters[i].n * sizeof(int64_t));
	end(&w, S_COUNTER_TS);
	begin(&w, S_COUNTER_VAL);
	for (uint32_t i = 0; i < t->ncounters; i++)
		put(&w, t->counters[i].value, (size_t)t->counters[i].n * sizeof(double));
	end(&w, S_COUNTER_VAL);
	put_array(&w, S_STEPS, t->steps, t->nsteps);
	put_array(&w, S_ARGS, args, args_len);

	h->file_bytes = w.off;
	h->check = checksum64(h, offsetof(struct header, check), 0);
	if (w.err == 0 && pwrite(fd, h, HEADER_BYTES, 0) != (ssize_t)HEADER_BYTES)
		w.err = errno ? errno : EIO;
	if (w.err != 0) {
		*cause = xasprintf("cannot write the cache: %s", strerror(w.err));
		rc = -1;
	}
	free(w.block);
	free(w.sums);
	free(h);
	return rc;
}

/* ---- reading --------------------------------------------------------------------------- */

/* One block to checksum: section S's block B. */
struct verify_task {
	uint32_t s, b;
};

struct verify {
	const char *base;
	const struct header *h;
	struct verify_task *tasks;
	uint32_t ntasks;
	_Atomic uint32_t next;
	uint64_t *sums[S__COUNT];  /* by section, by block */
};

static void *verify_main(void *arg)
{
	struct verify *v = arg;
	for (;;) {
		uint32_t i = atomic_fetch_add(&v->next, 1);
		if (i >= v->ntasks)
			break;
		const struct verify_task *k = &v->tasks[i];
		const struct section *s = &v->h->sections[k->s];
		uint64_t at = (uint64_t)k->b * CACHE_BLOCK;
		size_t len = s->length - at < CACHE_BLOCK ? (size_t)(s->length - at) : CACHE_BLOCK;
		v->sums[k->s][k->b] = checksum64(v->base + s->offset + at, len, k->b);
	}
	return NULL;
}

/* Checks every section's checksum, on several threads when the file is big. Returns the
 * first section whose checksum fails, or -1. */
static int verify_sections(const char *base, const struct header *h)
{
	struct verify v;
	uint64_t total = 0;
	uint32_t n = 0;
	int bad = -1;

	memset(&v, 0, sizeof v);
	v.base = base;
	v.h = h;
	for (int s = 0; s < S__COUNT; s++) {
		uint32_t nb = (uint32_t)((h->sections[s].length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		v.sums[s] = xcalloc(nb ? nb : 1, sizeof(uint64_t));
		n += nb;
		total += h->sections[s].length;
	}
	v.tasks = xcalloc(n ? n : 1, sizeof *v.tasks);
	/* the biggest sections first, so the threads end together */
	for (int s = 0; s < S__COUNT; s++)
		for (uint32_t b = 0; (uint64_t)b * CACHE_BLOCK < h->sections[s].length; b++)
			v.tasks[v.ntasks++] = (struct verify_task){ (uint32_t)s, b };
	atomic_init(&v.next, 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = total >= PARALLEL_MIN && ncpu > 1 ? (int)(ncpu < MAX_VERIFY_THREADS ? ncpu : MAX_VERIFY_THREADS) : 1;
	pthread_t threads[MAX_VERIFY_THREADS];
	int started = 0;
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&threads[started], NULL, verify_main, &v) == 0)
			started++;
	verify_main(&v);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (int s = 0; s < S__COUNT; s++) {
		uint32_t nb = (uint32_t)((h->sections[s].length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		if (bad < 0 && checksum64(v.sums[s], nb * sizeof(uint64_t), (uint64_t)s) != h->sections[s].check)
			bad = s;
		free(v.sums[s]);
	}
	free(v.tasks);
	return bad;
}

static const char *const section_names[S__COUNT] = {
	"meta", "text", "warning tags", "string lengths", "string hashes", "string slots", "string bytes",
	"tracks", "slices", "slice GPU links", "slice args", "long slice lengths", "categories", "rows", "row indices", "row sums", "row max trees", "row tree nodes",
	"row tree counts", "row tree spans", "busy spans", "busy sums", "processes", "devices", "GPU infos",
	"GPU places", "wide ids", "GPU byte counts", "kernel launches", "set-aside slices", "flows", "instants", "memory samples", "FLOP counts", "collective ops",
	"counters", "counter times", "counter values", "steps", "args store",
};

/* The state of one read: the mapping and the trace being filled. */
struct reader {
	const char *base;
	const struct header *h;
	struct trace *t;
	char *cause;
};

static const void *sec(const struct reader *r, enum section_kind s) { return r->base + r->h->sections[s].offset; }
static uint64_t count(const struct reader *r, enum section_kind s)
{
	return r->h->sections[s].length / elem_size[s];
}

static bool fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	if (r->cause == NULL) {
		va_start(ap, fmt);
		r->cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return false;
}

/* An id into something of N elements; NONE_OK: TT_NONE too. */
static inline bool id_ok(uint32_t id, uint64_t n, bool none_ok) { return id < n || (none_ok && id == TT_NONE); }

static bool ref_ok(const struct trace *t, struct slice_ref ref)
{
	if (ref.track == TT_NONE)
		return true;
	return ref.track < t->ntracks && ref.idx < t->tracks[ref.track].nslices;
}

static bool read_strings(struct reader *r, const struct meta *m)
{
	struct trace *t = r->t;
	uint64_t n = count(r, S_STR_LEN), nslots = count(r, S_STR_SLOTS), at = 0, empty = 0;
	const uint32_t *len = sec(r, S_STR_LEN), *slots = sec(r, S_STR_SLOTS);
	const char *bytes = sec(r, S_STR_BYTES);
	uint64_t nbytes = r->h->sections[S_STR_BYTES].length;

	if (n == 0 || n >= UINT32_MAX || count(r, S_STR_HASH) != n || len[0] != 0)
		return fail(r, "the string table is not whole");
	if (nslots != m->nslots || nslots < 2 * n || nslots > UINT32_MAX || (nslots & (nslots - 1)) != 0)
		return fail(r, "the string slots do not fit the strings");
	for (uint64_t i = 0; i < nslots; i++) {
		if (slots[i] > n)
			return fail(r, "a string slot is out of range");
		empty += slots[i] == 0;
	}
	if (empty == 0)
		return fail(r, "the string slots are full");
	const char **str = xmalloc(n * sizeof *str);
	for (uint64_t i = 0; i < n; i++) {
		if (len[i] >= nbytes - at || bytes[at + len[i]] != '\0') {
			free(str);
			return fail(r, "string %llu runs past the string bytes", (unsigned long long)i);
		}
		str[i] = bytes + at;
		at += (uint64_t)len[i] + 1;
	}
	if (at != nbytes || at != m->str_bytes) {
		free(str);
		return fail(r, "the string bytes do not add up");
	}
	strtab_init_borrowed(&t->strings, str, (uint32_t)n, len, sec(r, S_STR_HASH), slots, (uint32_t)nslots, m->seed,
	                     (size_t)nbytes);
	return true;
}

static bool read_text(struct reader *r, const struct meta *m)
{
	static const char *const codecs[] = { "plain", "gzip", "zstd" };
	struct trace *t = r->t;
	const char *p = sec(r, S_TEXT), *e = p + r->h->sections[S_TEXT].length;
	const char *nul;

	if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
		return fail(r, "the codec is missing");
	for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
		if (strcmp(p, codecs[i]) == 0)
			t->codec = codecs[i];
	if (t->codec == NULL)
		return fail(r, "unknown codec");
	p = nul + 1;
	if (m->has_error) {
		if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
			return fail(r, "the error text is cut");
		t->error = xstrdup(p);
		p = nul + 1;
	}
	if (count(r, S_WARN_TAGS) != m->nwarnings)
		return fail(r, "warning tags and warnings differ");
	t->warnings = xcalloc(m->nwarnings ? m->nwarnings : 1, sizeof *t->warnings);
	for (uint32_t i = 0; i < m->nwarnings; i++) {
		if ((nul = memchr(p, '\0', (size_t)(e - p))) == NULL)
			return fail(r, "warning %u is cut", i);
		t->warnings[t->nwarnings++] = xstrdup(p);
		p = nul + 1;
	}
	if (p != e)
		return fail(r, "the text has bytes left over");
	t->warning_tags = (struct warning_tag *)sec(r, S_WARN_TAGS);
	return true;
}

/* Rebuilds the tracks and their rows, row trees and busy spans over the mapping. */
static bool read_tracks(struct reader *r)
{
	struct trace *t = r->t;
	const struct ctrack *ct = sec(r, S_TRACKS);
	const struct crow *cr = sec(r, S_ROWS);
	struct slice *slices = (struct slice *)sec(r, S_SLICES);
	uint32_t *sgpu = (uint32_t *)sec(r, S_SLICE_GPU);
	uint64_t *sargs = (uint64_t *)sec(r, S_SLICE_ARGS);
	struct long_dur *slong = (struct long_dur *)sec(r, S_LONG_DURS);
	uint32_t *idx = (uint32_t *)sec(r, S_ROW_IDX), *maxt = (uint32_t *)sec(r, S_ROW_MAX);
	int64_t *sums = (int64_t *)sec(r, S_ROW_SUM), *bsums = (int64_t *)sec(r, S_BUSY_SUM);
	uint32_t *rtf = (uint32_t *)sec(r, S_RT_FIRST), *rtn = (uint32_t *)sec(r, S_RT_N);
	struct span *rts = (struct span *)sec(r, S_RT_SPANS), *busy = (struct span *)sec(r, S_BUSY);
	uint64_t nt = count(r, S_TRACKS), at_slice = 0, at_sgpu = 0, at_sargs = 0, at_long = 0, at_row = 0, at_idx = 0, at_sum = 0, at_max = 0, at_rt = 0,
	         at_rts = 0, at_busy = 0, at_bsum = 0, nstr = t->strings.n;

	if (nt >= UINT32_MAX)
		return fail(r, "too many tracks");
	t->tracks = xcalloc(nt ? nt : 1, sizeof *t->tracks);
	t->ntracks = (uint32_t)nt;
	for (uint64_t i = 0; i < nt; i++) {
		const struct ctrack *c = &ct[i];
		struct track *tr = &t->tracks[i];
		if (c->kind > TRACK_OTHER || c->pid_is_str > 1 || c->tid_is_str > 1 || c->named > 1 || c->nested > 1 ||
		    c->has_gpu > 1 || c->has_args > 1 || !id_ok(c->name, nstr, false) ||
		    !id_ok(c->process, t->nprocesses, true) || (c->pid_is_str && (uint64_t)c->pid >= nstr) ||
		    (c->tid_is_str && (uint64_t)c->tid >= nstr) || c->annotation_rows > c->nrows ||
		    (c->nslices > 0) != (c->nrows > 0))
			return fail(r, "track %llu does not hold together", (unsigned long long)i);
		tr->kind = (enum track_kind)c->kind;
		tr->pid_is_str = c->pid_is_str;
		tr->tid_is_str = c->tid_is_str;
		tr->pid = c->pid;
		tr->tid = c->tid;
		tr->name = c->name;
		tr->process = c->process;
		tr->device = c->device;
		tr->stream = c->stream;
		tr->sort_index = c->sort_index;
		tr->named = c->named;
		tr->events = c->events;
		tr->gpu_slices = c->gpu_slices;
		tr->comm_kernels = c->comm_kernels;
		tr->annotation_rows = c->annotation_rows;
		tr->nested = c->nested;
		tr->busy_total = c->busy_total;
		if (c->nslices > count(r, S_SLICES) - at_slice)
			return fail(r, "track %llu's slices run past the slices", (unsigned long long)i);
		tr->slices = slices + at_slice;
		tr->nslices = tr->cap = c->nslices;
		at_slice += c->nslices;
		if (c->has_gpu) {
			if (c->nslices > count(r, S_SLICE_GPU) - at_sgpu)
				return fail(r, "track %llu's GPU links run past their array", (unsigned long long)i);
			tr->gpu = sgpu + at_sgpu;
			at_sgpu += c->nslices;
		}
		if (c->nlong > count(r, S_LONG_DURS) - at_long)
			return fail(r, "track %llu's long lengths run past their array", (unsigned long long)i);
		tr->long_durs = c->nlong ? slong + at_long : NULL;
		tr->nlong = tr->long_cap = c->nlong;
		at_long += c->nlong;
		if (c->has_args) {
			if (c->nslices > count(r, S_SLICE_ARGS) - at_sargs)
				return fail(r, "track %llu's args run past their array", (unsigned long long)i);
			tr->args = sargs + at_sargs;
			at_sargs += c->nslices;
		}
		if (c->nrows > count(r, S_ROWS) - at_row)
			return fail(r, "track %llu's rows run past the rows", (unsigned long long)i);
		tr->nrows = c->nrows;
		tr->rows = xcalloc(c->nrows ? c->nrows : 1, sizeof *tr->rows);
		uint64_t in_rows = 0;
		for (uint16_t k = 0; k < c->nrows; k++) {
			const struct crow *rc = &cr[at_row + k];
			struct row *row = &tr->rows[k];
			uint64_t nsum = (uint64_t)rc->n / ROW_BLOCK + 1, nmax = 2 * (((uint64_t)rc->n + ROW_BLOCK - 1) / ROW_BLOCK) + 1;
			if (rc->n > count(r, S_ROW_IDX) - at_idx || nsum > count(r, S_ROW_SUM) - at_sum ||
			    nmax > count(r, S_ROW_MAX) - at_max || rc->has_max_tree != 1)
				return fail(r, "track %llu row %u runs past its arrays", (unsigned long long)i, k);
			row->n = rc->n;
			row->max_dur = rc->max_dur;
			row->idx = idx + at_idx;
			row->block_sum = sums + at_sum;
			at_idx += rc->n;
			at_sum += nsum;
			in_rows += rc->n;
			row->max_tree = maxt + at_max; /* the index makes one for every row */
			for (uint64_t q = 1; q + 1 < nmax; q++)
				if (row->max_tree[q] >= rc->n)
					return fail(r, "track %llu row %u: a max tree node is out of range",
					            (unsigned long long)i, k);
			at_max += nmax;
			for (uint32_t q = 0; q < rc->n; q++)
				if (row->idx[q] >= c->nslices)
					return fail(r, "track %llu row %u: a slice index is out of range", (unsigned long long)i, k);
		}
		at_row += c->nrows;
		if (in_rows != c->nslices)
			return fail(r, "track %llu: its rows do not hold its slices", (unsigned long long)i);
		if (c->rt_leaves != 0) {
			uint64_t nodes = 2 * (uint64_t)c->rt_leaves;
			if ((c->rt_leaves & (c->rt_leaves - 1)) != 0 || c->rt_leaves < c->nrows ||
			    c->rt_leaves > 2 * (uint64_t)c->nrows || nodes > count(r, S_RT_FIRST) - at_rt ||
			    nodes > count(r, S_RT_N) - at_rt || c->rt_nspans > count(r, S_RT_SPANS) - at_rts)
				return fail(r, "track %llu: its row tree does not fit", (unsigned long long)i);
			struct row_tree *rt = xcalloc(1, sizeof *rt);
			tr->row_tree = rt;
			rt->leaves = c->rt_leaves;
			rt->first = rtf + at_rt;
			rt->n = rtn + at_rt;
			rt->spans = rts + at_rts;
			for (uint64_t q = 1; q < nodes; q++)
				if ((uint64_t)rt->first[q] + rt->n[q] > c->rt_nspans)
					return fail(r, "track %llu: a row tree node is out of range", (unsigned long long)i);
			at_rt += nodes;
			at_rts += c->rt_nspans;
		}
		if (c->nbusy > count(r, S_BUSY) - at_busy || (uint64_t)c->nbusy / ROW_BLOCK + 1 > count(r, S_BUSY_SUM) - at_bsum)
			return fail(r, "track %llu: its busy spans run past their arrays", (unsigned long long)i);
		tr->busy = c->nbusy ? busy + at_busy : NULL;
		tr->nbusy = c->nbusy;
		tr->busy_block_sum = bsums + at_bsum;
		at_busy += c->nbusy;
		at_bsum += (uint64_t)c->nbusy / ROW_BLOCK + 1;
	}
	if (at_slice != count(r, S_SLICES) || at_sgpu != count(r, S_SLICE_GPU) || at_sargs != count(r, S_SLICE_ARGS) || at_long != count(r, S_LONG_DURS) || at_row != count(r, S_ROWS) || at_idx != count(r, S_ROW_IDX) ||
	    at_sum != count(r, S_ROW_SUM) || at_max != count(r, S_ROW_MAX) || at_rt != count(r, S_RT_FIRST) ||
	    at_rt != count(r, S_RT_N) || at_rts != count(r, S_RT_SPANS) || at_busy != count(r, S_BUSY) ||
	    at_bsum != count(r, S_BUSY_SUM))
		return fail(r, "the tracks do not account for every stored element");
	return true;
}

/* A time as the builder keeps them (src/builder.h): within BUILDER_TIME_LIMIT of the base. */
static inline bool time_ok(int64_t ts) { return ts > -BUILDER_TIME_LIMIT && ts < BUILDER_TIME_LIMIT; }

/* A bool stored as it is in memory, read as a byte: loading another value as a bool is
 * undefined. */
static inline bool bool_ok(const void *p)
{
	uint8_t b;
	memcpy(&b, p, 1);
	return b <= 1;
}

static inline bool is_gpu_kind(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

/* Whether TR's busy time is its row 0's (src/index.c's busy_is_row0): when its slices are
 * all of row 0 or nest in it (on a GPU stream, one row and no annotation row). */
static inline bool busy_is_row0(const struct track *tr)
{
	return tr->nrows > 0 && (is_gpu_kind(tr) ? tr->nrows == 1 && tr->annotation_rows == 0 : tr->nrows == 1 || tr->nested);
}

/* Where the pass over a track's slices is in one of its rows. */
struct row_walk {
	const uint32_t *idx;       /* the row's */
	const int64_t *block_sum;
	const uint32_t *leaves;    /* its max tree's leaves */
	uint32_t n;
	uint32_t pos;              /* the row's slices seen */
	uint32_t best;             /* the position of the first longest of the current block */
	int64_t best_dur, max, sum, prev_end;
};

/* A thread's buffers for the checks of tracks. */
struct track_check {
	int64_t *stack;            /* lay_out_cpu's stack of ends */
	uint32_t stack_cap;
	struct row_walk *rows;     /* by row */
	uint32_t rows_cap;
	struct span *tmp;          /* a row's spans, for its row tree leaf */
	uint32_t tmp_cap;
};

/* The busy spans build_busy makes, compared with the stored ones as they are made. */
struct busy_walk {
	struct span cur;           /* the span being merged */
	bool have;
	uint32_t k;                /* spans compared */
	int64_t total;             /* their lengths */
};

/* The span being merged is whole: it must be stored span K, after the prefix sums. */
static bool busy_next(const struct track *tr, struct busy_walk *w)
{
	if (w->k >= tr->nbusy || tr->busy[w->k].start != w->cur.start || tr->busy[w->k].end != w->cur.end ||
	    (w->k % ROW_BLOCK == 0 && tr->busy_block_sum[w->k / ROW_BLOCK] != w->total) ||
	    __builtin_add_overflow(w->total, w->cur.end - w->cur.start, &w->total))
		return false;
	w->k++;
	return true;
}

/* Slice S (slice I of its track), of length DUR, ends at END: is it next in its row as
 * build_rows makes it? The row lists it next, after a slice that ends by its start (but in
 * row 65534, where deeper slices share), and the prefix sums and max tree's leaves hold so
 * far. */
static inline bool row_next(struct track_check *c, const struct slice *s, uint32_t i, int64_t dur, int64_t end)
{
	struct row_walk *w = &c->rows[s->depth];
	uint32_t p = w->pos;
	if (p >= w->n || w->idx[p] != i || (s->depth < 65534 && s->ts < w->prev_end))
		return false;
	w->prev_end = end;
	if (p % ROW_BLOCK == 0) {
		if (w->block_sum[p / ROW_BLOCK] != w->sum)
			return false;
		w->best = p;
		w->best_dur = dur;
	} else if (dur > w->best_dur) {
		w->best = p;
		w->best_dur = dur;
	}
	/* a leaf of the max tree: its block's first longest */
	if ((p % ROW_BLOCK == ROW_BLOCK - 1 || p + 1 == w->n) && w->leaves[p / ROW_BLOCK] != w->best)
		return false;
	if (__builtin_add_overflow(w->sum, dur, &w->sum))
		return false;
	if (dur > w->max)
		w->max = dur;
	w->pos = p + 1;
	return true;
}

/* Checks the slices of track TI in one pass against what the parser and the index make of
 * a file: ids in range, a class and flags that exist, times within the builder's limits
 * (no end, ts + length, overflows), sorted by start, longer first (src/index.c), lengths of
 * SLICE_LONG in long_durs, GPU facts that name the slice back; each slice's row as the
 * lay-out makes it (a CPU thread's: the depth of the stack of slices open at its start, at
 * most 65534, a slice ending after the one it starts in flagged partial, the track nesting
 * when none is and no stack ran deeper; a GPU stream's: gpu_user_annotation spans in its
 * last annotation_rows rows, the rest below) and its rows (row_next; the rows hold as many
 * slices as the track, so each lists exactly its own); the counts of GPU operations and
 * NCCL kernels, which size the analyses' arrays (the slices set aside, ASIDE of them, may
 * stay counted); and the busy spans, their prefix sums and total, when they are not row
 * 0's. Reading the slices in order, never through the rows, keeps it one sequential pass. */
static bool slices_ok(struct track_check *c, const struct trace *t, uint32_t ti, uint32_t aside)
{
	const struct track *tr = &t->tracks[ti];
	const struct slice *s = tr->slices;
	const uint32_t *gpu = tr->gpu;
	const bool gpu_kind = is_gpu_kind(tr), row0 = busy_is_row0(tr);
	const uint32_t first_annotation = (uint32_t)tr->nrows - tr->annotation_rows;
	uint32_t nstr = t->strings.n, ngpu = t->ngpu, nlong = 0, sn = 0, ops = 0, comm = 0;
	int64_t prev_ts = 0, prev_dur = 0;
	struct busy_walk bw = { { 0, 0 }, false, 0, 0 };
	bool nested = true;

	if (gpu_kind ? tr->nested || tr->annotation_rows > tr->nrows : tr->annotation_rows != 0)
		return false;
	if (tr->nrows > c->rows_cap)
		c->rows = xreallocarray(c->rows, c->rows_cap = tr->nrows, sizeof *c->rows);
	for (uint16_t r = 0; r < tr->nrows; r++) {
		const struct row *row = &tr->rows[r];
		c->rows[r] = (struct row_walk){ row->idx, row->block_sum, row->max_tree + (row->n + ROW_BLOCK - 1) / ROW_BLOCK,
			                        row->n, 0, 0, 0, 0, 0, INT64_MIN };
	}
	for (uint32_t i = 0; i < tr->nslices; i++) {
		if (s[i].name >= nstr || s[i].cat_ix >= t->ncats || (gpu != NULL && gpu[i] >= ngpu && gpu[i] != TT_NONE) ||
		    s[i].cls >= SC__COUNT || (s[i].flags & ~(SF_FROM_BE | SF_UNCLOSED | SF_PARTIAL)) != 0 ||
		    s[i].depth >= tr->nrows)
			return false;
		int64_t dur = s[i].dur32;
		if (s[i].dur32 == SLICE_LONG) {
			if (nlong >= tr->nlong || tr->long_durs[nlong].idx != i || tr->long_durs[nlong].dur < SLICE_LONG ||
			    tr->long_durs[nlong].unused != 0)
				return false;
			dur = tr->long_durs[nlong++].dur;
		}
		if (!time_ok(s[i].ts) || dur > BUILDER_TIME_LIMIT - s[i].ts ||
		    (i > 0 && (s[i].ts < prev_ts || (s[i].ts == prev_ts && dur > prev_dur))))
			return false;
		prev_ts = s[i].ts;
		prev_dur = dur;
		if (gpu != NULL && gpu[i] != TT_NONE && (t->gpu[gpu[i]].self.track != ti || t->gpu[gpu[i]].self.idx != i))
			return false;
		int64_t end = s[i].ts + dur;
		if (gpu_kind) {
			if (tr->nrows < 65535 && (s[i].cls == SC_GPU_ANNOTATION) != (s[i].depth >= first_annotation))
				return false;
		} else {
			while (sn > 0 && c->stack[sn - 1] <= s[i].ts)
				sn--;
			bool partial = sn > 0 && end > c->stack[sn - 1];
			if (partial != ((s[i].flags & SF_PARTIAL) != 0) || s[i].depth != (sn < 65535 ? sn : 65534))
				return false;
			if (partial || sn >= 65535)
				nested = false;
			if (sn == c->stack_cap)
				c->stack = xreallocarray(c->stack, c->stack_cap = c->stack_cap ? 2 * c->stack_cap : 64,
				                         sizeof *c->stack);
			c->stack[sn++] = end;
		}
		if (!row_next(c, &s[i], i, dur, end))
			return false;
		if (s[i].cls == SC_KERNEL || s[i].cls == SC_MEMCPY || s[i].cls == SC_MEMSET) {
			ops++;
			comm += s[i].cls == SC_KERNEL && model_is_comm_kernel(strtab_get(&t->strings, s[i].name));
		}
		if (row0 || (gpu_kind && s[i].cls == SC_GPU_ANNOTATION))
			continue;
		if (bw.have && s[i].ts <= bw.cur.end) {
			if (end > bw.cur.end)
				bw.cur.end = end;
		} else if (s[i].dur32 != 0) {
			if (bw.have && !busy_next(tr, &bw))
				return false;
			bw.cur = (struct span){ s[i].ts, end };
			bw.have = true;
		}
	}
	if (nlong != tr->nlong || (!gpu_kind && (nested && tr->nslices > 0) != tr->nested))
		return false; /* a track of no slice is not laid out: it does not nest */
	if (tr->gpu_slices < ops || tr->gpu_slices - ops > aside || tr->comm_kernels < comm || tr->comm_kernels - comm > aside)
		return false;
	if (row0) /* track_ok checks its sums against row 0's */
		return tr->nbusy == 0;
	if (bw.have && !busy_next(tr, &bw))
		return false;
	return bw.k == tr->nbusy && (bw.k % ROW_BLOCK != 0 || tr->busy_block_sum[bw.k / ROW_BLOCK] == bw.total) &&
	       tr->busy_total == bw.total;
}

/* Compares the union of the closed spans A (NA, in start order) and B (NB) as src/index.c
 * makes it (touching spans merge) with WANT (NWANT): true when they are the same. */
static bool union_is(const struct span *a, uint32_t na, const struct span *b, uint32_t nb, const struct span *want,
                     uint32_t nwant)
{
	uint32_t i = 0, j = 0, k = 0;
	struct span cur = { 0, 0 };
	bool have = false;
	while (i < na || j < nb) {
		struct span x = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];
		if (have && x.start <= cur.end) {
			if (x.end > cur.end)
				cur.end = x.end;
			continue;
		}
		if (have && (k >= nwant || want[k].start != cur.start || want[k++].end != cur.end))
			return false;
		cur = x;
		have = true;
	}
	if (have && (k >= nwant || want[k].start != cur.start || want[k++].end != cur.end))
		return false;
	return k == nwant;
}

/* Checks what is left of row R of TR once the pass over its slices (row_next) is done:
 * its last prefix sum, longest length and max tree's inner nodes. */
static bool row_ok(const struct track_check *c, const struct track *tr, uint16_t r)
{
	const struct row *row = &tr->rows[r];
	const struct row_walk *w = &c->rows[r];
	const uint32_t *node = row->max_tree;
	uint32_t nb = (row->n + ROW_BLOCK - 1) / ROW_BLOCK;
	if (w->pos != row->n || (row->n % ROW_BLOCK == 0 && row->block_sum[row->n / ROW_BLOCK] != w->sum) ||
	    row->max_dur != w->max)
		return false;
	for (uint32_t b = nb; b-- > 1;) {
		uint32_t x = node[2 * b], y = node[2 * b + 1];
		if (node[b] != (track_dur_at(tr, row->idx[y]) > track_dur_at(tr, row->idx[x]) ? y : x))
			return false;
	}
	return true;
}

/* Checks TR's row tree as build_row_tree makes it: each leaf the union of its row's
 * slices, each node the union of its children. */
static bool row_tree_ok(struct track_check *c, const struct track *tr)
{
	const struct row_tree *rt = tr->row_tree;
	for (uint32_t r = 0; r < rt->leaves; r++) {
		uint32_t node = rt->leaves + r;
		if (r >= tr->nrows) {
			if (rt->n[node] != 0)
				return false;
			continue;
		}
		const struct row *row = &tr->rows[r];
		if (row->n > c->tmp_cap)
			c->tmp = xreallocarray(c->tmp, c->tmp_cap = row->n, sizeof *c->tmp);
		for (uint32_t i = 0; i < row->n; i++) {
			const struct slice *s = &tr->slices[row->idx[i]];
			c->tmp[i] = (struct span){ s->ts, slice_end_of(tr, s) };
		}
		if (!union_is(c->tmp, row->n, NULL, 0, rt->spans + rt->first[node], rt->n[node]))
			return false;
	}
	for (uint32_t node = rt->leaves; node-- > 1;) {
		uint32_t a = 2 * node, b = 2 * node + 1;
		if (!union_is(rt->spans + rt->first[a], rt->n[a], rt->spans + rt->first[b], rt->n[b],
		              rt->spans + rt->first[node], rt->n[node]))
			return false;
	}
	return true;
}

/* Checks track TI: its slices, then its rows, row tree and busy time. */
static bool track_ok(struct track_check *c, const struct trace *t, uint32_t ti, uint32_t aside)
{
	const struct track *tr = &t->tracks[ti];
	if (!slices_ok(c, t, ti, aside))
		return false;
	for (uint16_t r = 0; r < tr->nrows; r++)
		if (!row_ok(c, tr, r))
			return false;
	if (busy_is_row0(tr) && (tr->busy_block_sum[0] != c->rows[0].sum || tr->busy_total != c->rows[0].sum))
		return false;
	return tr->row_tree == NULL || row_tree_ok(c, tr);
}

/* The checks of the tracks, shared by the threads that make them. */
struct tracks_check {
	const struct trace *t;
	const uint32_t *aside;     /* by track: its slices set aside */
	_Atomic uint32_t next;     /* the next track to check */
	_Atomic uint32_t bad;      /* the first track found wrong, or UINT32_MAX */
};

static void *tracks_main(void *arg)
{
	struct tracks_check *k = arg;
	struct track_check c = { NULL, 0, NULL, 0, NULL, 0 };
	for (;;) {
		uint32_t i = atomic_fetch_add(&k->next, 1), b = atomic_load(&k->bad);
		/* tracks are handed out in order: every one before the first found wrong is
		 * checked, so that the one named is the same however many threads run */
		if (i >= k->t->ntracks || i > b)
			break;
		if (!track_ok(&c, k->t, i, k->aside[i]))
			while (i < b && !atomic_compare_exchange_weak(&k->bad, &b, i))
				;
	}
	free(c.stack);
	free(c.rows);
	free(c.tmp);
	return NULL;
}

/* Checks every track of T (track_ok), on several threads when PARALLEL. Returns the first
 * track found wrong, or UINT32_MAX. */
static uint32_t check_tracks(const struct trace *t, const uint32_t *aside, bool parallel)
{
	struct tracks_check k = { .t = t, .aside = aside };
	pthread_t threads[MAX_VERIFY_THREADS];
	long ncpu = parallel ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	int nthreads = ncpu > 1 ? (int)(ncpu < MAX_VERIFY_THREADS ? ncpu : MAX_VERIFY_THREADS) : 1, started = 0;

	atomic_init(&k.next, 0);
	atomic_init(&k.bad, UINT32_MAX);
	for (int i = 1; i < nthreads && (uint32_t)i < t->ntracks; i++)
		if (pthread_create(&threads[started], NULL, tracks_main, &k) == 0)
			started++;
	tracks_main(&k);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	return atomic_load(&k.bad);
}

/* Checks the steps as find_steps makes them: each a ProfilerStep#N slice of a CPU or GPU
 * track, with its number, start, length and side, CPU steps first, then GPU ones, each by
 * start then number. */
static bool steps_ok(const struct trace *t)
{
	static const char prefix[] = "ProfilerStep#";
	const size_t pn = sizeof prefix - 1;
	for (uint32_t i = 0; i < t->nsteps; i++) {
		const struct step *st = &t->steps[i];
		if (!bool_ok(&st->gpu) || st->ref.track == TT_NONE || !ref_ok(t, st->ref))
			return false;
		const struct track *tr = &t->tracks[st->ref.track];
		const struct slice *s = &tr->slices[st->ref.idx];
		const char *nm = strtab_get(&t->strings, s->name);
		if (tr->kind == TRACK_OTHER || st->gpu != (tr->kind != TRACK_CPU) || st->ts != s->ts ||
		    st->dur != slice_dur(tr, s) || strtab_len(&t->strings, s->name) <= pn || memcmp(nm, prefix, pn) != 0 ||
		    st->number != strtoll(nm + pn, NULL, 10))
			return false;
		if (i > 0) {
			const struct step *p = &t->steps[i - 1];
			if (p->gpu != st->gpu ? p->gpu : p->ts != st->ts ? p->ts > st->ts : p->number > st->number)
				return false;
		}
	}
	return true;
}

/* Checks every index stored in the bulk arrays, and every value against what the parser
 * and the index make (times within the builder's limits, bools and enums in range, the
 * orders and sums the index relies on). */
static bool check_ids(struct reader *r)
{
	struct trace *t = r->t;
	uint32_t nstr = t->strings.n;

	for (uint32_t i = 0; i < t->ngpu; i++) {
		struct slice_ref self = t->gpu[i].self;
		if (!ref_ok(t, self) || !ref_ok(t, t->gpu[i].peer) || t->gpu[i].place >= t->ngpu_places ||
		    (t->gpu[i].launch >= t->nlaunches && t->gpu[i].launch != TT_NONE) ||
		    (self.track != TT_NONE && track_gpu_at(&t->tracks[self.track], self.idx) != i))
			return fail(r, "GPU info %u refers out of range", i);
	}
	for (uint32_t i = 0; i < t->naside; i++)
		if (t->aside[i].name >= nstr || t->aside[i].track >= t->ntracks || t->aside[i].ts != 0 ||
		    t->aside[i].dur < 0 || t->aside[i].dur > BUILDER_TIME_LIMIT)
			return fail(r, "a set-aside slice's ids or times are out of range");
	uint32_t *aside = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *aside);
	for (uint32_t i = 0; i < t->naside; i++)
		aside[t->aside[i].track]++;
	uint32_t bad = check_tracks(t, aside, r->h->file_bytes >= PARALLEL_MIN);
	free(aside);
	if (bad != UINT32_MAX)
		return fail(r, "track %u: its slices, rows or busy time are not as the parser and the index make them", bad);
	for (uint32_t i = 0; i < t->ngpu_places; i++)
		if (t->gpu_places[i].pg >= nstr)
			return fail(r, "GPU place %u refers out of range", i);
	for (uint32_t i = 0; i < t->ngpu_bytes; i++)
		if (t->gpu_bytes[i].gpu >= t->ngpu || (i > 0 && t->gpu_bytes[i].gpu <= t->gpu_bytes[i - 1].gpu))
			return fail(r, "GPU byte count %u is out of range or order", i);
	for (uint32_t i = 0; i < t->nprocesses; i++) {
		const struct process *p = &t->processes[i];
		if (!bool_ok(&p->pid_is_str) || p->name >= nstr || p->labels >= nstr ||
		    (p->pid_is_str && (uint64_t)p->pid >= nstr))
			return fail(r, "process %u refers out of range", i);
	}
	for (uint32_t i = 0; i < t->ndevices; i++)
		if (t->devices[i].name >= nstr)
			return fail(r, "device %u's name is out of range", i);
	for (uint32_t i = 0; i < t->nflows; i++)
		if (t->flows[i].cat >= nstr || !ref_ok(t, t->flows[i].from) || !ref_ok(t, t->flows[i].to) ||
		    !time_ok(t->flows[i].ts_from) || !time_ok(t->flows[i].ts_to))
			return fail(r, "flow %u refers or lies out of range", i);
	for (uint32_t i = 0; i < t->ninstants; i++)
		if (t->instants[i].name >= nstr || t->instants[i].cat >= nstr ||
		    !id_ok(t->instants[i].track, t->ntracks, true) || !time_ok(t->instants[i].ts))
			return fail(r, "instant %u refers or lies out of range", i);
	for (uint32_t i = 0; i < t->nmem; i++) {
		const struct mem_sample *m = &t->mem[i];
		if (!id_ok(m->track, t->ntracks, true) || !time_ok(m->ts) || (m->flags & ~(MEM_HAS_ADDR | MEM_HAS_BYTES)) != 0 ||
		    m->device_type < -1 || m->device_id < -1)
			return fail(r, "memory sample %u is out of range", i);
	}
	for (uint32_t i = 0; i < t->nflops; i++)
		if (!time_ok(t->flops[i].ts))
			return fail(r, "FLOP count %u lies out of range", i);
	for (uint32_t i = 0; i < t->ncomm_ops; i++)
		if (t->comm_ops[i].name >= nstr || t->comm_ops[i].cat >= nstr)
			return fail(r, "collective op %u refers out of range", i);
	if (!steps_ok(t))
		return fail(r, "the steps are not those of the slices");
	/* an example left all zero is none (the counts the scanner gives have none): its track 0
	 * need not exist; the reports leave it out */
	for (int q = 0; q < Q__COUNT; q++)
		for (uint64_t k = 0; k < QUALITY_EXAMPLES && k < t->quality.count[q]; k++) {
			const struct quality_example *e = &t->quality.ex[q][k];
			bool none = e->name == 0 && e->offset == 0 && e->ts == 0 && e->track == 0;
			if (!none && (e->name >= nstr || !id_ok(e->track, t->ntracks, true)))
				return fail(r, "a data-quality example refers out of range");
		}
	if (t->backend >= nstr || t->display_time_unit >= nstr)
		return fail(r, "a header string is out of range");
	struct span span = index_trace_span(t);
	if (t->start != span.start || t->end != span.end)
		return fail(r, "its span is not that of its events");
	return true;
}

static bool read_counters(struct reader *r)
{
	struct trace *t = r->t;
	const struct ccounter *cc = sec(r, S_COUNTERS);
	int64_t *ts = (int64_t *)sec(r, S_COUNTER_TS);
	double *val = (double *)sec(r, S_COUNTER_VAL);
	uint64_t n = count(r, S_COUNTERS), at = 0;

	if (n >= UINT32_MAX || count(r, S_COUNTER_TS) != count(r, S_COUNTER_VAL))
		return fail(r, "the counters do not hold together");
	t->counters = xcalloc(n ? n : 1, sizeof *t->counters);
	for (uint64_t i = 0; i < n; i++) {
		struct counter *c = &t->counters[i];
		if (cc[i].name >= t->strings.n || cc[i].key >= t->strings.n || cc[i].pid_is_str > 1 ||
		    (cc[i].pid_is_str && (uint64_t)cc[i].pid >= t->strings.n) || cc[i].n > count(r, S_COUNTER_TS) - at)
			return fail(r, "counter %llu does not hold together", (unsigned long long)i);
		c->pid_is_str = cc[i].pid_is_str;
		c->pid = cc[i].pid;
		c->name = cc[i].name;
		c->key = cc[i].key;
		c->n = c->cap = cc[i].n;
		c->ts = ts + at;
		c->value = val + at;
		for (uint32_t k = 0; k < cc[i].n; k++)
			if (!time_ok(c->ts[k]))
				return fail(r, "counter %llu: a sample lies out of range", (unsigned long long)i);
		at += cc[i].n;
		t->ncounters++;
	}
	if (at != count(r, S_COUNTER_TS))
		return fail(r, "the counters do not account for every sample");
	return true;
}

/* Points the trace's flat arrays at their sections. */
#define POINT(field, nfield, kind)                                                                                   \
	do {                                                                                                         \
		if (count(r, kind) >= UINT32_MAX)                                                                    \
			return fail(r, "too many %s", section_names[kind]);                                          \
		t->field = count(r, kind) ? (void *)sec(r, kind) : NULL;                                             \
		t->nfield = (uint32_t)count(r, kind);                                                                \
	} while (0)

/* POINT for an array the builder grows: its capacity is its count. */
#define POINT_GROWN(field, nfield, capfield, kind)                                                                  \
	do {                                                                                                         \
		POINT(field, nfield, kind);                                                                          \
		t->capfield = t->nfield;                                                                             \
	} while (0)

static bool read_model(struct reader *r)
{
	struct trace *t = r->t;
	const struct meta *m = sec(r, S_META);

	if (count(r, S_META) != 1)
		return fail(r, "the meta section is missing");
	if (m->status > LOAD_TRUNCATED)
		return fail(r, "a failed load was stored");
	if (m->has_base > 1 || m->legacy > 1 || m->shared_launch > 1 || m->has_error > 1 ||
	    m->has_error != (m->status == LOAD_TRUNCATED))
		return fail(r, "a flag of the trace is neither true nor false, or says another status");
	t->status = (enum load_status)m->status;
	t->bytes = m->bytes;
	t->file_bytes = m->file_bytes;
	t->events = m->events;
	t->async_events = m->async_events;
	memcpy(t->count_by_ph, m->count_by_ph, sizeof t->count_by_ph);
	t->has_base = m->has_base;
	t->base_ns = m->base_ns;
	t->start = m->start;
	t->end = m->end;
	t->legacy = m->legacy;
	t->shared_launch = m->shared_launch;
	t->rank = m->rank;
	t->world_size = m->world_size;
	t->backend = m->backend;
	t->display_time_unit = m->display_time_unit;
	t->schema_version = m->schema_version;
	t->quality = m->quality;
	if (!read_text(r, m) || !read_strings(r, m))
		return false;
	if (count(r, S_CATS) < 1 || count(r, S_CATS) > TRACE_MAX_CATS)
		return fail(r, "%llu categories", (unsigned long long)count(r, S_CATS));
	t->ncats = (uint32_t)count(r, S_CATS);
	memcpy(t->cats, sec(r, S_CATS), t->ncats * sizeof *t->cats);
	for (uint32_t i = 0; i < t->ncats; i++)
		if (t->cats[i] >= t->strings.n || (i == 0) != (t->cats[i] == 0))
			return fail(r, "category %u is out of range", i);
	POINT(processes, nprocesses, S_PROCESSES);
	POINT(devices, ndevices, S_DEVICES);
	POINT_GROWN(gpu, ngpu, gpu_cap, S_GPU);
	POINT_GROWN(gpu_places, ngpu_places, gpu_places_cap, S_GPU_PLACES);
	POINT_GROWN(wide_ids, nwide_ids, wide_ids_cap, S_WIDE_IDS);
	POINT_GROWN(gpu_bytes, ngpu_bytes, gpu_bytes_cap, S_GPU_BYTES);
	POINT_GROWN(launches, nlaunches, launches_cap, S_LAUNCHES);
	POINT_GROWN(aside, naside, aside_cap, S_ASIDE);
	POINT(flows, nflows, S_FLOWS);
	POINT_GROWN(instants, ninstants, instants_cap, S_INSTANTS);
	POINT_GROWN(mem, nmem, mem_cap, S_MEM);
	POINT_GROWN(flops, nflops, flops_cap, S_FLOPS);
	POINT_GROWN(comm_ops, ncomm_ops, comm_ops_cap, S_COMM);
	POINT(steps, nsteps, S_STEPS);
	return read_tracks(r) && read_counters(r) && check_ids(r);
}

/* Checks the section table of a header whose checksum holds, for a file of SIZE bytes:
 * the sections lie where the writer puts them, in order, each at the first aligned
 * offset after the one before, the first right after the header, the last ending the
 * file, so that none overlaps the header or another (a value checked in one section
 * cannot change under a write to another). */
static bool table_ok(struct reader *r, uint64_t size)
{
	const struct header *h = r->h;
	uint64_t at = HEADER_BYTES;

	if (h->file_bytes != size)
		return fail(r, "%llu bytes long where %llu were written", (unsigned long long)size,
		            (unsigned long long)h->file_bytes);
	if (h->nsections != S__COUNT)
		return fail(r, "holds %u sections, not %u", h->nsections, (unsigned)S__COUNT);
	for (int s = 0; s < S__COUNT; s++) {
		const struct section *x = &h->sections[s];
		if (x->kind != (uint32_t)s || x->elem != elem_size[s] || x->offset > size || x->length > size - x->offset ||
		    x->length % elem_size[s] != 0)
			return fail(r, "its section of %s does not fit the file", section_names[s]);
		if (x->offset != at)
			return fail(r, "its section of %s %s", section_names[s],
			            x->offset < at ? "overlaps the header or another section" : "is not where it belongs");
		at = x->offset + x->length;
		if (s + 1 < S__COUNT)
			at = (at + CACHE_ALIGN - 1) / CACHE_ALIGN * CACHE_ALIGN;
	}
	if (at != size)
		return fail(r, "its sections end before the file does");
	return true;
}

/* Checks the header and the section table; CAUSE/WHY on a refusal. */
static bool header_ok(struct reader *r, uint64_t size, const struct cache_key *key, int *why)
{
	const struct header *h = r->h;
	struct header want;

	*why = CACHE_STALE;
	if (size < HEADER_BYTES || memcmp(h->magic, CACHE_MAGIC, 8) != 0)
		return fail(r, size < HEADER_BYTES ? "shorter than its header" : "not a ttrace cache");
	if (h->format != CACHE_FORMAT_VERSION || h->endian != ENDIAN_MARK || h->header_bytes != HEADER_BYTES)
		return fail(r, "written in another format (version %u)", h->format);
	fill_header_id(&want, key);
	if (h->layout != want.layout || memcmp(h->version, want.version, sizeof h->version) != 0 ||
	    h->build_len != want.build_len || memcmp(h->build, want.build, sizeof h->build) != 0)
		return fail(r, "written by another build of ttrace (%.*s)", (int)strnlen(h->version, sizeof h->version),
		            h->version);
	if (memcmp(&h->key, key, sizeof *key) != 0)
		return fail(r, "written for another file, or before the file changed");
	*why = CACHE_DAMAGED;
	if (checksum64(h, offsetof(struct header, check), 0) != h->check)
		return fail(r, "its header's checksum does not match");
	return table_ok(r, size);
}

struct trace *cache_read(int fd, const char *path, const struct cache_key *key, const void **args,
                         size_t *args_len, char **cause, int *why)
{
	struct reader r;
	struct stat sb;
	double t0 = monotime_seconds(), t1, t2;
	void *map;

	memset(&r, 0, sizeof r);
	*why = CACHE_DAMAGED;
	if (fstat(fd, &sb) < 0) {
		*cause = xasprintf("cannot read the cache: %s", strerror(errno));
		return NULL;
	}
	if ((uint64_t)sb.st_size < HEADER_BYTES) {
		*cause = xstrdup("the cache is shorter than its header");
		return NULL;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		*cause = xasprintf("cannot map the cache: %s", strerror(errno));
		return NULL;
	}
	r.base = map;
	r.h = map;
	/* a cache cut while it is mapped reads as zeros past the cut, not as a SIGBUS */
	map_guard_add(map, (size_t)sb.st_size);
	if (!header_ok(&r, (uint64_t)sb.st_size, key, why)) {
		map_guard_remove(map);
		munmap(map, (size_t)sb.st_size);
		*cause = r.cause;
		return NULL;
	}
	madvise(map, (size_t)sb.st_size, MADV_WILLNEED);
	t1 = monotime_seconds();
	int bad = verify_sections(r.base, r.h);
	t2 = monotime_seconds();
	if (bad >= 0) {
		map_guard_remove(map);
		munmap(map, (size_t)sb.st_size);
		*cause = xasprintf("the checksum of its %s does not match", section_names[bad]);
		return NULL;
	}
	r.t = xcalloc(1, sizeof *r.t);
	r.t->cache_map = map;
	r.t->cache_map_len = (size_t)sb.st_size;
	r.t->path = xstrdup(path);
	r.t->cache = TRACE_CACHE_READ;
	if (!read_model(&r) || map_guard_lost(map)) {
		if (r.cause == NULL)
			r.cause = xstrdup("it was cut while it was read");
		trace_free(r.t);
		*cause = r.cause;
		return NULL;
	}
	*args = sec(&r, S_ARGS);
	*args_len = (size_t)r.h->sections[S_ARGS].length;
	if (test_knobs().cache_times) /* for bench/cache */
		fprintf(stderr, "ttrace: cache %.1f MB: header %.1f ms, checksums %.1f ms, indices %.1f ms\n",
		        (double)sb.st_size / 1e6, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (monotime_seconds() - t2) * 1e3);
	*why = 0;
	return r.t;
}

/* ---- for tests and fuzzing ------------------------------------------------------------- */

#define F(type, member, kind) { #member, offsetof(type, member), sizeof(((type *)0)->member), kind }
#define FIELDS(a) a, sizeof a / sizeof *a

static const struct cache_field f_byte[] = { { "byte", 0, 1, CV_OTHER } };
static const struct cache_field f_u32_count[] = { { "value", 0, 4, CV_COUNT } };
static const struct cache_field f_u32_id[] = { { "value", 0, 4, CV_ID } };
static const struct cache_field f_u64[] = { { "value", 0, 8, CV_OTHER } };
static const struct cache_field f_time[] = { { "value", 0, 8, CV_TIME } };
static const struct cache_field f_meta[] = {
	F(struct meta, bytes, CV_COUNT), F(struct meta, file_bytes, CV_COUNT), F(struct meta, events, CV_COUNT),
	F(struct meta, async_events, CV_COUNT), F(struct meta, count_by_ph[88], CV_COUNT),
	F(struct meta, base_ns, CV_TIME), F(struct meta, start, CV_TIME), F(struct meta, end, CV_TIME),
	F(struct meta, seed, CV_OTHER), F(struct meta, str_bytes, CV_COUNT), F(struct meta, rank, CV_OTHER),
	F(struct meta, world_size, CV_OTHER), F(struct meta, schema_version, CV_OTHER), F(struct meta, status, CV_ENUM),
	F(struct meta, backend, CV_ID), F(struct meta, display_time_unit, CV_ID), F(struct meta, nwarnings, CV_COUNT),
	F(struct meta, nslots, CV_COUNT), F(struct meta, has_base, CV_BOOL), F(struct meta, legacy, CV_BOOL),
	F(struct meta, shared_launch, CV_BOOL), F(struct meta, has_error, CV_BOOL),
	F(struct meta, quality.count[Q_CPU_PARTIAL_OVERLAP], CV_COUNT),
	F(struct meta, quality.count[Q_TS_ZERO_OUTLIER], CV_COUNT),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].ts, CV_TIME),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].name, CV_ID),
	F(struct meta, quality.ex[Q_CPU_PARTIAL_OVERLAP][0].track, CV_ID),
	F(struct meta, quality.ex[Q_TS_ZERO_OUTLIER][0].track, CV_ID),
};
static const struct cache_field f_warn_tag[] = {
	F(struct warning_tag, group, CV_OTHER), F(struct warning_tag, max, CV_OTHER),
};
static const struct cache_field f_ctrack[] = {
	F(struct ctrack, pid, CV_OTHER), F(struct ctrack, tid, CV_OTHER), F(struct ctrack, stream, CV_OTHER),
	F(struct ctrack, sort_index, CV_OTHER), F(struct ctrack, busy_total, CV_TIME), F(struct ctrack, kind, CV_ENUM),
	F(struct ctrack, name, CV_ID), F(struct ctrack, process, CV_ID), F(struct ctrack, events, CV_COUNT),
	F(struct ctrack, nslices, CV_COUNT), F(struct ctrack, nlong, CV_COUNT), F(struct ctrack, nbusy, CV_COUNT),
	F(struct ctrack, gpu_slices, CV_COUNT), F(struct ctrack, comm_kernels, CV_COUNT),
	F(struct ctrack, rt_leaves, CV_COUNT), F(struct ctrack, rt_nspans, CV_COUNT), F(struct ctrack, device, CV_OTHER),
	F(struct ctrack, nrows, CV_COUNT), F(struct ctrack, annotation_rows, CV_COUNT),
	F(struct ctrack, pid_is_str, CV_BOOL), F(struct ctrack, tid_is_str, CV_BOOL), F(struct ctrack, named, CV_BOOL),
	F(struct ctrack, nested, CV_BOOL), F(struct ctrack, has_gpu, CV_BOOL), F(struct ctrack, has_args, CV_BOOL),
};
static const struct cache_field f_slice[] = {
	F(struct slice, ts, CV_TIME), F(struct slice, dur32, CV_TIME), F(struct slice, name, CV_ID),
	F(struct slice, depth, CV_ID), F(struct slice, cat_ix, CV_ID),
	{ "cls, flags", offsetof(struct slice, cat_ix) + 1, 1, CV_ENUM },
};
static const struct cache_field f_long_dur[] = {
	F(struct long_dur, idx, CV_ID), F(struct long_dur, unused, CV_OTHER), F(struct long_dur, dur, CV_TIME),
};
static const struct cache_field f_crow[] = {
	F(struct crow, max_dur, CV_TIME), F(struct crow, n, CV_COUNT), F(struct crow, has_max_tree, CV_BOOL),
};
static const struct cache_field f_span[] = { F(struct span, start, CV_TIME), F(struct span, end, CV_TIME) };
static const struct cache_field f_process[] = {
	F(struct process, pid_is_str, CV_BOOL), F(struct process, pid, CV_OTHER), F(struct process, name, CV_ID),
	F(struct process, labels, CV_ID), F(struct process, sort_index, CV_OTHER),
};
static const struct cache_field f_device[] = {
	F(struct device_props, id, CV_OTHER), F(struct device_props, name, CV_ID),
	F(struct device_props, num_sms, CV_OTHER), F(struct device_props, max_threads_per_sm, CV_OTHER),
	F(struct device_props, compute_major, CV_OTHER), F(struct device_props, total_global_mem, CV_OTHER),
};
static const struct cache_field f_gpu[] = {
	F(struct gpu_info, corr_code, CV_OTHER), F(struct gpu_info, ext_code, CV_OTHER),
	F(struct gpu_info, self.track, CV_ID), F(struct gpu_info, self.idx, CV_ID), F(struct gpu_info, peer.track, CV_ID),
	F(struct gpu_info, peer.idx, CV_ID), F(struct gpu_info, place, CV_ID), F(struct gpu_info, launch, CV_ID),
};
static const struct cache_field f_gpu_place[] = {
	F(struct gpu_place, stream, CV_OTHER), F(struct gpu_place, device, CV_OTHER), F(struct gpu_place, pg, CV_ID),
};
static const struct cache_field f_gpu_bytes[] = {
	F(struct gpu_bytes, gpu, CV_ID), F(struct gpu_bytes, pad, CV_OTHER), F(struct gpu_bytes, bytes, CV_OTHER),
};
static const struct cache_field f_launch[] = {
	F(struct kernel_launch, grid[0], CV_OTHER), F(struct kernel_launch, block[2], CV_OTHER),
	F(struct kernel_launch, blocks_per_sm, CV_OTHER), F(struct kernel_launch, occupancy, CV_OTHER),
	F(struct kernel_launch, regs, CV_OTHER), F(struct kernel_launch, smem, CV_OTHER),
};
static const struct cache_field f_aside[] = {
	F(struct aside_slice, ts, CV_TIME), F(struct aside_slice, dur, CV_TIME), F(struct aside_slice, name, CV_ID),
	F(struct aside_slice, track, CV_ID),
};
static const struct cache_field f_flow[] = {
	F(struct flow, id_code, CV_OTHER), F(struct flow, cat, CV_ID), F(struct flow, from.track, CV_ID),
	F(struct flow, from.idx, CV_ID), F(struct flow, to.track, CV_ID), F(struct flow, to.idx, CV_ID),
	F(struct flow, ts_from, CV_TIME), F(struct flow, ts_to, CV_TIME),
};
static const struct cache_field f_instant[] = {
	F(struct instant, ts, CV_TIME), F(struct instant, name, CV_ID), F(struct instant, cat, CV_ID),
	F(struct instant, track, CV_ID), F(struct instant, scope, CV_ENUM),
};
static const struct cache_field f_mem[] = {
	F(struct mem_sample, ts, CV_TIME), F(struct mem_sample, total_allocated, CV_OTHER),
	F(struct mem_sample, total_reserved, CV_OTHER), F(struct mem_sample, bytes, CV_OTHER),
	F(struct mem_sample, track, CV_ID), F(struct mem_sample, device_id, CV_ENUM),
	F(struct mem_sample, device_type, CV_ENUM), F(struct mem_sample, flags, CV_ENUM),
};
static const struct cache_field f_flops[] = { F(struct flop_count, ts, CV_TIME), F(struct flop_count, flops, CV_OTHER) };
static const struct cache_field f_comm[] = {
	F(struct comm_op, external_id, CV_OTHER), F(struct comm_op, name, CV_ID), F(struct comm_op, cat, CV_ID),
};
static const struct cache_field f_ccounter[] = {
	F(struct ccounter, pid, CV_OTHER), F(struct ccounter, name, CV_ID), F(struct ccounter, key, CV_ID),
	F(struct ccounter, n, CV_COUNT), F(struct ccounter, pid_is_str, CV_BOOL),
};
static const struct cache_field f_step[] = {
	F(struct step, number, CV_OTHER), F(struct step, ts, CV_TIME), F(struct step, dur, CV_TIME),
	F(struct step, ref.track, CV_ID), F(struct step, ref.idx, CV_ID), F(struct step, gpu, CV_BOOL),
};
/* the header's scalars; its identity and key are left out: a change there is a stale file */
static const struct cache_field f_header[] = {
	F(struct header, format, CV_ENUM), F(struct header, header_bytes, CV_COUNT),
	F(struct header, nsections, CV_COUNT), F(struct header, file_bytes, CV_COUNT),
};
static const struct cache_field f_section[] = {
	F(struct section, kind, CV_ENUM), F(struct section, elem, CV_COUNT), F(struct section, offset, CV_COUNT),
	F(struct section, length, CV_COUNT),
};

static const struct {
	const struct cache_field *fields;
	uint32_t n;
} part_fields[S__COUNT + 2] = {
	[S_META] = { FIELDS(f_meta) }, [S_TEXT] = { FIELDS(f_byte) }, [S_WARN_TAGS] = { FIELDS(f_warn_tag) },
	[S_STR_LEN] = { FIELDS(f_u32_count) }, [S_STR_HASH] = { FIELDS(f_u64) }, [S_STR_SLOTS] = { FIELDS(f_u32_id) },
	[S_STR_BYTES] = { FIELDS(f_byte) }, [S_TRACKS] = { FIELDS(f_ctrack) }, [S_SLICES] = { FIELDS(f_slice) },
	[S_SLICE_GPU] = { FIELDS(f_u32_id) }, [S_SLICE_ARGS] = { FIELDS(f_u64) }, [S_LONG_DURS] = { FIELDS(f_long_dur) },
	[S_CATS] = { FIELDS(f_u32_id) }, [S_ROWS] = { FIELDS(f_crow) }, [S_ROW_IDX] = { FIELDS(f_u32_id) },
	[S_ROW_SUM] = { FIELDS(f_time) }, [S_ROW_MAX] = { FIELDS(f_u32_id) }, [S_RT_FIRST] = { FIELDS(f_u32_count) },
	[S_RT_N] = { FIELDS(f_u32_count) }, [S_RT_SPANS] = { FIELDS(f_span) }, [S_BUSY] = { FIELDS(f_span) },
	[S_BUSY_SUM] = { FIELDS(f_time) }, [S_PROCESSES] = { FIELDS(f_process) }, [S_DEVICES] = { FIELDS(f_device) },
	[S_GPU] = { FIELDS(f_gpu) }, [S_GPU_PLACES] = { FIELDS(f_gpu_place) }, [S_WIDE_IDS] = { FIELDS(f_u64) },
	[S_GPU_BYTES] = { FIELDS(f_gpu_bytes) }, [S_LAUNCHES] = { FIELDS(f_launch) }, [S_ASIDE] = { FIELDS(f_aside) },
	[S_FLOWS] = { FIELDS(f_flow) }, [S_INSTANTS] = { FIELDS(f_instant) }, [S_MEM] = { FIELDS(f_mem) },
	[S_FLOPS] = { FIELDS(f_flops) }, [S_COMM] = { FIELDS(f_comm) }, [S_COUNTERS] = { FIELDS(f_ccounter) },
	[S_COUNTER_TS] = { FIELDS(f_time) }, [S_COUNTER_VAL] = { FIELDS(f_u64) }, [S_STEPS] = { FIELDS(f_step) },
	[S_ARGS] = { FIELDS(f_byte) }, [S__COUNT] = { FIELDS(f_header) }, [S__COUNT + 1] = { FIELDS(f_section) },
};
#undef F
#undef FIELDS

unsigned cache_nparts(void) { return S__COUNT + 2; }

bool cache_part(const void *image, size_t len, unsigned i, struct cache_part *p)
{
	const struct header *h = image;

	if (i >= S__COUNT + 2 || len < HEADER_BYTES)
		return false;
	memset(p, 0, sizeof *p);
	p->fields = part_fields[i].fields;
	p->nfields = part_fields[i].n;
	if (i == S__COUNT) {
		p->name = "header";
		p->elem = offsetof(struct header, sections);
		p->count = 1;
	} else if (i == S__COUNT + 1) {
		p->name = "section table";
		p->offset = offsetof(struct header, sections);
		p->elem = sizeof(struct section);
		p->count = S__COUNT;
	} else {
		const struct section *x = &h->sections[i];
		p->name = section_names[i];
		p->offset = x->offset;
		p->elem = elem_size[i];
		if (x->offset <= len)
			p->count = ((x->length < len - x->offset ? x->length : len - x->offset)) / elem_size[i];
	}
	return true;
}

int cache_reseal(void *image, size_t len)
{
	struct header *h = image;
	struct header want;
	struct reader r;
	size_t cap = 1;
	uint64_t *sums;

	if (len < HEADER_BYTES)
		return -1;
	sums = xmalloc(cap * sizeof *sums);
	for (int s = 0; s < S__COUNT; s++) {
		struct section *x = &h->sections[s];
		if (x->offset > len || x->length > len - x->offset)
			continue;
		size_t nb = (size_t)((x->length + CACHE_BLOCK - 1) / CACHE_BLOCK);
		if (nb > cap)
			sums = xreallocarray(sums, cap = nb, sizeof *sums);
		for (size_t b = 0; b < nb; b++) {
			uint64_t at = (uint64_t)b * CACHE_BLOCK;
			size_t n = x->length - at < CACHE_BLOCK ? (size_t)(x->length - at) : CACHE_BLOCK;
			sums[b] = checksum64((const char *)image + x->offset + at, n, b);
		}
		x->check = checksum64(sums, nb * sizeof *sums, (uint64_t)s);
	}
	free(sums);
	h->check = checksum64(h, offsetof(struct header, check), 0);

	/* what header_ok checks, but for the key */
	memset(&want, 0, sizeof want);
	fill_header_id(&want, &h->key);
	if (memcmp(h->magic, CACHE_MAGIC, 8) != 0 || h->format != CACHE_FORMAT_VERSION || h->endian != ENDIAN_MARK ||
	    h->header_bytes != HEADER_BYTES || h->layout != want.layout ||
	    memcmp(h->version, want.version, sizeof h->version) != 0 || h->build_len != want.build_len ||
	    memcmp(h->build, want.build, sizeof h->build) != 0)
		return 0;
	memset(&r, 0, sizeof r);
	r.base = image;
	r.h = h;
	bool ok = table_ok(&r, len);
	free(r.cause);
	return ok ? 1 : 0;
}
