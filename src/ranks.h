/* ranks.h: several ranks of one job: clock alignment, collectives matched across ranks,
 * the per-rank distributed figures and the straggler verdict.
 *
 * Each trace is a rank. Times compare on one clock after adding each rank's offset:
 * aligned = base_ns + ts + offset. Alignment modes:
 *   raw         offset 0: absolute time (each file's baseTimeNanoseconds applied);
 *   step        the first ProfilerStep#N common to all ranks starts at the same time;
 *   collective  the same collective ends at the same time on every rank (it completes
 *               everywhere once the last rank has joined): offset = median over matched
 *               collectives of (reference end - own end); the residual spread is reported;
 *   manual      offsets given by the user.
 * Collectives are NCCL/RCCL kernels on GPU streams, else gloo:* CPU ops; they are
 * matched by kind (AllReduce, SendRecv, all_reduce, broadcast...) and order, so ranks
 * with missing or extra collectives are tolerated; the matching is O(n log n) per rank
 * (kinds numbered by sorting, the k-th of a kind found by binary search), since the
 * timeline redoes it whenever the alignment changes.
 * Times, offsets and sums saturate at the int64 range: an offset that does not fit (clocks
 * 292 years apart or more) is not applied, with a warning, as are clamped figures. */
#ifndef TT_RANKS_H
#define TT_RANKS_H

#include "src/model.h"

enum align_mode { ALIGN_RAW, ALIGN_STEP, ALIGN_COLLECTIVE, ALIGN_MANUAL };

struct coll_rank {
	struct slice_ref ref; /* the kernel or op on this rank, or {TT_NONE} when missing */
	int64_t start, end;   /* aligned */
	int64_t wait;         /* latest start over ranks - own start (TraceLens's wait) */
	int64_t overlap;      /* time of it overlapped by compute on this rank */
	/* its exposed part split: [own start, latest start) and [latest start, own end) not
	 * overlapped by compute on this rank (0 where exposed is not available) */
	int64_t exposed_wait, exposed_transfer;
};

struct collective {
	char kind[48];         /* "AllReduce", "SendRecv", "all_reduce", ... */
	uint32_t number;       /* its place in the list, from 0: the "#N" of every output */
	uint32_t kind_index;   /* the kind_index-th collective of this kind (how ranks match) */
	struct coll_rank *per; /* by rank position (as in the traces array) */
	int last;              /* rank position that arrived last */
	int64_t transfer;      /* shortest duration across ranks */
	int64_t skew;          /* latest start - earliest start */
	uint32_t nranks_present;
};

struct rank_stats {
	int rank;       /* distributedInfo.rank, else the position */
	int64_t offset; /* ns added to this rank's times */
	int64_t compute, comm, overlap, exposed, waiting;
	/* exposed split: of the comm not hidden by compute, the part inside a wait of the rank's
	 * (from its arrival at a collective to the last rank's) and the rest (transfer) */
	int64_t exposed_wait, exposed_transfer;
	bool exposed_na; /* overlap and exposed unknown (0 here): RANKS_EXPOSED_NA says why */
	uint32_t arrived_last;
	uint32_t collectives; /* collectives found on this rank */
	int64_t step_start;   /* aligned start of the first common step, or INT64_MIN */
};

/* Why the straggler is late (src/straggler.h): the candidates, in the order they are tried. */
enum straggler_reason {
	SR_DATALOADER, /* DataLoader __next__ with its GPU idle */
	SR_HOST_SYNC,  /* its GPU idle while its host is in a synchronising call */
	SR_SLOWER_GPU, /* the same kernels (name, grid, block) take longer on it */
	SR_COMPUTE,    /* its GPU (its CPU ops without kernels) busy longer, the rest */
	SR_UNKNOWN,    /* none of them explains half of its lateness */
	SR__COUNT
};

