/* data_limits.c: the limits of what a trace's figures stand on (data_limits.h), worded
 * once for the advice, the reports and the views. */
#include "src/data_limits.h"

#include <stdio.h>
#include <string.h>

#include "lib/timefmt.h"

/* Adds a limit of KIND to L, or NULL when L is full (the first ones stay). */
static struct data_limit *add(struct data_limits *l, enum data_limit_kind kind)
{
	if (l->n == DATA_LIMITS_MAX)
		return NULL;
	struct data_limit *d = &l->l[l->n++];
	memset(d, 0, sizeof *d);
	d->kind = kind;
	return d;
}

const char *data_limit_key(enum data_limit_kind k)
{
	static const char *const keys[DL__COUNT] = {
		[DL_TRUNCATED] = "truncated",         [DL_LEGACY] = "legacy_exporter",
		[DL_ONE_STEP] = "one_step",           [DL_NO_STEPS] = "no_steps",
		[DL_RANKS_MISSING] = "ranks_missing", [DL_ALIGNMENT] = "alignment_residual",
		[DL_NOT_ONE_JOB] = "not_one_job",     [DL_MEMORY_DERIVED] = "memory_derived",
	};
	return (unsigned)k < DL__COUNT ? keys[k] : "?";
}

/* The devices of MEM whose figures are derived for want of totals (memory.h), named into
 * BUF ("cuda:0, cuda:1"); how many. */
static uint32_t memory_derived(const struct memory_report *mem, char *buf, size_t n)
{
	uint32_t k = 0;
	size_t at = 0;
	char name[48];
	buf[0] = '\0';
	for (uint32_t i = 0; i < mem->ndevices; i++) {
		const struct mem_device *d = &mem->devices[i];
		if (d->n > 0 || d->derived.n == 0)
			continue;
		if (at < n)
			at += (size_t)snprintf(buf + at, n - at, "%s%s", k ? ", " : "",
			                       memory_device_name(d, name, sizeof name));
		k++;
	}
	return k;
}

void data_limits_trace(const struct trace *t, int64_t steps, const struct memory_report *mem, struct data_limits *l)
{
	struct data_limit *d;
	char a[48], b[48];
	l->n = 0;
	if (t->status == LOAD_TRUNCATED && (d = add(l, DL_TRUNCATED)) != NULL)
		snprintf(d->text, sizeof d->text,
		         "the file is cut short: only what came before the cut is here (%s of JSON, %s of trace); "
		         "what it would show after is not",
		         timefmt_bytes((double)t->bytes, a, sizeof a),
		         timefmt_dur(t->end > t->start ? t->end - t->start : 0, b, sizeof b));
	if (t->legacy && (d = add(l, DL_LEGACY)) != NULL)
		snprintf(
			d->text, sizeof d->text, "%s",
			"a legacy-exporter trace (torch before Kineto): no args, no launch links, times rounded to us");
	if (steps >= 0 && steps < 2 && t->nsteps == 0 && (d = add(l, DL_NO_STEPS)) != NULL)
		snprintf(
			d->text, sizeof d->text, "%s",
			"no profiler steps (ProfilerStep#N): the window is the whole trace, warm-up, one-offs and steady "
			"work together");
	else if (steps >= 0 && steps < 2 && (d = add(l, DL_ONE_STEP)) != NULL)
		snprintf(d->text, sizeof d->text, "%s", "a window of one step: warm-up or a one-off may dominate it");
	char devs[96];
	uint32_t nd = mem != NULL ? memory_derived(mem, devs, sizeof devs) : 0;
	if (nd > 0 && (d = add(l, DL_MEMORY_DERIVED)) != NULL)
		snprintf(
			d->text, sizeof d->text,
			"no memory sample of %s has Total Allocated/Reserved (PyTorch before 1.10): %s allocated memory "
			"is derived from the samples' Bytes, a lower bound; %s reserved memory is unknown",
			devs, nd == 1 ? "its" : "their", nd == 1 ? "its" : "their");
}

bool data_limits_not_one_job(struct trace *const *ts, int n, const struct rank_report *rr, char *why, size_t len)
{
	char a[48];
	(void)ts;
	if (rr == NULL)
		return false;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (rr->ranks[i].rank == rr->ranks[j].rank) {
				snprintf(why, len, "two files say they are rank %d", rr->ranks[i].rank);
				return true;
			}
	if (rr->mode == ALIGN_COLLECTIVE && rr->residual > TT_LIMIT_RESIDUAL_NOT_ONE_JOB) {
		snprintf(why, len, "after alignment the same collectives still end %s apart",
		         timefmt_dur(rr->residual, a, sizeof a));
		return true;
	}
	return false;
}

void data_limits_ranks(struct trace *const *ts, int n, const struct rank_report *rr, struct data_limits *l)
{
	struct data_limit *d;
	char a[48];
	l->n = 0;
	for (int i = 0; i < n; i++) {
		if (ts[i]->status == LOAD_TRUNCATED && (d = add(l, DL_TRUNCATED)) != NULL) {
			snprintf(d->text, sizeof d->text,
			         "the file of rank %d is cut short: what came after the cut is not here",
			         rr->ranks[i].rank);
			break;
		}
	}
	for (int i = 0; i < n; i++)
		if (ts[i]->legacy && (d = add(l, DL_LEGACY)) != NULL) {
			snprintf(
				d->text, sizeof d->text, "%s",
				"legacy-exporter traces (torch before Kineto): no args, no launch links, times rounded to us");
			break;
		}
	int world = -1;
	for (int i = 0; i < n; i++)
		if (ts[i]->world_size > world)
			world = ts[i]->world_size;
	if (world > n && (d = add(l, DL_RANKS_MISSING)) != NULL)
		snprintf(d->text, sizeof d->text,
		         "%d of the job's %d ranks loaded: a rank not loaded may be the late one", n, world);
	char why[96];
	if (data_limits_not_one_job(ts, n, rr, why, sizeof why)) {
		if ((d = add(l, DL_NOT_ONE_JOB)) != NULL)
			snprintf(
				d->text, sizeof d->text,
				"the files do not look like one job (%s): who waited for whom across ranks is not said",
				why);
	} else if (rr->mode == ALIGN_COLLECTIVE && rr->residual > TT_LIMIT_RESIDUAL_MAX &&
	           (d = add(l, DL_ALIGNMENT)) != NULL)
		snprintf(d->text, sizeof d->text,
		         "after alignment the same collectives still end up to %s apart: the ranks' clocks do not line "
		         "up well enough to say who waited for whom",
		         timefmt_dur(rr->residual, a, sizeof a));
}
