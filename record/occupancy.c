/* occupancy.c: CUDA's occupancy calculator (cudaOccMaxActiveBlocksPerMultiprocessor of
 * cuda_occupancy.h, CUDA 13.0, __CUDA_OCC_MAJOR__ 12) in C, for the configuration Kineto
 * gives it, and Kineto's occupancy figures on top (pytorch/kineto,
 * libkineto/src/DeviceProperties.cpp).
 *
 * Kineto's configuration (kernelOccupancy, later computeOccupancyMetrics): a
 * default-constructed cudaOccFuncAttributes (so numBlockBarriers 0 and
 * virtualResourceCount 0) with maxThreadsPerBlock INT_MAX, numRegs the kernel's registers
 * per thread, sharedSizeBytes its static shared memory, PARTITIONED_GC_OFF,
 * FUNC_SHMEM_LIMIT_DEFAULT, maxDynamicSharedSizeBytes 0; a default cudaOccDeviceState
 * (CACHE_PREFER_NONE, SHAREDMEM_CARVEOUT_DEFAULT); the device's cudaDeviceProp. What that
 * configuration makes constant is left out: the partitioned-caching halves of the warp and
 * register limits (caching off), the opt-in and user dynamic limits, the barrier limit (no
 * barriers, so never computed) and the virtual resource limit (INT_MAX, never the least).
 *
 * Compute capabilities the calculator knows, and what differs between them:
 *   major 3 5 6 7: shared memory allocated in 256-byte units; 8 to 12: 128 bytes, and the
 *     driver reserves reserved_shmem_per_block per block (added to the block's use and to
 *     its limit).
 *   registers: allocated per warp in 256-register units; at most 255 a thread on 3 5 6,
 *     256 from 7; 4 sub-partitions an SM, except 2 on GP100 (6.0), where a launch must
 *     also fit a GP10x (6.1) SM.
 *   blocks an SM: 16 on 3.x, 7.5, 8.x (x not 0 or 9); 24 on 8.9, 10.1, 11.0, 12.x; 32 on
 *     5.x, 6.x, 7.x (not 7.5), 8.0, 9.x, 10.x (not 10.1), 11.x (not 11.0).
 *   shared memory an SM: 3, 5, 6 use shmem_per_sm. From 7 the SM's L1/shared split is a
 *     configuration, and shmem_per_sm (or the block's need, when larger) is rounded up to
 *     one: 7.5: 32, 64 KB; 7.x: 0, 8, 16, 32, 64, 96 KB; 8.0 and 8.7: 0 .. 100, 132, 164 KB;
 *     other 8.x: 0 .. 100 KB; 9.x and 10.0, 10.1, 10.3, 11.0, 11.1, 11.3: 0 .. 164, 196,
 *     228 KB; 12.0, 12.1: 0 .. 100 KB. Any other minor of 10, 11, 12 is unknown, as is a
 *     size past the largest configuration.
 *   major 2 and 4, and past 12: unknown. */
