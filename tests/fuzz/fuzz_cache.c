/* fuzz_cache.c: the libFuzzer target for the binary cache's reader (src/cache.h), with a
 * structure-aware mutator. An input is a small trace and a recipe of changes to its cache:
 *
 *     byte 0       N: the recipe's length in changes (N % 33)
 *     N x 16 bytes the changes (struct change below)
 *     the rest     the trace (JSON, gzip or zstd)
 *
 * The target loads the trace as the program does (a memfd through load_trace), writes its
 * cache with cache_write (the args store saved in it as parsers/cache_dir.c saves it),
 * applies the changes to the cache's image through the parts and fields src/cache_parts.c
 * describes (cache_part: each section's elements, the header, its section table), and
 * recomputes every checksum (cache_reseal), as whoever can write a cache can: the changes
 * reach the reader's checks of the values, not just its checksums. The image goes through
 * cache_read with the key it was written with; a trace it accepts gets an args store as
 * parsers/cache_dir.c restores it, then goes through everything the loader's target runs
 * (fuzz_model.h) and every other report, so that any accepted cache must be safe to use. A
 * recipe of no change must give the parsed model back, dump for dump.
 *
 * The stored input holds no cache, only what makes one, so that it stays valid across
 * builds (a cache names the build that wrote it, and another build refuses it). The
 * pristine cache of the last trace is kept, so that the fuzzer, which mostly changes the
 * recipe, parses the trace once.
 *
 * FUZZ_CACHE_STATS=1 in the environment prints at exit how many inputs loaded, reached the
 * value checks (their header and section table held), and were accepted; the corpus test
 * (tests/fuzz_cache_corpus.sh) requires a share of them. FUZZ_CACHE_VERBOSE=1 says why
 * each cache was refused. FUZZ_CACHE_SEEDS=DIR makes seeds instead: each input is then a
 * plain trace, and DIR gets one input per field of every part of its cache and each value
 * a reader must refuse or survive for that kind of field (tests/fuzz/README). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/checksum.h"
#include "parsers/cache_dir.h"
#include "parsers/input.h"
#include "parsers/load.h"
#include "parsers/seekindex.h"
#include "src/args.h"
#include "src/args_side.h"
#include "src/builder.h"
#include "src/cache.h"
#include "src/model.h"
#include "tests/fuzz/fuzz_model.h"
#include "tests/fuzz/fuzz_oracle.h"
#include "ui/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
/* libFuzzer's own mutator, for the trace's bytes; absent in the replay */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

#define MAX_CHANGES 32
#define CHANGE_BYTES 16
#define MAX_GROWTH 4096

/* One change to a cache image. */
struct change {
	uint8_t op;    /* enum change_op, modulo C__COUNT */
	uint8_t part;  /* modulo cache_nparts() */
	uint8_t field; /* modulo the part's fields (C_RAW: the width, 1 << field % 4 bytes) */
	uint8_t how;   /* enum value_how, modulo V__COUNT */
	uint32_t elem; /* modulo the part's elements (C_RAW: modulo its bytes) */
	uint64_t value;
};

enum change_op {
	C_SET,    /* field FIELD of element ELEM := the value HOW says */
	C_RAW,    /* the bytes at ELEM := the value HOW says */
	C_SWAP,   /* elements ELEM and VALUE change places */
	C_COPY,   /* element VALUE is copied over element ELEM */
	C_RESIZE, /* the image grows (FIELD even) or shrinks by VALUE % 4096 + 1 bytes; HOW odd: the
	           * header's file_bytes follows */
	C__COUNT
};

/* clang-format off */
enum value_how {
	V_ZERO, V_ONE, V_BYTE,           /* 0, 1, 2 + VALUE % 254 (a bool that is neither) */
	V_ONES, V_MIN, V_MAX,            /* all bits (TT_NONE, -1), the signed minimum, maximum */
	V_INC, V_DEC,                    /* the value + 1, - 1 (an index off by one) */
	V_LIMIT, V_NEG_LIMIT, V_NEAR,    /* +-BUILDER_TIME_LIMIT, just under it */
	V_RAW,                           /* VALUE */
	V_OTHER,                         /* the same field of element VALUE */
	V_COUNT,                         /* the element count of part VALUE (bit 32: less one) */
	V_FLIP,                          /* one bit flipped */
	V_DELTA,                         /* the value + (int8_t)VALUE */
	V__COUNT
};
/* clang-format on */

