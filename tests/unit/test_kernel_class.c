/* test_kernel_class.c: the kernel taxonomy (src/kernel_class.h) against the table of real
 * names in tests/kernel_names.tsv, the mistakes of the substring lists it replaces, and,
 * when ../shared/traces is there, every GPU activity of those traces: on each, at most 5%
 * of the GEMM, convolution and attention time may have an unknown math unit.
 *
 * `test_kernel_class --classify` reads "activity<TAB>name" lines (or bare names) on stdin
 * and writes table rows with the rule that decided as a sixth column: the way new rows
 * are drafted, then checked by hand against the libraries' sources. */
#include <ftw.h>
#include <stdint.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strtab.h"
#include "parsers/load.h"
#include "src/kernel_class.h"
#include "src/model.h"
#include "tests/unit/tap.h"

static const char *act_names[] = { "kernel", "memcpy", "memset" };

static int act_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, act_names[i]) == 0)
			return i;
	return -1;
}

static int classify_stdin(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		const char *name = line;
		int act = KC_ACT_KERNEL;
		char *tab = strchr(line, '\t');
		if (tab != NULL) {
			*tab = '\0';
			act = act_parse(line);
			name = tab + 1;
			if (act < 0)
				act = KC_ACT_KERNEL;
		}
		struct kernel_class kc;
		kernel_class_of(name, (enum kc_activity)act, false, &kc);
		printf("%s\t%s\t%s\t%s\t%s\t%s\n", act_names[act], kernel_class_family_name(kc.family),
		       kernel_class_unit_name(kc.unit), kernel_class_prec_name(kc.prec), name, kc.reason);
	}
	free(line);
	return 0;
}

/* One group of rows ("# group: ..." starts one): one test point, failures listed. */
struct group {
	char title[256];
	int rows, bad;
	char *report;
	size_t report_len;
};

static void group_end(struct group *g)
{
	if (g->rows == 0)
		return;
	ok(g->bad == 0, "%s: %d names", g->title, g->rows);
	if (g->bad > 0)
		fputs(g->report, stdout);
	free(g->report);
	g->report = NULL;
	g->report_len = 0;
	g->rows = g->bad = 0;
}

static void group_fail(struct group *g, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strlen(buf);
	g->report = realloc(g->report, g->report_len + len + 1);
	if (g->report == NULL)
		abort();
	memcpy(g->report + g->report_len, buf, len + 1);
	g->report_len += len;
	g->bad++;
}

/* Checks every row of the table; returns how many rows it has. */
static int check_table(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!ok(f != NULL, "the table %s opens", path))
		return 0;
	struct group g = { .title = "(rows before any group)" };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int total = 0, lineno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (strncmp(line, "# group: ", 9) == 0) {
			group_end(&g);
			snprintf(g.title, sizeof g.title, "%s", line + 9);
			continue;
		}
		if (line[0] == '#')
			continue;
		char *field[5];
		char *p = line;
		int k;
		for (k = 0; k < 4; k++) {
			field[k] = p;
			p = strchr(p, '\t');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
		g.rows++;
		total++;
		if (k < 4) {
			group_fail(&g, "#   line %d: fewer than five tab-separated fields\n", lineno);
			continue;
		}
		field[4] = p;
		int act = act_parse(field[0]), fam = kernel_class_family_parse(field[1]);
		int unit = kernel_class_unit_parse(field[2]), prec = kernel_class_prec_parse(field[3]);
		if (act < 0 || fam < 0 || unit < 0 || prec < 0) {
			group_fail(&g, "#   line %d: unknown activity, family, unit or precision\n", lineno);
			continue;
		}
		struct kernel_class kc;
		kernel_class_of(field[4], (enum kc_activity)act, false, &kc);
		if ((int)kc.family != fam || (int)kc.unit != unit || (int)kc.prec != prec)
			group_fail(&g, "#   line %d: got %s/%s/%s, want %s/%s/%s (%s): %.300s\n", lineno,
			           kernel_class_family_name(kc.family), kernel_class_unit_name(kc.unit),
			           kernel_class_prec_name(kc.prec), field[1], field[2], field[3], kc.reason, field[4]);
	}
	group_end(&g);
	free(line);
	fclose(f);
	return total;
}

