/* recordbench.c: the recorder's writer thread on one core, without a GPU: how many CUPTI
 * records a second it turns into trace events and compressed file, so that a program's
 * launch rate can be set against it. Records are a kernel launch (cudaLaunchKernel) and
 * its kernel, alternated, with a checkpoint every 100,000 records as a run's second
 * would have.
 *   recordbench [N kernels (default 1000000)] [zstd|plain] [OUTFILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/out.h"
#include "record/trace_writer.h"

static const char *names(CUpti_CallbackDomain d, uint32_t cbid)
{
	(void)d;
	(void)cbid;
	return "cudaLaunchKernel_v7000";
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int zstd = argc > 2 ? strcmp(argv[2], "plain") != 0 : 1;
	char path[256];
	snprintf(path, sizeof path, "%s", argc > 3 ? argv[3] : "/tmp/recordbench.out");
	unlink(path);
	/* clang-format off */
	static const char *kernels[] = { "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float)",
		                         "ampere_sgemm_128x64_tn", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
		                         "triton_poi_fused_add_mul_0" };
	struct tw_options o = { .base_ns = 1700000000000000000ull, .pid = 4242, .process_name = "bench", .hostname = "h",
		                .rank = -1, .world_size = -1, .local_rank = -1, .callback_name = names };
	/* clang-format on */
	struct tw *w = tw_new(&o);
	tw_device d;
	memset(&d, 0, sizeof d);
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.name = "NVIDIA H100 80GB HBM3";
	d.computeCapabilityMajor = 9;
	d.numMultiprocessors = 132;
	d.maxThreadsPerBlock = 1024;
	d.maxWarpsPerMultiprocessor = 64;
	d.numThreadsPerWarp = 32;
	d.maxRegistersPerBlock = d.maxRegistersPerMultiprocessor = 65536;
	d.maxSharedMemoryPerBlock = 49152;
	d.maxSharedMemoryPerMultiprocessor = 233472;
	d.maxBlocksPerMultiprocessor = 32;
	tw_record(w, (CUpti_Activity *)&d);
	size_t len;
	char *prefix = tw_prefix(w, &len);
	char *closing = tw_suffix(w, &len);
	struct out *f = out_create(path, zstd, prefix, strlen(prefix), closing, strlen(closing));
	free(prefix);
	free(closing);
	if (f == NULL) {
		perror(path);
		return 1;
	}
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	a.processId = 4242;
	a.threadId = 4243;
	tw_kernel k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.streamId = 7;
	k.contextId = 1;
	k.gridX = 1024;
	k.gridY = k.gridZ = 1;
	k.blockX = 256;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = 40;
	uint64_t t = 1700000000000000000ull + 1000000;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		a.start = t;
		a.end = t + 4000 + (uint64_t)(i % 977);
		a.correlationId = (uint32_t)i + 1;
		tw_record(w, (CUpti_Activity *)&a);
		k.name = kernels[i % 4];
		k.start = t + 6000;
		k.end = t + 9000 + (uint64_t)(i % 3331);
		k.correlationId = (uint32_t)i + 1;
		tw_record(w, (CUpti_Activity *)&k);
		const char *text = tw_take(w, &len);
		out_write(f, text, len);
		t += 12000 + (uint64_t)(i % 1013);
		if (i % 50000 == 49999) {
			closing = tw_suffix(w, &len);
			out_checkpoint(f, closing, len);
			free(closing);
		}
	}
	closing = tw_suffix(w, &len);
	out_checkpoint(f, closing, len);
	free(closing);
	double dt = now() - t0;
	unsigned long long json = out_json_bytes(f), file = out_file_bytes(f);
	out_close(f);
	tw_free(w);
	printf("recordbench: %ld kernels + %ld launches (%s): %.3f s on one core, %.0f ns per record, %.2f M records/s; "
	       "%.1f MB JSON, %.1f MB file, %.1f file bytes per kernel with its launch\n",
	       n, n, zstd ? "zstd" : "plain", dt, dt * 1e9 / (2.0 * n), 2.0 * n / dt / 1e6, json / 1e6, file / 1e6,
	       (double)file / n);
	unlink(path);
	return 0;
}
