/* xalloc.c: checked allocation and the fatal exit path. */
#include "lib/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*fatal_hook)(void);

void fatal_set_hook(void (*hook)(void)) { fatal_hook = hook; }

void fatal(const char *fmt, ...)
{
	va_list ap;
	void (*hook)(void) = fatal_hook;

	fatal_hook = NULL;
	if (hook != NULL)
		hook();
	fputs("ttrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		fatal("allocation overflow (%zu x %zu)", nmemb, size);
	return xrealloc(p, nmemb * size);
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* GCC's UBSan instrumentation makes -Wformat-truncation see a NULL fmt here: it cannot be. */
#if defined(__GNUC__) && !defined(__clang__) /* clang has no such warning, and warns of that */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
char *xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *p, small[256];

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof small, fmt, aq);
	va_end(aq);
	if (n < 0)
		fatal("vsnprintf failed");
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
