/* spans.h: sets of time intervals: merging into a union, lengths and intersections. */
#ifndef TT_SPANS_H
#define TT_SPANS_H

#include <stdint.h>

#include "src/model.h"

/* Sorts the N spans at V and merges them into a union in place (empty spans dropped);
 * returns how many remain. */
uint32_t spans_merge(struct span *v, uint32_t n);
/* Total length of the union U (N spans, merged) inside [a, b). */
int64_t spans_within(const struct span *u, uint32_t n, int64_t a, int64_t b);
/* The running lengths of the union U (N spans, merged): N + 1 values from 0, for
 * spans_within_prefix. The caller frees them with free(). */
int64_t *spans_prefix(const struct span *u, uint32_t n);
/* spans_within in O(log n), PREFIX from spans_prefix. */
int64_t spans_within_prefix(const struct span *u, const int64_t *prefix, uint32_t n, int64_t a, int64_t b);
/* Length of the intersection of two unions (merged). */
int64_t spans_intersection(const struct span *a, uint32_t na, const struct span *b, uint32_t nb);
/* Total length of a union. */
int64_t spans_length(const struct span *u, uint32_t n);

#endif
