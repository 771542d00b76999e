/* kernels.h: the Kernels view's figures: every kernel name of a trace with its calls and
 * times, its launch shape, the Kineto-derived occupancy figures, whether it uses Tensor
 * Cores, the operator that launched most of its calls, and its longest instance.
 *
 * Kernels are slices of class SC_KERNEL (src/model.h). Means are over the calls that carry
 * the figure (a trace without `blocks per SM` gives none). The operator is the CPU slice
 * directly above the runtime call that launched the kernel (linked by correlation id),
 * counted per name; kernels whose launch is not in the trace count under none. */
#ifndef TT_KERNELS_H
#define TT_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"

struct kernel_row {
	uint32_t name;
	uint64_t calls;
	int64_t total, min, max;
	double bps_sum, occ_sum;      /* sums over the calls that carry them */
	uint64_t bps_n, occ_n;
	int32_t grid[3], block[3];    /* of the first call */
	bool grid_varies, block_varies;
	bool tensor_cores;            /* kernel_uses_tensor_cores(name) */
	bool matmul_like;             /* a GEMM or convolution by its name */
	uint32_t op;                  /* the operator that launched most calls, TT_NONE when none */
	uint64_t op_calls;            /* how many of the calls it launched */
	struct slice_ref longest;     /* the longest call */
};

struct kernel_report {
	struct kernel_row *rows;      /* by total time, longest first */
	uint32_t n;
	int64_t total;                /* every kernel's time (sum, not union) */
	int64_t tc_total;             /* of which in kernels using Tensor Cores */
};

/* Fills R from T's kernels (free with kernels_free). */
void kernels_analyse(const struct trace *t, struct kernel_report *r);
void kernels_free(struct kernel_report *r);
/* Whether a kernel of this name runs on Tensor Cores: the TensorBoard plugin's allowlist
 * (h884, s1688, hmma, i8816, xmma_gemm, ...; ../shared/METRICS.md) and the names that
 * list predates: Hopper and Blackwell wgmma/gmma, sm80_/sm90_/sm100_ CUTLASS and cuBLASLt
 * tensor-op kernels (tensorop, cutlass3x, nvjet), flash and fused multi-head attention
 * (flash_fwd, flash_bwd, fmha). */
bool kernel_uses_tensor_cores(const char *name);
/* Whether the name is on the plugin's list alone (its "Tensor Cores" figures). */
bool kernel_on_plugin_tc_list(const char *name);
/* Whether the name says GEMM or convolution (gemm, conv, matmul, dot): work that Tensor
 * Cores could take. */
bool kernel_is_matmul_like(const char *name);

#endif
