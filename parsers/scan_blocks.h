/* scan_blocks.h: the scanner's view of 64 bytes at once, for walking over values it does
 * not keep (scan_lex.c's skip of an array or object): a bit
 * a byte for each kind of byte that matters, from SSE2 (every x86-64) or, where the
 * processor has it, AVX-512BW (a compare gives the bits at once). Which bytes lie inside
 * strings follows from the quotes: the parity of those at or before each byte
 * (prefix_xor). A block may be read at any place in the window up to its sentinel: the
 * window has SCAN_PAD (64) bytes after its data (parsers/scan_window.h). */
#ifndef TT_SCAN_BLOCKS_H
#define TT_SCAN_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define SCAN_BLOCKS 1
#endif
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SCAN_BLOCKS_AVX512 1
#endif

/* The bytes of a block, a bit a byte (bit i: the byte at P + i). */
struct scan_block {
	uint64_t quote;    /* '"' */
	uint64_t open;     /* '[' or '{' */
	uint64_t close;    /* ']' or '}' */
	uint64_t stop_in;  /* what ends a walk inside a string: '\\' or a byte below 0x20 */
	uint64_t stop_out; /* and outside one: i, I, n, N (a possible inf or nan), NUL */
};

/* Bit i of the result: the parity of the set bits of X at or below i. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

#if SCAN_BLOCKS
static inline uint64_t scan_bits16(__m128i m, unsigned at) { return (uint64_t)(unsigned)_mm_movemask_epi8(m) << at; }

/* The block at P, 16 bytes at a time. */
static inline void scan_block_sse2(const char *p, struct scan_block *b)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), lim = _mm_set1_epi8(0x1f),
		      fold = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'),
		      li = _mm_set1_epi8('i'), ln = _mm_set1_epi8('n'), zero = _mm_setzero_si128();

	*b = (struct scan_block){ 0, 0, 0, 0, 0 };
	for (unsigned i = 0; i < 64; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i f = _mm_or_si128(v, fold); /* [ and { alike, ] and }, I and i, N and n */
		b->quote |= scan_bits16(_mm_cmpeq_epi8(v, quote), i);
		b->open |= scan_bits16(_mm_cmpeq_epi8(f, open), i);
		b->close |= scan_bits16(_mm_cmpeq_epi8(f, close), i);
		b->stop_in |= scan_bits16(
			_mm_or_si128(_mm_cmpeq_epi8(v, bslash), _mm_cmpeq_epi8(_mm_min_epu8(v, lim), v)), i);
		b->stop_out |= scan_bits16(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(f, li), _mm_cmpeq_epi8(f, ln)),
		                                        _mm_cmpeq_epi8(v, zero)),
		                           i);
	}
}
#endif

#if SCAN_BLOCKS_AVX512
/* The whole block at P with AVX-512BW: call only where scan_wide_blocks(). */
__attribute__((target("avx512bw"))) static inline void scan_block_avx512(const char *p, struct scan_block *b)
{
	const __m512i v = _mm512_loadu_si512((const void *)p);
	const __m512i f = _mm512_or_si512(v, _mm512_set1_epi8(0x20));

	b->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
	b->open = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('{'));
	b->close = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('}'));
	b->stop_in =
		_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\')) | _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
	b->stop_out = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('i')) |
	              _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('n')) |
	              _mm512_cmpeq_epi8_mask(v, _mm512_setzero_si512());
}

/* Whether this processor runs scan_block_avx512. */
static inline bool scan_wide_blocks(void) { return __builtin_cpu_supports("avx512bw"); }
#endif

#endif
