/* test_cache.c: a forged cache is refused (src/cache.h). Whoever can write a cache file
 * can recompute its checksums (cache_reseal does as they would), so the reader must check
 * the values themselves as strictly as the parser checks its input: each case below
 * changes one value of a sound cache to one the parser never gives (a bool that is
 * neither, an enum past its range, a time past the builder's limits, an order or a sum
 * the index relies on, sections that overlap), reseals it, and cache_read must refuse it
 * as damaged. The sound cache itself, and that of a file whose data-quality counts have
 * no example, must be read back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/cache_dir.h"
#include "parsers/load.h"
#include "src/builder.h"
#include "src/cache.h"
#include "tests/unit/tap.h"

/* CPU ops nested and partly overlapping, runtime calls and their kernels (one of them
 * overlapping another on the stream), a memcpy with its bytes, a gpu_user_annotation, a
 * step on each side, a B/E pair on a thread named by a string, a slice of 5 s (past
 * 32 bits of ns), flows, memory samples, instants, counters and metadata. */
static const char trace_json[] =
	"{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},\n"
	"\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU0\", \"totalGlobalMem\": 42297524224, \"computeMajor\": 8,"
	" \"computeMinor\": 0, \"maxThreadsPerMultiprocessor\": 2048, \"numSms\": 108}],\n"
	"\"baseTimeNanoseconds\": 1700000000000000000,\n"
	"\"traceEvents\": [\n"
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}},\n"
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":2,\"ts\":100,\"dur\":500},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":110,\"dur\":100,"
	"\"args\":{\"External id\":7,\"flops\":48}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":120,\"dur\":20,"
	"\"args\":{\"correlation\":11,\"External id\":7}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":2,\"ts\":250,\"dur\":10,"
	"\"args\":{\"correlation\":13}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::partial\",\"pid\":1,\"tid\":2,\"ts\":380,\"dur\":300},\n"
	"{\"ph\":\"B\",\"cat\":\"python_function\",\"name\":\"fwd\",\"pid\":1,\"tid\":\"worker\",\"ts\":150},\n"
	"{\"ph\":\"E\",\"pid\":1,\"tid\":\"worker\",\"ts\":450},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long op\",\"pid\":1,\"tid\":\"worker\",\"ts\":500,\"dur\":5000000000},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm\",\"pid\":0,\"tid\":7,\"ts\":150,\"dur\":60,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":11,\"grid\":[4,1,1],\"block\":[128,1,1]}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"overlap\",\"pid\":0,\"tid\":7,\"ts\":180,\"dur\":20,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":99}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":330,\"dur\":10,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":13,\"bytes\":4096}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":300,"
	"\"args\":{\"device\":0,\"stream\":7}},\n"
	"{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":11,\"pid\":1,\"tid\":2,\"ts\":120},\n"
	"{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":11,\"pid\":0,\"tid\":7,\"ts\":150,\"bp\":\"e\"},\n"
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":2,\"ts\":115,\"s\":\"t\","
	"\"args\":{\"Total Allocated\":1024,\"Total Reserved\":2048,\"Bytes\":512,\"Addr\":1234,\"Device Type\":1,"
	"\"Device Id\":0}},\n"
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":2,\"ts\":116,\"s\":\"t\","
	"\"args\":{\"Total Allocated\":2048,\"Total Reserved\":4096,\"Bytes\":1024,\"Addr\":1234,\"Device Type\":1,"
	"\"Device Id\":0}},\n"
	"{\"ph\":\"i\",\"cat\":\"mark\",\"name\":\"checkpoint\",\"pid\":1,\"tid\":2,\"ts\":400,\"s\":\"p\"},\n"
	"{\"ph\":\"C\",\"name\":\"GPU Memory\",\"pid\":0,\"ts\":100,\"args\":{\"used\":1.5}},\n"
	"{\"ph\":\"C\",\"name\":\"GPU Memory\",\"pid\":0,\"ts\":300,\"args\":{\"used\":2.5}}\n"
	"]}\n";

