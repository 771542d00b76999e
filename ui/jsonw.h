/* jsonw.h: a small streaming JSON writer (commas and indentation handled for the caller).
 * Strings go through escape_json, so output is valid JSON whatever a trace holds. */
#ifndef TT_JSONW_H
#define TT_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

struct jsonw {
	FILE *f;
	int depth;
	bool first[JSONW_MAX_DEPTH];
	bool after_key;
};

void jsonw_init(struct jsonw *w, FILE *f);
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
