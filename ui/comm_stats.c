/* comm_stats.c: communication operations statistics (see comm_stats.h). */
#include "ui/comm_stats.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/xalloc.h"
#include "parsers/comm_args.h"
#include "src/kernel_class.h"

enum {
	CS_RANK,
	CS_GROUP,
	CS_COLL,
	CS_GSIZE,
	CS_CALLS,
	CS_BYTES,
	CS_MEAN_BYTES,
	CS_TIME,
	CS_MEAN_TIME,
	CS_TRANSFER,
	CS_WAIT,
	CS_ALGBW,
	CS_BUSBW,
	CS_OVER,
	CS_SIZED
};

static const struct column cs_cols[COMM_STATS_COLS] = {
	[CS_RANK] = { "rank", "rank", COL_INT, 0, 0 },
	[CS_GROUP] = { "process_group", "group", COL_TEXT, 1, 0 },
	[CS_COLL] = { "collective", "collective", COL_TEXT, 1, 0 },
	[CS_GSIZE] = { "group_size", "n", COL_INT, 0, 0 },
	[CS_CALLS] = { "calls", "calls", COL_COUNT, 0, 0 },
	[CS_BYTES] = { "bytes", "size", COL_BYTES, 0, 0 },
	[CS_MEAN_BYTES] = { "mean_bytes", "mean size", COL_BYTES, 0, 0 },
	[CS_TIME] = { "time_ns", "time", COL_DUR, 0, 0 },
	[CS_MEAN_TIME] = { "mean_time_ns", "mean time", COL_DUR, 0, 0 },
	[CS_TRANSFER] = { "transfer_ns", "transfer", COL_DUR, 0, 0 },
	[CS_WAIT] = { "wait_ns", "waiting", COL_DUR, 0, 0 },
	[CS_ALGBW] = { "algbw_gbps", "algbw GB/s", COL_REAL, 0, 0 },
	[CS_BUSBW] = { "busbw_gbps", "busbw GB/s", COL_REAL, 0, 0 },
	[CS_OVER] = { "bandwidth_over", "over", COL_TEXT, 0, COL_JSON_ONLY },
	[CS_SIZED] = { "sized_calls", "sized", COL_COUNT, 0, COL_JSON_ONLY },
};

enum coll_kind { CK_ALLREDUCE, CK_ALLGATHER, CK_REDUCESCATTER, CK_ALLTOALL, CK_OTHER };

/* The kind of a collective by its name, underscores and case aside ("_allgather_base",
 * "reduce_scatter_tensor_coalesced", "all_to_all"). */
static enum coll_kind kind_of(const char *name)
{
	char s[64];
	size_t k = 0;
	for (const char *p = name; *p && k + 1 < sizeof s; p++)
		if (*p != '_' && *p != ' ')
			s[k++] = (char)tolower((unsigned char)*p);
	s[k] = '\0';
	if (strstr(s, "allreduce"))
		return CK_ALLREDUCE;
	if (strstr(s, "allgather"))
		return CK_ALLGATHER;
	if (strstr(s, "reducescatter"))
		return CK_REDUCESCATTER;
	if (strstr(s, "alltoall"))
		return CK_ALLTOALL;
	return CK_OTHER;
}

/* nccl-tests' bus bandwidth factor for N ranks. */
static double bus_factor(enum coll_kind k, int n)
{
	if (n <= 0)
		return 1;
	switch (k) {
	case CK_ALLREDUCE: return 2.0 * (n - 1) / n;
	case CK_ALLGATHER:
	case CK_REDUCESCATTER:
	case CK_ALLTOALL: return (double)(n - 1) / n;
	default: return 1;
	}
}

struct cs_row {
	int rank;
	char group[64], coll[48];
	int gsize;
	uint64_t calls, sized, matched, sized_matched;
	double bytes;
	int64_t time, sized_time;
	int64_t transfer, wait, sized_transfer; /* over the calls matched across ranks */
};

/* A kernel of a collective matched across ranks, with the collective's transfer time. */
struct matched {
	uint32_t track, idx;
	int64_t transfer;
};

static int matched_cmp(const void *a, const void *b)
{
	const struct matched *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Rank position R's kernels in collectives that two ranks or more share, by (track,
 * index), with the collective's transfer time (its shortest duration across ranks). */