/* A process name and two events that cannot be parsed: counts with no example, no track. */
static const char no_track_json[] =
	"{\"traceEvents\": [{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"p\"}},\n"
	"{\"ph\":\"X\" \"name\":1},\n{\"ph\":\"X\", \"ts\" 3}\n]}\n";

static int trace_fd = -1, cache_fd = -1;
static char trace_path[64];
static struct cache_key key;
static uint8_t *image;
static size_t image_len;

static void write_fd(int fd, const void *p, size_t n)
{
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 || (n > 0 && write(fd, p, n) != (ssize_t)n))
		fatal("cannot write a memfd");
}

/* Loads JSON and writes its cache into IMAGE. */
static void make_cache(const char *json)
{
	struct load_options opt = { .quiet = true };
	char *cause = NULL;
	struct stat sb;

	if (trace_fd < 0) {
		trace_fd = memfd_create("test_cache_trace", MFD_CLOEXEC);
		cache_fd = memfd_create("test_cache", MFD_CLOEXEC);
		if (trace_fd < 0 || cache_fd < 0)
			fatal("memfd_create failed");
		snprintf(trace_path, sizeof trace_path, "/proc/self/fd/%d", trace_fd);
	}
	write_fd(trace_fd, json, strlen(json));
	if (fstat(trace_fd, &sb) != 0)
		fatal("fstat failed");
	memset(&key, 0, sizeof key);
	key.size = (uint64_t)sb.st_size;
	key.ino = (uint64_t)sb.st_ino;
	struct trace *t = load_trace(trace_path, &opt);
	if (t->status == LOAD_FAILED)
		fatal("the test's trace does not load: %s", t->error);
	write_fd(cache_fd, "", 0);
	if (cache_write(cache_fd, t, &key, "F", 1, &cause) != 0)
		fatal("cache_write: %s", cause);
	trace_free(t);
	if (fstat(cache_fd, &sb) != 0)
		fatal("fstat failed");
	free(image);
	image_len = (size_t)sb.st_size;
	image = xmalloc(image_len);
	if (pread(cache_fd, image, image_len, 0) != (ssize_t)image_len)
		fatal("cannot read the cache back");
}

/* Reads the image BUF (LEN bytes) back: the trace (the caller frees it), or NULL with the
 * refusal in *WHY and *CAUSE (allocated). */
static struct trace *read_back(const uint8_t *buf, size_t len, int *why, char **cause)
{
	const void *args;
	size_t args_len;
	write_fd(cache_fd, buf, len);
	*cause = NULL;
	*why = 0;
	return cache_read(cache_fd, trace_path, &key, &args, &args_len, cause, why);
}

static bool find_part(const uint8_t *buf, size_t len, const char *name, struct cache_part *p, unsigned *index)
{
	for (unsigned i = 0; i < cache_nparts(); i++)
		if (cache_part(buf, len, i, p) && strcmp(p->name, name) == 0) {
			if (index != NULL)
				*index = i;
			return true;
		}
	fatal("no part %s", name);
}

static const struct cache_field *find_field(const struct cache_part *p, const char *name)
{
	for (uint32_t i = 0; i < p->nfields; i++)
		if (strcmp(p->fields[i].name, name) == 0)
			return &p->fields[i];
	fatal("no field %s in %s", name, p->name);
}

static uint8_t *field_at(uint8_t *buf, size_t len, const char *part, const char *field, uint64_t elem,
                         const struct cache_field **f)
{
	struct cache_part p;
	find_part(buf, len, part, &p, NULL);
	*f = find_field(&p, field);
	if (elem >= p.count)
		fatal("%s has %llu elements, not %llu", part, (unsigned long long)p.count,
		      (unsigned long long)elem + 1);
	return buf + p.offset + elem * p.elem + (*f)->offset;
}

