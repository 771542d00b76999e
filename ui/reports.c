/* reports.c: the table of reports (see reports.h). */
#include "ui/reports.h"

#include <string.h>

extern const struct report_kind report_overview_kind;    /* ui/overview.c */
extern const struct report_kind report_advice_kind;      /* ui/advice_report.c */
extern const struct report_kind report_gaps_kind;        /* ui/report.c */
extern const struct report_kind report_distributed_kind; /* ui/report.c */
extern const struct report_kind report_operators_kind;   /* ui/op_view.c */
extern const struct report_kind report_kernels_kind;     /* ui/kernel_view.c */
extern const struct report_kind report_memory_kind;      /* ui/memory_view.c */

static int write_none(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	(void)f, (void)ts, (void)n, (void)o;
	return 0;
}

/* --report=none: load, and write nothing (for timing a load) */
static const struct report_kind report_none_kind = {
	.name = "none",
	.write = write_none,
	.help = "      --report=none      load and index only (for benchmarks); prints no report\n",
};

/* In the order --help and the messages list them. */
static const struct report_kind *const table[] = {
	&report_summary_kind,   &report_overview_kind, &report_advice_kind, &report_gaps_kind, &report_distributed_kind,
	&report_operators_kind, &report_kernels_kind,  &report_memory_kind, &report_none_kind,
};

#define NREPORTS (sizeof table / sizeof *table)

const struct report_kind *reports_find(const char *name)
{
	for (size_t i = 0; i < NREPORTS; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

void reports_names(char *buf, size_t n, bool (*with)(const struct report_kind *), const char *last)
{
	const struct report_kind *k[NREPORTS];
	size_t m = 0, at = 0;
	for (size_t i = 0; i < NREPORTS; i++)
		if (with == NULL || with(table[i]))
			k[m++] = table[i];
	if (n > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < m && at < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 == m ? last : ", ";
		int w = snprintf(buf + at, n - at, "%s%s", sep, k[i]->name);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

void reports_help(FILE *f)
{
	for (size_t i = 0; i < NREPORTS; i++)
		if (table[i]->help != NULL)
			fputs(table[i]->help, f);
}