static struct matched *matched_of(const struct rank_report *rr, int r, uint32_t *n)
{
	*n = 0;
	if (rr == NULL || r >= rr->nranks)
		return NULL;
	struct matched *m = xmalloc((rr->ncolls ? rr->ncolls : 1) * sizeof *m);
	for (uint32_t k = 0; k < rr->ncolls; k++) {
		const struct collective *c = &rr->colls[k];
		if (c->nranks_present >= 2 && c->transfer != INT64_MAX && c->transfer >= 0 &&
		    c->per[r].ref.track != TT_NONE)
			m[(*n)++] = (struct matched){ c->per[r].ref.track, c->per[r].ref.idx, c->transfer };
	}
	if (*n > 1)
		qsort(m, *n, sizeof *m, matched_cmp);
	return m;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cs_row *x = a, *y = b;
	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	int c = strcmp(x->group, y->group);
	return c != 0 ? c : strcmp(x->coll, y->coll);
}

/* The rows of trace T, rank position R, into *ROWS (allocated) and *N. */
static void rank_rows(const struct trace *t, int r, const struct rank_report *rr, struct cs_row **rows_out,
                      uint32_t *n_out)
{
	uint32_t nm;
	struct matched *m = matched_of(rr, r, &nm);
	struct cs_row *rows = NULL;
	uint32_t nrows = 0, cap = 0;
	struct args_reader reader;
	args_reader_init(&reader, t);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->gpu_slices == 0 || tr->comm_kernels == 0)
			continue; /* no communication kernel on it (src/index.c counts them) */
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (slice_cls(t, s) != SC_KERNEL || !kernel_class_trace_is_comm(t, slice_name(t, s)))
				continue;
			struct comm_args a;
			if (comm_args_read(&reader, slice_args(tr, s), &a) != 0)
				memset(&a, 0, sizeof a);
			if (a.collective[0] == '\0') /* no args: the kernel's name says the kind */
				ranks_collective_kind(strtab_get(&t->strings, slice_name(t, s)), true, a.collective,
				                      sizeof a.collective);
			uint32_t k = 0;
			while (k < nrows &&
			       !(strcmp(rows[k].group, a.group) == 0 && strcmp(rows[k].coll, a.collective) == 0))
				k++;
			if (k == nrows) {
				if (nrows == cap) {
					cap = cap ? cap * 2 : 16;
					rows = xreallocarray(rows, cap, sizeof *rows);
				}
				memset(&rows[nrows], 0, sizeof rows[nrows]);
				rows[nrows].rank = r;
				rows[nrows].gsize = -1;
				snprintf(rows[nrows].group, sizeof rows[nrows].group, "%s", a.group);
				snprintf(rows[nrows].coll, sizeof rows[nrows].coll, "%s", a.collective);
				nrows++;
			}
			struct cs_row *o = &rows[k];
			int64_t d = slice_dur(tr, s);
			o->calls++;
			o->time += d;
			struct matched key = { ti, i, 0 };
			const struct matched *hit = nm > 0 ? bsearch(&key, m, nm, sizeof *m, matched_cmp) : NULL;
			if (hit != NULL) {
				int64_t tx = hit->transfer < d ? hit->transfer : d;
				o->matched++;
				o->transfer += tx;
				o->wait += d - tx;
			}
			if (o->gsize < 0)
				o->gsize = a.group_size;
			if (a.sized) {
				/* nccl-tests: an all-gather's output buffer, the others' input */
				int64_t ne = kind_of(a.collective) == CK_ALLGATHER && a.out_nelems >= 0 ? a.out_nelems
				                                                                        : a.in_nelems;
				o->bytes += (double)ne * a.elem_bytes;
				o->sized++;
				o->sized_time += d;
				if (hit != NULL) {
					o->sized_matched++;
					o->sized_transfer += hit->transfer < d ? hit->transfer : d;
				}
			}
		}
	}
	args_reader_end(&reader);
	free(m);
	*rows_out = rows;
	*n_out = nrows;
}

/* The ranks' rows, found on several threads (parallel_for): reading every collective's
 * args is most of the cost (a read and a parse a call). */
struct rank_job {
	struct trace *const *ts;
	const struct rank_report *rr;
	struct cs_row **rows;
	uint32_t *nrows;
};

static void rank_job_run(void *arg, int r)
{
	struct rank_job *j = arg;
	rank_rows(j->ts[r], r, j->rr, &j->rows[r], &j->nrows[r]);
}