static uint64_t get(uint8_t *buf, const char *part, const char *field, uint64_t elem)
{
	const struct cache_field *f;
	uint8_t *at = field_at(buf, image_len, part, field, elem, &f);
	uint64_t v = 0;
	memcpy(&v, at, f->size); /* little-endian hosts: the low bytes */
	return v;
}

static void set(uint8_t *buf, const char *part, const char *field, uint64_t elem, uint64_t v)
{
	const struct cache_field *f;
	uint8_t *at = field_at(buf, image_len, part, field, elem, &f);
	memcpy(at, &v, f->size);
}

static uint64_t count_of(const uint8_t *buf, const char *part)
{
	struct cache_part p;
	find_part(buf, image_len, part, &p, NULL);
	return p.count;
}

/* The first element of PART whose FIELD is V, or fatal. */
static uint64_t first_with(uint8_t *buf, const char *part, const char *field, uint64_t v)
{
	for (uint64_t i = 0; i < count_of(buf, part); i++)
		if (get(buf, part, field, i) == v)
			return i;
	fatal("no %s with %s %llu", part, field, (unsigned long long)v);
}

typedef void (*forge_fn)(uint8_t *buf);

/* Forges a copy of the sound cache with FORGE, reseals it, and checks it is refused. */
static void refused(forge_fn forge, const char *what)
{
	uint8_t *buf = xmalloc(image_len);
	char *cause;
	int why;
	memcpy(buf, image, image_len);
	forge(buf);
	cache_reseal(buf, image_len);
	struct trace *t = read_back(buf, image_len, &why, &cause);
	ok(t == NULL && why == CACHE_DAMAGED, "refused: %s (%s)", what, cause != NULL ? cause : "accepted");
	trace_free(t);
	free(cause);
	free(buf);
}

/* ---- the forgeries ------------------------------------------------------------------------ */

