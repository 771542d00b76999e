/* report.h: text and JSON reports written without a terminal. */
#ifndef TT_REPORT_H
#define TT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "src/data_limits.h"
#include "src/model.h"
#include "src/ranks.h"
#include "ui/jsonw.h"
#include "ui/table.h"

/* The width of text reports, in columns: --width=N, else $COLUMNS, else the terminal's
 * when standard output is one, else 120 (report_width_init). */
#define REPORT_WIDTH report_width()
#define REPORT_WIDTH_DEFAULT 120
#define REPORT_WIDTH_MIN 40
#define REPORT_WIDTH_MAX 1000
int report_width(void);
/* Sets the width: GIVEN (--width) when it is at least 0, else from $COLUMNS or the
 * terminal of standard output, else REPORT_WIDTH_DEFAULT; clamped to MIN..MAX. */
void report_width_init(int given);

/* Writes the summary of each usable trace (rank, span, events, tracks, top operators by
 * self CPU time, top kernels by total GPU time, data-quality counts) as text, or as one
 * JSON object {"ttrace_version", "files": [...]} when JSON is set. */
void report_summary(FILE *f, struct trace *const *traces, int n, bool json);
/* Writes the gap report of each usable trace (utilization, idle by cause and by HTA class,
 * the gaps of MIN_GAP ns or more longest first) as text, or as one JSON object. */
void report_gaps(FILE *f, struct trace *const *traces, int n, bool json, int64_t min_gap);
/* Writes the distributed report of the usable traces, one per rank: alignment (mode
 * ALIGN, offsets, residual), the per-rank table, the straggler and the collectives. */
void report_distributed(FILE *f, struct trace *const *traces, int n, bool json, int align);
/* Writes Y, why the straggler is late (src/straggler.h), as one JSON object to W: its key,
 * text, lateness and what each candidate cause explains. */
void straggler_why_json(struct jsonw *w, const struct straggler_why *y);
/* Writes L, the limits of what a report stands on (src/data_limits.h): as the key
 * "limits" of W's open object, [{key, text}] ([] when none), or to F as a "   limit: TEXT"
 * line each when W is NULL. */
void report_limits(FILE *f, struct jsonw *w, const struct data_limits *l);
/* A report that is one table view's table per file (the operators, the kernels): the view
 * file defines it (ui/op_view.c, ui/kernel_view.c) and report_table writes it. */
struct table_report {
	const char *name;                                              /* --report=NAME, and the JSON key of the rows */
	int (*columns)(struct column *cols);                           /* the view's columns; returns how many */
	void (*fill)(struct table *tb, struct trace *t);               /* the rows of T */
	void (*json_head)(struct jsonw *w, struct trace *t);           /* keys before the rows, or NULL */
	void (*text_head)(FILE *f, struct trace *t, const char *sort); /* lines before the rows, or NULL */
	uint64_t text_cols;                                            /* the columns of the text (a column set) */
	uint32_t text_rows;                                            /* rows in text without --top */
	const char *empty;                                             /* said when a file has no row */
	/* May be NULL. When set and true for a file with no row, the text head is written
	 * anyway (the memory report's peaks need no operator) and EMPTY is not said. */
	bool (*has_data)(struct trace *t);
	/* May be NULL (then the file's own: cut short, legacy exporter). The limits of what
	 * the table of T stands on (src/data_limits.h), written before it. */
	void (*limits)(struct trace *t, struct data_limits *l);
};
/* Writes DEF's table for each usable trace, in its own order or by the column keyed SORT:
 * the first TOP rows (0: all; negative: DEF's text_rows) as text; in JSON all, or the
 * first TOP when TOP > 0. Returns 0, or 2 (said on stderr) for an unknown SORT. */
/* Writes one file's part of a report: as keys of its JSON object into W, or as text to F
 * when W is NULL. */
typedef void (*report_one_fn)(FILE *f, struct jsonw *w, struct trace *t, void *arg);
/* The frame of every per-file report: each usable trace of TRACES as an object of the
 * "files" array (after its "path") of one JSON document, or as text under "== PATH",
 * with ONE writing the rest. */
void report_files(FILE *f, struct trace *const *traces, int n, bool json, report_one_fn one, void *arg);
int report_table(FILE *f, struct trace *const *traces, int n, bool json, int top, const char *sort,
                 const struct table_report *def);
/* Writes the data-quality findings of each trace, with up to three examples each. */
void report_check(FILE *f, struct trace *const *traces, int n);

/* Writes TEXT (ttrace's own words, never a trace's) from column COL, wrapped at
 * REPORT_WIDTH, the lines after the first indented by IND, and a newline. */
void report_wrap_text(FILE *f, const char *text, size_t col, const char *ind);

#endif
