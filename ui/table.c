/* table.c: typed tables and their writers: text, JSON and CSV (see table.h). */
#include "ui/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "lib/escape.h"

void table_init(struct table *t, const struct column *cols, int ncols)
{
	BUG_ON(ncols > TABLE_MAX_COLS);
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
	memset(t->mag_min, 0, sizeof t->mag_min);
	memset(t->mag_max, 0, sizeof t->mag_max);
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
	v->text = true;
	v->s = (uint32_t)t->tlen;
	v->n = (uint32_t)n;
	t->tlen += n;
	t->text[t->tlen++] = '\0';
}

void table_set_str(struct table *t, uint32_t row, int col, const char *s) { table_set_text(t, row, col, s, strlen(s)); }

void table_set_na(struct table *t, uint32_t row, int col, const char *shown)
{
	table_set_str(t, row, col, shown);
	cell(t, row, col)->null = true;
}

void table_set_int(struct table *t, uint32_t row, int col, int64_t v)
{
	struct tvalue *c = cell(t, row, col);
	c->null = false;
	c->text = false;
	c->i = v;
	if (t->cols[col].kind == COL_DUR || t->cols[col].kind == COL_BYTES) {
		uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		if (a > 0 && (t->mag_min[col] == 0 || a < t->mag_min[col]))
			t->mag_min[col] = a;
		if (a > t->mag_max[col])
			t->mag_max[col] = a;
	}
}

void table_set_pct(struct table *t, uint32_t row, int col, double v)
{
	struct tvalue *c = cell(t, row, col);
	c->null = v != v; /* NaN: unknown */
	c->text = false;
	c->d = v;
}

void table_set_rows(struct table *t, uint32_t row, int col, uint32_t first, uint32_t n)
{
	struct tvalue *c = cell(t, row, col);
	c->null = false;
	c->text = false;
	c->s = first;
	c->n = n;
	c->i = n;
}

void table_set_child(struct table *t, int col, const struct table *child)
{
	BUG_ON(col < 0 || col >= t->ncols);
	t->child[col] = child;
}

int table_col(const struct table *t, const char *key)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	return -1;
}

uint64_t table_cols_between(const struct table *t, const char *first, const char *last)
{
	int a = table_col(t, first), b = table_col(t, last);
	uint64_t set = 0;
	if (a < 0 || b < 0)
		BUG("no column %s or %s", first, last);
	for (int c = a; c <= b; c++)
		set |= UINT64_C(1) << c;
	return set;
}

uint64_t table_cols_of(const struct table *t, const char *key)
{
	int c = table_col(t, key);
	return c >= 0 ? UINT64_C(1) << c : 0;
}

bool table_col_shown(const struct table *t, int col, uint64_t cols)
{
	return (cols >> col & 1) && !(t->cols[col].flags & COL_JSON_ONLY);
}

uint64_t table_cols_empty(const struct table *t)
{
	uint64_t empty = 0;
	for (int c = 1; c < t->ncols && c < 64; c++) { /* the first column names the rows: it stays */
		bool any = false;
		for (uint32_t r = 0; r < t->nrows && !any; r++) {
			const struct tvalue *v = table_value(t, r, c);
			if (v->null)
				any = v->text && v->n > 0; /* a shown placeholder ("n/a") says something */
			else if (v->text || !(t->cols[c].flags & COL_ZERO_EMPTY))
				any = true;
			else if (t->cols[c].kind == COL_PCT || t->cols[c].kind == COL_RATIO ||
			         t->cols[c].kind == COL_REAL)
				any = v->d != 0;
			else
				any = v->i != 0;
		}
		if (!any && t->nrows > 0)
			empty |= (uint64_t)1 << c;
	}
	return empty;
}

/* Whether column COL of the set COLS is written in JSON. */
static bool col_in_json(const struct table *t, int col, uint64_t cols)
{
	return (cols >> col & 1) && !(t->cols[col].flags & COL_TEXT_ONLY);
}

