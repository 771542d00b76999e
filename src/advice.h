/* advice.h: findings: what a trace's figures mean, from the symptom to a first fix.
 *
 * Each rule reads figures that other analyses already computed (src/analysis.h: the gaps,
 * the steps and their breakdown, the GPU summary, the kernels, the memory curves, and for
 * several ranks the rank report), plus one sweep over the CPU threads and one over the GPU
 * streams for what only the advice needs (host synchronisations with their calling
 * operator, DataLoader and pageable-copy instances, the idle time between kernels that
 * waited for their launch). A rule fires when its figure crosses its threshold (the
 * TT_ADVICE_* constants below, each written in ttrace(1), FINDINGS); a rule that does not
 * fire gives no finding.
 *
 * Findings come worst first by their score: the estimated time the finding costs, as a
 * share of the steps' time (the TensorBoard plugin's steps with GPU work; the ProfilerStep#N
 * spans of a CPU-only trace). Rules about efficiency (Tensor Cores, occupancy) count a
 * share of the kernel time they concern (TT_ADVICE_*_GAIN); memory rules cost no time and
 * score a tenth of the share of memory they concern, so that they sort below time lost of
 * the same size.
 *
 * Nothing here holds text from the trace: names are slice references and string ids
 * (strings of the rank's own trace), so that the report layer escapes them. The texts
 * below (titles, causes, fixes, symptoms) are ttrace's own words and figures.
 *
 * One trace's rules are src/advice.c, their fixed text src/advice_rules.c, the findings
 * of several ranks src/advice_ranks.c. */
#ifndef TT_ADVICE_H
#define TT_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/data_limits.h"
#include "src/model.h"
#include "src/ranks.h"

/* Thresholds (ttrace(1), FINDINGS, says where each comes from). */
#define TT_ADVICE_GPU_UTIL_MIN 0.80          /* GPU utilization below: the guides' 80% */
#define TT_ADVICE_DATALOADER_MAX 0.05        /* DataLoader above 5% of the step: the TensorBoard plugin */
#define TT_ADVICE_SYNC_IDLE_MAX 0.01         /* GPU idle during host syncs above 1% of the step */
#define TT_ADVICE_PAGEABLE_MAX 0.01          /* pageable copies above 1% of the step */
#define TT_ADVICE_LAUNCH_IDLE_MAX 0.10       /* GPU idle waiting for launches above 10% of the step */
#define TT_ADVICE_TC_MATMUL_MAX 0.10         /* matmul/conv kernels off Tensor Cores above 10% of kernel time */
#define TT_ADVICE_OCCUPANCY_MIN 50.0         /* est. achieved occupancy below 50% */
#define TT_ADVICE_BLOCKS_PER_SM_MIN 1.0      /* or fewer blocks than SMs */
#define TT_ADVICE_TOP_KERNELS 10             /* occupancy: the longest kernels (by total time) looked at */
#define TT_ADVICE_KERNEL_SHARE_MIN 0.10      /* occupancy: flagged kernels at least 10% of kernel time */
#define TT_ADVICE_OCCUPANCY_STEP_MIN 0.01    /* ... and at least 1% of the step (a few us in a long step cannot pay) */
#define TT_ADVICE_COMM_EXPOSED_MAX 0.10      /* exposed communication above 10% of the step: the plugin's threshold */
#define TT_ADVICE_ALLREDUCE_EXPOSED_MAX 0.05 /* serialised AllReduce above 5% of the step */
#define TT_ADVICE_SERIAL_FRACTION 0.5        /* an AllReduce at least half not hidden by compute */
#define TT_ADVICE_OTHER_MAX 0.10             /* the plugin's Other above 10% of the step */
#define TT_ADVICE_FRAGMENTATION_MAX 0.25     /* reserved but unallocated above 25% of reserved */
#define TT_ADVICE_FRAGMENTATION_MIN_BYTES (256ll << 20) /* ... and at least 256 MiB */
#define TT_ADVICE_GROWTH_MIN 0.05                       /* allocated at step start growing by 5% of the first */
#define TT_ADVICE_GROWTH_MIN_BYTES (16ll << 20)         /* ... and at least 16 MiB */
#define TT_ADVICE_GROWTH_MIN_STEPS 3                    /* over at least 3 steps */
#define TT_ADVICE_CAPACITY_MAX 0.90                     /* peak reserved above 90% of the GPU's memory: the plugin */
#define TT_ADVICE_STRAGGLER_LAST_MIN RANKS_STRAGGLER_LAST_MIN /* one rank last at half the collectives or more */
#define TT_ADVICE_STRAGGLER_WAIT_MIN 0.01                     /* ... and the others wait 1% of the step or more */
#define TT_ADVICE_ALL_IDLE_MAX 0.10 /* every rank's GPU idle together above 10% of the window */

