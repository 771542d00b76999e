/* escape.h: making text from a trace safe for a terminal or for JSON.
 *
 * Trace files are data: a name may hold ESC sequences, control bytes or invalid
 * UTF-8. Nothing from a file reaches the terminal without passing through here. */
#ifndef TT_ESCAPE_H
#define TT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Whether code point CP is one a terminal may act on rather than show: C0, DEL, C1
 * (U+0080-U+009F) and the Unicode Bidi_Control characters (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069). */
bool escape_cp_is_control(uint32_t cp);
/* Writes N bytes at P to F for a terminal: valid printable UTF-8 as is; C0 and DEL as \xNN
 * (\n, \t, \r as \n \t \r, backslash as itself); C1 and bidi controls as \uNNNN; invalid
 * UTF-8 bytes (raw 0x80-0x9F among them) as \xNN. Returns the number of bytes written. */
size_t escape_term(FILE *f, const char *p, size_t n);
/* Like escape_term but into BUF (always NUL-terminated, cut at N-1 bytes on a whole
 * escape or character). Returns BUF. */
char *escape_term_buf(const char *p, size_t len, char *buf, size_t n);
/* Writes a JSON string literal (with quotes) to F: valid UTF-8 kept, controls (C0, DEL, C1,
 * bidi) as \uNNNN, invalid bytes replaced by U+FFFD, so the output is always valid JSON. */
void escape_json(FILE *f, const char *p, size_t n);
/* Formats FMT like fprintf, writes the result to F through escape_term, then a newline:
 * the one way to write a message that quotes a file name, an option value or trace text. */
void escape_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Length of the valid UTF-8 sequence at P (1-4), or 0 when invalid or past END. */
int utf8_seq_len(const unsigned char *p, const unsigned char *end);

#endif