const char *table_text(const struct table *t, uint32_t row, int col, size_t *n)
{
	const struct tvalue *v = table_value(t, row, col);
	if (v->null || !v->text) {
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

/* One unit down a column of durations or bytes, so that magnitudes compare by their
 * digits: the unit of its smallest value above 0 (none then rounds to 0), larger while its
 * largest would need more than six digits. A value has three significant digits, and no
 * decimals from 100 units on: "1330 us", "320 us", "0.639 us". */
static void format_in_unit(uint64_t mag_min, uint64_t mag_max, int64_t v, bool bytes, char *buf, size_t n)
{
	static const char *const dur_units[] = { "ns", "us", "ms", "s" };
	static const char *const byte_units[] = { "B", "kB", "MB", "GB", "TB" };
	const char *const *units = bytes ? byte_units : dur_units;
	int last = bytes ? 4 : 3, u = 0;
	double unit = 1;
	while (u < last && mag_min >= unit * 1000) {
		unit *= 1000;
		u++;
	}
	while (u < last && (double)mag_max / unit >= 1e6) {
		unit *= 1000;
		u++;
	}
	double x = (double)v / unit, ax = fabs(x);
	int dec = ax == 0 || ax >= 100 || u == 0 ? 0 : ax >= 10 ? 1 : ax >= 1 ? 2 : 3;
	snprintf(buf, n, "%.*f %s", dec, x, units[u]);
}

int table_format(const struct table *t, uint32_t row, int col, char *buf, size_t n)
{
	const struct tvalue *v = table_value(t, row, col);
	if (n == 0)
		return 0;
	if (v->null && v->text) {
		escape_term_buf(t->text + v->s, v->n, buf, n);
		return width_of(buf);
	}
	if (v->null) {
		snprintf(buf, n, "-");
		return 1;
	}
	if (v->text) {
		escape_term_buf(t->text + v->s, v->n, buf, n);
		return width_of(buf);
	}
	switch (t->cols[col].kind) {
	case COL_TEXT: snprintf(buf, n, "-"); break;
	case COL_DUR: format_in_unit(t->mag_min[col], t->mag_max[col], v->i, false, buf, n); break;
	case COL_TIME: timefmt_offset(tt_sub(v->i, t->origin), buf, n); break;
	case COL_PCT: snprintf(buf, n, "%.1f%%", v->d); break;
	case COL_RATIO: snprintf(buf, n, "%.2f%%", 100.0 * v->d); break;
	case COL_REAL: /* 3 significant digits, but no exponent for a count in the thousands */
		snprintf(buf, n, fabs(v->d) >= 1000 && fabs(v->d) < 1e15 ? "%.0f" : "%.3g", v->d);
		break;
	case COL_COUNT:
	case COL_INT: snprintf(buf, n, "%" PRId64, v->i); break;
	case COL_BYTES: format_in_unit(t->mag_min[col], t->mag_max[col], v->i, true, buf, n); break;
	case COL_BOOL: snprintf(buf, n, "%s", v->i ? "yes" : "no"); break;
	case COL_ROWS: snprintf(buf, n, "%" PRIu32, v->n); break;
	}
	bool positive = t->cols[col].kind == COL_PCT || t->cols[col].kind == COL_RATIO || t->cols[col].kind == COL_REAL
	                        ? v->d > 0
	                        : v->i > 0;
	if ((t->cols[col].flags & COL_SIGNED) && positive && strlen(buf) + 1 < n) {
		memmove(buf + 1, buf, strlen(buf) + 1);
		buf[0] = '+';
	}
	return width_of(buf);
}

int table_cmp(const struct table *t, int col, uint32_t a, uint32_t b)
{
	const struct tvalue *x = table_value(t, a, col), *y = table_value(t, b, col);
	if (x->null || y->null)
		return x->null - y->null;
	if (x->text || y->text) { /* numbers before text in a column that holds both */
		if (!x->text || !y->text)
			return x->text - y->text;
		uint32_t n = x->n < y->n ? x->n : y->n;
		int c = memcmp(t->text + x->s, t->text + y->s, n);
		return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
	}
	switch (t->cols[col].kind) {
	case COL_TEXT: return 0;
	case COL_PCT:
	case COL_RATIO:
	case COL_REAL: return (x->d > y->d) - (x->d < y->d);
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

bool table_row_matches(const struct table *t, uint32_t row, uint64_t cols, const char *needle)
{
	size_t nl = strlen(needle);
	if (nl == 0)
		return true;
	for (int c = 0; c < t->ncols; c++) {
		size_t n;
		if (!table_col_shown(t, c, cols))
			continue;
		const char *s = table_text(t, row, c, &n);
		for (size_t i = 0; i + nl <= n; i++)
			if (strncasecmp(s + i, needle, nl) == 0)
				return true;
	}
	return false;
}

bool table_col_right(const struct column *c) { return c->kind != COL_TEXT; }

int table_layout(const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width, int *colw)
{
	return table_layout_lead(t, rows, n, cols, width, -1, NULL, colw);
}

int table_layout_lead(const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width, int lead_col,
                      const int *lead, int *colw)
{
	char buf[1024];
	int fixed = 0, nshown = 0, total = 0;
	int widest[TABLE_MAX_COLS] = { 0 };
	bool done[TABLE_MAX_COLS] = { false };
	for (int c = 0; c < t->ncols; c++) {
		colw[c] = 0;
		if (!table_col_shown(t, c, cols))
			continue;
		nshown++;
		colw[c] = width_of(t->cols[c].title);
		for (uint32_t k = 0; k < n; k++) {
			int w = table_format(t, rows ? rows[k] : k, c, buf, sizeof buf);
			if (c == lead_col && lead != NULL)
				w += lead[k];
			if (w > colw[c])
				colw[c] = w;
		}
		if (t->cols[c].flex > 0) {
			widest[c] = colw[c];
			colw[c] = width_of(t->cols[c].title);
		} else {
			fixed += colw[c];
		}
	}
	int room = width - fixed - (nshown > 0 ? nshown - 1 : 0);
	/* flex columns: each as wide as its widest value when that fits; the room left is
	 * shared by weight among the others (water-filling), never below their title */
	for (bool changed = true; changed;) {
		changed = false;
		int wsum = 0;
		for (int c = 0; c < t->ncols; c++)
			if (t->cols[c].flex > 0 && !done[c] && table_col_shown(t, c, cols))
				wsum += t->cols[c].flex;
		for (int c = 0; c < t->ncols && wsum > 0; c++)
			if (t->cols[c].flex > 0 && !done[c] && table_col_shown(t, c, cols) &&
			    widest[c] <= room * t->cols[c].flex / wsum) {
				colw[c] = widest[c];
				room -= widest[c];
				done[c] = true;
				changed = true;
				break;
			}
	}
	int wsum = 0;
	for (int c = 0; c < t->ncols; c++)
		if (t->cols[c].flex > 0 && !done[c] && table_col_shown(t, c, cols))
			wsum += t->cols[c].flex;
	for (int c = 0; c < t->ncols; c++)
		if (t->cols[c].flex > 0 && !done[c] && table_col_shown(t, c, cols)) {
			int share = wsum > 0 ? room * t->cols[c].flex / wsum : 0;
			colw[c] = share > colw[c] ? share : colw[c];
			int least = widest[c] < TABLE_WIDE_MIN ? widest[c] : TABLE_WIDE_MIN;
			if ((t->cols[c].flags & COL_WIDE) && colw[c] < least)
				colw[c] = least;
		}
	for (int c = 0, k = 0; c < t->ncols; c++)
		if (table_col_shown(t, c, cols))
			total += colw[c] + (k++ > 0);
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

int table_elide_at(const char *value, int width, int at, bool ascii, char *buf, size_t n)
{
	int w = width_of(value);
	if (w <= width || at < 0 || width < 24 || n == 0)
		return table_elide(value, width, ascii, buf, n);
	const char *mark = ascii ? "..." : "\xe2\x80\xa6";
	int mw = ascii ? 3 : 1;
	int head = width / 4, tail = width / 4, ctx = 4; /* ctx: code points shown before AT */
	int mid = width - head - tail - 2 * mw, start = at - ctx;
	if (start <= head + mw) /* AT near the start: a longer head shows it */
		head = width - mw - tail;
	else if (start + mid >= w - tail) /* near the end: a longer tail */
		tail = width - mw - head;
	size_t hb = bytes_of_first(value, head), tb = bytes_of_first(value, w - tail);
	if (head + mw + tail == width) {
		snprintf(buf, n, "%.*s%s%s", (int)hb, value, mark, value + tb);
	} else {
		size_t sb = bytes_of_first(value, start), eb = bytes_of_first(value, start + mid);
		snprintf(buf, n, "%.*s%s%.*s%s%s", (int)hb, value, mark, (int)(eb - sb), value + sb, mark, value + tb);
	}
	return width;
}

struct elided {
	char *shown; /* as table_elide writes it */
	const char *value;
	uint32_t k;
};

static int elided_cmp(const void *a, const void *b)
{
	const struct elided *x = a, *y = b;
	int c = strcmp(x->shown, y->shown);
	if (c == 0)
		c = strcmp(x->value, y->value);
	return c != 0 ? c : (x->k > y->k) - (x->k < y->k);
}

/* The length of the common prefix of A and B, backed off to the start of a code point. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	while (i > 0 && ((unsigned char)a[i] & 0xc0) == 0x80)
		i--;
	return i;
}

void table_elide_apart(const char *const *values, uint32_t n, int width, bool ascii, int *at)
{
	struct elided *e = xcalloc((size_t)n + 1, sizeof *e);
	size_t cap = (size_t)width * 4 + 16; /* an elided value: WIDTH code points of 4 bytes at most */
	for (uint32_t k = 0; k < n; k++) {
		at[k] = -1;
		e[k].shown = xmalloc(cap);
		table_elide(values[k], width, ascii, e[k].shown, cap);
		e[k].value = values[k];
		e[k].k = k;
	}
	qsort(e, n, sizeof *e, elided_cmp);
	/* runs that read the same once elided; in a run, groups of equal values, sorted: a
	 * group departs from its closest other group where it departs from a neighbour */
	for (uint32_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && strcmp(e[b].shown, e[a].shown) == 0; b++)
			;
		for (uint32_t g = a, h; g < b; g = h) {
			for (h = g + 1; h < b && strcmp(e[h].value, e[g].value) == 0; h++)
				;
			size_t d = 0;
			bool apart = false;
			if (g > a) {
				d = common_prefix(e[g].value, e[g - 1].value);
				apart = true;
			}
			if (h < b) {
				size_t dn = common_prefix(e[g].value, e[h].value);
				d = dn > d ? dn : d;
				apart = true;
			}
			if (!apart)
				continue;
			int cp = 0;
			for (size_t i = 0; i < d; i++)
				cp += ((unsigned char)e[g].value[i] & 0xc0) != 0x80;
			for (uint32_t i = g; i < h; i++)
				at[e[i].k] = cp;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		free(e[k].shown);
	free(e);
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

void table_write_text(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width,
                      const char *indent)
{
	if (rows == NULL)
		n = t->nrows;
	cols &= ~table_cols_empty(t); /* columns with nothing to say are not written as text */
	int *colw = xcalloc((size_t)t->ncols, sizeof *colw);
	char raw[4096], shown[4096];
	int last = -1;
	for (int c = 0; c < t->ncols; c++)
		if (table_col_shown(t, c, cols))
			last = c;
	table_layout(t, rows, n, cols, width - width_of(indent), colw);
	/* where rows of a flex column would read the same once elided, each shows where it
	 * departs from the others (three kernels "void at::native::vectorized_elem…") */
	int **at = xcalloc((size_t)t->ncols, sizeof *at);
	char **vals = xcalloc((size_t)n + 1, sizeof *vals);
	for (int c = 0; c < t->ncols && n > 1; c++) {
		if (!table_col_shown(t, c, cols) || t->cols[c].flex == 0)
			continue;
		for (uint32_t k = 0; k < n; k++) {
			table_format(t, rows ? rows[k] : k, c, raw, sizeof raw);
			vals[k] = xstrdup(raw);
		}
		at[c] = xcalloc(n, sizeof **at);
		table_elide_apart((const char *const *)vals, n, colw[c], false, at[c]);
		for (uint32_t k = 0; k < n; k++)
			free(vals[k]);
	}
	free(vals);
	/* the heading (row -1), then the rows */
	for (int64_t k = -1; k < (int64_t)n; k++) {
		uint32_t r = k < 0 ? 0 : rows ? rows[k] : (uint32_t)k;
		bool first = true;
		fputs(indent, f);
		for (int c = 0; c < t->ncols; c++) {
			if (!table_col_shown(t, c, cols))
				continue;
			bool right = table_col_right(&t->cols[c]);
			if (!first)
				fputc(' ', f);
			first = false;
			if (k >= 0)
				table_format(t, r, c, raw, sizeof raw);
			int sw = k >= 0 && at[c] != NULL
			                 ? table_elide_at(raw, colw[c], at[c][k], false, shown, sizeof shown)
			                 : table_elide(k < 0 ? t->cols[c].title : raw, colw[c], false, shown,
			                               sizeof shown);
			put_padded(f, shown, sw, c == last && !right ? sw : colw[c], right);
		}
		fputc('\n', f);
	}
	for (int c = 0; c < t->ncols; c++)
		free(at[c]);
	free(at);
	free(colw);
}

/* Writes the value of ROW's cell COL. */
static void write_json_value(struct jsonw *w, const struct table *t, uint32_t row, int col)
{
	const struct tvalue *v = table_value(t, row, col);
	if (v->null) {
		jsonw_null(w);
		return;
	}
	if (v->text) {
		jsonw_strn(w, t->text + v->s, v->n);
		return;
	}
	switch (t->cols[col].kind) {
	case COL_PCT:
	case COL_RATIO:
	case COL_REAL: jsonw_double(w, v->d); break;
	case COL_BOOL: jsonw_bool(w, v->i != 0); break;
	case COL_ROWS: {
		const struct table *ch = t->child[col];
		BUG_ON(ch == NULL || v->s > ch->nrows || v->n > ch->nrows - v->s);
		jsonw_array(w);
		for (uint32_t k = 0; k < v->n; k++)
			table_write_json_row(w, ch, v->s + k, TABLE_ALL);
		jsonw_end_array(w);
		break;
	}
	case COL_TEXT: jsonw_null(w); break;
	default: jsonw_int(w, v->i); break;
	}
}

/* The length of the part of KEY before its dot (0: no dot). */
static size_t group_len(const char *key)
{
	const char *dot = strchr(key, '.');
	return dot ? (size_t)(dot - key) : 0;
}

void table_write_json_row(struct jsonw *w, const struct table *t, uint32_t row, uint64_t cols)
{
	jsonw_object(w);
	for (int c = 0; c < t->ncols; c++) {
		if (!col_in_json(t, c, cols))
			continue;
		size_t g = group_len(t->cols[c].key);
		if (g == 0) {
			if (table_value(t, row, c)->null && (t->cols[c].flags & COL_OMIT_NULL))
				continue;
			jsonw_key(w, t->cols[c].key);
			write_json_value(w, t, row, c);
			continue;
		}
		/* the group: the following columns whose key has the same part before the dot */
		int end = c + 1;
		bool all_null = table_value(t, row, c)->null;
		while (end < t->ncols && group_len(t->cols[end].key) == g &&
		       memcmp(t->cols[end].key, t->cols[c].key, g + 1) == 0) {
			if (col_in_json(t, end, cols))
				all_null &= table_value(t, row, end)->null;
			end++;
		}
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)g, t->cols[c].key);
		jsonw_key(w, name);
		if (all_null) {
			jsonw_null(w);
		} else {
			jsonw_object(w);
			for (int m = c; m < end; m++) {
				if (!col_in_json(t, m, cols) ||
				    (table_value(t, row, m)->null && (t->cols[m].flags & COL_OMIT_NULL)))
					continue;
				jsonw_key(w, t->cols[m].key + g + 1);
				write_json_value(w, t, row, m);
			}
			jsonw_end_object(w);
		}
		c = end - 1;
	}
	jsonw_end_object(w);
}

void table_write_json(struct jsonw *w, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols)
{
	if (rows == NULL)
		n = t->nrows;
	if (w->csv != NULL) { /* --csv: the table goes to the capture, the JSON is not written */
		char path[512];
		jsonw_path(w, path, sizeof path);
		table_csv_put(w->csv, path, t, rows, n, cols);
		jsonw_null(w); /* takes the value's place, for the paths after it */
		return;
	}
	jsonw_array(w);
	for (uint32_t k = 0; k < n; k++)
		table_write_json_row(w, t, rows ? rows[k] : k, cols);
	jsonw_end_array(w);
}

/* ---- CSV ------------------------------------------------------------------------------- */

/* Whether column COL of the set COLS is written in CSV: as in JSON, but for a column of rows. */
static bool col_in_csv(const struct table *t, int col, uint64_t cols)
{
	return col_in_json(t, col, cols) && t->cols[col].kind != COL_ROWS;
}

/* Writes S (N bytes) as a CSV field: quoted when it must be, a NUL as U+FFFD. */
static void csv_text(FILE *f, const char *s, size_t n)
{
	bool quote = n == 0 || s[0] == '#';
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (quote)
		fputc('"', f);
	for (size_t i = 0, run = 0; i <= n; i++) {
		if (i < n && s[i] != '"' && s[i] != '\0')
			continue;
		fwrite(s + run, 1, i - run, f);
		if (i < n)
			fputs(s[i] == '"' ? "\"\"" : "\xef\xbf\xbd", f);
		run = i + 1;
	}
	if (quote)
		fputc('"', f);
}

/* Writes the value of ROW's cell COL as a CSV field: what write_json_value writes. */
static void csv_value(FILE *f, const struct table *t, uint32_t row, int col)
{
	const struct tvalue *v = table_value(t, row, col);
	if (v->null)
		return;
	if (v->text) {
		csv_text(f, t->text + v->s, v->n);
		return;
	}
	switch (t->cols[col].kind) {
	case COL_PCT:
	case COL_RATIO:
	case COL_REAL:
		if (isfinite(v->d))
			fprintf(f, "%.6g", v->d); /* jsonw_double's digits */
		break;
	case COL_BOOL: fputs(v->i != 0 ? "true" : "false", f); break;
	case COL_TEXT:
	case COL_ROWS: break;
	default: fprintf(f, "%" PRId64, v->i); break;
	}
}

/* Writes the header of T's columns of the set COLS in CSV, after LEAD (a column name or NULL). */
static void csv_header(FILE *f, const struct table *t, uint64_t cols, const char *lead)
{
	bool first = true;
	if (lead != NULL) {
		csv_text(f, lead, strlen(lead));
		first = false;
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!col_in_csv(t, c, cols))
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		csv_text(f, t->cols[c].key, strlen(t->cols[c].key));
	}
	fputc('\n', f);
}

/* Writes ROW of T in CSV, its columns of the set COLS, after the field LEAD (when >= 0). */
static void csv_row(FILE *f, const struct table *t, uint32_t row, uint64_t cols, int64_t lead)
{
	bool first = true;
	if (lead >= 0) {
		fprintf(f, "%" PRId64, lead);
		first = false;
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!col_in_csv(t, c, cols))
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		csv_value(f, t, row, c);
	}
	fputc('\n', f);
}

void table_write_csv(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols)
{
	if (rows == NULL)
		n = t->nrows;
	csv_header(f, t, cols, NULL);
	for (uint32_t k = 0; k < n; k++)
		csv_row(f, t, rows ? rows[k] : k, cols, -1);
}

void table_write_csv_child(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, int col)
{
	const struct table *ch = t->child[col];
	BUG_ON(t->cols[col].kind != COL_ROWS || ch == NULL);
	if (rows == NULL)
		n = t->nrows;
	csv_header(f, ch, TABLE_ALL, "parent_row");
	for (uint32_t k = 0; k < n; k++) {
		const struct tvalue *v = table_value(t, rows ? rows[k] : k, col);
		if (v->null)
			continue;
		BUG_ON(v->s > ch->nrows || v->n > ch->nrows - v->s);
		for (uint32_t i = 0; i < v->n; i++)
			csv_row(f, ch, v->s + i, TABLE_ALL, k);
	}
}

/* Notes PATH among C's paths; returns whether C writes the table there. */
static bool csv_wants(struct table_csv *c, const char *path)
{
	size_t n = strlen(path);
	if (c->plen + n + 3 > c->pcap) {
		while (c->plen + n + 3 > c->pcap)
			c->pcap = c->pcap ? c->pcap * 2 : 256;
		c->paths = xrealloc(c->paths, c->pcap);
	}
	c->plen += (size_t)snprintf(c->paths + c->plen, c->pcap - c->plen, "%s%s", c->plen ? ", " : "", path);
	if (c->only != NULL)
		return strcmp(c->only, path) == 0;
	if (c->written > 0)
		fputc('\n', c->f);
	fputs("# ", c->f);
	fputs(path, c->f);
	fputc('\n', c->f);
	return true;
}

void table_csv_put(struct table_csv *c, const char *path, const struct table *t, const uint32_t *rows, uint32_t n,
                   uint64_t cols)
{
	if (rows == NULL)
		n = t->nrows;
	if (csv_wants(c, path)) {
		table_write_csv(c->f, t, rows, n, cols);
		c->written++;
	}
	for (int col = 0; col < t->ncols; col++) {
		if (!col_in_json(t, col, cols) || t->cols[col].kind != COL_ROWS)
			continue;
		char sub[600];
		snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", t->cols[col].key);
		if (csv_wants(c, sub)) {
			table_write_csv_child(c->f, t, rows, n, col);
			c->written++;
		}
	}
}

void table_csv_release(struct table_csv *c)
{
	free(c->paths);
	c->paths = NULL;
	c->plen = c->pcap = 0;
}