/* Score weights of the rules that do not lose time directly. */
#define TT_ADVICE_TC_GAIN 0.5 /* AMP/TF32 at least halves a matmul's time */
#define TT_ADVICE_OCCUPANCY_GAIN 0.25
#define TT_ADVICE_MEMORY_WEIGHT 0.1

/* Instances kept per finding (the longest); count says how many there were. */
#define TT_ADVICE_MAX_INSTANCES 20

enum advice_rule {
	ADV_LOW_GPU_UTILIZATION,
	ADV_DATALOADER_STALL,
	ADV_HOST_SYNC,
	ADV_PAGEABLE_MEMCPY,
	ADV_LAUNCH_BOUND,
	ADV_TENSOR_CORES_UNUSED,
	ADV_LOW_OCCUPANCY,
	ADV_EXPOSED_COMMUNICATION,
	ADV_ALLREDUCE_AFTER_BACKWARD,
	ADV_LARGE_OTHER_SHARE,
	ADV_MEMORY_FRAGMENTATION,
	ADV_MEMORY_GROWTH,
	ADV_MEMORY_NEAR_CAPACITY,
	ADV_STRAGGLER,
	ADV_ALL_RANKS_IDLE,
	ADV__COUNT
};

enum advice_confidence { ADV_LOW, ADV_MEDIUM, ADV_HIGH };

/* The unit of a rule's figure and threshold. */
enum advice_unit {
	AU_SHARE,   /* a fraction of 1 (shown as a percent) */
	AU_PERCENT, /* already a percent (occupancy) */
	AU_BYTES,
};

/* What a rule is: fixed text, the same for every trace. */
struct advice_rule_info {
	const char *key;        /* stable: "dataloader_stall" */
	const char *title;      /* "DataLoader stall" */
	const char *figure;     /* the figure's name: "DataLoader share of the step" */
	const char *definition; /* the figure's definition, one line */
	const char *instances;  /* what an instance is: "DataLoader __next__ calls, longest first" */
	const char *cause;      /* the likely cause */
	const char *fix;        /* the first fix, one sentence */
	const char *example;    /* a short code example of it */
	const char *wrong_if;   /* what would make the finding wrong */
	enum advice_unit unit;
	double threshold;
	bool above; /* fires above the threshold (else below) */
};

/* One instance of a finding: something to show in the timeline. */
struct advice_instance {
	int32_t rank;             /* rank position in the set (0 for one trace) */
	struct slice_ref ref;     /* the slice to select, or {TT_NONE, TT_NONE} */
	struct slice_ref op;      /* host sync: the calling operator (outermost cpu_op), or {TT_NONE} */
	struct slice_ref context; /* host sync: the innermost annotation or Python frame around it, or {TT_NONE} */
	int64_t start, end;       /* the time it covers, in its trace's time (ns) */
	int64_t value;            /* its weight: ns lost (or its duration), bytes for memory rules */
	int64_t bytes;            /* pageable copies: bytes copied, -1 when unknown */
};

/* A rank a finding holds for (several ranks). */
struct advice_rank {
	int32_t pos;  /* position in the set */
	int32_t rank; /* distributedInfo.rank, else the position */
	double figure, score;
	bool split; /* exposed communication: WAIT and TRANSFER hold its split (ns, see ranks.h) */
	int64_t wait, transfer;
};