#include "record/occupancy.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on what we accept, so that no product below overflows. The calculator computes in
 * int; we compute in 64 bits, which gives its results wherever its int arithmetic does not
 * overflow (block sizes past a device's limit, shared memory near 2 GB; no real launch). */
#define OCC_SMEM_MAX (512L << 20)
#define OCC_DEVICE_INT_MAX (1 << 24)
#define OCC_WARP_SIZE_MAX 1024
#define OCC_REGS_MAX 65535 /* CUPTI's registersPerThread is a uint16_t */

/* ---- per-architecture properties (cudaOcc* in cuda_occupancy.h); -1: unknown ---- */

/* clang-format off */
static int smem_granularity(const struct occ_device *d)
{
	switch (d->cc_major) {
	case 3: case 5: case 6: case 7:
		return 256;
	case 8: case 9: case 10: case 11: case 12:
		return 128;
	default:
		return -1;
	}
}

static int reg_max_per_thread(const struct occ_device *d)
{
	switch (d->cc_major) {
	case 3: case 5: case 6:
		return 255;
	case 7: case 8: case 9: case 10: case 11: case 12:
		return 256;
	default:
		return -1;
	}
}

static int reg_granularity(const struct occ_device *d)
{
	switch (d->cc_major) {
	case 3: case 5: case 6: case 7: case 8: case 9: case 10: case 11: case 12:
		return 256;
	default:
		return -1;
	}
}

static int sub_partitions(int cc_major, int cc_minor)
{
	switch (cc_major) {
	case 3: case 5: case 7: case 8: case 9: case 10: case 11: case 12:
		return 4;
	case 6:
		return cc_minor ? 4 : 2;
	default:
		return -1;
	}
}

static int max_blocks_per_sm(const struct occ_device *d)
{
	switch (d->cc_major) {
	case 3:
		return 16;
	case 5: case 6: case 9:
		return 32;
	case 7:
		return d->cc_minor == 5 ? 16 : 32;
	case 8:
		return d->cc_minor == 0 ? 32 : d->cc_minor == 9 ? 24 : 16;
	case 10:
		return d->cc_minor == 1 ? 24 : 32;
	case 11:
		return d->cc_minor == 0 ? 24 : 32;
	case 12:
		return 24;
	default:
		return -1;
	}
}

/* The L1/shared configurations of an SM from Volta on, in KB, ascending; NULL: unknown. */
static const int *smem_configs(const struct occ_device *d, int *n)
{
	static const int turing[] = { 32, 64 };
	static const int volta[] = { 0, 8, 16, 32, 64, 96 };
	static const int to100[] = { 0, 8, 16, 32, 64, 100 };
	static const int to164[] = { 0, 8, 16, 32, 64, 100, 132, 164 };
	static const int to228[] = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 };
#define CONFIGS(a) (*n = (int)(sizeof(a) / sizeof((a)[0])), (a))
	int minor = d->cc_minor;
	switch (d->cc_major) {
	case 7:
		return minor == 5 ? CONFIGS(turing) : CONFIGS(volta);
	case 8:
		return minor == 0 || minor == 7 ? CONFIGS(to164) : CONFIGS(to100);
	case 9:
		return CONFIGS(to228);
	case 10: case 11:
		return minor == 0 || minor == 1 || minor == 3 ? CONFIGS(to228) : NULL;
	case 12:
		return minor == 0 || minor == 1 ? CONFIGS(to100) : NULL;
	default:
		return NULL;
	}
#undef CONFIGS
}

/* cudaOccAlignUpShmemSizeVoltaPlus: the smallest configuration holding size bytes; -1 when
 * none does or the device is unknown. */
static long align_up_smem_config(const struct occ_device *d, long size)
{
	int n;
	const int *kb = smem_configs(d, &n);
	for (int i = 0; kb && i < n; i++)
		if (size <= kb[i] * 1024L)
			return kb[i] * 1024L;
	return -1;
}

/* cudaOccSMemPerMultiprocessor with the default state: the shared memory an SM offers when
 * the block needs no more; -1 unknown. */
static long smem_per_sm_preferred(const struct occ_device *d)
{
	if (d->cc_major >= 7)
		return align_up_smem_config(d, d->shmem_per_sm);
	switch (d->cc_major) {
	case 3: case 5: case 6:
		return d->shmem_per_sm;
	default:
		return -1;
	}
}
/* clang-format on */

/* ---- the four limits ---- */

static long long divide_round_up(long long x, long long y) { return (x + y - 1) / y; }

static long long round_up(long long x, long long y) { return y * divide_round_up(x, y); }

/* cudaOccMaxBlocksPerSMRegsLimit with caching off, sub-partitions given (GP100 is checked
 * against GP10x's count too). */
