/* cache_write.c: writes a loaded model to one cache file (src/cache.h, cache_write).
 *
 * Each section streams through a buffer of one checksum block (CACHE_BLOCK), so a
 * section's checksum is known when its last byte is written and the header goes in last. */
#include "src/cache_format.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/checksum.h"
#include "lib/xalloc.h"

struct writer {
	int fd;
	char *block; /* the current section's block being filled */
	size_t fill;
	uint64_t off;   /* file bytes written */
	uint64_t *sums; /* checksums of the current section's full blocks */
	uint32_t nsums, sums_cap;
	struct header *h;
	int err; /* errno of the first failed write, or 0 */
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
	w->h->sections[kind].elem = cache_elem_size[kind];
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
		put(w, p, n * cache_elem_size[kind]);
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
	cache_header_id(h, key);
	h->nsections = S__COUNT;
	write_all(&w, h, HEADER_BYTES); /* a placeholder: the real header goes in last */

	memset(&m, 0, sizeof m);
#define COPY(f) m.f = t->f;
	CACHE_META_FIELDS(COPY)
#undef COPY
	memcpy(m.count_by_ph, t->count_by_ph, sizeof m.count_by_ph);
	m.seed = st->seed;
	m.str_bytes = 0;
	for (uint32_t i = 0; i < st->n; i++)
		m.str_bytes += (uint64_t)st->len[i] + 1;
	m.nwarnings = t->nwarnings;
	m.nslots = st->nslots;
	m.has_error = t->error != NULL;
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
#define COPY(f) c.f = tr->f;
		CACHE_TRACK_FIELDS(COPY)
#undef COPY
		c.nslices = tr->nslices;
		c.nlong = tr->nlong;
		c.nbusy = tr->nbusy;
		c.nrows = tr->nrows;
		c.rt_leaves = tr->row_tree != NULL ? tr->row_tree->leaves : 0;
		c.rt_nspans = 0;
		if (tr->row_tree != NULL)
			for (uint32_t k = 1; k < 2 * tr->row_tree->leaves; k++)
				if (tr->row_tree->first[k] + tr->row_tree->n[k] > c.rt_nspans)
					c.rt_nspans = tr->row_tree->first[k] + tr->row_tree->n[k];
		c.has_gpu = tr->gpu_words != NULL;
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
		if (t->tracks[i].gpu_words != NULL)
			put(&w, t->tracks[i].gpu_words,
			    (size_t)(t->tracks[i].nslices + 63) / 64 * sizeof(struct gpu_word));
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
			struct crow c = { row->max_dur, row->n, row->max_tree != NULL, row->nwide, 0 };
			put(&w, &c, sizeof c);
		}
	end(&w, S_ROWS);
	begin(&w, S_ROW_LO);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++)
			put(&w, t->tracks[i].rows[r].lo, (size_t)t->tracks[i].rows[r].n * sizeof(uint16_t));
	end(&w, S_ROW_LO);
	begin(&w, S_ROW_BASE);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++)
			put(&w, t->tracks[i].rows[r].base,
			    (t->tracks[i].rows[r].n + ROW_BLOCK - 1) / ROW_BLOCK * sizeof(uint32_t));
	end(&w, S_ROW_BASE);
	begin(&w, S_ROW_WIDE);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint16_t r = 0; r < t->tracks[i].nrows; r++)
			put(&w, t->tracks[i].rows[r].wide,
			    (size_t)t->tracks[i].rows[r].nwide * ROW_BLOCK * sizeof(uint32_t));
	end(&w, S_ROW_WIDE);
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
			put(&w, t->tracks[i].row_tree->first,
			    2 * (size_t)t->tracks[i].row_tree->leaves * sizeof(uint32_t));
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
	put_array(&w, S_MEM_RUNS, t->mem_runs, t->nmem_runs);
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
	put_array(&w, S_BLOCKS, t->blocks, t->nblocks);
	put_array(&w, S_SERIES, t->series, t->nseries);
	put_array(&w, S_KINDS, t->kinds, t->nkinds);

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