static const uint8_t *get_change(const uint8_t *p, struct change *c)
{
	c->op = p[0];
	c->part = p[1];
	c->field = p[2];
	c->how = p[3];
	c->elem = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
	c->value = 0;
	for (int i = 0; i < 8; i++)
		c->value |= (uint64_t)p[8 + i] << (8 * i);
	return p + CHANGE_BYTES;
}

static uint8_t *put_change(uint8_t *p, const struct change *c)
{
	p[0] = c->op;
	p[1] = c->part;
	p[2] = c->field;
	p[3] = c->how;
	for (int i = 0; i < 4; i++)
		p[4 + i] = (uint8_t)(c->elem >> (8 * i));
	for (int i = 0; i < 8; i++)
		p[8 + i] = (uint8_t)(c->value >> (8 * i));
	return p + CHANGE_BYTES;
}

/* How many changes an input of SIZE bytes holds, and where its trace starts. */
static unsigned input_changes(const uint8_t *data, size_t size, size_t *trace_at)
{
	unsigned n = size > 0 ? data[0] % (MAX_CHANGES + 1) : 0;
	if (size == 0) {
		*trace_at = 0;
		return 0;
	}
	if ((size - 1) / CHANGE_BYTES < n)
		n = (unsigned)((size - 1) / CHANGE_BYTES);
	*trace_at = 1 + (size_t)n * CHANGE_BYTES;
	return n;
}

/* ---- values in the image, in the host's order (a cache is the host's) ---------------------- */