static void meta_bool(uint8_t *b) { set(b, "meta", "has_base", 0, 2); }
static void meta_legacy(uint8_t *b) { set(b, "meta", "legacy", 0, 255); }
static void meta_status(uint8_t *b) { set(b, "meta", "status", 0, LOAD_TRUNCATED); } /* with no error text */
static void meta_start(uint8_t *b) { set(b, "meta", "start", 0, (uint64_t)INT64_MIN); }
static void meta_end(uint8_t *b) { set(b, "meta", "end", 0, (uint64_t)INT64_MAX); }
static void track_nested_bool(uint8_t *b) { set(b, "tracks", "nested", 0, 2); }
static void track_pid_bool(uint8_t *b) { set(b, "tracks", "pid_is_str", 0, 255); }
static void track_kind(uint8_t *b) { set(b, "tracks", "kind", 0, TRACK_OTHER + 1); }
static void track_nested_lie(uint8_t *b)
{
	/* the first track whose rows nest: say they do not */
	uint64_t i;
	for (i = 0; i < count_of(b, "tracks"); i++)
		if (get(b, "tracks", "nested", i) == 1)
			break;
	set(b, "tracks", "nested", i, 0);
}
static void track_gpu_slices(uint8_t *b)
{
	uint64_t i = first_with(b, "tracks", "kind", TRACK_GPU_COMPUTE);
	set(b, "tracks", "gpu_slices", i, UINT32_MAX);
}
static void track_annotation_rows(uint8_t *b)
{
	uint64_t i = first_with(b, "tracks", "kind", TRACK_CPU);
	set(b, "tracks", "annotation_rows", i, 1);
}
static void track_busy_total(uint8_t *b) { set(b, "tracks", "busy_total", 0, (uint64_t)INT64_MAX); }
static void row_max_tree(uint8_t *b) { set(b, "rows", "has_max_tree", 0, 2); }
static void row_no_max_tree(uint8_t *b) { set(b, "rows", "has_max_tree", 0, 0); }
static void row_max_dur(uint8_t *b) { set(b, "rows", "max_dur", 0, get(b, "rows", "max_dur", 0) + 1); }
static void row_sum(uint8_t *b) { set(b, "row sums", "value", 0, (uint64_t)INT64_MAX); }
static void row_order(uint8_t *b)
{
	/* the first row of two slices or more lists its first twice (its second entry's
	 * distance from the block's first 0) */
	uint64_t at = 0;
	for (uint64_t r = 0; r < count_of(b, "rows"); r++) {
		uint64_t n = get(b, "rows", "n", r);
		if (n >= 2) {
			set(b, "row index distances", "value", at + 1, 0);
			return;
		}
		at += n;
	}
	fatal("no row of two slices");
}
/* The cases below forge a cache whose rows' blocks are all wide (TTRACE_TEST_ROW_SPAN=0). */
static uint64_t first_wide_base(uint8_t *b)
{
	for (uint64_t i = 0; i < count_of(b, "row index bases"); i++)
		if (get(b, "row index bases", "value", i) & ROW_WIDE)
			return i;
	fatal("no wide block");
}
static void row_wide_place(uint8_t *b)
{
	uint64_t i = first_wide_base(b);
	set(b, "row index bases", "value", i, get(b, "row index bases", "value", i) + 1);
}
static void row_wide_unnamed(uint8_t *b)
{
	uint64_t i = first_wide_base(b);
	set(b, "row index bases", "value", i, get(b, "row index wide", "value", 0));
}
static void row_wide_count(uint8_t *b)
{
	for (uint64_t r = 0; r < count_of(b, "rows"); r++)
		if (get(b, "rows", "nwide", r) > 0) {
			set(b, "rows", "nwide", r, get(b, "rows", "nwide", r) + 1);
			return;
		}
	fatal("no row with a wide block");
}
static void row_wide_entry(uint8_t *b) { set(b, "row index wide", "value", 1, UINT32_MAX - 1); }
static void row_wide_swapped(uint8_t *b)
{
	/* a wide block lists its first two entries backwards */
	uint64_t x = get(b, "row index wide", "value", 0), y = get(b, "row index wide", "value", 1);
	set(b, "row index wide", "value", 0, y);
	set(b, "row index wide", "value", 1, x);
}
static void slice_ts_max(uint8_t *b)
{
	uint64_t n = get(b, "tracks", "nslices", 0);
	set(b, "slices", "ts", n - 1, (uint64_t)INT64_MAX); /* the last of its track: still in order */
}
static void slice_ts_limit(uint8_t *b) { set(b, "slices", "ts", 0, (uint64_t)-BUILDER_TIME_LIMIT); }
static void slice_unsorted(uint8_t *b) { set(b, "slices", "ts", 0, get(b, "slices", "ts", 1) + 1); }
static void slice_class(uint8_t *b)
{
	uint64_t k = get(b, "slices", "kind", 0);
	set(b, "slice kinds", "cls, flags", k, (get(b, "slice kinds", "cls, flags", k) & 0xf0) | SC__COUNT);
}
static void slice_bad_flags(uint8_t *b)
{
	uint64_t k = get(b, "slices", "kind", 0);
	set(b, "slice kinds", "cls, flags", k, get(b, "slice kinds", "cls, flags", k) | 0x80);
}
static void slice_bad_depth(uint8_t *b)
{
	/* a slice of row 1 given a kind of row 0 (still a row of the track) */
	uint64_t row0 = UINT64_MAX;
	for (uint64_t k = 0; k < count_of(b, "slice kinds") && row0 == UINT64_MAX; k++)
		if (get(b, "slice kinds", "depth", k) == 0)
			row0 = k;
	for (uint64_t i = 0; i < count_of(b, "slices") && row0 != UINT64_MAX; i++)
		if (get(b, "slice kinds", "depth", get(b, "slices", "kind", i)) == 1) {
			set(b, "slices", "kind", i, row0);
			return;
		}
	fatal("no slice at depth 1");
}
static void slice_kind_past(uint8_t *b) { set(b, "slices", "kind", 0, count_of(b, "slice kinds")); }
static void kind_name_past(uint8_t *b) { set(b, "slice kinds", "name", 0, count_of(b, "string lengths")); }
static void long_dur_max(uint8_t *b) { set(b, "long slice lengths", "dur", 0, (uint64_t)INT64_MAX); }
static void busy_span(uint8_t *b) { set(b, "busy spans", "end", 0, get(b, "busy spans", "end", 0) + 1); }
static void process_bool(uint8_t *b) { set(b, "processes", "pid_is_str", 0, 2); }
static void step_bool(uint8_t *b) { set(b, "steps", "gpu", 0, 5); }
static void step_dur(uint8_t *b) { set(b, "steps", "dur", 0, (uint64_t)INT64_MAX); }
static void step_order(uint8_t *b) { set(b, "steps", "gpu", 0, 1); } /* a CPU step said to be the GPU's */
static void gpu_word_before(uint8_t *b) { set(b, "slice GPU links", "before", 0, 1); }
static void gpu_word_bits(uint8_t *b) { set(b, "slice GPU links", "bits", 0, ~(uint64_t)0); }
static void gpu_first_off(uint8_t *b) { set(b, "tracks", "gpu_first", 0, 1); }
static void gpu_count_past(uint8_t *b)
{
	uint64_t n = count_of(b, "tracks"); /* the last track's facts said to end past the facts */
	set(b, "tracks", "gpu_first", n - 1, count_of(b, "GPU infos"));
}
static void counter_bool(uint8_t *b) { set(b, "counters", "pid_is_str", 0, 2); }
static void counter_ts(uint8_t *b) { set(b, "counter times", "value", 1, (uint64_t)INT64_MAX); }
static void instant_ts(uint8_t *b) { set(b, "instants", "ts", 0, (uint64_t)BUILDER_TIME_LIMIT); }
static void flow_ts(uint8_t *b) { set(b, "flows", "ts_to", 0, (uint64_t)INT64_MIN); }
static void mem_ts(uint8_t *b) { set(b, "memory samples", "ts", 0, (uint64_t)INT64_MAX); }
static void mem_flags(uint8_t *b) { set(b, "memory sample runs", "flags", 0, 4); }
static void mem_device_type(uint8_t *b) { set(b, "memory sample runs", "device_type", 0, (uint64_t)-2); }
static void mem_run_track(uint8_t *b) { set(b, "memory sample runs", "track", 1, count_of(b, "tracks")); }
static void mem_run_start(uint8_t *b) { set(b, "memory sample runs", "first", 0, 1); }
static void mem_run_order(uint8_t *b) { set(b, "memory sample runs", "first", 1, 0); }
static void mem_run_past(uint8_t *b) { set(b, "memory sample runs", "first", 1, count_of(b, "memory samples")); }
static void mem_run_alike(uint8_t *b) /* the second run says what the first does */
{
	set(b, "memory sample runs", "total_reserved", 1, get(b, "memory sample runs", "total_reserved", 0));
}
static void mem_run_pad(uint8_t *b) { set(b, "memory sample runs", "pad", 0, 1); }