static long long regs_limit(const struct occ_device *d, int subparts, int regs, long long block_size)
{
	long long warps = divide_round_up(block_size, d->warp_size);
	long long per_warp = round_up((long long)regs * d->warp_size, reg_granularity(d));
	long long per_block = per_warp * warps;
	/* the hardware checks a block's registers as if all sub-partitions were given warps */
	long long assumed = per_warp * round_up(warps, subparts);

	if (d->regs_per_block < assumed || d->regs_per_block < per_block || regs > reg_max_per_thread(d))
		return 0;
	if (per_warp == 0)
		return INT_MAX;
	long long warps_per_subpart = (d->regs_per_sm / subparts) / per_warp;
	return warps_per_subpart * subparts / warps;
}

/* cudaOccMaxBlocksPerSMSmemLimit with the default limit and state; -1 unknown. */
static long long smem_limit(const struct occ_device *d, long static_smem, long dynamic_smem)
{
	long preferred = smem_per_sm_preferred(d);
	if (preferred < 0)
		return -1;
	long long total = (long long)static_smem + d->reserved_shmem_per_block + dynamic_smem;
	long long allocated = round_up(total, smem_granularity(d));
	long long block_limit = d->shmem_per_block;
	if (d->cc_major >= 8)
		block_limit += d->reserved_shmem_per_block;

	if (allocated > block_limit)
		return 0;
	long long per_sm;
	if (preferred >= allocated)
		per_sm = preferred;
	else if (d->cc_major >= 7) {
		/* the SM is configured for the block's need when the preference is smaller */
		per_sm = align_up_smem_config(d, (long)allocated);
		if (per_sm < 0)
			return -1;
	} else
		per_sm = d->shmem_per_sm;
	return allocated > 0 ? per_sm / allocated : INT_MAX;
}

static const char *limiting_names(unsigned mask)
{
	/* clang-format off */
	static const char *const names[16] = {
		"", "WARPS", "REGISTERS", "WARPS|REGISTERS",
		"SHARED_MEMORY", "WARPS|SHARED_MEMORY", "REGISTERS|SHARED_MEMORY",
		"WARPS|REGISTERS|SHARED_MEMORY",
		"BLOCKS", "WARPS|BLOCKS", "REGISTERS|BLOCKS", "WARPS|REGISTERS|BLOCKS",
		"SHARED_MEMORY|BLOCKS", "WARPS|SHARED_MEMORY|BLOCKS",
		"REGISTERS|SHARED_MEMORY|BLOCKS", "WARPS|REGISTERS|SHARED_MEMORY|BLOCKS",
	};
	/* clang-format on */
	return names[mask & 15];
}

static int device_ok(const struct occ_device *d)
{
	return d->max_threads_per_block > 0 && d->max_threads_per_block <= OCC_DEVICE_INT_MAX &&
	       d->max_threads_per_sm > 0 && d->max_threads_per_sm <= OCC_DEVICE_INT_MAX && d->regs_per_block > 0 &&
	       d->regs_per_block <= OCC_DEVICE_INT_MAX && d->regs_per_sm > 0 && d->regs_per_sm <= OCC_DEVICE_INT_MAX &&
	       d->warp_size > 0 && d->warp_size <= OCC_WARP_SIZE_MAX && d->num_sms > 0 && d->shmem_per_block > 0 &&
	       d->shmem_per_block <= OCC_SMEM_MAX && d->shmem_per_sm > 0 && d->shmem_per_sm <= OCC_SMEM_MAX &&
	       d->reserved_shmem_per_block >= 0 && d->reserved_shmem_per_block <= OCC_SMEM_MAX;
}

/* cudaOccMaxActiveBlocksPerMultiprocessor with Kineto's attributes and state, for any
 * block size and register count the calculator takes (larger than the device allows
 * gives 0 blocks, as there). Returns 0, or -1 where the calculator fails or where its int
 * arithmetic would overflow. */
