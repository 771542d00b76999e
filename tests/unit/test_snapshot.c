/* test_snapshot.c: snapshots of a load in progress (parsers/load.h load_start,
 * load_take_snapshot) and giving a load up (load_cancel).
 *
 * A generated trace (nested CPU slices, B/E pairs, runtime calls, kernels and their flows)
 * is loaded slowly (TTRACE_TEST_SLOW_LOAD) in one part and in two, with snapshots asked for
 * often. What a snapshot holds must be incomplete, never wrong: every slice in it is a slice
 * of the whole trace (same track, start, duration and name), and the whole trace is the one
 * an ordinary load makes. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/load.h"
#include "tests/unit/compress.h"
#include "tests/unit/tap.h"

static char path[PATH_MAX], zpath[PATH_MAX + 8];

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes the trace to FILE: STEPS steps of a training loop. */
static void write_trace_to(const char *file, int steps)
{
	FILE *f = fopen(file, "w");
	if (f == NULL)
		fatal("cannot write %s: %s", file, strerror(errno));
	fputs("{\"traceEvents\": [\n", f);
	fputs("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}},\n",
	      f);
	long long t = 1000, corr = 1;
	for (int s = 0; s < steps; s++) {
		long long step0 = t;
		fprintf(f,
		        "{\"ph\": \"X\", \"name\": \"ProfilerStep#%d\", \"cat\": \"user_annotation\", \"pid\": 1, "
		        "\"tid\": 1, \"ts\": %lld, \"dur\": 1000},\n",
		        s, t);
		for (int k = 0; k < 8; k++) {
			long long a = t + 10 + k * 120;
			fprintf(f,
			        "{\"ph\": \"X\", \"name\": \"aten::op%d\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, "
			        "\"ts\": %lld, \"dur\": 100, \"args\": {\"External id\": %lld}},\n",
			        k, a, corr);
			fprintf(f,
			        "{\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, "
			        "\"tid\": 1, \"ts\": %lld, \"dur\": 20, \"args\": {\"correlation\": %lld}},\n",
			        a + 5, corr);
			fprintf(f,
			        "{\"ph\": \"s\", \"id\": %lld, \"name\": \"ac2g\", \"cat\": \"ac2g\", \"pid\": 1, "
			        "\"tid\": 1, \"ts\": %lld},\n",
			        corr, a + 5);
			fprintf(f,
			        "{\"ph\": \"X\", \"name\": \"kernel_%d\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, "
			        "\"ts\": %lld, \"dur\": 50, \"args\": {\"correlation\": %lld, \"stream\": 7, \"device\": 0}},\n",
			        k, a + 30, corr);
			fprintf(f,
			        "{\"ph\": \"f\", \"id\": %lld, \"name\": \"ac2g\", \"cat\": \"ac2g\", \"pid\": 0, "
			        "\"tid\": 7, \"ts\": %lld, \"bp\": \"e\"},\n",
			        corr, a + 30);
			corr++;
		}
		/* a worker thread's B/E pairs, nested */
		fprintf(f,
		        "{\"ph\": \"B\", \"name\": \"worker\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 2, \"ts\": %lld},\n",
		        step0 + 5);
		fprintf(f,
		        "{\"ph\": \"B\", \"name\": \"inner\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 2, \"ts\": %lld},\n",
		        step0 + 50);
		fprintf(f, "{\"ph\": \"E\", \"pid\": 1, \"tid\": 2, \"ts\": %lld},\n", step0 + 400);
		fprintf(f, "{\"ph\": \"E\", \"pid\": 1, \"tid\": 2, \"ts\": %lld},\n", step0 + 900);
		t += 1100;
	}
	fprintf(f,
	        "{\"ph\": \"X\", \"name\": \"last\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
	        "\"dur\": 1}\n], \"baseTimeNanoseconds\": 1700000000000000000}\n",
	        t);
	if (fclose(f) != 0)
		fatal("cannot write %s", file);
}

static void write_trace(int steps) { write_trace_to(path, steps); }

