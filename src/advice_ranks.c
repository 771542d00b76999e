/* advice_ranks.c: the findings of several ranks (see advice.h, advice_merge_ranks): each
 * single-rank finding once with the ranks it holds for, and the rules only several ranks
 * have (a straggler, every rank's GPU idle at once) from the ranks compared. */
#include "src/advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/advice_finding.h"
#include "src/analysis.h"
#include "src/spans.h"

static void copy_finding(struct advice_finding *dst, const struct advice_finding *src, int pos)
{
	*dst = *src;
	dst->rank = pos;
	dst->inst = NULL;
	dst->ninst = 0;
	dst->ranks = NULL;
	dst->nranks = 0;
}

static struct advice_finding *push(struct advice_report *r)
{
	r->findings = xreallocarray(r->findings, r->n + 1, sizeof *r->findings);
	struct advice_finding *f = &r->findings[r->n++];
	memset(f, 0, sizeof *f);
	return f;
}

static void take_instances(struct advice_finding *f, struct advice_topk *k)
{
	advice_topk_sort(k);
	f->inst = xmalloc((k->n ? k->n : 1) * sizeof *f->inst);
	memcpy(f->inst, k->v, k->n * sizeof *f->inst);
	f->ninst = k->n;
	f->count = k->count;
	f->total = k->total;
}

/* The mean step of the ranks' windows (ns), for the multi-rank scores. */
static double mean_step(const struct advice_report *const *per, int n)
{
	double s = 0;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (per[i]->steps > 0 && per[i]->window_end > per[i]->window_start) {
			s += (double)(per[i]->window_end - per[i]->window_start) / (double)per[i]->steps;
			k++;
		}
	return k ? s / k : 0;
}

/* The straggler's reason (src/straggler.h) into F: its cause, the fix for that cause, and the
 * straggler's own finding of that cause when it has one (PER: each rank's findings). */
static void straggler_reason(const struct advice_report *const *per, const struct rank_report *rr,
                             struct advice_finding *f)
{
	const struct straggler_why *w = &rr->why;
	f->has_reason = true;
	f->reason = w->reason;
	snprintf(f->cause, sizeof f->cause, "%s", w->text);
	enum advice_rule own = ADV__COUNT;
	switch (w->reason) {
	case SR_DATALOADER:
		own = ADV_DATALOADER_STALL;
		f->fix = advice_rule_info(own)->fix;
		f->example = advice_rule_info(own)->example;
		break;
	case SR_HOST_SYNC:
		own = ADV_HOST_SYNC;
		f->fix = advice_rule_info(own)->fix;
		f->example = advice_rule_info(own)->example;
		break;
	case SR_SLOWER_GPU:
		f->fix = "check the late rank's GPU: clocks, power and temperature (throttling), ECC errors and other "
			 "processes on it; replace it or move the rank off it";
		f->example = "nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE   # on the late rank's host";
		break;
	case SR_COMPUTE:
		f->fix =
			"balance the work across ranks: equal batches (drop the ragged last one), sequences bucketed by "
			"length, the same model partition size on every rank";
		f->example = "DataLoader(ds, sampler=DistributedSampler(ds), drop_last=True)";
		break;
	case SR_UNKNOWN:
	case SR__COUNT: break;
	}
	if (own == ADV__COUNT)
		return;
	for (uint32_t j = 0; j < per[rr->straggler]->n; j++)
		if (per[rr->straggler]->findings[j].rule == own) {
			f->has_see = true;
			f->see = own;
		}
}

