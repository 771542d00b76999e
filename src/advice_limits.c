/* advice_limits.c: the limits of what the findings stand on (advice.h): a cut file, a
 * legacy-exporter trace, a window of one step, ranks missing from a job, an alignment that
 * does not hold. Each limit caps the confidence of the findings it touches and says why in
 * their confidence_why, so that no finding says "high" on data that cannot bear it. */
#include <stdio.h>
#include <string.h>

#include "lib/timefmt.h"
#include "src/advice.h"

/* Adds limit KIND to R (at most ADVICE_MAX_LIMITS; the first ones stay). */
static struct advice_limit *add_limit(struct advice_report *r, enum advice_limit_kind kind, enum advice_confidence cap)
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
	if (l->kind == AL_ALIGNMENT || l->kind == AL_RANKS_MISSING)
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

const char *advice_limit_key(enum advice_limit_kind k)
{
	static const char *const keys[AL__COUNT] = {
		[AL_TRUNCATED] = "truncated",         [AL_LEGACY] = "legacy_exporter",       [AL_ONE_STEP] = "one_step",
		[AL_RANKS_MISSING] = "ranks_missing", [AL_ALIGNMENT] = "alignment_residual",
	};
	return k < AL__COUNT ? keys[k] : "?";
}

void advice_limits_trace(const struct trace *t, struct advice_report *r)
{
	struct advice_limit *l;
	char a[48], b[48];
	if (t->status == LOAD_TRUNCATED && (l = add_limit(r, AL_TRUNCATED, ADV_MEDIUM)) != NULL)
		snprintf(l->text, sizeof l->text,
		         "the file is cut short: only what came before the cut is here (%s of JSON, %s of trace); "
		         "what it would show after is not",
		         timefmt_bytes((double)t->bytes, a, sizeof a),
		         timefmt_dur(t->end > t->start ? t->end - t->start : 0, b, sizeof b));
	if (t->legacy && (l = add_limit(r, AL_LEGACY, ADV_MEDIUM)) != NULL)
		snprintf(
			l->text, sizeof l->text, "%s",
			"a legacy-exporter trace (torch before Kineto): no args, no launch links, times rounded to us");
	if (r->steps < 2 && (l = add_limit(r, AL_ONE_STEP, ADV_MEDIUM)) != NULL)
		snprintf(l->text, sizeof l->text, "%s", "a window of one step: warm-up or a one-off may dominate it");
	apply(r);
}

/* The alignment residual above which the comparisons across ranks are not to be trusted
 * much: collectives that should end together end this far apart after alignment. */
#define TT_ADVICE_RESIDUAL_MAX 100000 /* ns */

void advice_limits_ranks(struct trace *const *ts, int n, const struct rank_report *rr, struct advice_report *r)
{
	struct advice_limit *l;
	char a[48];
	/* the files' own limits, once each, from the worst-placed file */
	for (int i = 0; i < n; i++) {
		if (ts[i]->status == LOAD_TRUNCATED && (l = add_limit(r, AL_TRUNCATED, ADV_MEDIUM)) != NULL) {
			snprintf(l->text, sizeof l->text,
			         "the file of rank %d is cut short: what came after the cut is not here",
			         rr->ranks[i].rank);
			break;
		}
	}
	for (int i = 0; i < n; i++)
		if (ts[i]->legacy && (l = add_limit(r, AL_LEGACY, ADV_MEDIUM)) != NULL) {
			snprintf(
				l->text, sizeof l->text, "%s",
				"legacy-exporter traces (torch before Kineto): no args, no launch links, times rounded to us");
			break;
		}
	int world = -1;
	for (int i = 0; i < n; i++)
		if (ts[i]->world_size > world)
			world = ts[i]->world_size;
	if (world > n && (l = add_limit(r, AL_RANKS_MISSING, ADV_MEDIUM)) != NULL)
		snprintf(l->text, sizeof l->text,
		         "%d of the job's %d ranks loaded: a rank not loaded may be the late one", n, world);
	if (rr->mode == ALIGN_COLLECTIVE && rr->residual > TT_ADVICE_RESIDUAL_MAX &&
	    (l = add_limit(r, AL_ALIGNMENT, ADV_LOW)) != NULL)
		snprintf(l->text, sizeof l->text,
		         "after alignment the same collectives still end up to %s apart: the ranks' clocks do not line "
		         "up well enough to say who waited for whom",
		         timefmt_dur(rr->residual, a, sizeof a));
	apply(r);
}
