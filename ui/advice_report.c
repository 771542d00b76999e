/* advice_report.c: the findings report (see advice_report.h). The findings and their
 * texts come from src/advice.h; this file lays them out and escapes every name taken from
 * a trace. */
#include "config.h"
#include "ui/reports.h"
#include "ui/advice_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/analysis.h"
#include "src/data_limits.h"
#include "lib/escape.h"
#include "ui/jsonw.h"
#include "ui/names.h"
#include "ui/report.h"
#include "ui/table.h"

/* Instances listed per finding in text (JSON lists every one kept). */
#define TEXT_INSTANCES 5
/* Width of a name in an instance line (longer names are cut, with "..."). */
#define NAME_COLS 60
#define INDENT "                  "

/* The traces findings are over: one, or the ranks of one job with their rank numbers. */
struct set {
	struct trace *const *ts;
	int n;
	const int *rank;                 /* by position */
	const struct rank_report *ranks; /* several ranks: how they compare, else NULL */
	const struct advice_report *all; /* the findings (for the number of one pointed to) */
};

/* The number (from 1, as listed) of the finding of rule RULE in S's findings, 0 if none. */
static uint32_t finding_number(const struct set *S, enum advice_rule rule)
{
	for (uint32_t i = 0; S->all != NULL && i < S->all->n; i++)
		if (S->all->findings[i].rule == rule)
			return i + 1;
	return 0;
}

static const char *unit_key(enum advice_unit u)
{
	return u == AU_SHARE ? "share" : u == AU_PERCENT ? "percent" : "bytes";
}

static void label(FILE *f, const char *name, const char *text)
{
	fprintf(f, "      %-11s ", name);
	report_wrap_text(f, text, strlen(INDENT), INDENT);
}

/* The name of slice REF of T, escaped and cut to NAME_COLS, into BUF. */
static const char *ref_name_text(const struct trace *t, struct slice_ref ref, char *buf, size_t n)
{
	if (ref.track == TT_NONE || ref.track >= t->ntracks || ref.idx >= t->tracks[ref.track].nslices) {
		snprintf(buf, n, "-");
		return buf;
	}
	uint32_t id = slice_name(t, &t->tracks[ref.track].slices[ref.idx]);
	char cut[4 * NAME_COLS + 8];
	escape_term_buf(trace_str(t, id), strtab_len(&t->strings, id), cut, NAME_COLS + 1);
	snprintf(buf, n, "%s%s", cut,
	         strlen(cut) < strtab_len(&t->strings, id) && strlen(cut) >= NAME_COLS ? "..." : "");
	return buf;
}

/* What an instance's value is, said before it. */
static const char *value_word(enum advice_rule r)
{
	switch (r) {
	case ADV_LOW_GPU_UTILIZATION: return "idle";
	case ADV_DATALOADER_STALL: return "stalled";
	case ADV_HOST_SYNC: return "GPU idle";
	case ADV_PAGEABLE_MEMCPY: return "copying";
	case ADV_LAUNCH_BOUND: return "waited";
	case ADV_TENSOR_CORES_UNUSED:
	case ADV_LOW_OCCUPANCY: return "in all";
	case ADV_EXPOSED_COMMUNICATION:
	case ADV_ALLREDUCE_AFTER_BACKWARD: return "exposed";
	case ADV_LARGE_OTHER_SHARE: return "Other";
	case ADV_MEMORY_FRAGMENTATION: return "unused";
	case ADV_MEMORY_GROWTH: return "allocated";
	case ADV_MEMORY_NEAR_CAPACITY: return "reserved";
	case ADV_STRAGGLER: return "skew";
	case ADV_ALL_RANKS_IDLE: return "all idle";
	case ADV__COUNT: break;
	}
	return "";
}

static void instance_text(FILE *f, const struct set *S, const struct advice_finding *fd,
                          const struct advice_instance *x)
{
	const struct trace *t = S->ts[x->rank];
	char v[48], at[48], nm[4 * NAME_COLS + 16], tl[400];
	if (advice_values_are_bytes(fd->rule))
		timefmt_bytes((double)x->value, v, sizeof v);
	else
		timefmt_dur(x->value, v, sizeof v);
	fprintf(f, "%s  %9s %-9s %s", INDENT, v, value_word(fd->rule),
	        timefmt_offset(x->start - t->start, at, sizeof at));
	if (S->n > 1)
		fprintf(f, " rank %d", S->rank[x->rank]);
	struct slice_ref where = x->ref.track != TT_NONE ? x->ref : x->context;
	if (x->ref.track != TT_NONE) {
		const struct slice *s = &t->tracks[x->ref.track].slices[x->ref.idx];
		bool kernel_rule = fd->rule == ADV_TENSOR_CORES_UNUSED || fd->rule == ADV_LOW_OCCUPANCY;
		fprintf(f, "%s %s",
		        fd->rule == ADV_LOW_GPU_UTILIZATION || fd->rule == ADV_LAUNCH_BOUND ? " before"
		        : kernel_rule                                                       ? " (longest call)"
		                                                                            : "",
		        ref_name_text(t, x->ref, nm, sizeof nm));
		char par[96] = "";
		int64_t d = slice_dur(&t->tracks[x->ref.track], s);
		if (!kernel_rule && d != x->value)
			timefmt_dur(d, par, sizeof par);
		if (x->bytes >= 0) {
			size_t l = strlen(par);
			snprintf(par + l, sizeof par - l, "%s%s", l ? ", " : "",
			         timefmt_bytes((double)x->bytes, v, sizeof v));
		}
		if (par[0] != '\0')
			fprintf(f, " (%s)", par);
		if (x->op.track != TT_NONE && !(x->op.track == x->ref.track && x->op.idx == x->ref.idx))
			fprintf(f, ", called from %s", ref_name_text(t, x->op, nm, sizeof nm));
	} else if (x->end > x->start) {
		fprintf(f, " for %s", timefmt_dur(x->end - x->start, v, sizeof v));
	}
	if (x->context.track != TT_NONE)
		fprintf(f, ", %s %s", fd->rule == ADV_LOW_GPU_UTILIZATION ? "host in" : "in",
		        ref_name_text(t, x->context, nm, sizeof nm));
	if (where.track != TT_NONE && where.track < t->ntracks) {
		track_label(t, &t->tracks[where.track], tl, sizeof tl);
		fprintf(f, ", on %s", tl);
	}
	fputc('\n', f);
}

