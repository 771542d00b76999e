/* kernel_class.c: the kernel taxonomy (see kernel_class.h): rules over the names that the
 * GPU libraries write, tried in order, the first that knows the name deciding.
 *
 * The order, and why:
 *  1. the trace category: gpu_memcpy and gpu_memset are copy-engine work;
 *  2. communication (NCCL/RCCL/MSCCL, DeepEP, pplx, NVSHMEM, vLLM/SGLang custom all-reduce,
 *     symmetric-memory all-reduce, userbuffers): before anything else, since fused
 *     all-reduce kernels also say "norm" or "gemm";
 *  3. Triton kernels that Inductor names (triton_poi_/red_/per_/tem_): their names list the
 *     fused aten ops ("addmm", "layer_norm"), which must not make a pointwise kernel a GEMM;
 *  4. the libraries whose names say the math unit: FlashAttention, xformers and PyTorch's
 *     memory-efficient attention, FlashInfer, TensorRT-LLM, cuBLAS and cuDNN (arch-prefixed
 *     names, xmma, nvjet, gemv), CUTLASS 2 and 3, DeepGEMM, Tensile/hipBLASLt, MIOpen,
 *     Composable Kernel, Marlin, SageAttention;
 *  5. the libraries without matrix units (ATen, cub, cuDNN helpers, FBGEMM), then generic
 *     words in the name (attention, conv, gemm, norm, softmax, sort, reduce, copy, ...);
 *  6. a kernel on a communication stream that no rule knows is communication; else other.
 *
 * The unit is MATRIX only where a token or the library says so (HMMA/IMMA/wgmma/tcgen05/
 * MFMA/WMMA/xdlops, an MMA shape like s16816, a library that has no other path); SIMT
 * where a token or the library says so (ffma, simt, sgemm, scudnn, cuBLAS gemv, FFT and
 * Winograd convolutions, ATen); otherwise unknown. Triton names say neither.
 * Precision is read from the name only: the operand types of GEMM-like names, else the
 * first element type the name spells before its parameter list. */
#include "src/kernel_class.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

#include "lib/xalloc.h"
#include "src/model.h"

static bool has(const char *s, const char *w) { return strstr(s, w) != NULL; }
static bool hasi(const char *s, const char *w) { return strcasestr(s, w) != NULL; }
/* Whether S begins with P: its first two bytes compared before any call (is_comm asks at
 * every d, p, n, u, c, m, t or a of a name: a strncmp each was most of its time). */
static inline bool starts(const char *s, const char *p)
{
	if (s[0] != p[0])
		return false;
	if (p[0] == '\0' || p[1] == '\0')
		return true;
	return s[1] == p[1] && strncmp(s, p, strlen(p)) == 0;
}

/* Whether W occurs in S (case-insensitively) as a word: not inside a lowercase run, so
 * "Umma" in "TmaUmmaWarp" and "hmma" in "_hmma_" count, "umma" in "summary" does not. */
static bool word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = strcasestr(s, w); p != NULL; p = strcasestr(p + 1, w)) {
		bool before = p == s || !islower((unsigned char)p[-1]) || isupper((unsigned char)p[0]);
		bool after = !islower((unsigned char)p[n]);
		if (before && after)
			return true;
	}
	return false;
}

/* Whether S holds PREFIX followed by <digits>x<digits>x<digits>. */
static bool mnk_after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *p = strstr(s, prefix); p != NULL; p = strstr(p + 1, prefix)) {
		const char *q = p + n;
		int parts = 0;
		for (;;) {
			if (!isdigit((unsigned char)*q))
				break;
			while (isdigit((unsigned char)*q))
				q++;
			parts++;
			if (*q != 'x')
				break;
			q++;
		}
		if (parts >= 3)
			return true;
	}
	return false;
}

/* The MMA instruction shapes cuBLAS, cuDNN and CUTLASS 2 spell in names ("h884gemm",
 * "s1688cudnn", "s16816fprop", "i8816gemm", "s161616gemm" for WMMA): a digit run of one of
 * these, right after a word start or one type letter, and followed by a letter. Returns the
 * type letter ('h', 's', 'i', ... or '-' when none), 0 when there is no such token. */
static char mma_shape(const char *s, const char **shape)
{
	static const char *const shapes[] = { "884", "1688", "16816", "8816", "16832", "161616", "8832" };
	for (const char *p = s; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) || (p > s && isdigit((unsigned char)p[-1])))
			continue;
		const char *q = p;
		while (isdigit((unsigned char)*q))
			q++;
		if (!islower((unsigned char)*q))
			continue;
		char letter;
		if (p == s || !isalnum((unsigned char)p[-1]))
			letter = '-';
		else if (islower((unsigned char)p[-1]) && (p - 1 == s || !isalnum((unsigned char)p[-2])))
			letter = p[-1];
		else
			continue;
		for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
			if ((size_t)(q - p) == strlen(shapes[i]) && strncmp(p, shapes[i], (size_t)(q - p)) == 0) {
				if (shape != NULL)
					*shape = shapes[i];
				return letter;
			}
	}
	return 0;
}

/* The unit that tokens in S state, for names of GEMM-like work that no library rule knew. */
static enum kc_unit unit_tokens(const char *s, const char **why)
{
	static const char *const matrix[] = { "hmma",    "imma", "dmma", "gmma", "wgmma", "umma",
		                              "tcgen05", "mfma", "wmma", "xdl",  "xdlops" };
	bool m = false, v = false;
	for (size_t i = 0; i < sizeof matrix / sizeof *matrix; i++)
		m |= word(s, matrix[i]);
	/* CUTLASS's op class and warp MMA, not MIOpen's SubTensorOp (an elementwise kernel) */
	m |= has(s, "_tensorop_") || has(s, "OpClassTensorOp") || has(s, "MmaTensorOp") ||
	     has(s, "TensorOpMultiplicand");
	m |= mnk_after(s, "tensor") || mma_shape(s, NULL) != 0;
	v = word(s, "ffma") || word(s, "simt") || word(s, "OpClassSimt");
	if (m && !v) {
		*why = "an MMA token (hmma/imma/wgmma/umma/tcgen05/mfma/wmma/xdl/tensorop) in the name";
		return KC_UNIT_MATRIX;
	}
	if (v && !m) {
		*why = "a SIMT token (ffma/simt) in the name";
		return KC_UNIT_SIMT;
	}
	return KC_UNIT_UNKNOWN;
}

/* ---- precision ---- */

/* A word of a kernel's name that names a precision. */
struct prec_word {
	const char *w;
	enum kc_prec p;
};

static const struct prec_word whole_types[] = {
	{ "float_e4m3_t", KC_PREC_FP8 },    { "float_e5m2_t", KC_PREC_FP8 },    { "float_e2m1_t", KC_PREC_FP4 },
	{ "bfloat16_t", KC_PREC_BF16 },     { "half_t", KC_PREC_FP16 },         { "tfloat32_t", KC_PREC_TF32 },
	{ "__nv_bfloat16", KC_PREC_BF16 },  { "__nv_bfloat162", KC_PREC_BF16 }, { "__half", KC_PREC_FP16 },
	{ "__half2", KC_PREC_FP16 },        { "__hip_bfloat16", KC_PREC_BF16 }, { "__nv_fp8_e4m3", KC_PREC_FP8 },
	{ "__nv_fp8_e5m2", KC_PREC_FP8 },   { "int8_t", KC_PREC_INT8 },         { "Float8_e4m3fn", KC_PREC_FP8 },
	{ "Float8_e4m3fnuz", KC_PREC_FP8 }, { "Float8_e5m2", KC_PREC_FP8 },     { "Float8_e5m2fnuz", KC_PREC_FP8 },
	{ "int4b_t", KC_PREC_INT4 },        { "uint4b_t", KC_PREC_INT4 },       { "bhalf_t", KC_PREC_BF16 },
	{ "_Float16", KC_PREC_FP16 },       { "__bf16", KC_PREC_BF16 },
};

