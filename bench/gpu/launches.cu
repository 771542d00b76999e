// launches.cu: the overhead workloads of bench/gpu/check. "launch" mode: steps of 280
// kernels of a few microseconds each (launch-bound, as a small training loop is); "compute"
// mode: steps of 4 kernels of several milliseconds (compute-bound). Prints the median step
// time in microseconds over STEPS steps after 20 warm-up steps.
//   launches launch|compute [STEPS]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__global__ void tt_tiny(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 0.999f + 0.001f;
}

__global__ void tt_heavy(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	for (int k = 0; k < iters; k++)
		v = v * 0.9999f + 0.0001f;
	x[i] = v;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int compute = argc > 1 && strcmp(argv[1], "compute") == 0;
	int steps = argc > 2 ? atoi(argv[2]) : 100;
	const int n = 1 << 12, big = 1 << 22;
	float *x = NULL;
	if (cudaMalloc(&x, big * sizeof *x) != cudaSuccess) {
		fprintf(stderr, "launches: no GPU memory\n");
		return 1;
	}
	cudaMemset(x, 0, big * sizeof *x);
	double *t = (double *)malloc(steps * sizeof *t);
	for (int s = -20; s < steps; s++) {
		double a = now_us();
		if (compute)
			for (int k = 0; k < 4; k++)
				tt_heavy<<<big / 256, 256>>>(x, big, 2000);
		else
			for (int k = 0; k < 280; k++)
				tt_tiny<<<n / 256, 256>>>(x, n);
		cudaDeviceSynchronize();
		if (s >= 0)
			t[s] = now_us() - a;
	}
	qsort(t, steps, sizeof *t, cmp);
	printf("%.1f\n", t[steps / 2]);
	return 0;
}
