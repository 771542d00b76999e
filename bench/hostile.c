/*
 * hostile.c - generates the hostile-size traces of bench/hostile: inputs built to make a
 * quadratic loop in the loader or an analysis show (issue 8, item 4).
 *
 *   hostile CASE N DIR
 *
 * Writes DIR/CASE.json (DIR/rank0.json, DIR/rank1.json for colls) and prints the
 * ttrace options that analyse it. Cases:
 *   corr     N cuda_runtime calls sharing one correlation id, N/10 kernels (half of them
 *            with that id, half with ids no call has)        -> --report=summary
 *   pids     N distinct pids, each with a process_name and one CPU op -> --report=summary
 *   devices  N GPU devices, each with two launched kernels and a gap between them
 *                                                             -> --report=gaps
 *   colls    N collectives per rank (AllReduce and Broadcast in turn) between compute
 *            kernels, on two ranks whose clocks differ        -> --report=distributed
 *   hints    one host sync spanning the whole trace, N short ones, N kernels with a gap
 *            before each: every gap used to scan every sync   -> --report=gaps
 *   overlap  N kernels on one stream, each overlapping all the others: N rows, each
 *            placed by scanning every row                     -> --report=summary
 *   deep     N CPU slices nested N deep on one thread, N flows ending inside them: each
 *            flow end was sought on every row                 -> --report=summary
 *   names    N distinct 16-byte slice names that all have the same strtab_hash (the
 *            second 8 bytes cancel the state the first left): an unseeded table would
 *            probe every earlier name on each insertion      -> --report=summary
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	return f;
}

static void close_out(FILE *f)
{
	if (ferror(f) || fclose(f) != 0) {
		perror("hostile: write");
		exit(1);
	}
}

static void gen_corr(const char *dir, long n)
{
	FILE *f = open_out(dir, "corr.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long i = 0; i < n; i++)
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
		        "\"ts\": %ld, \"dur\": 5, \"args\": {\"correlation\": 7}},\n",
		        i * 10);
	for (long i = 0; i < n / 10; i++)
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, "
		        "\"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %ld}},\n",
		        i * 100 + 20, i % 2 ? 7 : 1000000 + i);
	fputs("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}\n",
	      f);
	close_out(f);
	printf("--report=summary corr.json\n");
}

static void gen_pids(const char *dir, long n)
{
	FILE *f = open_out(dir, "pids.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long i = 0; i < n; i++) {
		fprintf(f,
		        "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %ld, \"tid\": 0, \"args\": {\"name\": \"p%ld\"}},\n",
		        i + 1, i + 1);
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": %ld, \"tid\": 1, \"ts\": %ld, "
		        "\"dur\": 3}%s\n",
		        i + 1, i * 2, i + 1 < n ? "," : "");
	}
	fputs("]}\n", f);
	close_out(f);
	printf("--report=summary pids.json\n");
}

static void gen_devices(const char *dir, long n)
{
	FILE *f = open_out(dir, "devices.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long d = 0; d < n; d++)
		for (int k = 0; k < 2; k++) {
			long c = d * 2 + k + 1, ts = k * 2000 + d % 100;
			/* launches 5 us before their kernel, 1 ns long, never nested */
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
			        "\"tid\": 1, \"ts\": %ld.%03ld, \"dur\": 0.001, \"args\": {\"correlation\": %ld}},\n",
			        ts - 5, d / 100 % 1000, c);
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": %ld, \"tid\": 7, \"ts\": %ld, "
			        "\"dur\": 10, \"args\": {\"device\": %ld, \"stream\": 7, \"correlation\": %ld}},\n",
			        d + 100, ts, d, c);
		}
	fputs("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}\n",
	      f);
	close_out(f);
	printf("--report=gaps devices.json\n");
}

static void gen_colls(const char *dir, long n)
{
	for (int r = 0; r < 2; r++) {
		char name[32];
		long shift = r ? 123456 : 0;
		snprintf(name, sizeof name, "rank%d.json", r);
		FILE *f = open_out(dir, name);
		fprintf(f,
		        "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2},\n"
		        "\"traceEvents\": [\n",
		        r);
		for (long i = 0; i < n; i++) {
			long t0 = i * 100 + shift, arrive = t0 + 40 + (r == 1 ? 10 : 0);
			const char *kind = i % 2 ? "Broadcast" : "AllReduce";
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, "
			        "\"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %ld}},\n",
			        t0, 2 * i + 1);
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_%s_Sum_f32_RING_LL(x)\", "
			        "\"pid\": 0, \"tid\": 20, \"ts\": %ld, \"dur\": %ld, \"args\": {\"device\": 0, \"stream\": 20, "
			        "\"correlation\": %ld}},\n",
			        kind, arrive, t0 + 80 - arrive, 2 * i + 2);
		}
		fputs("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}\n",
		      f);
		close_out(f);
	}
	printf("--report=distributed rank0.json rank1.json\n");
}

