/* fuzz_loader.c: the libFuzzer target for the whole loading path. The input bytes go
 * into a memfd and through load_trace (input sniffing, decompression, scanner, builder,
 * index), then through every report, the model dump, the index queries and the lazy args
 * reader; index answers are checked against src/index.h. The full oracle also loads the
 * file split in parts (TTRACE_PARTS), checks that both loads dump the same model (but for
 * the lines parts_may_differ names) and queries the index more; it runs on the inputs
 * fuzz_oracle_sampled picks (all of them in the replay). Any mismatch aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parsers/load.h"
#include "parsers/args_json.h"
#include "src/index.h"
#include "src/model.h"
#include "ui/dump.h"
#include "ui/report.h"
#include "tests/fuzz/fuzz_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* How much of each model the checks cover: every input gets the cheap bounds, the
 * inputs of the full oracle the others (each args read opens the file again). */
struct bounds {
	uint16_t rows;   /* rows per track queried */
	uint32_t points; /* slices per track looked up, with a window over each */
	unsigned args;   /* slices whose args are read back */
};
static const struct bounds cheap = { 16, 32, 4 }, full = { 64, 256, 32 };

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "fuzz_loader: %s:%d: check failed: %s\n", __FILE__, __LINE__, \
			        #cond);                                                           \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

static int64_t slice_end(const struct track *tr, const struct slice *s)
{
	return (int64_t)((uint64_t)s->ts + (uint64_t)slice_dur(tr, s));
}

/* A slice overlaps [t0, t1) as index_row_range defines it. */
static bool overlaps(const struct track *tr, const struct slice *s, int64_t t0, int64_t t1)
{
	if (s->dur32 == 0)
		return t0 <= s->ts && s->ts < t1;
	return s->ts < t1 && slice_end(tr, s) > t0;
}

/* The point a fraction num/den of the way through [a, b], without overflow. */
static int64_t between(int64_t a, int64_t b, int num, int den)
{
	__int128 d = (__int128)b - a;
	return (int64_t)((__int128)a + d * num / den);
}

static void check_window(const struct track *tr, int64_t t0, int64_t t1, const struct bounds *bd)
{
	int64_t track_busy = index_track_busy(tr, t0, t1);
	__int128 width = t1 > t0 ? (__int128)t1 - t0 : 0;

	CHECK(track_busy >= 0 && track_busy <= width);
	for (uint16_t r = 0; r < tr->nrows && r < bd->rows; r++) {
		const struct row *row = &tr->rows[r];
		uint32_t first, last, dom;
		int64_t busy;

		index_row_range(tr, r, t0, t1, &first, &last);
		CHECK(first <= last && last <= row->n);
		for (uint32_t i = first; i < last; i++)
			CHECK(overlaps(tr, &tr->slices[row->idx[i]], t0, t1));
		if (t1 > t0 && first > 0)
			CHECK(!overlaps(tr, &tr->slices[row->idx[first - 1]], t0, t1));
		if (t1 > t0 && last < row->n)
			CHECK(!overlaps(tr, &tr->slices[row->idx[last]], t0, t1));
		busy = index_row_busy(tr, r, t0, t1);
		CHECK(busy >= 0 && busy <= width);
		if (r + tr->annotation_rows < tr->nrows) /* GPU busy time leaves out gpu_user_annotation (the last rows) */
			CHECK(busy <= track_busy);
		dom = index_row_dominant(tr, r, t0, t1);
		CHECK((dom == TT_NONE) == (first == last));
		if (dom != TT_NONE) {
			CHECK(dom < tr->nslices && tr->slices[dom].depth == r);
			CHECK(overlaps(tr, &tr->slices[dom], t0, t1));
		}
	}
}

static void check_track(const struct track *tr, int64_t start, int64_t end, const struct bounds *bd)
{
	check_window(tr, start, end, bd);
	if (end < INT64_MAX)
		check_window(tr, start, end + 1, bd);
	for (int k = 0; k < 4; k++)
		check_window(tr, between(start, end, k, 4), between(start, end, k + 1, 4), bd);
	if (end > start)
		check_window(tr, end, start, bd); /* reversed: empty */
	for (int k = 0; k <= 8; k++) {
		uint32_t i = index_slice_at(tr, between(start, end, k, 8));
		CHECK(i == TT_NONE || i < tr->nslices);
	}
	for (uint32_t i = 0; i < tr->nslices && i < bd->points; i++) {
		const struct slice *s = &tr->slices[i];
		uint32_t at = index_slice_at(tr, s->ts);
		CHECK(s->depth < tr->nrows);
		CHECK(at != TT_NONE && at < tr->nslices);
		CHECK(tr->slices[at].ts <= s->ts && s->ts <= slice_end(tr, &tr->slices[at]));
		CHECK(tr->slices[at].depth >= s->depth);
		if (s->dur32 > 0)
			check_window(tr, s->ts, slice_end(tr, s), bd);
	}
}

