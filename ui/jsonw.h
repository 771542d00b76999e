/* jsonw.h: a small streaming JSON writer (commas and indentation handled for the caller).
 * Strings go through escape_json, so output is valid JSON whatever a trace holds.
 *
 * It knows where it is: jsonw_path gives the place of the next value as a dotted path of
 * keys and array positions ("files.0.kernels"). A writer set up while --csv is on
 * (jsonw_capture) writes no JSON at all: the tables written into it (table_write_json) go
 * to the CSV sink under their path instead, so that every report's CSV comes from the
 * very code that writes its JSON. */
#ifndef TT_JSONW_H
#define TT_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32
/* The longest key jsonw_path gives whole (keys are the program's own: short) */
#define JSONW_KEY_MAX 64

struct table_csv; /* ui/table.h */

struct jsonw {
	FILE *f; /* NULL: writes nothing (a capture) */
	int depth;
	bool first[JSONW_MAX_DEPTH];
	bool after_key;
	/* by depth: whether the container is an array, how many values (keys in an object)
	 * were begun in it, and its last key */
	bool array[JSONW_MAX_DEPTH];
	uint32_t count[JSONW_MAX_DEPTH];
	char key[JSONW_MAX_DEPTH][JSONW_KEY_MAX];
	struct table_csv *csv; /* the capture's sink, or NULL */
};

/* Sets W up to write to F; while a capture is on (jsonw_capture), to write nothing and
 * send its tables to the capture's sink. */
void jsonw_init(struct jsonw *w, FILE *f);
/* From now on every writer set up captures its tables into CSV (NULL: none does). The
 * caller keeps CSV alive while they are written. */
void jsonw_capture(struct table_csv *csv);
/* Writes into BUF (N bytes) the place of the next value: its keys and array positions
 * joined by dots, "" at the top. A longer path is cut; returns its length. */
size_t jsonw_path(const struct jsonw *w, char *buf, size_t n);
void jsonw_object(struct jsonw *w);     /* { */
void jsonw_array(struct jsonw *w);      /* [ */
void jsonw_end_object(struct jsonw *w); /* } */
void jsonw_end_array(struct jsonw *w);  /* ] */
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_uint(struct jsonw *w, uint64_t v);
void jsonw_double(struct jsonw *w, double v); /* non-finite becomes null */
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Ends the document with a newline. */
void jsonw_finish(struct jsonw *w);

#endif