static uint64_t load_n(const uint8_t *p, unsigned n)
{
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;
	switch (n) {
	case 1: memcpy(&a, p, 1); return a;
	case 2: memcpy(&b, p, 2); return b;
	case 4: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static void store_n(uint8_t *p, unsigned n, uint64_t v)
{
	uint8_t a = (uint8_t)v;
	uint16_t b = (uint16_t)v;
	uint32_t c = (uint32_t)v;
	switch (n) {
	case 1: memcpy(p, &a, 1); break;
	case 2: memcpy(p, &b, 2); break;
	case 4: memcpy(p, &c, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

/* The value HOW gives a field of WIDTH bytes holding OLD; OTHER: the same field elsewhere. */
static uint64_t new_value(const struct change *c, unsigned width, uint64_t old, uint64_t other, const uint8_t *image,
                          size_t len)
{
	unsigned bits = 8 * width;
	uint64_t sign = (uint64_t)1 << (bits - 1);
	struct cache_part p;
	switch (c->how % V__COUNT) {
	case V_ZERO: return 0;
	case V_ONE: return 1;
	case V_BYTE: return 2 + c->value % 254;
	case V_ONES: return UINT64_MAX;
	case V_MIN: return sign;
	case V_MAX: return sign - 1;
	case V_INC: return old + 1;
	case V_DEC: return old - 1;
	case V_LIMIT: return (uint64_t)BUILDER_TIME_LIMIT;
	case V_NEG_LIMIT: return (uint64_t)-BUILDER_TIME_LIMIT;
	case V_NEAR: return (uint64_t)BUILDER_TIME_LIMIT - 1 - c->value % 1024;
	case V_RAW: return c->value;
	case V_OTHER: return other;
	case V_COUNT:
		if (!cache_part(image, len, (unsigned)(c->value % cache_nparts()), &p))
			return 0;
		return p.count - ((c->value >> 32) & 1);
	case V_FLIP: return old ^ ((uint64_t)1 << (c->value % bits));
	default: return old + (uint64_t)(int64_t)(int8_t)c->value;
	}
}

/* Applies C to the image of *LEN bytes (room for MAX_GROWTH more). */
static void apply(uint8_t *image, size_t *len, size_t room, const struct change *c)
{
	struct cache_part p;
	if (!cache_part(image, *len, c->part % cache_nparts(), &p))
		return;
	switch (c->op % C__COUNT) {
	case C_SET: {
		if (p.count == 0 || p.nfields == 0)
			return;
		const struct cache_field *f = &p.fields[c->field % p.nfields];
		uint8_t *at = image + p.offset + (uint64_t)(c->elem % p.count) * p.elem + f->offset;
		uint8_t *there = image + p.offset + (uint64_t)(c->value % p.count) * p.elem + f->offset;
		uint64_t v = new_value(c, f->size, load_n(at, f->size), load_n(there, f->size), image, *len);
		store_n(at, f->size, v);
		break;
	}
	case C_RAW: {
		unsigned width = 1u << (c->field % 4);
		uint64_t bytes = p.count * p.elem;
		if (bytes < width)
			return;
		uint8_t *at = image + p.offset + c->elem % (bytes - width + 1);
		store_n(at, width, new_value(c, width, load_n(at, width), 0, image, *len));
		break;
	}
	case C_SWAP:
	case C_COPY: {
		if (p.count == 0)
			return;
		uint8_t *a = image + p.offset + (uint64_t)(c->elem % p.count) * p.elem;
		uint8_t *b = image + p.offset + (uint64_t)(c->value % p.count) * p.elem;
		if (a == b)
			return;
		for (uint32_t i = 0; i < p.elem; i++) {
			uint8_t x = a[i];
			a[i] = b[i];
			if (c->op % C__COUNT == C_SWAP)
				b[i] = x;
		}
		break;
	}
	default: {
		size_t by = (size_t)(c->value % MAX_GROWTH) + 1;
		if (c->field % 2 == 0) {
			if (*len + by > room)
				return;
			memset(image + *len, 0, by);
			*len += by;
		} else {
			*len = *len > by ? *len - by : 0;
		}
		if (c->how % 2 == 1 && cache_part(image, *len, cache_nparts() - 2, &p))
			for (uint32_t i = 0; i < p.nfields; i++)
				if (strcmp(p.fields[i].name, "file_bytes") == 0)
					store_n(image + p.fields[i].offset, p.fields[i].size, *len);
		break;
	}
	}
}

/* ---- the pristine cache of the last trace -------------------------------------------------- */

static struct {
	uint8_t *trace; /* the trace's bytes */
	size_t trace_len;
	bool valid;
	int trace_fd; /* the trace, for the args store: a memfd */
	char path[64];
	struct input_file id;
	struct cache_key key;
	uint8_t *image; /* its cache, or NULL when it does not load */
	size_t len;
	char *dump; /* the parsed model's dump */
} pristine = { .trace_fd = -1 };

static int cache_fd = -1;

static struct {
	unsigned long inputs, loaded, reached, accepted;
} stats;

static void print_stats(void)
{
	printf("# fuzz_cache: %lu inputs, %lu with a trace that loads, %lu reached the value checks, %lu accepted\n",
	       stats.inputs, stats.loaded, stats.reached, stats.accepted);
	fflush(stdout);
}

static void write_all(int fd, const void *p, size_t n)
{
	const char *q = p;
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		perror("fuzz_cache: ftruncate");
		abort();
	}
	while (n > 0) {
		ssize_t w = write(fd, q, n);
		if (w <= 0) {
			perror("fuzz_cache: write");
			abort();
		}
		q += w;
		n -= (size_t)w;
	}
}

static int new_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_cache: memfd_create");
		abort();
	}
	return fd;
}

static char *dump_of(const struct trace *t)
{
	char *dump = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&dump, &len);
	if (mem == NULL)
		abort();
	dump_model(mem, t);
	fclose(mem);
	return dump;
}

/* Makes the pristine cache of TRACE (LEN bytes), unless it is the one made last. */
static void make_pristine(const uint8_t *trace, size_t len)
{
	struct load_options opt = { .progress = NULL, .progress_after = 0, .quiet = true, .problems = NULL };
	struct stat sb;

	if (pristine.valid && pristine.trace_len == len && (len == 0 || memcmp(pristine.trace, trace, len) == 0))
		return;
	free(pristine.trace);
	free(pristine.image);
	free(pristine.dump);
	if (pristine.trace_fd >= 0)
		close(pristine.trace_fd);
	memset(&pristine, 0, sizeof pristine);
	pristine.trace = malloc(len ? len : 1);
	if (pristine.trace == NULL)
		abort();
	if (len > 0)
		memcpy(pristine.trace, trace, len);
	pristine.trace_len = len;
	pristine.valid = true;
	pristine.trace_fd = new_memfd("fuzz_cache_trace");
	write_all(pristine.trace_fd, trace, len);
	snprintf(pristine.path, sizeof pristine.path, "/proc/self/fd/%d", pristine.trace_fd);
	if (fstat(pristine.trace_fd, &sb) != 0)
		abort();
	pristine.id = (struct input_file){ (uint64_t)sb.st_dev, (uint64_t)sb.st_ino, (uint64_t)sb.st_size,
		                           (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
		                           (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec };
	memset(&pristine.key, 0, sizeof pristine.key);
	pristine.key.path_hash = checksum64(pristine.path, strlen(pristine.path), 0);
	pristine.key.size = pristine.id.size;
	pristine.key.dev = pristine.id.dev;
	pristine.key.ino = pristine.id.ino;
	pristine.key.mtime_ns = pristine.id.mtime_ns;
	pristine.key.ctime_ns = pristine.id.ctime_ns;
	pristine.key.edge_hash = checksum64(trace, len < 4096 ? len : 4096, 1);

	struct trace *t = load_trace(pristine.path, &opt);
	if (t->status != LOAD_FAILED) {
		size_t blob_len = 0;
		char *blob = args_store_save(t->args, &blob_len), *cause = NULL;
		if (cache_fd < 0)
			cache_fd = new_memfd("fuzz_cache");
		write_all(cache_fd, "", 0);
		if (cache_write(cache_fd, t, &pristine.key, blob, blob_len, &cause) != 0) {
			fprintf(stderr, "fuzz_cache: cache_write: %s\n", cause);
			abort();
		}
		free(blob);
		if (fstat(cache_fd, &sb) != 0)
			abort();
		pristine.len = (size_t)sb.st_size;
		pristine.image = malloc(pristine.len);
		if (pristine.image == NULL || pread(cache_fd, pristine.image, pristine.len, 0) != (ssize_t)pristine.len)
			abort();
		pristine.dump = dump_of(t);
	}
	trace_free(t);
}

static void generate(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	size_t trace_at;
	unsigned n;

	if (!init) {
		init = true;
		cache_dir_disable(); /* the loads write no cache of their own */
		if (getenv("FUZZ_CACHE_STATS") != NULL)
			atexit(print_stats);
	}
	if (getenv("FUZZ_CACHE_SEEDS") != NULL) {
		generate(data, size);
		return 0;
	}
	stats.inputs++;
	n = input_changes(data, size, &trace_at);
	make_pristine(data + trace_at, size - trace_at);
	if (pristine.image == NULL)
		return 0;
	stats.loaded++;

	size_t len = pristine.len, room = pristine.len + MAX_GROWTH;
	uint8_t *image = malloc(room);
	if (image == NULL)
		abort();
	memcpy(image, pristine.image, len);
	const uint8_t *p = data + 1;
	for (unsigned i = 0; i < n; i++) {
		struct change c;
		p = get_change(p, &c);
		apply(image, &len, room, &c);
	}
	int sealed = cache_reseal(image, len);
	if (n == 0)
		FUZZ_CHECK(sealed == 1);
	stats.reached += sealed == 1;
	write_all(cache_fd, image, len);
	free(image);

	const void *blob = NULL;
	size_t blob_len = 0;
	char *cause = NULL;
	int why = 0;
	struct trace *t = cache_read(cache_fd, pristine.path, &pristine.key, &blob, &blob_len, &cause, &why);
	if (t == NULL) {
		if (n == 0 || getenv("FUZZ_CACHE_VERBOSE") != NULL)
			fprintf(stderr, "fuzz_cache: refused (%s): %s\n", sealed == 1 ? "values" : "header", cause);
		FUZZ_CHECK(n > 0 && cause != NULL && (why == CACHE_STALE || why == CACHE_DAMAGED));
		free(cause);
		return 0;
	}
	FUZZ_CHECK(sealed == 1);
	stats.accepted++;
	cache_dir_restore_args(t, &pristine.key, blob, blob_len);
	bool full = fuzz_oracle_sampled(data, size);
	char *dump = fuzz_exercise(t, full ? &fuzz_full : &fuzz_cheap);
	if (n == 0 && strcmp(dump, pristine.dump) != 0) {
		fprintf(stderr, "fuzz_cache: the model read back from its cache differs from the parsed one\n");
		abort();
	}
	free(dump);
	if (full)
		fuzz_reports(t);
	trace_free(t);
	return 0;
}

/* ---- the mutator ------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* clang-format off */
static const uint64_t interesting[] = {
	0, 1, 2, 3, 7, 63, 64, 65, 255, 256, 4095, 4096, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
	0xF0000000, (uint64_t)1 << 62, ((uint64_t)1 << 62) - 1, INT64_MAX, (uint64_t)INT64_MIN, UINT64_MAX,
};
/* clang-format on */

static void random_change(uint64_t *rng, struct change *c)
{
	uint64_t r = rng_next(rng);
	unsigned k = r % 100;
	c->op = k < 70 ? C_SET : k < 80 ? C_RAW : k < 88 ? C_SWAP : k < 95 ? C_COPY : C_RESIZE;
	c->part = (uint8_t)(rng_next(rng) % cache_nparts());
	c->field = (uint8_t)rng_next(rng);
	c->how = (uint8_t)(rng_next(rng) % V__COUNT);
	r = rng_next(rng);
	c->elem = r % 2 ? (uint32_t)(r >> 8) % 4 : (uint32_t)(r >> 8);
	r = rng_next(rng);
	c->value = r % 3 == 0 ? interesting[(r >> 8) % (sizeof interesting / sizeof *interesting)] : rng_next(rng);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint64_t rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	size_t trace_at;
	unsigned n = input_changes(data, size, &trace_at), k;
	struct change c;

	if (size == 0) {
		if (max_size < 1)
			return 0;
		data[0] = 0;
		size = 1;
		trace_at = 1;
	}
	/* the changes' count is N exactly from here on */
	data[0] = (uint8_t)n;
	k = rng_next(&rng) % 100;
	if (k < 12 || (k < 20 && n == 0)) { /* the trace, by libFuzzer's mutator */
		size_t tlen = size - trace_at;
		if (LLVMFuzzerMutate == NULL || max_size <= trace_at)
			return size;
		return trace_at + LLVMFuzzerMutate(data + trace_at, tlen, max_size - trace_at);
	}
	if ((k < 35 || n == 0) && n < MAX_CHANGES && size + CHANGE_BYTES <= max_size) { /* one more */
		unsigned at = n ? (unsigned)(rng_next(&rng) % (n + 1)) : 0;
		uint8_t *p = data + 1 + (size_t)at * CHANGE_BYTES;
		memmove(p + CHANGE_BYTES, p, size - (size_t)(p - data));
		random_change(&rng, &c);
		put_change(p, &c);
		data[0] = (uint8_t)(n + 1);
		return size + CHANGE_BYTES;
	}
	if (k < 42 && n > 0) { /* one less */
		unsigned at = (unsigned)(rng_next(&rng) % n);
		uint8_t *p = data + 1 + (size_t)at * CHANGE_BYTES;
		memmove(p, p + CHANGE_BYTES, size - (size_t)(p - data) - CHANGE_BYTES);
		data[0] = (uint8_t)(n - 1);
		return size - CHANGE_BYTES;
	}
	if (n == 0)
		return size;
	/* one field of one change */
	uint8_t *p = data + 1 + (size_t)(rng_next(&rng) % n) * CHANGE_BYTES;
	struct change fresh;
	get_change(p, &c);
	random_change(&rng, &fresh);
	switch (rng_next(&rng) % 7) {
	case 0: c.op = fresh.op; break;
	case 1: c.part = fresh.part; break;
	case 2: c.field = fresh.field; break;
	case 3: c.how = fresh.how; break;
	case 4: c.elem = rng_next(&rng) % 2 ? c.elem + 1 : fresh.elem; break;
	case 5: c.value = fresh.value; break;
	default: c.value += (uint64_t)(int64_t)(int8_t)rng_next(&rng); break;
	}
	put_change(p, &c);
	return size;
}

/* ---- seeds ------------------------------------------------------------------------------- */

/* The values worth trying in a field of kind K. */
static unsigned hows_for(enum cache_value k, uint8_t *how)
{
	/* clang-format off */
	static const uint8_t b[] = { V_BYTE, V_ONES }, e[] = { V_INC, V_ONES, V_BYTE },
	                     t[] = { V_MIN, V_MAX, V_LIMIT, V_NEG_LIMIT }, i[] = { V_COUNT, V_ONES, V_INC },
	                     n[] = { V_INC, V_DEC, V_MAX }, o[] = { V_MIN, V_MAX };
	const uint8_t *v = k == CV_BOOL ? b : k == CV_ENUM ? e : k == CV_TIME ? t : k == CV_ID ? i : k == CV_COUNT ? n : o;
	unsigned c = k == CV_BOOL ? sizeof b : k == CV_ENUM ? sizeof e : k == CV_TIME ? sizeof t : k == CV_ID ? sizeof i
	           : k == CV_COUNT ? sizeof n : sizeof o;
	/* clang-format on */
	memcpy(how, v, c);
	return c;
}

/* Writes into $FUZZ_CACHE_SEEDS the trace DATA with no change, and one input per field of every part of the cache of
 * the trace DATA, for each value worth trying there, on its first element (the value of V_COUNT: the part the index
 * most likely refers to is left to the fuzzer; the first element of a section of ids is taken as an index into the
 * strings). */
static void generate(const uint8_t *data, size_t size)
{
	const char *dir = getenv("FUZZ_CACHE_SEEDS");
	uint64_t tag = checksum64(data, size, 0);
	unsigned written = 0;

	make_pristine(data, size);
	if (pristine.image == NULL)
		return;
	char *path = NULL;
	if (asprintf(&path, "%s/seed-%016llx-pristine", dir, (unsigned long long)tag) < 0)
		abort();
	FILE *out = fopen(path, "wb");
	if (out == NULL || fputc(0, out) == EOF || fwrite(data, 1, size, out) != size || fclose(out) != 0) {
		fprintf(stderr, "fuzz_cache: %s: %s\n", path, strerror(errno));
		abort();
	}
	free(path);
	written++;
	for (unsigned part = 0; part < cache_nparts(); part++) {
		struct cache_part p;
		if (!cache_part(pristine.image, pristine.len, part, &p) || p.count == 0)
			continue;
		for (uint32_t f = 0; f < p.nfields; f++) {
			uint8_t how[8];
			unsigned nh = hows_for(p.fields[f].kind, how);
			for (unsigned h = 0; h < nh; h++) {
				struct change c = { C_SET, (uint8_t)part, (uint8_t)f, how[h], 0, 3 };
				if (how[h] == V_COUNT)
					c.value = 3; /* the string lengths: the strings' count */
				path = NULL;
				if (asprintf(&path, "%s/seed-%016llx-%s-%s-%u", dir, (unsigned long long)tag, p.name,
				             p.fields[f].name, how[h]) < 0)
					abort();
				for (char *q = path + strlen(dir) + 1; *q != '\0'; q++)
					if (*q == ' ' || *q == ',' || *q == '[' || *q == ']' || *q == '.')
						*q = '_';
				out = fopen(path, "wb");
				if (out == NULL) {
					fprintf(stderr, "fuzz_cache: %s: %s\n", path, strerror(errno));
					abort();
				}
				uint8_t rec[1 + CHANGE_BYTES];
				rec[0] = 1;
				put_change(rec + 1, &c);
				if (fwrite(rec, 1, sizeof rec, out) != sizeof rec ||
				    fwrite(data, 1, size, out) != size || fclose(out) != 0)
					abort();
				free(path);
				written++;
			}
		}
	}
	fprintf(stderr, "fuzz_cache: %u seeds written\n", written);
}