static bool same_track(const struct trace *a, const struct track *x, const struct trace *b, const struct track *y)
{
	if (x->pid_is_str != y->pid_is_str || x->tid_is_str != y->tid_is_str)
		return false;
	if (x->pid_is_str ? strcmp(strtab_get(&a->strings, (uint32_t)x->pid), strtab_get(&b->strings, (uint32_t)y->pid))
	                  : x->pid != y->pid)
		return false;
	return x->tid_is_str
	               ? !strcmp(strtab_get(&a->strings, (uint32_t)x->tid), strtab_get(&b->strings, (uint32_t)y->tid))
	               : x->tid == y->tid;
}

/* Slices of S missing from W (same track, start, duration, name); *N counts S's slices. */
static uint64_t missing(const struct trace *s, const struct trace *w, uint64_t *n)
{
	uint64_t miss = 0;
	*n = 0;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const struct track *st = &s->tracks[i], *wt = NULL;
		for (uint32_t k = 0; k < w->ntracks && wt == NULL; k++)
			if (same_track(s, st, w, &w->tracks[k]))
				wt = &w->tracks[k];
		for (uint32_t j = 0; j < st->nslices; j++) {
			const struct slice *a = &st->slices[j];
			bool found = false;
			(*n)++;
			uint32_t lo = 0, hi = wt != NULL ? wt->nslices : 0;
			while (lo < hi) { /* slices are sorted by start */
				uint32_t mid = lo + (hi - lo) / 2;
				if (wt->slices[mid].ts < a->ts)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (uint32_t k = lo; wt != NULL && k < wt->nslices && wt->slices[k].ts == a->ts && !found;
			     k++) {
				const struct slice *b = &wt->slices[k];
				found = b->ts == a->ts && slice_dur(wt, b) == slice_dur(st, a) &&
				        strcmp(strtab_get(&s->strings, slice_name(s, a)),
				               strtab_get(&w->strings, slice_name(w, b))) == 0;
			}
			miss += !found;
		}
	}
	return miss;
}

/* A digest of T's slices (start, duration, name, row) by track, in order. */
static uint64_t digest(const struct trace *t)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t j = 0; j < t->tracks[i].nslices; j++) {
			const struct slice *s = &t->tracks[i].slices[j];
			const char *name = strtab_get(&t->strings, slice_name(t, s));
			h = (h ^ (uint64_t)s->ts) * 1099511628211ull;
			h = (h ^ (uint64_t)slice_dur(&t->tracks[i], s)) * 1099511628211ull;
			h = (h ^ slice_depth(t, s)) * 1099511628211ull;
			for (const char *p = name; *p; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211ull;
		}
	return h;
}

/* Keeps T (a snapshot, or NULL) in SNAPS (256 at most, *N of them), or frees it. */
static void keep_snapshot(struct trace **snaps, int *n, struct trace *t)
{
	if (t != NULL && *n < 256)
		snaps[(*n)++] = t;
	else
		trace_free(t);
}

static void run(const char *what, const char *parts, const char *file, const char *slow)
{
	bool plain = file == path;
	struct load_options opt = { 0 };
	struct trace *snaps[256], *whole = NULL;
	int nsnaps = 0;

	if (parts != NULL)
		setenv("TTRACE_PARTS", parts, 1);
	else
		unsetenv("TTRACE_PARTS");
	struct trace *whole0 = load_trace(file, NULL);
	setenv("TTRACE_TEST_SLOW_LOAD", slow, 1);
	opt.snapshots = true;
	opt.snapshot_policy = (struct snapshot_policy){ 0, 0.01, 1.0, 1.0 };
	char *paths[1] = { (char *)file };
	struct load_session *s = load_start(paths, 1, &opt);
	while (!load_wait(s, 0.005)) {
		keep_snapshot(snaps, &nsnaps, load_take_snapshot(s));
	}
	load_finish(s, &whole);
	unsetenv("TTRACE_TEST_SLOW_LOAD");

	ok(nsnaps >= 2, "%s: snapshots were made while loading (%d)", what, nsnaps);
	is_int(whole->status, LOAD_OK, "%s: the whole trace loaded", what);
	is_int(whole->snapshot_bytes, 0, "%s: the whole trace is not a snapshot", what);
	ok(digest(whole) == digest(whole0) && whole->nflows == whole0->nflows && whole->events == whole0->events,
	   "%s: the whole trace is the one a load without snapshots makes", what);
	uint64_t last = 0, total = 0, bad = 0, grew = 0, prev_n = 0;
	bool monotone = true, args = true;
	int nonempty = 0;
	for (int i = 0; i < nsnaps; i++) {
		uint64_t n;
		bad += missing(snaps[i], whole, &n);
		total += n;
		monotone &=
			snaps[i]->snapshot_bytes >= last && snaps[i]->snapshot_bytes > 0 && snaps[i]->status == LOAD_OK;
		nonempty += n > 0; /* the first may come before the first event */
		args &= snaps[i]->args != NULL;
		grew += n > prev_n;
		prev_n = n;
		last = snaps[i]->snapshot_bytes;
	}
	uint64_t wn;
	missing(whole, whole, &wn);
	ok(monotone, "%s: each snapshot says how much of the file it holds, more each time", what);
	if (plain)
		ok(args, "%s: the snapshots of a plain file read args back from it", what);
	ok(nonempty >= 2 && grew >= 2,
	   "%s: the snapshots hold slices, more as the load goes on (%d of %d hold some, "
	   "%llu grew)",
	   what, nonempty, nsnaps, (unsigned long long)grew);
	is_int(bad, 0, "%s: every slice of every snapshot (%llu in all) is a slice of the whole trace", what,
	       (unsigned long long)total);
	ok(nsnaps == 0 || prev_n <= wn, "%s: the last snapshot holds no more than the whole (%llu of %llu slices)",
	   what, (unsigned long long)prev_n, (unsigned long long)wn);
	for (int i = 0; i < nsnaps; i++)
		trace_free(snaps[i]);
	trace_free(whole);
	trace_free(whole0);
}

