/* table.h: a table of typed columns and rows, written as aligned text, JSON or CSV, and
 * shown on screen by the table panel (ui/table_panel.h).
 *
 * A view that is a table describes it once: its columns (a key, a title, a kind, a width
 * policy) and its rows (typed values, plus a tag the owner uses to find what a row stands
 * for). The report writer, the JSON writer and the panel all read that one definition, so
 * `--report=... --json` and the screen cannot disagree. Values are raw: text as the trace
 * holds it (escaped only when written), times and durations in integer nanoseconds. */
#ifndef TT_TABLE_H
#define TT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ui/jsonw.h"

enum col_kind {
	COL_TEXT,  /* a string */
	COL_DUR,   /* a duration in ns: "12.3 us" */
	COL_TIME,  /* a time in ns, shown from the table's origin: "+1234.567 us"; as is in JSON */
	COL_PCT,   /* a percentage, 0-100: "56.2%" */
	COL_RATIO, /* a fraction, 0-1: "56.23%" on screen, 0.5623 in JSON */
	COL_COUNT, /* a count: "1234" */
	COL_BYTES, /* a byte count: "12.3 MB" (exact in JSON) */
	COL_INT,   /* an identifier: a rank, a device, a step number */
	COL_BOOL,  /* yes or no: true or false in JSON */
	COL_ROWS,  /* rows of the column's child table (table_set_child): an array in JSON, a count on screen */
	COL_REAL,  /* a real number: 3 significant digits on screen (whole from 1000 on), as is in JSON */
};

/* Column flags. A view may write more in JSON than it shows (the exact end of a gap, the
 * slice behind it), or show a value as words that JSON gives as a stable key: a pair of a
 * COL_TEXT_ONLY and a COL_JSON_ONLY column with the same key does that. */
enum col_flag {
	COL_JSON_ONLY = 1,   /* written in JSON only: not in text, not on screen */
	COL_TEXT_ONLY = 2,   /* shown in text and on screen only */
	COL_OMIT_NULL = 4,   /* in JSON, no key at all when the value is null */
	COL_SIGNED = 16,     /* a change: a number above 0 is shown with its "+" (text and screen) */
	COL_ZERO_EMPTY = 32, /* 0 in every row means the trace does not record it (device time
	                      * on a CPU-only trace), not a finding: the column is empty then
	                      * (table_cols_empty). Without it only nulls make a column empty:
	                      * an overlap or a Tensor Core share of 0 is an answer */
	COL_WIDE = 8,        /* a flex column that keeps TABLE_WIDE_MIN columns (or its widest value)
	                      * even when that pushes the columns after it past the edge, where
	                      * the panel scrolls to them: a kernel's name matters more than its
	                      * launch shape on a narrow terminal */
};

/* The least a COL_WIDE column gets. */
#define TABLE_WIDE_MIN 40
/* The most columns a table has (column sets are bit masks). */
#define TABLE_MAX_COLS 64
/* Every column of a table, for the writers' column set. */
#define TABLE_ALL UINT64_MAX

/* A key with a dot ("cpu_slice.name") is a member of an object in JSON: consecutive
 * columns with the same part before the dot make one object ("cpu_slice": {"name": ...}),
 * written as null when all its values are null. One level of nesting. */
struct column {
	const char *key;   /* JSON key and name in messages ("dur_ns") */
	const char *title; /* heading ("duration") */
	enum col_kind kind;
	int flex;       /* 0: as wide as its widest value; else it shares what room is left (by
	                 * weight) and a longer value is elided in the middle with "…" */
	unsigned flags; /* enum col_flag */
};

struct tvalue {
	bool null;     /* no value: "-" in text (or its text, if any: "n/a"), null in JSON */
	bool text;     /* holds text whatever the column's kind (a pid that is a string) */
	int64_t i;     /* COL_DUR, COL_TIME, COL_COUNT, COL_BYTES, COL_INT, COL_BOOL */
	double d;      /* COL_PCT, COL_RATIO */
	uint32_t s, n; /* text: offset and length in the table's text; COL_ROWS: first child row, count */
};

