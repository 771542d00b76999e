/* test_index.c: the interval index against brute force on random tracks: rows never
 * overlap, nothing is dropped, and every query agrees with a linear scan. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/load.h"
#include "src/index.h"
#include "tests/unit/tap.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char tmpdir[] = "/tmp/ttrace-test-index-XXXXXX";

static struct trace *load_text(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	struct load_options opt = { 0 };
	struct trace *t = load_trace(path, &opt);
	unlink(path);
	free(path);
	return t;
}

static const struct track *find_track(const struct trace *t, int64_t tid)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (!t->tracks[i].tid_is_str && t->tracks[i].tid == tid)
			return &t->tracks[i];
	return NULL;
}

static int64_t cov(const struct track *tr, const struct slice *s, int64_t t0, int64_t t1)
{
	int64_t a = s->ts > t0 ? s->ts : t0, e = s->ts + slice_dur(tr, s), b = e < t1 ? e : t1;
	return b > a ? b - a : 0;
}

static void check_track(const struct trace *t, const struct track *tr, const char *what)
{
	uint32_t total = 0;
	int rows_ok = 1, range_ok = 1, busy_ok = 1, union_ok = 1, dom_ok = 1, at_ok = 1;

	for (uint16_t r = 0; r < tr->nrows; r++) {
		const struct row *row = &tr->rows[r];
		total += row->n;
		for (uint32_t i = 1; i < row->n; i++) {
			const struct slice *p = &tr->slices[row_idx(row, i - 1)], *s = &tr->slices[row_idx(row, i)];
			if (s->ts < p->ts + slice_dur(tr, p))
				rows_ok = 0;
		}
		for (uint32_t i = 0; i < row->n; i++)
			if (slice_depth(t, &tr->slices[row_idx(row, i)]) != r)
				rows_ok = 0;
	}
	is_int(total, tr->nslices, "%s: every slice is in exactly one row", what);
	ok(rows_ok, "%s: no two slices of a row overlap", what);
	int64_t lo = t->start - 1000, hi = t->end + 1000;
	for (int q = 0; q < 400; q++) {
		int64_t t0 = lo + (int64_t)(rnd() % (uint64_t)(hi - lo));
		int64_t w = q % 4 == 0 ? 1 : (int64_t)(rnd() % (uint64_t)((hi - lo) / (q % 3 + 1)));
		int64_t t1 = t0 + (w > 0 ? w : 1);
		for (uint16_t r = 0; r < tr->nrows; r++) {
			const struct row *row = &tr->rows[r];
			uint32_t a, b, want_n = 0, got_n;
			int64_t want_busy = 0, best = -1;
			index_row_range(tr, r, t0, t1, &a, &b);
			got_n = b - a;
			for (uint32_t i = 0; i < row->n; i++) {
				const struct slice *s = &tr->slices[row_idx(row, i)];
				bool in = (s->ts < t1 && s->ts + slice_dur(tr, s) > t0) ||
				          (slice_dur(tr, s) == 0 && s->ts >= t0 && s->ts < t1);
				if (in) {
					want_n++;
					if (i < a || i >= b)
						range_ok = 0;
					if (cov(tr, s, t0, t1) > best)
						best = cov(tr, s, t0, t1);
				}
				want_busy += cov(tr, s, t0, t1);
			}
			if (want_n != got_n)
				range_ok = 0;
			if (index_row_busy(tr, r, t0, t1) != want_busy)
				busy_ok = 0;
			uint32_t d = index_row_dominant(tr, r, t0, t1);
			if (want_n == 0 ? d != TT_NONE : (d == TT_NONE || cov(tr, &tr->slices[d], t0, t1) != best))
				dom_ok = 0;
		}
		/* union by brute force: sweep sorted slices */
		int64_t un = 0, cur_s = 0, cur_e = INT64_MIN;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			int64_t a = s->ts > t0 ? s->ts : t0,
				e = s->ts + slice_dur(tr, s) < t1 ? s->ts + slice_dur(tr, s) : t1;
			if (e <= a)
				continue;
			if (a > cur_e) {
				if (cur_e > cur_s)
					un += cur_e - cur_s;
				cur_s = a;
				cur_e = e;
			} else if (e > cur_e) {
				cur_e = e;
			}
		}
		if (cur_e > cur_s)
			un += cur_e - cur_s;
		if (index_track_busy(tr, t0, t1) != un)
			union_ok = 0;
		/* slice_at: the deepest slice containing t0 */
		uint32_t at = index_slice_at(tr, t0);
		int best_depth = -1;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->ts <= t0 && t0 <= s->ts + slice_dur(tr, s) && slice_depth(t, s) > best_depth)
				best_depth = slice_depth(t, s);
		}
		if (best_depth < 0 ? at != TT_NONE : (at == TT_NONE || slice_depth(t, &tr->slices[at]) != best_depth))
			at_ok = 0;
	}
	ok(range_ok, "%s: row ranges match brute force", what);
	ok(busy_ok, "%s: row busy time matches brute force", what);
	ok(union_ok, "%s: track busy (union) matches brute force", what);
	ok(dom_ok, "%s: dominant slice covers the most, as brute force finds", what);
	ok(at_ok, "%s: slice_at finds the deepest containing slice", what);
}

