/* map64.c: an open-addressing map of 64-bit keys to pointers for the recorder's trace
 * writer (see map64.h). Removal moves the entries after a removed one back to where a
 * lookup finds them, so that no tombstones accumulate. */
#include "record/map64.h"

#include <stdlib.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

struct slot64 *map64_find(const struct map64 *m, uint64_t key)
{
	if (m->n == 0)
		return NULL;
	size_t j = mix64(key) & (m->cap - 1);
	while (m->slot[j].val != NULL) {
		if (m->slot[j].key == key)
			return &m->slot[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

void *map64_get(const struct map64 *m, uint64_t key)
{
	struct slot64 *s = map64_find(m, key);
	return s ? s->val : NULL;
}

bool map64_put(struct map64 *m, uint64_t key, void *val)
{
	if (map64_find(m, key) != NULL)
		return false;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct slot64 *t = calloc(cap, sizeof *t);
		if (t == NULL)
			abort();
		for (size_t i = 0; i < m->cap; i++)
			if (m->slot[i].val != NULL) {
				size_t j = mix64(m->slot[i].key) & (cap - 1);
				while (t[j].val != NULL)
					j = (j + 1) & (cap - 1);
				t[j] = m->slot[i];
			}
		free(m->slot);
		m->slot = t;
		m->cap = cap;
	}
	size_t j = mix64(key) & (m->cap - 1);
	while (m->slot[j].val != NULL)
		j = (j + 1) & (m->cap - 1);
	m->slot[j].key = key;
	m->slot[j].val = val;
	m->n++;
	return true;
}

void *map64_take(struct map64 *m, uint64_t key)
{
	struct slot64 *s = map64_find(m, key);
	if (s == NULL)
		return NULL;
	void *val = s->val;
	size_t mask = m->cap - 1, i = (size_t)(s - m->slot);
	m->slot[i].val = NULL;
	m->n--;
	for (size_t j = (i + 1) & mask; m->slot[j].val != NULL; j = (j + 1) & mask) {
		size_t home = mix64(m->slot[j].key) & mask;
		/* the entry at j may move to i when i lies cyclically in [home, j) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->slot[i] = m->slot[j];
			m->slot[j].val = NULL;
			i = j;
		}
	}
	return val;
}