struct straggler_why {
	enum straggler_reason reason;
	uint32_t collectives;          /* the collectives it arrived last at (two ranks or more) */
	int64_t late;                  /* sum over them of its arrival - the other ranks' mean arrival */
	int64_t before;                /* of which: its segment's start - the others' mean segment start */
	int64_t explained[SR_UNKNOWN]; /* per candidate: its figure - the others' mean, summed (ns) */
	double gpu_ratio;              /* its matched kernels' time over the others' mean for them; 0: none */
	uint32_t matched;              /* its kernels matched with the others' (name, grid, block) */
	bool shapes;                   /* the matched kernels had launch shapes (grid, block) */
	bool cpu;                      /* no rank has kernels: compute is CPU ops */
	char text[512];                /* the reason in a sentence (no trace text) */
};

/* A straggler arrives last at half the collectives two ranks or more have, or more: the rank
 * that is last most often but less than that is not one (where a different rank is late at
 * each step, naming one sends the user after a rank that is no slower than the rest). The
 * advice's straggler rule (src/advice_ranks.c) asks the same. */
#define RANKS_STRAGGLER_LAST_MIN 0.5

struct rank_report {
	enum align_mode mode;
	int nranks;
	struct trace *const *traces;
	struct rank_stats *ranks;
	struct collective *colls;
	uint32_t ncolls;
	int64_t residual;       /* collective mode: largest |end difference| after alignment */
	int last_most;          /* rank position that arrived last most often (ties: the one that waited
	                         * least, then the first), or -1 when no collective is on two ranks */
	int straggler;          /* LAST_MOST when it arrived last at RANKS_STRAGGLER_LAST_MIN of those
	                         * collectives or more, else -1: the late rank moves from one to another */
	bool comm_from_kernels; /* NCCL/RCCL kernels (else gloo CPU ops) */
	char warnings[512];
	struct straggler_why why; /* when straggler >= 0 */
};

/* Why a rank's overlap and exposed communication are not available: its collectives run
 * on CPU threads (gloo), where exposed is the time no operator runs on the rank's CPU
 * threads (its main thread waits), and its trace, from the legacy exporter, has no
 * categories to tell operators from annotations (`backward` spans the wait). */
#define RANKS_EXPOSED_NA                                                                           \
	"collectives on CPU threads in a legacy-format trace, which does not tell operators from " \
	"annotations: the time the main thread waits for them is unknown"

/* Aligns and compares the N traces (one per rank) into R (free with ranks_free).
 * MANUAL_OFFSETS (N values, or NULL) are used in manual mode. */
void ranks_analyse(struct trace *const *traces, int n, enum align_mode mode, const int64_t *manual_offsets,
                   struct rank_report *r);
void ranks_free(struct rank_report *r);
/* The exposed communication of rank position POS of R inside [W0, W1) of its own file time,
 * split as the rank's exposed_wait and exposed_transfer are (*WAIT and *TRANSFER, ns); with
 * HIDE false, compute is not subtracted (the collectives' union, as the findings count
 * exposed communication without a GPU). */
void ranks_exposed_split(const struct rank_report *r, int pos, int64_t w0, int64_t w1, bool hide, int64_t *wait,
                         int64_t *transfer);
/* How many of R's collectives two ranks or more have: the only ones with a last arrival. */
uint32_t ranks_shared_collectives(const struct rank_report *r);
/* How many of R's ranks arrived last at one of them or more (where there is no straggler:
 * between how many the late arrival moves). */
int ranks_last_arrivers(const struct rank_report *r);

/* The key of a straggler reason: "dataloader_stall", "host_sync", "slower_gpu",
 * "longer_compute", "unknown". */
const char *straggler_reason_key(enum straggler_reason r);
/* "raw", "step", "collective", "manual"; returns -1 for an unknown name. */
const char *align_mode_name(enum align_mode m);
/* The kind of collective NAME is, into OUT (N bytes), a KERNEL's or a CPU op's:
 * "ncclKernel_AllReduce_RING_LL_Sum_float(...)" -> "AllReduce"; "gloo:all_reduce" ->
 * "all_reduce"; a communication kernel outside NCCL, its function's name: "void
 * (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(...)" ->
 * "multimem_all_reduce_kernel". */
void ranks_collective_kind(const char *name, bool kernel, char *out, size_t n);
int align_mode_parse(const char *s);

#endif