struct table {
	const struct column *cols;
	int ncols;
	uint32_t nrows, cap;
	struct tvalue *v; /* nrows x ncols, row-major */
	uint64_t *tag;    /* by row: what the row stands for, for its owner */
	char *text;
	size_t tlen, tcap;
	int64_t origin;                            /* COL_TIME values are shown from this time (0 unless set) */
	const struct table *child[TABLE_MAX_COLS]; /* by column: the table COL_ROWS cells point into */
	/* by column of durations or bytes: the smallest magnitude above 0 and the largest set,
	 * from which the column's one unit is chosen (table_format) */
	uint64_t mag_min[TABLE_MAX_COLS], mag_max[TABLE_MAX_COLS];
};

/* Sets T up, empty, over COLS (NCOLS of them, at most TABLE_MAX_COLS; the caller keeps
 * them alive). */
void table_init(struct table *t, const struct column *cols, int ncols);
void table_free(struct table *t);
/* Empties T, keeping its columns. */
void table_clear(struct table *t);
/* Appends a row of nulls tagged TAG; returns its index. */
uint32_t table_add_row(struct table *t, uint64_t tag);
void table_set_text(struct table *t, uint32_t row, int col, const char *s, size_t n);
void table_set_str(struct table *t, uint32_t row, int col, const char *s);
void table_set_int(struct table *t, uint32_t row, int col, int64_t v);
/* A cell with no value that reads SHOWN ("n/a") in text and on screen, null in JSON. */
void table_set_na(struct table *t, uint32_t row, int col, const char *shown);
void table_set_pct(struct table *t, uint32_t row, int col, double v); /* COL_PCT, COL_RATIO, COL_REAL; NaN: null */
/* COL_ROWS: the cell is rows FIRST to FIRST + N - 1 of the column's child table. */
void table_set_rows(struct table *t, uint32_t row, int col, uint32_t first, uint32_t n);
/* The table CHILD (kept alive by the caller) holds the rows of column COL's cells. */
void table_set_child(struct table *t, int col, const struct table *child);
/* The (first) column whose key is KEY, or -1. */
int table_col(const struct table *t, const char *key);
/* The set of columns FIRST to LAST (keys; the first of each), for the writers. */
uint64_t table_cols_between(const struct table *t, const char *first, const char *last);
/* The set holding the column KEY (empty when there is none). */
uint64_t table_cols_of(const struct table *t, const char *key);
/* The columns of T (a bit each) with nothing to show in any row: every value null (without
 * a placeholder text: the trace lacks it), or 0 in a COL_ZERO_EMPTY column (device time on
 * a CPU-only trace). Text and the screen leave them out; JSON keeps a
 * fixed set of keys. The first column (the rows' names) is never in it; with no rows,
 * none is. */
uint64_t table_cols_empty(const struct table *t);
/* Whether column COL of the set COLS is shown as text (on screen, in text reports). */
bool table_col_shown(const struct table *t, int col, uint64_t cols);
static inline const struct tvalue *table_value(const struct table *t, uint32_t row, int col)
{
	return &t->v[(size_t)row * (size_t)t->ncols + (size_t)col];
}
/* The raw text of a text cell, or of a cell holding text (not NUL-terminated: *N bytes). */
const char *table_text(const struct table *t, uint32_t row, int col, size_t *n);

/* Formats a cell as shown, escaped for a terminal, into BUF; returns its width in columns. */
int table_format(const struct table *t, uint32_t row, int col, char *buf, size_t n);
/* Orders rows A and B by column COL: text by bytes, numbers by value, nulls last. */
int table_cmp(const struct table *t, int col, uint32_t a, uint32_t b);
/* Sorts ROWS (N row indices) by COL, descending when DESC; ties keep their order. */
void table_sort(const struct table *t, uint32_t *rows, uint32_t n, int col, bool desc);
/* Whether a text cell of ROW in a column shown of the set COLS holds NEEDLE, ignoring
 * ASCII case (a filter finds what the screen shows, not what only JSON has). */
bool table_row_matches(const struct table *t, uint32_t row, uint64_t cols, const char *needle);

/* The width of each column (COLW[ncols]) for the rows listed, fitting WIDTH columns in
 * all with one space between the columns shown (table_col_shown of COLS; the others get
 * 0): fixed columns as wide as their title and widest value; flex columns share what is
 * left (at least their title). Returns the total. */
