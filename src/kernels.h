/* kernels.h: the Kernels view's figures: every kernel name of a trace with its calls and
 * times, its launch shape, the Kineto-derived occupancy figures, whether it uses Tensor
 * Cores, the operator that launched most of its calls, and its longest instance.
 *
 * Kernels are slices of class SC_KERNEL (src/model.h). Means are the plugin's (weighted by
 * duration; see kernel_mean_bps). The operator is the CPU slice
 * directly above the runtime call that launched the kernel (linked by correlation id),
 * counted per name; kernels whose launch is not in the trace count under none. Launcher
 * frames in between (Triton's and inductor's, a CUDA graph's replay) are skipped to the
 * compiled region or operator above them (src/compiled.h); a kernel a graph replayed also
 * names the graph launch call. */
#ifndef TT_KERNELS_H
#define TT_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/kernel_class.h"
#include "src/model.h"

/* How calls make rows: by kernel name; by name and launch shape (grid, block, registers
 * per thread, shared memory); or by name, launching operator and launch shape, as the
 * plugin's second kernel table does. */
enum kernel_group { KG_NAME, KG_SHAPE, KG_OP, KG__COUNT };

struct kernel_row {
	uint32_t name;
	uint64_t calls;
	int64_t total, min, max;
	double bps_sum, occ_sum;   /* Σ figure × duration over the calls that carry it */
	uint64_t bps_n, occ_n;     /* how many calls carry it */
	double occ_known_sum;      /* Σ occupancy × duration over the calls whose figure is real */
	int64_t occ_known_dur;     /* Σ duration of those calls */
	int32_t grid[3], block[3]; /* of the first call (0 when absent) */
	int32_t regs, smem;        /* registers per thread, shared memory bytes: first call's, -1 absent */
	bool grid_varies, block_varies, regs_varies, smem_varies;
	struct kernel_class cls; /* its family, math unit and precision (src/kernel_class.h) */
	uint32_t op;             /* the operator that launched most calls, TT_NONE when none */
	uint64_t op_calls;       /* how many of the calls it launched */
	uint32_t via; /* the graph launch (cudaGraphLaunch...) that replayed its first replayed call, or TT_NONE */
	uint64_t via_calls;       /* how many of its calls a graph launch replayed */
	struct slice_ref longest; /* the longest call */
};

struct kernel_report {
	enum kernel_group group;
	struct kernel_row *rows; /* by total time, longest first */
	uint32_t n;
	int64_t total;          /* every kernel's time (sum, not union) */
	int64_t tc_total;       /* of which in kernels on matrix units (Tensor Cores, AMD matrix cores) */
	int64_t matmul_unknown; /* in GEMM, convolution and attention kernels whose unit is unknown */
};

/* Fills R from T's kernels grouped by GROUP (free with kernels_free). */
void kernels_analyse(const struct trace *t, enum kernel_group group, struct kernel_report *r);
/* The summary's part of kernels_analyse(T, KG_NAME, R), without its cost (the launching
 * operator of every call): each row's name, calls, total, min, max and longest, and R's
 * total; the other figures 0 (op TT_NONE, regs and smem -1, tc_total 0). Rows by total
 * time, largest first, ties by the name's text (kernels_analyse: by string id). */
void kernels_times(const struct trace *t, struct kernel_report *r);
/* The mean blocks per SM and est. achieved occupancy % of row K as the plugin's kernel
 * table gives them: weighted by duration, a call that lacks the figure counting as 0;
 * NAN when no call carries it (or all calls last 0). */
double kernel_mean_bps(const struct kernel_row *k);
double kernel_mean_occupancy(const struct kernel_row *k);
/* ttrace's own mean est. achieved occupancy of row K, for findings: weighted by duration
 * over the calls whose figure is real (a 0 beside 1 or more blocks per SM is Kineto's "could
 * not compute", left out); NAN when no call has one. */
double kernel_known_occupancy(const struct kernel_row *k);
void kernels_free(struct kernel_report *r);
/* Fills OUT with IN's rows (of T) merged where folding template arguments and parameters
 * (kernel_short_name) makes them the same row: the same short name, and for IN's group the
 * same launch shape (KG_SHAPE) and operator (KG_OP). A merged row sums calls, times and
 * the occupancy sums, takes the widest min/max and the longest call, says "varies" for a
 * shape its members differ in, keeps the class its members share (unknown where they
 * differ), and names the operator (or graph launch) that launched the most calls of a
 * member, with the calls of the members it was first for. Its name is its largest
 * member's, so that kernel_short_name of it is the row's. Rows by total time as
 * kernels_analyse sorts them; OUT's totals are IN's. When OF is not NULL it gets an array
 * (free it) of IN->n: the row of OUT each row of IN went to. */
void kernels_fold_names(const struct trace *t, const struct kernel_report *in, struct kernel_report *out,
                        uint32_t **of);
/* Whether the name is on the TensorBoard plugin's Tensor Core allowlist (h884, s1688, hmma,
 * i8816, xmma_gemm, ...; ../shared/METRICS.md): its "Tensor Cores" figures, mistakes
 * included (the list takes FFMA xmma_gemm kernels). ttrace's own figures use the math unit
 * of src/kernel_class.h. */
bool kernel_on_plugin_tc_list(const char *name);
/* Writes into BUF (N bytes, N > 0) NAME with its template arguments and parameter list
 * folded to "<…>" and "(…)", a leading "void " dropped and "(anonymous namespace)" as
 * "(anonymous)": "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)"
 * becomes "at::native::vectorized_elementwise_kernel<…>(…)". Returns BUF. */
char *kernel_short_name(const char *name, char *buf, size_t n);

#endif
