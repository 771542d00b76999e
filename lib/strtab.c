/* strtab.c: string interning with open addressing over a chunked arena. */
#include "lib/strtab.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"

#define CHUNK_SIZE (256u << 10)

struct strtab_chunk {
	struct strtab_chunk *next;
	size_t used, size;
	char data[];
};

static uint64_t seed_value;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = ((uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^
		    (uint64_t)(uintptr_t)&s;
	}
	seed_value = s;
}

uint64_t strtab_seed(void)
{
	pthread_once(&seed_once, seed_init);
	return seed_value;
}

/* The 1 to 7 bytes at P as memcpy into a zeroed word reads them; on a little-endian
 * machine without a memcpy of a variable length: two loads that overlap, or three bytes. */
static inline uint64_t load_tail(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + n - 4, 4);
		return (uint64_t)lo | (uint64_t)hi << ((n - 4) * 8);
	}
	return (uint64_t)u[0] | (uint64_t)u[n / 2] << (n / 2 * 8) | (uint64_t)u[n - 1] << ((n - 1) * 8);
#else
	uint64_t w = 0;
	(void)u;
	memcpy(&w, p, n);
	return w;
#endif
}

/* The hash of N bytes at P from the start state H0. */
static uint64_t hash_from(uint64_t h0, const char *p, size_t n)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull;
	uint64_t h = h0 ^ (n * m);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		h = (h ^ load_tail(p, n)) * m;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}

uint64_t strtab_hash(const char *p, size_t n) { return hash_from(0x243f6a8885a308d3ull, p, n); }

/* The slots' hash: seeded, so that colliding strings cannot be written in advance. A
 * string of 32 bytes or more is read in four lanes of 8 bytes, each its own chain of
 * multiplies, so that a long kernel name (150-330 bytes, interned for every slice) costs
 * a quarter of one chain's latency; what is left, as hash_from. */
static uint64_t slot_hash(const struct strtab *t, const char *p, size_t n)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull;
	uint64_t h0 = 0x243f6a8885a308d3ull ^ t->seed;

	if (n < 32)
		return hash_from(h0, p, n);
	uint64_t a = h0 ^ (n * m), b = a ^ 0x13198a2e03707344ull, c = a ^ 0xa4093822299f31d0ull,
		 d = a ^ 0x082efa98ec4e6c89ull;
	size_t k = n;
	while (k >= 32) {
		uint64_t w[4];
		memcpy(w, p, 32);
		a = (a ^ w[0]) * m;
		b = (b ^ w[1]) * m;
		c = (c ^ w[2]) * m;
		d = (d ^ w[3]) * m;
		a ^= a >> 29;
		b ^= b >> 29;
		c ^= c >> 29;
		d ^= d >> 29;
		p += 32;
		k -= 32;
	}
	h0 = a ^ ((b << 16) | (b >> 48)) ^ ((c << 32) | (c >> 32)) ^ ((d << 48) | (d >> 16));
	return hash_from(h0, p, k);
}

static char *arena_alloc(struct strtab *t, size_t n)
{
	struct strtab_chunk *c = t->chunks;
	if (c == NULL || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE / 4 ? n : CHUNK_SIZE;
		struct strtab_chunk *nc = xmalloc(sizeof *nc + size);
		nc->used = 0;
		nc->size = size;
		if (c != NULL && n > CHUNK_SIZE / 4) {
			/* a big string gets its own chunk, kept behind the current one */
			nc->next = c->next;
			c->next = nc;
		} else {
			nc->next = c;
			t->chunks = nc;
		}
		c = nc;
	}
	char *p = c->data + c->used;
	c->used += n;
	t->bytes += n;
	return p;
}

static void grow_slots(struct strtab *t)
{
	uint32_t ns = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = xcalloc(ns, sizeof *slots);
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t i = (uint32_t)t->hashes[id] & (ns - 1);
		while (slots[i] != 0)
			i = (i + 1) & (ns - 1);
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
}

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof *t);
	t->seed = strtab_seed();
	strtab_intern(t, "", 0);
}

void strtab_init_borrowed(struct strtab *t, const char **str, uint32_t n, const uint32_t *len, const uint64_t *hashes,
                          const uint32_t *slots, uint32_t nslots, uint64_t seed, size_t bytes)
{
	memset(t, 0, sizeof *t);
	t->str = str;
	t->n = t->cap = n;
	t->len = (uint32_t *)len;
	t->hashes = (uint64_t *)hashes;
	t->slots = (uint32_t *)slots;
	t->nslots = nslots;
	t->seed = seed;
	t->bytes = bytes;
	t->borrowed = true;
}

/* Gives a borrowed table arrays of its own, before it changes them. */
static void unborrow(struct strtab *t)
{
	uint32_t *len = xreallocarray(NULL, t->cap ? t->cap : 1, sizeof *len);
	uint64_t *hashes = xreallocarray(NULL, t->cap ? t->cap : 1, sizeof *hashes);
	uint32_t *slots = xreallocarray(NULL, t->nslots, sizeof *slots);
	memcpy(len, t->len, t->n * sizeof *len);
	memcpy(hashes, t->hashes, t->n * sizeof *hashes);
	memcpy(slots, t->slots, t->nslots * sizeof *slots);
	t->len = len;
	t->hashes = hashes;
	t->slots = slots;
	t->borrowed = false;
}

void strtab_free(struct strtab *t)
{
	struct strtab_chunk *c = t->chunks;
	while (c != NULL) {
		struct strtab_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(t->str);
	if (!t->borrowed) {
		free(t->len);
		free(t->slots);
		free(t->hashes);
	}
	memset(t, 0, sizeof *t);
}

uint32_t strtab_find(const struct strtab *t, const char *p, size_t n)
{
	uint64_t h = slot_hash(t, p, n);
	if (t->nslots == 0)
		return UINT32_MAX;
	for (uint32_t i = (uint32_t)h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
		uint32_t s = t->slots[i];
		if (s == 0)
			return UINT32_MAX;
		if (t->hashes[s - 1] == h && t->len[s - 1] == n && memcmp(t->str[s - 1], p, n) == 0)
			return s - 1;
	}
}

uint32_t strtab_intern(struct strtab *t, const char *p, size_t n)
{
	uint64_t h = slot_hash(t, p, n);
	uint32_t i;

	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	if (t->borrowed)
		unborrow(t);
	if ((uint64_t)(t->n + 1) * 2 > t->nslots)
		grow_slots(t);
	for (i = (uint32_t)h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
		uint32_t s = t->slots[i];
		if (s == 0)
			break;
		if (t->hashes[s - 1] == h && t->len[s - 1] == n && memcmp(t->str[s - 1], p, n) == 0)
			return s - 1;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->str = xreallocarray(t->str, t->cap, sizeof *t->str);
		t->len = xreallocarray(t->len, t->cap, sizeof *t->len);
		t->hashes = xreallocarray(t->hashes, t->cap, sizeof *t->hashes);
	}
	char *d = arena_alloc(t, n + 1);
	memcpy(d, p, n);
	d[n] = '\0';
	t->str[t->n] = d;
	t->len[t->n] = (uint32_t)n;
	t->hashes[t->n] = h;
	t->slots[i] = t->n + 1;
	return t->n++;
}
