/* args_side.c: args text kept in memory in independently compressed chunks.
 *
 * A chunk is a run of records, each LEB128(offset - previous offset) LEB128(length) then
 * the bytes; the first record's offset is the chunk's `first`, so its delta is 0. Chunks
 * are in offset order, found by binary search on `first`, and a record by walking its
 * chunk. With a background thread, the adding thread fills one raw buffer while the
 * thread compresses the other: `job` is the hand-over (NULL: the thread is idle), and the
 * thread gives the buffer back as `spare`. Only the compressing side appends to `chunks`;
 * nothing reads them before args_side_finish has joined the thread. */
#include "src/args_side.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "lib/xalloc.h"

/* The zstd level of the args chunks: the fastest of those that keep about a twentieth of
 * the args; the levels compared are in bench/RESULTS.md, "Figures moved out of the code". */
#define SIDE_LEVEL (-3)
#define VARINT_MAX 10

struct side_chunk {
	uint64_t first;   /* stream offset of its first record */
	uint32_t raw_len; /* bytes of records, decompressed */
	uint32_t packed_len;
	char *packed;
};

struct args_side {
	struct args_store store;
	uint64_t limit, added, last;
	bool over, finished;

	/* the chunk being filled, on the adding thread */
	char *raw;
	size_t raw_len, raw_cap;
	uint64_t raw_first, raw_prev;

	/* compressed chunks; the compressing side's */
	struct side_chunk *chunks;
	uint32_t nchunks, cap;
	uint64_t packed_bytes;
	ZSTD_CCtx *cctx;
	char *scratch;
	size_t scratch_cap;

	bool keep_buffers; /* raw, cctx and scratch go back to the thread's spares */

	/* background compression */
	bool background;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char *job; /* under lock: records handed over, NULL when idle */
	size_t job_len, job_cap;
	uint64_t job_first;
	char *spare; /* under lock: a buffer the thread is done with */
	size_t spare_cap;
	bool quit; /* under lock */

	/* reads: the last chunk decompressed, kept for the next read (the Operators view's
	 * shapes read every operator's args in file order: one chunk serves hundreds) */
	pthread_mutex_t read_lock;
	uint32_t cached; /* under read_lock: chunk index + 1 of cached_raw, 0: none */
	char *cached_raw;

	/* restored from a cache file (args_side_restore): the packed chunks lie in its
	 * mapping, not freed here, and damage in them is an error, not a bug */
	bool borrowed;
};

/* The buffers of the last finished store that kept them (args_side_keep_buffers), held
 * for the thread's next store: the chunks of a 1 GB compressed stream fill a thousand
 * stores, and fresh 1 MB buffers (mmapped at this size, ui/main.c) cost a page fault per
 * 4 KB, and a fresh context its tables. Freed by the key's destructor at thread exit. */
struct side_spares {
	char *raw, *scratch;
	size_t raw_cap, scratch_cap;
	ZSTD_CCtx *cctx;
};

static pthread_key_t spares_key;
static pthread_once_t spares_once = PTHREAD_ONCE_INIT;

static void spares_free(void *p)
{
	struct side_spares *sp = p;
	free(sp->raw);
	free(sp->scratch);
	ZSTD_freeCCtx(sp->cctx);
	free(sp);
}

static void spares_key_init(void)
{
	if (pthread_key_create(&spares_key, spares_free) != 0)
		fatal("cannot create a thread key");
}

static void compress_chunk(struct args_side *s, const char *buf, size_t len, uint64_t first)
{
	size_t bound = ZSTD_compressBound(len), n;
	struct side_chunk *c;

	if (s->cctx == NULL && (s->cctx = ZSTD_createCCtx()) == NULL)
		fatal("out of memory (ZSTD_createCCtx)");
	if (s->scratch_cap < bound) { /* grown by half at least: chunks' bounds differ by bytes */
		size_t cap = bound > s->scratch_cap + s->scratch_cap / 2 ? bound : s->scratch_cap + s->scratch_cap / 2;
		free(s->scratch);
		s->scratch = xmalloc(cap);
		s->scratch_cap = cap;
	}
	n = ZSTD_compressCCtx(s->cctx, s->scratch, bound, buf, len, SIDE_LEVEL);
	if (ZSTD_isError(n))
		fatal("cannot compress args: %s", ZSTD_getErrorName(n));
	if (s->nchunks == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->chunks = xreallocarray(s->chunks, s->cap, sizeof *s->chunks);
	}
	c = &s->chunks[s->nchunks++];
	c->first = first;
	c->raw_len = (uint32_t)len;
	c->packed_len = (uint32_t)n;
	c->packed = xmalloc(n);
	memcpy(c->packed, s->scratch, n);
	s->packed_bytes += n;
}

