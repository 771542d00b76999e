/* cache_format.c: what the cache's writer and reader agree on: the sections' element sizes
 * and names, the identity of the build that writes (its structs' layout, its version and
 * build id), and where the sections lie in the file. */
#include "src/cache_format.h"

#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lib/checksum.h"
#include "lib/xalloc.h"

/* clang-format off */
const uint32_t cache_elem_size[S__COUNT] = {
	[S_META] = sizeof(struct meta), [S_TEXT] = 1, [S_WARN_TAGS] = sizeof(struct warning_tag),
	[S_STR_LEN] = sizeof(uint32_t), [S_STR_HASH] = sizeof(uint64_t), [S_STR_SLOTS] = sizeof(uint32_t),
	[S_STR_BYTES] = 1, [S_TRACKS] = sizeof(struct ctrack), [S_SLICES] = sizeof(struct slice),
	[S_SLICE_GPU] = sizeof(struct gpu_word), [S_SLICE_ARGS] = sizeof(uint64_t),
	[S_LONG_DURS] = sizeof(struct long_dur), [S_CATS] = sizeof(uint32_t),
	[S_ROWS] = sizeof(struct crow), [S_ROW_LO] = sizeof(uint16_t), [S_ROW_BASE] = sizeof(uint32_t), [S_ROW_WIDE] = sizeof(uint32_t), [S_ROW_SUM] = sizeof(int64_t),
	[S_ROW_MAX] = sizeof(uint32_t), [S_RT_FIRST] = sizeof(uint32_t), [S_RT_N] = sizeof(uint32_t),
	[S_RT_SPANS] = sizeof(struct span), [S_BUSY] = sizeof(struct span), [S_BUSY_SUM] = sizeof(int64_t),
	[S_PROCESSES] = sizeof(struct process), [S_DEVICES] = sizeof(struct device_props),
	[S_GPU] = sizeof(struct gpu_info), [S_GPU_PLACES] = sizeof(struct gpu_place),
	[S_WIDE_IDS] = sizeof(int64_t), [S_GPU_BYTES] = sizeof(struct gpu_bytes), [S_LAUNCHES] = sizeof(struct kernel_launch),
	[S_ASIDE] = sizeof(struct aside_slice), [S_FLOWS] = sizeof(struct flow),
	[S_INSTANTS] = sizeof(struct instant), [S_MEM] = sizeof(struct mem_value), [S_MEM_RUNS] = sizeof(struct mem_run),
	[S_FLOPS] = sizeof(struct flop_count), [S_COMM] = sizeof(struct comm_op),
	[S_COUNTERS] = sizeof(struct ccounter), [S_COUNTER_TS] = sizeof(int64_t), [S_COUNTER_VAL] = sizeof(double),
	[S_STEPS] = sizeof(struct step), [S_ARGS] = 1, [S_BLOCKS] = sizeof(struct event_block), [S_SERIES] = sizeof(struct sample_series), [S_KINDS] = sizeof(struct slice_kind),
};
/* clang-format on */

/* A checksum of the sizes and member offsets of everything stored as it is in memory: a
 * build whose structs differ refuses the file. */