/* N slices on one track: a CPU thread's (nesting), or a GPU stream's, overlapping now and
 * then unless DISJOINT (then at least 2 us apart, beyond the random sub-us parts). */
static char *random_trace(int n, bool gpu, bool disjoint)
{
	size_t cap = (size_t)n * 200 + 1000, len = 0;
	char *s = xmalloc(cap);
	int64_t ts = 1000000;
	len += (size_t)snprintf(s + len, cap - len, "{\"traceEvents\": [\n");
	for (int i = 0; i < n; i++) {
		int64_t dur;
		if (gpu) {
			/* mostly back to back, sometimes overlapping or nested, sometimes zero */
			dur = (int64_t)(rnd() % 50);
			int64_t gap = disjoint ? 2 + (int64_t)(rnd() % 20)
			                       : (int64_t)(rnd() % 20) - (rnd() % 8 == 0 ? 25 : 0);
			ts += gap > -ts ? gap : 0;
		} else {
			dur = (int64_t)(rnd() % 200);
			ts += (int64_t)(rnd() % 60);
		}
		len += (size_t)snprintf(s + len, cap - len,
		                        "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"s%d\", \"pid\": 1, \"tid\": %d, "
		                        "\"ts\": %lld.%03d, \"dur\": %lld.%03d, \"args\": {\"correlation\": %d}}%s\n",
		                        gpu ? "kernel" : "cpu_op", (int)(rnd() % 17), gpu ? 7 : 100, (long long)ts,
		                        (int)(rnd() % 1000), (long long)dur, (int)(rnd() % 1000), i,
		                        i + 1 < n ? "," : "");
		if (gpu)
			ts += dur;
	}
	len += (size_t)snprintf(s + len, cap - len, "]}\n");
	return s;
}

/* Slices within [T0, T1) on a CPU thread, nesting (whole microseconds: no partial overlap),
 * DEPTH levels deep, appended to S while fewer than MAX are written (*N counts them). */
static void nested_slices(char **s, size_t *len, size_t *cap, int64_t t0, int64_t t1, int depth, int *n, int max)
{
	int64_t at = t0;
	while (*n < max && at + 4 < t1) {
		int64_t a = at + (int64_t)(rnd() % 5), b = a + 1 + (int64_t)(rnd() % (uint64_t)(t1 - a));
		if (b > t1)
			b = t1;
		if (*len + 300 > *cap)
			*s = xrealloc(*s, *cap *= 2);
		*len += (size_t)snprintf(*s + *len, *cap - *len,
		                         "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n%d\", \"pid\": 1, "
		                         "\"tid\": 100, \"ts\": %lld, \"dur\": %lld}\n",
		                         *n > 0 ? "," : "", depth, (long long)a, (long long)(b - a));
		(*n)++;
		if (depth < 4 && b - a > 8)
			nested_slices(s, len, cap, a, b, depth + 1, n, max);
		at = b + (int64_t)(rnd() % 3);
	}
}

static char *random_nested_trace(int max)
{
	size_t cap = 4096, len = 0;
	char *s = xmalloc(cap);
	int n = 0;
	len += (size_t)snprintf(s + len, cap - len, "{\"traceEvents\": [\n");
	nested_slices(&s, &len, &cap, 1000000, 1000000 + 40 * (int64_t)max, 0, &n, max);
	if (len + 8 > cap)
		s = xrealloc(s, cap += 8);
	len += (size_t)snprintf(s + len, cap - len, "]}\n");
	return s;
}

/* index_parent and index_first_child against the stack that laid the track out: a
 * slice's parent is the slice on top of the stack when it came, its first child the
 * first slice after it whose parent it is. */