static void *compressor_main(void *arg)
{
	struct args_side *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (s->job == NULL && !s->quit)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->job == NULL)
			break;
		char *buf = s->job;
		size_t len = s->job_len, cap = s->job_cap;
		uint64_t first = s->job_first;
		pthread_mutex_unlock(&s->lock);
		compress_chunk(s, buf, len, first);
		pthread_mutex_lock(&s->lock);
		s->job = NULL;
		s->spare = buf;
		s->spare_cap = cap;
		pthread_cond_signal(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Compresses the pending records, or hands them to the thread. */
static void flush(struct args_side *s)
{
	if (s->raw_len == 0)
		return;
	if (!s->background) {
		compress_chunk(s, s->raw, s->raw_len, s->raw_first);
		s->raw_len = 0;
		return;
	}
	pthread_mutex_lock(&s->lock);
	while (s->job != NULL)
		pthread_cond_wait(&s->cond, &s->lock);
	s->job = s->raw;
	s->job_len = s->raw_len;
	s->job_cap = s->raw_cap;
	s->job_first = s->raw_first;
	s->raw = s->spare;
	s->raw_cap = s->spare_cap;
	s->spare = NULL;
	s->spare_cap = 0;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	s->raw_len = 0;
}

static size_t put_varint(char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (char)v;
	return n;
}

static uint64_t get_varint(const char *p, size_t end, size_t *pos)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pos < end && shift < 64; shift += 7) {
		unsigned char c = (unsigned char)p[(*pos)++];
		v |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80)
			break;
	}
	return v;
}

void args_side_add(struct args_side *s, uint64_t offset, const char *text, uint32_t len)
{
	size_t need;

	BUG_ON(s->finished);
	if (s->added > 0 && offset <= s->last)
		BUG("args added out of order: offset %llu after %llu", (unsigned long long)offset,
		    (unsigned long long)s->last);
	s->last = offset;
	s->added += len;
	if (s->over || (s->limit != 0 && s->added > s->limit)) {
		s->over = true;
		return;
	}
	if (s->raw_len > 0 && s->raw_len + 2 * VARINT_MAX + len > ARGS_SIDE_CHUNK)
		flush(s);
	need = s->raw_len + 2 * VARINT_MAX + len;
	if (need > s->raw_cap) {
		size_t cap = need > ARGS_SIDE_CHUNK ? need : ARGS_SIDE_CHUNK;
		s->raw = xrealloc(s->raw, cap);
		s->raw_cap = cap;
	}
	if (s->raw_len == 0) {
		s->raw_first = offset;
		s->raw_prev = offset;
	}
	s->raw_len += put_varint(s->raw + s->raw_len, offset - s->raw_prev);
	s->raw_len += put_varint(s->raw + s->raw_len, len);
	memcpy(s->raw + s->raw_len, text, len);
	s->raw_len += len;
	s->raw_prev = offset;
}

static void drop_chunks(struct args_side *s)
{
	for (uint32_t i = 0; i < s->nchunks && !s->borrowed; i++)
		free(s->chunks[i].packed);
	free(s->chunks);
	s->chunks = NULL;
	s->nchunks = s->cap = 0;
	s->packed_bytes = 0;
}

bool args_side_finish(struct args_side *s)
{
	if (s->finished)
		return !s->over;
	if (!s->over)
		flush(s);
	if (s->background) {
		pthread_mutex_lock(&s->lock);
		s->quit = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
		s->background = false;
	}
	if (s->keep_buffers) {
		struct side_spares *sp = pthread_getspecific(spares_key);
		if (sp == NULL) {
			sp = xcalloc(1, sizeof *sp);
			if (pthread_setspecific(spares_key, sp) != 0) {
				free(sp);
				sp = NULL;
			}
		}
		if (sp != NULL) { /* what the thread holds already (none, normally) goes */
			free(sp->raw);
			free(sp->scratch);
			ZSTD_freeCCtx(sp->cctx);
			sp->raw = s->raw;
			sp->raw_cap = s->raw_cap;
			sp->scratch = s->scratch;
			sp->scratch_cap = s->scratch_cap;
			sp->cctx = s->cctx;
			s->raw = s->scratch = NULL;
			s->cctx = NULL;
		}
	}
	free(s->raw);
	free(s->spare);
	free(s->scratch);
	ZSTD_freeCCtx(s->cctx);
	s->raw = s->spare = s->scratch = NULL;
	s->raw_cap = s->spare_cap = s->scratch_cap = 0;
	s->cctx = NULL;
	if (s->over)
		drop_chunks(s);
	s->finished = true;
	return !s->over;
}

