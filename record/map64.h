/* map64.h: an open-addressing map of 64-bit keys to pointers, with removal, for the
 * recorder's trace writer (record/trace_writer.c); a set when the values are SET_MEMBER.
 * Out of memory aborts. */
#ifndef TTRACE_RECORD_MAP64_H
#define TTRACE_RECORD_MAP64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SET_MEMBER ((void *)1)

/* All zero: empty. The owner frees slot, and what the values point to, when done. */
struct slot64 {
	uint64_t key;
	void *val; /* NULL: empty */
};

struct map64 {
	struct slot64 *slot;
	size_t cap, n;
};

/* The slot of KEY, or NULL when KEY is not there; valid until the next put or take. */
struct slot64 *map64_find(const struct map64 *m, uint64_t key);

/* The value of KEY, or NULL. */
void *map64_get(const struct map64 *m, uint64_t key);

/* Adds KEY -> VAL (not NULL); false, changing nothing, when KEY is there. */
bool map64_put(struct map64 *m, uint64_t key, void *val);

/* Removes KEY and returns its value, or NULL. */
void *map64_take(struct map64 *m, uint64_t key);

#endif