static void rule_straggler(struct trace *const *ts, const struct advice_report *const *per,
                           const struct rank_report *rr, struct advice_report *r)
{
	if (rr == NULL || rr->straggler < 0 || rr->nranks < 2)
		return;
	int sp = rr->straggler;
	uint32_t shared = ranks_shared_collectives(rr);
	if (shared == 0)
		return;
	double frac = (double)rr->ranks[sp].arrived_last / (double)shared;
	/* what the others waited at the collectives it arrived last at, per rank and step */
	struct advice_topk *k = xcalloc(1, sizeof *k);
	int64_t waited = 0;
	for (uint32_t q = 0; q < rr->ncolls; q++) {
		const struct collective *cl = &rr->colls[q];
		if (cl->last != sp || cl->nranks_present < 2)
			continue;
		for (int i = 0; i < rr->nranks; i++)
			if (i != sp && cl->per[i].ref.track != TT_NONE)
				waited = tt_add(waited, cl->per[i].wait);
		const struct coll_rank *me = &cl->per[sp];
		if (me->ref.track == TT_NONE)
			continue;
		const struct slice *s = &ts[sp]->tracks[me->ref.track].slices[me->ref.idx];
		struct advice_instance x = advice_instance_of(
			me->ref, s->ts, tt_add(s->ts, slice_dur(&ts[sp]->tracks[me->ref.track], s)), cl->skew);
		x.rank = sp;
		advice_topk_add(k, &x);
	}
	double step = mean_step(per, rr->nranks);
	uint32_t steps = per[sp]->steps ? per[sp]->steps : 1;
	double score = step > 0 ? (double)waited / (double)(rr->nranks - 1) / (double)steps / step : 0;
	if (!(frac >= TT_ADVICE_STRAGGLER_LAST_MIN) || !(score >= TT_ADVICE_STRAGGLER_WAIT_MIN)) {
		free(k);
		return;
	}
	struct advice_finding *f = push(r);
	f->rule = ADV_STRAGGLER;
	f->figure = frac;
	f->threshold = TT_ADVICE_STRAGGLER_LAST_MIN;
	f->score = score > 1 ? 1 : score;
	f->confidence = frac >= 0.8 && rr->nranks >= 3 ? ADV_HIGH : ADV_MEDIUM;
	f->device = -1;
	f->rank = sp;
	take_instances(f, k);
	f->ranks = xmalloc(sizeof *f->ranks);
	f->ranks[0] = (struct advice_rank){ .pos = sp, .rank = rr->ranks[sp].rank, .figure = frac, .score = f->score };
	f->nranks = 1;
	char a[32], b[32], d[48], e[32];
	snprintf(
		f->symptom, sizeof f->symptom,
		"rank %d arrives last at %u of %u collectives (%s); the other ranks wait %s for it in all, %s of a step "
		"each; threshold: %s of the collectives and %s of the step",
		rr->ranks[sp].rank, rr->ranks[sp].arrived_last, shared, advice_pct(frac, a, sizeof a),
		timefmt_dur(waited, d, sizeof d), advice_pct(score, e, sizeof e),
		advice_pct(TT_ADVICE_STRAGGLER_LAST_MIN, b, sizeof b), "1%");
	straggler_reason(per, rr, f);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         f->confidence == ADV_HIGH
	                 ? "the same rank is last at nearly every collective"
	                 : "it is last at many collectives but not nearly all, or only two ranks compare");
	free(k);
}

