/* strtab.h: interned strings. Each distinct byte string gets a dense uint32_t id; the
 * bytes live in an arena that never moves, so returned pointers stay valid until
 * strtab_free. Id 0 is always the empty string. */
#ifndef TT_STRTAB_H
#define TT_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strtab_chunk;

struct strtab {
	const char **str; /* by id: NUL-terminated bytes (may hold inner NULs) */
	uint32_t *len;    /* by id */
	uint32_t n, cap;
	uint32_t *slots;  /* open addressing: id + 1, 0 = empty */
	uint64_t *hashes; /* by id */
	uint32_t nslots;
	uint64_t seed; /* strtab_seed(): the slots' hash is not predictable from a file */
	struct strtab_chunk *chunks;
	size_t bytes; /* arena bytes in use */
	/* len, slots and hashes borrowed (a mapped cache file, src/cache.h): not freed, and
	 * copied before the first string is added */
	bool borrowed;
};

void strtab_init(struct strtab *t);
void strtab_free(struct strtab *t);
/* Makes T a table of the N strings whose pointers are STR (taken over: freed with T) and
 * whose lengths, slot hashes (under SEED) and slots are LEN, HASHES and SLOTS (NSLOTS, a
 * power of two with at least one empty slot): borrowed, they must outlive T and are never
 * written. The caller has checked that they agree. */
void strtab_init_borrowed(struct strtab *t, const char **str, uint32_t n, const uint32_t *len, const uint64_t *hashes,
                          const uint32_t *slots, uint32_t nslots, uint64_t seed, size_t bytes);
/* Returns the id of the N bytes at P, adding them if new. */
uint32_t strtab_intern(struct strtab *t, const char *p, size_t n);
/* Returns the id of the bytes if present, else UINT32_MAX. */
uint32_t strtab_find(const struct strtab *t, const char *p, size_t n);
static inline const char *strtab_get(const struct strtab *t, uint32_t id) { return t->str[id]; }
static inline uint32_t strtab_len(const struct strtab *t, uint32_t id) { return t->len[id]; }
/* Orders ids A and B of T by their text (strcmp's order, which ends at an inner NUL), then
 * by id: negative, 0 (the same id) or positive, a total order for sorts by name. */
static inline int strtab_cmp(const struct strtab *t, uint32_t a, uint32_t b)
{
	int c = strcmp(t->str[a], t->str[b]);
	return c != 0 ? c : (a > b) - (a < b);
}
/* A 64-bit hash of N bytes, the same in every run (colours are chosen by it). */
uint64_t strtab_hash(const char *p, size_t n);
/* A random number drawn once per process, for hash tables whose keys come from a file:
 * a trace crafted so that its strings or ids collide under a fixed hash would otherwise
 * make every insertion probe every earlier key. Tables only: no output depends on it. */
uint64_t strtab_seed(void);

#endif
