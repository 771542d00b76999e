/* advice_finding.h: what the rules of one trace (src/advice.c) and of several ranks
 * (src/advice_ranks.c) share to make a finding: the worst instances kept, an instance,
 * the figures as shares and percents, and the order of the findings. */
#ifndef TT_ADVICE_FINDING_H
#define TT_ADVICE_FINDING_H

#include <stddef.h>
#include <stdint.h>

#include "src/advice.h"

/* The worst TT_ADVICE_MAX_INSTANCES instances of a finding, and the count and total
 * weight of all it was given. All zero: none yet. */
struct advice_topk {
	struct advice_instance v[TT_ADVICE_MAX_INSTANCES];
	uint32_t n, min; /* min: position of the least bad when full */
	uint64_t count;
	int64_t total;
};

/* No slice: an instance that is a stretch of time only. */
extern const struct slice_ref advice_no_ref;

/* Counts X into K (its count and total), and keeps a copy when it is among the worst. */
void advice_topk_add(struct advice_topk *k, const struct advice_instance *x);

/* Sorts the instances K keeps worst first: larger value, then lower rank, earlier start,
 * then by slice. */
void advice_topk_sort(struct advice_topk *k);

/* An instance of slice REF (or advice_no_ref) covering [START, END) of weight VALUE, in
 * rank 0, with no calling operator or context and its bytes unknown (-1). */
struct advice_instance advice_instance_of(struct slice_ref ref, int64_t start, int64_t end, int64_t value);

/* X as a share of OF; 0 when OF is not positive. */
static inline double advice_share(int64_t x, int64_t of) { return of > 0 ? (double)x / (double)of : 0.0; }

/* The share X as a percent with one decimal ("12.3%") in BUF (N bytes); returns BUF. */
const char *advice_pct(double x, char *buf, size_t n);

/* qsort's order of findings: the higher score first, then by rule. */
int advice_finding_cmp(const void *a, const void *b);

#endif