static void check_nesting(const struct trace *t, const struct track *tr, const char *what)
{
	uint32_t *stack = xmalloc((tr->nslices + 1) * sizeof *stack), sn = 0;
	uint32_t *parent = xmalloc((tr->nslices + 1) * sizeof *parent);
	int parent_ok = 1, child_ok = 1, nested = 0;
	for (uint32_t i = 0; i < tr->nslices; i++) {
		const struct slice *s = &tr->slices[i];
		while (sn > 0 && tr->slices[stack[sn - 1]].ts + track_dur_at(tr, stack[sn - 1]) <= s->ts)
			sn--;
		parent[i] = sn > 0 ? stack[sn - 1] : TT_NONE;
		nested += parent[i] != TT_NONE;
		stack[sn++] = i;
		if (index_parent(t, tr, i) != parent[i] && parent_ok) {
			parent_ok = 0;
			printf("#   slice %u: parent %u, want %u\n", i, index_parent(t, tr, i), parent[i]);
		}
	}
	for (uint32_t i = 0; i < tr->nslices; i++) {
		uint32_t want = TT_NONE;
		for (uint32_t j = i + 1; j < tr->nslices && want == TT_NONE; j++)
			if (parent[j] == i)
				want = j;
		if (index_first_child(t, tr, i) != want && child_ok) {
			child_ok = 0;
			printf("#   slice %u: first child %u, want %u\n", i, index_first_child(t, tr, i), want);
		}
	}
	ok(nested > 0, "%s: some slices nest", what);
	ok(parent_ok, "%s: index_parent is the slice it nests in", what);
	ok(child_ok, "%s: index_first_child is its earliest child", what);
	ok(index_parent(t, tr, tr->nslices) == TT_NONE && index_first_child(t, tr, tr->nslices) == TT_NONE,
	   "%s: a bad index has no parent and no child", what);
	free(stack);
	free(parent);
}

static void test_nesting(void)
{
	struct trace *t = load_text(
		"nest.json",
		"[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"parent\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"child\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"grandchild\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":5},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"late-child\",\"pid\":1,\"tid\":1,\"ts\":90,\"dur\":20},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"next\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":5},"
		"{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"be\",\"pid\":1,\"tid\":1,\"ts\":40},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":50}]");
	const struct track *tr = find_track(t, 1);
	ok(tr != NULL && tr->nslices == 6, "six slices (B/E pair matched)");
	if (tr != NULL && tr->nslices == 6) {
		is_int(slice_depth(t, &tr->slices[0]), 0, "parent at depth 0");
		is_int(slice_depth(t, &tr->slices[1]), 1, "child at depth 1");
		is_int(slice_depth(t, &tr->slices[2]), 2, "grandchild at depth 2");
		is_int(slice_depth(t, &tr->slices[3]), 1, "B/E slice nests under parent");
		is_int(slice_depth(t, &tr->slices[4]), 1, "a child running past its parent gets the row below it");
		ok(slice_flags(t, &tr->slices[4]) & SF_PARTIAL, "and is flagged partial");
		is_int(slice_depth(t, &tr->slices[5]), 2, "next, starting inside late-child, goes below it");
		is_int(tr->busy_total, 110000, "busy = union of all slices");
		is_int(t->quality.count[Q_CPU_PARTIAL_OVERLAP], 1, "one partial overlap counted");
		is_int(index_parent(t, tr, 2), 1, "the grandchild's parent is the child");
		is_int(index_parent(t, tr, 1), 0, "the child's parent is the parent");
		is_int(index_parent(t, tr, 0), TT_NONE, "a slice at depth 0 has no parent");
		is_int(index_parent(t, tr, 5), 4, "a slice starting inside a partial one nests in it");
		is_int(index_first_child(t, tr, 0), 1, "the parent's first child is the earliest");
		is_int(index_first_child(t, tr, 2), TT_NONE, "a leaf has no child");
		check_nesting(t, tr, "nesting fixture");
	}
	trace_free(t);
}

/* Slices that tie on start and length nest in file order: the one the file gives first is
 * the parent, whatever the names' order, with "{}" args, with none, and with real ones. A
 * track whose args are all "{}" keeps no args array. */