static void is_class(const char *name, enum kc_activity act, enum kc_family fam, enum kc_unit unit, enum kc_prec prec,
                     const char *what)
{
	struct kernel_class kc;
	kernel_class_of(name, act, false, &kc);
	if (!ok(kc.family == fam && kc.unit == unit && kc.prec == prec, "%s", what))
		printf("#   got %s/%s/%s (%s)\n", kernel_class_family_name(kc.family), kernel_class_unit_name(kc.unit),
		       kernel_class_prec_name(kc.prec), kc.reason);
}

static void targeted(void)
{
	/* FP32 GEMMs that the plugin's list (xmma_gemm) counts as Tensor Core work */
	is_class("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
	         "execute_kernel__5x_cublas",
	         KC_ACT_KERNEL, KC_GEMM, KC_UNIT_SIMT, KC_PREC_FP32, "an FFMA xmma_gemm is an FP32 GEMM on CUDA cores");
	is_class("volta_sgemm_128x64_nn", KC_ACT_KERNEL, KC_GEMM, KC_UNIT_SIMT, KC_PREC_FP32, "SGEMM: CUDA cores");
	is_class(
		"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)",
		KC_ACT_KERNEL, KC_GEMM, KC_UNIT_SIMT, KC_PREC_FP32, "CUTLASS simt SGEMM: CUDA cores");
	/* MIOpen elementwise kernels: "TensorOp" in their names is not CUTLASS's op class */
	is_class("SubTensorOpWithScalar1d", KC_ACT_KERNEL, KC_ELEMENTWISE, KC_UNIT_SIMT, KC_PREC_UNKNOWN,
	         "MIOpen SubTensorOpWithScalar1d is elementwise, not matrix-unit work");
	is_class("SubTensorOpWithCastTensor1d", KC_ACT_KERNEL, KC_ELEMENTWISE, KC_UNIT_SIMT, KC_PREC_UNKNOWN,
	         "MIOpen SubTensorOpWithCastTensor1d is elementwise, not matrix-unit work");
	/* FP8 GEMMs are matrix-unit work: no "Tensor Cores unused" on them */
	is_class("nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT", KC_ACT_KERNEL, KC_GEMM, KC_UNIT_MATRIX, KC_PREC_FP8,
	         "cuBLASLt FP8 nvjet GEMM: matrix units, fp8");
	is_class("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
	         "schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
	         KC_ACT_KERNEL, KC_GEMM, KC_UNIT_MATRIX, KC_PREC_MIXED,
	         "trtllm-gen MXFP4 x MXFP8 MoE GEMM: matrix units, mixed");
	is_class(
		"void deep_gemm::sm90_fp8_gemm_1d2d_impl<(cute::UMMA::Major)0, 0u, 4096u, 1024u, 1u, 256u, 128u, 128u, "
		"128u, 128u, 128u, 3u, 128u, 256u, 2u, true, 132u, (deep_gemm::GemmType)0, "
		"deep_gemm::epilogue::transform::EpilogueIdentity>",
		KC_ACT_KERNEL, KC_GEMM, KC_UNIT_MATRIX, KC_PREC_FP8, "DeepGEMM FP8 GEMM: matrix units, fp8");
	is_class("cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_bf16_bf16_128x128x128_1x1x1_0_tnt_align16_warpspecialized_"
	         "cooperative_fp8_fastaccum_epi_tma",
	         KC_ACT_KERNEL, KC_GEMM, KC_UNIT_MATRIX, KC_PREC_FP8, "CUTLASS 3 FP8 GEMM: matrix units, fp8");
	/* xformers f32 runs on Tensor Cores (3xTF32) from sm80, on CUDA cores before */
	is_class("fmha_cutlassF_f32_aligned_64x64_rf_sm80", KC_ACT_KERNEL, KC_ATTENTION, KC_UNIT_MATRIX, KC_PREC_FP32,
	         "xformers f32 forward on sm80: 3xTF32 on Tensor Cores");
	is_class("fmha_cutlassF_f32_aligned_64x64_rf_sm75", KC_ACT_KERNEL, KC_ATTENTION, KC_UNIT_SIMT, KC_PREC_FP32,
	         "xformers f32 forward on sm75: SIMT");
	/* unknown is unknown */
	is_class("triton_tem_fused_mm_0", KC_ACT_KERNEL, KC_GEMM, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN,
	         "a Triton GEMM template: unit unknown");
	is_class("some_kernel_nobody_knows", KC_ACT_KERNEL, KC_OTHER, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN,
	         "an unknown name: other, unknown, unknown");
	is_class(NULL, KC_ACT_KERNEL, KC_OTHER, KC_UNIT_UNKNOWN, KC_PREC_UNKNOWN, "no name: other");
	struct kernel_class kc;
	kernel_class_of("some_kernel_nobody_knows", KC_ACT_KERNEL, true, &kc);
	ok(kc.family == KC_COMM, "an unknown kernel on a communication stream is communication");
	kernel_class_of("volta_sgemm_128x64_nn", KC_ACT_KERNEL, true, &kc);
	ok(kc.family == KC_GEMM, "a known kernel on a communication stream keeps its class");
	/* copies */
	is_class("Memcpy HtoD (Pageable -> Device)", KC_ACT_MEMCPY, KC_COPY, KC_UNIT_NONE, KC_PREC_UNKNOWN,
	         "a pageable memcpy");
	is_class("Memset (Device)", KC_ACT_MEMSET, KC_COPY, KC_UNIT_NONE, KC_PREC_UNKNOWN, "a memset");
	/* communication outside NCCL */
	is_class(
		"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
		"__nv_bfloat16*, int, int)",
		KC_ACT_KERNEL, KC_COMM, KC_UNIT_UNKNOWN, KC_PREC_BF16, "vLLM custom all-reduce is communication");
	ok(kernel_class_is_matmul(KC_GEMM) && kernel_class_is_matmul(KC_CONV) && kernel_class_is_matmul(KC_ATTENTION) &&
	           !kernel_class_is_matmul(KC_ELEMENTWISE) && !kernel_class_is_matmul(KC_COMM),
	   "GEMM, convolution and attention are the matmul families");
	int names_ok = 1;
	for (int i = 0; i < KC_FAMILY__COUNT; i++)
		names_ok &= kernel_class_family_parse(kernel_class_family_name(i)) == i;
	for (int i = 0; i < KC_UNIT__COUNT; i++)
		names_ok &= kernel_class_unit_parse(kernel_class_unit_name(i)) == i;
	for (int i = 0; i < KC_PREC__COUNT; i++)
		names_ok &= kernel_class_prec_parse(kernel_class_prec_name(i)) == i;
	ok(names_ok && kernel_class_family_parse("nope") == -1, "names and their parse agree");
}

