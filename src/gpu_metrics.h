/* gpu_metrics.h: the TensorBoard plugin's "GPU Summary" figures per device: GPU
 * utilization, Est. SM efficiency, Est. achieved occupancy and the kernel time using
 * Tensor Cores, each with the plugin's definition (../shared/METRICS.md §2.1).
 *
 * All are taken over the plugin's window: from the start of its first device-adjusted
 * step to the end of its last (src/gaps.h, struct tb_step), T = end - start.
 * - utilization = |union of the device's kernels ∩ window| / T (memcpy and memset are not
 *   kernels; NCCL kernels are);
 * - SM efficiency = ∫ min(1, Σ blocks per SM of the kernels running at t) dt over the
 *   window / T (kernels without `blocks per SM`, or with 0, add nothing);
 * - occupancy = Σ occ_k · d_k / Σ d_k over the kernels, d_k the kernel's time inside the
 *   window, occ_k its `est. achieved occupancy %` (0 when the kernel lacks it, as the
 *   plugin reads it); overlapping kernels each count;
 * - Tensor Cores = Σ dur of kernels whose name is on the plugin's list or a newer Tensor
 *   Core kernel (src/kernels.h) / Σ dur of all kernels, raw sums over the whole trace (the
 *   plugin's Kernel view; its summary keeps only kernels attached to an operator); also
 *   by the plugin's list alone, which misses Ampere's sm80_xmma_*grad_implicit_gemm, the
 *   CUTLASS tensorop kernels and everything newer.
 * A kernel's device is its `device` arg, else its stream's. */
#ifndef TT_GPU_METRICS_H
#define TT_GPU_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"

struct gpu_metrics_device {
	int32_t device;
	uint64_t kernels;     /* kernel calls on the device (whole trace) */
	int64_t kernel_time;  /* Σ dur of them (whole trace) */
	int64_t kernel_busy;  /* |union of kernels ∩ window| */
	double utilization;   /* fractions of 1 */
	double sm_efficiency; /* NAN when no kernel carries `blocks per SM` */
	double occupancy;     /* percent; NAN when no kernel carries it */
	double tensor_cores;  /* fraction of kernel_time on matrix units (src/kernel_class.h);
	                       * NAN when no kernel time */
	int64_t tc_time;      /* Σ dur of kernels on matrix units */
	double unit_unknown;  /* fraction of kernel_time whose math unit the names do not say */
	int64_t unknown_time;
	double tensor_cores_plugin; /* the same by the plugin's list alone */
	int64_t tc_plugin_time;
	bool has_bps, has_occ;
};

struct gpu_metrics {
	int64_t start, end;                 /* the window */
	struct gpu_metrics_device *devices; /* by device number */
	uint32_t n;
};

/* Computes the figures of every device of T over [START, END) into M (free with
 * gpu_metrics_free). A trace without kernels gives no devices. */
void gpu_metrics_analyse(const struct trace *t, int64_t start, int64_t end, struct gpu_metrics *m);
void gpu_metrics_free(struct gpu_metrics *m);

/* The same two figures over time: the plugin's GPU utilization and Est. SM efficiency
 * timeline (tb_plugin gpu_metrics_parser.py, calculate_gpu_utilization and
 * calculate_approximated_sm_efficiency). Per device, two curves over the whole trace (no
 * window): the union of its kernels (height 1) and min(1, Σ blocks per SM of the kernels
 * running), each held as breakpoints and the integral up to each, so that the share of any
 * range [a, b) is one lookup: gpu_curve_integral(.., a, b) / (b - a). */
struct gpu_curve {
	int64_t *t;  /* breakpoints, increasing */
	double *cum; /* ∫ from t[0] to t[i]; linear in between */
	uint32_t n;
};

struct gpu_curves_device {
	int32_t device;
	bool has_bps; /* some kernel carries `blocks per SM` (else sm is empty: no figure) */
	struct gpu_curve busy, sm;
};

struct gpu_curves {
	struct gpu_curves_device *devices; /* by device number */
	uint32_t n;
};

void gpu_curves_analyse(const struct trace *t, struct gpu_curves *c);
void gpu_curves_free(struct gpu_curves *c);
/* DEVICE's curves in C, or NULL when it ran no kernel. */
const struct gpu_curves_device *gpu_curves_device(const struct gpu_curves *c, int32_t device);
/* ∫ of C over [A, B) (0 when B <= A). */
double gpu_curve_integral(const struct gpu_curve *c, int64_t a, int64_t b);
/* The plugin's bucket for a range of RANGE ns: the least 10^k us that cuts it into at most
 * 100 buckets (get_bucket_info). */
int64_t gpu_bucket_ns(int64_t range);
/* The bucket of X among the buckets of SIZE ns that cut [START, END) from START, in [*A,
 * *B): as the plugin cuts them, int((END - START) / SIZE) of them (at least one), the last
 * one running to END. False when X is outside [START, END). */
bool gpu_bucket_of(int64_t start, int64_t end, int64_t size, int64_t x, int64_t *a, int64_t *b);

#endif
