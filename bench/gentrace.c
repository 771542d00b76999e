/*
 * gentrace.c - fast, deterministic generator of large synthetic PyTorch
 * profiler traces (Chrome trace-event JSON, byte layout as libkineto writes it).
 *
 * Used by bench/run to make the load-time benchmark datasets.  C11 + libc only.
 *
 *   gentrace --target-mb 100 -o big.json
 *   gentrace --ranks 8 --rank 3 --target-mb 100 -o r3.json
 *   gentrace --steps 2 --layers 2            (small, to stdout)
 *   gentrace --legacy --target-mb 96 -o cpu.json  (legacy CPU-only layout)
 *
 * Simulated job: DDP (NCCL) training of a GPT-style transformer, bf16 autocast,
 * one GPU per rank, profiled with record_shapes, profile_memory and with_stack.
 * Each ProfilerStep#N holds a DataLoader fetch, H2D copies, a forward pass with
 * nested aten ops (python_function frames for the module calls), a backward
 * pass on the autograd thread with fwdbwd flows and NCCL AllReduce buckets on
 * stream 20, a fused AdamW step, zero_grad, loss.item() (D2H + stream sync)
 * and a device sync.  The GPU is the bottleneck: kernels queue on stream 7 and
 * never overlap there, except a rare 1 us overlap (about 1 in 5000 kernels).
 *
 * Blocks of traceEvents come in libkineto order: CPU ops / user annotations /
 * fwdbwd flows sorted by ts; [memory] instant events; python_function events;
 * CUDA runtime + GPU activity (+ ac2g flows) in completion order;
 * gpu_user_annotation; M metadata; profiler span records.
 *
 * Speed: the job is simulated once per block (the simulation is cheap and
 * deterministic), so memory use is bounded by one step; all numbers are
 * formatted by hand into a large output buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t u64;
typedef int64_t i64;
typedef uint32_t u32;
typedef int32_t i32;
typedef uint16_t u16;
typedef uint8_t u8;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("gentrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die("out of memory");
	return q;
}

/* ------------------------------------------------------------------ */
/* Output buffer and hand-rolled formatting                            */
/* ------------------------------------------------------------------ */

#define OUT_CAP ((size_t)16 << 20)
static char *ob;
static size_t on;
static int ofd = -1; /* -1: count only */
static u64 ototal;
static int ofirst = 1;
static size_t ev_reserve = 8192; /* max bytes of one event */

static void oflush(void)
{
	if (ofd >= 0) {
		size_t off = 0;
		while (off < on) {
			ssize_t w = write(ofd, ob + off, on - off);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				die("write: %s", strerror(errno));
			}
			off += (size_t)w;
		}
	}
	ototal += on;
	on = 0;
}

static inline void ores(size_t k)
{
	if (on + k > OUT_CAP)
		oflush();
}

typedef struct {
	const char *s;
	u32 n;
} Str;

static inline void oput(const char *s, size_t n)
{
	memcpy(ob + on, s, n);
	on += n;
}
static inline void ostr(Str s) { oput(s.s, s.n); }
#define OL(lit) oput(lit, sizeof(lit) - 1)
static inline void oc(char c) { ob[on++] = c; }

static const char DIG2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			      "8081828384858687888990919293949596979899";

static inline void ou(u64 v)
{
	char tmp[24];
	char *p = tmp + sizeof tmp;
	while (v >= 100) {
		u64 q = v / 100;
		u32 r = (u32)(v - q * 100);
		p -= 2;
		memcpy(p, DIG2 + 2 * r, 2);
		v = q;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, DIG2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	oput(p, (size_t)(tmp + sizeof tmp - p));
}

static inline void oi(i64 v)
{
	if (v < 0) {
		oc('-');
		ou((u64)0 - (u64)v);
	} else {
		ou((u64)v);
	}
}

/* nanoseconds -> microseconds with exactly 3 decimals */
static inline void ous(u64 ns)
{
	u64 us = ns / 1000;
	u32 f = (u32)(ns - us * 1000);
	ou(us);
	oc('.');
	oc((char)('0' + f / 100));
	memcpy(ob + on, DIG2 + 2 * (f % 100), 2);
	on += 2;
}

/* a positive double with up to 15 decimals, trailing zeros removed */
static void odbl(double x)
{
	if (!(x >= 0) || x > 1e15)
		x = 0;
	u64 ip = (u64)x;
	double fr = x - (double)ip;
	u64 f = (u64)(fr * 1e15 + 0.5);
	if (f >= 1000000000000000ULL) {
		ip++;
		f -= 1000000000000000ULL;
	}
	ou(ip);
	oc('.');
	char d[15];
	for (int i = 14; i >= 0; i--) {
		d[i] = (char)('0' + f % 10);
		f /= 10;
	}
	int n = 15;
	while (n > 1 && d[n - 1] == '0')
		n--;
	oput(d, (size_t)n);
}

static inline void ev_open(void)
{
	ores(ev_reserve);
	if (ofirst) {
		OL("\n  {\n");
		ofirst = 0;
	} else {
		OL(",\n  {\n");
	}
}

/* ------------------------------------------------------------------ */
/* Small string helpers (init time only)                               */
/* ------------------------------------------------------------------ */

static Str mkstr(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *b = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b, (size_t)n + 1, fmt, ap);
	va_end(ap);
	Str s = { b, (u32)n };
	return s;
}

/* args are written with ' for " to keep the tables readable */
static Str mkargs(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *b = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b, (size_t)n + 1, fmt, ap);
	va_end(ap);
	for (int i = 0; i < n; i++)
		if (b[i] == '\'')
			b[i] = '"';
	Str s = { b, (u32)n };
	return s;
}

/* ------------------------------------------------------------------ */
/* Configuration and global identity                                   */
/* ------------------------------------------------------------------ */

static u64 opt_seed = 1;
static int opt_ranks = 8, opt_rank = 0, opt_layers = 24, opt_layers_set = 0;
static long opt_steps = -1;
static double opt_target_mb = -1;
static const char *opt_out = NULL;
static double opt_ts_base_us = -1;
static int opt_legacy = 0;

static u64 g_pid;         /* fake OS pid of the CPU process */
static int g_dev;         /* local device id = GPU pid */
static u64 g_base_ns;     /* first step start, ns */
static u64 g_basetime_ns; /* baseTimeNanoseconds */
static char g_trace_id[33];

enum { TH_MAIN, TH_AG, TH_WD, NTH };
static u64 g_tid[NTH];
static const int g_stream_no[2] = { 7, 20 };
static Str g_ranks_str; /* "[0, 1, ..., W-1]" */

static u64 mix64(u64 z)
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------ */
/* Templates                                                           */
/* ------------------------------------------------------------------ */

/* CPU op / user annotation templates */
typedef struct {
	Str pre;  /* '    "ph": "X", "cat": "...", "name": "NAME' */
	Str post; /* '", "pid": PID, "tid": ' */
	Str args; /* ', "Concrete Inputs": ...' or "" */
	Str gpre; /* gpu_user_annotation header up to name end */
	u8 numbered;
	u8 annot;
	u8 rpc; /* record_param_comms: special args */
} OpT;

static OpT *optab;
static int nopt;

static int tp_add(int annot, int numbered, const char *name, Str args)
{
	optab = xrealloc(optab, sizeof(OpT) * (size_t)(nopt + 1));
	OpT *t = &optab[nopt];
	memset(t, 0, sizeof *t);
	t->pre =
		mkstr("    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s", annot ? "user_annotation" : "cpu_op", name);
	t->post = mkstr("\", \"pid\": %llu, \"tid\": ", (unsigned long long)g_pid);
	t->gpre = mkstr("    \"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"%s", name);
	t->args = args;
	t->numbered = (u8)numbered;
	t->annot = (u8)annot;
	return nopt++;
}

static int OP(const char *name, const char *ci, const char *ty, const char *st, const char *di)
{
	Str a = mkargs(", 'Concrete Inputs': %s, 'Input type': %s, 'Input Strides': %s, 'Input Dims': %s", ci, ty, st,
	               di);
	return tp_add(0, 0, name, a);
}
static int OPN(const char *name) /* no shapes (autograd nodes, ...) */
{
	Str a = { "", 0 };
	return tp_add(0, 0, name, a);
}
static int ANN(const char *name, int numbered)
{
	Str a = { "", 0 };
	return tp_add(1, numbered, name, a);
}

/* formatted-shape variants (init time) */
static char fb[4][512];
static const char *F(int i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fb[i], sizeof fb[i], fmt, ap);
	va_end(ap);
	return fb[i];
}

/* kernel templates */
typedef struct {
	Str head;   /* '    "ph": "X", "cat": "kernel", "name": "...", "pid": DEV, "tid": ' */
	Str tail;   /* '      "registers per thread": ...' up to the occupancy value */
	u32 lo, hi; /* duration range, ns */
	u8 nccl;
} KT;

static KT *ktab;
static int nkt;