/* ---- ../shared/traces ---- */

static char **paths;
static size_t npaths, paths_cap;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || strstr(path, "/derived/") != NULL)
		return 0;
	if (!((n > 5 && strcmp(path + n - 5, ".json") == 0) || (n > 8 && strcmp(path + n - 8, ".json.gz") == 0) ||
	      (n > 9 && strcmp(path + n - 9, ".json.zst") == 0)))
		return 0;
	if (npaths == paths_cap) {
		paths_cap = paths_cap * 2 + 16;
		paths = realloc(paths, paths_cap * sizeof *paths);
		if (paths == NULL)
			abort();
	}
	paths[npaths++] = strdup(path);
	return 0;
}

static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

static void scan_trace(const char *path, const char *shown)
{
	struct load_options opt = { 0 };
	struct trace *t = load_trace(path, &opt);
	if (t == NULL || t->status == LOAD_FAILED) {
		printf("# %s: not loaded, skipped\n", shown);
		if (t != NULL)
			trace_free(t);
		return;
	}
	int64_t fam_time[KC_FAMILY__COUNT] = { 0 }, kernels = 0, matmul = 0, matmul_unknown = 0, triton_ew = 0,
		triton_all = 0, mtia = 0;
	uint64_t activities = 0, invalid = 0;
	const char *worst = NULL;
	int64_t worst_time = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		bool comm = tr->kind == TRACK_GPU_COMM;
		for (uint32_t j = 0; j < tr->nslices; j++) {
			const struct slice *s = &tr->slices[j];
			if (slice_cls(t, s) != SC_KERNEL && slice_cls(t, s) != SC_MEMCPY &&
			    slice_cls(t, s) != SC_MEMSET)
				continue;
			const char *name = strtab_get(&t->strings, slice_name(t, s));
			enum kc_activity act = slice_cls(t, s) == SC_MEMCPY   ? KC_ACT_MEMCPY
			                       : slice_cls(t, s) == SC_MEMSET ? KC_ACT_MEMSET
			                                                      : KC_ACT_KERNEL;
			struct kernel_class kc;
			kernel_class_of(name, act, comm, &kc);
			int64_t d = slice_dur(tr, s);
			activities++;
			if ((unsigned)kc.family >= KC_FAMILY__COUNT || (unsigned)kc.unit >= KC_UNIT__COUNT ||
			    (unsigned)kc.prec >= KC_PREC__COUNT || kc.reason == NULL) {
				invalid++;
				continue;
			}
			fam_time[kc.family] += d;
			if (act != KC_ACT_KERNEL)
				continue;
			kernels += d;
			if (strncmp(strtab_get(&t->strings, slice_cat(t, s)), "mtia_", 5) == 0) {
				mtia += d; /* MTIA jobs ("fc-dtype_Float") name no math unit: reported apart */
				continue;
			}
			if (kernel_class_is_matmul(kc.family)) {
				matmul += d;
				if (kc.unit == KC_UNIT_UNKNOWN) {
					matmul_unknown += d;
					if (d > worst_time) {
						worst_time = d;
						worst = name;
					}
				}
			}
			if (strncmp(name, "triton_", 7) == 0) {
				triton_all += d;
				if (kc.family == KC_ELEMENTWISE || kc.family == KC_REDUCTION)
					triton_ew += d;
			}
		}
	}
	if (activities == 0) {
		printf("# %s: no GPU activities\n", shown);
		trace_free(t);
		return;
	}
	ok(invalid == 0, "%s: all %" PRIu64 " GPU activities classified", shown, activities);
	printf("#   kernel time %.3f ms: gemm %.1f%%, conv %.1f%%, attention %.1f%%, elementwise %.1f%%, reduction %.1f%%, "
	       "norm %.1f%%, softmax %.1f%%, comm %.1f%%, embedding %.1f%%, sort %.1f%%, other %.1f%%\n",
	       (double)kernels / 1e6, pct(fam_time[KC_GEMM], kernels), pct(fam_time[KC_CONV], kernels),
	       pct(fam_time[KC_ATTENTION], kernels), pct(fam_time[KC_ELEMENTWISE], kernels),
	       pct(fam_time[KC_REDUCTION], kernels), pct(fam_time[KC_NORM], kernels),
	       pct(fam_time[KC_SOFTMAX], kernels), pct(fam_time[KC_COMM], kernels),
	       pct(fam_time[KC_EMBEDDING], kernels), pct(fam_time[KC_SORT], kernels), pct(fam_time[KC_OTHER], kernels));
	if (mtia > 0)
		printf("#   MTIA jobs: %.1f%% of kernel time (their names say no math unit: not in the GEMM/conv/attention "
		       "figure)\n",
		       pct(mtia, kernels));
	if (triton_all > 0)
		printf("#   Triton (Inductor) kernels: %.1f%% of kernel time, of which elementwise/reduction %.1f%% (not in "
		       "the GEMM/conv/attention figure)\n",
		       pct(triton_all, kernels), pct(triton_ew, kernels));
	if (matmul > 0) {
		ok(matmul_unknown * 20 <= matmul,
		   "%s: %.2f%% of %.3f ms GEMM/conv/attention time has an unknown unit (<= 5%%)", shown,
		   pct(matmul_unknown, matmul), (double)matmul / 1e6);
		if (worst != NULL)
			printf("#   longest unknown: %.200s\n", worst);
	}
	trace_free(t);
}