static const struct prec_word sub_types[] = {
	{ "double", KC_PREC_FP64 },  { "f64", KC_PREC_FP64 },     { "fp64", KC_PREC_FP64 },
	{ "float", KC_PREC_FP32 },   { "f32", KC_PREC_FP32 },     { "fp32", KC_PREC_FP32 },
	{ "float32", KC_PREC_FP32 }, { "sgemm", KC_PREC_FP32 },   { "dgemm", KC_PREC_FP64 },
	{ "hgemm", KC_PREC_FP16 },   { "scudnn", KC_PREC_FP32 },  { "tf32", KC_PREC_TF32 },
	{ "xf32", KC_PREC_TF32 },    { "bf16", KC_PREC_BF16 },    { "bfloat16", KC_PREC_BF16 },
	{ "bhalf", KC_PREC_BF16 },   { "half", KC_PREC_FP16 },    { "f16", KC_PREC_FP16 },
	{ "fp16", KC_PREC_FP16 },    { "float16", KC_PREC_FP16 }, { "fp8", KC_PREC_FP8 },
	{ "float8", KC_PREC_FP8 },   { "e4m3", KC_PREC_FP8 },     { "e5m2", KC_PREC_FP8 },
	{ "e4m3fn", KC_PREC_FP8 },   { "e4m3fnuz", KC_PREC_FP8 }, { "e5m2fnuz", KC_PREC_FP8 },
	{ "f8", KC_PREC_FP8 },       { "fp4", KC_PREC_FP4 },      { "e2m1", KC_PREC_FP4 },
	{ "nvfp4", KC_PREC_FP4 },    { "mxfp4", KC_PREC_FP4 },    { "int8", KC_PREC_INT8 },
	{ "i8", KC_PREC_INT8 },      { "s8", KC_PREC_INT8 },
};

/* Where the scan for types stops: the '(' that opens the parameter list the name ends
 * with, else the end. */
static const char *params_start(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || s[n - 1] != ')')
		return s + n;
	int depth = 0;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i > 0 ? s + i : s + n;
	}
	return s + n;
}