static int KER(const char *name, double lo_us, double hi_us, int regs, int smem, int gx, int gy, int gz, int bx, int by,
               int bz)
{
	ktab = xrealloc(ktab, sizeof(KT) * (size_t)(nkt + 1));
	KT *k = &ktab[nkt];
	memset(k, 0, sizeof *k);
	k->head =
		mkstr("    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": ", name, g_dev);
	double blocks = (double)gx * gy * gz;
	double thr = (double)bx * by * bz;
	double bps = blocks / 108.0;
	double wps = bps * thr / 32.0;
	int occ = wps >= 64.0 ? 100 : (int)(wps / 64.0 * 100.0);
	k->tail = mkstr("      \"registers per thread\": %d,\n"
	                "      \"shared memory\": %d,\n"
	                "      \"blocks per SM\": %.6f,\n"
	                "      \"warps per SM\": %.6f,\n"
	                "      \"grid\": [%d, %d, %d],\n"
	                "      \"block\": [%d, %d, %d],\n"
	                "      \"est. achieved occupancy %%\": %d",
	                regs, smem, bps, wps, gx, gy, gz, bx, by, bz, occ);
	k->lo = (u32)(lo_us * 1000.0);
	k->hi = (u32)(hi_us * 1000.0);
	k->nccl = strncmp(name, "nccl", 4) == 0;
	return nkt++;
}

/* CUDA runtime templates */
typedef struct {
	Str head; /* '    "ph": "X", "cat": "cuda_runtime", "name": "...", "pid": P, "tid": ' */
	Str cbid; /* '"cbid": N, "correlation": ' */
} RtT;
enum {
	RT_LAUNCH,
	RT_LAUNCHEXC,
	RT_MEMCPY,
	RT_MEMSET,
	RT_STREAMSYNC,
	RT_DEVSYNC,
	RT_WAITEVENT,
	RT_EVENTRECORD,
	RT_EVENTQUERY,
	RT_ISCAPTURING,
	RT_FUNCSETATTR,
	RT_GETPRIO,
	RT_PRIORANGE,
	RT_OCCUPANCY,
	RT_MALLOC,
	NRT
};
static RtT rttab[NRT];
static void RT(int id, const char *name, int cbid)
{
	rttab[id].head =
		mkstr("    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %llu, \"tid\": ", name,
	              (unsigned long long)g_pid);
	rttab[id].cbid = mkstr("\"cbid\": %d, \"correlation\": ", cbid);
}

/* GPU memcpy / memset names */
enum { MC_H2D, MC_D2H, MC_D2D, MS_DEV, NMC };
static Str mctab[NMC];

/* python function names */
typedef struct {
	Str head; /* '    "ph": "X", "cat": "python_function", "name": "NAME' */
	u8 numbered;
} PyT;
static PyT *pytab;
static int npy;
static Str py_post; /* '", "pid": P, "tid": ' */
static int PYF(const char *name, int numbered)
{
	pytab = xrealloc(pytab, sizeof(PyT) * (size_t)(npy + 1));
	pytab[npy].head = mkstr("    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"%s", name);
	pytab[npy].numbered = (u8)numbered;
	return npy++;
}

/* ---- template ids ---- */
/* annotations */
static int A_STEP, A_DATALOADER, A_FORWARD, A_BACKWARD, A_NCCL, A_OPTSTEP, A_ZEROGRAD;
/* linear families: QKV, PROJ, FC, FCPROJ, LMHEAD */
enum { LQKV, LPROJ, LFC, LFCP, LLM, NLIN };
static const int lin_out[NLIN] = { 3072, 1024, 4096, 1024, 50304 };
static const int lin_in[NLIN] = { 1024, 1024, 1024, 4096, 1024 };
static int O_LINEAR[NLIN], O_TO[NLIN], O_TOCOPY[NLIN], O_EMPTYSTR[NLIN], O_COPYW[NLIN], O_TW[NLIN], O_TRW[NLIN],
	O_ASW[NLIN], O_ADDMM[NLIN], O_VIEWOUT[NLIN], O_MMIN[NLIN], O_MMW[NLIN], O_TG[NLIN], O_TRG[NLIN], O_ASG[NLIN],
	O_SUM[NLIN], O_BVIEW[NLIN], O_BTO[NLIN], O_BTOCOPY[NLIN], O_BEMPTYSTR[NLIN], O_BCOPY[NLIN];
static int K_GEMM_F[NLIN], K_GEMM_BI[NLIN], K_GEMM_BW[NLIN];
/* other ops */
static int O_EMB, O_RESHAPE_IDX, O_VIEW_IDX, O_INDEXSEL, O_ADD, O_LN, O_NLN, O_EMPTY, O_EMPTY_SMALL, O_SPLIT, O_AS_QKV,
	O_VIEW_H, O_TR_H, O_AS_H, O_SDPA, O_SDPA_FLASH, O_TR_S, O_AS_S, O_FLASH_FWD, O_EMPTYLIKE, O_TR_BACK, O_CONTIG,
	O_CLONE, O_COPY_C, O_VIEW_MERGE, O_GELU, O_CE, O_LOGSM, O_LOGSM2, O_NLLND, O_NLL, O_NLLFWD, O_STACK, O_UNSQ,
	O_AS_UNSQ, O_CAT_CPU, O_PIN, O_PIN2, O_EMPTY_PIN, O_COPY_PIN, O_TO_IN, O_TOCOPY_IN, O_EMPTYSTR_IN, O_COPY_IN,
	O_ITEM, O_LSD, O_ADAMW, O_RPC, O_ONESLIKE, O_EMPTYLIKE_L, O_FILL_L;
/* backward ops */
static int O_EV_ADDMM, O_BW_ADDMM, O_EV_T, O_BW_T, O_EV_TOCOPY, O_BW_TOCOPY, O_EV_VIEW, O_BW_VIEW, O_EV_ADD, O_BW_ADD,
	O_EV_LN, O_BW_LN, O_NLN_BW, O_EMPTYLIKE_B, O_EV_GELU, O_BW_GELU, O_GELU_BW, O_EV_SDPA, O_BW_SDPA, O_SDPA_BW,
	O_FLASH_BW, O_ZEROS, O_ZERO_, O_FILL_, O_EV_TR, O_BW_TR, O_TR_B, O_AS_B, O_EV_SPLIT, O_BW_SPLIT, O_CAT_B,
	O_EV_CLONE, O_BW_CLONE, O_EV_EMB, O_BW_EMB, O_EMB_BW, O_EMB_DBW, O_ZEROS_E, O_EMPTY_E, O_ZERO_E, O_EV_LOGSM,
	O_BW_LOGSM, O_LOGSM_BW, O_EV_NLL, O_BW_NLL, O_NLL_BW, O_ZERO_NLL, O_EV_ACC, O_ACC, O_DETACH, O_DETACH2,
	O_RESHAPE_B, O_VIEW_B;
/* kernels */
static int K_INDEXSEL, K_ADD, K_COPY, K_LNF, K_FLASHF, K_CLONE, K_GELU, K_SMF, K_NLLF, K_SMB, K_NLLB, K_REDUCE,
	K_LNB_IN, K_LNB_GB, K_FLASHB_DOT, K_FLASHB, K_FLASHB_CVT, K_CAT, K_EMBB, K_ADAMW, K_NCCL, K_GELUB, K_FILL,
	K_COPYF;
/* python */
static int P_WRAPPED, P_CALLIMPL, P_M_GPT, P_M_EMB, P_M_BLOCK, P_M_LN, P_M_ATTN, P_M_LINEAR, P_M_MLP, P_M_GELU,
	P_GPT_FWD, P_EMB_FWD, P_BLOCK_FWD, P_LN_FWD, P_ATTN_FWD, P_LINEAR_FWD, P_MLP_FWD, P_GELU_FWD, P_F_EMB, P_B_EMB,
	P_F_LN, P_B_LN, P_B_LINEAR, P_B_SDPA, P_B_GELU, P_F_CE, P_B_CE, P_T205, P_T206, P_T212, P_T214, P_T215, P_T216,
	P_T218, P_T219, P_DL_NEXT, P_DL_NEXTDATA, P_FETCH, P_COLLATE, P_COLLATE2, P_B_STACK, P_PIN, P_PIN2, P_B_PIN,
	P_B_TO, P_TENSOR_BW, P_AUTOGRAD_BW, P_ENGINE_RUN, P_B_RUNBW, P_OPT_WRAPPER, P_OPT_PROF, P_ADAMW_STEP,
	P_ADAMW_FN, P_FUSED_ADAMW, P_B_FUSED, P_ZERO_GRAD, P_ITEM, P_CUDA_SYNC, P_B_SYNC, P_B_SPLIT, P_B_TRANSPOSE,
	P_B_VIEW, P_B_CONTIG, P_RECFN_ENTER, P_PROF_STEP;

static void init_templates(void)
{
	/* annotations */
	A_STEP = ANN("ProfilerStep#", 1);
	A_DATALOADER = ANN("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0);
	A_FORWARD = ANN("forward", 0);
	A_BACKWARD = ANN("backward", 0);
	A_NCCL = ANN("nccl:all_reduce", 0);
	A_OPTSTEP = ANN("Optimizer.step#AdamW.step", 0);
	A_ZEROGRAD = ANN("Optimizer.zero_grad#AdamW.zero_grad", 0);

	/* linear families */
	static const char *gemm_f[NLIN] = {
		"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn",
		"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn",
		"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn",
		"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x32_stage3_warpsize4x2x1_tensor16x8x16_kernel"
	};
	static const char *gemm_bi[NLIN] = {
		"ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nn",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn",
		"ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nn",
		"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nn",
		"sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize256x128x32_stage3_warpsize4x2x1_tensor16x8x16_kernel"
	};
	static const char *gemm_bw[NLIN] = {
		"ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x5_nt",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nt",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nt",
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nt",
		"sm80_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x32_stage3_warpsize2x4x1_tensor16x8x16_kernel"
	};
	for (int k = 0; k < NLIN; k++) {
		int o = lin_out[k], i = lin_in[k];
		double us = 2.0 * 8192.0 * o * i / 235e6; /* 235 TFLOP/s, in us */
		int tiles = (8192 / 128) * ((o + 127) / 128);
		K_GEMM_F[k] = KER(gemm_f[k], us * 0.93, us * 1.12, 232, 98304, tiles > 65535 ? 65535 : tiles / 2, 2, 1,
		                  128, 1, 1);
		K_GEMM_BI[k] = KER(gemm_bi[k], us * 0.95, us * 1.15, 238, 73728, (8192 / 128) * ((i + 255) / 256), 1, 1,
		                   256, 1, 1);
		K_GEMM_BW[k] = KER(gemm_bw[k], us * 0.98, us * 1.2, 168, 81920, ((o + 63) / 64) * 4, (i + 63) / 64, 1,
		                   128, 1, 1);
		if (k == LLM) {
			O_LINEAR[k] = OP("aten::linear", "['', '', '']", "['c10::BFloat16', 'float', '']",
			                 F(0, "[[%d, %d, 1], [%d, 1], []]", 2048 * i, i, i),
			                 F(1, "[[4, 2048, %d], [%d, %d], []]", i, o, i));
		} else {
			O_LINEAR[k] = OP("aten::linear", "['', '', '']", "['c10::BFloat16', 'float', 'float']",
			                 F(0, "[[%d, %d, 1], [%d, 1], [1]]", 2048 * i, i, i),
			                 F(1, "[[4, 2048, %d], [%d, %d], [%d]]", i, o, i, o));
		}
		O_TO[k] = OP("aten::to", "['', '15', '', '', '', 'False', 'False', '']",
		             "['float', 'Scalar', '', '', '', 'Scalar', 'Scalar', '']",
		             F(0, "[[%d, 1], [], [], [], [], [], [], []]", i),
		             F(1, "[[%d, %d], [], [], [], [], [], [], []]", o, i));
		O_TOCOPY[k] = OP("aten::_to_copy", "['', '15', '', '', '', 'False', '']",
		                 "['float', 'Scalar', '', '', '', 'Scalar', '']",
		                 F(0, "[[%d, 1], [], [], [], [], [], []]", i),
		                 F(1, "[[%d, %d], [], [], [], [], [], []]", o, i));
		O_EMPTYSTR[k] =
			OP("aten::empty_strided", F(0, "['[%d, %d]', '[%d, 1]', '15', '0', '', 'False']", o, i, i),
		           "['', '', 'Scalar', 'Scalar', 'Device', 'Scalar']", "[[], [], [], [], [], []]",
		           "[[], [], [], [], [], []]");
		O_COPYW[k] = OP("aten::copy_", "['', '', 'False']", "['c10::BFloat16', 'float', 'Scalar']",
		                F(0, "[[%d, 1], [%d, 1], []]", i, i), F(1, "[[%d, %d], [%d, %d], []]", o, i, o, i));
		O_TW[k] = OP("aten::t", "['']", "['c10::BFloat16']", F(0, "[[%d, 1]]", i), F(1, "[[%d, %d]]", o, i));
		O_TRW[k] = OP("aten::transpose", "['', '0', '1']", "['c10::BFloat16', 'Scalar', 'Scalar']",
		              F(0, "[[%d, 1], [], []]", i), F(1, "[[%d, %d], [], []]", o, i));
		O_ASW[k] = OP("aten::as_strided", F(0, "['', '[%d, %d]', '[1, %d]', '']", i, o, i),
		              "['c10::BFloat16', '', '', '']", F(1, "[[%d, 1], [], [], []]", i),
		              F(2, "[[%d, %d], [], [], []]", o, i));
		if (k == LLM)
			O_ADDMM[k] = OP("aten::mm", "['', '']", "['c10::BFloat16', 'c10::BFloat16']",
			                F(0, "[[%d, 1], [1, %d]]", i, i), F(1, "[[8192, %d], [%d, %d]]", i, i, o));
		else
			O_ADDMM[k] = OP("aten::addmm", "['', '', '', '1', '1']",
			                "['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'Scalar', 'Scalar']",
			                F(0, "[[1], [%d, 1], [1, %d], [], []]", i, i),
			                F(1, "[[%d], [8192, %d], [%d, %d], [], []]", o, i, i, o));
		O_VIEWOUT[k] = OP("aten::view", F(0, "['', '[4, 2048, %d]']", o), "['c10::BFloat16', '']",
		                  F(1, "[[%d, 1], []]", o), F(2, "[[8192, %d], []]", o));
		O_MMIN[k] = OP("aten::mm", "['', '']", "['c10::BFloat16', 'c10::BFloat16']",
		               F(0, "[[%d, 1], [%d, 1]]", o, i), F(1, "[[8192, %d], [%d, %d]]", o, o, i));
		O_MMW[k] = OP("aten::mm", "['', '']", "['c10::BFloat16', 'c10::BFloat16']",
		              F(0, "[[1, %d], [%d, 1]]", o, i), F(1, "[[%d, 8192], [8192, %d]]", o, i));
		O_TG[k] = OP("aten::t", "['']", "['c10::BFloat16']", F(0, "[[%d, 1]]", o), F(1, "[[8192, %d]]", o));
		O_TRG[k] = OP("aten::transpose", "['', '0', '1']", "['c10::BFloat16', 'Scalar', 'Scalar']",
		              F(0, "[[%d, 1], [], []]", o), F(1, "[[8192, %d], [], []]", o));
		O_ASG[k] = OP("aten::as_strided", F(0, "['', '[%d, 8192]', '[1, %d]', '']", o, o),
		              "['c10::BFloat16', '', '', '']", F(1, "[[%d, 1], [], [], []]", o),
		              F(2, "[[8192, %d], [], [], []]", o));
		O_SUM[k] = OP("aten::sum", "['', '[0]', 'True', '']", "['c10::BFloat16', '', 'Scalar', '']",
		              F(0, "[[%d, 1], [], [], []]", o), F(1, "[[8192, %d], [], [], []]", o));
		O_BVIEW[k] = OP("aten::view", F(0, "['', '[8192, %d]']", o), "['c10::BFloat16', '']",
		                F(1, "[[%d, %d, 1], []]", 2048 * o, o), F(2, "[[4, 2048, %d], []]", o));
		O_BTO[k] = OP("aten::to", "['', '6', 'False', 'False', '']",
		              "['c10::BFloat16', 'Scalar', 'Scalar', 'Scalar', '']",
		              F(0, "[[%d, 1], [], [], [], []]", i), F(1, "[[%d, %d], [], [], [], []]", o, i));
		O_BTOCOPY[k] = OP("aten::_to_copy", "['', '6', '', '', '', 'False', '']",
		                  "['c10::BFloat16', 'Scalar', '', '', '', 'Scalar', '']",
		                  F(0, "[[%d, 1], [], [], [], [], [], []]", i),
		                  F(1, "[[%d, %d], [], [], [], [], [], []]", o, i));
		O_BEMPTYSTR[k] =
			OP("aten::empty_strided", F(0, "['[%d, %d]', '[%d, 1]', '6', '0', '', 'False']", o, i, i),
		           "['', '', 'Scalar', 'Scalar', 'Device', 'Scalar']", "[[], [], [], [], [], []]",
		           "[[], [], [], [], [], []]");
		O_BCOPY[k] = OP("aten::copy_", "['', '', 'False']", "['float', 'c10::BFloat16', 'Scalar']",
		                F(0, "[[%d, 1], [%d, 1], []]", i, i), F(1, "[[%d, %d], [%d, %d], []]", o, i, o, i));
	}

	const char *X = "[[2097152, 1024, 1], [2097152, 1024, 1], []]";
	O_EMB = OP("aten::embedding", "['', '', '', '', '']", "['float', 'long int', 'Scalar', 'Scalar', 'Scalar']",
	           "[[1024, 1], [2048, 1], [], [], []]", "[[50304, 1024], [4, 2048], [], [], []]");
	O_RESHAPE_IDX = OP("aten::reshape", "['', '[-1]']", "['long int', '']", "[[2048, 1], []]", "[[4, 2048], []]");
	O_VIEW_IDX = OP("aten::view", "['', '[-1]']", "['long int', '']", "[[2048, 1], []]", "[[4, 2048], []]");
	O_INDEXSEL = OP("aten::index_select", "['', '0', '']", "['float', 'Scalar', 'long int']",
	                "[[1024, 1], [], [1]]", "[[50304, 1024], [], [8192]]");
	O_ADD = OP("aten::add", "['', '', '1']", "['c10::BFloat16', 'c10::BFloat16', 'Scalar']", X,
	           "[[4, 2048, 1024], [4, 2048, 1024], []]");
	O_LN = OP("aten::layer_norm", "['', '[1024]', '', '', '1e-05', 'True']",
	          "['c10::BFloat16', '', 'float', 'float', 'Scalar', 'Scalar']",
	          "[[2097152, 1024, 1], [], [1], [1], [], []]", "[[4, 2048, 1024], [], [1024], [1024], [], []]");
	O_NLN = OP("aten::native_layer_norm", "['', '[1024]', '', '', '1e-05']",
	           "['c10::BFloat16', '', 'float', 'float', 'Scalar']", "[[2097152, 1024, 1], [], [1], [1], []]",
	           "[[4, 2048, 1024], [], [1024], [1024], []]");
	O_EMPTY = OP("aten::empty", "['', '', '', '', '', '']", "['', 'ScalarType', '', 'Device', '', '']",
	             "[[], [], [], [], [], []]", "[[], [], [], [], [], []]");
	O_EMPTY_SMALL = OP("aten::empty", "['[8192]', '6', '0', '', 'False', '']",
	                   "['', 'Scalar', 'Scalar', 'Device', 'Scalar', '']", "[[], [], [], [], [], []]",
	                   "[[], [], [], [], [], []]");
	O_SPLIT = OP("aten::split_with_sizes", "['', '[1024, 1024, 1024]', '2']", "['c10::BFloat16', '', 'Scalar']",
	             "[[6291456, 3072, 1], [], []]", "[[4, 2048, 3072], [], []]");
	O_AS_QKV = OP("aten::as_strided", "['', '[4, 2048, 1024]', '[6291456, 3072, 1]', '']",
	              "['c10::BFloat16', '', '', '']", "[[6291456, 3072, 1], [], [], []]",
	              "[[4, 2048, 3072], [], [], []]");
	O_VIEW_H = OP("aten::view", "['', '[4, 2048, 16, 64]']", "['c10::BFloat16', '']", "[[6291456, 3072, 1], []]",
	              "[[4, 2048, 1024], []]");
	O_TR_H = OP("aten::transpose", "['', '1', '2']", "['c10::BFloat16', 'Scalar', 'Scalar']",
	            "[[6291456, 3072, 64, 1], [], []]", "[[4, 2048, 16, 64], [], []]");
	O_AS_H = OP("aten::as_strided", "['', '[4, 16, 2048, 64]', '[6291456, 64, 3072, 1]', '']",
	            "['c10::BFloat16', '', '', '']", "[[6291456, 3072, 64, 1], [], [], []]",
	            "[[4, 2048, 16, 64], [], [], []]");
	O_SDPA = OP("aten::scaled_dot_product_attention", "['', '', '', '', '0.', 'True', '', 'False']",
	            "['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', '', 'Scalar', 'Scalar', '', 'Scalar']",
	            "[[6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [], [], [], [], []]",
	            "[[4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048, 64], [], [], [], [], []]");
	O_SDPA_FLASH = OP("aten::_scaled_dot_product_flash_attention", "['', '', '', '0.', 'True', 'False', '']",
	                  "['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'Scalar', 'Scalar', 'Scalar', '']",
	                  "[[6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [], [], [], []]",
	                  "[[4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048, 64], [], [], [], []]");
	O_TR_S = OP("aten::transpose", "['', '1', '2']", "['c10::BFloat16', 'Scalar', 'Scalar']",
	            "[[6291456, 64, 3072, 1], [], []]", "[[4, 16, 2048, 64], [], []]");
	O_AS_S = OP("aten::as_strided", "['', '[4, 2048, 16, 64]', '[6291456, 3072, 64, 1]', '']",
	            "['c10::BFloat16', '', '', '']", "[[6291456, 64, 3072, 1], [], [], []]",
	            "[[4, 16, 2048, 64], [], [], []]");
	O_FLASH_FWD = OP(
		"aten::_flash_attention_forward",
		"['', '', '', '', '', '2048', '2048', '0.', 'True', 'False', '', '', '', '']",
		"['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', '', '', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '', '', '', '']",
		"[[6291456, 3072, 64, 1], [6291456, 3072, 64, 1], [6291456, 3072, 64, 1], [], [], [], [], [], [], [], [], [], [], []]",
		"[[4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [], [], [], [], [], [], [], [], [], [], []]");
	O_EMPTYLIKE = OP("aten::empty_like", "['', '', '', '', '', '']", "['c10::BFloat16', '', '', '', '', '']",
	                 "[[2097152, 1024, 64, 1], [], [], [], [], []]", "[[4, 2048, 16, 64], [], [], [], [], []]");
	O_TR_BACK = OP("aten::transpose", "['', '1', '2']", "['c10::BFloat16', 'Scalar', 'Scalar']",
	               "[[2097152, 1024, 64, 1], [], []]", "[[4, 2048, 16, 64], [], []]");
	O_CONTIG = OP("aten::contiguous", "['', '0']", "['c10::BFloat16', 'Scalar']", "[[2097152, 64, 1024, 1], []]",
	              "[[4, 2048, 16, 64], []]");
	O_CLONE = OP("aten::clone", "['', '0']", "['c10::BFloat16', 'Scalar']", "[[2097152, 64, 1024, 1], []]",
	             "[[4, 2048, 16, 64], []]");
	O_COPY_C = OP("aten::copy_", "['', '', 'False']", "['c10::BFloat16', 'c10::BFloat16', 'Scalar']",
	              "[[2097152, 1024, 64, 1], [2097152, 64, 1024, 1], []]",
	              "[[4, 2048, 16, 64], [4, 2048, 16, 64], []]");
	O_VIEW_MERGE = OP("aten::view", "['', '[4, 2048, 1024]']", "['c10::BFloat16', '']",
	                  "[[2097152, 1024, 64, 1], []]", "[[4, 2048, 16, 64], []]");
	O_GELU = OP("aten::gelu", "['', 'tanh']", "['c10::BFloat16', '']", "[[8388608, 4096, 1], []]",
	            "[[4, 2048, 4096], []]");
	O_CE = OP("aten::cross_entropy_loss", "['', '', '', '1', '-1', '0.']",
	          "['c10::BFloat16', 'long int', '', 'Scalar', 'Scalar', 'Scalar']",
	          "[[50304, 1], [1], [], [], [], []]", "[[8192, 50304], [8192], [], [], [], []]");
	O_LOGSM = OP("aten::log_softmax", "['', '1', '']", "['c10::BFloat16', 'Scalar', '']", "[[50304, 1], [], []]",
	             "[[8192, 50304], [], []]");
	O_LOGSM2 = OP("aten::_log_softmax", "['', '1', 'False']", "['c10::BFloat16', 'Scalar', 'Scalar']",
	              "[[50304, 1], [], []]", "[[8192, 50304], [], []]");
	O_NLLND = OP("aten::nll_loss_nd", "['', '', '', '1', '-1']", "['float', 'long int', '', 'Scalar', 'Scalar']",
	             "[[50304, 1], [1], [], [], []]", "[[8192, 50304], [8192], [], [], []]");
	O_NLL = OP("aten::nll_loss", "['', '', '', '1', '-1']", "['float', 'long int', '', 'Scalar', 'Scalar']",
	           "[[50304, 1], [1], [], [], []]", "[[8192, 50304], [8192], [], [], []]");
	O_NLLFWD =
		OP("aten::nll_loss_forward", "['', '', '', '1', '-1']", "['float', 'long int', '', 'Scalar', 'Scalar']",
	           "[[50304, 1], [1], [], [], []]", "[[8192, 50304], [8192], [], [], []]");
	O_STACK = OP("aten::stack", "['', '0']", "['TensorList', 'Scalar']", "[[], []]", "[[], []]");
	O_UNSQ = OP("aten::unsqueeze", "['', '0']", "['long int', 'Scalar']", "[[1], []]", "[[2048], []]");
	O_AS_UNSQ = OP("aten::as_strided", "['', '[1, 2048]', '[2048, 1]', '']", "['long int', '', '', '']",
	               "[[1], [], [], []]", "[[2048], [], [], []]");
	O_CAT_CPU = OP("aten::cat", "['', '0']", "['TensorList', 'Scalar']", "[[], []]", "[[], []]");
	O_PIN = OP("aten::pin_memory", "['', '']", "['long int', '']", "[[2048, 1], []]", "[[4, 2048], []]");
	O_PIN2 = OP("aten::_pin_memory", "['', '']", "['long int', '']", "[[2048, 1], []]", "[[4, 2048], []]");
	O_EMPTY_PIN = OP("aten::empty", "['[4, 2048]', '4', '0', '', 'True', '']",
	                 "['', 'Scalar', 'Scalar', 'Device', 'Scalar', '']", "[[], [], [], [], [], []]",
	                 "[[], [], [], [], [], []]");
	O_COPY_PIN = OP("aten::copy_", "['', '', 'False']", "['long int', 'long int', 'Scalar']",
	                "[[2048, 1], [2048, 1], []]", "[[4, 2048], [4, 2048], []]");
	O_TO_IN = OP("aten::to", "['', '', '', 'True', 'False', '']",
	             "['long int', 'Device', 'Scalar', 'Scalar', 'Scalar', '']", "[[2048, 1], [], [], [], [], []]",
	             "[[4, 2048], [], [], [], [], []]");
	O_TOCOPY_IN = OP("aten::_to_copy", "['', '', '', '', '', 'True', '']",
	                 "['long int', '', '', 'Device', '', 'Scalar', '']", "[[2048, 1], [], [], [], [], [], []]",
	                 "[[4, 2048], [], [], [], [], [], []]");
	O_EMPTYSTR_IN = OP("aten::empty_strided", "['[4, 2048]', '[2048, 1]', '4', '0', '', 'False']",
	                   "['', '', 'Scalar', 'Scalar', 'Device', 'Scalar']", "[[], [], [], [], [], []]",
	                   "[[], [], [], [], [], []]");
	O_COPY_IN = OP("aten::copy_", "['', '', 'True']", "['long int', 'long int', 'Scalar']",
	               "[[2048, 1], [2048, 1], []]", "[[4, 2048], [4, 2048], []]");
	O_ITEM = OP("aten::item", "['']", "['float']", "[[]]", "[[]]");
	O_LSD = OP("aten::_local_scalar_dense", "['']", "['float']", "[[]]", "[[]]");
	O_ADAMW = OP(
		"aten::_fused_adamw_", "['', '', '', '', '', '', '', '', '', '', '', '']",
		"['TensorList', 'TensorList', 'TensorList', 'TensorList', 'TensorList', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '', '']",
		"[[], [], [], [], [], [], [], [], [], [], [], []]", "[[], [], [], [], [], [], [], [], [], [], [], []]");
	O_RPC = OPN("record_param_comms");
	optab[O_RPC].rpc = 1;
	O_ONESLIKE = OP("aten::ones_like", "['', '', '', '', '', '']", "['float', '', '', '', '', '']",
	                "[[], [], [], [], [], []]", "[[], [], [], [], [], []]");
	O_EMPTYLIKE_L = OP("aten::empty_like", "['', '', '', '', '', '']", "['float', '', '', '', '', '']",
	                   "[[], [], [], [], [], []]", "[[], [], [], [], [], []]");
	O_FILL_L = OP("aten::fill_", "['', '1']", "['float', 'Scalar']", "[[], []]", "[[], []]");

	/* backward */
	O_EV_ADDMM = OPN("autograd::engine::evaluate_function: AddmmBackward0");
	O_BW_ADDMM = OPN("AddmmBackward0");
	O_EV_T = OPN("autograd::engine::evaluate_function: TBackward0");
	O_BW_T = OPN("TBackward0");
	O_EV_TOCOPY = OPN("autograd::engine::evaluate_function: ToCopyBackward0");
	O_BW_TOCOPY = OPN("ToCopyBackward0");
	O_EV_VIEW = OPN("autograd::engine::evaluate_function: ViewBackward0");
	O_BW_VIEW = OPN("ViewBackward0");
	O_EV_ADD = OPN("autograd::engine::evaluate_function: AddBackward0");
	O_BW_ADD = OPN("AddBackward0");
	O_EV_LN = OPN("autograd::engine::evaluate_function: NativeLayerNormBackward0");
	O_BW_LN = OPN("NativeLayerNormBackward0");
	O_NLN_BW = OP("aten::native_layer_norm_backward", "['', '', '[1024]', '', '', '', '', '']",
	              "['c10::BFloat16', 'c10::BFloat16', '', 'float', 'float', 'float', 'float', '']",
	              "[[2097152, 1024, 1], [2097152, 1024, 1], [], [1], [1], [1], [1], []]",
	              "[[4, 2048, 1024], [4, 2048, 1024], [], [4, 2048, 1], [4, 2048, 1], [1024], [1024], []]");
	O_EMPTYLIKE_B = OP("aten::empty_like", "['', '', '', '', '', '']", "['c10::BFloat16', '', '', '', '', '']",
	                   "[[2097152, 1024, 1], [], [], [], [], []]", "[[4, 2048, 1024], [], [], [], [], []]");
	O_EV_GELU = OPN("autograd::engine::evaluate_function: GeluBackward0");
	O_BW_GELU = OPN("GeluBackward0");
	O_GELU_BW = OP("aten::gelu_backward", "['', '', 'tanh']", "['c10::BFloat16', 'c10::BFloat16', '']",
	               "[[8388608, 4096, 1], [8388608, 4096, 1], []]", "[[4, 2048, 4096], [4, 2048, 4096], []]");
	O_EV_SDPA = OPN("autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0");
	O_BW_SDPA = OPN("ScaledDotProductFlashAttentionBackward0");
	O_SDPA_BW = OP(
		"aten::_scaled_dot_product_flash_attention_backward",
		"['', '', '', '', '', '', '', '', '', '2048', '2048', '0.', 'True', '', '', '']",
		"['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'float', '', '', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '', '', '']",
		"[[6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [6291456, 64, 3072, 1], [2097152, 64, 1024, 1], [32768, 2048, 1], [], [], [], [], [], [], [], [], [], []]",
		"[[4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048, 64], [4, 16, 2048], [], [], [], [], [], [], [], [], [], []]");
	O_FLASH_BW = OP(
		"aten::_flash_attention_backward",
		"['', '', '', '', '', '', '', '', '', '2048', '2048', '0.', 'True', '', '', '', '']",
		"['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'float', '', '', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '', '', '', '']",
		"[[6291456, 3072, 64, 1], [6291456, 3072, 64, 1], [6291456, 3072, 64, 1], [6291456, 3072, 64, 1], [2097152, 1024, 64, 1], [32768, 2048, 1], [], [], [], [], [], [], [], [], [], [], []]",
		"[[4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [4, 16, 2048], [], [], [], [], [], [], [], [], [], [], []]");
	O_ZEROS = OP("aten::zeros", "['[4, 2048, 16, 64]', '6', '', '', '']", "['', 'Scalar', '', 'Device', '']",
	             "[[], [], [], [], []]", "[[], [], [], [], []]");
	O_ZERO_ = OP("aten::zero_", "['']", "['float']", "[[2097152, 1024, 64, 1]]", "[[4, 2048, 16, 64]]");
	O_FILL_ = OP("aten::fill_", "['', '0']", "['float', 'Scalar']", "[[2097152, 1024, 64, 1], []]",
	             "[[4, 2048, 16, 64], []]");
	O_EV_TR = OPN("autograd::engine::evaluate_function: TransposeBackward0");
	O_BW_TR = OPN("TransposeBackward0");
	O_TR_B = OP("aten::transpose", "['', '1', '2']", "['c10::BFloat16', 'Scalar', 'Scalar']",
	            "[[2097152, 64, 1024, 1], [], []]", "[[4, 16, 2048, 64], [], []]");
	O_AS_B = OP("aten::as_strided", "['', '[4, 2048, 16, 64]', '[2097152, 1024, 64, 1]', '']",
	            "['c10::BFloat16', '', '', '']", "[[2097152, 64, 1024, 1], [], [], []]",
	            "[[4, 16, 2048, 64], [], [], []]");
	O_EV_SPLIT = OPN("autograd::engine::evaluate_function: SplitWithSizesBackward0");
	O_BW_SPLIT = OPN("SplitWithSizesBackward0");
	O_CAT_B = OP("aten::cat", "['', '2']", "['TensorList', 'Scalar']", "[[], []]", "[[], []]");
	O_EV_CLONE = OPN("autograd::engine::evaluate_function: CloneBackward0");
	O_BW_CLONE = OPN("CloneBackward0");
	O_EV_EMB = OPN("autograd::engine::evaluate_function: EmbeddingBackward0");
	O_BW_EMB = OPN("EmbeddingBackward0");
	O_EMB_BW =
		OP("aten::embedding_backward", "['', '', '50304', '-1', 'False', 'False']",
	           "['c10::BFloat16', 'long int', 'Scalar', 'Scalar', 'Scalar', 'Scalar']",
	           "[[2097152, 1024, 1], [2048, 1], [], [], [], []]", "[[4, 2048, 1024], [4, 2048], [], [], [], []]");
	O_EMB_DBW = OP("aten::embedding_dense_backward", "['', '', '50304', '-1', 'False']",
	               "['c10::BFloat16', 'long int', 'Scalar', 'Scalar', 'Scalar']",
	               "[[2097152, 1024, 1], [2048, 1], [], [], []]", "[[4, 2048, 1024], [4, 2048], [], [], []]");
	O_ZEROS_E = OP("aten::zeros", "['[50304, 1024]', '6', '', '', '']", "['', 'Scalar', '', 'Device', '']",
	               "[[], [], [], [], []]", "[[], [], [], [], []]");
	O_EMPTY_E = OP("aten::empty", "['[50304, 1024]', '6', '', '', '', '']", "['', 'Scalar', '', 'Device', '', '']",
	               "[[], [], [], [], [], []]", "[[], [], [], [], [], []]");
	O_ZERO_E = OP("aten::zero_", "['']", "['float']", "[[1024, 1]]", "[[50304, 1024]]");
	O_EV_LOGSM = OPN("autograd::engine::evaluate_function: LogSoftmaxBackward0");
	O_BW_LOGSM = OPN("LogSoftmaxBackward0");
	O_LOGSM_BW =
		OP("aten::_log_softmax_backward_data", "['', '', '1', '15']", "['float', 'float', 'Scalar', 'Scalar']",
	           "[[50304, 1], [50304, 1], [], []]", "[[8192, 50304], [8192, 50304], [], []]");
	O_EV_NLL = OPN("autograd::engine::evaluate_function: NllLossBackward0");
	O_BW_NLL = OPN("NllLossBackward0");
	O_NLL_BW = OP("aten::nll_loss_backward", "['', '', '', '', '1', '-1', '']",
	              "['float', 'float', 'long int', '', 'Scalar', 'Scalar', 'float']",
	              "[[], [50304, 1], [1], [], [], [], []]", "[[], [8192, 50304], [8192], [], [], [], []]");
	O_ZERO_NLL = OP("aten::zero_", "['']", "['float']", "[[50304, 1]]", "[[8192, 50304]]");
	O_EV_ACC = OPN("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
	O_ACC = OPN("torch::autograd::AccumulateGrad");
	O_DETACH = OP("aten::detach", "['']", "['float']", "[[1024, 1]]", "[[1024, 1024]]");
	O_DETACH2 = OP("detach", "['']", "['float']", "[[1024, 1]]", "[[1024, 1024]]");
	O_RESHAPE_B = OP("aten::reshape", "['', '[4, 2048, 16, 64]']", "['c10::BFloat16', '']",
	                 "[[2097152, 1024, 1], []]", "[[4, 2048, 1024], []]");
	O_VIEW_B = OP("aten::view", "['', '[4, 2048, 16, 64]']", "['c10::BFloat16', '']", "[[2097152, 1024, 1], []]",
	              "[[4, 2048, 1024], []]");

	/* kernels: name, dur lo/hi us, regs, smem, grid, block */
	K_INDEXSEL = KER(
		"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
		40, 65, 40, 0, 16384, 1, 1, 32, 4, 1);
	K_ADD = KER(
		"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
		24, 34, 26, 0, 16384, 1, 1, 128, 1, 1);
	K_COPY = KER(
		"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
		6, 14, 30, 0, 6144, 1, 1, 128, 1, 1);
	K_COPYF = KER(
		"void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
		8, 16, 24, 0, 6144, 1, 1, 128, 1, 1);
	K_LNF = KER(
		"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
		24, 34, 32, 0, 8192, 1, 1, 32, 4, 1);
	K_FLASHF = KER(
		"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
		270, 330, 255, 49152, 16, 4, 16, 128, 1, 1);
	K_CLONE = KER(
		"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})",
		28, 40, 30, 0, 16384, 1, 1, 128, 1, 1);
	K_GELU = KER(
		"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
		52, 66, 28, 0, 65536, 1, 1, 128, 1, 1);
	K_GELUB = KER(
		"void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3>)",
		78, 96, 32, 0, 65536, 1, 1, 128, 1, 1);
	K_SMF = KER(
		"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int)",
		820, 960, 38, 0, 8192, 1, 1, 1024, 1, 1);
	K_NLLF = KER(
		"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
		14, 22, 32, 2048, 1, 1, 1, 32, 1, 1);
	K_SMB = KER(
		"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)",
		1150, 1350, 36, 0, 8192, 1, 1, 1024, 1, 1);
	K_NLLB = KER(
		"void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
		6, 10, 24, 0, 1, 1, 1, 1024, 1, 1);
	K_FILL = KER(
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		1.5, 2.6, 16, 0, 1, 1, 1, 128, 1, 1);
	K_REDUCE = KER(
		"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)",
		18, 36, 32, 16, 48, 16, 1, 32, 16, 1);
	K_LNB_IN = KER(
		"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
		30, 42, 40, 0, 8192, 1, 1, 128, 1, 1);
	K_LNB_GB = KER(
		"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)",
		24, 34, 38, 8448, 32, 1, 1, 32, 32, 1);
	K_FLASHB_DOT = KER(
		"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params)",
		10, 16, 32, 0, 16, 4, 16, 256, 1, 1);
	K_FLASHB = KER(
		"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, true, false, false>(pytorch_flash::Flash_bwd_params)",
		700, 820, 255, 81920, 16, 4, 16, 256, 1, 1);
	K_FLASHB_CVT = KER(
		"void pytorch_flash::flash_bwd_convert_dq_kernel<pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params, int)",
		14, 22, 40, 16384, 16, 4, 16, 256, 1, 1);
	K_CAT = KER(
		"void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous namespace)::OpaqueType<2>, unsigned int, 3, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<2>, unsigned int, 64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		40, 58, 32, 0, 432, 3, 1, 512, 1, 1);
	K_EMBB = KER(
		"void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>(long const*, c10::BFloat16 const*, float*, int, long, int)",
		150, 240, 48, 4352, 32, 1, 1, 32, 32, 1);
	K_ADAMW = KER(
		"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, double*, double*>(at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, double*, double*)",
		380, 520, 96, 0, 320, 1, 1, 512, 1, 1);
	K_NCCL = KER("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 0, 96, 9248, 24, 1,
	             1, 512, 1, 1);

	RT(RT_LAUNCH, "cudaLaunchKernel", 211);
	RT(RT_LAUNCHEXC, "cudaLaunchKernelExC", 430);
	RT(RT_MEMCPY, "cudaMemcpyAsync", 41);
	RT(RT_MEMSET, "cudaMemsetAsync", 51);
	RT(RT_STREAMSYNC, "cudaStreamSynchronize", 131);
	RT(RT_DEVSYNC, "cudaDeviceSynchronize", 165);
	RT(RT_WAITEVENT, "cudaStreamWaitEvent", 147);
	RT(RT_EVENTRECORD, "cudaEventRecord", 135);
	RT(RT_EVENTQUERY, "cudaEventQuery", 138);
	RT(RT_ISCAPTURING, "cudaStreamIsCapturing", 317);
	RT(RT_FUNCSETATTR, "cudaFuncSetAttribute", 239);
	RT(RT_GETPRIO, "cudaStreamGetPriority", 203);
	RT(RT_PRIORANGE, "cudaDeviceGetStreamPriorityRange", 205);
	RT(RT_OCCUPANCY, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 266);
	RT(RT_MALLOC, "cudaMalloc", 20);

	static const char *mcn[NMC] = { "Memcpy HtoD (Pinned -> Device)", "Memcpy DtoH (Device -> Pageable)",
		                        "Memcpy DtoD (Device -> Device)", "Memset (Device)" };
	for (int i = 0; i < NMC; i++)
		mctab[i] = mkstr("    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": ",
		                 i == MS_DEV ? "gpu_memset" : "gpu_memcpy", mcn[i], g_dev);

	/* python */
	py_post = mkstr("\", \"pid\": %llu, \"tid\": ", (unsigned long long)g_pid);
	P_WRAPPED = PYF("torch/nn/modules/module.py(1775): _wrapped_call_impl", 0);
	P_CALLIMPL = PYF("torch/nn/modules/module.py(1786): _call_impl", 0);
	P_M_GPT = PYF("nn.Module: GPT_", 1);
	P_M_EMB = PYF("nn.Module: Embedding_", 1);
	P_M_BLOCK = PYF("nn.Module: Block_", 1);
	P_M_LN = PYF("nn.Module: LayerNorm_", 1);
	P_M_ATTN = PYF("nn.Module: CausalSelfAttention_", 1);
	P_M_LINEAR = PYF("nn.Module: Linear_", 1);
	P_M_MLP = PYF("nn.Module: MLP_", 1);
	P_M_GELU = PYF("nn.Module: GELU_", 1);
	P_GPT_FWD = PYF("model.py(181): forward", 0);
	P_EMB_FWD = PYF("torch/nn/modules/sparse.py(190): forward", 0);
	P_BLOCK_FWD = PYF("model.py(96): forward", 0);
	P_LN_FWD = PYF("torch/nn/modules/normalization.py(217): forward", 0);
	P_ATTN_FWD = PYF("model.py(48): forward", 0);
	P_LINEAR_FWD = PYF("torch/nn/modules/linear.py(125): forward", 0);
	P_MLP_FWD = PYF("model.py(80): forward", 0);
	P_GELU_FWD = PYF("torch/nn/modules/activation.py(734): forward", 0);
	P_F_EMB = PYF("torch/nn/functional.py(2551): embedding", 0);
	P_B_EMB = PYF("<built-in method embedding of type object at 0x7f3c5a8b1f20>", 0);
	P_F_LN = PYF("torch/nn/functional.py(2900): layer_norm", 0);
	P_B_LN = PYF("<built-in method layer_norm of type object at 0x7f3c5a8b1f20>", 0);
	P_B_LINEAR = PYF("<built-in function linear>", 0);
	P_B_SDPA = PYF("<built-in function scaled_dot_product_attention>", 0);
	P_B_GELU = PYF("<built-in function gelu>", 0);
	P_F_CE = PYF("torch/nn/functional.py(3462): cross_entropy", 0);
	P_B_CE = PYF("<built-in function cross_entropy_loss>", 0);
	P_T205 = PYF("train.py(205): train_step", 0);
	P_T206 = PYF("train.py(206): train_step", 0);
	P_T212 = PYF("train.py(212): train_step", 0);
	P_T214 = PYF("train.py(214): train_step", 0);
	P_T215 = PYF("train.py(215): train_step", 0);
	P_T216 = PYF("train.py(216): train_step", 0);
	P_T218 = PYF("train.py(218): train_step", 0);
	P_T219 = PYF("train.py(219): train_step", 0);
	P_DL_NEXT = PYF("torch/utils/data/dataloader.py(733): __next__", 0);
	P_DL_NEXTDATA = PYF("torch/utils/data/dataloader.py(789): _next_data", 0);
	P_FETCH = PYF("torch/utils/data/_utils/fetch.py(52): fetch", 0);
	P_COLLATE = PYF("torch/utils/data/_utils/collate.py(398): default_collate", 0);
	P_COLLATE2 = PYF("torch/utils/data/_utils/collate.py(212): collate", 0);
	P_B_STACK = PYF("<built-in method stack of type object at 0x7f3c5a8b1f20>", 0);
	P_PIN = PYF("torch/utils/data/_utils/pin_memory.py(70): pin_memory", 0);
	P_PIN2 = PYF("torch/utils/data/_utils/pin_memory.py(83): <genexpr>", 0);
	P_B_PIN = PYF("<method 'pin_memory' of 'torch._C.TensorBase' objects>", 0);
	P_B_TO = PYF("<method 'to' of 'torch._C.TensorBase' objects>", 0);
	P_TENSOR_BW = PYF("torch/_tensor.py(626): backward", 0);
	P_AUTOGRAD_BW = PYF("torch/autograd/__init__.py(347): backward", 0);
	P_ENGINE_RUN = PYF("torch/autograd/graph.py(823): _engine_run_backward", 0);
	P_B_RUNBW = PYF("<method 'run_backward' of 'torch._C._EngineBase' objects>", 0);
	P_OPT_WRAPPER = PYF("torch/optim/optimizer.py(485): wrapper", 0);
	P_OPT_PROF = PYF("torch/optim/optimizer.py(79): _use_grad", 0);
	P_ADAMW_STEP = PYF("torch/optim/adamw.py(209): step", 0);
	P_ADAMW_FN = PYF("torch/optim/adamw.py(738): adamw", 0);
	P_FUSED_ADAMW = PYF("torch/optim/adamw.py(660): _fused_adamw", 0);
	P_B_FUSED = PYF("<built-in method _fused_adamw_ of type object at 0x7f3c5a8b1f20>", 0);
	P_ZERO_GRAD = PYF("torch/optim/optimizer.py(944): zero_grad", 0);
	P_ITEM = PYF("<method 'item' of 'torch._C.TensorBase' objects>", 0);
	P_CUDA_SYNC = PYF("torch/cuda/__init__.py(985): synchronize", 0);
	P_B_SYNC = PYF("<built-in function _cuda_synchronize>", 0);
	P_B_SPLIT = PYF("<method 'split' of 'torch._C.TensorBase' objects>", 0);
	P_B_TRANSPOSE = PYF("<method 'transpose' of 'torch._C.TensorBase' objects>", 0);
	P_B_VIEW = PYF("<method 'view' of 'torch._C.TensorBase' objects>", 0);
	P_B_CONTIG = PYF("<method 'contiguous' of 'torch._C.TensorBase' objects>", 0);
	P_RECFN_ENTER = PYF("torch/autograd/profiler.py(751): __enter__", 0);
	P_PROF_STEP = PYF("torch/profiler/profiler.py(797): step", 0);

	/* size of the largest event */
	size_t mx = 0;
	for (int i = 0; i < nopt; i++)
		if (optab[i].pre.n + optab[i].args.n > mx)
			mx = optab[i].pre.n + optab[i].args.n;
	for (int i = 0; i < nkt; i++)
		if (ktab[i].head.n + ktab[i].tail.n > mx)
			mx = ktab[i].head.n + ktab[i].tail.n;
	ev_reserve = mx + 2 * g_ranks_str.n + 2048;
}

/* ------------------------------------------------------------------ */
/* Simulation                                                          */
/* ------------------------------------------------------------------ */

enum { CK_OP, CK_FLOW_S, CK_FLOW_F };
typedef struct {
	u64 ts, dur, ext;
	u32 ord, seq, aux; /* seq: Sequence number, or flow id for flows */
	i32 gua, fw;
	u16 tmpl;
	u8 kind, th, fwdtid;
} CpuEv;

typedef struct {
	u64 ts, addr, res, alloc;
	i64 bytes;
	u32 ord;
	u8 th, gpu;
} MemEv;

typedef struct {
	u64 ts, dur;
	u32 id, parent, ord;
	i32 num;
	u16 name;
} PyEv;

enum { RK_RT, RK_KERNEL, RK_MEMCPY, RK_MEMSET };
typedef struct {
	u64 ts, dur, end, ext, corr, bytes;
	u32 ord, aux;
	u16 tmpl;
	u8 kind, flow, where; /* where: thread index (runtime) or stream index */
} RtEv;

typedef struct {
	u64 ts, end, ext;
	u32 aux;
	u16 tmpl;
	u8 stream, used;
} GuaEv;

typedef struct {
	u32 seq, flow;
	u8 kind, nblk, layer, lin;
} Fwd;

typedef struct {
	u64 addr, bytes;
} Blk;

#define VEC(T, name) \
	T *name;     \
	size_t n_##name, c_##name
#define VPUSH(s, name)                                                                                          \
	(((s)->n_##name == (s)->c_##name ? ((s)->c_##name = (s)->c_##name ? 2 * (s)->c_##name : 1024,           \
	                                    (s)->name = xrealloc((s)->name, (s)->c_##name * sizeof *(s)->name)) \
	                                 : 0),                                                                  \
	 &(s)->name[(s)->n_##name++])

enum {
	BW_ADDMM,
	BW_T,
	BW_TOCOPY,
	BW_VIEW,
	BW_ADD,
	BW_LN,
	BW_GELU,
	BW_SDPA,
	BW_TR,
	BW_SPLIT,
	BW_CLONE,
	BW_EMB,
	BW_LOGSM,
	BW_NLL
};

typedef struct {
	u64 rng;
	u64 t[NTH];
	int sp[NTH];
	u32 stk[NTH][64];
	int psp;
	u32 pstk[64];
	u64 sfree[2];
	u64 ext, corr, flow, pyid, seq;
	u32 ord;
	u64 gpu_alloc, gpu_res, cpu_alloc, gpu_bump, cpu_bump;
	int fwsp;
	int fwstk[64];
	u32 step_no;
	u64 step_start;
	u64 profile_start, profile_end;
	VEC(CpuEv, cpu);
	VEC(MemEv, mem);
	VEC(PyEv, py);
	VEC(RtEv, rt);
	VEC(GuaEv, gua);
	VEC(Fwd, fw);
	VEC(Blk, act);
	VEC(Blk, wg);
	Blk pend;
	int has_pend;
} Sim;

static inline u64 rnd(Sim *s)
{
	u64 z = (s->rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}
static inline u64 rr(Sim *s, u64 lo, u64 hi) { return lo + rnd(s) % (hi - lo + 1); }
#define US(x) ((u64)((x)*1000.0))

/* --- CPU ops --- */
static u32 op_begin(Sim *s, int th, int tmpl)
{
	s->t[th] += rr(s, 300, 1400);
	u32 idx = (u32)s->n_cpu;
	CpuEv *e = VPUSH(s, cpu);
	e->ts = s->t[th];
	e->dur = 0;
	e->ext = ++s->ext;
	e->ord = s->ord++;
	e->seq = 0;
	e->aux = 0;
	e->gua = -1;
	e->fw = -1;
	e->tmpl = (u16)tmpl;
	e->kind = CK_OP;
	e->th = (u8)th;
	e->fwdtid = 0;
	s->t[th] += rr(s, 200, 800);
	s->stk[th][s->sp[th]++] = idx;
	return idx;
}

static void op_end(Sim *s, int th)
{
	u32 idx = s->stk[th][--s->sp[th]];
	s->t[th] += rr(s, 200, 1000);
	CpuEv *e = &s->cpu[idx];
	e->dur = s->t[th] - e->ts;
	if (e->fw >= 0)
		s->fwsp--;
}

static void leaf(Sim *s, int th, int tmpl)
{
	op_begin(s, th, tmpl);
	s->t[th] += rr(s, 300, 2200);
	op_end(s, th);
}

static u32 ann_begin(Sim *s, int th, int tmpl, u32 aux, int gua_stream)
{
	u32 idx = op_begin(s, th, tmpl);
	s->cpu[idx].aux = aux;
	if (gua_stream >= 0) {
		s->cpu[idx].gua = (i32)s->n_gua;
		GuaEv *g = VPUSH(s, gua);
		g->ts = 0;
		g->end = 0;
		g->ext = s->cpu[idx].ext;
		g->aux = aux;
		g->tmpl = (u16)tmpl;
		g->stream = (u8)gua_stream;
		g->used = 0;
	}
	return idx;
}

static void flow_ev(Sim *s, int kind, int th, u64 ts, u32 id)
{
	CpuEv *e = VPUSH(s, cpu);
	memset(e, 0, sizeof *e);
	e->kind = (u8)kind;
	e->th = (u8)th;
	e->ts = ts;
	e->seq = id;
	e->ord = s->ord++;
	e->gua = -1;
	e->fw = -1;
}

/* forward op that records an autograd node */
static u32 fop_begin(Sim *s, int th, int tmpl, int bwkind, int layer, int lin)
{
	u32 idx = op_begin(s, th, tmpl);
	CpuEv *e = &s->cpu[idx];
	e->seq = (u32)++s->seq;
	e->fwdtid = 0;
	e->fw = (i32)s->n_fw;
	Fwd *f = VPUSH(s, fw);
	f->seq = e->seq;
	f->flow = (u32)++s->flow;
	f->kind = (u8)bwkind;
	f->nblk = 0;
	f->layer = (u8)layer;
	f->lin = (u8)lin;
	s->fwstk[s->fwsp++] = (int)(s->n_fw - 1);
	flow_ev(s, CK_FLOW_S, th, s->cpu[idx].ts, f->flow);
	return idx;
}

/* --- python frames (main thread) --- */
static void py_begin(Sim *s, int name, int num)
{
	s->t[TH_MAIN] += rr(s, 100, 600);
	u32 idx = (u32)s->n_py;
	PyEv *p = VPUSH(s, py);
	p->ts = s->t[TH_MAIN];
	p->dur = 0;
	p->id = (u32)++s->pyid;
	p->parent = s->psp ? s->py[s->pstk[s->psp - 1]].id : 0;
	p->name = (u16)name;
	p->num = num;
	p->ord = s->ord++;
	s->pstk[s->psp++] = idx;
	s->t[TH_MAIN] += rr(s, 100, 500);
}
static void py_end(Sim *s)
{
	u32 idx = s->pstk[--s->psp];
	s->t[TH_MAIN] += rr(s, 100, 600);
	s->py[idx].dur = s->t[TH_MAIN] - s->py[idx].ts;
}
static void py_mod(Sim *s, int cls, int num, int fwd)
{
	py_begin(s, P_WRAPPED, -1);
	py_begin(s, P_CALLIMPL, -1);
	py_begin(s, cls, num);
	py_begin(s, fwd, -1);
}
static void py_mod_end(Sim *s)
{
	py_end(s);
	py_end(s);
	py_end(s);
	py_end(s);
}

/* --- CUDA runtime --- */
static u32 rt_call(Sim *s, int th, int tmpl, u64 lo, u64 hi, int flow_s, int with_ext)
{
	s->t[th] += rr(s, 200, 900);
	u32 idx = (u32)s->n_rt;
	RtEv *r = VPUSH(s, rt);
	r->ts = s->t[th];
	r->dur = rr(s, lo, hi);
	r->end = r->ts + r->dur;
	r->ext = (with_ext && s->sp[th]) ? s->cpu[s->stk[th][s->sp[th] - 1]].ext : 0;
	r->corr = ++s->corr;
	r->bytes = 0;
	r->ord = s->ord++;
	r->aux = 0;
	r->tmpl = (u16)tmpl;
	r->kind = RK_RT;
	r->flow = (u8)(flow_s ? 1 : 0);
	r->where = (u8)th;
	s->t[th] = r->end;
	return idx;
}

static void gua_extend(Sim *s, int th, int stream, u64 start, u64 end)
{
	for (int i = 0; i < s->sp[th]; i++) {
		CpuEv *e = &s->cpu[s->stk[th][i]];
		if (e->gua < 0)
			continue;
		GuaEv *g = &s->gua[e->gua];
		if (g->stream != stream)
			continue;
		if (!g->used || start < g->ts)
			g->ts = start;
		if (!g->used || end > g->end)
			g->end = end;
		g->used = 1;
	}
}

/* queue GPU work on stream si after the runtime call r */
static u64 gpu_start(Sim *s, int si, u64 call_ts, u64 lat_lo, u64 lat_hi)
{
	u64 start = call_ts + rr(s, lat_lo, lat_hi);
	u64 q = s->sfree[si] + rr(s, 1000, 3000);
	if (q > start) {
		start = q;
		/* rare 1 us overlap with the previous kernel on the stream */
		if (rnd(s) % 5000 == 0)
			start = s->sfree[si] - 1000;
	}
	return start;
}

static void launch(Sim *s, int th, int kt, int si, u32 nelems)
{
	u64 lo = 2500, hi = 7500;
	if (rnd(s) % 100 == 0) {
		lo = 15000;
		hi = 60000;
	}
	u32 ri = rt_call(s, th, ktab[kt].nccl ? RT_LAUNCHEXC : RT_LAUNCH, lo, hi, 1, 1);
	RtEv rcopy = s->rt[ri];
	u64 start = gpu_start(s, si, rcopy.ts, 5000, 20000);
	u64 dur;
	if (ktab[kt].nccl) {
		double bytes = (double)nelems * 4.0;
		double w = opt_ranks > 1 ? 2.0 * (opt_ranks - 1) / opt_ranks : 1.0;
		dur = (u64)(18000.0 + bytes * w / 95.0) + rr(s, 0, 20000);
	} else {
		dur = rr(s, ktab[kt].lo, ktab[kt].hi);
	}
	RtEv *k = VPUSH(s, rt);
	k->ts = start;
	k->dur = dur;
	k->end = start + dur;
	k->ext = rcopy.ext;
	k->corr = rcopy.corr;
	k->bytes = 0;
	k->ord = s->ord++;
	k->aux = nelems;
	k->tmpl = (u16)kt;
	k->kind = RK_KERNEL;
	k->flow = 2;
	k->where = (u8)si;
	if (start + dur > s->sfree[si])
		s->sfree[si] = start + dur;
	gua_extend(s, th, si, start, start + dur);
}

static void gpu_copy(Sim *s, int th, int mc, u64 bytes)
{
	int ms = mc == MS_DEV;
	u32 ri = rt_call(s, th, ms ? RT_MEMSET : RT_MEMCPY, ms ? 3000 : 4000, ms ? 6000 : 9000, 1, 1);
	RtEv rcopy = s->rt[ri];
	u64 start = gpu_start(s, 0, rcopy.ts, 3000, 9000);
	double bw = mc == MC_H2D ? 20.0 : mc == MC_D2H ? 6.0 : mc == MS_DEV ? 900.0 : 700.0;
	u64 dur = 1200 + (u64)((double)bytes / bw) + rr(s, 0, 600);
	RtEv *k = VPUSH(s, rt);
	k->ts = start;
	k->dur = dur;
	k->end = start + dur;
	k->ext = rcopy.ext;
	k->corr = rcopy.corr;
	k->bytes = bytes;
	k->ord = s->ord++;
	k->aux = 0;
	k->tmpl = (u16)mc;
	k->kind = ms ? RK_MEMSET : RK_MEMCPY;
	k->flow = 2;
	k->where = 0;
	if (start + dur > s->sfree[0])
		s->sfree[0] = start + dur;
	gua_extend(s, th, 0, start, start + dur);
}

/* blocking sync: duration reaches until the given GPU time */
static void rt_sync(Sim *s, int th, int tmpl, u64 until)
{
	s->t[th] += rr(s, 200, 900);
	u64 ts = s->t[th];
	u64 dur = rr(s, 2000, 6000);
	if (until + 1500 > ts + dur)
		dur = until - ts + rr(s, 1500, 5000);
	RtEv *r = VPUSH(s, rt);
	r->ts = ts;
	r->dur = dur;
	r->end = ts + dur;
	r->ext = s->sp[th] ? s->cpu[s->stk[th][s->sp[th] - 1]].ext : 0;
	r->corr = ++s->corr;
	r->bytes = 0;
	r->ord = s->ord++;
	r->aux = 0;
	r->tmpl = (u16)tmpl;
	r->kind = RK_RT;
	r->flow = 1;
	r->where = (u8)th;
	s->t[th] = ts + dur;
}

/* --- memory --- */
#define GPU_BASE 139849302016000ULL
#define CPU_BASE 94129731668736ULL
static Blk mem_alloc(Sim *s, int th, u64 bytes, int gpu)
{
	Blk b;
	b.bytes = bytes;
	if (gpu) {
		if (s->gpu_alloc + bytes > s->gpu_res) {
			u64 need = s->gpu_alloc + bytes - s->gpu_res;
			u64 seg = (need + (20ULL << 20) - 1) / (20ULL << 20) * (20ULL << 20);
			rt_call(s, th, RT_MALLOC, 40000, 400000, 0, 1);
			rt_call(s, th, RT_ISCAPTURING, 600, 1500, 0, 1);
			s->gpu_res += seg;
		}
		s->gpu_alloc += bytes;
		b.addr = GPU_BASE + s->gpu_bump % (60ULL << 30);
		s->gpu_bump += (bytes + 511) / 512 * 512;
	} else {
		s->cpu_alloc += bytes;
		b.addr = CPU_BASE + s->cpu_bump % (1ULL << 30);
		s->cpu_bump += (bytes + 63) / 64 * 64;
	}
	s->t[th] += rr(s, 100, 500);
	MemEv *m = VPUSH(s, mem);
	m->ts = s->t[th];
	m->addr = b.addr;
	m->bytes = (i64)bytes;
	m->res = gpu ? s->gpu_res : 0;
	m->alloc = gpu ? s->gpu_alloc : s->cpu_alloc;
	m->ord = s->ord++;
	m->th = (u8)th;
	m->gpu = (u8)gpu;
	return b;
}
static void mem_free(Sim *s, int th, Blk b, int gpu)
{
	if (gpu)
		s->gpu_alloc -= b.bytes;
	else
		s->cpu_alloc -= b.bytes;
	s->t[th] += rr(s, 100, 500);
	MemEv *m = VPUSH(s, mem);
	m->ts = s->t[th];
	m->addr = b.addr;
	m->bytes = -(i64)b.bytes;
	m->res = gpu ? s->gpu_res : 0;
	m->alloc = gpu ? s->gpu_alloc : s->cpu_alloc;
	m->ord = s->ord++;
	m->th = (u8)th;
	m->gpu = (u8)gpu;
}
/* activation: freed by the backward of the innermost open forward node */
static void act_alloc(Sim *s, int th, u64 bytes)
{
	Blk b = mem_alloc(s, th, bytes, 1);
	*VPUSH(s, act) = b;
	if (s->fwsp > 0)
		s->fw[s->fwstk[s->fwsp - 1]].nblk++;
}
static void act_free(Sim *s, int th, int n)
{
	while (n-- > 0 && s->n_act > 0) {
		Blk b = s->act[--s->n_act];
		mem_free(s, th, b, 1);
	}
}
/* gradient flowing between backward nodes */
static void grad_alloc(Sim *s, int th, u64 bytes)
{
	Blk b = mem_alloc(s, th, bytes, 1);
	if (s->has_pend)
		mem_free(s, th, s->pend, 1);
	s->pend = b;
	s->has_pend = 1;
}
static void wgrad_alloc(Sim *s, int th, u64 bytes)
{
	Blk b = mem_alloc(s, th, bytes, 1);
	*VPUSH(s, wg) = b;
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

static void linear_fwd(Sim *s, int k, int group, int lin_idx)
{
	const int th = TH_MAIN;
	u64 o = (u64)lin_out[k], i = (u64)lin_in[k];
	py_mod(s, P_M_LINEAR, lin_idx, P_LINEAR_FWD);
	py_begin(s, P_B_LINEAR, -1);
	op_begin(s, th, O_LINEAR[k]);
	op_begin(s, th, O_TO[k]);
	fop_begin(s, th, O_TOCOPY[k], BW_TOCOPY, group, k);
	op_begin(s, th, O_EMPTYSTR[k]);
	act_alloc(s, th, o * i * 2);
	op_end(s, th);
	op_begin(s, th, O_COPYW[k]);
	launch(s, th, K_COPY, 0, 0);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
	fop_begin(s, th, O_TW[k], BW_T, group, k);
	op_begin(s, th, O_TRW[k]);
	leaf(s, th, O_ASW[k]);
	op_end(s, th);
	op_end(s, th);
	fop_begin(s, th, O_ADDMM[k], BW_ADDMM, group, k);
	act_alloc(s, th, 8192 * o * 2);
	if (rnd(s) % 8 == 0) {
		rt_call(s, th, RT_GETPRIO, 700, 2500, 0, 1);
		rt_call(s, th, RT_PRIORANGE, 500, 1300, 0, 1);
	}
	launch(s, th, K_GEMM_F[k], 0, 0);
	op_end(s, th);
	fop_begin(s, th, O_VIEWOUT[k], BW_VIEW, group, k);
	s->t[th] += rr(s, 300, 1500);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_mod_end(s);
}

static void layernorm_fwd(Sim *s, int group, int idx)
{
	const int th = TH_MAIN;
	py_mod(s, P_M_LN, idx, P_LN_FWD);
	py_begin(s, P_F_LN, -1);
	py_begin(s, P_B_LN, -1);
	op_begin(s, th, O_LN);
	fop_begin(s, th, O_NLN, BW_LN, group, 255);
	op_begin(s, th, O_EMPTY);
	act_alloc(s, th, 8192 * 1024 * 2);
	op_end(s, th);
	op_begin(s, th, O_EMPTY_SMALL);
	act_alloc(s, th, 32768);
	op_end(s, th);
	op_begin(s, th, O_EMPTY_SMALL);
	act_alloc(s, th, 32768);
	op_end(s, th);
	launch(s, th, K_LNF, 0, 0);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_end(s);
	py_mod_end(s);
}

static void attention_fwd(Sim *s, int l)
{
	const int th = TH_MAIN;
	const int g = l + 1;
	py_mod(s, P_M_ATTN, l, P_ATTN_FWD);
	linear_fwd(s, LQKV, g, 4 * l);
	py_begin(s, P_B_SPLIT, -1);
	fop_begin(s, th, O_SPLIT, BW_SPLIT, g, 255);
	for (int j = 0; j < 3; j++)
		leaf(s, th, O_AS_QKV);
	op_end(s, th);
	py_end(s);
	for (int j = 0; j < 3; j++) {
		py_begin(s, P_B_VIEW, -1);
		fop_begin(s, th, O_VIEW_H, BW_VIEW, g, 255);
		s->t[th] += rr(s, 300, 1200);
		op_end(s, th);
		py_end(s);
		py_begin(s, P_B_TRANSPOSE, -1);
		fop_begin(s, th, O_TR_H, BW_TR, g, 255);
		leaf(s, th, O_AS_H);
		op_end(s, th);
		py_end(s);
	}
	py_begin(s, P_B_SDPA, -1);
	op_begin(s, th, O_SDPA);
	fop_begin(s, th, O_SDPA_FLASH, BW_SDPA, g, 255);
	for (int j = 0; j < 3; j++) {
		op_begin(s, th, O_TR_S);
		leaf(s, th, O_AS_S);
		op_end(s, th);
	}
	op_begin(s, th, O_FLASH_FWD);
	op_begin(s, th, O_EMPTYLIKE);
	act_alloc(s, th, 8192 * 1024 * 2);
	op_end(s, th);
	op_begin(s, th, O_EMPTY);
	act_alloc(s, th, 4 * 16 * 2048 * 4);
	op_end(s, th);
	if (rnd(s) % 4 == 0)
		rt_call(s, th, RT_FUNCSETATTR, 1200, 4000, 0, 1);
	launch(s, th, K_FLASHF, 0, 0);
	op_end(s, th);
	op_begin(s, th, O_TR_S);
	leaf(s, th, O_AS_S);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_begin(s, P_B_TRANSPOSE, -1);
	fop_begin(s, th, O_TR_BACK, BW_TR, g, 255);
	leaf(s, th, O_AS_B);
	op_end(s, th);
	py_end(s);
	py_begin(s, P_B_CONTIG, -1);
	op_begin(s, th, O_CONTIG);
	fop_begin(s, th, O_CLONE, BW_CLONE, g, 255);
	op_begin(s, th, O_EMPTYLIKE);
	act_alloc(s, th, 8192 * 1024 * 2);
	op_end(s, th);
	op_begin(s, th, O_COPY_C);
	launch(s, th, K_CLONE, 0, 0);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_begin(s, P_B_VIEW, -1);
	fop_begin(s, th, O_VIEW_MERGE, BW_VIEW, g, 255);
	s->t[th] += rr(s, 300, 1200);
	op_end(s, th);
	py_end(s);
	linear_fwd(s, LPROJ, g, 4 * l + 1);
	py_mod_end(s);
}

static void residual_add(Sim *s, int g)
{
	const int th = TH_MAIN;
	fop_begin(s, th, O_ADD, BW_ADD, g, 255);
	act_alloc(s, th, 8192 * 1024 * 2);
	launch(s, th, K_ADD, 0, 0);
	op_end(s, th);
}

static void block_fwd(Sim *s, int l)
{
	const int th = TH_MAIN;
	const int g = l + 1;
	py_mod(s, P_M_BLOCK, l, P_BLOCK_FWD);
	layernorm_fwd(s, g, 2 * l);
	attention_fwd(s, l);
	residual_add(s, g);
	layernorm_fwd(s, g, 2 * l + 1);
	py_mod(s, P_M_MLP, l, P_MLP_FWD);
	linear_fwd(s, LFC, g, 4 * l + 2);
	py_mod(s, P_M_GELU, l, P_GELU_FWD);
	py_begin(s, P_B_GELU, -1);
	fop_begin(s, th, O_GELU, BW_GELU, g, 255);
	act_alloc(s, th, 8192 * 4096 * 2);
	launch(s, th, K_GELU, 0, 0);
	op_end(s, th);
	py_end(s);
	py_mod_end(s);
	linear_fwd(s, LFCP, g, 4 * l + 3);
	py_mod_end(s);
	residual_add(s, g);
	py_mod_end(s);
}

static void forward(Sim *s)
{
	const int th = TH_MAIN;
	const int L = opt_layers;
	py_begin(s, P_T212, -1);
	ann_begin(s, th, A_FORWARD, 0, 0);
	py_mod(s, P_M_GPT, 0, P_GPT_FWD);
	for (int e = 0; e < 2; e++) {
		py_mod(s, P_M_EMB, e, P_EMB_FWD);
		py_begin(s, P_F_EMB, -1);
		py_begin(s, P_B_EMB, -1);
		fop_begin(s, th, O_EMB, BW_EMB, 0, 255);
		op_begin(s, th, O_RESHAPE_IDX);
		leaf(s, th, O_VIEW_IDX);
		op_end(s, th);
		op_begin(s, th, O_INDEXSEL);
		act_alloc(s, th, 8192 * 1024 * 2);
		launch(s, th, K_INDEXSEL, 0, 0);
		op_end(s, th);
		op_end(s, th);
		py_end(s);
		py_end(s);
		py_mod_end(s);
	}
	residual_add(s, 0);
	for (int l = 0; l < L; l++)
		block_fwd(s, l);
	layernorm_fwd(s, L + 1, 2 * L);
	linear_fwd(s, LLM, L + 1, 4 * L);
	py_mod_end(s);
	py_begin(s, P_F_CE, -1);
	py_begin(s, P_B_CE, -1);
	op_begin(s, th, O_CE);
	op_begin(s, th, O_LOGSM);
	fop_begin(s, th, O_LOGSM2, BW_LOGSM, L + 1, 255);
	act_alloc(s, th, 8192ULL * 50304 * 4);
	launch(s, th, K_SMF, 0, 0);
	op_end(s, th);
	op_end(s, th);
	op_begin(s, th, O_NLLND);
	op_begin(s, th, O_NLL);
	fop_begin(s, th, O_NLLFWD, BW_NLL, L + 1, 255);
	act_alloc(s, th, 512);
	launch(s, th, K_NLLF, 0, 0);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_end(s);
	op_end(s, th); /* forward annotation */
	py_end(s);
}

static void accumulate_grad(Sim *s, int th)
{
	op_begin(s, th, O_EV_ACC);
	op_begin(s, th, O_ACC);
	op_begin(s, th, O_DETACH);
	leaf(s, th, O_DETACH2);
	op_end(s, th);
	op_end(s, th);
	op_end(s, th);
}

static void bw_node(Sim *s, const Fwd *f)
{
	const int th = TH_AG;
	int ev, bw;
	switch (f->kind) {
	case BW_ADDMM:
		ev = O_EV_ADDMM;
		bw = O_BW_ADDMM;
		break;
	case BW_T:
		ev = O_EV_T;
		bw = O_BW_T;
		break;
	case BW_TOCOPY:
		ev = O_EV_TOCOPY;
		bw = O_BW_TOCOPY;
		break;
	case BW_VIEW:
		ev = O_EV_VIEW;
		bw = O_BW_VIEW;
		break;
	case BW_ADD:
		ev = O_EV_ADD;
		bw = O_BW_ADD;
		break;
	case BW_LN:
		ev = O_EV_LN;
		bw = O_BW_LN;
		break;
	case BW_GELU:
		ev = O_EV_GELU;
		bw = O_BW_GELU;
		break;
	case BW_SDPA:
		ev = O_EV_SDPA;
		bw = O_BW_SDPA;
		break;
	case BW_TR:
		ev = O_EV_TR;
		bw = O_BW_TR;
		break;
	case BW_SPLIT:
		ev = O_EV_SPLIT;
		bw = O_BW_SPLIT;
		break;
	case BW_CLONE:
		ev = O_EV_CLONE;
		bw = O_BW_CLONE;
		break;
	case BW_EMB:
		ev = O_EV_EMB;
		bw = O_BW_EMB;
		break;
	case BW_LOGSM:
		ev = O_EV_LOGSM;
		bw = O_BW_LOGSM;
		break;
	default:
		ev = O_EV_NLL;
		bw = O_BW_NLL;
		break;
	}
	u32 e1 = op_begin(s, th, ev);
	s->cpu[e1].seq = f->seq;
	s->cpu[e1].fwdtid = 1;
	u32 e2 = op_begin(s, th, bw);
	s->cpu[e2].seq = f->seq;
	s->cpu[e2].fwdtid = 1;
	flow_ev(s, CK_FLOW_F, th, s->cpu[e2].ts, f->flow);
	int k = f->lin < NLIN ? f->lin : 0;
	u64 o = (u64)lin_out[k], i = (u64)lin_in[k];
	int nacc = 0;
	switch (f->kind) {
	case BW_ADDMM:
		op_begin(s, th, O_TW[k]);
		op_begin(s, th, O_TRW[k]);
		leaf(s, th, O_ASW[k]);
		op_end(s, th);
		op_end(s, th);
		op_begin(s, th, O_MMIN[k]);
		grad_alloc(s, th, 8192 * i * 2);
		launch(s, th, K_GEMM_BI[k], 0, 0);
		op_end(s, th);
		op_begin(s, th, O_TG[k]);
		op_begin(s, th, O_TRG[k]);
		leaf(s, th, O_ASG[k]);
		op_end(s, th);
		op_end(s, th);
		op_begin(s, th, O_MMW[k]);
		wgrad_alloc(s, th, o * i * 2);
		launch(s, th, K_GEMM_BW[k], 0, 0);
		op_end(s, th);
		if (k != LLM) {
			op_begin(s, th, O_SUM[k]);
			wgrad_alloc(s, th, o * 2);
			if (rnd(s) % 6 == 0)
				rt_call(s, th, RT_OCCUPANCY, 700, 2000, 0, 1);
			launch(s, th, K_REDUCE, 0, 0);
			op_end(s, th);
			leaf(s, th, O_BVIEW[k]);
			nacc = 1;
		}
		break;
	case BW_T:
		op_begin(s, th, O_TW[k]);
		op_begin(s, th, O_TRW[k]);
		leaf(s, th, O_ASW[k]);
		op_end(s, th);
		op_end(s, th);
		break;
	case BW_TOCOPY:
		op_begin(s, th, O_BTO[k]);
		op_begin(s, th, O_BTOCOPY[k]);
		op_begin(s, th, O_BEMPTYSTR[k]);
		wgrad_alloc(s, th, o * i * 4);
		op_end(s, th);
		op_begin(s, th, O_BCOPY[k]);
		launch(s, th, K_COPYF, 0, 0);
		op_end(s, th);
		op_end(s, th);
		op_end(s, th);
		nacc = 1;
		break;
	case BW_VIEW:
		if (f->lin < NLIN) {
			leaf(s, th, O_BVIEW[k]);
		} else {
			op_begin(s, th, O_RESHAPE_B);
			leaf(s, th, O_VIEW_B);
			op_end(s, th);
		}
		break;
	case BW_ADD:
	case BW_CLONE: s->t[th] += rr(s, 300, 1500); break;
	case BW_LN:
		op_begin(s, th, O_NLN_BW);
		op_begin(s, th, O_EMPTYLIKE_B);
		grad_alloc(s, th, 8192 * 1024 * 2);
		op_end(s, th);
		for (int j = 0; j < 2; j++) {
			op_begin(s, th, O_EMPTY_SMALL);
			wgrad_alloc(s, th, 4096);
			op_end(s, th);
		}
		launch(s, th, K_LNB_IN, 0, 0);
		launch(s, th, K_LNB_GB, 0, 0);
		op_end(s, th);
		nacc = 2;
		break;
	case BW_GELU:
		op_begin(s, th, O_GELU_BW);
		grad_alloc(s, th, 8192 * 4096 * 2);
		launch(s, th, K_GELUB, 0, 0);
		op_end(s, th);
		break;
	case BW_SDPA: {
		op_begin(s, th, O_SDPA_BW);
		op_begin(s, th, O_FLASH_BW);
		for (int j = 0; j < 3; j++) {
			op_begin(s, th, O_EMPTYLIKE);
			grad_alloc(s, th, 8192 * 1024 * 2);
			op_end(s, th);
		}
		op_begin(s, th, O_EMPTY);
		Blk t1 = mem_alloc(s, th, 4 * 16 * 2048 * 4, 1);
		op_end(s, th);
		op_begin(s, th, O_ZEROS);
		op_begin(s, th, O_EMPTY);
		Blk t2 = mem_alloc(s, th, 8192 * 1024 * 4, 1);
		op_end(s, th);
		op_begin(s, th, O_ZERO_);
		op_begin(s, th, O_FILL_);
		launch(s, th, K_FILL, 0, 0);
		op_end(s, th);
		op_end(s, th);
		op_end(s, th);
		if (rnd(s) % 4 == 0)
			rt_call(s, th, RT_FUNCSETATTR, 1200, 4000, 0, 1);
		launch(s, th, K_FLASHB_DOT, 0, 0);
		launch(s, th, K_FLASHB, 0, 0);
		launch(s, th, K_FLASHB_CVT, 0, 0);
		mem_free(s, th, t2, 1);
		mem_free(s, th, t1, 1);
		op_end(s, th);
		op_end(s, th);
		break;
	}
	case BW_TR:
		op_begin(s, th, O_TR_B);
		leaf(s, th, O_AS_B);
		op_end(s, th);
		break;
	case BW_SPLIT:
		op_begin(s, th, O_CAT_B);
		grad_alloc(s, th, 8192 * 3072 * 2);
		launch(s, th, K_CAT, 0, 0);
		op_end(s, th);
		break;
	case BW_EMB:
		op_begin(s, th, O_EMB_BW);
		op_begin(s, th, O_EMB_DBW);
		op_begin(s, th, O_ZEROS_E);
		op_begin(s, th, O_EMPTY_E);
		wgrad_alloc(s, th, 50304ULL * 1024 * 4);
		op_end(s, th);
		op_begin(s, th, O_ZERO_E);
		gpu_copy(s, th, MS_DEV, 50304ULL * 1024 * 4);
		op_end(s, th);
		op_end(s, th);
		launch(s, th, K_EMBB, 0, 0);
		op_end(s, th);
		op_end(s, th);
		nacc = 1;
		break;
	case BW_LOGSM:
		op_begin(s, th, O_LOGSM_BW);
		grad_alloc(s, th, 8192ULL * 50304 * 4);
		launch(s, th, K_SMB, 0, 0);
		op_end(s, th);
		break;
	default: /* BW_NLL */
		op_begin(s, th, O_NLL_BW);
		op_begin(s, th, O_ZERO_NLL);
		grad_alloc(s, th, 8192ULL * 50304 * 4);
		gpu_copy(s, th, MS_DEV, 8192ULL * 50304 * 4);
		op_end(s, th);
		launch(s, th, K_NLLB, 0, 0);
		op_end(s, th);
		break;
	}
	act_free(s, th, f->nblk);
	op_end(s, th); /* XBackward0 */
	for (int j = 0; j < nacc; j++)
		accumulate_grad(s, th);
	op_end(s, th); /* evaluate_function */
}

static u64 group_params(int g)
{
	if (g == 0)
		return 50304ULL * 1024 + 2048 * 1024;
	if (g == opt_layers + 1)
		return 50304ULL * 1024 + 2048;
	return 12596224ULL;
}

static void allreduce_bucket(Sim *s, u64 nelems)
{
	const int th = TH_AG;
	ann_begin(s, th, A_NCCL, 0, 1);
	u32 ri = op_begin(s, th, O_RPC);
	s->cpu[ri].aux = (u32)nelems;
	rt_call(s, th, RT_EVENTRECORD, 1500, 4000, 0, 1);
	u64 ready = s->sfree[0];
	rt_call(s, th, RT_WAITEVENT, 1000, 3000, 1, 1);
	if (s->sfree[1] < ready)
		s->sfree[1] = ready;
	launch(s, th, K_NCCL, 1, (u32)nelems);
	op_end(s, th);
	op_end(s, th);
}

static void backward(Sim *s)
{
	const int th = TH_MAIN;
	py_begin(s, P_T214, -1);
	ann_begin(s, th, A_BACKWARD, 0, -1);
	py_begin(s, P_TENSOR_BW, -1);
	py_begin(s, P_AUTOGRAD_BW, -1);
	op_begin(s, th, O_ONESLIKE);
	op_begin(s, th, O_EMPTYLIKE_L);
	grad_alloc(s, th, 512);
	op_end(s, th);
	op_begin(s, th, O_FILL_L);
	launch(s, th, K_FILL, 0, 0);
	op_end(s, th);
	op_end(s, th);
	py_begin(s, P_ENGINE_RUN, -1);
	py_begin(s, P_B_RUNBW, -1);

	if (s->t[TH_AG] < s->t[TH_MAIN])
		s->t[TH_AG] = s->t[TH_MAIN];
	s->t[TH_AG] += rr(s, 4000, 12000);
	int cur = -1;
	for (size_t n = s->n_fw; n-- > 0;) {
		Fwd f = s->fw[n];
		if (f.layer != cur) {
			if (cur >= 0)
				allreduce_bucket(s, group_params(cur));
			cur = f.layer;
		}
		bw_node(s, &f);
	}
	if (cur >= 0)
		allreduce_bucket(s, group_params(cur));
	act_free(s, TH_AG, (int)s->n_act);
	if (s->has_pend) {
		mem_free(s, TH_AG, s->pend, 1);
		s->has_pend = 0;
	}
	if (s->t[TH_MAIN] < s->t[TH_AG])
		s->t[TH_MAIN] = s->t[TH_AG];
	s->t[TH_MAIN] += rr(s, 3000, 10000);
	py_end(s);
	py_end(s);
	py_end(s);
	py_end(s);
	op_end(s, th);
	py_end(s);
}

static Blk g_pinned[2], g_devin[2];

static void dataloader(Sim *s)
{
	const int th = TH_MAIN;
	py_begin(s, P_T205, -1);
	ann_begin(s, th, A_DATALOADER, 0, -1);
	py_begin(s, P_DL_NEXT, -1);
	py_begin(s, P_DL_NEXTDATA, -1);
	py_begin(s, P_FETCH, -1);
	py_begin(s, P_COLLATE, -1);
	py_begin(s, P_COLLATE2, -1);
	Blk batch[2];
	for (int x = 0; x < 2; x++) {
		py_begin(s, P_B_STACK, -1);
		op_begin(s, th, O_STACK);
		for (int j = 0; j < 4; j++) {
			op_begin(s, th, O_UNSQ);
			leaf(s, th, O_AS_UNSQ);
			op_end(s, th);
		}
		op_begin(s, th, O_CAT_CPU);
		batch[x] = mem_alloc(s, th, 65536, 0);
		s->t[th] += rr(s, 5000, 15000);
		op_end(s, th);
		op_end(s, th);
		py_end(s);
	}
	py_end(s);
	py_end(s);
	py_end(s);
	py_begin(s, P_PIN, -1);
	for (int x = 0; x < 2; x++) {
		py_begin(s, P_PIN2, -1);
		py_begin(s, P_B_PIN, -1);
		op_begin(s, th, O_PIN);
		op_begin(s, th, O_PIN2);
		op_begin(s, th, O_EMPTY_PIN);
		g_pinned[x] = mem_alloc(s, th, 65536, 0);
		op_end(s, th);
		op_begin(s, th, O_COPY_PIN);
		s->t[th] += rr(s, 3000, 10000);
		op_end(s, th);
		op_end(s, th);
		op_end(s, th);
		mem_free(s, th, batch[x], 0);
		py_end(s);
		py_end(s);
	}
	py_end(s);
	py_end(s);
	py_end(s);
	op_end(s, th);
	py_end(s);

	py_begin(s, P_T206, -1);
	for (int x = 0; x < 2; x++) {
		py_begin(s, P_B_TO, -1);
		op_begin(s, th, O_TO_IN);
		op_begin(s, th, O_TOCOPY_IN);
		op_begin(s, th, O_EMPTYSTR_IN);
		g_devin[x] = mem_alloc(s, th, 65536, 1);
		op_end(s, th);
		op_begin(s, th, O_COPY_IN);
		gpu_copy(s, th, MC_H2D, 65536);
		op_end(s, th);
		op_end(s, th);
		op_end(s, th);
		py_end(s);
	}
	py_end(s);
}

static void optimizer(Sim *s)
{
	const int th = TH_MAIN;
	py_begin(s, P_T215, -1);
	py_begin(s, P_OPT_WRAPPER, -1);
	ann_begin(s, th, A_OPTSTEP, 0, 0);
	py_begin(s, P_OPT_PROF, -1);
	py_begin(s, P_ADAMW_STEP, -1);
	rt_call(s, th, RT_WAITEVENT, 1000, 3000, 1, 1);
	if (s->sfree[0] < s->sfree[1])
		s->sfree[0] = s->sfree[1];
	py_begin(s, P_ADAMW_FN, -1);
	py_begin(s, P_FUSED_ADAMW, -1);
	py_begin(s, P_B_FUSED, -1);
	op_begin(s, th, O_ADAMW);
	for (int c = 0; c < 4; c++)
		launch(s, th, K_ADAMW, 0, 0);
	op_end(s, th);
	py_end(s);
	py_end(s);
	py_end(s);
	py_end(s);
	py_end(s);
	op_end(s, th);
	py_end(s);
	py_end(s);

	py_begin(s, P_T216, -1);
	ann_begin(s, th, A_ZEROGRAD, 0, -1);
	py_begin(s, P_ZERO_GRAD, -1);
	for (size_t j = 0; j < s->n_wg; j++)
		mem_free(s, th, s->wg[j], 1);
	s->n_wg = 0;
	py_end(s);
	op_end(s, th);
	py_end(s);
}

static void sim_init(Sim *s)
{
	memset(s, 0, sizeof *s);
	s->rng = mix64(opt_seed ^ mix64((u64)opt_rank + 0x5bd1e995ULL));
	for (int i = 0; i < NTH; i++)
		s->t[i] = g_base_ns;
	s->sfree[0] = s->sfree[1] = g_base_ns;
	s->profile_start = g_base_ns - rr(s, 2000000, 6000000);
	s->step_no = 5;
	s->ext = 0;
	s->corr = 1000 + rr(s, 0, 400);
}

static void sim_free(Sim *s)
{
	free(s->cpu);
	free(s->mem);
	free(s->py);
	free(s->rt);
	free(s->gua);
	free(s->fw);
	free(s->act);
	free(s->wg);
}

static void sim_step(Sim *s)
{
	const int th = TH_MAIN;
	s->n_cpu = s->n_mem = s->n_py = s->n_rt = s->n_gua = s->n_fw = 0;
	s->ord = 0;
	s->t[th] += rr(s, 30000, 120000);
	s->step_start = s->t[th];
	py_begin(s, P_PROF_STEP, -1);
	ann_begin(s, th, A_STEP, s->step_no, 0);
	py_end(s);
	dataloader(s);
	forward(s);
	backward(s);
	optimizer(s);
	/* loss.item() */
	py_begin(s, P_T218, -1);
	py_begin(s, P_ITEM, -1);
	op_begin(s, th, O_ITEM);
	op_begin(s, th, O_LSD);
	gpu_copy(s, th, MC_D2H, 4);
	rt_sync(s, th, RT_STREAMSYNC, s->sfree[0]);
	op_end(s, th);
	op_end(s, th);
	py_end(s);
	py_end(s);
	/* torch.cuda.synchronize() */
	py_begin(s, P_T219, -1);
	py_begin(s, P_CUDA_SYNC, -1);
	py_begin(s, P_B_SYNC, -1);
	rt_sync(s, th, RT_DEVSYNC, s->sfree[0] > s->sfree[1] ? s->sfree[0] : s->sfree[1]);
	py_end(s);
	py_end(s);
	py_end(s);
	for (int x = 0; x < 2; x++) {
		mem_free(s, th, g_devin[x], 1);
		mem_free(s, th, g_pinned[x], 0);
	}
	op_end(s, th); /* ProfilerStep */
	u64 step_end = s->t[th];
	/* NCCL watchdog polls */
	u64 t = s->step_start + rr(s, 100000, 800000);
	while (t < step_end) {
		s->t[TH_WD] = t;
		rt_call(s, TH_WD, RT_EVENTQUERY, 1200, 3500, 0, 0);
		t += rr(s, 400000, 1500000);
	}
	s->profile_end = step_end;
	s->step_no++;
}

/* ------------------------------------------------------------------ */
/* Emission                                                            */
/* ------------------------------------------------------------------ */

static u64 g_evidx, g_nevents;
static Str g_pidtid; /* ', "pid": PID, "tid": ' */
static Str g_rpc1, g_rpc2, g_nccl2;

static void emit_cpu(const CpuEv *e)
{
	g_nevents++;
	ev_open();
	if (e->kind != CK_OP) {
		OL("    \"ph\": \"");
		oc(e->kind == CK_FLOW_S ? 's' : 'f');
		OL("\", \"id\": ");
		ou(e->seq);
		ostr(g_pidtid);
		ou(g_tid[e->th]);
		OL(", \"ts\": ");
		ous(e->ts);
		if (e->kind == CK_FLOW_S)
			OL(",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"\n  }");
		else
			OL(",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"\n  }");
		return;
	}
	const OpT *t = &optab[e->tmpl];
	ostr(t->pre);
	if (t->numbered)
		ou(e->aux);
	ostr(t->post);
	ou(g_tid[e->th]);
	OL(",\n    \"ts\": ");
	ous(e->ts);
	OL(", \"dur\": ");
	ous(e->dur);
	OL(",\n    \"args\": {\n      \"External id\": ");
	ou(e->ext);
	if (e->seq) {
		OL(",\"Sequence number\": ");
		ou(e->seq);
		OL(", \"Fwd thread id\": ");
		oc((char)('0' + e->fwdtid));
		OL(", \"Record function id\": 0");
	} else {
		OL(",\"Record function id\": 0");
	}
	if (t->rpc) {
		ostr(g_rpc1);
		ou(e->aux);
		OL(", \"Out msg nelems\": ");
		ou(e->aux);
		ostr(g_rpc2);
		ou(e->aux);
		OL("]], \"Input type\": [\"float\"]");
	} else {
		ostr(t->args);
	}
	OL(", \"Ev Idx\": ");
	ou(g_evidx++);
	OL("\n    }\n  }");
}

static void emit_mem(const MemEv *m)
{
	g_nevents++;
	ev_open();
	OL("    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    \"pid\": ");
	ou(g_pid);
	OL(", \"tid\": ");
	ou(g_tid[m->th]);
	OL(",\n    \"ts\": ");
	ous(m->ts);
	OL(",\n    \"args\": {\n      \"Total Reserved\": ");
	ou(m->res);
	OL(", \"Total Allocated\": ");
	ou(m->alloc);
	OL(", \"Bytes\": ");
	oi(m->bytes);
	OL(", \"Addr\": ");
	ou(m->addr);
	if (m->gpu) {
		OL(", \"Device Id\": ");
		ou((u64)g_dev);
		OL(", \"Device Type\": 1, \"Ev Idx\": ");
	} else {
		OL(", \"Device Id\": -1, \"Device Type\": 0, \"Ev Idx\": ");
	}
	ou(g_evidx++);
	OL("\n    }\n  }");
}

static void emit_py(const PyEv *p)
{
	g_nevents++;
	ev_open();
	ostr(pytab[p->name].head);
	if (p->num >= 0)
		ou((u64)p->num);
	ostr(py_post);
	ou(g_tid[TH_MAIN]);
	OL(",\n    \"ts\": ");
	ous(p->ts);
	OL(", \"dur\": ");
	ous(p->dur);
	OL(",\n    \"args\": {\n      \"Python parent id\": ");
	if (p->parent)
		ou(p->parent);
	else
		OL("null");
	OL(", \"Python id\": ");
	ou(p->id);
	OL(", \"Ev Idx\": ");
	ou(g_evidx++);
	OL("\n    }\n  }");
}

static void emit_rt(const RtEv *r)
{
	g_nevents++;
	ev_open();
	if (r->kind == RK_RT) {
		ostr(rttab[r->tmpl].head);
		ou(g_tid[r->where]);
		OL(",\n    \"ts\": ");
		ous(r->ts);
		OL(", \"dur\": ");
		ous(r->dur);
		OL(",\n    \"args\": {\n      ");
		if (r->ext) {
			OL("\"External id\": ");
			ou(r->ext);
			OL(",\n      ");
		}
		ostr(rttab[r->tmpl].cbid);
		ou(r->corr);
		OL("\n    }\n  }");
		if (r->flow == 1) {
			g_nevents++;
			ev_open();
			OL("    \"ph\": \"s\", \"id\": ");
			ou(r->corr);
			ostr(g_pidtid);
			ou(g_tid[r->where]);
			OL(", \"ts\": ");
			ous(r->ts);
			OL(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
		}
		return;
	}
	int stream = g_stream_no[r->where];
	if (r->kind == RK_KERNEL)
		ostr(ktab[r->tmpl].head);
	else
		ostr(mctab[r->tmpl]);
	ou((u64)stream);
	OL(",\n    \"ts\": ");
	ous(r->ts);
	OL(", \"dur\": ");
	ous(r->dur);
	OL(",\n    \"args\": {\n      \"External id\": ");
	ou(r->ext);
	if (r->kind == RK_KERNEL) {
		OL(",\n      \"queued\": 0, \"device\": ");
		ou((u64)g_dev);
		OL(", \"context\": 1,\n      \"stream\": ");
		ou((u64)stream);
		OL(", \"correlation\": ");
		ou(r->corr);
		OL(",\n");
		ostr(ktab[r->tmpl].tail);
		if (ktab[r->tmpl].nccl) {
			OL(",\n      \"Collective name\": \"allreduce\", \"In msg nelems\": ");
			ou(r->aux);
			OL(", \"Out msg nelems\": ");
			ou(r->aux);
			ostr(g_nccl2);
		}
	} else {
		OL(",\n      \"device\": ");
		ou((u64)g_dev);
		OL(", \"context\": 1,\n      \"stream\": ");
		ou((u64)stream);
		OL(", \"correlation\": ");
		ou(r->corr);
		OL(",\n      \"bytes\": ");
		ou(r->bytes);
		OL(", \"memory bandwidth (GB/s)\": ");
		odbl(r->dur ? (double)r->bytes / (double)r->dur : 0.0);
	}
	OL("\n    }\n  }");
	g_nevents++;
	ev_open();
	OL("    \"ph\": \"f\", \"id\": ");
	ou(r->corr);
	OL(", \"pid\": ");
	ou((u64)g_dev);
	OL(", \"tid\": ");
	ou((u64)stream);
	OL(", \"ts\": ");
	ous(r->ts);
	OL(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }");
}

static void emit_gua(const GuaEv *g)
{
	const OpT *t = &optab[g->tmpl];
	g_nevents++;
	ev_open();
	ostr(t->gpre);
	if (t->numbered)
		ou(g->aux);
	OL("\", \"pid\": ");
	ou((u64)g_dev);
	OL(", \"tid\": ");
	ou((u64)g_stream_no[g->stream]);
	OL(",\n    \"ts\": ");
	ous(g->ts);
	OL(", \"dur\": ");
	ous(g->end - g->ts);
	OL(",\n    \"args\": {\n      \"External id\": ");
	ou(g->ext);
	OL("\n    }\n  }");
}

static int cmp_cpu(const void *a, const void *b)
{
	const CpuEv *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}
static int cmp_mem(const void *a, const void *b)
{
	const MemEv *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}
static int cmp_py(const void *a, const void *b)
{
	const PyEv *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}
static int cmp_rt(const void *a, const void *b)
{
	const RtEv *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static GuaEv *g_gua;
static size_t g_ngua, g_cgua;

enum { B_CPU = 1, B_MEM = 2, B_PY = 4, B_RT = 8 };
static void emit_blocks(Sim *s, int mask, int keep_gua)
{
	if (mask & B_CPU) {
		qsort(s->cpu, s->n_cpu, sizeof *s->cpu, cmp_cpu);
		for (size_t i = 0; i < s->n_cpu; i++)
			emit_cpu(&s->cpu[i]);
	}
	if (mask & B_MEM) {
		qsort(s->mem, s->n_mem, sizeof *s->mem, cmp_mem);
		for (size_t i = 0; i < s->n_mem; i++)
			emit_mem(&s->mem[i]);
	}
	if (mask & B_PY) {
		qsort(s->py, s->n_py, sizeof *s->py, cmp_py);
		for (size_t i = 0; i < s->n_py; i++)
			emit_py(&s->py[i]);
	}
	if (mask & B_RT) {
		qsort(s->rt, s->n_rt, sizeof *s->rt, cmp_rt);
		for (size_t i = 0; i < s->n_rt; i++)
			emit_rt(&s->rt[i]);
		if (keep_gua) {
			for (size_t i = 0; i < s->n_gua; i++) {
				if (!s->gua[i].used)
					continue;
				if (g_ngua == g_cgua) {
					g_cgua = g_cgua ? 2 * g_cgua : 256;
					g_gua = xrealloc(g_gua, g_cgua * sizeof *g_gua);
				}
				g_gua[g_ngua++] = s->gua[i];
			}
		}
	}
}

static const char *g_trace_name;

static void emit_header(void)
{
	ores(1 << 16);
	OL("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
	for (int d = 0; d < 8; d++) {
		OL("    {\n      \"id\": ");
		ou((u64)d);
		OL(", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
		   "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
		   "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
		   "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
		   "      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n"
		   "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 166912, \"sharedMemPerMultiprocessor\": 167936\n"
		   "    }");
		if (d < 7)
			oc(',');
		oc('\n');
	}
	OL("  ],\n  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12040,\n  \"with_flops\": 1,\n"
	   "  \"record_shapes\": 1,\n  \"cuda_driver_version\": 12040,\n  \"profile_memory\": 1,\n"
	   "  \"with_stack\": 1,\n  \"trace_id\": \"");
	oput(g_trace_id, 32);
	OL("\",\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	ou((u64)opt_rank);
	OL(", \"world_size\": ");
	ou((u64)opt_ranks);
	OL(", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
	   "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
	ou((u64)opt_ranks);
	OL(", \"ranks\": ");
	oflush();
	ores(g_ranks_str.n + 4096);
	ostr(g_ranks_str);
	OL("}], \"nccl_version\": \"2.21.5\"},\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
	ou(g_basetime_ns);
	OL(",\n  \"traceEvents\": [");
}

static void meta(const char *name, u64 ts, u64 pid, u64 tid, const char *key, const char *sval, i64 ival)
{
	g_nevents++;
	ev_open();
	OL("    \"name\": \"");
	oput(name, strlen(name));
	OL("\", \"ph\": \"M\", \"ts\": ");
	ous(ts);
	OL(", \"pid\": ");
	ou(pid);
	OL(", \"tid\": ");
	ou(tid);
	OL(",\n    \"args\": {\n      \"");
	oput(key, strlen(key));
	OL("\": ");
	if (sval) {
		oc('"');
		oput(sval, strlen(sval));
		oc('"');
	} else {
		oi(ival);
	}
	OL("\n    }\n  }");
}

static void emit_footer(u64 start, u64 end)
{
	char buf[128];
	for (size_t i = 0; i < g_ngua; i++)
		emit_gua(&g_gua[i]);
	meta("process_name", start, g_pid, 0, "name", "python3", 0);
	meta("process_labels", start, g_pid, 0, "labels", "CPU", 0);
	meta("process_sort_index", start, g_pid, 0, "sort_index", NULL, (i64)g_pid);
	for (int d = 0; d < 8; d++) {
		meta("process_name", start, (u64)d, 0, "name", "python3", 0);
		snprintf(buf, sizeof buf, "GPU %d", d);
		meta("process_labels", start, (u64)d, 0, "labels", buf, 0);
		meta("process_sort_index", start, (u64)d, 0, "sort_index", NULL, 16777216 + d);
	}
	static const char *tn[NTH] = { "pt_main_thread", "pt_autograd_%d", "pt_nccl_watchdg" };
	for (int i = 0; i < NTH; i++) {
		char nm[64];
		snprintf(nm, sizeof nm, tn[i], g_dev);
		snprintf(buf, sizeof buf, "thread %llu (%s)", (unsigned long long)g_tid[i], nm);
		meta("thread_name", start, g_pid, g_tid[i], "name", buf, 0);
		meta("thread_sort_index", start, g_pid, g_tid[i], "sort_index", NULL, (i64)g_tid[i]);
	}
	for (int si = 0; si < 2; si++) {
		snprintf(buf, sizeof buf, "stream %d ", g_stream_no[si]);
		meta("thread_name", start, (u64)g_dev, (u64)g_stream_no[si], "name", buf, 0);
		meta("thread_sort_index", start, (u64)g_dev, (u64)g_stream_no[si], "sort_index", NULL, g_stream_no[si]);
	}
	g_nevents += 4;
	ev_open();
	OL("    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
	ous(start);
	OL(", \"dur\": ");
	ous(end - start);
	OL(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
	   "    \"args\": {\n      \"Op count\": 0\n    }\n  }");
	ev_open();
	OL("    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
	ous(start);
	OL(",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  }");
	ev_open();
	OL("    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
	   "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
	ous(start);
	OL("\n  }");
	ev_open();
	OL("    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
	ous(end + 1000 + (end % 7000));
	OL("\n  }\n  ],\n  \"traceName\": \"");
	/* JSON-escape the trace name */
	for (const char *p = g_trace_name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		ores(8);
		if (c == '"' || c == '\\') {
			oc('\\');
			oc((char)c);
		} else if (c < 0x20) {
			char e[8];
			snprintf(e, sizeof e, "\\u%04x", c);
			oput(e, 6);
		} else {
			oc((char)c);
		}
	}
	OL("\"\n}");
}

/* ------------------------------------------------------------------ */
/* Legacy format (--legacy)                                            */
/* ------------------------------------------------------------------ */

/*
 * What torch 1.13 without Kineto writes (shared/traces/README.md, "Legacy
 * format"): a bare JSON array on one line, only "X" events, no "cat", pid
 * "CPU functions", tid 1, "args" always {}, integer us ts/dur relative to the
 * profiler start, events in start order, about 110 bytes per event.  The
 * simulated job is CPU-only training of a conv net: each ProfilerStep#N holds a
 * DataLoader fetch, a forward pass (conv > convolution > _convolution >
 * mkldnn_convolution ...), the loss, a backward pass (evaluate_function:
 * XBackward0 > XBackward0 > aten ops, AccumulateGrad per parameter) and an SGD
 * step, so CPU nesting is deep (up to 7) and a third of the events are
 * zero-length.  The legacy oddities are kept: the record_function handle
 * (zeros > empty, zero_) before every block, a child ending 1 us after its
 * parent now and then, and exact duplicates of zero-length ops.
 */

typedef struct {
	u32 name;
	u32 ts, dur;
} LgEv;

static struct {
	u64 rng;
	u64 t; /* clock, us */
	LgEv *ev;
	size_t n, cap;
	size_t stk[16];
	int sp;
} lg;

static const char *const lg_names[] = {
/* clang-format off */
#define LG_NAMES \
    X(ZEROS, "aten::zeros") X(EMPTY, "aten::empty") X(ZERO_, "aten::zero_") \
    X(DATALOADER, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__") \
    X(SELECT, "aten::select") X(AS_STRIDED, "aten::as_strided") X(UNSQUEEZE, "aten::unsqueeze") \
    X(STACK, "aten::stack") X(CAT, "aten::cat") X(TO, "aten::to") X(TO_COPY, "aten::_to_copy") \
    X(EMPTY_STRIDED, "aten::empty_strided") X(COPY_, "aten::copy_") X(CONV2D, "aten::conv2d") \
    X(CONVOLUTION, "aten::convolution") X(_CONVOLUTION, "aten::_convolution") \
    X(MKLDNN_CONV, "aten::mkldnn_convolution") X(AS_STRIDED_, "aten::as_strided_") \
    X(BATCH_NORM, "aten::batch_norm") X(BN_IMPL, "aten::_batch_norm_impl_index") \
    X(NATIVE_BN, "aten::native_batch_norm") X(RELU, "aten::relu") X(CLAMP_MIN, "aten::clamp_min") \
    X(MAX_POOL, "aten::max_pool2d") X(MAX_POOL_IDX, "aten::max_pool2d_with_indices") \
    X(FLATTEN, "aten::flatten") X(VIEW, "aten::view") X(RESHAPE_ALIAS, "aten::_reshape_alias") \
    X(LINEAR, "aten::linear") X(T, "aten::t") X(TRANSPOSE, "aten::transpose") X(ADDMM, "aten::addmm") \
    X(EXPAND, "aten::expand") X(RESOLVE_CONJ, "aten::resolve_conj") \
    X(CROSS_ENTROPY, "aten::cross_entropy_loss") X(LOG_SOFTMAX, "aten::log_softmax") \
    X(_LOG_SOFTMAX, "aten::_log_softmax") X(NLL_ND, "aten::nll_loss_nd") X(NLL, "aten::nll_loss") \
    X(NLL_FWD, "aten::nll_loss_forward") X(ZERO_GRAD, "Optimizer.zero_grad#SGD.zero_grad") \
    X(ONES_LIKE, "aten::ones_like") X(EMPTY_LIKE, "aten::empty_like") X(FILL_, "aten::fill_") \
    X(EF_RELU, "autograd::engine::evaluate_function: ReluBackward0") X(RELU_BW, "ReluBackward0") \
    X(THRESHOLD_BW, "aten::threshold_backward") \
    X(EF_BN, "autograd::engine::evaluate_function: NativeBatchNormBackward0") \
    X(BN_BW, "NativeBatchNormBackward0") X(NATIVE_BN_BW, "aten::native_batch_norm_backward") \
    X(EF_CONV, "autograd::engine::evaluate_function: ConvolutionBackward0") \
    X(CONV_BW, "ConvolutionBackward0") X(CONV_BACKWARD, "aten::convolution_backward") \
    X(MKLDNN_CONV_BW, "aten::mkldnn_convolution_backward") X(SUM, "aten::sum") \
    X(EF_POOL, "autograd::engine::evaluate_function: MaxPool2DWithIndicesBackward0") \
    X(POOL_BW, "MaxPool2DWithIndicesBackward0") X(POOL_IDX_BW, "aten::max_pool2d_with_indices_backward") \
    X(EF_ADDMM, "autograd::engine::evaluate_function: AddmmBackward0") X(ADDMM_BW, "AddmmBackward0") \
    X(MM, "aten::mm") X(EF_TBW, "autograd::engine::evaluate_function: TBackward0") X(T_BW, "TBackward0") \
    X(EF_LOSS, "autograd::engine::evaluate_function: NllLossBackward0") X(NLL_BW, "NllLossBackward0") \
    X(NLL_BACKWARD, "aten::nll_loss_backward") \
    X(EF_ACC, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad") \
    X(ACC, "torch::autograd::AccumulateGrad") X(DETACH, "aten::detach") X(DETACH_, "detach") \
    X(SGD_STEP, "Optimizer.step#SGD.step") X(ADD_, "aten::add_") X(MUL_, "aten::mul_")
/* clang-format on */
#define X(id, s) s,
	LG_NAMES
#undef X
};
enum {
#define X(id, s) LG_##id,
	LG_NAMES
#undef X
		LG__COUNT
};

static u64 lg_rnd(void)
{
	u64 z = (lg.rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}
static u64 lg_rr(u64 lo, u64 hi) { return lo + lg_rnd() % (hi - lo + 1); }

/* "ProfilerStep#N" names live past the end of lg_names */
static char lg_step_name[32];
static u32 lg_step_no;

static void lg_push(u32 name, u64 ts, u64 dur)
{
	if (lg.n == lg.cap) {
		lg.cap = lg.cap ? 2 * lg.cap : 4096;
		lg.ev = xrealloc(lg.ev, lg.cap * sizeof *lg.ev);
	}
	lg.ev[lg.n++] = (LgEv){ name, (u32)ts, (u32)dur };
}

static void lg_begin(u32 name)
{
	lg.t += lg_rnd() % 4 == 0 ? lg_rr(1, 3) : 0;
	lg.stk[lg.sp++] = lg.n;
	lg_push(name, lg.t, 0);
}

static void lg_end(void)
{
	LgEv *e = &lg.ev[lg.stk[--lg.sp]];
	lg.t += lg_rnd() % 3 == 0 ? 1 : 0;
	u64 dur = lg.t - e->ts;
	/* integer rounding: now and then the last child ends 1 us after its parent */
	if (dur > 2 && lg_rnd() % 200 == 0)
		dur--;
	e->dur = (u32)dur;
}

/* a leaf op: zero-length half of the time */
static void lg_leaf(u32 name, u64 lo, u64 hi)
{
	lg.t += lg_rnd() % 3 == 0 ? 1 : 0;
	u64 dur = lg_rnd() % 2 ? 0 : lg_rr(lo, hi);
	lg_push(name, lg.t, dur);
	if (dur == 0 && lg_rnd() % 64 == 0)
		lg_push(name, lg.t, 0); /* an exact duplicate, as the legacy writer leaves them */
	lg.t += dur;
}

static void lg_handle(void) /* the record_function handle tensor */
{
	lg_begin(LG_ZEROS);
	lg_leaf(LG_EMPTY, 1, 3);
	lg_leaf(LG_ZERO_, 1, 2);
	lg_end();
}

static void lg_to_copy(void)
{
	lg_begin(LG_TO);
	lg_begin(LG_TO_COPY);
	lg_leaf(LG_EMPTY_STRIDED, 1, 9);
	lg_leaf(LG_COPY_, 1, 40);
	lg_end();
	lg_end();
}

static void lg_view_op(u32 name)
{
	lg_begin(name);
	lg_leaf(LG_AS_STRIDED, 1, 3);
	lg_end();
}

static void lg_dataloader(int batch)
{
	lg_begin(LG_DATALOADER);
	lg_leaf(LG_EMPTY, 1, 2);
	for (int i = 0; i < batch; i++)
		lg_view_op(LG_SELECT);
	for (int i = 0; i < batch; i++)
		lg_view_op(LG_UNSQUEEZE);
	lg_begin(LG_STACK);
	lg_leaf(LG_CAT, 20, 200);
	lg_end();
	lg_end();
	lg_to_copy();
}

static void lg_conv(void)
{
	lg_begin(LG_CONV2D);
	lg_begin(LG_CONVOLUTION);
	lg_begin(LG__CONVOLUTION);
	lg_begin(LG_MKLDNN_CONV);
	lg_leaf(LG_EMPTY, 1, 20);
	lg_leaf(LG_AS_STRIDED_, 1, 4);
	lg.t += lg_rr(100, 1500);
	lg_end();
	lg_end();
	lg_end();
	lg_end();
}

static void lg_bn(void)
{
	lg_begin(LG_BATCH_NORM);
	lg_begin(LG_BN_IMPL);
	lg_begin(LG_NATIVE_BN);
	lg_leaf(LG_EMPTY, 1, 2);
	lg_leaf(LG_EMPTY, 1, 2);
	lg_leaf(LG_EMPTY, 1, 2);
	lg.t += lg_rr(50, 900);
	lg_end();
	lg_end();
	lg_end();
}

static void lg_linear(void)
{
	lg_begin(LG_LINEAR);
	lg_begin(LG_T);
	lg_view_op(LG_TRANSPOSE);
	lg_end();
	lg_begin(LG_ADDMM);
	lg_view_op(LG_EXPAND);
	lg_leaf(LG_COPY_, 1, 5);
	for (int i = 0; i < 3; i++)
		lg_leaf(LG_RESOLVE_CONJ, 0, 0);
	lg.t += lg_rr(20, 300);
	lg_end();
	lg_end();
}

/* evaluate_function: NAME > NODE > what CHILD does */
static void lg_bw_node(u32 ef, u32 node, void (*child)(void))
{
	lg_begin(ef);
	lg_begin(node);
	child();
	lg_end();
	lg_end();
}

static void lg_relu_bw(void)
{
	lg_begin(LG_THRESHOLD_BW);
	lg_leaf(LG_EMPTY, 1, 5);
	lg.t += lg_rr(20, 600);
	lg_end();
}

static void lg_bn_bw(void)
{
	lg_begin(LG_NATIVE_BN_BW);
	lg_begin(LG_EMPTY_LIKE);
	lg_leaf(LG_EMPTY, 1, 2);
	lg_end();
	lg_leaf(LG_EMPTY, 1, 2);
	lg_leaf(LG_EMPTY, 1, 2);
	lg.t += lg_rr(50, 1400);
	lg_end();
}

static void lg_conv_bw(void)
{
	lg_begin(LG_CONV_BACKWARD);
	lg_begin(LG_MKLDNN_CONV_BW);
	lg_leaf(LG_EMPTY, 1, 4);
	lg_leaf(LG_AS_STRIDED_, 1, 4);
	lg_leaf(LG_EMPTY, 1, 4);
	lg.t += lg_rr(200, 3000);
	lg_end();
	lg_leaf(LG_SUM, 5, 60);
	lg_end();
}

static void lg_pool_bw(void)
{
	lg_begin(LG_POOL_IDX_BW);
	lg_leaf(LG_ZERO_, 5, 60);
	lg.t += lg_rr(50, 600);
	lg_end();
}

static void lg_addmm_bw(void)
{
	lg_begin(LG_T);
	lg_view_op(LG_TRANSPOSE);
	lg_end();
	lg_begin(LG_MM);
	lg_leaf(LG_RESOLVE_CONJ, 0, 0);
	lg_leaf(LG_RESOLVE_CONJ, 0, 0);
	lg.t += lg_rr(10, 2000);
	lg_end();
	lg_begin(LG_SUM);
	lg_view_op(LG_AS_STRIDED);
	lg_end();
	lg_begin(LG_VIEW);
	lg_leaf(LG_RESHAPE_ALIAS, 1, 5);
	lg_end();
}

static void lg_t_bw(void) { lg_view_op(LG_T); }

static void lg_loss_bw(void)
{
	lg_begin(LG_NLL_BACKWARD);
	lg_leaf(LG_ZERO_, 1, 4);
	lg_end();
}

static void lg_acc(void)
{
	lg_begin(LG_DETACH);
	lg_leaf(LG_DETACH_, 1, 3);
	lg_end();
}

static void lg_sgd_param(void)
{
	lg_leaf(LG_ADD_, 1, 60);
	lg_begin(LG_MUL_);
	lg_to_copy();
	lg_end();
	lg_leaf(LG_ADD_, 1, 30);
}

static void lg_step(int layers, int batch)
{
	lg_handle();
	snprintf(lg_step_name, sizeof lg_step_name, "ProfilerStep#%u", lg_step_no++);
	lg_begin(LG__COUNT);
	lg_leaf(LG_EMPTY, 0, 1);
	lg_handle();
	lg_dataloader(batch);
	/* forward */
	for (int l = 0; l < layers; l++) {
		lg_conv();
		lg_bn();
		lg_begin(LG_RELU);
		lg_leaf(LG_CLAMP_MIN, 10, 100);
		lg_end();
		if (l % 4 == 3) {
			lg_begin(LG_MAX_POOL);
			lg_leaf(LG_MAX_POOL_IDX, 50, 2000);
			lg_end();
		}
	}
	lg_begin(LG_FLATTEN);
	lg_begin(LG_VIEW);
	lg_leaf(LG_RESHAPE_ALIAS, 1, 5);
	lg_end();
	lg_end();
	lg_linear();
	lg_handle();
	lg_begin(LG_CROSS_ENTROPY);
	lg_begin(LG_LOG_SOFTMAX);
	lg_leaf(LG__LOG_SOFTMAX, 5, 30);
	lg_end();
	lg_begin(LG_NLL_ND);
	lg_begin(LG_NLL);
	lg_leaf(LG_NLL_FWD, 2, 20);
	lg_end();
	lg_end();
	lg_end();
	/* zero_grad, backward */
	lg_handle();
	lg_begin(LG_ZERO_GRAD);
	lg.t += lg_rr(5, 40);
	lg_end();
	lg_handle();
	lg_begin(LG_ONES_LIKE);
	lg_begin(LG_EMPTY_LIKE);
	lg_leaf(LG_EMPTY_STRIDED, 1, 2);
	lg_end();
	lg_leaf(LG_FILL_, 1, 3);
	lg_end();
	lg_bw_node(LG_EF_LOSS, LG_NLL_BW, lg_loss_bw);
	lg_bw_node(LG_EF_ADDMM, LG_ADDMM_BW, lg_addmm_bw);
	lg_bw_node(LG_EF_TBW, LG_T_BW, lg_t_bw);
	for (int k = 0; k < 2; k++)
		lg_bw_node(LG_EF_ACC, LG_ACC, lg_acc);
	for (int l = layers - 1; l >= 0; l--) {
		if (l % 4 == 3)
			lg_bw_node(LG_EF_POOL, LG_POOL_BW, lg_pool_bw);
		lg_bw_node(LG_EF_RELU, LG_RELU_BW, lg_relu_bw);
		lg_bw_node(LG_EF_BN, LG_BN_BW, lg_bn_bw);
		for (int k = 0; k < 2; k++)
			lg_bw_node(LG_EF_ACC, LG_ACC, lg_acc);
		lg_bw_node(LG_EF_CONV, LG_CONV_BW, lg_conv_bw);
		lg_bw_node(LG_EF_ACC, LG_ACC, lg_acc);
	}
	/* optimizer: weight and bias of every conv and BN layer, and of the head */
	lg_handle();
	lg_begin(LG_SGD_STEP);
	for (int p = 0; p < 3 * layers + 2; p++)
		lg_sgd_param();
	lg_end();
	lg_end();
}

static void lg_emit(void)
{
	for (size_t i = 0; i < lg.n; i++) {
		const LgEv *e = &lg.ev[i];
		ores(512);
		if (ofirst) {
			OL("[{\"name\": \"");
			ofirst = 0;
		} else {
			OL(", {\"name\": \"");
		}
		if (e->name == LG__COUNT)
			oput(lg_step_name, strlen(lg_step_name));
		else
			oput(lg_names[e->name], strlen(lg_names[e->name]));
		OL("\", \"ph\": \"X\", \"ts\": ");
		ou(e->ts);
		OL(", \"dur\": ");
		ou(e->dur);
		OL(", \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}");
		g_nevents++;
	}
	lg.n = 0;
}

/* Writes the legacy trace: --steps steps, or steps until --target-mb is reached. */
static void legacy_main(void)
{
	int layers = opt_layers_set ? opt_layers : 16;
	lg.rng = mix64(opt_seed ^ 0x1e9ac7ULL);
	lg.t = 140 + lg_rnd() % 60;
	lg_step_no = 1;
	for (long st = 0;; st++) {
		if (opt_steps > 0 ? st >= opt_steps : (double)(ototal + on) >= opt_target_mb * 1e6)
			break;
		lg_step(layers, 128);
		lg_emit();
		lg.t += lg_rr(10, 200);
	}
	ores(8);
	if (ofirst)
		oc('[');
	oc(']');
	free(lg.ev);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: gentrace [--target-mb N | --steps N] [--layers L] [--ranks R --rank r]\n"
	      "                [--seed S] [--ts-base-us T] [--legacy] [-o FILE]\n"
	      "Writes a synthetic PyTorch profiler (Kineto) trace in Chrome trace JSON.\n"
	      "  --target-mb N  stop adding steps at about N*10^6 bytes\n"
	      "  --steps N      number of ProfilerStep iterations (default 2 without --target-mb)\n"
	      "  --layers L     transformer layers (default 24; about 5.6 MB per step)\n"
	      "  --ranks R      world size written to distributedInfo (default 8)\n"
	      "  --rank r       this rank (default 0); each rank gets different content\n"
	      "  --seed S       seed (default 1); same options and seed give the same bytes\n"
	      "  --ts-base-us T first step's ts in us (default: 3e12..6e12 from the seed,\n"
	      "                 like the monotonic-clock values in real Kineto traces)\n"
	      "  --legacy       CPU-only training in the legacy exporter's layout (torch without\n"
	      "                 Kineto): a bare array of X events, about 110 B each, deep nesting;\n"
	      "                 --layers (default 16) and --seed apply, --ranks and --ts-base-us not\n"
	      "  -o FILE        output file (default stdout)\n",
	      f);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *argval(int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *eq = strchr(a, '=');
	if (eq && a[0] == '-' && a[1] == '-')
		return eq + 1;
	if (*i + 1 >= argc)
		die("%s needs a value", a);
	return argv[++*i];
}

static int opt_is(const char *a, const char *name)
{
	size_t n = strlen(name);
	return strncmp(a, name, n) == 0 && (a[n] == 0 || a[n] == '=');
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (opt_is(a, "--target-mb")) {
			opt_target_mb = strtod(argval(argc, argv, &i), &end);
			if (*end || opt_target_mb <= 0)
				die("bad --target-mb");
		} else if (opt_is(a, "--steps")) {
			opt_steps = strtol(argval(argc, argv, &i), &end, 10);
			if (*end || opt_steps < 1)
				die("bad --steps");
		} else if (opt_is(a, "--layers")) {
			opt_layers = (int)strtol(argval(argc, argv, &i), &end, 10);
			if (*end || opt_layers < 1 || opt_layers > 200)
				die("bad --layers (1..200)");
			opt_layers_set = 1;
		} else if (opt_is(a, "--ranks")) {
			opt_ranks = (int)strtol(argval(argc, argv, &i), &end, 10);
			if (*end || opt_ranks < 1 || opt_ranks > 65536)
				die("bad --ranks");
		} else if (opt_is(a, "--rank")) {
			opt_rank = (int)strtol(argval(argc, argv, &i), &end, 10);
			if (*end || opt_rank < 0)
				die("bad --rank");
		} else if (opt_is(a, "--seed")) {
			opt_seed = strtoull(argval(argc, argv, &i), &end, 10);
			if (*end)
				die("bad --seed");
		} else if (opt_is(a, "--ts-base-us")) {
			opt_ts_base_us = strtod(argval(argc, argv, &i), &end);
			if (*end || opt_ts_base_us < 10000 || opt_ts_base_us > 1e15)
				die("bad --ts-base-us (10000..1e15)");
		} else if (!strcmp(a, "--legacy")) {
			opt_legacy = 1;
		} else if (!strcmp(a, "-o") || opt_is(a, "--output")) {
			opt_out = argval(argc, argv, &i);
		} else {
			usage(stderr);
			die("unknown option %s", a);
		}
	}
	if (opt_rank >= opt_ranks)
		die("--rank must be < --ranks");
	if (opt_steps < 0 && opt_target_mb < 0)
		opt_steps = 2;
	if (opt_legacy) {
		double t0 = now_s();
		if (opt_out && strcmp(opt_out, "-") != 0) {
			ofd = open(opt_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (ofd < 0)
				die("%s: %s", opt_out, strerror(errno));
		} else {
			ofd = 1;
		}
		ob = xrealloc(NULL, OUT_CAP);
		legacy_main();
		oflush();
		if (ofd != 1 && close(ofd) != 0)
			die("close: %s", strerror(errno));
		double dt = now_s() - t0;
		fprintf(stderr, "gentrace: %s: %llu bytes, legacy, %u steps, %llu events (%.0f B/event), %.2f s\n",
		        opt_out ? opt_out : "stdout", (unsigned long long)ototal, lg_step_no - 1,
		        (unsigned long long)g_nevents, g_nevents ? (double)ototal / (double)g_nevents : 0.0, dt);
		return 0;
	}

	/* identity: the time base depends on the seed only, so ranks line up */
	u64 h = mix64(opt_seed);
	u64 hr = mix64(opt_seed ^ mix64((u64)opt_rank + 0x5bd1e995ULL));
	g_pid = 1000000 + hr % 3000000;
	g_dev = opt_rank % 8;
	g_tid[TH_MAIN] = g_pid;
	g_tid[TH_AG] = g_pid + 60 + (hr >> 20) % 40;
	g_tid[TH_WD] = g_pid + 190 + (hr >> 28) % 60;
	if (opt_ts_base_us > 0)
		g_base_ns = (u64)(opt_ts_base_us * 1000.0) + (hr >> 36) % 40000;
	else
		g_base_ns = (3000000000000ULL + h % 3000000000000ULL) * 1000ULL + (hr >> 36) % 40000;
	g_basetime_ns = (1700000000ULL + (h >> 24) % 60000000ULL) * 1000000000ULL;
	snprintf(g_trace_id, sizeof g_trace_id, "%016llX%016llX", (unsigned long long)mix64(hr + 1),
	         (unsigned long long)mix64(hr + 2));
	g_trace_name = opt_out ? opt_out : "/tmp/gentrace.pt.trace.json";
	{
		size_t cap = 16 + (size_t)opt_ranks * 8, n = 0;
		char *b = xrealloc(NULL, cap);
		b[n++] = '[';
		for (int r = 0; r < opt_ranks; r++)
			n += (size_t)snprintf(b + n, cap - n, r ? ", %d" : "%d", r);
		b[n++] = ']';
		b[n] = 0;
		g_ranks_str.s = b;
		g_ranks_str.n = (u32)n;
	}
	g_pidtid = mkstr(", \"pid\": %llu, \"tid\": ", (unsigned long long)g_pid);
	g_rpc1 = mkstr(", \"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": ");
	g_rpc2 = mkstr(", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Global rank start\": 0, "
	               "\"Global rank stride\": 1, \"Group size\": %d, \"Process Group Name\": \"0\", "
	               "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"%s\", "
	               "\"Rank\": %d, \"Input Dims\": [[",
	               opt_ranks, g_ranks_str.s, opt_rank);
	g_nccl2 = mkstr(", \"Group size\": %d, \"dtype\": \"Float\", \"In split size\": \"[]\", "
	                "\"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
	                "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"%s\"",
	                opt_ranks, g_ranks_str.s);
	init_templates();
	ob = xrealloc(NULL, OUT_CAP);

	double t0 = now_s();
	Sim *s = xrealloc(NULL, sizeof *s);

	long nsteps = opt_steps;
	while (nsteps < 0) {
		/* measure: header + two steps, count only */
		ofd = -1;
		emit_header();
		oflush();
		u64 hdr = ototal;
		sim_init(s);
		sim_step(s);
		emit_blocks(s, B_CPU | B_MEM | B_PY | B_RT, 0);
		oflush();
		u64 s1 = ototal - hdr;
		sim_step(s);
		emit_blocks(s, B_CPU | B_MEM | B_PY | B_RT, 0);
		oflush();
		u64 s2 = ototal - hdr - s1;
		sim_free(s);
		ototal = 0;
		ofirst = 1;
		g_evidx = 0;
		g_nevents = 0;
		g_ngua = 0;
		double target = opt_target_mb * 1e6;
		if (!opt_layers_set && opt_layers > 1 && (double)(hdr + s1) > target * 1.1) {
			/* one step is too big: use fewer layers */
			int nl = (int)((double)opt_layers * target / (double)(hdr + s1));
			opt_layers = nl < 1 ? 1 : nl < opt_layers ? nl : opt_layers - 1;
			continue;
		}
		double rest = target - (double)hdr - (double)s1 - 12000.0;
		double per = (double)s2 + 2000.0;
		nsteps = 1 + (rest > 0 ? (long)((rest + per / 2) / per) : 0);
	}

	if (opt_out && strcmp(opt_out, "-") != 0) {
		ofd = open(opt_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (ofd < 0)
			die("%s: %s", opt_out, strerror(errno));
	} else {
		ofd = 1;
	}

	emit_header();
	static const int pass_mask[4] = { B_CPU, B_MEM, B_PY, B_RT };
	u64 pstart = 0, pend = 0;
	for (int p = 0; p < 4; p++) {
		sim_init(s);
		for (long st = 0; st < nsteps; st++) {
			sim_step(s);
			emit_blocks(s, pass_mask[p], p == 3);
		}
		pstart = s->profile_start;
		pend = s->profile_end;
		sim_free(s);
	}
	emit_footer(pstart, pend);
	oflush();
	if (ofd != 1 && close(ofd) != 0)
		die("close: %s", strerror(errno));
	double dt = now_s() - t0;
	fprintf(stderr,
	        "gentrace: %s: %llu bytes, %ld steps, %d layers, %llu events (%.0f B/event), rank %d/%d, %.2f s (%.0f MB/s)\n",
	        opt_out ? opt_out : "stdout", (unsigned long long)ototal, nsteps, opt_layers,
	        (unsigned long long)g_nevents, g_nevents ? (double)ototal / (double)g_nevents : 0.0, opt_rank,
	        opt_ranks, dt, dt > 0 ? (double)ototal / 1e6 / dt : 0.0);
	free(s);
	return 0;
}
