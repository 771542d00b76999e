/* test_strtab.c: interning. */
#include <stdio.h>
#include <string.h>

#include "lib/strtab.h"
#include "tests/unit/tap.h"

/* The hash as it was first written: words of 8 bytes, then the tail zero-extended. */
static uint64_t ref_hash(const char *p, size_t n)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0x243f6a8885a308d3ull ^ (n * m);
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
	}
	if (n > 0) {
		unsigned char t[8] = { 0 };
		uint64_t w;
		memcpy(t, p, n);
		memcpy(&w, t, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}

int main(void)
{
	struct strtab t;
	char buf[32], big[100000];
	uint32_t ids[20000];
	int same = 1, distinct = 1;

	strtab_init(&t);
	is_int(strtab_intern(&t, "", 0), 0, "empty string is id 0");
	uint32_t a = strtab_intern(&t, "aten::mm", 8);
	is_int(strtab_intern(&t, "aten::mm", 8), a, "same bytes, same id");
	ok(strtab_intern(&t, "aten::mm ", 9) != a, "a trailing space makes another string");
	is_str(strtab_get(&t, a), "aten::mm", "bytes come back NUL-terminated");
	is_int(strtab_len(&t, a), 8, "length kept");
	uint32_t z = strtab_intern(&t, "a\0b", 3);
	ok(z != strtab_intern(&t, "a", 1) && strtab_len(&t, z) == 3, "inner NUL kept in length");
	is_int(strtab_find(&t, "nope", 4), UINT32_MAX, "find of an absent string");
	is_int(strtab_find(&t, "aten::mm", 8), a, "find of a present string");
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "name-%d", i);
		ids[i] = strtab_intern(&t, buf, strlen(buf));
	}
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "name-%d", i);
		same &= strtab_intern(&t, buf, strlen(buf)) == ids[i];
		same &= strcmp(strtab_get(&t, ids[i]), buf) == 0;
		if (i > 0)
			distinct &= ids[i] != ids[i - 1];
	}
	ok(same, "20000 strings survive table growth with stable ids and pointers");
	ok(distinct, "distinct strings get distinct ids");
	memset(big, 'x', sizeof big);
	uint32_t b = strtab_intern(&t, big, sizeof big);
	ok(strtab_len(&t, b) == sizeof big && strtab_get(&t, b)[sizeof big - 1] == 'x', "a 100 kB string");
	is_str(strtab_get(&t, a), "aten::mm", "earlier pointers still valid after a big string");
	ok(strtab_hash("abcdefgh1", 9) != strtab_hash("abcdefgh2", 9), "hash sees the tail");
	strtab_free(&t);

	/* Hash flooding: 16-byte strings whose second block cancels the state the first left,
	 * so that all of them have the same strtab_hash (the construction mirrors the hash's
	 * rounds). Interned in one table they must not all share one slot hash: the table's
	 * hash is seeded per process, so such a file cannot be written in advance. */
	enum { NCOLL = 4000 };
	const uint64_t m = 0x9e3779b97f4a7c15ull, h0 = 0x243f6a8885a308d3ull ^ (16 * m), k = 0x4141414141414141ull;
	static char coll[NCOLL][16];
	int all_collide = 1, slot_spread = 0, found_all = 1;
	strtab_init(&t);
	for (int i = 0; i < NCOLL; i++) {
		char first[9];
		uint64_t w, st;
		snprintf(first, sizeof first, "n%07d", i);
		memcpy(coll[i], first, 8);
		memcpy(&w, first, 8);
		st = (h0 ^ w) * m;
		st ^= st >> 29;
		w = st ^ k;
		memcpy(coll[i] + 8, &w, 8);
		all_collide &= strtab_hash(coll[i], 16) == strtab_hash(coll[0], 16);
		ids[i] = strtab_intern(&t, coll[i], 16);
	}
	for (int i = 0; i < NCOLL; i++) {
		found_all &= strtab_find(&t, coll[i], 16) == ids[i] && memcmp(strtab_get(&t, ids[i]), coll[i], 16) == 0;
		slot_spread |= t.hashes[ids[i]] != t.hashes[ids[0]];
	}
	ok(all_collide, "4000 crafted strings share one strtab_hash");
	ok(found_all, "each is interned once and found again");
	ok(slot_spread, "the table's seeded hash tells them apart");
	strtab_free(&t);

	/* strtab_hash is the function it always was (the timeline's colours come from it):
	 * every length and alignment against the reference, bytes read one word at a time */
	int same_hash = 1;
	for (int i = 0; i < 100; i++)
		buf[i % 32] = (char)(i * 37 + 11), big[i] = (char)(i * 53 + 7);
	for (size_t n = 0; n < 90; n++)
		for (size_t o = 0; o < 8; o++)
			same_hash &= strtab_hash(big + o, n) == ref_hash(big + o, n);
	ok(same_hash, "strtab_hash of 0-89 bytes at 8 alignments equals the reference");

	/* long names that differ in one byte only, anywhere in them, as templated kernel
	 * names do: each its own id and (the slot hash reads them in four lanes) its own
	 * slot hash */
	enum { NLONG = 2000, LONG_LEN = 203 };
	static char names[NLONG][LONG_LEN];
	int long_found = 1, long_distinct = 1;
	strtab_init(&t);
	for (int i = 0; i < NLONG; i++) {
		memset(names[i], 'k', LONG_LEN);
		names[i][i % LONG_LEN] = (char)('A' + i / LONG_LEN);
		ids[i] = strtab_intern(&t, names[i], LONG_LEN);
	}
	for (int i = 0; i < NLONG; i++) {
		long_found &= strtab_find(&t, names[i], LONG_LEN) == ids[i];
		for (int j = 0; j < i; j++)
			long_distinct &= ids[i] != ids[j] && t.hashes[ids[i]] != t.hashes[ids[j]];
	}
	ok(long_found, "2000 names of 203 bytes differing in one byte are found again");
	ok(long_distinct, "each has its own id and slot hash");
	strtab_free(&t);
	return done_testing();
}
