/* table.c: typed tables and their two writers (see table.h). */
#include "ui/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/timefmt.h"
#include "src/xalloc.h"
#include "ui/escape.h"

void table_init(struct table *t, const struct column *cols, int ncols)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
	t->ncols = ncols;
}

void table_free(struct table *t)
{
	free(t->v);
	free(t->tag);
	free(t->text);
	memset(t, 0, sizeof *t);
}

void table_clear(struct table *t)
{
	t->nrows = 0;
	t->tlen = 0;
}

uint32_t table_add_row(struct table *t, uint64_t tag)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xreallocarray(t->v, (size_t)t->cap * (size_t)t->ncols, sizeof *t->v);
		t->tag = xreallocarray(t->tag, t->cap, sizeof *t->tag);
	}
	uint32_t r = t->nrows++;
	for (int c = 0; c < t->ncols; c++)
		t->v[(size_t)r * (size_t)t->ncols + (size_t)c] = (struct tvalue){ .null = true };
	t->tag[r] = tag;
	return r;
}

static struct tvalue *cell(struct table *t, uint32_t row, int col)
{
	return &t->v[(size_t)row * (size_t)t->ncols + (size_t)col];
}

void table_set_text(struct table *t, uint32_t row, int col, const char *s, size_t n)
{
	if (n > UINT32_MAX / 2)
		n = UINT32_MAX / 2;
	if (t->tlen + n + 1 > t->tcap) {
		while (t->tlen + n + 1 > t->tcap)
			t->tcap = t->tcap ? t->tcap * 2 : 4096;
		t->text = xrealloc(t->text, t->tcap);
	}
	memcpy(t->text + t->tlen, s, n);
	struct tvalue *v = cell(t, row, col);
	v->null = false;
	v->s = (uint32_t)t->tlen;
	v->n = (uint32_t)n;
	t->tlen += n;
	t->text[t->tlen++] = '\0';
}

void table_set_str(struct table *t, uint32_t row, int col, const char *s) { table_set_text(t, row, col, s, strlen(s)); }

void table_set_int(struct table *t, uint32_t row, int col, int64_t v)
{
	struct tvalue *c = cell(t, row, col);
	c->null = false;
	c->i = v;
}

void table_set_pct(struct table *t, uint32_t row, int col, double v)
{
	struct tvalue *c = cell(t, row, col);
	c->null = v != v; /* NaN: unknown */
	c->d = v;
}

int table_col(const struct table *t, const char *key)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	return -1;
}

const char *table_text(const struct table *t, uint32_t row, int col, size_t *n)
{
	const struct tvalue *v = table_value(t, row, col);
	if (v->null || t->cols[col].kind != COL_TEXT) {
		*n = 0;
		return "";
	}
	*n = v->n;
	return t->text + v->s;
}

/* Display width of escaped UTF-8 text: one column per code point. */
static int width_of(const char *s)
{
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		w += (*p & 0xc0) != 0x80;
	return w;
}

int table_format(const struct table *t, uint32_t row, int col, char *buf, size_t n)
{
	const struct tvalue *v = table_value(t, row, col);
	if (n == 0)
		return 0;
	if (v->null) {
		snprintf(buf, n, "-");
		return 1;
	}
	switch (t->cols[col].kind) {
	case COL_TEXT: escape_term_buf(t->text + v->s, v->n, buf, n); break;
	case COL_DUR: timefmt_dur(v->i, buf, n); break;
	case COL_TIME: timefmt_offset(v->i, buf, n); break;
	case COL_PCT: snprintf(buf, n, "%.1f%%", v->d); break;
	case COL_COUNT:
	case COL_INT: snprintf(buf, n, "%" PRId64, v->i); break;
	case COL_BYTES: timefmt_bytes((double)v->i, buf, n); break;
	}
	return width_of(buf);
}

int table_cmp(const struct table *t, int col, uint32_t a, uint32_t b)
{
	const struct tvalue *x = table_value(t, a, col), *y = table_value(t, b, col);
	if (x->null || y->null)
		return x->null - y->null;
	switch (t->cols[col].kind) {
	case COL_TEXT: {
		uint32_t n = x->n < y->n ? x->n : y->n;
		int c = memcmp(t->text + x->s, t->text + y->s, n);
		return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
	}
	case COL_PCT: return (x->d > y->d) - (x->d < y->d);
	default: return (x->i > y->i) - (x->i < y->i);
	}
}

struct sort_ctx {
	const struct table *t;
	int col;
	bool desc;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct tvalue *vx = table_value(s->t, x, s->col), *vy = table_value(s->t, y, s->col);
	int c;
	if (vx->null || vy->null)
		c = vx->null - vy->null; /* nulls last either way */
	else
		c = s->desc ? table_cmp(s->t, s->col, y, x) : table_cmp(s->t, s->col, x, y);
	return c != 0 ? c : (x > y) - (x < y); /* stable: ties in their first order */
}

void table_sort(const struct table *t, uint32_t *rows, uint32_t n, int col, bool desc)
{
	struct sort_ctx s = { t, col, desc };
	if (col >= 0 && col < t->ncols && n > 1)
		qsort_r(rows, n, sizeof *rows, row_cmp, &s);
}

bool table_row_matches(const struct table *t, uint32_t row, const char *needle)
{
	size_t nl = strlen(needle);
	if (nl == 0)
		return true;
	for (int c = 0; c < t->ncols; c++) {
		size_t n;
		const char *s = table_text(t, row, c, &n);
		for (size_t i = 0; i + nl <= n; i++)
			if (strncasecmp(s + i, needle, nl) == 0)
				return true;
	}
	return false;
}

bool table_col_right(const struct column *c) { return c->kind != COL_TEXT; }