static uint64_t layout_hash(void)
{
	static const uint64_t v[] = {
		sizeof(struct slice),
		offsetof(struct slice, dur32),
		offsetof(struct slice, kind),
		sizeof(struct slice_kind),
		offsetof(struct slice_kind, depth),
		sizeof(struct long_dur),
		sizeof(struct aside_slice),
		offsetof(struct slice_kind, cat_ix),
		TRACE_MAX_CATS,
		sizeof(struct gpu_info),
		offsetof(struct gpu_info, place),
		offsetof(struct gpu_info, launch),
		sizeof(struct gpu_place),
		offsetof(struct gpu_place, pg),
		sizeof(struct gpu_bytes),
		sizeof(struct kernel_launch),
		offsetof(struct kernel_launch, blocks_per_sm),
		offsetof(struct kernel_launch, smem),
		offsetof(struct gpu_info, ext_code),
		sizeof(struct gpu_word),
		offsetof(struct gpu_word, before),
		offsetof(struct gpu_info, peer),
		sizeof(struct span),
		sizeof(struct warning_tag),
		sizeof(struct process),
		offsetof(struct process, name),
		offsetof(struct process, sort_index),
		sizeof(struct device_props),
		offsetof(struct device_props, total_global_mem),
		sizeof(struct flow),
		offsetof(struct flow, from),
		offsetof(struct flow, ts_from),
		sizeof(struct instant),
		offsetof(struct instant, name),
		offsetof(struct instant, scope),
		sizeof(struct mem_value),
		offsetof(struct mem_value, bytes),
		sizeof(struct mem_run),
		offsetof(struct mem_run, track),
		offsetof(struct mem_run, total_reserved),
		offsetof(struct mem_run, flags),
		sizeof(struct flop_count),
		sizeof(struct comm_op),
		offsetof(struct comm_op, cat),
		sizeof(struct step),
		offsetof(struct step, ref),
		offsetof(struct step, gpu),
		sizeof(struct quality),
		Q__COUNT,
		QUALITY_EXAMPLES,
		SC__COUNT,
		ROW_BLOCK,
		ROW_WIDE,
		ROW_SPAN,
		sizeof(struct meta),
		sizeof(struct ctrack),
		sizeof(struct crow),
		sizeof(struct ccounter),
		sizeof(struct header),
		S__COUNT,
		CACHE_BLOCK,
		sizeof(struct event_block),
		offsetof(struct event_block, flags),
		sizeof(struct sample_series),
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
		uint64_t v = checksum64(__DATE__ " " __TIME__ " " PACKAGE_VERSION,
		                        sizeof(__DATE__ " " __TIME__ " " PACKAGE_VERSION), 1);
		memcpy(h->build, &v, sizeof v);
		h->build_len = sizeof v;
	}
}

void cache_header_id(struct header *h, const struct cache_key *key)
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

/* clang-format off */
const char *const cache_section_names[S__COUNT] = {
	"meta", "text", "warning tags", "string lengths", "string hashes", "string slots", "string bytes",
	"tracks", "slices", "slice GPU links", "slice args", "long slice lengths", "categories", "rows", "row index distances", "row index bases", "row index wide", "row sums", "row max trees", "row tree nodes",
	"row tree counts", "row tree spans", "busy spans", "busy sums", "processes", "devices", "GPU infos",
	"GPU places", "wide ids", "GPU byte counts", "kernel launches", "set-aside slices", "flows", "instants", "memory samples", "memory sample runs", "FLOP counts", "collective ops",
	"counters", "counter times", "counter values", "steps", "args store", "event blocks", "sample series", "slice kinds",
};
/* clang-format on */

/* Checks the section table of a header whose checksum holds, for a file of SIZE bytes:
 * the sections lie where the writer puts them, in order, each at the first aligned
 * offset after the one before, the first right after the header, the last ending the
 * file, so that none overlaps the header or another (a value checked in one section
 * cannot change under a write to another). */
bool cache_table_ok(const struct header *h, uint64_t size, char **cause)
{
	uint64_t at = HEADER_BYTES;

	if (h->file_bytes != size)
		return cache_refuse(cause, "%llu bytes long where %llu were written", (unsigned long long)size,
		                    (unsigned long long)h->file_bytes);
	if (h->nsections != S__COUNT)
		return cache_refuse(cause, "holds %u sections, not %u", h->nsections, (unsigned)S__COUNT);
	for (int s = 0; s < S__COUNT; s++) {
		const struct section *x = &h->sections[s];
		if (x->kind != (uint32_t)s || x->elem != cache_elem_size[s] || x->offset > size ||
		    x->length > size - x->offset || x->length % cache_elem_size[s] != 0)
			return cache_refuse(cause, "its section of %s does not fit the file", cache_section_names[s]);
		if (x->offset != at)
			return cache_refuse(cause, "its section of %s %s", cache_section_names[s],
			                    x->offset < at ? "overlaps the header or another section"
			                                   : "is not where it belongs");
		at = x->offset + x->length;
		if (s + 1 < S__COUNT)
			at = (at + CACHE_ALIGN - 1) / CACHE_ALIGN * CACHE_ALIGN;
	}
	if (at != size)
		return cache_refuse(cause, "its sections end before the file does");
	return true;
}

bool cache_refuse(char **cause, const char *fmt, ...)
{
	va_list ap;
	if (*cause == NULL) {
		va_start(ap, fmt);
		*cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return false;
}