static void test_ties_in_file_order(void)
{
	static const char *const args[] = { ",\"args\":{}", "", ",\"args\":{\"a\":1}" };
	static const char *const what[] = { "args {}", "no args", "args" };
	for (int k = 0; k < 3; k++) {
		char *text = xasprintf("[{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1%s},"
		                       "{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5%s},"
		                       "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5%s},"
		                       "{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":0%s},"
		                       "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":0%s}]",
		                       args[k], args[k], args[k], args[k], args[k]);
		struct trace *t = load_text("ties.json", text);
		const struct track *tr = find_track(t, 1);
		ok(tr != NULL && tr->nslices == 4, "%s: four slices on the thread", what[k]);
		if (tr != NULL && tr->nslices == 4) {
			is_str(strtab_get(&t->strings, slice_name(t, &tr->slices[0])), "outer",
			       "%s: the first in the file comes first", what[k]);
			is_int(slice_depth(t, &tr->slices[0]), 0, "%s: and is the parent", what[k]);
			is_int(slice_depth(t, &tr->slices[1]), 1, "%s: the second nests in it", what[k]);
			is_str(strtab_get(&t->strings, slice_name(t, &tr->slices[2])), "outer",
			       "%s: zero-length ties too", what[k]);
			ok((tr->args != NULL) == (k == 2), "%s: an args array only where an event has args", what[k]);
		}
		trace_free(t);
		free(text);
	}
}

/* A track whose events come in R runs each in order (the seam of a file's parts, a late
 * event) is merged rather than sorted (SORT_MERGE_RUNS): 1 to 12 runs of random lengths, a
 * short run after a long one and the other way round, ties of start and length within and
 * across runs: the slices must come out as the sort's order says (start, then the longer,
 * then file order), each with its own args. Past 8 runs the sort does it. */
static void test_runs_merged(void)
{
	int order_ok = 1, args_ok = 1, count_ok = 1, tracks = 0;
	for (int nruns = 1; nruns <= 12; nruns++) {
		for (int shape = 0; shape < 3; shape++) {
			size_t cap = 1 << 20, n = 0;
			char *text = xmalloc(cap);
			n += (size_t)snprintf(text + n, cap - n, "[");
			int total = 0;
			static uint64_t args_at[4096];
			static int64_t ts_of[4096], dur_of[4096];
			for (int r = 0; r < nruns; r++) {
				/* shape 0: random lengths; 1: long then short; 2: short then long */
				int len = shape == 0   ? 1 + (int)(rnd() % 200)
				          : shape == 1 ? (r == 0 ? 600 : 1 + (int)(rnd() % 5))
				                       : (r == nruns - 1 ? 600 : 1 + (int)(rnd() % 5));
				int64_t ts = (int64_t)(rnd() % 50);
				for (int i = 0; i < len; i++) {
					ts += (int64_t)(rnd() % 3); /* 0: a tie of start */
					int64_t dur = (int64_t)(rnd() % 3) * 5;
					n += (size_t)snprintf(
						text + n, cap - n,
						"%s{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
						"\"dur\":%lld,\"args\":",
						total ? "," : "", (long long)ts, (long long)dur);
					args_at[total] = n;
					ts_of[total] = ts * 1000;
					dur_of[total] = dur * 1000;
					n += (size_t)snprintf(text + n, cap - n, "{\"k\":%d}}", total);
					total++;
				}
			}
			n += (size_t)snprintf(text + n, cap - n, "]");
			struct trace *t = load_text("runs.json", text);
			const struct track *tr = find_track(t, 1);
			tracks++;
			if (tr == NULL || tr->nslices != (uint32_t)total || tr->args == NULL) {
				count_ok = 0;
			} else {
				for (uint32_t i = 1; i < tr->nslices; i++) {
					const struct slice *p = &tr->slices[i - 1], *c = &tr->slices[i];
					/* file order: the args' offsets grow with it */
					uint64_t pa = track_args_at(tr, i - 1), ca = track_args_at(tr, i);
					if (p->ts > c->ts ||
					    (p->ts == c->ts && (slice_dur(tr, p) < slice_dur(tr, c) ||
					                        (slice_dur(tr, p) == slice_dur(tr, c) && pa >= ca))))
						order_ok = 0;
				}
				/* each slice kept its own args: where they are in the file is its event's */
				for (uint32_t i = 0; i < tr->nslices && args_ok; i++) {
					uint64_t off = track_args_at(tr, i) >> 24;
					int lo = 0, hi = total;
					while (lo < hi) {
						int mid = (lo + hi) / 2;
						if (args_at[mid] < off)
							lo = mid + 1;
						else
							hi = mid;
					}
					args_ok = lo < total && args_at[lo] == off && ts_of[lo] == tr->slices[i].ts &&
					          dur_of[lo] == slice_dur(tr, &tr->slices[i]);
				}
			}
			trace_free(t);
			free(text);
		}
	}
	is_int(tracks, 36, "tracks of 1 to 12 runs, three shapes each");
	ok(count_ok, "every slice kept");
	ok(order_ok, "in the sort's order: start, the longer first, then file order");
	ok(args_ok, "each with its args");
}