static void scan_shared(const char *srcdir)
{
	const char *dir = getenv("SHARED_TRACES");
	char buf[4096];
	if (dir == NULL) {
		snprintf(buf, sizeof buf, "%s/../shared/traces", srcdir);
		dir = buf;
	}
	if (nftw(dir, collect, 16, FTW_PHYS) != 0 || npaths == 0) {
		printf("# no shared traces at %s: their scan skipped\n", dir);
		return;
	}
	qsort(paths, npaths, sizeof *paths, by_path);
	size_t skip = strlen(dir) + 1;
	for (size_t i = 0; i < npaths; i++) {
		scan_trace(paths[i], paths[i] + skip);
		free(paths[i]);
	}
	free(paths);
}

/* The communication test as it was written first: eighteen substring searches. The one-pass
 * version (src/kernel_class.c) must say the same of every name, with the same reason. */
static const char *ref_comm(const char *s)
{
	if (strncmp(s, "void ", 5) == 0)
		s += 5;
	if (strncasecmp(s, "nccl", 4) == 0 || strncasecmp(s, "rccl", 4) == 0 || strncasecmp(s, "msccl", 5) == 0)
		return "NCCL/RCCL/MSCCL kernel";
	static const char *const libs[] = { "deep_ep::",           "pplx::",    "nvshmem", "userbuffers",
		                            "cross_device_reduce", "multimem_", "mscclpp", "trtllm_allreduce",
		                            "allreduce_fusion" };
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
		if (strstr(s, libs[i]) != NULL)
			return "communication library outside NCCL (DeepEP, pplx, NVSHMEM, custom or symmetric-memory "
			       "all-reduce)";
	static const char *const ops[] = { "allreduce",      "all_reduce", "allgather",  "all_gather", "reducescatter",
		                           "reduce_scatter", "alltoall",   "all_to_all", "all2all" };
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (strcasestr(s, ops[i]) != NULL)
			return "a collective's name (all-reduce, all-gather, reduce-scatter, all-to-all)";
	return NULL;
}

