/* test_analysis.c: analyses are computed once per trace and length, shared, and a result
 * is recomputed after being evicted, equal to the first. */
#include <stdlib.h>
#include <string.h>

#include "src/analysis.h"
#include "parsers/load.h"
#include "tests/unit/tap.h"

int main(void)
{
	const char *dir = getenv("srcdir");
	char path[4096];
	struct load_options opt = { 0 };
	snprintf(path, sizeof path, "%s/tests/fixtures/gaps/causes.json", dir ? dir : ".");
	struct trace *t = load_trace(path, &opt);
	ok(t->status != LOAD_FAILED, "the gaps fixture loads");
	is_int(analysis_computed(t), 0, "nothing computed before it is asked");

	const struct gap_analysis *a = trace_gaps(t, 100000);
	ok(a != NULL && a->r.ngaps > 0, "gaps of 100 us found (%u)", a ? a->r.ngaps : 0);
	uint32_t n100 = a->r.ngaps;
	int64_t first_start = a->r.gaps[0].start;
	is_int(analysis_computed(t), 1, "computed once");
	ok(trace_gaps(t, 100000) == a, "asked again: the same result, not computed again");
	is_int(analysis_computed(t), 1, "still computed once");

	const struct gap_analysis *b = trace_gaps(t, 1000);
	ok(b != a && b->r.ngaps >= n100, "a shorter minimum finds at least as many gaps (%u)", b->r.ngaps);
	is_int(analysis_computed(t), 2, "another length: computed");
	ok(trace_gaps(t, 100000) == a, "the first length is still kept");

	/* device order and by-device lists agree with the report */
	ok(a->r.ndevices == 0 ||
	           a->r.devices[a->devices[0]].device <= a->r.devices[a->devices[a->r.ndevices - 1]].device,
	   "devices listed by number");
	int sorted = 1;
	for (uint32_t i = 1; i < a->r.ngaps; i++)
		if (a->by_device[i - 1].device > a->by_device[i].device ||
		    (a->by_device[i - 1].device == a->by_device[i].device &&
		     a->by_device[i - 1].start > a->by_device[i].start))
			sorted = 0;
	ok(sorted, "gaps by device, then start");

	/* more lengths than the cache keeps: the least recently asked goes, and comes back equal */
	for (int k = 0; k < ANALYSIS_GAPS_KEPT + 2; k++)
		trace_gaps(t, 200000 + k);
	uint64_t before = analysis_computed(t);
	const struct gap_analysis *c = trace_gaps(t, 100000);
	is_int(analysis_computed(t), before + 1, "evicted, then computed again");
	ok(c->r.ngaps == n100 && c->r.gaps[0].start == first_start, "the same gaps as the first time");

	/* the comparison of several ranks: once per set and mode, kept by the first trace */
	struct trace *u = load_trace(path, &opt);
	struct trace *set[2] = { t, u }, *other[2] = { u, t };
	uint64_t c0 = analysis_computed(t);
	const struct rank_report *r1 = traces_ranks(set, 2, ALIGN_RAW);
	ok(r1 != NULL && r1->nranks == 2, "two ranks compared");
	is_int(analysis_computed(t), c0 + 1, "computed once");
	ok(traces_ranks(set, 2, ALIGN_RAW) == r1, "asked again: the same comparison");
	const struct rank_report *r2 = traces_ranks(set, 2, ALIGN_STEP);
	ok(r2 != r1 && r2->mode == ALIGN_STEP, "another mode: another comparison");
	ok(traces_ranks(set, 2, ALIGN_RAW) == r1, "the first still kept, at the same address");
	is_int(analysis_computed(t), c0 + 2, "two computed in all");
	const struct rank_report *r3 = traces_ranks(other, 2, ALIGN_RAW);
	ok(r3 != r1, "another order of the ranks is another set");
	/* the findings: once per trace, and once per set (src/advice.h) */
	const struct advice_report *f1 = trace_advice(t);
	ok(f1 != NULL && f1->nranks == 1, "findings of one trace");
	uint64_t c1 = analysis_computed(t);
	ok(trace_advice(t) == f1 && analysis_computed(t) == c1, "findings asked again: the same, not computed again");
	const struct advice_report *s1 = traces_advice(set, 2, ALIGN_RAW);
	ok(s1 != NULL && s1->nranks == 2, "findings of the set");
	ok(traces_advice(set, 2, ALIGN_RAW) == s1, "the set's findings asked again: the same");
	for (uint32_t i = 0; i < s1->n; i++)
		ok(s1->findings[i].rule == ADV_STRAGGLER || s1->findings[i].rule == ADV_ALL_RANKS_IDLE ||
		           s1->findings[i].nranks >= 1,
		   "a merged finding names its ranks");
	trace_free(t); /* frees the cache, with the comparisons it keeps */
	trace_free(u);

	/* the memory figures: once per trace; the curve's step plot over a range (the samples
	 * of tests/fixtures/memory/views.json, worked in tests/memory.sh) */
	snprintf(path, sizeof path, "%s/tests/fixtures/memory/views.json", dir ? dir : ".");
	t = load_trace(path, &opt);
	/* the curves first (the counter tracks), the operator rows added when asked */
	const struct memory_report *m = trace_memory_curves(t);
	ok(m->ndevices == 3 && m->nrows == 0 && !m->ops_attached, "memory curves: three devices, no operator rows yet");
	is_int(analysis_computed(t), 1, "memory curves: one analysis");
	ok(m->devices[1].n > 0 && m->devices[1].ts == NULL && m->devices[1].allocated == NULL,
	   "memory curves: no points copied (the figures read the samples)");
	ok(trace_memory_points(t) == m && m->devices[1].ts != NULL && m->devices[1].ts[0] == 130000 &&
	           m->devices[1].allocated[0] == 1000 && m->devices[1].reserved[0] == 2000,
	   "memory points: made on asking, in the same report");
	ok(trace_memory(t) == m && m->nrows > 0 && m->ops_attached, "memory: the rows added to the same report");
	ok(trace_memory(t) == m && trace_memory_curves(t) == m, "memory: computed once");
	is_int(analysis_computed(t), 2, "memory: the curves and the rows, once each");
	const struct mem_device *d = &m->devices[1];
	int64_t al = -1, re = -1;
	ok(!memory_range_max(d, 0, 130000, &al, &re), "memory: nothing before the first sample");
	ok(memory_range_max(d, 0, 130001, &al, &re) && al == 1000 && re == 2000, "memory: the first sample");
	ok(memory_range_max(d, 400000, 500000, &al, &re) && al == 1500 && re == 2000,
	   "memory: between samples, the value carried in");
	ok(memory_range_max(d, 600000, 720001, &al, &re) && al == 5500 && re == 6000, "memory: the most in the range");
	ok(memory_range_max(d, 2000000, 3000000, &al, &re) && al == 2600, "memory: after the last sample, the last");
	trace_free(t);
	return done_testing();
}