/* Flow ends that start in no slice: noted (Q_FLOW_UNBOUND) in flow order with the track
 * they were on and their time, their ends left unbound; the bound ones bound. Indexed on
 * one thread and on two (the binding then in chunks on both, the notes after). */
static void test_unbound_flows(void)
{
	const char *text =
		"["
		"{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
		"{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":5},"
		"{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":1,\"tid\":2,\"ts\":52,\"dur\":5},"
		"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"f\"},"
		"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":20,\"cat\":\"ac2g\",\"name\":\"f\",\"bp\":\"e\"},"
		"{\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":50,\"cat\":\"ac2g\",\"name\":\"f\"},"
		"{\"ph\":\"f\",\"id\":2,\"pid\":1,\"tid\":2,\"ts\":52,\"cat\":\"ac2g\",\"name\":\"f\",\"bp\":\"e\"},"
		"{\"ph\":\"s\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":11,\"cat\":\"ac2g\",\"name\":\"f\"},"
		"{\"ph\":\"f\",\"id\":3,\"pid\":1,\"tid\":2,\"ts\":90,\"cat\":\"ac2g\",\"name\":\"f\",\"bp\":\"e\"}"
		"]";
	for (int two = 0; two < 2; two++) {
		if (two)
			setenv("TTRACE_TEST_INDEX_SPLIT", "0", 1);
		struct trace *t = load_text("flows.json", text);
		const char *how = two ? "two threads" : "one thread";
		is_int(t->nflows, 3, "%s: three flows paired", how);
		is_int(t->quality.count[Q_FLOW_UNBOUND], 2, "%s: two ends bound to nothing", how);
		const struct quality_example *ex = t->quality.ex[Q_FLOW_UNBOUND];
		const struct track *cpu = find_track(t, 1), *gpu = find_track(t, 2);
		ok(cpu != NULL && gpu != NULL && ex[0].ts == 50000 && &t->tracks[ex[0].track] == cpu &&
		           ex[1].ts == 90000 && &t->tracks[ex[1].track] == gpu,
		   "%s: noted in flow order, each with its time and its track", how);
		int bound = 0, unbound = 0;
		for (uint32_t i = 0; i < t->nflows; i++) {
			const struct flow *f = &t->flows[i];
			bound += (f->from.track != TT_NONE && f->from.idx != TT_NONE) +
			         (f->to.track != TT_NONE && f->to.idx != TT_NONE);
			unbound += (f->from.track == TT_NONE && f->from.idx == TT_NONE) +
			           (f->to.track == TT_NONE && f->to.idx == TT_NONE);
		}
		ok(bound == 4 && unbound == 2, "%s: four ends bound to slices, two to nothing (%d, %d)", how, bound,
		   unbound);
		trace_free(t);
	}
	unsetenv("TTRACE_TEST_INDEX_SPLIT");
}

int main(void)
{
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	test_unbound_flows();
	test_nesting();
	test_ties_in_file_order();
	test_runs_merged();
	for (int round = 0; round < 5; round++) {
		char *txt = round == 4 ? random_nested_trace(600)
		                       : random_trace(round == 2 ? 3000 : 400, round != 1, round == 3);
		struct trace *t = load_text("rand.json", txt);
		const struct track *tr = &t->tracks[0];
		char what[64];
		snprintf(what, sizeof what, "random %s track %d (%u slices, %u rows)",
		         round == 4   ? "nested CPU"
		         : round != 1 ? "GPU"
		                      : "CPU",
		         round, tr->nslices, tr->nrows);
		ok(t->status == LOAD_OK && t->ntracks == 1, "%s loads", what);
		check_track(t, tr, what);
		if (round == 0 || round == 2)
			ok(tr->nrows > 1 && t->quality.count[Q_GPU_OVERLAP] > 0 && tr->nbusy > 0,
			   "%s: overlaps got overflow rows, and the busy time its spans", what);
		if (round == 3)
			ok(tr->nrows == 1 && tr->nbusy == 0 && tr->busy == NULL,
			   "%s: one row, which gives the busy time", what);
		if (round == 1)
			ok(!tr->nested && tr->nbusy > 0, "%s: partial overlaps: the busy time is its spans'", what);
		if (round == 4)
			ok(tr->nested && tr->nrows >= 4 && tr->nbusy == 0, "%s: nested rows: row 0 gives the busy time",
			   what);
		if (round == 1)
			check_nesting(t, tr, what);
		trace_free(t);
		free(txt);
	}
	rmdir(tmpdir);
	return done_testing();
}