uint32_t comm_stats_fill(struct table *tb, struct column *cols, struct trace *const *ts, const int *ranks, int n,
                         const struct rank_report *rr)
{
	memcpy(cols, cs_cols, sizeof cs_cols);
	table_init(tb, cols, COMM_STATS_COLS);
	struct rank_job j = { .ts = ts, .rr = rr };
	j.rows = xcalloc((size_t)n + 1, sizeof *j.rows);
	j.nrows = xcalloc((size_t)n + 1, sizeof *j.nrows);
	parallel_for(n, rank_job_run, &j);
	struct cs_row *rows = NULL;
	uint32_t nrows = 0;
	for (int r = 0; r < n; r++) {
		rows = xreallocarray(rows, (size_t)nrows + j.nrows[r] + 1, sizeof *rows);
		if (j.nrows[r] > 0)
			memcpy(rows + nrows, j.rows[r], j.nrows[r] * sizeof *rows);
		nrows += j.nrows[r];
		free(j.rows[r]);
	}
	free(j.rows);
	free(j.nrows);
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, row_cmp);
	uint32_t unsized = 0;
	for (uint32_t k = 0; k < nrows; k++) {
		const struct cs_row *o = &rows[k];
		uint32_t row = table_add_row(tb, (uint64_t)o->rank << 32 | k); /* the rank position, for the panel */
		table_set_int(tb, row, CS_RANK, ranks != NULL && ranks[o->rank] >= 0 ? ranks[o->rank] : o->rank);
		if (o->group[0] != '\0')
			table_set_str(tb, row, CS_GROUP, o->group);
		table_set_str(tb, row, CS_COLL, o->coll);
		if (o->gsize >= 0)
			table_set_int(tb, row, CS_GSIZE, o->gsize);
		table_set_int(tb, row, CS_CALLS, (int64_t)o->calls);
		table_set_int(tb, row, CS_SIZED, (int64_t)o->sized);
		table_set_int(tb, row, CS_TIME, o->time);
		table_set_int(tb, row, CS_MEAN_TIME, o->calls ? o->time / (int64_t)o->calls : 0);
		if (o->matched > 0) {
			table_set_int(tb, row, CS_TRANSFER, o->transfer);
			table_set_int(tb, row, CS_WAIT, o->wait);
		}
		if (o->sized == 0) {
			unsized++;
			continue; /* sizes and bandwidths null */
		}
		table_set_int(tb, row, CS_BYTES, (int64_t)o->bytes);
		table_set_int(tb, row, CS_MEAN_BYTES, (int64_t)(o->bytes / (double)o->sized));
		/* over the transfer time when every sized call's collective is matched across
		 * ranks, else over the kernels' time (which holds any waiting for a late rank) */
		bool over_transfer = o->sized_matched == o->sized && o->sized_transfer > 0;
		int64_t over = over_transfer ? o->sized_transfer : o->sized_time;
		if (over > 0) {
			table_set_str(tb, row, CS_OVER, over_transfer ? "transfer" : "kernel");
			double algbw = o->bytes / (double)over; /* bytes per ns = GB/s */
			table_set_pct(tb, row, CS_ALGBW, algbw);
			table_set_pct(tb, row, CS_BUSBW, algbw * bus_factor(kind_of(o->coll), o->gsize));
		}
	}
	free(rows);
	return unsized;
}

void comm_stats_write(FILE *f, struct jsonw *w, struct trace *const *ts, const int *ranks, int n, int width,
                      const struct rank_report *rr)
{
	struct column cols[COMM_STATS_COLS];
	struct table tb;
	uint32_t unsized = comm_stats_fill(&tb, cols, ts, ranks, n, rr);
	if (w != NULL) {
		jsonw_key(w, "communication");
		table_write_json(w, &tb, NULL, 0, TABLE_ALL);
	} else if (tb.nrows == 0) {
		fputs("\n   communication operations: no NCCL/RCCL kernel in these traces\n", f);
	} else {
		fputs("\n   communication operations (per rank, process group and collective; sizes from the kernels'\n"
		      "   args; transfer: each call's collective's shortest kernel across ranks, waiting: the rest of\n"
		      "   its kernel; algbw = bytes / transfer time (kernel time where a call is on one rank only),\n"
		      "   busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and\n"
		      "   all-to-all, 1 otherwise, as nccl-tests; an all-gather counts its output, the others their\n"
		      "   input)\n",
		      f);
		table_write_text(f, &tb, NULL, 0, TABLE_ALL, width, "   ");
		if (unsized > 0)
			fprintf(f,
			        "   %u row%s without message sizes: the kernels' args carry no 'In msg nelems' and "
			        "'dtype' (newer PyTorch writes them)\n",
			        unsized, unsized == 1 ? "" : "s");
	}
	table_free(&tb);
}