/* Reads back the args of the first few slices that have them, as the viewer does. */
static void read_args(const struct trace *t, unsigned max)
{
	unsigned n = 0;
	for (uint32_t ti = 0; ti < t->ntracks && n < max; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices && n < max; i++) {
			struct event_args a;
			char *cause = NULL;
			if (track_args_at(tr, i) == 0)
				continue;
			n++;
			if (args_store_read(t, track_args_at(tr, i), &a, &cause) == 0) {
				CHECK(a.text != NULL && a.text[0] == '{');
				event_args_free(&a);
			} else {
				CHECK(cause != NULL);
				free(cause);
			}
		}
	}
}

/* Runs the reports over T and checks its index within BD. Returns the model dump
 * (allocated). */
static char *exercise(struct trace *t, const struct bounds *bd)
{
	FILE *out = fopen("/dev/null", "w");
	char *dump = NULL;
	size_t len = 0;
	FILE *mem;

	if (out == NULL)
		abort();
	report_summary(out, &t, 1, false);
	report_summary(out, &t, 1, true);
	report_check(out, &t, 1);
	fclose(out);
	mem = open_memstream(&dump, &len);
	if (mem == NULL)
		abort();
	dump_model(mem, t);
	fclose(mem);
	if (t->status != LOAD_FAILED) {
		read_args(t, bd->args);
		CHECK(t->start <= t->end);
		for (uint32_t ti = 0; ti < t->ntracks; ti++)
			check_track(&t->tracks[ti], t->start, t->end, bd);
	}
	return dump;
}

/* Loads PATH in one piece (parts 0) or forced into that many parts; returns the dump. */
static char *load_and_exercise(const char *path, int parts, const struct bounds *bd)
{
	struct load_options opt = { .progress = NULL, .progress_after = 0, .quiet = true, .problems = NULL };
	struct trace *t;
	char *dump;

	if (parts > 0) {
		char n[16];
		snprintf(n, sizeof n, "%d", parts);
		setenv("TTRACE_PARTS", n, 1);
	} else {
		unsetenv("TTRACE_PARTS");
	}
	t = load_trace(path, &opt);
	dump = exercise(t, bd);
	trace_free(t);
	return dump;
}

/* Dump lines that may differ between one piece and parts, known and accepted for now:
 * each part reports its own first few located problems; metadata events are counted as
 * duplicate or conflicting against a part's final names, not one by one; exact
 * duplicates are looked for between neighbours in push order, which the merge changes
 * (E events closing an earlier part's B come after the part's slices); and of a header
 * key given twice, the parts keep the first value where one piece keeps the last. */
static bool parts_may_differ(const char *line)
{
	static const char *const prefixes[] = { "warning ", "quality duplicate_metadata ",
		                                 "quality conflicting_metadata ", "quality exact_duplicates ",
		                                 "rank ", "device " };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(line, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Returns DUMP without the lines parts_may_differ accepts (allocated). */
static char *comparable(const char *dump)
{
	size_t n = strlen(dump);
	char *out = malloc(n + 1), *o = out;
	if (out == NULL)
		abort();
	for (const char *p = dump; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);
		if (!parts_may_differ(p)) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

static void report_difference(const char *a, const char *b, int parts)
{
	size_t line = 1, i = 0;
	while (a[i] != '\0' && a[i] == b[i]) {
		if (a[i] == '\n')
			line++;
		i++;
	}
	while (i > 0 && a[i - 1] != '\n')
		i--;
	fprintf(stderr, "fuzz_loader: the model differs when the file is parsed in %d parts, at line %zu of the "
	        "compared dump:\n  one piece: %.200s\n  in parts:  %.200s\n", parts, line, a + i, b + i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char *dump, *whole, *split;
	int parts = 2 + (size > 0 ? data[size - 1] % 4 : 0);
	int fd = memfd_create("fuzz_loader", MFD_CLOEXEC);

	if (fd < 0) {
		perror("fuzz_loader: memfd_create");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			perror("fuzz_loader: write");
			abort();
		}
		done += (size_t)w;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!fuzz_oracle_sampled(data, size)) {
		free(load_and_exercise(path, 0, &cheap));
		close(fd);
		return 0;
	}
	dump = load_and_exercise(path, 0, &full);
	whole = comparable(dump);
	free(dump);
	dump = load_and_exercise(path, parts, &full);
	split = comparable(dump);
	free(dump);
	if (strcmp(whole, split) != 0) {
		report_difference(whole, split, parts);
		abort();
	}
	free(whole);
	free(split);
	unsetenv("TTRACE_PARTS");
	close(fd);
	return 0;
}
