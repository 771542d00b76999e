/* reports.h: the reports ttrace writes (`--report=NAME`, `--check`, `--dump-model`),
 * registered in one table (ui/reports.c), as ui/panels.h lists the views.
 *
 * A new report is a file under ui/ that defines its struct report_kind (its name, whether
 * it has a JSON form, its grouping, its writer) and a line in that table: ui/main.c knows
 * no report by name, and takes the names, the --json and --csv lists and the --group-by
 * list from the table. A report has a CSV form for free when its JSON writes its tables
 * through table_write_json: --csv runs the JSON writer with its tables captured. */
#ifndef TT_REPORTS_H
#define TT_REPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/model.h"

/* The command line's options for a report. */
struct report_opts {
	bool json;        /* --json, or --csv (the JSON's tables go to a capture: ui/jsonw.h) */
	int64_t gap_min;  /* --gap-min, ns */
	int align;        /* --align (enum align_mode) */
	int top;          /* --top; -1 for the report's own */
	const char *sort; /* --sort, or NULL */
	int group;        /* --group-by as the kind's group_of read it; -1 when not given */
};

struct report_kind {
	const char *name;   /* --report=NAME */
	bool json;          /* has a JSON form: takes --json */
	bool csv;           /* writes tables in its JSON (table_write_json): takes --csv */
	bool needs_a_trace; /* written only when some file loaded */
	/* --group-by: its choices as said when one is unknown ("name, shape or operator"), and
	 * their reader (the group, or -1); both NULL when the report has no grouping */
	const char *group_choices;
	int (*group_of)(const char *name);
	/* Writes the report of the N traces TS (failed ones among them) to F. Returns 0, or an
	 * exit status, having said why on stderr. */
	int (*write)(FILE *f, struct trace *const *ts, int n, const struct report_opts *o);
	/* Its lines in ttrace --help: "      --report=NAME  what it writes\n", continuation lines
	 * indented to column 25 (NULL for the reports that are options of their own) */
	const char *help;
};

/* The report --report=NAME names, or NULL. */
const struct report_kind *reports_find(const char *name);
/* Writes into BUF (N bytes) the names of the reports for which WITH holds (every one when
 * WITH is NULL), in the table's order, separated by ", " but the last by LAST
 * (" or ", or ", "). */
void reports_names(char *buf, size_t n, bool (*with)(const struct report_kind *), const char *last);

/* Writes the help lines of every --report, in the table's order. */
void reports_help(FILE *f);

/* The reports that are options of their own, not --report names. */
extern const struct report_kind report_check_kind; /* --check (ui/report.c) */
extern const struct report_kind report_dump_kind;  /* --dump-model (ui/dump.c) */
/* The report written when no other was asked for and the timeline is not opened. */
extern const struct report_kind report_summary_kind; /* ui/report.c */

#endif