int table_layout(const struct table *t, const uint32_t *rows, uint32_t n, int width, int *colw)
{
	char buf[1024];
	int fixed = 0, weights = 0, total = 0;
	for (int c = 0; c < t->ncols; c++) {
		colw[c] = width_of(t->cols[c].title);
		if (t->cols[c].flex > 0) {
			weights += t->cols[c].flex;
			continue;
		}
		for (uint32_t k = 0; k < n; k++) {
			int w = table_format(t, rows ? rows[k] : k, c, buf, sizeof buf);
			if (w > colw[c])
				colw[c] = w;
		}
		fixed += colw[c];
	}
	int room = width - fixed - (t->ncols - 1);
	/* flex columns: each as wide as its widest value when that fits; the room left is
	 * shared by weight among the others (water-filling), never below their title */
	int widest[64] = { 0 };
	bool done[64] = { false };
	for (int c = 0; c < t->ncols && c < 64; c++) {
		if (t->cols[c].flex <= 0)
			continue;
		widest[c] = colw[c];
		for (uint32_t k = 0; k < n; k++) {
			int w = table_format(t, rows ? rows[k] : k, c, buf, sizeof buf);
			if (w > widest[c])
				widest[c] = w;
		}
	}
	for (bool changed = true; changed;) {
		changed = false;
		int wsum = 0;
		for (int c = 0; c < t->ncols && c < 64; c++)
			if (t->cols[c].flex > 0 && !done[c])
				wsum += t->cols[c].flex;
		for (int c = 0; c < t->ncols && c < 64 && wsum > 0; c++)
			if (t->cols[c].flex > 0 && !done[c] && widest[c] <= room * t->cols[c].flex / wsum) {
				colw[c] = widest[c];
				room -= widest[c];
				done[c] = true;
				changed = true;
				break;
			}
	}
	int wsum = 0;
	for (int c = 0; c < t->ncols && c < 64; c++)
		if (t->cols[c].flex > 0 && !done[c])
			wsum += t->cols[c].flex;
	for (int c = 0; c < t->ncols && c < 64; c++)
		if (t->cols[c].flex > 0 && !done[c]) {
			int share = wsum > 0 ? room * t->cols[c].flex / wsum : 0;
			colw[c] = share > colw[c] ? share : colw[c];
		}
	(void)weights;
	for (int c = 0; c < t->ncols; c++)
		total += colw[c] + (c > 0);
	return total;
}

/* The byte length of the first K code points of S. */
static size_t bytes_of_first(const char *s, int k)
{
	size_t i = 0;
	while (s[i] && k > 0) {
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

int table_elide(const char *value, int width, bool ascii, char *buf, size_t n)
{
	int w = width_of(value);
	if (n == 0)
		return 0;
	if (w <= width) {
		snprintf(buf, n, "%s", value);
		return w;
	}
	const char *mark = ascii ? "..." : "\xe2\x80\xa6";
	int mw = ascii ? 3 : 1;
	if (width <= mw) {
		size_t b = bytes_of_first(value, width);
		snprintf(buf, n, "%.*s", (int)b, value);
		return width;
	}
	int head = (width - mw + 1) / 2, tail = width - mw - head;
	size_t hb = bytes_of_first(value, head), tb = bytes_of_first(value, w - tail);
	snprintf(buf, n, "%.*s%s%s", (int)hb, value, mark, value + tb);
	return width;
}

/* Writes S padded to W columns (right-aligned when RIGHT). */
static void put_padded(FILE *f, const char *s, int sw, int w, bool right)
{
	if (right)
		for (int i = sw; i < w; i++)
			fputc(' ', f);
	fputs(s, f);
	if (!right)
		for (int i = sw; i < w; i++)
			fputc(' ', f);
}

void table_write_text(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, int width, const char *indent)
{
	if (rows == NULL)
		n = t->nrows;
	int *colw = xcalloc((size_t)t->ncols, sizeof *colw);
	char raw[4096], shown[4096];
	table_layout(t, rows, n, width - width_of(indent), colw);
	fputs(indent, f);
	for (int c = 0; c < t->ncols; c++) {
		bool last = c == t->ncols - 1;
		if (c > 0)
			fputc(' ', f);
		int sw = table_elide(t->cols[c].title, colw[c], false, shown, sizeof shown);
		put_padded(f, shown, sw, last && !table_col_right(&t->cols[c]) ? sw : colw[c], table_col_right(&t->cols[c]));
	}
	fputc('\n', f);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = rows ? rows[k] : k;
		fputs(indent, f);
		for (int c = 0; c < t->ncols; c++) {
			bool last = c == t->ncols - 1;
			if (c > 0)
				fputc(' ', f);
			table_format(t, r, c, raw, sizeof raw);
			int sw = table_elide(raw, colw[c], false, shown, sizeof shown);
			put_padded(f, shown, sw, last && !table_col_right(&t->cols[c]) ? sw : colw[c],
			           table_col_right(&t->cols[c]));
		}
		fputc('\n', f);
	}
	free(colw);
}

void table_write_json(struct jsonw *w, const struct table *t, const uint32_t *rows, uint32_t n)
{
	if (rows == NULL)
		n = t->nrows;
	jsonw_array(w);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = rows ? rows[k] : k;
		jsonw_object(w);
		for (int c = 0; c < t->ncols; c++) {
			const struct tvalue *v = table_value(t, r, c);
			jsonw_key(w, t->cols[c].key);
			if (v->null)
				jsonw_null(w);
			else if (t->cols[c].kind == COL_TEXT)
				jsonw_strn(w, t->text + v->s, v->n);
			else if (t->cols[c].kind == COL_PCT)
				jsonw_double(w, v->d);
			else
				jsonw_int(w, v->i);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}