static void rule_all_idle(struct trace *const *ts, const struct advice_report *const *per, const struct rank_report *rr,
                          struct advice_report *r)
{
	if (rr == NULL || rr->nranks < 2)
		return;
	int n = rr->nranks;
	int64_t w0 = INT64_MIN, w1 = INT64_MAX;
	uint64_t total = 0;
	for (int i = 0; i < n; i++) {
		if (!per[i]->has_gpu)
			return; /* a rank without GPU work: nothing to say of all GPUs */
		int64_t shift = tt_add(ts[i]->has_base ? ts[i]->base_ns : 0, rr->ranks[i].offset);
		int64_t a = tt_add(per[i]->window_start, shift), b = tt_add(per[i]->window_end, shift);
		if (a > w0)
			w0 = a;
		if (b < w1)
			w1 = b;
		const struct gap_report *g = &trace_gaps(ts[i], ANALYSIS_DEFAULT_MIN_GAP)->r;
		for (uint32_t d = 0; d < g->ndevices; d++)
			total += g->devices[d].nbusy;
	}
	if (w1 <= w0)
		return;
	struct span *u = xmalloc((total ? total : 1) * sizeof *u);
	uint32_t nu = 0;
	for (int i = 0; i < n; i++) {
		int64_t shift = tt_add(ts[i]->has_base ? ts[i]->base_ns : 0, rr->ranks[i].offset);
		const struct gap_report *g = &trace_gaps(ts[i], ANALYSIS_DEFAULT_MIN_GAP)->r;
		for (uint32_t d = 0; d < g->ndevices; d++)
			for (uint32_t k = 0; k < g->devices[d].nbusy; k++)
				u[nu++] = (struct span){ tt_add(g->devices[d].busy_spans[k].start, shift),
					                 tt_add(g->devices[d].busy_spans[k].end, shift) };
	}
	nu = spans_merge(u, nu);
	int64_t wl = w1 - w0, idle = wl - spans_within(u, nu, w0, w1);
	double fig = advice_share(idle, wl);
	if (!(fig > TT_ADVICE_ALL_IDLE_MAX)) {
		free(u);
		return;
	}
	struct advice_topk *k = xcalloc(1, sizeof *k);
	int64_t shift0 = tt_add(ts[0]->has_base ? ts[0]->base_ns : 0, rr->ranks[0].offset);
	int64_t cur = w0;
	for (uint32_t i = 0; i <= nu; i++) {
		int64_t next = i < nu ? u[i].start : w1;
		if (next > w1)
			next = w1;
		if (next > cur) {
			struct advice_instance x = advice_instance_of(advice_no_ref, tt_sub(cur, shift0),
			                                              tt_sub(next, shift0), next - cur);
			advice_topk_add(k, &x);
		}
		if (i < nu && u[i].end > cur)
			cur = u[i].end;
		if (cur >= w1)
			break;
	}
	free(u);
	struct advice_finding *f = push(r);
	f->rule = ADV_ALL_RANKS_IDLE;
	f->figure = fig;
	f->threshold = TT_ADVICE_ALL_IDLE_MAX;
	f->score = fig;
	f->confidence = rr->mode == ALIGN_COLLECTIVE && rr->residual < 100000 ? ADV_HIGH : ADV_MEDIUM;
	f->device = -1;
	take_instances(f, k);
	free(k);
	f->ranks = xmalloc((size_t)n * sizeof *f->ranks);
	for (int i = 0; i < n; i++)
		f->ranks[i] = (struct advice_rank){ .pos = i, .rank = rr->ranks[i].rank, .figure = fig, .score = fig };
	f->nranks = (uint32_t)n;
	char a[32], b[32], d[48], e[48];
	snprintf(f->symptom, sizeof f->symptom,
	         "every rank's GPU is idle at once for %s of the %s the ranks share (%s); threshold: over %s",
	         timefmt_dur(idle, d, sizeof d), timefmt_dur(wl, e, sizeof e), advice_pct(fig, a, sizeof a),
	         advice_pct(TT_ADVICE_ALL_IDLE_MAX, b, sizeof b));
	snprintf(f->cause, sizeof f->cause, "%s", advice_rule_info(ADV_ALL_RANKS_IDLE)->cause);
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         f->confidence == ADV_HIGH ? "the clocks align on the collectives to within 100 us"
	                                   : "the clocks are aligned less surely than by collectives within 100 us");
}

/* Exposed communication of several ranks: each rank's figure split into waiting for a late
 * rank and transfer not hidden by compute (ranks_exposed_split, over the rank's window), and
 * the cause and fix of the worst rank's larger part. */
static void split_exposed(const struct advice_report *const *per, const struct rank_report *rr, bool straggler,
                          struct advice_finding *f)
{
	for (uint32_t k = 0; k < f->nranks; k++) {
		struct advice_rank *x = &f->ranks[k];
		const struct advice_report *p = per[x->pos];
		ranks_exposed_split(rr, x->pos, p->window_start, p->window_end, p->has_gpu, &x->wait, &x->transfer);
		x->split = true;
		if (x->pos == f->rank) {
			f->split = true;
			f->wait = x->wait;
			f->transfer = x->transfer;
		}
	}
	if (!f->split)
		return;
	char a[48], b[48], c[32], d[32];
	int64_t all = f->wait + f->transfer;
	int rank = rr->ranks[f->rank].rank;
	timefmt_dur(f->wait, a, sizeof a);
	timefmt_dur(f->transfer, b, sizeof b);
	advice_pct(advice_share(f->wait, all), c, sizeof c);
	advice_pct(advice_share(f->transfer, all), d, sizeof d);
	if (f->wait > f->transfer) {
		snprintf(f->cause, sizeof f->cause,
		         "ranks wait for a late rank: of rank %d's exposed communication, %s (%s) is waiting from its "
		         "arrival to the last rank's and %s (%s) transfer that compute did not hide",
		         rank, a, c, b, d);
		if (straggler) {
			f->has_see = true;
			f->see = ADV_STRAGGLER;
		}
		f->fix =
			"make the late rank arrive on time (the straggler finding says why it is late); overlapping or "
			"re-bucketing the transfer would not win the waiting";
		f->example = "ttrace --report=distributed RANK_FILES...   # who arrives last, and why";
	} else {
		snprintf(f->cause, sizeof f->cause,
		         "transfer not hidden by compute: of rank %d's exposed communication, %s (%s) is transfer that "
		         "compute did not hide and %s (%s) waiting for a late rank",
		         rank, b, d, a, c);
	}
	snprintf(f->confidence_why, sizeof f->confidence_why, "%s",
	         straggler ? "every rank is loaded, and one is a straggler: waiting and transfer are told apart"
	                   : "every rank is loaded and none is a straggler: waiting and transfer are told apart");
}

