/* zero.h: zeroing a small struct that is filled again for every event, 16 bytes a store.
 * GCC compiles a memset of a few hundred bytes (and a struct assignment from a mostly-zero
 * template) to rep stos, whose start-up costs tens of cycles whatever the size: paid per
 * event, it was a quarter of the event parser's own time (bench/RESULTS.md). */
#ifndef TT_ZERO_H
#define TT_ZERO_H

#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Zeroes the N bytes at P (N at least 16). */
static inline void zero_small(void *p, size_t n)
{
#if defined(__SSE2__)
	char *b = p;
	const __m128i z = _mm_setzero_si128();
	for (size_t i = 0; i + 16 <= n; i += 16) {
		_mm_storeu_si128((__m128i *)(void *)(b + i), z);
		__asm__("" : "+r"(b)); /* else GCC sees a memset in the loop and makes it one */
	}
	if (n % 16 != 0)
		_mm_storeu_si128((__m128i *)(void *)(b + n - 16), z);
#else
	memset(p, 0, n);
#endif
}

#endif
