/* jsonw.c: the streaming JSON writer. */
#include "ui/jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/xalloc.h"
#include "lib/escape.h"

static struct table_csv *capture;

void jsonw_capture(struct table_csv *csv) { capture = csv; }

void jsonw_init(struct jsonw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->csv = capture;
	w->f = capture != NULL ? NULL : f;
	w->first[0] = true;
}

size_t jsonw_path(const struct jsonw *w, char *buf, size_t n)
{
	size_t at = 0;
	if (n == 0)
		return 0;
	buf[0] = '\0';
	for (int d = 1; d <= w->depth && at < n; d++) {
		char part[JSONW_KEY_MAX + 16];
		if (!w->array[d])
			snprintf(part, sizeof part, "%s", w->key[d]);
		else /* the element open in it, or at the innermost level the next one */
			snprintf(part, sizeof part, "%" PRIu32, d < w->depth ? w->count[d] - 1 : w->count[d]);
		int k = snprintf(buf + at, n - at, "%s%s", d > 1 ? "." : "", part);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	return at < n ? at : n - 1;
}

static void indent(struct jsonw *w)
{
	if (w->f == NULL)
		return;
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
	w->count[w->depth]++;
	if (!w->first[w->depth] && w->f != NULL)
		fputc(',', w->f);
	w->first[w->depth] = false;
	indent(w);
}

static void open_container(struct jsonw *w, char c)
{
	before_value(w);
	if (w->f != NULL)
		fputc(c, w->f);
	if (w->depth + 1 >= JSONW_MAX_DEPTH)
		BUG("JSON nesting too deep");
	w->depth++;
	w->first[w->depth] = true;
	w->array[w->depth] = c == '[';
	w->count[w->depth] = 0;
	w->key[w->depth][0] = '\0';
}

static void close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];
	w->depth--;
	if (!empty)
		indent(w);
	if (w->f != NULL)
		fputc(c, w->f);
}

void jsonw_object(struct jsonw *w) { open_container(w, '{'); }
void jsonw_array(struct jsonw *w) { open_container(w, '['); }
void jsonw_end_object(struct jsonw *w) { close_(w, '}'); }
void jsonw_end_array(struct jsonw *w) { close_(w, ']'); }

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	snprintf(w->key[w->depth], sizeof w->key[w->depth], "%s", key);
	if (w->f != NULL) {
		escape_json(w->f, key, strlen(key));
		fputs(": ", w->f);
	}
	w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	before_value(w);
	if (w->f != NULL)
		escape_json(w->f, s, n);
}

void jsonw_str(struct jsonw *w, const char *s) { jsonw_strn(w, s, strlen(s)); }

void jsonw_int(struct jsonw *w, int64_t v)
{
	before_value(w);
	if (w->f != NULL)
		fprintf(w->f, "%" PRId64, v);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	before_value(w);
	if (w->f != NULL)
		fprintf(w->f, "%" PRIu64, v);
}

void jsonw_double(struct jsonw *w, double v)
{
	before_value(w);
	if (w->f == NULL)
		return;
	if (isfinite(v))
		fprintf(w->f, "%.6g", v);
	else
		fputs("null", w->f);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_value(w);
	if (w->f != NULL)
		fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	if (w->f != NULL)
		fputs("null", w->f);
}

void jsonw_finish(struct jsonw *w)
{
	if (w->f != NULL)
		fputc('\n', w->f);
}