static void gen_hints(const char *dir, long n)
{
	FILE *f = open_out(dir, "hints.json");
	fputs("{\"traceEvents\": [\n", f);
	fprintf(f,
	        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 1, "
	        "\"tid\": 1, \"ts\": 0, \"dur\": %ld},\n",
	        n * 300 + 1000);
	for (long i = 0; i < n; i++) {
		long t = i * 300;
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 1, "
		        "\"tid\": 1, \"ts\": %ld, \"dur\": 2},\n",
		        t + 1);
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
		        "\"tid\": 2, \"ts\": %ld, \"dur\": 2, \"args\": {\"correlation\": %ld}},\n",
		        t + 5, i + 1);
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, "
		        "\"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %ld}}%s\n",
		        t + 150, i + 1, i + 1 < n ? "," : "");
	}
	fputs("]}\n", f);
	close_out(f);
	printf("--report=gaps hints.json\n");
}

static void gen_overlap(const char *dir, long n)
{
	FILE *f = open_out(dir, "overlap.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long i = 0; i < n; i++)
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, "
		        "\"dur\": %ld, \"args\": {\"device\": 0, \"stream\": 7}}%s\n",
		        i, 2 * n, i + 1 < n ? "," : "");
	fputs("]}\n", f);
	close_out(f);
	printf("--report=summary overlap.json\n");
}

static void gen_deep(const char *dir, long n)
{
	FILE *f = open_out(dir, "deep.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long i = 0; i < n; i++)
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
		        "\"dur\": %ld},\n",
		        i, 4 * n - 2 * i);
	for (long i = 0; i < n; i++)
		fprintf(f,
		        "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %ld, \"pid\": 1, \"tid\": 1, "
		        "\"ts\": %ld.5},\n{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %ld, "
		        "\"pid\": 1, \"tid\": 1, \"ts\": %ld.5}%s\n",
		        i, i, i, i, i + 1 < n ? "," : "");
	fputs("]}\n", f);
	close_out(f);
	printf("--report=summary deep.json\n");
}

static void gen_names(const char *dir, long n)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull, h0 = 0x243f6a8885a308d3ull ^ (16 * m), k = 0x4141414141414141ull;
	FILE *f = open_out(dir, "names.json");
	fputs("{\"traceEvents\": [\n", f);
	for (long i = 0; i < n; i++) {
		unsigned char b[16];
		char first[16];
		uint64_t w, st;
		snprintf(first, sizeof first, "n%07ld", i % 10000000);
		memcpy(b, first, 8);
		memcpy(&w, first, 8);
		st = (h0 ^ w) * m;
		st ^= st >> 29;
		w = st ^ k;
		memcpy(b + 8, &w, 8);
		fputs("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"", f);
		for (int j = 0; j < 16; j++) {
			if (b[j] < 0x20 || b[j] == '"' || b[j] == '\\')
				fprintf(f, "\\u%04x", b[j]);
			else
				fputc(b[j], f); /* bytes from 0x80 stay raw: invalid UTF-8 is kept as it is */
		}
		fprintf(f, "\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": 1}%s\n", 2 * i, i + 1 < n ? "," : "");
	}
	fputs("]}\n", f);
	close_out(f);
	printf("--report=summary names.json\n");
}

int main(int argc, char **argv)
{
	if (argc != 4 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: hostile corr|pids|devices|colls|hints|overlap|deep|names N DIR\n");
		return 2;
	}
	long n = atol(argv[2]);
	if (strcmp(argv[1], "corr") == 0)
		gen_corr(argv[3], n);
	else if (strcmp(argv[1], "pids") == 0)
		gen_pids(argv[3], n);
	else if (strcmp(argv[1], "devices") == 0)
		gen_devices(argv[3], n);
	else if (strcmp(argv[1], "colls") == 0)
		gen_colls(argv[3], n);
	else if (strcmp(argv[1], "hints") == 0)
		gen_hints(argv[3], n);
	else if (strcmp(argv[1], "overlap") == 0)
		gen_overlap(argv[3], n);
	else if (strcmp(argv[1], "deep") == 0)
		gen_deep(argv[3], n);
	else if (strcmp(argv[1], "names") == 0)
		gen_names(argv[3], n);
	else {
		fprintf(stderr, "hostile: unknown case %s\n", argv[1]);
		return 2;
	}
	return 0;
}
