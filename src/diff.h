/* diff.h: what changed from one run to another (ttrace diff A B): the figures the analyses
 * of each side give (the step time and its breakdown, the phases, the GPU figures, the memory
 * peaks, exposed communication; operators and kernels by name, kernels by family; the
 * findings), side by side, per step, each change judged against the run-to-run spread of
 * the steps.
 *
 * A side is one trace or the ranks of one job: a figure of a side is the mean of its
 * traces' figures, a spread the largest of theirs. Per step means: a trace's figure over
 * its step count (the plugin's kept steps). Nothing here aggregates what the analyses do
 * not give already; the per-step split of operators and kernels serves the spread alone.
 *
 * The spread of a figure is the larger of the two sides' min-max of it over their steps.
 * A change no larger than the spread is noise; figures without per-step values (SM
 * efficiency, occupancy, memory peaks...) are judged by the step time's relative spread;
 * with fewer than 3 steps on a side there is no spread to judge by. */
#ifndef TT_DIFF_H
#define TT_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strtab.h"
#include "src/analysis.h"
#include "src/kernel_class.h"
#include "src/model.h"

/* The fewest steps a side needs for its spread to mean anything. */
#define TT_DIFF_MIN_STEPS 3

enum diff_unit { DU_NS, DU_RATIO, DU_PERCENT, DU_BYTES, DU_COUNT };

enum diff_verdict {
	DV_CHANGE,    /* beyond the spread */
	DV_NOISE,     /* within the spread: not a gain, not a loss */
	DV_NO_SPREAD, /* a side has fewer than TT_DIFF_MIN_STEPS steps */
	DV_ONE_SIDE,  /* only one side has the figure (appeared, vanished) */
	DV_SAME,      /* no change at all */
};

struct diff_figure {
	const char *key, *title; /* static text */
	enum diff_unit unit;
	double v[2];   /* A's and B's; NAN where that side has no such figure */
	double spread; /* what a change is judged against (in the figure's unit); NAN when none */
	enum diff_verdict verdict;
};

/* An operator or a kernel, matched by name across the sides. */
struct diff_row {
	uint32_t name;   /* id in diff_report.names */
	double calls[2]; /* per step; NAN where the side has none */
	double time[2];  /* operators: self device time per step; kernels: time per step */
	double total[2]; /* operators: device total per step; kernels: as time */
	double host[2];  /* operators: CPU total per step; kernels: NAN */
	double spread;   /* the larger side's min-max of TIME over its steps; NAN when unknown */
	enum diff_verdict verdict;
	enum kc_family family; /* kernels */
};

struct diff_family {
	double time[2], calls[2]; /* per step */
};

/* Step I of A beside step I of B (one trace a side, as many steps on each). */
struct diff_step_pair {
	int64_t number[2]; /* their ProfilerStep numbers */
	int64_t dur[2];    /* their durations (the plugin's steps) */
	int64_t kernel[2]; /* kernel time in them (the breakdown's Kernel) */
};

struct diff_finding {
	const char *key, *title; /* static text (src/advice.h) */
	double score[2];         /* NAN where the side does not have it */
	int confidence[2];       /* enum advice_confidence, -1 where absent */
};

#define DIFF_MAX_NOTES 16
struct diff_report {
	char notes[DIFF_MAX_NOTES][256]; /* what makes the sides hard to compare (may hold trace text) */
	uint32_t nnotes;
	uint32_t steps[2];      /* the steps of each side (its first trace's) */
	bool by_steps;          /* diff_steps: A and B are two steps of one trace */
	int64_t step_number[2]; /* then their ProfilerStep numbers (-1 when the trace has under 3 steps) */
	int ntraces[2];
	struct diff_figure *figs;
	uint32_t nfigs;
	struct diff_row *ops, *kernels; /* by the largest absolute change of time per step */
	uint32_t nops, nkernels;
	struct diff_family families[KC_FAMILY__COUNT];
	struct diff_step_pair *pairs; /* step by step, when each side is one trace with as many steps; else NULL */
	uint32_t npairs;
	struct diff_finding *findings; /* every rule either side has, A's order then B's */
	uint32_t nfindings;
	struct strtab names; /* operator and kernel names, as the traces have them */
};

/* How operators and kernels are matched across the sides: by name; by name and shape
 * (operators: their input shapes, where recorded; kernels: grid, block, registers, shared
 * memory); kernels also by the operator that launched them (src/compiled.h). */
enum diff_match { DM_NAME, DM_SHAPE, DM_OPERATOR };

/* Compares side A (NA traces) with side B (NB traces) into R (free with diff_free). The
 * traces' analyses are asked through their caches (so they are not const); ALIGN is the
 * alignment (enum align_mode) the findings of several ranks use; MATCH how rows are
 * matched (operators by shape need KEYS_FN, parsers/op_args.h's, and have no per-step
 * split: no spread). Never fails. */
void diff_analyse(struct trace *const *a, int na, struct trace *const *b, int nb, int align, enum diff_match match,
                  op_keys_fn keys_fn, struct diff_report *r);
/* Computes into T's cache every analysis diff_analyse reads of it, so that a trace loaded
 * early has them made while the others still load (struct load_options' loaded). Touches
 * nothing but T; never fails. */
void diff_prepare(struct trace *t);
/* Compares two steps of T into R (free with diff_free): B the slowest step, A the median
 * one by duration; a figure or row is judged against the min-max of the other steps (the
 * slowest left out). Operators have no per-step calls (NAN); findings are not compared.
 * With fewer than TT_DIFF_MIN_STEPS steps R holds only a note saying so. Never fails. */
void diff_steps(struct trace *t, struct diff_report *r);
void diff_free(struct diff_report *r);
/* Adds a note (printf-like; may hold trace text, escaped where it is written) to R; the
 * first DIFF_MAX_NOTES are kept. */
void diff_note(struct diff_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "change", "noise", "no_spread", "one_side", "same". */
const char *diff_verdict_key(enum diff_verdict v);

#endif