static void flops_ts(uint8_t *b) { set(b, "FLOP counts", "ts", 0, (uint64_t)INT64_MIN); }

static unsigned section_index(const uint8_t *b, const char *name)
{
	struct cache_part p;
	unsigned i;
	find_part(b, image_len, name, &p, &i);
	return i;
}
static void mem_runs_none(uint8_t *b) /* samples, and no run to say whose they are */
{
	set(b, "section table", "length", section_index(b, "memory sample runs"), 0);
}
static void sections_overlap(uint8_t *b)
{
	/* the GPU links of the slices read from the slices' bytes */
	unsigned s = section_index(b, "slices"), g = section_index(b, "slice GPU links");
	set(b, "section table", "offset", g, get(b, "section table", "offset", s));
}
static void section_in_header(uint8_t *b)
{
	unsigned m = section_index(b, "meta");
	set(b, "section table", "offset", m, 0);
}
static void sections_swapped(uint8_t *b)
{
	/* two sections of the same size trade places: each still fits the file */
	unsigned x = section_index(b, "row sums"), y = section_index(b, "busy sums");
	uint64_t ox = get(b, "section table", "offset", x), lx = get(b, "section table", "length", x);
	uint64_t oy = get(b, "section table", "offset", y), ly = get(b, "section table", "length", y);
	set(b, "section table", "offset", x, oy);
	set(b, "section table", "length", x, ly);
	set(b, "section table", "offset", y, ox);
	set(b, "section table", "length", y, lx);
}

