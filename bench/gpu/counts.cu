// counts.cu: a CUDA program whose GPU work is known exactly, for bench/gpu/check:
//   kernels   tt_add x 100, tt_scale x 50
//   copies    host to device x 10, device to device x 5, device to host x 7
//   memsets   x 3
//   NVTX      ranges tt_setup, tt_compute, tt_copy_back inside tt_all (4)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void tt_add(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

__global__ void tt_scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 0.5f;
}

#define CK(call)                                                                                  \
	do {                                                                                      \
		cudaError_t e = (call);                                                           \
		if (e != cudaSuccess) {                                                           \
			fprintf(stderr, "counts: %s: %s\n", #call, cudaGetErrorString(e));        \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

int main(void)
{
	const int n = 1 << 16;
	float *h = (float *)calloc(n, sizeof *h), *d = NULL, *d2 = NULL;
	CK(cudaMalloc(&d, n * sizeof *d));
	CK(cudaMalloc(&d2, n * sizeof *d2));
	nvtxRangePushA("tt_all");
	nvtxRangePushA("tt_setup");
	for (int i = 0; i < 3; i++)
		CK(cudaMemset(d, 0, n * sizeof *d));
	for (int i = 0; i < 10; i++)
		CK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
	nvtxRangePop();
	nvtxRangePushA("tt_compute");
	for (int i = 0; i < 100; i++)
		tt_add<<<(n + 255) / 256, 256>>>(d, n);
	for (int i = 0; i < 50; i++)
		tt_scale<<<(n + 255) / 256, 256>>>(d, n);
	CK(cudaGetLastError());
	nvtxRangePop();
	nvtxRangePushA("tt_copy_back");
	for (int i = 0; i < 5; i++)
		CK(cudaMemcpy(d2, d, n * sizeof *d, cudaMemcpyDeviceToDevice));
	for (int i = 0; i < 7; i++)
		CK(cudaMemcpy(h, d2, n * sizeof *d, cudaMemcpyDeviceToHost));
	nvtxRangePop();
	nvtxRangePop();
	CK(cudaDeviceSynchronize());
	printf("counts: done (h[0] = %g)\n", h[0]);
	return 0;
}
