/* checksum.h: a fast 64-bit checksum of bytes (the XXH64 algorithm), for telling a damaged
 * cache file from a sound one. Not a cryptographic hash: it finds accidents (a cut file, a
 * flipped bit), not forgeries. */
#ifndef TT_CHECKSUM_H
#define TT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Returns the checksum of the N bytes at P, started from SEED: XXH64(P, N, SEED). */
uint64_t checksum64(const void *p, size_t n, uint64_t seed);

#endif