/* Names made of pieces of the needles, cut and cased at random, and the table's names:
 * the one-pass test and the reference agree on each (and on the reason). */
static void comm_against_reference(const char *table)
{
	static const char *const bits[] = { "all",
		                            "ALL",
		                            "All",
		                            "reduce",
		                            "Reduce",
		                            "_reduce",
		                            "gather",
		                            "_Gather",
		                            "toall",
		                            "_to_all",
		                            "2all",
		                            "scatter",
		                            "_scatter",
		                            "reducescatter",
		                            "nccl",
		                            "NCCL",
		                            "rccl",
		                            "msccl",
		                            "mscclpp",
		                            "deep_ep::",
		                            "deep_ep:",
		                            "pplx::",
		                            "nvshmem",
		                            "NVSHMEM",
		                            "userbuffers",
		                            "cross_device_reduce",
		                            "multimem_",
		                            "trtllm_allreduce",
		                            "allreduce_fusion",
		                            "void ",
		                            "a",
		                            "l",
		                            "r",
		                            "e",
		                            "_",
		                            ":",
		                            "x",
		                            "Kernel",
		                            "\xc3\x84",
		                            "<float>",
		                            "(" };
	uint64_t seed = 88172645463325252ull;
	int bad = 0, comm = 0, n = 0;
	char name[256];
	for (int i = 0; i < 200000; i++) {
		size_t len = 0;
		name[0] = '\0';
		int parts = 1 + (int)(seed % 6);
		for (int k = 0; k < parts; k++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			const char *b = bits[seed % (sizeof bits / sizeof *bits)];
			size_t bl = strlen(b);
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			if (seed % 4 == 0 && bl > 1) /* a piece cut short */
				bl = 1 + (size_t)(seed >> 8) % (bl - 1);
			if (len + bl + 1 >= sizeof name)
				break;
			memcpy(name + len, b, bl);
			len += bl;
			name[len] = '\0';
		}
		const char *want = ref_comm(name);
		bool got = kernel_class_is_comm_name(name);
		struct kernel_class kc;
		kernel_class_of(name, KC_ACT_KERNEL, false, &kc);
		n++;
		comm += want != NULL;
		if (got != (want != NULL) || (want != NULL && (kc.family != KC_COMM || strcmp(kc.reason, want) != 0))) {
			if (bad++ < 5)
				fprintf(stderr, "# comm test disagrees on \"%s\": %d, reference %s\n", name, got,
				        want ? want : "no");
		}
	}
	ok(bad == 0 && comm > 1000 && comm < n - 1000,
	   "the one-pass communication test agrees with eighteen searches on %d made-up names (%d communication)", n,
	   comm);
	FILE *f = fopen(table, "r");
	static char line[65536];
	int rows = 0;
	bad = 0;
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		char *tab = strrchr(line, '\t'); /* the name is the last field */
		if (line[0] == '#' || tab == NULL)
			continue;
		char *nm = tab + 1;
		rows++;
		bad += kernel_class_is_comm_name(nm) != (ref_comm(nm) != NULL);
	}
	if (f != NULL)
		fclose(f);
	ok(rows >= 300 && bad == 0, "and on the table's %d real names (%d differ)", rows, bad);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--classify") == 0)
		return classify_stdin();
	const char *srcdir = getenv("srcdir");
	if (srcdir == NULL)
		srcdir = ".";
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/kernel_names.tsv", srcdir);
	int rows = check_table(path);
	ok(rows >= 300, "the table holds %d real names (at least 300)", rows);
	targeted();
	comm_against_reference(path);
	if (!(argc > 1 && strcmp(argv[1], "--no-shared") == 0))
		scan_shared(srcdir);
	return done_testing();
}