static int occ_calculate(const struct occ_device *d, int regs, long static_smem, long dynamic_smem,
                         long long block_size, struct occ_result *out)
{
	if (!d || !out || block_size <= 0 || regs < 0 || regs > OCC_REGS_MAX || static_smem < 0 ||
	    static_smem > OCC_SMEM_MAX || dynamic_smem < 0 || dynamic_smem > OCC_SMEM_MAX || !device_ok(d))
		return -1;
	if (smem_granularity(d) < 0 || reg_max_per_thread(d) < 0 || max_blocks_per_sm(d) < 0)
		return -1;

	long long regs_lim = regs_limit(d, sub_partitions(d->cc_major, d->cc_minor), regs, block_size);
	/* a launch that fits GP100's two sub-partitions but not GP10x's four fits no Pascal */
	if (d->cc_major == 6 && d->cc_minor == 0 && regs_lim != 0 &&
	    regs_limit(d, sub_partitions(6, 1), regs, block_size) == 0)
		regs_lim = 0;
	long long warps_limit = 0;
	if (block_size <= d->max_threads_per_block)
		warps_limit = (d->max_threads_per_sm / d->warp_size) / divide_round_up(block_size, d->warp_size);
	long long smem_lim = smem_limit(d, static_smem, dynamic_smem);
	if (smem_lim < 0)
		return -1;

	long long blocks_limit = max_blocks_per_sm(d);
	long long least = regs_lim;
	if (smem_lim < least)
		least = smem_lim;
	if (warps_limit < least)
		least = warps_limit;
	if (blocks_limit < least)
		least = blocks_limit;
	unsigned mask = (least == warps_limit ? 1u : 0) | (least == regs_lim ? 2u : 0) | (least == smem_lim ? 4u : 0) |
	                (least == blocks_limit ? 8u : 0);

	out->active_blocks_per_sm = (int)least;
	out->limit_warps = (int)warps_limit;
	out->limit_regs = (int)regs_lim;
	out->limit_smem = (int)smem_lim;
	out->limit_blocks = (int)blocks_limit;
	out->limiting = limiting_names(mask);
	return 0;
}

int occ_max_active_blocks(const struct occ_device *d, int regs_per_thread, long static_smem, long dynamic_smem,
                          int block_size, struct occ_result *out)
{
	if (!d || block_size <= 0 || block_size > d->max_threads_per_block || regs_per_thread < 0 ||
	    regs_per_thread > 255)
		return -1;
	return occ_calculate(d, regs_per_thread, static_smem, dynamic_smem, block_size, out);
}

/* ---- Kineto's figures (libkineto/src/DeviceProperties.cpp), in float as there ---- */

static int32_t int32_product(int a, int b, int c)
{
	/* Kineto multiplies int32 fields in int; the product wraps on the machines it runs on */
	return (int32_t)((uint32_t)a * (uint32_t)b * (uint32_t)c);
}

float occ_kineto_blocks_per_sm(int grid_x, int grid_y, int grid_z, int num_sms)
{
	if (num_sms <= 0)
		return -1.0f;
	return (float)int32_product(grid_x, grid_y, grid_z) / (float)num_sms;
}

float occ_kineto_warps_per_sm(float blocks_per_sm, int block_x, int block_y, int block_z)
{
	float threads = blocks_per_sm * (float)int32_product(block_x, block_y, block_z);
	return threads / 32.0f;
}

double occ_kineto_estimate(const struct occ_device *d, int regs_per_thread, long static_smem, long dynamic_smem, int bx,
                           int by, int bz, double blocks_per_sm)
{
	long long block_size = (long long)bx * by * bz;
	struct occ_result r;
	if (!d || bx <= 0 || by <= 0 || bz <= 0 || block_size > INT_MAX || isnan(blocks_per_sm) ||
	    occ_calculate(d, regs_per_thread, static_smem, dynamic_smem, block_size, &r) != 0)
		return -1.0;
	float bps = (float)blocks_per_sm;
	if ((float)r.active_blocks_per_sm < bps)
		bps = (float)r.active_blocks_per_sm;
	float threads = bps * (float)block_size;
	float occupancy = threads / (float)d->max_threads_per_sm;
	return (double)occupancy * 100.0;
}
