/* kernel_class.h: what a GPU activity is, from its name: its family (GEMM, convolution,
 * attention, elementwise, ...), the unit that does its arithmetic (matrix units or plain
 * SIMT lanes), and the precision its name states. One pure function over the name, the
 * kind of activity and whether its stream is known to carry communication.
 *
 * The rules are learned from the libraries that write the names (cuBLAS, cuDNN, CUTLASS,
 * FlashAttention, xformers, Triton, Tensile/hipBLASLt, MIOpen, Composable Kernel, DeepGEMM,
 * NCCL/RCCL, ...); kernel_class.c says which rule covers which library. Where a name does
 * not say, the answer is unknown (KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN), never a guess: an
 * unknown unit is no evidence for a finding. tests/kernel_names.tsv holds the names the
 * rules are checked against. */
#ifndef TT_KERNEL_CLASS_H
#define TT_KERNEL_CLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strtab.h"

/* What the activity computes. Copies and fills that kernels do (at::native copy kernels,
 * transposes, torch.cat) are elementwise; KC_COPY is the copy engines' work: the trace's
 * gpu_memcpy and gpu_memset activities. Helpers launched beside a GEMM or convolution
 * count as what they compute (split-K reductions are reductions, epilogues elementwise). */
enum kc_family {
	KC_OTHER,
	KC_GEMM,        /* GEMM, batched GEMM, GEMV */
	KC_CONV,        /* convolution, including its Winograd/FFT/im2col stages */
	KC_ATTENTION,   /* fused attention (flash, memory-efficient, paged, ...) */
	KC_ELEMENTWISE, /* pointwise, copy, cast, gather/scatter, layout transforms */
	KC_REDUCTION,   /* sums, means, pooling, losses, split-K reductions */
	KC_NORM,        /* batch, layer, group, RMS norm */
	KC_SOFTMAX,
	KC_COPY,      /* memcpy and memset activities */
	KC_COMM,      /* collectives and point-to-point, in NCCL/RCCL or outside */
	KC_EMBEDDING, /* embedding lookups and their sparse-feature preparation */
	KC_SORT,      /* sort, top-k, scan, compaction */
	KC_FAMILY__COUNT
};

/* Which unit does the arithmetic. KC_UNIT_NONE: no SM arithmetic (copy-engine work). */
enum kc_unit {
	KC_UNIT_UNKNOWN,
	KC_UNIT_MATRIX, /* HMMA/IMMA/DMMA, wgmma (GMMA), tcgen05 (UMMA); AMD MFMA/WMMA (xdlops) */
	KC_UNIT_SIMT,   /* FFMA and other per-lane instructions */
	KC_UNIT_NONE,
	KC_UNIT__COUNT
};

/* The element type of the math inputs as the name states it; KC_PREC_MIXED when the two
 * operands of a GEMM differ (FP8 x FP4, INT4 weights x FP16 activations). */
enum kc_prec {
	KC_PREC_UNKNOWN,
	KC_PREC_FP64,
	KC_PREC_FP32,
	KC_PREC_TF32,
	KC_PREC_BF16,
	KC_PREC_FP16,
	KC_PREC_FP8, /* e4m3, e5m2 */
	KC_PREC_FP4, /* e2m1 (NVFP4, MXFP4) */
	KC_PREC_INT8,
	KC_PREC_INT4,
	KC_PREC_MIXED,
	KC_PREC__COUNT
};

/* The trace category the activity came with. */
enum kc_activity { KC_ACT_KERNEL, KC_ACT_MEMCPY, KC_ACT_MEMSET };

struct kernel_class {
	enum kc_family family;
	enum kc_unit unit;
	enum kc_prec prec;
	const char *reason; /* which rule decided, in a few words: a static string, never NULL */
};

/* Classifies the activity NAME (NUL-terminated; NULL reads as "") of kind ACT into *KC.
 * COMM_STREAM: its stream is known to carry communication; it decides only for names no
 * rule knows. Pure: the same input gives the same answer; never fails. */
void kernel_class_of(const char *name, enum kc_activity act, bool comm_stream, struct kernel_class *kc);

/* Whether a kernel named NAME is communication by its name alone (kernel_class_of's
 * KC_COMM without a communication stream): NCCL, RCCL, MSCCL and the libraries outside them
 * (DeepEP, pplx, NVSHMEM, custom all-reduce, ...). */
bool kernel_class_is_comm_name(const char *name);

/* kernel_class_is_comm_name once per name of a string table: BY_ID[id] is 0 until asked,
 * then 1 (not communication) or 2 (communication). Zero-initialise; free with
 * kernel_comm_memo_free. */
struct kernel_comm_memo {
	uint8_t *by_id;
	uint32_t n;
};
/* Whether the kernel name ID of ST (its text strtab_get(ST, ID)) is communication. */
bool kernel_comm_memo_is(struct kernel_comm_memo *m, const struct strtab *st, uint32_t id);
void kernel_comm_memo_free(struct kernel_comm_memo *m);

struct trace;
/* Whether name ID of trace T is communication, kept in T (trace.comm_names) for every
 * later question: the analyses of many ranks ask it of each kernel several times
 * (collectives, unions, the straggler's sweep, the communication table). Safe to ask from
 * several threads at once. */
bool kernel_class_trace_is_comm(const struct trace *t, uint32_t id);

/* Whether F is GEMM, convolution or attention: the work matrix units exist for. */
bool kernel_class_is_matmul(enum kc_family f);

/* Short stable names ("gemm", "matrix", "bf16", ...) for reports and tests; "?" when out of
 * range. The *_parse functions map such a name back, -1 when it is none of them. */
const char *kernel_class_family_name(enum kc_family f);
const char *kernel_class_unit_name(enum kc_unit u);
const char *kernel_class_prec_name(enum kc_prec p);
int kernel_class_family_parse(const char *s);
int kernel_class_unit_parse(const char *s);
int kernel_class_prec_parse(const char *s);

#endif