int main(void)
{
	char *cause;
	int why;

	cache_dir_disable();
	make_cache(trace_json);
	uint8_t *copy = xmalloc(image_len);
	memcpy(copy, image, image_len);
	is_int(cache_reseal(copy, image_len), 1, "a sound cache resealed passes the header's checks");
	ok(memcmp(copy, image, image_len) == 0, "and resealing it changes nothing");
	free(copy);
	struct trace *t = read_back(image, image_len, &why, &cause);
	ok(t != NULL, "the sound cache is read back (%s)", cause != NULL ? cause : "no refusal");
	ok(t != NULL && t->ntracks == 3 && t->nsteps == 2 && t->ncounters == 1 && t->nmem == 2 && t->nmem_runs == 2 &&
	           t->nflows == 1 && t->nprocesses == 2 && t->nflops == 1,
	   "with the tracks, steps, counters, memory samples, flows, processes and FLOP counts the cases change");
	trace_free(t);
	free(cause);

	struct {
		forge_fn fn;
		const char *what;
	} cases[] = {
		{ meta_bool, "the trace's has_base is 2" },
		{ meta_legacy, "the trace's legacy is 255" },
		{ meta_status, "a truncated status with no error text" },
		{ meta_start, "the trace starts at INT64_MIN" },
		{ meta_end, "the trace ends at INT64_MAX" },
		{ track_nested_bool, "a track's nested is 2" },
		{ track_pid_bool, "a track's pid_is_str is 255" },
		{ track_kind, "a track of a kind past TRACK_OTHER" },
		{ track_nested_lie, "a track whose rows nest said not to" },
		{ track_gpu_slices, "a stream of UINT32_MAX GPU operations (they size the analyses' arrays)" },
		{ track_annotation_rows, "a CPU thread with an annotation row" },
		{ track_busy_total, "a busy total of INT64_MAX" },
		{ row_max_tree, "a row's has_max_tree is 2" },
		{ row_no_max_tree, "a row without its max tree" },
		{ row_max_dur, "a row's longest length is not that of its slices" },
		{ row_sum, "a row's prefix sum is INT64_MAX" },
		{ row_order, "a row lists a slice twice" },
		{ slice_ts_max, "a slice starts at INT64_MAX" },
		{ slice_ts_limit, "a slice starts at -BUILDER_TIME_LIMIT" },
		{ slice_unsorted, "a track's slices are out of order" },
		{ slice_class, "a slice of a class past SC__COUNT" },
		{ slice_bad_flags, "a slice with an unknown flag" },
		{ slice_bad_depth, "a slice in a row that does not list it" },
		{ slice_kind_past, "a slice of a kind past the table" },
		{ kind_name_past, "a slice kind named past the strings" },
		{ long_dur_max, "a slice of INT64_MAX ns" },
		{ busy_span, "a busy span that is not the union of the slices" },
		{ process_bool, "a process's pid_is_str (a bool stored as it is) is 2" },
		{ step_bool, "a step's gpu (a bool stored as it is) is 5" },
		{ step_dur, "a step of INT64_MAX ns" },
		{ step_order, "a CPU step said to be a GPU step" },
		{ gpu_word_before, "a track's first GPU word counts facts before it" },
		{ gpu_word_bits, "a GPU word claims slices its track does not count" },
		{ gpu_first_off, "a track's GPU facts do not start where the tracks before end" },
		{ gpu_count_past, "the tracks' GPU facts run past the facts" },
		{ counter_bool, "a counter's pid_is_str is 2" },
		{ counter_ts, "a counter sample at INT64_MAX" },
		{ instant_ts, "an instant at BUILDER_TIME_LIMIT" },
		{ flow_ts, "a flow that ends at INT64_MIN" },
		{ mem_ts, "a memory sample at INT64_MAX" },
		{ mem_flags, "a memory sample with an unknown flag" },
		{ mem_device_type, "a memory sample of device type -2" },
		{ mem_run_track, "memory samples on a track past the tracks" },
		{ mem_run_start, "memory samples' first run starts past the first sample" },
		{ mem_run_order, "memory samples' runs out of order" },
		{ mem_run_past, "a run of memory samples starts past the samples" },
		{ mem_run_alike, "two runs of memory samples alike (equal models have equal runs)" },
		{ mem_run_pad, "a run of memory samples with padding set" },
		{ mem_runs_none, "memory samples without runs" },
		{ flops_ts, "a FLOP count at INT64_MIN" },
		{ sections_overlap, "two sections overlap" },
		{ section_in_header, "a section overlaps the header" },
		{ sections_swapped, "two sections of the same size trade places" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		refused(cases[i].fn, cases[i].what);

	/* rows whose blocks are all wide (struct row): read back as they were, and refused
	 * when forged */
	struct load_options opt = { .quiet = true };
	struct trace *narrow = load_trace(trace_path, &opt);
	setenv("TTRACE_TEST_ROW_SPAN", "0", 1);
	make_cache(trace_json);
	unsetenv("TTRACE_TEST_ROW_SPAN");
	t = read_back(image, image_len, &why, &cause);
	ok(t != NULL, "a cache of wide row blocks is read back (%s)", cause != NULL ? cause : "no refusal");
	uint32_t nwide = 0, differ = 0;
	for (uint32_t k = 0; t != NULL && k < t->ntracks; k++)
		for (uint16_t r = 0; r < t->tracks[k].nrows; r++) {
			const struct row *a = &t->tracks[k].rows[r], *b = &narrow->tracks[k].rows[r];
			nwide += a->nwide;
			for (uint32_t i = 0; i < a->n; i++)
				differ += row_idx(a, i) != row_idx(b, i);
		}
	ok(nwide >= 2 && differ == 0,
	   "its rows list the same slices as narrow ones (%u wide blocks, %u entries differ)", nwide, differ);
	trace_free(t);
	free(cause);
	trace_free(narrow);
	struct {
		forge_fn fn;
		const char *what;
	} wide_cases[] = {
		{ row_wide_place, "a wide block names the place of another" },
		{ row_wide_unnamed, "a row's wide block is not named" },
		{ row_wide_count, "a row says it has one wide block more" },
		{ row_wide_entry, "a wide block's entry is past the track's slices" },
		{ row_wide_swapped, "a wide block lists two slices backwards" },
	};
	for (size_t i = 0; i < sizeof wide_cases / sizeof *wide_cases; i++)
		refused(wide_cases[i].fn, wide_cases[i].what);

	make_cache(no_track_json);
	t = read_back(image, image_len, &why, &cause);
	ok(t != NULL && t->ntracks == 0 && t->quality.count[Q_MALFORMED_EVENT] == 2,
	   "a trace of no track whose malformed events have no example is read back (%s)",
	   cause != NULL ? cause : "no refusal");
	trace_free(t);
	free(cause);
	free(image);
	return done_testing();
}