/* The first element type spelled in S before its parameter list. */
static enum kc_prec prec_first(const char *s)
{
	if (starts(s, "_Z")) { /* mangled: the types are letters inside one long identifier */
		static const struct {
			const char *w;
			enum kc_prec p;
		} mangled[] = { { "tfloat32_t", KC_PREC_TF32 },  { "bfloat16_t", KC_PREC_BF16 },
			        { "half_t", KC_PREC_FP16 },      { "float_e4m3_t", KC_PREC_FP8 },
			        { "float_e5m2_t", KC_PREC_FP8 }, { "DF16b", KC_PREC_BF16 },
			        { "DF16_", KC_PREC_FP16 } };
		const char *best = NULL;
		enum kc_prec p = KC_PREC_UNKNOWN;
		for (size_t i = 0; i < sizeof mangled / sizeof *mangled; i++) {
			const char *at = strstr(s, mangled[i].w);
			if (at != NULL && (best == NULL || at < best)) {
				best = at;
				p = mangled[i].p;
			}
		}
		return p;
	}
	const char *end = params_start(s);
	for (const char *p = s; p < end;) {
		/* a host function's parameters inside the template arguments
		 * ("batch_norm_update_stats_and_invert(at::Tensor const&, double, ...)") are not
		 * the kernel's data; a lambda's parameters ("{lambda(float)#1}") are */
		if (*p == '(' && p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_') &&
		    !(p - s >= 6 && strncmp(p - 6, "lambda", 6) == 0)) {
			int depth = 0;
			do {
				depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
				p++;
			} while (p < end && depth > 0);
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		const char *q = p;
		while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		size_t n = (size_t)(q - p);
		for (size_t i = 0; i < sizeof whole_types / sizeof *whole_types; i++)
			if (strlen(whole_types[i].w) == n && strncmp(p, whole_types[i].w, n) == 0)
				return whole_types[i].p;
		for (const char *a = p; a < q;) { /* the '_'-separated parts */
			while (a < q && *a == '_')
				a++;
			const char *b = a;
			while (b < q && *b != '_')
				b++;
			for (size_t i = 0; i < sizeof sub_types / sizeof *sub_types; i++)
				if (strlen(sub_types[i].w) == (size_t)(b - a) &&
				    strncasecmp(a, sub_types[i].w, (size_t)(b - a)) == 0)
					return sub_types[i].p;
			a = b;
		}
		p = q;
	}
	return KC_PREC_UNKNOWN;
}

/* Type words as xmma, CUTLASS 3 and trtllm-gen names concatenate them ("bf16bf16",
 * "tf32f32", "MxE2m1MxE4m3"): longest first. */
static const struct {
	const char *w;
	enum kc_prec p;
} packed_words[] = {
	{ "MxE2m1", KC_PREC_FP4 }, { "MxE4m3", KC_PREC_FP8 }, { "MxE5m2", KC_PREC_FP8 },  { "Bfloat16", KC_PREC_BF16 },
	{ "E2m1", KC_PREC_FP4 },   { "E4m3", KC_PREC_FP8 },   { "E5m2", KC_PREC_FP8 },    { "Fp16", KC_PREC_FP16 },
	{ "Fp32", KC_PREC_FP32 },  { "Int8", KC_PREC_INT8 },  { "tf32", KC_PREC_TF32 },   { "bf16", KC_PREC_BF16 },
	{ "e4m3", KC_PREC_FP8 },   { "e5m2", KC_PREC_FP8 },   { "e2m1", KC_PREC_FP4 },    { "f16", KC_PREC_FP16 },
	{ "f32", KC_PREC_FP32 },   { "f64", KC_PREC_FP64 },   { "i32", KC_PREC_UNKNOWN }, { "s32", KC_PREC_UNKNOWN },
	{ "i8", KC_PREC_INT8 },    { "s8", KC_PREC_INT8 },    { "u8", KC_PREC_INT8 },     { "i4", KC_PREC_INT4 },
	{ "s4", KC_PREC_INT4 },    { "u4", KC_PREC_INT4 },    { "f8", KC_PREC_FP8 },
};

/* Reads up to MAX type words from [P, END) into OUT; returns how many, 0 when the text
 * does not start with one. */
static int packed_types(const char *p, const char *end, enum kc_prec *out, int max)
{
	int n = 0;
	while (p < end && n < max) {
		size_t i;
		for (i = 0; i < sizeof packed_words / sizeof *packed_words; i++) {
			size_t len = strlen(packed_words[i].w);
			if ((size_t)(end - p) >= len && strncmp(p, packed_words[i].w, len) == 0) {
				out[n++] = packed_words[i].p;
				p += len;
				break;
			}
		}
		if (i == sizeof packed_words / sizeof *packed_words)
			break;
	}
	return n;
}

/* The precision of operands A and B. */
static enum kc_prec operands(enum kc_prec a, enum kc_prec b)
{
	if (a == KC_PREC_TF32 || b == KC_PREC_TF32)
		return KC_PREC_TF32;
	if (a == KC_PREC_UNKNOWN || b == KC_PREC_UNKNOWN)
		return a != KC_PREC_UNKNOWN ? a : b;
	return a == b ? a : KC_PREC_MIXED;
}

/* The '_'-separated field of S starting at P: its end. */
static const char *field_end(const char *p)
{
	while (*p != '\0' && *p != '_' && *p != '<' && *p != '>' && *p != '(' && *p != ',' && *p != ' ')
		p++;
	return p;
}

/* xmma names (cuBLAS and cuDNN on sm80+): "sm80_xmma_gemm_bf16bf16_bf16f32_f32_...": the
 * first field after "gemm_" that starts with type words holds A and B. */
static enum kc_prec xmma_prec(const char *s)
{
	const char *g = strstr(s, "gemm_");
	if (g == NULL)
		return prec_first(s);
	for (const char *p = g + 5; *p != '\0';) {
		const char *e = field_end(p);
		enum kc_prec t[2];
		int n = packed_types(p, e, t, 2);
		if (n == 2 && (size_t)(e - p) <= 10)
			return operands(t[0], t[1]);
		if (*e != '_')
			break;
		p = e + 1;
	}
	return prec_first(s);
}

/* ---- the rules ---- */

struct rule_out {
	enum kc_family f;
	enum kc_unit u;
	enum kc_prec p;
	const char *why;
};

#define SET(F, U, P, WHY)       \
	do {                    \
		o->f = (F);     \
		o->u = (U);     \
		o->p = (P);     \
		o->why = (WHY); \
		return true;    \
	} while (0)

/* Whether P starts with W ignoring case (W in lowercase), as strcasestr compares. */
static bool at_i(const char *p, const char *w)
{
	for (; *w != '\0'; p++, w++)
		if (tolower((unsigned char)*p) != *w)
			return false;
	return true;
}

/* Whether S names communication, and why. One pass over S (it used to be eighteen
 * strstr/strcasestr calls: 5% of a 256-rank distributed report's time). A library's
 * name anywhere wins over a collective's (their reasons differ): "trtllm_allreduce". */
static bool is_comm(const char *s, const char **why)
{
	if (strncasecmp(s, "nccl", 4) == 0 || strncasecmp(s, "rccl", 4) == 0 || strncasecmp(s, "msccl", 5) == 0) {
		*why = "NCCL/RCCL/MSCCL kernel";
		return true;
	}
	bool op = false;
	for (const char *p = s; *p != '\0'; p++) {
		bool lib = false;
		switch (*p) {
		case 'd': lib = starts(p, "deep_ep::"); break;
		case 'p': lib = starts(p, "pplx::"); break;
		case 'n': lib = starts(p, "nvshmem"); break;
		case 'u': lib = starts(p, "userbuffers"); break;
		case 'c': lib = starts(p, "cross_device_reduce"); break;
		case 'm': lib = starts(p, "multimem_") || starts(p, "mscclpp"); break;
		case 't': lib = starts(p, "trtllm_allreduce"); break;
		case 'a': lib = starts(p, "allreduce_fusion"); break;
		default: break;
		}
		if (lib) {
			*why = "communication library outside NCCL (DeepEP, pplx, NVSHMEM, custom or symmetric-memory "
			       "all-reduce)";
			return true;
		}
		if (op)
			continue;
		int c = tolower((unsigned char)*p);
		if (c == 'a' && at_i(p + 1, "ll")) {
			const char *q = p + 3;
			op = at_i(q, "reduce") || at_i(q, "_reduce") || at_i(q, "gather") || at_i(q, "_gather") ||
			     at_i(q, "toall") || at_i(q, "_to_all") || at_i(q, "2all");
		} else if (c == 'r' && at_i(p + 1, "educe")) {
			op = at_i(p + 6, "scatter") || at_i(p + 6, "_scatter");
		}
	}
	if (op)
		*why = "a collective's name (all-reduce, all-gather, reduce-scatter, all-to-all)";
	return op;
}

/* Inductor's Triton kernels: the prefix says the kind; the math unit is never in the name. */
static bool rule_triton(const char *s, struct rule_out *o)
{
	if (!starts(s, "triton_"))
		return false;
	if (starts(s, "triton_poi_"))
		SET(KC_ELEMENTWISE, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "Triton pointwise kernel (triton_poi_)");
	if (starts(s, "triton_red_") || starts(s, "triton_per_"))
		SET(KC_REDUCTION, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN,
		    "Triton reduction kernel (triton_red_/triton_per_)");
	if (starts(s, "triton_tem_")) {
		if (has(s, "flex_attention") || has(s, "flex_decoding") || has(s, "attention"))
			SET(KC_ATTENTION, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "Triton attention template (triton_tem_)");
		if (has(s, "conv"))
			SET(KC_CONV, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "Triton convolution template (triton_tem_)");
		SET(KC_GEMM, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN,
		    "Triton GEMM template (triton_tem_): tl.dot, unit not named");
	}
	if (starts(s, "triton_mm") || starts(s, "triton_bmm"))
		SET(KC_GEMM, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "Triton GEMM (triton_mm): tl.dot, unit not named");
	SET(KC_OTHER, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "Triton kernel named by its signature only");
}

/* Names whose library does attention, with the unit it uses. */
static bool rule_attention(const char *s, struct rule_out *o)
{
	/* FlashAttention 2 (flash::, pytorch_flash::), 3 (flash::FlashAttn...Sm90), FlashMLA:
	 * mma.sync / wgmma / tcgen05 in the main kernels; the split-KV combine, the backward's
	 * dot(dO, O), dQ conversion and accumulator clearing are plain loops. */
	if (has(s, "flash::") || has(s, "flash_fwd") || has(s, "flash_bwd") || has(s, "FlashAttn") ||
	    has(s, "flash_attn")) {
		if (hasi(s, "combine") || has(s, "dot_do_o") || has(s, "convert_dq") || has(s, "convert_dkv") ||
		    has(s, "ConvertdQ") || has(s, "clear_dkvaccum") || has(s, "Preprocess") || has(s, "Postprocess"))
			SET(KC_ATTENTION, KC_UNIT_SIMT, prec_first(s),
			    "FlashAttention helper (split-KV combine, dO.O, dQ conversion): no MMA");
		SET(KC_ATTENTION, KC_UNIT_MATRIX, prec_first(s),
		    "FlashAttention kernel (mma.sync/wgmma/tcgen05 by design)");
	}
	/* xformers and PyTorch memory-efficient attention: fmha_cutlass{F,B}_<dtype>_..._sm<arch>;
	 * gemm_kernel_utils.h DefaultGemmType: f16/bf16 on sm75+ and f16 on sm70 use Tensor
	 * Cores, f32 on sm80+ uses them through 3xTF32 (OpMultiplyAddFastF32), the rest SIMT. */
	if (has(s, "fmha_cutlassF") || has(s, "fmha_cutlassB") || has(s, "AttentionKernel<") ||
	    has(s, "AttentionBackwardKernel<")) {
		const char *d = strstr(s, "fmha_cutlass");
		enum kc_prec p = KC_PREC_UNKNOWN;
		if (d != NULL) {
			d += strlen("fmha_cutlassF_");
			p = starts(d, "f32")    ? KC_PREC_FP32
			    : starts(d, "f16")  ? KC_PREC_FP16
			    : starts(d, "bf16") ? KC_PREC_BF16
			                        : KC_PREC_UNKNOWN;
		} else {
			p = prec_first(s);
		}
		int sm = 0;
		const char *a = strstr(s, "_sm");
		if (a == NULL || !isdigit((unsigned char)a[3]))
			a = strstr(s, "arch::Sm");
		if (a != NULL) {
			a += a[1] == 's' ? 3 : 8;
			while (isdigit((unsigned char)*a))
				sm = sm * 10 + (*a++ - '0');
		}
		if (sm == 0 || p == KC_PREC_UNKNOWN)
			SET(KC_ATTENTION, KC_UNIT_UNKNOWN, p,
			    "memory-efficient attention without its arch or dtype in the name");
		if ((p == KC_PREC_FP32 && sm >= 80) || (p != KC_PREC_FP32 && sm >= 75) ||
		    (p == KC_PREC_FP16 && sm >= 70))
			SET(KC_ATTENTION, KC_UNIT_MATRIX, p,
			    "memory-efficient attention (xformers): Tensor Cores for this dtype and arch (f32: 3xTF32 on sm80+)");
		SET(KC_ATTENTION, KC_UNIT_SIMT, p,
		    "memory-efficient attention (xformers): SIMT for this dtype and arch");
	}
	/* TensorRT-LLM/FlashInfer trtllm-gen FMHA (fmhaSm100aKernel_QkvE4m3...) and fmha_v2. */
	if (starts(s, "fmhaSm") || has(s, "fmha_v2_") || has(s, "fused_multihead_attention")) {
		enum kc_prec p = KC_PREC_UNKNOWN;
		const char *q = strstr(s, "Qkv");
		if (q != NULL) {
			enum kc_prec t[1];
			if (packed_types(q + 3, q + strlen(q), t, 1) == 1)
				p = t[0];
		} else {
			p = prec_first(s);
		}
		SET(KC_ATTENTION, KC_UNIT_MATRIX, p, "TensorRT-LLM FMHA kernel (HMMA/GMMA/tcgen05 by design)");
	}
	if (has(s, "flashinfer::")) {
		if (has(s, "Prefill") || has(s, "MLA"))
			SET(KC_ATTENTION, KC_UNIT_MATRIX, prec_first(s), "FlashInfer prefill/MLA attention (mma.sync)");
		if (has(s, "Decode"))
			SET(KC_ATTENTION, KC_UNIT_SIMT, prec_first(s), "FlashInfer decode attention (CUDA cores)");
		if (has(s, "MergeState") || has(s, "merge_state"))
			SET(KC_ATTENTION, KC_UNIT_SIMT, prec_first(s), "FlashInfer attention-state merge");
	}
	/* vLLM paged attention v1/v2 (CUDA-core dot products); the ROCm variant says mfma. */
	if (has(s, "paged_attention")) {
		if (word(s, "mfma") || word(s, "wmma"))
			SET(KC_ATTENTION, KC_UNIT_MATRIX, prec_first(s),
			    "paged attention, MFMA variant (mfma in the name)");
		if (has(s, "vllm::paged_attention_v") || has(s, "paged_attention_v2_reduce"))
			SET(KC_ATTENTION, KC_UNIT_SIMT, prec_first(s),
			    "vLLM paged attention v1/v2 (CUDA-core dot products)");
	}
	/* SageAttention: INT8 Q.K^T (FP8/FP16 P.V), which exists to run on matrix units; its
	 * Triton version (aiter sage_fwd) has int8 tl.dot operands, which MMA/MFMA take. */
	if (has(s, "sage_fwd") || has(s, "sage_attn") || has(s, "qk_int_sv_") || has(s, "qk_int8_sv"))
		SET(KC_ATTENTION, KC_UNIT_MATRIX, KC_PREC_MIXED,
		    "SageAttention: INT8 QK^T and FP8/FP16 PV on matrix units");
	/* Composable Kernel tile FMHA: its pipelines are built on MFMA warp GEMMs; the
	 * split-KV combine and dO.O kernels are not. */
	if (has(s, "ck_tile::") && (has(s, "Fmha") || has(s, "fmha"))) {
		if (has(s, "Combine") || has(s, "OGradDotO") || has(s, "ConvertQGrad"))
			SET(KC_ATTENTION, KC_UNIT_SIMT, prec_first(s), "CK tile FMHA helper (combine, dO.O): no MFMA");
		SET(KC_ATTENTION, KC_UNIT_MATRIX, prec_first(s), "Composable Kernel tile FMHA (MFMA warp GEMMs)");
	}
	return false;
}

/* cuBLAS and cuDNN names that start with an architecture ("volta_sgemm_128x64_nn",
 * "ampere_bf16_s16816gemm_bf16_...", "cudnn_infer_volta_scudnn_128x64_relu_...").
 * S: the name after any "void ". */
static bool rule_arch_prefixed(const char *s, struct rule_out *o)
{
	static const char *const arch[] = { "maxwell_", "pascal_", "volta_",  "turing_",
		                            "ampere_",  "ada_",    "hopper_", "blackwell_" };
	const char *p = s;
	if (starts(p, "cudnn_infer_") || starts(p, "cudnn_train_"))
		p += 12;
	size_t i;
	for (i = 0; i < sizeof arch / sizeof *arch; i++)
		if (starts(p, arch[i]))
			break;
	if (i == sizeof arch / sizeof *arch)
		return false;
	bool conv = has(p, "cudnn") || has(p, "winograd") || has(p, "conv") || has(p, "fprop") || has(p, "dgrad") ||
	            has(p, "wgrad") || p != s;
	enum kc_family f = conv ? KC_CONV : KC_GEMM;
	enum kc_prec named = prec_first(p);
	char letter = mma_shape(p, NULL);
	if (letter != 0) {
		enum kc_prec pr = named;
		if (pr == KC_PREC_UNKNOWN)
			pr = letter == 'h' ? KC_PREC_FP16 : letter == 'i' ? KC_PREC_INT8 : KC_PREC_UNKNOWN;
		SET(f, KC_UNIT_MATRIX, pr, "cuBLAS/cuDNN name with an MMA shape (884/1688/16816): Tensor Cores");
	}
	/* s/d/h/c/z + gemm or cudnn, the BLAS letters: CUDA-core kernels */
	for (const char *q = p; *q != '\0'; q = field_end(q) + (*field_end(q) != '\0')) {
		const char *e = field_end(q);
		size_t n = (size_t)(e - q);
		if ((n == 5 && strncmp(q + 1, "gemm", 4) == 0 && strchr("sdhczi", q[0]) != NULL) ||
		    (n == 6 && strncmp(q, "gcgemm", 6) == 0) ||
		    (n == 6 && strncmp(q + 1, "cudnn", 5) == 0 && strchr("sdh", q[0]) != NULL)) {
			enum kc_prec pr = named;
			if (q[0] == 'd')
				pr = KC_PREC_FP64;
			else if (q[0] == 'i' && pr == KC_PREC_UNKNOWN)
				pr = KC_PREC_INT8;
			else if (q[0] == 'h' && pr == KC_PREC_UNKNOWN)
				pr = KC_PREC_FP16;
			else if ((q[0] == 's' || q[0] == 'c') && pr == KC_PREC_UNKNOWN)
				pr = KC_PREC_FP32;
			SET(f, KC_UNIT_SIMT, pr,
			    "cuBLAS/cuDNN s/d/h/i-gemm or scudnn name without an MMA shape: CUDA cores");
		}
		if (*e == '\0')
			break;
	}
	enum kc_unit u = KC_UNIT_UNKNOWN;
	const char *why = "cuBLAS/cuDNN arch-prefixed name that states no math unit";
	u = unit_tokens(p, &why);
	SET(f, u, named, why);
}

static bool rule_xmma(const char *s, struct rule_out *o)
{
	if (!has(s, "xmma"))
		return false;
	enum kc_family f =
		(has(s, "fprop") || has(s, "dgrad") || has(s, "wgrad") || has(s, "conv")) ? KC_CONV : KC_GEMM;
	enum kc_prec p = xmma_prec(s);
	if (word(s, "ffma"))
		SET(f, KC_UNIT_SIMT, p, "xmma kernel whose op is ffma: CUDA cores");
	if (has(s, "warpgroupsize") || word(s, "gmma") || word(s, "wgmma"))
		SET(f, KC_UNIT_MATRIX, p, "xmma kernel with warpgroups (wgmma)");
	if (mnk_after(s, "tensor") || word(s, "hmma") || word(s, "imma") || word(s, "dmma"))
		SET(f, KC_UNIT_MATRIX, p, "xmma kernel whose op is an MMA (tensorMxNxK/hmma/imma)");
	SET(f, KC_UNIT_UNKNOWN, p, "xmma kernel that names neither ffma nor an MMA");
}

/* cuBLASLt's nvjet kernels: nvjet_[smNN_]<types>_...: the letters of A, B (then compute and
 * D): s fp32, d fp64, h fp16, t bf16, q fp8 e4m3. */
static bool rule_nvjet(const char *s, struct rule_out *o)
{
	if (!starts(s, "nvjet_"))
		return false;
	const char *t = s + 6;
	if (starts(t, "sm") && isdigit((unsigned char)t[2])) {
		t = strchr(t, '_');
		t = t != NULL ? t + 1 : s + strlen(s);
	}
	const char *e = field_end(t);
	size_t n = (size_t)(e - t);
	char a = 0, b = 0;
	if (n == 3 || n == 4) {
		a = b = t[0];
	} else if (n == 5) {
		a = t[0];
		b = t[1];
	}
	enum kc_prec pa = KC_PREC_UNKNOWN, pb = KC_PREC_UNKNOWN;
	const char *letters = "sdhtq";
	const enum kc_prec precs[] = { KC_PREC_FP32, KC_PREC_FP64, KC_PREC_FP16, KC_PREC_BF16, KC_PREC_FP8 };
	for (int i = 0; i < 5; i++) {
		if (a == letters[i])
			pa = precs[i];
		if (b == letters[i])
			pb = precs[i];
	}
	enum kc_prec p = (pa != KC_PREC_UNKNOWN && pb != KC_PREC_UNKNOWN) ? operands(pa, pb) : KC_PREC_UNKNOWN;
	bool narrow = (a == 'h' || a == 't' || a == 'q') && (b == 'h' || b == 't' || b == 'q');
	if (narrow || has(s, "_mma_"))
		SET(KC_GEMM, KC_UNIT_MATRIX, p, "cuBLASLt nvjet kernel on 16/8-bit inputs (wgmma/tcgen05 GEMMs)");
	SET(KC_GEMM, KC_UNIT_UNKNOWN, p, "cuBLASLt nvjet kernel whose input types do not fix the unit");
}

/* CUTLASS 2 procedural names (cuBLAS and cuDNN ship them too):
 * cutlass_<arch>_<tensorop|wmma_tensorop|simt>_..., cutlass_tensorop_..., and CUTLASS 3
 * cutlass3x_sm90_tensorop_<mma>gemm_<A>_<B>_<C>_... */
static bool rule_cutlass_named(const char *s, struct rule_out *o)
{
	const char *c = strstr(s, "cutlass3x_");
	if (c != NULL) {
		enum kc_family f =
			(has(c, "conv") || has(c, "fprop") || has(c, "dgrad") || has(c, "wgrad")) ? KC_CONV : KC_GEMM;
		enum kc_prec p = KC_PREC_UNKNOWN;
		const char *g = strstr(c, "gemm_");
		if (g != NULL) {
			const char *a = g + 5, *ae = field_end(a);
			enum kc_prec ta[1], tb[1];
			if (packed_types(a, ae, ta, 1) == 1 && *ae == '_' &&
			    packed_types(ae + 1, field_end(ae + 1), tb, 1) == 1)
				p = operands(ta[0], tb[0]);
		}
		if (p == KC_PREC_UNKNOWN)
			p = prec_first(c);
		if (has(c, "_simt_"))
			SET(f, KC_UNIT_SIMT, p, "CUTLASS 3 simt kernel");
		if (has(c, "_tensorop_") || has(c, "umma") || has(c, "gmma"))
			SET(f, KC_UNIT_MATRIX, p, "CUTLASS 3 tensorop kernel (wgmma/tcgen05)");
		const char *why = "CUTLASS 3 kernel that names no op class";
		enum kc_unit u = unit_tokens(c, &why);
		SET(f, u, p, why);
	}
	const char *k = NULL;
	int arch = 0;
	for (c = strstr(s, "cutlass_"); c != NULL && k == NULL; c = strstr(c + 1, "cutlass_")) {
		if (c > s && (isalpha((unsigned char)c[-1]) || c[-1] == '_')) /* digits: a mangled length */
			continue;
		const char *q = c + 8;
		int a = 0;
		while (isdigit((unsigned char)*q))
			a = a * 10 + (*q++ - '0');
		if (*q == '_')
			q++;
		if (starts(q, "tensorop_") || starts(q, "wmma_tensorop_") || starts(q, "simt_")) {
			k = q;
			arch = a;
			break;
		}
	}
	if (k == NULL)
		return false;
	bool simt = starts(k, "simt_");
	enum kc_family f =
		(has(k, "fprop") || has(k, "dgrad") || has(k, "wgrad") || has(k, "conv")) ? KC_CONV : KC_GEMM;
	enum kc_prec p = prec_first(k);
	if (simt)
		SET(f, KC_UNIT_SIMT, p, "CUTLASS simt kernel: CUDA cores");
	if (p == KC_PREC_UNKNOWN) {
		const char *shape = NULL;
		char letter = mma_shape(k, &shape);
		if (letter == 'h')
			p = KC_PREC_FP16;
		else if (letter == 'i')
			p = KC_PREC_INT8;
		else if (letter == 's' && shape != NULL && strcmp(shape, "1688") == 0 && arch >= 80)
			SET(f, KC_UNIT_MATRIX, KC_PREC_TF32,
			    "CUTLASS tensorop s1688 on sm80+ with fp32 operands: the 16x8x8 TF32 MMA");
	}
	SET(f, KC_UNIT_MATRIX, p, "CUTLASS tensorop kernel: Tensor Cores");
}

/* CUTLASS templates by their type names (cutlass::Kernel<...>, cutlass::device_kernel<...>,
 * mangled cutlass_cudnn_train::Kernel<...>): the op class or MMA policy in the arguments. */
static bool rule_cutlass_template(const char *s, struct rule_out *o)
{
	if (!(has(s, "cutlass::") || has(s, "cutlass_cudnn") || has(s, "7cutlass") || has(s, "cutlass__")))
		return false;
	if (has(s, "ReduceSplitK"))
		SET(KC_REDUCTION, KC_UNIT_SIMT, prec_first(s), "CUTLASS split-K reduction");
	enum kc_family f;
	if (has(s, "Conv") || has(s, "conv"))
		f = KC_CONV;
	else if (hasi(s, "gemm") || has(s, "Mma"))
		f = KC_GEMM;
	else
		return false;
	const char *why = "CUTLASS template without an op class or MMA policy in the name";
	enum kc_unit u = unit_tokens(s, &why);
	SET(f, u, prec_first(s), why);
}

/* TensorRT-LLM trtllm-gen GEMMs for Blackwell: bmm_<D>_<A><B>_<acc>_..._sm100[af]. */
static bool rule_trtllm_gen(const char *s, struct rule_out *o)
{
	if (!(starts(s, "bmm_") || starts(s, "gemm_") || starts(s, "gemmGatedAct_")) || !has(s, "_sm100"))
		return false;
	const char *a = strchr(s, '_') + 1;
	a = field_end(a);
	enum kc_prec t[2] = { KC_PREC_UNKNOWN, KC_PREC_UNKNOWN }, p = KC_PREC_UNKNOWN;
	if (*a == '_') {
		int n = packed_types(a + 1, field_end(a + 1), t, 2);
		p = n == 2 ? operands(t[0], t[1]) : n == 1 ? t[0] : KC_PREC_UNKNOWN;
	}
	SET(KC_GEMM, KC_UNIT_MATRIX, p, "TensorRT-LLM trtllm-gen sm100 GEMM (tcgen05)");
}

/* Tensile (rocBLAS, hipBLASLt): Cijk_<A idx>_<B idx>_<types>_..._MI<m>x<n>x<k>_...: the MI
 * field is the MFMA (or WMMA) instruction; the first type letter is A's. */
static bool rule_tensile(const char *s, struct rule_out *o)
{
	if (!starts(s, "Cijk_"))
		return false;
	const char *p = s + 5;
	for (int skip = 0; skip < 2 && *p != '\0'; skip++) {
		p = field_end(p);
		if (*p == '_')
			p++;
	}
	static const struct {
		const char *c;
		enum kc_prec p;
	} types[] = { { "F8B8N", KC_PREC_FP8 }, { "B8F8N", KC_PREC_FP8 }, { "F8B8", KC_PREC_FP8 },
		      { "B8F8", KC_PREC_FP8 },  { "F8N", KC_PREC_FP8 },   { "B8N", KC_PREC_FP8 },
		      { "4xi8", KC_PREC_INT8 }, { "I8", KC_PREC_INT8 },   { "I64", KC_PREC_UNKNOWN },
		      { "F8", KC_PREC_FP8 },    { "B8", KC_PREC_FP8 },    { "S", KC_PREC_FP32 },
		      { "D", KC_PREC_FP64 },    { "C", KC_PREC_FP32 },    { "Z", KC_PREC_FP64 },
		      { "H", KC_PREC_FP16 },    { "I", KC_PREC_UNKNOWN }, { "B", KC_PREC_BF16 },
		      { "X", KC_PREC_TF32 } };
	enum kc_prec pr = KC_PREC_UNKNOWN;
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (starts(p, types[i].c)) {
			pr = types[i].p;
			break;
		}
	if (mnk_after(s, "_MI") || word(s, "MFMA"))
		SET(KC_GEMM, KC_UNIT_MATRIX, pr,
		    "Tensile/hipBLASLt kernel with an MI<m>x<n>x<k> matrix instruction (MFMA)");
	SET(KC_GEMM, KC_UNIT_UNKNOWN, pr, "Tensile kernel without a matrix-instruction field");
}

/* MIOpen and Composable Kernel (mangled _ZN2ck... or ck::/ck_tile::). */
static bool rule_rocm(const char *s, struct rule_out *o)
{
	if (starts(s, "igemm_") && has(s, "_gtc")) {
		enum kc_prec p = prec_first(s);
		if (has(s, "_gtcx"))
			SET(KC_CONV, KC_UNIT_MATRIX, p, "MIOpen implicit-GEMM convolution with xdlops (gtcx)");
		SET(KC_CONV, KC_UNIT_SIMT, p, "MIOpen implicit-GEMM convolution without xdlops (gtc)");
	}
	if (starts(s, "SubTensorOp") || starts(s, "OpTensor") || starts(s, "Op1dTensor") || starts(s, "Op2dTensor") ||
	    starts(s, "Op3dTensor") || starts(s, "Op4dTensor") || starts(s, "Op5dTensor") ||
	    starts(s, "batched_transpose_") || starts(s, "transpose_NCHW") || starts(s, "transpose_CNHW") ||
	    starts(s, "transpose_NHWC"))
		SET(KC_ELEMENTWISE, KC_UNIT_SIMT, prec_first(s), "MIOpen tensor op or layout transpose");
	if (starts(s, "Im2d2Col") || starts(s, "Im3d2Col") || starts(s, "Im2Col") || starts(s, "Col2Im"))
		SET(KC_CONV, KC_UNIT_SIMT, prec_first(s), "MIOpen im2col stage of a GEMM convolution");
	if (starts(s, "MIOpenBatchNorm") || starts(s, "MIOpenLayerNorm"))
		SET(KC_NORM, KC_UNIT_SIMT, prec_first(s), "MIOpen normalisation kernel");
	if (!(starts(s, "_ZN2ck") || has(s, "ck::") || has(s, "ck_tile::")))
		return false;
	enum kc_family f;
	if (has(s, "conv") || has(s, "Conv") || has(s, "bwd_weight"))
		f = KC_CONV;
	else if (hasi(s, "gemm"))
		f = KC_GEMM;
	else
		return false;
	enum kc_prec p = prec_first(s);
	if (word(s, "xdl") || word(s, "xdlops") || word(s, "wmma") || word(s, "mfma"))
		SET(f, KC_UNIT_MATRIX, p, "Composable Kernel xdl/xdlops/wmma kernel: MFMA/WMMA");
	if (has(s, "_dl_") || has(s, "_dl<") || has(s, "Dl_"))
		SET(f, KC_UNIT_SIMT, p, "Composable Kernel dl (dot-product) kernel: no MFMA");
	SET(f, KC_UNIT_UNKNOWN, p, "Composable Kernel kernel that names no instruction");
}

/* DeepGEMM, Marlin and other GEMM libraries that only exist on matrix units. */
static bool rule_gemm_libs(const char *s, struct rule_out *o)
{
	if (has(s, "deep_gemm::")) {
		enum kc_prec p = has(s, "fp8") ? KC_PREC_FP8 : has(s, "bf16") ? KC_PREC_BF16 : prec_first(s);
		SET(KC_GEMM, KC_UNIT_MATRIX, p, "DeepGEMM (wgmma/tcgen05 only)");
	}
	if (hasi(s, "marlin"))
		SET(KC_GEMM, KC_UNIT_MATRIX, KC_PREC_MIXED,
		    "Marlin mixed-input GEMM (quantized weights x FP16/BF16, mma.sync)");
	return false;
}

/* cuBLAS helpers and GEMV kernels, cuDNN's CUDA-core convolutions and helpers. */
static bool rule_nvidia_helpers(const char *s, struct rule_out *o)
{
	if (has(s, "splitKreduce_kernel") || has(s, "reduce_1Block_kernel"))
		SET(KC_REDUCTION, KC_UNIT_SIMT, prec_first(s), "cuBLAS split-K/dot reduction (after a GEMM)");
	if (has(s, "epilogue::impl::globalKernel") || (has(s, "cublasLt") && hasi(s, "epilogue") && !hasi(s, "gemm")))
		SET(KC_ELEMENTWISE, KC_UNIT_SIMT, prec_first(s),
		    "cuBLASLt epilogue kernel (bias/activation after a GEMM)");
	if (has(s, "cublas") && (has(s, "gemv") || has(s, "dot_kernel") || has(s, "gemmSN_") || has(s, "gemmk1_") ||
	                         starts(s, "gemv") || has(s, "void gemv") || has(s, "Gemv"))) {
		const char *b = strstr(s, "TensorStridedBatched<");
		enum kc_prec p = b != NULL ? prec_first(b + strlen("TensorStridedBatched<")) : prec_first(s);
		SET(KC_GEMM, KC_UNIT_SIMT, p, "cuBLAS GEMV/dot/small-N kernel (CUDA cores)");
	}
	if (has(s, "magma_") && hasi(s, "gemm")) {
		enum kc_prec p = prec_first(s);
		SET(KC_GEMM, KC_UNIT_SIMT, p, "cuBLAS MAGMA-derived sgemm kernel (CUDA cores)");
	}
	if (has(s, "fft2d_") || has(s, "fft1d_") || has(s, "fft3d_") || has(s, "flip_filter"))
		SET(KC_CONV, KC_UNIT_SIMT, prec_first(s), "cuDNN FFT convolution stage: no matrix units");
	if (has(s, "winograd") || has(s, "Winograd"))
		SET(KC_CONV, KC_UNIT_SIMT, prec_first(s), "cuDNN Winograd convolution stage on CUDA cores");
	if (has(s, "convolve_sgemm") || has(s, "convolve_dgemm") || has(s, "wgrad_alg") || has(s, "dgrad_engine") ||
	    has(s, "dgrad2d_alg") || has(s, "wgrad2d_") || has(s, "dgrad_1x1_stride") ||
	    has(s, "conv2d_grouped_direct") || has(s, "im2col4d_kernel") || has(s, "im2col"))
		SET(KC_CONV, KC_UNIT_SIMT, prec_first(s),
		    "cuDNN direct/implicit-sgemm convolution engine (CUDA cores)");
	if (has(s, "cask_cudnn") && has(s, "Offsets"))
		SET(KC_OTHER, KC_UNIT_SIMT, KC_PREC_UNKNOWN, "cuDNN convolution set-up kernel (index offsets)");
	if (has(s, "cudnn::") && (has(s, "bn_fw") || has(s, "bn_bw") || has(s, "batchnorm") || has(s, "BatchNorm")))
		SET(KC_NORM, KC_UNIT_SIMT, prec_first(s), "cuDNN batch norm");
	if (has(s, "cudnn::") && has(s, "reduce"))
		SET(KC_REDUCTION, KC_UNIT_SIMT, prec_first(s), "cuDNN reduction helper");
	if (has(s, "nchwToNhwc") || has(s, "nhwcToNchw") || has(s, "scalePackedTensor") ||
	    (has(s, "cudnn::") && (has(s, "transform") || has(s, "Transform"))))
		SET(KC_ELEMENTWISE, KC_UNIT_SIMT, prec_first(s), "cuDNN layout transform or scaling");
	return false;
}

/* FBGEMM and TorchRec embedding kernels and their sparse-feature preparation. */
static bool rule_embedding(const char *s, struct rule_out *o)
{
	/* clang-format off */
	static const char *const w[] = {
		"split_embedding", "dense_embedding", "embedding_bag", "EmbeddingBag", "embedding_backward",
		"embedding_dense", "embedding_forward", "bounds_check_indices", "linearize_index",
		"permute_pooled_embs", "bucketize_sparse_features", "permute_2D_", "permute_1D_", "jagged_",
		"fbgemm_gpu::"
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		if (has(s, w[i]))
			SET(KC_EMBEDDING, KC_UNIT_SIMT, prec_first(s),
			    "FBGEMM/ATen embedding or sparse-feature kernel");
	if (hasi(s, "embedding") && !hasi(s, "rotary"))
		SET(KC_EMBEDDING, KC_UNIT_UNKNOWN, prec_first(s), "'embedding' in the name");
	return false;
}

/* Libraries whose kernels run on CUDA cores (ATen, cub, thrust, cuDNN and cuBLAS helpers,
 * vLLM's non-GEMM kernels, apex): their non-GEMM work is SIMT. */
static bool simt_library(const char *s)
{
	/* clang-format off */
	static const char *const libs[] = {
		"at::native::", "at::cuda::", "at_cuda_detail::", "c10::", "cub::", "thrust::", "cudnn::", "cunn_",
		"vllm::", "multi_tensor_apply_kernel", "softmax_warp_", "elementwise_kernel", "flashinfer::",
		"tensorrt_llm::", "moe::dev::", "apex::", "cuApplyLayerNorm", "cuComputeGradInput",
		"cuComputePartGradGammaBeta", "cuComputeGradGammaBeta"
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
		if (has(s, libs[i]))
			return true;
	return false;
}

/* Generic words, for the names no library rule knew. */
static bool rule_words(const char *s, struct rule_out *o)
{
	enum kc_unit lib = simt_library(s) ? KC_UNIT_SIMT : KC_UNIT_UNKNOWN;
	enum kc_prec p = prec_first(s);
	const char *why;

	/* ATen's reduce_kernel reduces, whatever its op (NormTwoOps is a vector norm) */
	if (has(s, "at::native::") && has(s, "reduce_kernel"))
		SET(KC_REDUCTION, KC_UNIT_SIMT, p, "ATen reduce_kernel");
	if (has(s, "moe::dev::"))
		SET(KC_OTHER, KC_UNIT_SIMT, p, "TensorRT-LLM MoE routing/finalize kernel");
	/* kernels that only move or convert data, whatever else their names say */
	if (has(s, "reshape_and_cache") || hasi(s, "rotary") || hasi(s, "quant") || has(s, "_copy_") ||
	    has(s, "CatArrayBatchedCopy") || has(s, "copy_kernel"))
		SET(KC_ELEMENTWISE, lib, p, "copy, cast, quantization or rotary embedding: elementwise");

	if (hasi(s, "attention") || word(s, "attn") || hasi(s, "_attn") || hasi(s, "attn_") || hasi(s, "fmha") ||
	    word(s, "mha") || hasi(s, "sdpa") || hasi(s, "flashattn")) {
		why = "'attention' in the name; no unit named";
		enum kc_unit u = unit_tokens(s, &why);
		SET(KC_ATTENTION, u, p, why);
	}
	bool conv = false;
	for (const char *c = strcasestr(s, "conv"); c != NULL; c = strcasestr(c + 4, "conv"))
		if (strncasecmp(c + 4, "ert", 3) != 0)
			conv = true;
	if (conv || hasi(s, "winograd")) {
		if (has(s, "at::native::") || has(s, "slow_conv") || has(s, "conv_depthwise"))
			SET(KC_CONV, KC_UNIT_SIMT, p, "ATen native convolution (CUDA cores)");
		why = "'conv' in the name; no unit named";
		enum kc_unit u = unit_tokens(s, &why);
		SET(KC_CONV, u, p, why);
	}
	bool gemm = false;
	for (const char *g = strcasestr(s, "gemm"); g != NULL; g = strcasestr(g + 4, "gemm"))
		if (!(g - s >= 2 && strncasecmp(g - 2, "fb", 2) == 0))
			gemm = true;
	if (gemm || hasi(s, "matmul") || hasi(s, "gemv") || hasi(s, "_mm_") || hasi(s, "scaled_mm") || word(s, "bmm") ||
	    hasi(s, "fused_moe_kernel")) {
		why = "'gemm'/'matmul' in the name; no unit named";
		enum kc_unit u = unit_tokens(s, &why);
		SET(KC_GEMM, u, p, why);
	}
	if (hasi(s, "softmax"))
		SET(KC_SOFTMAX, lib, p, "softmax kernel");
	static const char *const norms[] = { "layer_norm",    "layernorm",    "rms_norm",       "rmsnorm",
		                             "group_norm",    "groupnorm",    "batch_norm",     "batchnorm",
		                             "instance_norm", "instancenorm", "RowwiseMoments", "GammaBeta",
		                             "l2norm" };
	for (size_t i = 0; i < sizeof norms / sizeof *norms; i++)
		if (hasi(s, norms[i]))
			SET(KC_NORM, lib, p, "normalisation kernel (layer/RMS/group/batch norm)");
	if (hasi(s, "sort") || hasi(s, "topk") || has(s, "DeviceScan") || hasi(s, "_scan") || hasi(s, "scan_") ||
	    hasi(s, "cumsum") || has(s, "DeviceCompact") || has(s, "DeviceSelect") || has(s, "ReduceByKey") ||
	    has(s, "RunLengthEncode") || hasi(s, "unique"))
		SET(KC_SORT, lib, p, "sort/top-k/scan kernel");
	if (has(s, "ClassNLLCriterion_updateGradInput") || has(s, "nll_loss_backward"))
		SET(KC_ELEMENTWISE, lib, p, "loss gradient (elementwise)");
	if (hasi(s, "reduce") || hasi(s, "reduction") || hasi(s, "pool") || has(s, "Criterion") ||
	    hasi(s, "nll_loss") || hasi(s, "cross_entropy") || hasi(s, "argmax") || hasi(s, "argmin") ||
	    has(s, "DeviceHistogram"))
		SET(KC_REDUCTION, lib, p, "reduction, pooling or loss kernel");
	static const char *const ew[] = { "elementwise", "element_wise", "copy",      "Copy",     "fill",
		                          "Fill",        "transpose",    "Transpose", "cast",     "gather",
		                          "scatter",     "index",        "Index",     "upsample", "act_and_mul",
		                          "silu",        "gelu",         "relu",      "dropout",  "permute",
		                          "concat",      "pointwise",    "unary",     "binary",   "multi_tensor_apply",
		                          "where",       "masked",       "clamp",     "arange" };
	for (size_t i = 0; i < sizeof ew / sizeof *ew; i++)
		if (has(s, ew[i]))
			SET(KC_ELEMENTWISE, lib, p, "elementwise kernel (pointwise, copy, fill, gather/scatter)");
	if (has(s, "at::native::"))
		SET(KC_ELEMENTWISE, KC_UNIT_SIMT, p, "other ATen native kernel");
	return false;
}

void kernel_class_of(const char *name, enum kc_activity act, bool comm_stream, struct kernel_class *kc)
{
	const char *s = name != NULL ? name : "";
	struct rule_out r = { KC_OTHER, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "no rule knows the name" };
	const char *why;

	if (act == KC_ACT_MEMCPY || starts(s, "Memcpy ")) {
		r = (struct rule_out){ KC_COPY, KC_UNIT_NONE, KC_PREC_UNKNOWN, "memcpy activity (copy engine)" };
		goto done;
	}
	if (act == KC_ACT_MEMSET || starts(s, "Memset ")) {
		r = (struct rule_out){ KC_COPY, KC_UNIT_NONE, KC_PREC_UNKNOWN, "memset activity" };
		goto done;
	}
	const char *v = starts(s, "void ") ? s + 5 : s;
	if (is_comm(v, &why)) {
		bool nccl = strncasecmp(v, "nccl", 4) == 0 || strncasecmp(v, "rccl", 4) == 0;
		r = (struct rule_out){ KC_COMM, nccl ? KC_UNIT_SIMT : KC_UNIT_UNKNOWN, prec_first(v), why };
		goto done;
	}
	if (rule_triton(v, &r) || rule_attention(v, &r) || rule_trtllm_gen(v, &r) || rule_arch_prefixed(v, &r) ||
	    rule_xmma(v, &r) || rule_nvjet(v, &r) || rule_cutlass_named(v, &r) || rule_tensile(v, &r) ||
	    rule_rocm(v, &r) || rule_gemm_libs(v, &r) || rule_nvidia_helpers(v, &r) || rule_embedding(v, &r) ||
	    rule_cutlass_template(v, &r) || rule_words(v, &r))
		goto done;
	if (comm_stream)
		r = (struct rule_out){ KC_COMM, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN,
			               "unknown kernel on a communication stream" };
done:
	kc->family = r.f;
	kc->unit = r.u;
	kc->prec = r.p;
	kc->reason = r.why;
}

bool kernel_class_is_comm_name(const char *name)
{
	const char *why, *s = name != NULL ? name : "";
	return is_comm(starts(s, "void ") ? s + 5 : s, &why);
}

bool kernel_comm_memo_is(struct kernel_comm_memo *m, const struct strtab *st, uint32_t id)
{
	if (id >= m->n) {
		uint32_t n = id + 1 > m->n * 2 ? id + 1 : m->n * 2;
		m->by_id = xreallocarray(m->by_id, n, 1);
		memset(m->by_id + m->n, 0, n - m->n);
		m->n = n;
	}
	if (m->by_id[id] == 0)
		m->by_id[id] = kernel_class_is_comm_name(strtab_get(st, id)) ? 2 : 1;
	return m->by_id[id] == 2;
}

/* trace.comm_names: made by the first question (the one made first wins), its bytes 0
 * until asked, then 1 or 2 as in kernel_comm_memo; a name interned after it was made is
 * not kept. Relaxed atomics: every thread that works a byte out finds the same value. */
struct comm_names {
	uint32_t n;
	uint8_t by_id[];
};

bool kernel_class_trace_is_comm(const struct trace *t, uint32_t id)
{
	struct comm_names *m = __atomic_load_n(&t->comm_names, __ATOMIC_ACQUIRE);
	if (m == NULL) {
		uint32_t n = t->strings.n;
		struct comm_names *fresh = xcalloc(1, sizeof *fresh + (n ? n : 1));
		fresh->n = n;
		struct comm_names *expected = NULL;
		if (__atomic_compare_exchange_n((struct comm_names **)&t->comm_names, &expected, fresh, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			m = fresh;
		} else {
			free(fresh);
			m = expected;
		}
	}
	if (id >= m->n)
		return kernel_class_is_comm_name(strtab_get(&t->strings, id));
	uint8_t v = __atomic_load_n(&m->by_id[id], __ATOMIC_RELAXED);
	if (v == 0) {
		v = kernel_class_is_comm_name(strtab_get(&t->strings, id)) ? 2 : 1;
		__atomic_store_n(&m->by_id[id], v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

void kernel_comm_memo_free(struct kernel_comm_memo *m)
{
	free(m->by_id);
	m->by_id = NULL;
	m->n = 0;
}

bool kernel_class_is_matmul(enum kc_family f) { return f == KC_GEMM || f == KC_CONV || f == KC_ATTENTION; }

static const char *const family_names[KC_FAMILY__COUNT] = {
	[KC_OTHER] = "other",
	[KC_GEMM] = "gemm",
	[KC_CONV] = "conv",
	[KC_ATTENTION] = "attention",
	[KC_ELEMENTWISE] = "elementwise",
	[KC_REDUCTION] = "reduction",
	[KC_NORM] = "norm",
	[KC_SOFTMAX] = "softmax",
	[KC_COPY] = "copy",
	[KC_COMM] = "comm",
	[KC_EMBEDDING] = "embedding",
	[KC_SORT] = "sort",
};
static const char *const unit_names[KC_UNIT__COUNT] = {
	[KC_UNIT_UNKNOWN] = "unknown",
	[KC_UNIT_MATRIX] = "matrix",
	[KC_UNIT_SIMT] = "simt",
	[KC_UNIT_NONE] = "none",
};
static const char *const prec_names[KC_PREC__COUNT] = {
	[KC_PREC_UNKNOWN] = "unknown", [KC_PREC_FP64] = "fp64", [KC_PREC_FP32] = "fp32",   [KC_PREC_TF32] = "tf32",
	[KC_PREC_BF16] = "bf16",       [KC_PREC_FP16] = "fp16", [KC_PREC_FP8] = "fp8",     [KC_PREC_FP4] = "fp4",
	[KC_PREC_INT8] = "int8",       [KC_PREC_INT4] = "int4", [KC_PREC_MIXED] = "mixed",
};

const char *kernel_class_family_name(enum kc_family f)
{
	return (unsigned)f < KC_FAMILY__COUNT ? family_names[f] : "?";
}
const char *kernel_class_unit_name(enum kc_unit u) { return (unsigned)u < KC_UNIT__COUNT ? unit_names[u] : "?"; }
const char *kernel_class_prec_name(enum kc_prec p) { return (unsigned)p < KC_PREC__COUNT ? prec_names[p] : "?"; }

static int parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (s != NULL && strcmp(names[i], s) == 0)
			return i;
	return -1;
}
int kernel_class_family_parse(const char *s) { return parse(family_names, KC_FAMILY__COUNT, s); }
int kernel_class_unit_parse(const char *s) { return parse(unit_names, KC_UNIT__COUNT, s); }
int kernel_class_prec_parse(const char *s) { return parse(prec_names, KC_PREC__COUNT, s); }