/* A finding's ranks with their figures, every one of them when there are few (TEXT_RANKS or
 * fewer); of more, a line that hundreds of ranks would not fill: how far their figures
 * range and the TEXT_RANKS_WORST worst by score (--json lists every rank). */
#define TEXT_RANKS 16
#define TEXT_RANKS_WORST 5
static int rank_by_score(const void *a, const void *b)
{
	const struct advice_rank *x = *(const struct advice_rank *const *)a, *y = *(const struct advice_rank *const *)b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void ranks_line(char *buf, size_t n, const struct set *S, const struct advice_finding *fd,
                       const struct advice_rule_info *ri)
{
	char a[48], b[48];
	size_t l = (size_t)snprintf(buf, n, "%u of %d ranks:", fd->nranks, S->n);
	if (fd->nranks <= TEXT_RANKS) {
		for (uint32_t i = 0; i < fd->nranks && l < n; i++)
			l += (size_t)snprintf(buf + l, n - l, "%s rank %d %s", i ? "," : "", fd->ranks[i].rank,
			                      advice_figure_text(ri->unit, fd->ranks[i].figure, a, sizeof a));
		return;
	}
	const struct advice_rank **v = xmalloc(fd->nranks * sizeof *v);
	uint32_t lo = 0, hi = 0;
	for (uint32_t i = 0; i < fd->nranks; i++) {
		v[i] = &fd->ranks[i];
		if (fd->ranks[i].figure < fd->ranks[lo].figure)
			lo = i;
		if (fd->ranks[i].figure > fd->ranks[hi].figure)
			hi = i;
	}
	qsort(v, fd->nranks, sizeof *v, rank_by_score);
	advice_figure_text(ri->unit, fd->ranks[lo].figure, a, sizeof a);
	advice_figure_text(ri->unit, fd->ranks[hi].figure, b, sizeof b);
	if (strcmp(a, b) == 0)
		l += (size_t)snprintf(buf + l, n - l, " every one at %s; the worst:", a);
	else
		l += (size_t)snprintf(buf + l, n - l, " from %s (rank %d) to %s (rank %d); the worst:", a,
		                      fd->ranks[lo].rank, b, fd->ranks[hi].rank);
	for (uint32_t i = 0; i < TEXT_RANKS_WORST && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s rank %d %s", i ? "," : "", v[i]->rank,
		                      advice_figure_text(ri->unit, v[i]->figure, a, sizeof a));
	if (l < n)
		snprintf(buf + l, n - l, " (--json lists every rank)");
	free(v);
}

/* "from A (rank RA) to B (rank RB)", or "A on every one" when they read the same, into BUF. */
static const char *dur_range(int64_t a, int ra, int64_t b, int rb, char *buf, size_t n)
{
	char x[48], y[48];
	timefmt_dur(a, x, sizeof x);
	timefmt_dur(b, y, sizeof y);
	if (strcmp(x, y) == 0)
		snprintf(buf, n, "%s on every one", x);
	else
		snprintf(buf, n, "from %s (rank %d) to %s (rank %d)", x, ra, y, rb);
	return buf;
}

/* Exposed communication's split, rank by rank when few have one; of more, the range of each
 * part and the worst rank's split. */
static void split_line(char *buf, size_t n, const struct advice_finding *fd)
{
	char w[48], t[48];
	uint32_t m = 0;
	const struct advice_rank *lw = NULL, *hw = NULL, *lt = NULL, *ht = NULL, *worst = NULL;
	for (uint32_t i = 0; i < fd->nranks; i++) {
		const struct advice_rank *x = &fd->ranks[i];
		if (!x->split)
			continue;
		m++;
		if (lw == NULL || x->wait < lw->wait)
			lw = x;
		if (hw == NULL || x->wait > hw->wait)
			hw = x;
		if (lt == NULL || x->transfer < lt->transfer)
			lt = x;
		if (ht == NULL || x->transfer > ht->transfer)
			ht = x;
		if (x->pos == fd->rank)
			worst = x;
	}
	size_t l = 0;
	buf[0] = '\0';
	if (m <= TEXT_RANKS) {
		for (uint32_t i = 0; i < fd->nranks && l < n; i++) {
			if (!fd->ranks[i].split)
				continue;
			l += (size_t)snprintf(
				buf + l, n - l, "%srank %d %s waiting for a late rank, %s transfer not hidden",
				l ? "; " : "", fd->ranks[i].rank, timefmt_dur(fd->ranks[i].wait, w, sizeof w),
				timefmt_dur(fd->ranks[i].transfer, t, sizeof t));
		}
		return;
	}
	char rw[192], rt[192];
	l = (size_t)snprintf(buf, n, "over %u ranks: waiting for a late rank %s, transfer not hidden %s", m,
	                     dur_range(lw->wait, lw->rank, hw->wait, hw->rank, rw, sizeof rw),
	                     dur_range(lt->transfer, lt->rank, ht->transfer, ht->rank, rt, sizeof rt));
	if (worst != NULL && l < n)
		l += (size_t)snprintf(buf + l, n - l, "; rank %d (the worst) %s waiting, %s transfer", worst->rank,
		                      timefmt_dur(worst->wait, w, sizeof w), timefmt_dur(worst->transfer, t, sizeof t));
	if (l < n)
		snprintf(buf + l, n - l, " (--json lists every rank)");
}

static void finding_text(FILE *f, const struct set *S, const struct advice_finding *fd, uint32_t no)
{
	const struct advice_rule_info *ri = advice_rule_info(fd->rule);
	char buf[1024];
	fprintf(f, "   %u. %s [%s]: score %.1f%%, confidence %s\n", no, ri->title, ri->key, 100.0 * fd->score,
	        advice_confidence_key(fd->confidence));
	if (S->n > 1 && fd->nranks > 0) {
		ranks_line(buf, sizeof buf, S, fd, ri);
		label(f, "ranks:", buf);
		if (fd->rule == ADV_STRAGGLER || fd->rule == ADV_ALL_RANKS_IDLE) /* says its ranks itself */
			snprintf(buf, sizeof buf, "%s", fd->symptom);
		else
			snprintf(buf, sizeof buf, "rank %d%s: %s", S->rank[fd->rank],
			         fd->nranks > 1 ? " (the worst)" : "", fd->symptom);
		label(f, "symptom:", buf);
	} else {
		label(f, "symptom:", fd->symptom);
	}
	snprintf(buf, sizeof buf, "%s: %s", ri->figure, ri->definition);
	label(f, "evidence:", buf);
	if (fd->count > 0) {
		snprintf(buf, sizeof buf, "%" PRIu64 " instance%s (%s)%s", fd->count, fd->count == 1 ? "" : "s",
		         ri->instances, fd->ninst > TEXT_INSTANCES || fd->count > fd->ninst ? ", the worst:" : ":");
		fputs(INDENT, f);
		report_wrap_text(f, buf, strlen(INDENT), INDENT);
		for (uint32_t i = 0; i < fd->ninst && i < TEXT_INSTANCES; i++)
			instance_text(f, S, fd, &fd->inst[i]);
		if (fd->count > TEXT_INSTANCES)
			fprintf(f, "%s... and %" PRIu64 " more (--json lists the %u worst)\n", INDENT,
			        fd->count - (fd->ninst < TEXT_INSTANCES ? fd->ninst : TEXT_INSTANCES), fd->ninst);
	}
	label(f, "cause:", fd->cause);
	if (fd->has_reason) {
		snprintf(buf, sizeof buf, "%s", straggler_reason_key(fd->reason));
		label(f, "reason:", buf);
	}
	if (fd->split) {
		split_line(buf, sizeof buf, fd);
		label(f, "split:", buf);
	}
	if (fd->has_see) {
		uint32_t seen = finding_number(S, fd->see);
		snprintf(buf, sizeof buf, "finding %u [%s]%s", seen, advice_rule_info(fd->see)->key,
		         fd->rule == ADV_STRAGGLER ? ", the late rank's own finding of that cause"
		                                   : ", which says which rank is late and why");
		label(f, "see:", buf);
	}
	label(f, "fix:", fd->fix != NULL ? fd->fix : ri->fix);
	fprintf(f, "%se.g. %s\n", INDENT, fd->example != NULL ? fd->example : ri->example);
	snprintf(buf, sizeof buf, "%s: %s; wrong if %s", advice_confidence_key(fd->confidence), fd->confidence_why,
	         ri->wrong_if);
	label(f, "confidence:", buf);
	fputc('\n', f);
}

static void findings_text(FILE *f, const struct set *S, const struct advice_report *r)
{
	if (r->n == 0) {
		fputs("   no findings: no rule crossed its threshold (ttrace(1), FINDINGS, lists the rules)\n\n", f);
		return;
	}
	char head[200];
	/* several findings may count the same time (host syncs are idle time too): said, so
	 * that nobody adds their scores up */
	snprintf(head, sizeof head,
	         "%u finding%s, worst first (score: the estimated share of step time each costs%s; see ttrace(1), "
	         "FINDINGS)",
	         r->n, r->n == 1 ? "" : "s", r->n == 1 ? "" : "; scores overlap: they order, they do not add up");
	fputs("   ", f);
	report_wrap_text(f, head, 3, "   ");
	fputc('\n', f);
	for (uint32_t i = 0; i < r->n; i++)
		finding_text(f, S, &r->findings[i], i + 1);
}

static void ref_json(struct jsonw *w, const char *key, const struct trace *t, struct slice_ref ref)
{
	jsonw_key(w, key);
	if (ref.track == TT_NONE || ref.track >= t->ntracks || ref.idx >= t->tracks[ref.track].nslices) {
		jsonw_null(w);
		return;
	}
	uint32_t id = slice_name(t, &t->tracks[ref.track].slices[ref.idx]);
	jsonw_strn(w, trace_str(t, id), strtab_len(&t->strings, id));
}

static void finding_json(struct jsonw *w, const struct set *S, const struct advice_finding *fd)
{
	const struct advice_rule_info *ri = advice_rule_info(fd->rule);
	jsonw_object(w);
	jsonw_key(w, "key");
	jsonw_str(w, ri->key);
	jsonw_key(w, "title");
	jsonw_str(w, ri->title);
	jsonw_key(w, "score");
	jsonw_double(w, fd->score);
	jsonw_key(w, "figure_name");
	jsonw_str(w, ri->figure);
	jsonw_key(w, "definition");
	jsonw_str(w, ri->definition);
	jsonw_key(w, "unit");
	jsonw_str(w, unit_key(ri->unit));
	jsonw_key(w, "figure");
	if (ri->unit == AU_BYTES) /* whole bytes, not 6 digits */
		jsonw_int(w, tt_from_double(fd->figure));
	else
		jsonw_double(w, fd->figure);
	jsonw_key(w, "threshold");
	if (ri->unit == AU_BYTES)
		jsonw_int(w, tt_from_double(fd->threshold));
	else
		jsonw_double(w, fd->threshold);
	jsonw_key(w, "fires");
	jsonw_str(w, ri->above ? "above" : "below");
	jsonw_key(w, "symptom");
	jsonw_str(w, fd->symptom);
	jsonw_key(w, "cause");
	jsonw_str(w, fd->cause);
	if (fd->has_reason && S->ranks != NULL) {
		jsonw_key(w, "reason");
		straggler_why_json(w, &S->ranks->why);
	}
	if (fd->split) {
		jsonw_key(w, "wait_ns");
		jsonw_int(w, fd->wait);
		jsonw_key(w, "transfer_ns");
		jsonw_int(w, fd->transfer);
	}
	if (fd->has_reason || fd->split) {
		jsonw_key(w, "see_finding");
		if (fd->has_see)
			jsonw_str(w, advice_rule_info(fd->see)->key);
		else
			jsonw_null(w);
	}
	jsonw_key(w, "fix");
	jsonw_str(w, fd->fix != NULL ? fd->fix : ri->fix);
	jsonw_key(w, "example");
	jsonw_str(w, fd->example != NULL ? fd->example : ri->example);
	jsonw_key(w, "confidence");
	jsonw_str(w, advice_confidence_key(fd->confidence));
	jsonw_key(w, "confidence_why");
	jsonw_str(w, fd->confidence_why);
	jsonw_key(w, "wrong_if");
	jsonw_str(w, ri->wrong_if);
	jsonw_key(w, "device");
	if (fd->device >= 0)
		jsonw_int(w, fd->device);
	else
		jsonw_null(w);
	if (S->n > 1) {
		jsonw_key(w, "rank");
		jsonw_int(w, S->rank[fd->rank]);
		jsonw_key(w, "ranks");
		jsonw_array(w);
		for (uint32_t i = 0; i < fd->nranks; i++) {
			jsonw_object(w);
			jsonw_key(w, "rank");
			jsonw_int(w, fd->ranks[i].rank);
			jsonw_key(w, "figure");
			jsonw_double(w, fd->ranks[i].figure);
			jsonw_key(w, "score");
			jsonw_double(w, fd->ranks[i].score);
			if (fd->ranks[i].split) {
				jsonw_key(w, "wait_ns");
				jsonw_int(w, fd->ranks[i].wait);
				jsonw_key(w, "transfer_ns");
				jsonw_int(w, fd->ranks[i].transfer);
			}
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
	}
	jsonw_key(w, "count");
	jsonw_uint(w, fd->count);
	jsonw_key(w, "value_unit");
	jsonw_str(w, advice_values_are_bytes(fd->rule) ? "bytes" : "ns");
	jsonw_key(w, "total");
	jsonw_int(w, fd->total);
	jsonw_key(w, "instances");
	jsonw_array(w);
	for (uint32_t i = 0; i < fd->ninst; i++) {
		const struct advice_instance *x = &fd->inst[i];
		const struct trace *t = S->ts[x->rank];
		jsonw_object(w);
		if (S->n > 1) {
			jsonw_key(w, "rank");
			jsonw_int(w, S->rank[x->rank]);
		}
		jsonw_key(w, "start_ns");
		jsonw_int(w, x->start);
		jsonw_key(w, "end_ns");
		jsonw_int(w, x->end);
		jsonw_key(w, "value");
		jsonw_int(w, x->value);
		if (x->bytes >= 0) {
			jsonw_key(w, "bytes");
			jsonw_int(w, x->bytes);
		}
		ref_json(w, "name", t, x->ref);
		jsonw_key(w, "track");
		if (x->ref.track != TT_NONE && x->ref.track < t->ntracks) {
			char tl[400];
			track_label(t, &t->tracks[x->ref.track], tl, sizeof tl);
			jsonw_str(w, tl);
		} else {
			jsonw_null(w);
		}
		ref_json(w, "op", t, x->op);
		ref_json(w, "context", t, x->context);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

/* What the findings stand on that limits them (src/advice.h), as "limits": [...] or as
 * text lines. */
static void limits_json(struct jsonw *w, const struct advice_report *r)
{
	jsonw_key(w, "limits");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->nlimits; i++) {
		jsonw_object(w);
		jsonw_key(w, "key");
		jsonw_str(w, data_limit_key(r->limits[i].kind));
		jsonw_key(w, "confidence_at_most");
		jsonw_str(w, advice_confidence_key(r->limits[i].cap));
		jsonw_key(w, "text");
		jsonw_str(w, r->limits[i].text);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void limits_text(FILE *f, const struct advice_report *r)
{
	for (uint32_t i = 0; i < r->nlimits; i++)
		fprintf(f, "   limit: %s (confidence at most %s)\n", r->limits[i].text,
		        advice_confidence_key(r->limits[i].cap));
}

/* --csv: the limits and findings as tables (ui/table.h) that the capture writes, with the
 * JSON's keys and units; a finding's instances and, over several ranks, its ranks are tables
 * of their own (PATH.instances, PATH.ranks, by parent_row). A straggler's "reason", an
 * object of its own, is not in them: --json has it. */
static const struct column rank_cols[] = {
	{ "rank", "rank", COL_INT, 0, 0 },
	{ "path", "path", COL_TEXT, 1, 0 },
	{ "warmup_steps", "warm-up steps", COL_COUNT, 0, 0 },
};
static const struct column limit_cols[] = {
	{ "key", "key", COL_TEXT, 0, 0 },
	{ "confidence_at_most", "confidence at most", COL_TEXT, 0, 0 },
	{ "text", "text", COL_TEXT, 1, 0 },
};
enum {
	FC_KEY,
	FC_TITLE,
	FC_SCORE,
	FC_FIGURE_NAME,
	FC_DEFINITION,
	FC_UNIT,
	FC_FIGURE,
	FC_THRESHOLD,
	FC_FIRES,
	FC_SYMPTOM,
	FC_CAUSE,
	FC_R_KEY, /* a straggler's reason (straggler_why_json's keys) */
	FC_R_TEXT,
	FC_R_COLLECTIVES,
	FC_R_LATE,
	FC_R_BEFORE,
	FC_R_EXPLAINED, /* four: by straggler_reason, in straggler_why_json's order */
	FC_R_MATCHED = FC_R_EXPLAINED + 4,
	FC_R_RATIO,
	FC_WAIT,
	FC_TRANSFER,
	FC_SEE,
	FC_FIX,
	FC_EXAMPLE,
	FC_CONFIDENCE,
	FC_CONFIDENCE_WHY,
	FC_WRONG_IF,
	FC_DEVICE,
	FC_RANK,
	FC_RANKS,
	FC_COUNT,
	FC_VALUE_UNIT,
	FC_TOTAL,
	FC_INSTANCES,
	FC_N
};
static const struct column finding_cols[FC_N] = {
	{ "key", "key", COL_TEXT, 0, 0 },
	{ "title", "title", COL_TEXT, 0, 0 },
	{ "score", "score", COL_REAL, 0, 0 },
	{ "figure_name", "figure", COL_TEXT, 0, 0 },
	{ "definition", "definition", COL_TEXT, 0, 0 },
	{ "unit", "unit", COL_TEXT, 0, 0 },
	{ "figure", "figure", COL_REAL, 0, 0 },
	{ "threshold", "threshold", COL_REAL, 0, 0 },
	{ "fires", "fires", COL_TEXT, 0, 0 },
	{ "symptom", "symptom", COL_TEXT, 0, 0 },
	{ "cause", "cause", COL_TEXT, 0, 0 },
	{ "reason.key", "reason", COL_TEXT, 0, 0 },
	{ "reason.text", "reason text", COL_TEXT, 0, 0 },
	{ "reason.collectives", "collectives", COL_COUNT, 0, 0 },
	{ "reason.late_ns", "late", COL_INT, 0, 0 },
	{ "reason.late_before_segment_ns", "late before", COL_INT, 0, 0 },
	{ "reason.explained_ns.dataloader_stall", "dataloader", COL_INT, 0, 0 },
	{ "reason.explained_ns.host_sync", "host sync", COL_INT, 0, 0 },
	{ "reason.explained_ns.slower_gpu", "slower GPU", COL_INT, 0, 0 },
	{ "reason.explained_ns.longer_compute", "longer compute", COL_INT, 0, 0 },
	{ "reason.kernels_matched", "kernels matched", COL_COUNT, 0, 0 },
	{ "reason.kernel_time_ratio", "kernel time ratio", COL_REAL, 0, 0 },
	{ "wait_ns", "wait", COL_INT, 0, 0 },
	{ "transfer_ns", "transfer", COL_INT, 0, 0 },
	{ "see_finding", "see", COL_TEXT, 0, 0 },
	{ "fix", "fix", COL_TEXT, 0, 0 },
	{ "example", "example", COL_TEXT, 0, 0 },
	{ "confidence", "confidence", COL_TEXT, 0, 0 },
	{ "confidence_why", "why", COL_TEXT, 0, 0 },
	{ "wrong_if", "wrong if", COL_TEXT, 0, 0 },
	{ "device", "device", COL_INT, 0, 0 },
	{ "rank", "rank", COL_INT, 0, 0 },
	{ "ranks", "ranks", COL_ROWS, 0, 0 },
	{ "count", "count", COL_COUNT, 0, 0 },
	{ "value_unit", "value unit", COL_TEXT, 0, 0 },
	{ "total", "total", COL_INT, 0, 0 },
	{ "instances", "instances", COL_ROWS, 0, 0 },
};
enum { FR_RANK, FR_FIGURE, FR_SCORE, FR_WAIT, FR_TRANSFER, FR_N };
static const struct column finding_rank_cols[FR_N] = {
	{ "rank", "rank", COL_INT, 0, 0 },
	{ "figure", "figure", COL_REAL, 0, 0 },
	{ "score", "score", COL_REAL, 0, 0 },
	{ "wait_ns", "wait", COL_INT, 0, 0 },
	{ "transfer_ns", "transfer", COL_INT, 0, 0 },
};
enum { FI_RANK, FI_START, FI_END, FI_VALUE, FI_BYTES, FI_NAME, FI_TRACK, FI_OP, FI_CONTEXT, FI_N };
static const struct column instance_cols[FI_N] = {
	{ "rank", "rank", COL_INT, 0, 0 },        { "start_ns", "start", COL_INT, 0, 0 },
	{ "end_ns", "end", COL_INT, 0, 0 },       { "value", "value", COL_INT, 0, 0 },
	{ "bytes", "bytes", COL_INT, 0, 0 },      { "name", "name", COL_TEXT, 1, 0 },
	{ "track", "track", COL_TEXT, 0, 0 },     { "op", "op", COL_TEXT, 1, 0 },
	{ "context", "context", COL_TEXT, 1, 0 },
};

/* A cell of column COL that reads as ref_json writes REF: the slice's name, or null. */
static void ref_cell(struct table *tb, uint32_t row, int col, const struct trace *t, struct slice_ref ref)
{
	if (ref.track == TT_NONE || ref.track >= t->ntracks || ref.idx >= t->tracks[ref.track].nslices)
		return;
	uint32_t id = slice_name(t, &t->tracks[ref.track].slices[ref.idx]);
	table_set_text(tb, row, col, trace_str(t, id), strtab_len(&t->strings, id));
}

/* A figure or threshold as finding_json writes it: whole bytes, else a real number. */
static void figure_cell(struct table *tb, uint32_t row, int col, const struct advice_rule_info *ri, double v)
{
	if (ri->unit == AU_BYTES) {
		char b[32];
		snprintf(b, sizeof b, "%lld", (long long)tt_from_double(v));
		table_set_str(tb, row, col, b);
	} else {
		table_set_pct(tb, row, col, v);
	}
}

static void findings_tables(struct jsonw *w, const struct set *S, const struct advice_report *r)
{
	struct table lim, fin, rk, ins;
	table_init(&lim, limit_cols, (int)(sizeof limit_cols / sizeof *limit_cols));
	for (uint32_t i = 0; i < r->nlimits; i++) {
		uint32_t row = table_add_row(&lim, i);
		table_set_str(&lim, row, 0, data_limit_key(r->limits[i].kind));
		table_set_str(&lim, row, 1, advice_confidence_key(r->limits[i].cap));
		table_set_str(&lim, row, 2, r->limits[i].text);
	}
	jsonw_key(w, "limits");
	table_write_json(w, &lim, NULL, 0, TABLE_ALL);

	table_init(&fin, finding_cols, FC_N);
	table_init(&rk, finding_rank_cols, FR_N);
	/* one rank: the instances have no rank column, as in the JSON */
	const int io = S->n > 1 ? 0 : 1;
	table_init(&ins, instance_cols + io, FI_N - io);
	table_set_child(&fin, FC_RANKS, &rk);
	table_set_child(&fin, FC_INSTANCES, &ins);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct advice_finding *fd = &r->findings[i];
		const struct advice_rule_info *ri = advice_rule_info(fd->rule);
		uint32_t row = table_add_row(&fin, i);
		table_set_str(&fin, row, FC_KEY, ri->key);
		table_set_str(&fin, row, FC_TITLE, ri->title);
		table_set_pct(&fin, row, FC_SCORE, fd->score);
		table_set_str(&fin, row, FC_FIGURE_NAME, ri->figure);
		table_set_str(&fin, row, FC_DEFINITION, ri->definition);
		table_set_str(&fin, row, FC_UNIT, unit_key(ri->unit));
		figure_cell(&fin, row, FC_FIGURE, ri, fd->figure);
		figure_cell(&fin, row, FC_THRESHOLD, ri, fd->threshold);
		table_set_str(&fin, row, FC_FIRES, ri->above ? "above" : "below");
		table_set_str(&fin, row, FC_SYMPTOM, fd->symptom);
		table_set_str(&fin, row, FC_CAUSE, fd->cause);
		if (fd->has_reason && S->ranks != NULL) {
			static const enum straggler_reason order[] = { SR_DATALOADER, SR_HOST_SYNC, SR_SLOWER_GPU,
				                                       SR_COMPUTE };
			const struct straggler_why *y = &S->ranks->why;
			table_set_str(&fin, row, FC_R_KEY, straggler_reason_key(y->reason));
			table_set_str(&fin, row, FC_R_TEXT, y->text);
			table_set_int(&fin, row, FC_R_COLLECTIVES, (int64_t)y->collectives);
			table_set_int(&fin, row, FC_R_LATE, y->late);
			table_set_int(&fin, row, FC_R_BEFORE, y->before);
			for (int k = 0; k < 4; k++)
				table_set_int(&fin, row, FC_R_EXPLAINED + k, y->explained[order[k]]);
			table_set_int(&fin, row, FC_R_MATCHED, (int64_t)y->matched);
			if (y->matched > 0)
				table_set_pct(&fin, row, FC_R_RATIO, y->gpu_ratio);
		}
		if (fd->split) {
			table_set_int(&fin, row, FC_WAIT, fd->wait);
			table_set_int(&fin, row, FC_TRANSFER, fd->transfer);
		}
		if ((fd->has_reason || fd->split) && fd->has_see)
			table_set_str(&fin, row, FC_SEE, advice_rule_info(fd->see)->key);
		table_set_str(&fin, row, FC_FIX, fd->fix != NULL ? fd->fix : ri->fix);
		table_set_str(&fin, row, FC_EXAMPLE, fd->example != NULL ? fd->example : ri->example);
		table_set_str(&fin, row, FC_CONFIDENCE, advice_confidence_key(fd->confidence));
		table_set_str(&fin, row, FC_CONFIDENCE_WHY, fd->confidence_why);
		table_set_str(&fin, row, FC_WRONG_IF, ri->wrong_if);
		if (fd->device >= 0)
			table_set_int(&fin, row, FC_DEVICE, fd->device);
		if (S->n > 1) {
			table_set_int(&fin, row, FC_RANK, S->rank[fd->rank]);
			uint32_t first = rk.nrows;
			for (uint32_t k = 0; k < fd->nranks; k++) {
				uint32_t q = table_add_row(&rk, k);
				table_set_int(&rk, q, FR_RANK, fd->ranks[k].rank);
				table_set_pct(&rk, q, FR_FIGURE, fd->ranks[k].figure);
				table_set_pct(&rk, q, FR_SCORE, fd->ranks[k].score);
				if (fd->ranks[k].split) {
					table_set_int(&rk, q, FR_WAIT, fd->ranks[k].wait);
					table_set_int(&rk, q, FR_TRANSFER, fd->ranks[k].transfer);
				}
			}
			table_set_rows(&fin, row, FC_RANKS, first, fd->nranks);
		}
		table_set_int(&fin, row, FC_COUNT, (int64_t)fd->count);
		table_set_str(&fin, row, FC_VALUE_UNIT, advice_values_are_bytes(fd->rule) ? "bytes" : "ns");
		table_set_int(&fin, row, FC_TOTAL, fd->total);
		uint32_t first = ins.nrows;
		for (uint32_t k = 0; k < fd->ninst; k++) {
			const struct advice_instance *x = &fd->inst[k];
			const struct trace *t = S->ts[x->rank];
			uint32_t q = table_add_row(&ins, k);
			if (S->n > 1)
				table_set_int(&ins, q, FI_RANK, S->rank[x->rank]);
			table_set_int(&ins, q, FI_START - io, x->start);
			table_set_int(&ins, q, FI_END - io, x->end);
			table_set_int(&ins, q, FI_VALUE - io, x->value);
			if (x->bytes >= 0)
				table_set_int(&ins, q, FI_BYTES - io, x->bytes);
			ref_cell(&ins, q, FI_NAME - io, t, x->ref);
			if (x->ref.track != TT_NONE && x->ref.track < t->ntracks) {
				char tl[400];
				track_label(t, &t->tracks[x->ref.track], tl, sizeof tl);
				table_set_str(&ins, q, FI_TRACK - io, tl);
			}
			ref_cell(&ins, q, FI_OP - io, t, x->op);
			ref_cell(&ins, q, FI_CONTEXT - io, t, x->context);
		}
		table_set_rows(&fin, row, FC_INSTANCES, first, fd->ninst);
	}
	/* one rank: no rank columns, as in the JSON */
	uint64_t cols = TABLE_ALL;
	if (S->n <= 1)
		cols &= ~((1ull << FC_RANK) | (1ull << FC_RANKS));
	jsonw_key(w, "findings");
	table_write_json(w, &fin, NULL, 0, cols);
	table_free(&ins);
	table_free(&rk);
	table_free(&fin);
	table_free(&lim);
}

static void findings_json(struct jsonw *w, const struct set *S, const struct advice_report *r)
{
	jsonw_key(w, "findings");
	jsonw_array(w);
	for (uint32_t i = 0; i < r->n; i++)
		finding_json(w, S, &r->findings[i]);
	jsonw_end_array(w);
}

/* The warm-up steps R set aside, as a line after PREFIX; nothing when none. */
static void warmup_text(FILE *f, const struct advice_report *r, const char *prefix)
{
	if (r->warmup_steps == 0)
		return;
	char b[48], d[48], nums[64];
	if (r->warmup_steps > 1)
		snprintf(nums, sizeof nums, "steps #%lld-#%lld", (long long)r->warmup_first, (long long)r->warmup_last);
	else
		snprintf(nums, sizeof nums, "step #%lld", (long long)r->warmup_first);
	const char *it = r->warmup_steps > 1 ? "them" : "it";
	fprintf(f,
	        "%sset aside: %s as warm-up (%s; the median step after %s: %s): the findings are over the steps after %s\n",
	        prefix, nums, timefmt_dur(r->warmup_ns, b, sizeof b), it, timefmt_dur(r->steady_median_ns, d, sizeof d),
	        it);
}

static void advice_one(FILE *f, struct jsonw *w, struct trace *t, void *arg)
{
	(void)arg;
	const struct advice_report *r = trace_advice(t);
	const int zero = 0;
	const struct set one = { &t, 1, &zero, NULL, r };
	char a[48];
	if (w != NULL) {
		jsonw_key(w, "window");
		jsonw_object(w);
		jsonw_key(w, "start_ns");
		jsonw_int(w, r->window_start);
		jsonw_key(w, "end_ns");
		jsonw_int(w, r->window_end);
		jsonw_key(w, "steps");
		jsonw_uint(w, r->steps);
		jsonw_key(w, "warmup_steps"); /* set aside before the window */
		jsonw_uint(w, r->warmup_steps);
		jsonw_key(w, "warmup_ns");
		jsonw_int(w, r->warmup_ns);
		jsonw_key(w, "steady_median_ns");
		jsonw_int(w, r->steady_median_ns);
		jsonw_end_object(w);
		jsonw_key(w, "has_gpu");
		jsonw_bool(w, r->has_gpu);
		if (w->csv != NULL) {
			findings_tables(w, &one, r);
			return;
		}
		limits_json(w, r);
		findings_json(w, &one, r);
		return;
	}
	fprintf(f, "   window: %u step%s, %s (%s)\n", r->steps, r->steps == 1 ? "" : "s",
	        timefmt_dur(r->window_end - r->window_start, a, sizeof a),
	        r->has_gpu ? "the TensorBoard plugin's steps, stretched to the GPU work they launched"
	                   : "no GPU work: the ProfilerStep#N spans, else the whole trace");
	warmup_text(f, r, "   ");
	limits_text(f, r);
	findings_text(f, &one, r);
}

void report_advice(FILE *f, struct trace *const *traces, int n, bool json, int align)
{
	struct trace **ok = xcalloc((size_t)n + 1, sizeof *ok);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (traces[i]->status != LOAD_FAILED)
			ok[m++] = traces[i];
	if (m <= 1) {
		report_files(f, traces, n, json, advice_one, NULL);
		free(ok);
		return;
	}
	/* several ranks: their findings once each, with the ranks they hold for */
	const struct rank_report *rr = traces_ranks(ok, m, (enum align_mode)align);
	const struct advice_report *r = traces_advice(ok, m, (enum align_mode)align);
	int *rank = xmalloc((size_t)m * sizeof *rank);
	for (int i = 0; i < m; i++)
		rank[i] = rr->ranks[i].rank;
	const struct set S = { ok, m, rank, rr, r };
	if (json) {
		struct jsonw w;
		jsonw_init(&w, f);
		jsonw_object(&w);
		jsonw_key(&w, "ttrace_version");
		jsonw_str(&w, PACKAGE_VERSION);
		jsonw_key(&w, "alignment");
		jsonw_str(&w, align_mode_name(rr->mode));
		jsonw_key(&w, "ranks");
		if (w.csv != NULL) {
			struct table rt;
			table_init(&rt, rank_cols, (int)(sizeof rank_cols / sizeof *rank_cols));
			for (int i = 0; i < m; i++) {
				uint32_t row = table_add_row(&rt, (uint64_t)i);
				table_set_int(&rt, row, 0, rr->ranks[i].rank);
				table_set_str(&rt, row, 1, ok[i]->path);
				table_set_int(&rt, row, 2, trace_advice(ok[i])->warmup_steps);
			}
			table_write_json(&w, &rt, NULL, 0, TABLE_ALL);
			table_free(&rt);
		} else {
			jsonw_array(&w);
			for (int i = 0; i < m; i++) {
				jsonw_object(&w);
				jsonw_key(&w, "rank");
				jsonw_int(&w, rr->ranks[i].rank);
				jsonw_key(&w, "path");
				jsonw_str(&w, ok[i]->path);
				jsonw_key(&w, "warmup_steps"); /* set aside from its findings */
				jsonw_uint(&w, trace_advice(ok[i])->warmup_steps);
				jsonw_end_object(&w);
			}
			jsonw_end_array(&w);
		}
		if (w.csv != NULL) {
			findings_tables(&w, &S, r);
		} else {
			limits_json(&w, r);
			findings_json(&w, &S, r);
		}
		jsonw_end_object(&w);
		jsonw_finish(&w);
	} else {
		fprintf(f, "== %d ranks, alignment: %s\n", m, align_mode_name(rr->mode));
		for (int i = 0; i < m; i++) {
			fprintf(f, "   rank %d: ", rr->ranks[i].rank);
			escape_term(f, trace_name(ok[i]), strlen(trace_name(ok[i])));
			fputc('\n', f);
			warmup_text(f, trace_advice(ok[i]), "      ");
		}
		limits_text(f, r);
		findings_text(f, &S, r);
	}
	free(rank);
	free(ok);
}

static int write_advice(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	report_advice(f, ts, n, o->json, o->align);
	return 0;
}

/* --report=advice (ui/reports.h) */
const struct report_kind report_advice_kind = {
	.name = "advice",
	.json = true,
	.csv = true,
	.write = write_advice,
	.help = "      --report=advice    findings, worst first: each symptom with its figure and threshold,\n"
		"                         the evidence, the likely cause, a first fix and how sure it is;\n"
		"                         per file, or over the ranks when several files are given\n",
};
