/* kinds.c: a trace's table of slice kinds (src/kinds.h). */
#include "src/kinds.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

struct kind_table {
	uint32_t cap;
	uint32_t *slots; /* open addressing: index + 1, 0 = empty */
	uint32_t nslots;
	bool shared;
	pthread_mutex_t lock;
	struct slice_kind **kept; /* arrays grown from while shared */
	uint32_t nkept;
};

static inline uint64_t key_of(struct slice_kind k)
{
	return (uint64_t)k.name | (uint64_t)k.depth << 32 | (uint64_t)k.cat_ix << 48 | (uint64_t)k.cls << 56 |
	       (uint64_t)k.flags << 60;
}

static inline uint32_t hash_of(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (uint32_t)key;
}

void kinds_init(struct trace *t)
{
	struct kind_table *kt = xcalloc(1, sizeof *kt);
	pthread_mutex_init(&kt->lock, NULL);
	kt->nslots = 64;
	kt->slots = xcalloc(kt->nslots, sizeof *kt->slots);
	kt->cap = 32;
	t->kinds = xmalloc(kt->cap * sizeof *t->kinds);
	t->nkinds = 0;
	t->kind_table = kt;
}

static void rehash(struct trace *t, struct kind_table *kt)
{
	free(kt->slots);
	kt->nslots *= 2;
	kt->slots = xcalloc(kt->nslots, sizeof *kt->slots);
	for (uint32_t i = 0; i < t->nkinds; i++) {
		uint32_t h = hash_of(key_of(t->kinds[i])) & (kt->nslots - 1);
		while (kt->slots[h] != 0)
			h = (h + 1) & (kt->nslots - 1);
		kt->slots[h] = i + 1;
	}
}

static uint32_t intern_locked(struct trace *t, struct kind_table *kt, struct slice_kind k)
{
	uint64_t key = key_of(k);
	uint32_t h = hash_of(key) & (kt->nslots - 1);
	for (; kt->slots[h] != 0; h = (h + 1) & (kt->nslots - 1))
		if (key_of(t->kinds[kt->slots[h] - 1]) == key)
			return kt->slots[h] - 1;
	if (t->nkinds == kt->cap) {
		uint32_t cap = kt->cap * 2;
		struct slice_kind *v = xreallocarray(NULL, cap, sizeof *v);
		memcpy(v, t->kinds, t->nkinds * sizeof *v);
		struct slice_kind *old = t->kinds;
		__atomic_store_n(&t->kinds, v, __ATOMIC_RELEASE);
		if (kt->shared) {
			kt->kept = xreallocarray(kt->kept, kt->nkept + 1, sizeof *kt->kept);
			kt->kept[kt->nkept++] = old;
		} else {
			free(old);
		}
		kt->cap = cap;
	}
	uint32_t i = t->nkinds;
	t->kinds[i] = k;
	__atomic_store_n(&t->nkinds, i + 1, __ATOMIC_RELEASE);
	kt->slots[h] = i + 1;
	if (2 * t->nkinds > kt->nslots)
		rehash(t, kt);
	return i;
}

uint32_t kinds_intern(struct trace *t, struct slice_kind k)
{
	struct kind_table *kt = t->kind_table;
	if (!kt->shared)
		return intern_locked(t, kt, k);
	pthread_mutex_lock(&kt->lock);
	uint32_t i = intern_locked(t, kt, k);
	pthread_mutex_unlock(&kt->lock);
	return i;
}

void kinds_share(struct trace *t, bool on)
{
	struct kind_table *kt = t->kind_table;
	kt->shared = on;
	if (!on) {
		for (uint32_t i = 0; i < kt->nkept; i++)
			free(kt->kept[i]);
		free(kt->kept);
		kt->kept = NULL;
		kt->nkept = 0;
	}
}

void kinds_copy(struct trace *dst, const struct trace *src)
{
	kinds_init(dst);
	for (uint32_t i = 0; i < src->nkinds; i++)
		kinds_intern(dst, src->kinds[i]);
}

void kinds_free(struct trace *t, bool borrowed)
{
	struct kind_table *kt = t->kind_table;
	if (kt != NULL) {
		kinds_share(t, false);
		free(kt->slots);
		pthread_mutex_destroy(&kt->lock);
		free(kt);
	}
	if (!borrowed)
		free(t->kinds);
	t->kinds = NULL;
	t->nkinds = 0;
	t->kind_table = NULL;
}
