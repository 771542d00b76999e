/* sort.h: an in-place introsort, generated per element type (no allocation, unlike
 * glibc's qsort, which may take a buffer as large as the array).
 * SORT_DEFINE(name, type, less) defines `static void name(type *a, size_t n)`, where
 * less(const type *x, const type *y) is a strict weak order. Not stable.
 * SORT_DEFINE_CTX(name, type, ctx_type, less) defines `static void name(type *a, size_t n,
 * ctx_type ctx)`, the same with less(const type *x, const type *y, ctx_type ctx): what a
 * comparison needs besides the two elements (the array they index, the strings they name)
 * comes as an argument, never from a file-scope variable set before the sort, so that
 * sorts on several threads stay apart. */
#ifndef TT_SORT_H
#define TT_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SORT_DEFINE_CTX(name, type, ctx_type, less)                               \
	static void name##_swap(type *x, type *y)                                 \
	{                                                                         \
		type t_ = *x;                                                     \
		*x = *y;                                                          \
		*y = t_;                                                          \
	}                                                                         \
	static void name##_insertion(type *a, size_t n, ctx_type ctx_)            \
	{                                                                         \
		for (size_t i = 1; i < n; i++) {                                  \
			type x_ = a[i];                                           \
			size_t j = i;                                             \
			while (j > 0 && less(&x_, &a[j - 1], ctx_)) {             \
				a[j] = a[j - 1];                                  \
				j--;                                              \
			}                                                         \
			a[j] = x_;                                                \
		}                                                                 \
	}                                                                         \
	static void name##_sift(type *a, size_t n, size_t i, ctx_type ctx_)       \
	{                                                                         \
		for (;;) {                                                        \
			size_t l_ = 2 * i + 1, m_ = i;                            \
			if (l_ < n && less(&a[m_], &a[l_], ctx_))                 \
				m_ = l_;                                          \
			if (l_ + 1 < n && less(&a[m_], &a[l_ + 1], ctx_))         \
				m_ = l_ + 1;                                      \
			if (m_ == i)                                              \
				return;                                           \
			name##_swap(&a[i], &a[m_]);                               \
			i = m_;                                                   \
		}                                                                 \
	}                                                                         \
	static void name##_intro(type *a, size_t n, int budget, ctx_type ctx_)    \
	{                                                                         \
		while (n > 24) {                                                  \
			if (budget-- == 0) {                                      \
				for (size_t i = n / 2; i-- > 0;)                  \
					name##_sift(a, n, i, ctx_);               \
				for (size_t i = n; i-- > 1;) {                    \
					name##_swap(&a[0], &a[i]);                \
					name##_sift(a, i, 0, ctx_);               \
				}                                                 \
				return;                                           \
			}                                                         \
			size_t mid = n / 2;                                       \
			if (less(&a[mid], &a[0], ctx_))                           \
				name##_swap(&a[mid], &a[0]);                      \
			if (less(&a[n - 1], &a[0], ctx_))                         \
				name##_swap(&a[n - 1], &a[0]);                    \
			if (less(&a[n - 1], &a[mid], ctx_))                       \
				name##_swap(&a[n - 1], &a[mid]);                  \
			type pivot = a[mid];                                      \
			size_t i = 0, j = n - 1;                                  \
			for (;;) {                                                \
				while (less(&a[i], &pivot, ctx_))                 \
					i++;                                      \
				while (less(&pivot, &a[j], ctx_))                 \
					j--;                                      \
				if (i >= j)                                       \
					break;                                    \
				name##_swap(&a[i], &a[j]);                        \
				i++;                                              \
				j--;                                              \
			}                                                         \
			if (j + 1 < n - j - 1) {                                  \
				name##_intro(a, j + 1, budget, ctx_);             \
				a += j + 1;                                       \
				n -= j + 1;                                       \
			} else {                                                  \
				name##_intro(a + j + 1, n - j - 1, budget, ctx_); \
				n = j + 1;                                        \
			}                                                         \
		}                                                                 \
		name##_insertion(a, n, ctx_);                                     \
	}                                                                         \
	static void name(type *a, size_t n, ctx_type ctx_)                        \
	{                                                                         \
		size_t i;                                                         \
		for (i = 1; i < n; i++)                                           \
			if (less(&a[i], &a[i - 1], ctx_))                         \
				break;                                            \
		if (i >= n)                                                       \
			return;                                                   \
		int budget = 2;                                                   \
		for (size_t m = n; m > 1; m >>= 1)                                \
			budget += 2;                                              \
		name##_intro(a, n, budget, ctx_);                                 \
	}

#define SORT_DEFINE(name, type, less)                                                   \
	static inline bool name##_less_(const type *x, const type *y, const void *ctx_) \
	{                                                                               \
		(void)ctx_;                                                             \
		return less(x, y);                                                      \
	}                                                                               \
	SORT_DEFINE_CTX(name##_ctx_, type, const void *, name##_less_)                  \
	static void name(type *a, size_t n) { name##_ctx_(a, n, NULL); }

/* The first position of V (N values in ascending order) whose value is at least X: N when
 * none is. */
static inline uint32_t i64_lower_bound(const int64_t *v, uint32_t n, int64_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