static void cancel(const char *parts)
{
	struct load_options opt = { 0 };
	struct trace *t = NULL, *first = NULL;
	char *paths[1] = { path };

	if (parts != NULL)
		setenv("TTRACE_PARTS", parts, 1);
	else
		unsetenv("TTRACE_PARTS");
	setenv("TTRACE_TEST_SLOW_LOAD", "20000", 1);
	opt.snapshots = true;
	opt.snapshot_policy = (struct snapshot_policy){ 0, 0.01, 1.0, 1.0 };
	struct load_session *s = load_start(paths, 1, &opt);
	while (first == NULL && !load_wait(s, 0.005))
		first = load_take_snapshot(s);
	load_cancel(s);
	load_finish(s, &t);
	unsetenv("TTRACE_TEST_SLOW_LOAD");
	ok(first != NULL, "cancel (%s parts): a snapshot came first", parts ? parts : "1");
	is_int(t->status, LOAD_FAILED, "cancel (%s parts): the load given up ends failed", parts ? parts : "1");
	is_str(t->error, "cancelled", "cancel (%s parts): saying why", parts ? parts : "1");
	trace_free(first);
	trace_free(t);
}

/* Quitting while a snapshot is indexed: load_finish does not wait for it (the snapshot
 * thread, slowed by TTRACE_TEST_SLOW_SNAPSHOT, finishes and frees it alone). */
static void cancel_while_indexing(void)
{
	struct load_options opt = { 0 };
	struct trace *t = NULL;
	char *paths[1] = { path };

	unsetenv("TTRACE_PARTS");
	setenv("TTRACE_TEST_SLOW_LOAD", "20000", 1);
	setenv("TTRACE_TEST_SLOW_SNAPSHOT", "3000", 1);
	opt.snapshots = true;
	opt.snapshot_policy = (struct snapshot_policy){ 0, 0.01, 1.0, 1.0 };
	struct load_session *s = load_start(paths, 1, &opt);
	unsetenv("TTRACE_TEST_SLOW_SNAPSHOT"); /* read once, by load_start */
	unsetenv("TTRACE_TEST_SLOW_LOAD");
	bool indexing = false;
	for (int i = 0; i < 10000 && !(indexing = load_indexing_snapshot(s)); i++)
		usleep(1000);
	ok(indexing, "cancel while indexing: a snapshot is being indexed");
	double t0 = now_s();
	load_cancel(s);
	load_finish(s, &t);
	double waited = now_s() - t0;
	ok(waited < 1.5, "cancel while indexing: the load ends without waiting for the snapshot's 3 s (%.3f s)",
	   waited);
	is_int(t->status, LOAD_FAILED, "cancel while indexing: the load given up ends failed");
	trace_free(t);
}

