/* fuzz_model.c: what the fuzz targets run over a model they got (fuzz_model.h). */
#include "tests/fuzz/fuzz_model.h"

#include <stdio.h>
#include <stdlib.h>

#include "parsers/args_json.h"
#include "src/index.h"
#include "src/ranks.h"
#include "ui/advice_report.h"
#include "ui/dump.h"
#include "ui/kernel_view.h"
#include "ui/memory_view.h"
#include "ui/op_view.h"
#include "ui/overview.h"
#include "ui/report.h"

const struct fuzz_bounds fuzz_cheap = { 16, 32, 4 }, fuzz_full = { 64, 256, 32 };

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

static void check_window(const struct trace *t, const struct track *tr, int64_t t0, int64_t t1,
                         const struct fuzz_bounds *bd)
{
	int64_t track_busy = index_track_busy(tr, t0, t1);
	__int128 width = t1 > t0 ? (__int128)t1 - t0 : 0;

	FUZZ_CHECK(track_busy >= 0 && track_busy <= width);
	for (uint16_t r = 0; r < tr->nrows && r < bd->rows; r++) {
		const struct row *row = &tr->rows[r];
		uint32_t first, last, dom;
		int64_t busy;

		index_row_range(tr, r, t0, t1, &first, &last);
		FUZZ_CHECK(first <= last && last <= row->n);
		for (uint32_t i = first; i < last; i++)
			FUZZ_CHECK(overlaps(tr, &tr->slices[row_idx(row, i)], t0, t1));
		if (t1 > t0 && first > 0)
			FUZZ_CHECK(!overlaps(tr, &tr->slices[row_idx(row, first - 1)], t0, t1));
		if (t1 > t0 && last < row->n)
			FUZZ_CHECK(!overlaps(tr, &tr->slices[row_idx(row, last)], t0, t1));
		busy = index_row_busy(tr, r, t0, t1);
		FUZZ_CHECK(busy >= 0 && busy <= width);
		if (r + tr->annotation_rows <
		    tr->nrows) /* GPU busy time leaves out gpu_user_annotation (the last rows) */
			FUZZ_CHECK(busy <= track_busy);
		dom = index_row_dominant(tr, r, t0, t1);
		FUZZ_CHECK((dom == TT_NONE) == (first == last));
		if (dom != TT_NONE) {
			FUZZ_CHECK(dom < tr->nslices && slice_depth(t, &tr->slices[dom]) == r);
			FUZZ_CHECK(overlaps(tr, &tr->slices[dom], t0, t1));
		}
	}
}

static void check_track(const struct trace *t, const struct track *tr, int64_t start, int64_t end,
                        const struct fuzz_bounds *bd)
{
	check_window(t, tr, start, end, bd);
	if (end < INT64_MAX)
		check_window(t, tr, start, end + 1, bd);
	for (int k = 0; k < 4; k++)
		check_window(t, tr, between(start, end, k, 4), between(start, end, k + 1, 4), bd);
	if (end > start)
		check_window(t, tr, end, start, bd); /* reversed: empty */
	for (int k = 0; k <= 8; k++) {
		uint32_t i = index_slice_at(tr, between(start, end, k, 8));
		FUZZ_CHECK(i == TT_NONE || i < tr->nslices);
	}
	for (uint32_t i = 0; i < tr->nslices && i < bd->points; i++) {
		const struct slice *s = &tr->slices[i];
		uint32_t at = index_slice_at(tr, s->ts);
		FUZZ_CHECK(slice_depth(t, s) < tr->nrows);
		FUZZ_CHECK(at != TT_NONE && at < tr->nslices);
		FUZZ_CHECK(tr->slices[at].ts <= s->ts && s->ts <= slice_end(tr, &tr->slices[at]));
		FUZZ_CHECK(slice_depth(t, &tr->slices[at]) >= slice_depth(t, s));
		if (s->dur32 > 0)
			check_window(t, tr, s->ts, slice_end(tr, s), bd);
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
				FUZZ_CHECK(a.text != NULL && a.text[0] == '{');
				event_args_free(&a);
			} else {
				FUZZ_CHECK(cause != NULL);
				free(cause);
			}
		}
	}
}

char *fuzz_exercise(struct trace *t, const struct fuzz_bounds *bd)
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
		FUZZ_CHECK(t->start <= t->end);
		for (uint32_t ti = 0; ti < t->ntracks; ti++)
			check_track(t, &t->tracks[ti], t->start, t->end, bd);
	}
	return dump;
}

void fuzz_reports(struct trace *t)
{
	FILE *out = fopen("/dev/null", "w");
	struct trace *one[1] = { t };

	if (out == NULL)
		abort();
	for (int json = 0; json <= 1; json++) {
		report_gaps(out, one, 1, json, 0);
		report_overview(out, one, 1, json);
		report_advice(out, one, 1, json, ALIGN_COLLECTIVE);
		for (int g = 0; g < KG__COUNT; g++)
			FUZZ_CHECK(report_table(out, one, 1, json, 0, NULL, kernel_view_report((enum kernel_group)g)) ==
			           0);
		for (int g = OP_BY_NAME; g <= OP_BY_SOURCE; g++)
			FUZZ_CHECK(report_table(out, one, 1, json, 0, NULL, op_view_report((enum op_group)g)) == 0);
		FUZZ_CHECK(report_table(out, one, 1, json, 0, NULL, &memory_table_report) == 0);
	}
	for (int mode = ALIGN_RAW; mode <= ALIGN_COLLECTIVE; mode++)
		report_distributed(out, one, 1, true, mode);
	fclose(out);
}
