/* advice_limits.c: the limits of what the findings stand on (advice.h), as
 * src/data_limits.c words them for the reports too: a cut file, a legacy-exporter trace, a
 * window of one step, ranks missing from a job, an alignment that does not hold. Each limit
 * caps the confidence of the findings it touches and says why in their confidence_why, so
 * that no finding says "high" on data that cannot bear it. */
#include <stdio.h>
#include <string.h>

#include "src/advice.h"
#include "src/data_limits.h"

/* Adds limit KIND to R (at most ADVICE_MAX_LIMITS; the first ones stay). */
static struct advice_limit *add_limit(struct advice_report *r, enum data_limit_kind kind, enum advice_confidence cap)
{
	if (r->nlimits == ADVICE_MAX_LIMITS)
		return NULL;
	struct advice_limit *l = &r->limits[r->nlimits++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->cap = cap;
	return l;
}

/* Whether limit L bears on rule RULE: the alignment and the missing ranks concern what is
 * compared across ranks; the others every finding. */
static bool touches(const struct advice_limit *l, enum advice_rule rule)
{
	if (l->kind == DL_ALIGNMENT || l->kind == DL_RANKS_MISSING || l->kind == DL_NOT_ONE_JOB)
		return rule == ADV_STRAGGLER || rule == ADV_ALL_RANKS_IDLE || rule == ADV_EXPOSED_COMMUNICATION;
	return true;
}

/* Lowers each finding's confidence to the caps of the limits that touch it, saying so. */
static void apply(struct advice_report *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		struct advice_finding *f = &r->findings[i];
		for (uint32_t k = 0; k < r->nlimits; k++) {
			const struct advice_limit *l = &r->limits[k];
			if (!touches(l, f->rule) || f->confidence <= l->cap)
				continue;
			f->confidence = l->cap;
			size_t at = strlen(f->confidence_why);
			snprintf(f->confidence_why + at, sizeof f->confidence_why - at, "; at most %s: %s",
			         advice_confidence_key(l->cap), l->text);
		}
	}
}

/* Adds L's limits to R, each capping the findings it touches: the alignment low, the rest
 * medium. */
static void take(struct advice_report *r, const struct data_limits *dl)
{
	for (uint32_t i = 0; i < dl->n; i++) {
		const struct data_limit *d = &dl->l[i];
		struct advice_limit *l = add_limit(
			r, d->kind, d->kind == DL_ALIGNMENT || d->kind == DL_NOT_ONE_JOB ? ADV_LOW : ADV_MEDIUM);
		if (l == NULL)
			return;
		snprintf(l->text, sizeof l->text, "%s", d->text);
	}
}

void advice_limits_trace(const struct trace *t, struct advice_report *r)
{
	struct data_limits dl;
	data_limits_trace(t, r->steps, NULL, &dl);
	take(r, &dl);
	apply(r);
}

void advice_limits_ranks(struct trace *const *ts, int n, const struct rank_report *rr, struct advice_report *r)
{
	struct data_limits dl;
	data_limits_ranks(ts, n, rr, &dl);
	take(r, &dl);
	apply(r);
}
