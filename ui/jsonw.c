/* jsonw.c: the streaming JSON writer. */
#include "ui/jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/xalloc.h"
#include "lib/escape.h"

void jsonw_init(struct jsonw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->first[0] = true;
}

static void indent(struct jsonw *w)
{
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void before_value(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	indent(w);
}

static void open_container(struct jsonw *w, char c)
{
	before_value(w);
	fputc(c, w->f);
	if (w->depth + 1 >= JSONW_MAX_DEPTH)
		BUG("JSON nesting too deep");
	w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];
	w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->f);
}

void jsonw_object(struct jsonw *w) { open_container(w, '{'); }
void jsonw_array(struct jsonw *w) { open_container(w, '['); }
void jsonw_end_object(struct jsonw *w) { close_(w, '}'); }
void jsonw_end_array(struct jsonw *w) { close_(w, ']'); }

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	escape_json(w->f, key, strlen(key));
	fputs(": ", w->f);
	w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	before_value(w);
	escape_json(w->f, s, n);
}

void jsonw_str(struct jsonw *w, const char *s) { jsonw_strn(w, s, strlen(s)); }

void jsonw_int(struct jsonw *w, int64_t v)
{
	before_value(w);
	fprintf(w->f, "%" PRId64, v);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	before_value(w);
	fprintf(w->f, "%" PRIu64, v);
}

void jsonw_double(struct jsonw *w, double v)
{
	before_value(w);
	if (isfinite(v))
		fprintf(w->f, "%.6g", v);
	else
		fputs("null", w->f);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	fputs("null", w->f);
}

void jsonw_finish(struct jsonw *w) { fputc('\n', w->f); }