/* Several files (the ranks of a job): the snapshots are of the first file alone, and its
 * whole trace can be had (load_file_done) before the others have loaded. */
static void several_files(void)
{
	char p1[PATH_MAX + 8], p2[PATH_MAX + 8];
	snprintf(p1, sizeof p1, "%s.r1", path);
	snprintf(p2, sizeof p2, "%s.r2", path);
	write_trace_to(path, 1000);
	write_trace_to(p1, 1500);
	write_trace_to(p2, 1500);
	char *paths[3] = { path, p1, p2 };
	struct trace *whole0 = load_trace(path, NULL), *out[3] = { NULL, NULL, NULL };
	struct load_options opt = { 0 };
	struct trace *snaps[256], *first = NULL;
	int nsnaps = 0;
	bool first_before_end = false, none_early = true;

	unsetenv("TTRACE_PARTS");
	setenv("TTRACE_TEST_SLOW_LOAD", "4000", 1);
	opt.snapshots = true;
	opt.snapshot_policy = (struct snapshot_policy){ 0, 0.01, 1.0, 1.0 };
	struct load_session *s = load_start(paths, 3, &opt);
	unsetenv("TTRACE_TEST_SLOW_LOAD"); /* read once, by load_start */
	none_early = load_file_done(s, 0) == NULL;
	while (!load_wait(s, 0.005)) {
		keep_snapshot(snaps, &nsnaps, load_take_snapshot(s));
		if (first == NULL && (first = load_file_done(s, 0)) != NULL)
			first_before_end = !load_wait(s, 0);
	}
	is_int(load_files(s), 3, "several files: the session has 3 files");
	load_finish(s, out);
	ok(none_early, "several files: the first file is not done at the start");
	ok(first != NULL && first == out[0], "several files: the first file's trace, had while loading, is the one the "
	                                     "load hands out");
	ok(first_before_end, "several files: it came before the others had loaded");
	ok(digest(out[0]) == digest(whole0), "several files: and it is the file's whole trace");
	ok(nsnaps >= 2, "several files: snapshots were made while the first file loaded (%d)", nsnaps);
	uint64_t bad = 0, total = 0;
	bool sized = true;
	for (int i = 0; i < nsnaps; i++) {
		uint64_t n;
		bad += missing(snaps[i], out[0], &n);
		total += n;
		sized &= snaps[i]->file_bytes == whole0->file_bytes && snaps[i]->snapshot_bytes <= whole0->file_bytes;
		trace_free(snaps[i]);
	}
	ok(sized, "several files: each snapshot is of the first file (its size, and no more read than it holds)");
	is_int(bad, 0, "several files: every slice of every snapshot (%llu) is a slice of the first file",
	       (unsigned long long)total);
	for (int i = 0; i < 3; i++)
		trace_free(out[i]);
	trace_free(whole0);
	unlink(p1);
	unlink(p2);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	setenv("TTRACE_NO_CACHE", "1", 1); /* a cache would be read instead of the file */
	snprintf(path, sizeof path, "%s/ttrace-snapshot-%ld.json", tmp != NULL ? tmp : "/tmp", (long)getpid());
	write_trace(1000);
	run("one part", NULL, path, "4000");
	run("two parts", "2", path, "4000");
	{
		/* a compressed file parsed in chunks on several threads: the job's thread serves the
		 * snapshots with the chunks merged so far, as each chunk (1 MB of JSON) is merged: a
		 * bigger file, for more chunks */
		write_trace(5000);
		FILE *f = fopen(path, "rb");
		char *text = xmalloc(64u << 20), *z = NULL;
		size_t n = f != NULL ? fread(text, 1, 64u << 20, f) : 0, zn = 0;
		if (f != NULL)
			fclose(f);
		zstd_frame(text, n, &z, &zn);
		snprintf(zpath, sizeof zpath, "%s.zst", path);
		f = fopen(zpath, "wb");
		if (f == NULL || fwrite(z, 1, zn, f) != zn || fclose(f) != 0)
			fatal("cannot write %s", zpath);
		free(text);
		free(z);
		run("zstd in chunks", "3", zpath, "4000");
		run("zstd in one part", "1", zpath, "4000");
	}
	cancel(NULL);
	cancel("2");
	cancel_while_indexing();
	several_files();
	unlink(path);
	unlink(zpath);
	return done_testing();
}
