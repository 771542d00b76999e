/* escape.h: making text from a trace safe for a terminal or for JSON.
 *
 * Trace files are data: a name may hold ESC sequences, control bytes or invalid
 * UTF-8. Nothing from a file reaches the terminal without passing through here. */
#ifndef TT_ESCAPE_H
#define TT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes N bytes at P to F for a terminal: valid printable UTF-8 as is; control bytes
 * (C0, DEL, C1) as \xNN (\n, \t, \r as \n \t \r, backslash as itself); invalid UTF-8 bytes
 * as \xNN. Returns the number of bytes written. */
size_t escape_term(FILE *f, const char *p, size_t n);
/* Like escape_term but into BUF (always NUL-terminated, cut at N-1 bytes on a whole
 * escape or character). Returns BUF. */
char *escape_term_buf(const char *p, size_t len, char *buf, size_t n);
/* Writes a JSON string literal (with quotes) to F: valid UTF-8 kept, controls escaped,
 * invalid bytes replaced by U+FFFD, so the output is always valid JSON. */
void escape_json(FILE *f, const char *p, size_t n);
/* Length of the valid UTF-8 sequence at P (1-4), or 0 when invalid or past END. */
int utf8_seq_len(const unsigned char *p, const unsigned char *end);

#endif
