/* tap.h: a minimal TAP producer for the C unit tests (one header, no library).
 * Use: ok(cond, "what"), is_int(got, want, "what"), is_str(got, want, "what"),
 * then return done_testing(); each assertion is one TAP test point. */
#ifndef TT_TAP_H
#define TT_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                           \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (!ok(g_ == w_, __VA_ARGS__))                          \
			printf("#   got %lld, want %lld\n", g_, w_);     \
	} while (0)
#define is_str(got, want, ...)                                                                           \
	do {                                                                                             \
		const char *g_ = (got), *w_ = (want);                                                    \
		if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, __VA_ARGS__))                   \
			printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