void args_side_append(struct args_side *dst, struct args_side *src)
{
	BUG_ON(dst->background || src->background || dst->finished);
	if (!dst->over)
		flush(dst);
	args_side_finish(src);
	if (dst->added > 0 && src->added > 0 && src->nchunks > 0 && src->chunks[0].first <= dst->last)
		BUG("args parts appended out of order");
	dst->added += src->added;
	if (src->added > 0)
		dst->last = src->last;
	if (src->over || (dst->limit != 0 && dst->added > dst->limit))
		dst->over = true;
	if (dst->over) {
		drop_chunks(dst);
	} else if (src->nchunks > 0) {
		if (dst->nchunks + src->nchunks > dst->cap) {
			dst->cap = dst->nchunks + src->nchunks;
			dst->chunks = xreallocarray(dst->chunks, dst->cap, sizeof *dst->chunks);
		}
		memcpy(dst->chunks + dst->nchunks, src->chunks, src->nchunks * sizeof *src->chunks);
		dst->nchunks += src->nchunks;
		dst->packed_bytes += src->packed_bytes;
		src->nchunks = 0;
		src->packed_bytes = 0;
	}
	args_side_free(src);
}

uint64_t args_side_added(const struct args_side *s) { return s->added; }

static int side_read(struct args_store *st, uint64_t offset, size_t len, char *buf, char **cause)
{
	struct args_side *s = (struct args_side *)st;
	uint32_t lo = 0, hi = s->nchunks;
	const struct side_chunk *c;
	char *raw;
	size_t n, pos = 0;
	uint64_t at;

	while (lo < hi) { /* the first chunk starting past OFFSET */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->chunks[mid].first <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		goto missing;
	c = &s->chunks[lo - 1];
	pthread_mutex_lock(&s->read_lock);
	if (s->cached == lo) {
		raw = s->cached_raw;
		n = c->raw_len;
	} else {
		raw = xmalloc(c->raw_len);
		n = ZSTD_decompress(raw, c->raw_len, c->packed, c->packed_len);
		if ((ZSTD_isError(n) || n != c->raw_len) && s->borrowed) {
			free(raw);
			pthread_mutex_unlock(&s->read_lock);
			*cause = xstrdup("the args kept in the cache are damaged (open the file with --no-cache)");
			return -1;
		}
		if (ZSTD_isError(n) || n != c->raw_len)
			BUG("args side store chunk does not decompress: %s",
			    ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
		free(s->cached_raw);
		s->cached_raw = raw;
		s->cached = lo;
	}
	at = c->first;
	while (pos < n) {
		at += get_varint(raw, n, &pos);
		uint64_t rl = get_varint(raw, n, &pos);
		if (rl > n - pos && s->borrowed)
			break;
		BUG_ON(rl > n - pos);
		if (at == offset && rl >= len) {
			memcpy(buf, raw + pos, len);
			pthread_mutex_unlock(&s->read_lock);
			return 0;
		}
		if (at >= offset)
			break;
		pos += (size_t)rl;
	}
	pthread_mutex_unlock(&s->read_lock);
missing:
	*cause = xasprintf("args at byte %llu were not kept", (unsigned long long)offset);
	return -1;
}

static uint64_t side_memory(const struct args_store *st)
{
	const struct args_side *s = (const struct args_side *)st;
	return sizeof *s + (uint64_t)s->cap * sizeof *s->chunks + s->packed_bytes + s->raw_cap + s->spare_cap +
	       s->scratch_cap;
}

static void side_free(struct args_store *st) { args_side_free((struct args_side *)st); }

/* Saved: the tag, the chunk count, then per chunk its first offset and lengths, then the
 * packed chunks one after the other. */
struct saved_chunk {
	uint64_t first;
	uint32_t raw_len, packed_len;
};

static char *side_save(const struct args_store *st, size_t *len)
{
	const struct args_side *s = (const struct args_side *)st;
	uint32_t n = s->nchunks;
	char *blob, *p;

	if (!s->finished || s->over)
		return NULL;
	*len = 1 + sizeof n + (size_t)n * sizeof(struct saved_chunk) + s->packed_bytes;
	blob = p = xmalloc(*len);
	*p++ = ARGS_SAVED_SIDE;
	memcpy(p, &n, sizeof n);
	p += sizeof n;
	for (uint32_t i = 0; i < n; i++) {
		struct saved_chunk c = { s->chunks[i].first, s->chunks[i].raw_len, s->chunks[i].packed_len };
		memcpy(p, &c, sizeof c);
		p += sizeof c;
	}
	for (uint32_t i = 0; i < n; i++) {
		memcpy(p, s->chunks[i].packed, s->chunks[i].packed_len);
		p += s->chunks[i].packed_len;
	}
	return blob;
}

static const struct args_store_ops side_ops = { side_read, side_memory, side_free, side_save, NULL, NULL };

struct args_side *args_side_restore(const void *blob, size_t len)
{
	const char *p = blob, *end = p + len, *packed;
	uint32_t n;
	struct args_side *s;

	if (len < sizeof n)
		return NULL;
	memcpy(&n, p, sizeof n);
	p += sizeof n;
	if (n > (size_t)(end - p) / sizeof(struct saved_chunk))
		return NULL;
	packed = p + (size_t)n * sizeof(struct saved_chunk);
	s = args_side_new(0, false);
	s->finished = true;
	s->borrowed = true;
	s->chunks = xcalloc(n ? n : 1, sizeof *s->chunks);
	s->cap = n;
	for (uint32_t i = 0; i < n; i++) {
		struct saved_chunk c;
		memcpy(&c, p + (size_t)i * sizeof c, sizeof c);
		if (c.packed_len > (size_t)(end - packed) || c.raw_len > 2 * ARGS_SIDE_CHUNK + ((size_t)1 << 24) ||
		    (i > 0 && c.first <= s->chunks[i - 1].first)) {
			args_side_free(s);
			return NULL;
		}
		s->chunks[i] = (struct side_chunk){ c.first, c.raw_len, c.packed_len, (char *)packed };
		packed += c.packed_len;
		s->packed_bytes += c.packed_len;
		s->nchunks++;
	}
	if (packed != end) {
		args_side_free(s);
		return NULL;
	}
	return s;
}

struct args_side *args_side_new(uint64_t limit, bool background)
{
	struct args_side *s = xcalloc(1, sizeof *s);
	s->store.ops = &side_ops;
	s->store.kind = "in memory";
	s->limit = limit;
	pthread_mutex_init(&s->read_lock, NULL);
	if (background) {
		sigset_t all, old;
		int e;
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->cond, NULL);
		/* the thread takes no signals: the UI's handlers run on the main thread */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		e = pthread_create(&s->thread, NULL, compressor_main, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e == 0) {
			s->background = true;
		} else { /* compress inline instead */
			pthread_mutex_destroy(&s->lock);
			pthread_cond_destroy(&s->cond);
		}
	}
	return s;
}

struct args_store *args_side_store(struct args_side *s)
{
	BUG_ON(!s->finished);
	return &s->store;
}

void args_side_keep_buffers(struct args_side *s)
{
	BUG_ON(s->background || s->raw != NULL || s->cctx != NULL);
	pthread_once(&spares_once, spares_key_init);
	struct side_spares *sp = pthread_getspecific(spares_key);
	s->keep_buffers = true;
	if (sp == NULL)
		return;
	s->raw = sp->raw;
	s->raw_cap = sp->raw_cap;
	s->scratch = sp->scratch;
	s->scratch_cap = sp->scratch_cap;
	s->cctx = sp->cctx;
	sp->raw = sp->scratch = NULL;
	sp->raw_cap = sp->scratch_cap = 0;
	sp->cctx = NULL;
}

void args_side_free(struct args_side *s)
{
	if (s == NULL)
		return;
	args_side_finish(s);
	drop_chunks(s);
	free(s->cached_raw);
	pthread_mutex_destroy(&s->read_lock);
	free(s);
}
