/* xalloc.h: allocation that never returns NULL, and the one fatal path.
 * Out of memory and internal bugs are fatal; bad input never is (see parsers/). */
#ifndef TT_XALLOC_H
#define TT_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Each returns valid memory or exits through fatal(); the caller owns the result. */
void *xmalloc(size_t n) __attribute__((returns_nonnull, malloc));
void *xcalloc(size_t nmemb, size_t size) __attribute__((returns_nonnull, malloc));
void *xrealloc(void *p, size_t n) __attribute__((returns_nonnull));
void *xreallocarray(void *p, size_t nmemb, size_t size) __attribute__((returns_nonnull));
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* Runs before fatal() exits: the UI installs its terminal restore here. */
void fatal_set_hook(void (*hook)(void));
/* Prints "ttrace: MSG" to stderr, runs the hook, exits with status 2. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define BUG(...) fatal("BUG at %s:%d: %s", __FILE__, __LINE__, xasprintf(__VA_ARGS__))
#define BUG_ON(c)                      \
	do {                           \
		if (c)                 \
			BUG("%s", #c); \
	} while (0)

#endif