int table_layout(const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width, int *colw);
/* As table_layout, where the value of column LEAD_COL in the K-th row listed is drawn
 * after LEAD[K] more columns (a tree's indentation). */
int table_layout_lead(const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width, int lead_col,
                      const int *lead, int *colw);
/* Writes VALUE (escaped text, WIDTH columns at most) into BUF, elided in the middle with
 * "…" (or "..." when ASCII) when longer. Returns its width. */
int table_elide(const char *value, int width, bool ascii, char *buf, size_t n);
/* As table_elide, but where VALUE is elided the text from code point AT on shows (AT < 0:
 * as table_elide): the head, "…", the text a few code points before AT on, "…", the tail
 * (or one "…" when AT lies near either end). */
int table_elide_at(const char *value, int width, int at, bool ascii, char *buf, size_t n);
/* For the N VALUES of a column elided to WIDTH: AT[k] is the code point where value k departs
 * from the closest other value that table_elide writes the same (table_elide_at then
 * shows it), -1 where its elided text is its own. O(n log n) comparisons. */
void table_elide_apart(const char *const *values, uint32_t n, int width, bool ascii, int *at);
/* Whether a column is written right-aligned (numbers). */
bool table_col_right(const struct column *c);

/* Writes the rows listed (all when ROWS is NULL) as aligned text, the columns of the set
 * COLS that are shown (TABLE_ALL: every one): a heading line, then a line per row, each
 * line starting with INDENT and fitting WIDTH columns; flex columns are elided in the
 * middle, never cut silently (the JSON has them whole). */
void table_write_text(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols, int width,
                      const char *indent);
/* Writes the rows listed (all when ROWS is NULL) as a JSON array of objects keyed by
 * column key, the columns of the set COLS that JSON has (not COL_TEXT_ONLY), in column
 * order; times and durations as integer ns, nulls as null, dotted keys nested. */
void table_write_json(struct jsonw *w, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols);
/* Writes row ROW alone as a JSON object (as table_write_json writes each row). */
void table_write_json_row(struct jsonw *w, const struct table *t, uint32_t row, uint64_t cols);

/* Writes the rows listed (all when ROWS is NULL) as CSV (RFC 4180, lines ending in \n): a
 * header of the columns' JSON keys (a dotted key as it is: "cpu_slice.name"), then a line
 * per row, the columns that table_write_json writes with the same values in the same
 * units: integer ns and bytes, ratios as fractions of 1, booleans as true and false; null
 * is an empty field, an empty text "". Text is written as the trace holds it, bytes
 * unchanged (not escaped for a terminal), quoted when it holds a comma, a quote, CR or LF
 * or starts with '#', but a NUL byte is written as U+FFFD. A column of rows (COL_ROWS) is
 * left out: table_write_csv_child writes its rows. */
void table_write_csv(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, uint64_t cols);
/* Writes the rows that column COL (COL_ROWS) of the rows listed holds, as CSV over its
 * child table's columns, after a first column "parent_row": the position of the row
 * holding them in the list (its index in the JSON array). */
void table_write_csv_child(FILE *f, const struct table *t, const uint32_t *rows, uint32_t n, int col);

/* Where --csv sends the tables a report writes: a JSON writer set up while a capture is on
 * (jsonw_capture) hands every table given to table_write_json to table_csv_put instead of
 * writing it. */
struct table_csv {
	FILE *f;
	const char *only; /* --table: the path of the one table to write, alone and plain;
	                   * NULL: every table, a block each */
	uint32_t written; /* blocks written */
	char *paths;      /* the paths of the tables met, each after ", " (for messages) */
	size_t plen, pcap;
};

/* Writes the rows listed of T, at the place PATH of the report's JSON ("files.0.kernels"),
 * to C: every table as a block, "# PATH", the table as table_write_csv writes it, blocks
 * apart by a blank line; with C->only, only the table at that path, without its "#" line.
 * A column of rows is a table of its own, at PATH.KEY (table_write_csv_child). */
void table_csv_put(struct table_csv *c, const char *path, const struct table *t, const uint32_t *rows, uint32_t n,
                   uint64_t cols);
void table_csv_release(struct table_csv *c);

#endif