struct advice_finding {
	enum advice_rule rule;
	double score;     /* estimated time lost as a share of the steps' time (see above) */
	double figure;    /* the rule's figure, in its unit */
	double threshold; /* the threshold it crossed */
	enum advice_confidence confidence;
	int32_t device;               /* the GPU it concerns, or -1 */
	int32_t rank;                 /* the rank position the figure is of (0 for one trace) */
	uint64_t count;               /* instances found (inst keeps the TT_ADVICE_MAX_INSTANCES worst) */
	int64_t total;                /* the instances' weight summed (ns, or bytes) */
	char symptom[256];            /* the figure against its threshold, in words (no trace text) */
	char cause[512];              /* the likely cause made specific to this trace (no trace text) */
	char confidence_why[256];     /* why this confidence (no trace text) */
	struct advice_instance *inst; /* worst first */
	uint32_t ninst;
	struct advice_rank *ranks; /* several ranks: the ranks it holds for, by position; else NULL */
	uint32_t nranks;
	/* several ranks (src/advice_ranks.c), all zero otherwise: the straggler's reason; the
	 * finding this one points to for its cause; the exposed communication's split for rank
	 * position RANK (ns); this finding's own fix and example (static text) where its cause
	 * calls for another than the rule's, else NULL */
	bool has_reason, has_see, split;
	enum straggler_reason reason;
	enum advice_rule see;
	int64_t wait, transfer;
	const char *fix, *example;
};

/* What the findings stand on that limits how sure they can be (advice_limits.c). */
#define ADVICE_MAX_LIMITS 8
struct advice_limit {
	enum data_limit_kind kind;  /* src/data_limits.h: its key is data_limit_key's */
	enum advice_confidence cap; /* the most confidence a finding it touches keeps */
	char text[224];             /* what it is, in words (no trace text) */
};

struct advice_report {
	struct advice_finding *findings; /* worst first */
	uint32_t n;
	struct advice_limit limits[ADVICE_MAX_LIMITS]; /* what the findings stand on, and its limits */
	uint32_t nlimits;
	int nranks;                       /* the traces they are over (1 for one trace) */
	int64_t window_start, window_end; /* one trace: the steps' span the scores are over */
	uint32_t steps;                   /* steps in it */
	bool has_gpu;
	/* one trace: the leading steps set aside as warm-up (src/advice.c, warmup_steps): each
	 * lasted over TT_ADVICE_WARMUP_RATIO times the median of the steps after it; the window
	 * above starts after them */
	uint32_t warmup_steps;
	int64_t warmup_first, warmup_last; /* their step numbers */
	int64_t warmup_ns;                 /* their time */
	int64_t steady_median_ns;          /* the median step after them */
};

/* A leading step is warm-up when it lasts over this many times the median of the steps
 * after it (with at least two of them): cuDNN autotuning, allocator growth, lazy
 * initialisation and compilation make the first steps of a job slow. */
#define TT_ADVICE_WARMUP_RATIO 1.5

/* The fixed text of rule R (never NULL for R < ADV__COUNT). */
const struct advice_rule_info *advice_rule_info(enum advice_rule r);
/* Whether the values of rule R's instances are bytes (else ns). */
bool advice_values_are_bytes(enum advice_rule r);
/* A figure or threshold V in unit U: "12.3%" (a share or a percent), "1.50 GB"; "-" for NaN. */
const char *advice_figure_text(enum advice_unit u, double v, char *buf, size_t n);
/* "high", "medium", "low". */
const char *advice_confidence_key(enum advice_confidence c);
/* Finds T's findings into R (free with advice_free), asking T's analysis cache for the
 * figures it reads (so T is not const). Never fails: a trace with nothing to say gives
 * none. */
void advice_analyse(struct trace *t, struct advice_report *r);
/* The findings of the N traces TS (one per rank, in this order) into R: each single-rank
 * finding once, with the ranks it holds for (its figure and score from the worst of
 * them, its instances the worst over them), then the rules of several ranks (straggler,
 * all ranks idle together) from RR, the ranks compared. PER[i] is advice_analyse of
 * TS[i]. Free with advice_free. */
void advice_merge_ranks(struct trace *const *ts, int n, const struct advice_report *const *per,
                        const struct rank_report *rr, struct advice_report *r);
void advice_free(struct advice_report *r);
/* The limits of one trace's data (a cut file, a legacy-exporter trace, a window of one
 * step) into R's limits, each finding's confidence lowered to their caps with the reason
 * appended to its confidence_why (advice_analyse calls it). */
void advice_limits_trace(const struct trace *t, struct advice_report *r);
/* The same over the N ranks TS compared by RR: cut files, legacy traces, ranks of the job
 * not loaded (world_size), an alignment residual over 100 us (advice_merge_ranks calls
 * it). */
void advice_limits_ranks(struct trace *const *ts, int n, const struct rank_report *rr, struct advice_report *r);

#endif