void advice_merge_ranks(struct trace *const *ts, int n, const struct advice_report *const *per,
                        const struct rank_report *rr, struct advice_report *r)
{
	memset(r, 0, sizeof *r);
	r->nranks = n;
	struct advice_topk *k = xcalloc(1, sizeof *k);
	for (int rule = 0; rule < ADV__COUNT; rule++) {
		const struct advice_finding *worst = NULL;
		int worst_pos = -1;
		uint32_t held = 0;
		for (int i = 0; i < n; i++)
			for (uint32_t j = 0; j < per[i]->n; j++)
				if ((int)per[i]->findings[j].rule == rule) {
					held++;
					if (worst == NULL || per[i]->findings[j].score > worst->score) {
						worst = &per[i]->findings[j];
						worst_pos = i;
					}
				}
		if (worst == NULL)
			continue;
		struct advice_finding *f = push(r);
		copy_finding(f, worst, worst_pos);
		memset(k, 0, sizeof *k);
		f->ranks = xmalloc(held * sizeof *f->ranks);
		for (int i = 0; i < n; i++)
			for (uint32_t j = 0; j < per[i]->n; j++) {
				const struct advice_finding *g = &per[i]->findings[j];
				if ((int)g->rule != rule)
					continue;
				f->ranks[f->nranks++] =
					(struct advice_rank){ .pos = i,
					                      .rank = rr != NULL ? rr->ranks[i].rank : i,
					                      .figure = g->figure,
					                      .score = g->score };
				for (uint32_t q = 0; q < g->ninst; q++) {
					struct advice_instance x = g->inst[q];
					x.rank = i;
					advice_topk_add(k, &x);
				}
			}
		uint64_t count = 0;
		int64_t total = 0;
		for (int i = 0; i < n; i++)
			for (uint32_t j = 0; j < per[i]->n; j++)
				if ((int)per[i]->findings[j].rule == rule) {
					count += per[i]->findings[j].count;
					total = tt_add(total, per[i]->findings[j].total);
				}
		take_instances(f, k);
		f->count = count;
		f->total = total;
	}
	free(k);
	/* files that are not one job: who waited for whom is not to be said */
	char why[96];
	bool one_job = !data_limits_not_one_job(ts, n, rr, why, sizeof why);
	if (one_job) {
		rule_straggler(ts, per, rr, r);
		rule_all_idle(ts, per, rr, r);
	}
	bool straggler = false;
	for (uint32_t i = 0; i < r->n; i++)
		straggler |= r->findings[i].rule == ADV_STRAGGLER;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->findings[i].rule == ADV_EXPOSED_COMMUNICATION && rr != NULL && one_job)
			split_exposed(per, rr, straggler, &r->findings[i]);
	/* each rank's own limits (a window of one step...), once per kind, named by the first
	 * rank that has it: its findings were capped by them already */
	for (int i = 0; i < n; i++)
		for (uint32_t q = 0; q < per[i]->nlimits && r->nlimits < ADVICE_MAX_LIMITS; q++) {
			bool have = false;
			for (uint32_t j = 0; j < r->nlimits; j++)
				have |= r->limits[j].kind == per[i]->limits[q].kind;
			if (have || per[i]->limits[q].kind == DL_TRUNCATED || per[i]->limits[q].kind == DL_LEGACY)
				continue; /* those two advice_limits_ranks says for the ranks together */
			struct advice_limit *l = &r->limits[r->nlimits++];
			*l = per[i]->limits[q];
			snprintf(l->text, sizeof l->text, "rank %d: %s", rr != NULL ? rr->ranks[i].rank : i,
			         per[i]->limits[q].text);
		}
	if (rr != NULL)
		advice_limits_ranks(ts, n, rr, r);
	if (r->n > 1)
		qsort(r->findings, r->n, sizeof *r->findings, advice_finding_cmp);
}
