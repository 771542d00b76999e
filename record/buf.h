/* buf.h: growable text for the recorder's trace writer (record/trace_writer.c): bytes,
 * numbers and JSON strings appended to one NUL-terminated buffer. Out of memory aborts:
 * the recorder cannot report anything without memory. */
#ifndef TTRACE_RECORD_BUF_H
#define TTRACE_RECORD_BUF_H

#include <stddef.h>
#include <stdint.h>

/* All zero: empty. P (NUL-terminated once anything is appended) is the caller's to free. */
struct buf {
	char *p;
	size_t n, cap;
};

/* Makes room in B for MORE bytes and the NUL after them (P may move). */
void buf_reserve(struct buf *b, size_t more);

/* Appends the N bytes at S. */
void buf_put(struct buf *b, const char *s, size_t n);

/* Appends the string S. */
void buf_str(struct buf *b, const char *s);

/* Appends a string literal: the hot paths (a kernel and its launch are most of a trace)
 * append by hand, since printf was most of the writer's time. */
#define BUF_LIT(b, lit) buf_put((b), (lit), sizeof(lit) - 1)

/* Appends V in decimal. */
void buf_u64(struct buf *b, uint64_t v);
void buf_i64(struct buf *b, int64_t v);

/* Appends V with six decimals, as printf's %f writes it. */
void buf_fixed6(struct buf *b, double v);

/* Appends what printf would write for FMT. */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends S (NULL: "") as a JSON string, with quotes, backslashes and control characters
 * escaped and bytes that are not valid UTF-8 replaced by U+FFFD. */
void buf_json_string(struct buf *b, const char *s);

#endif
