// occ_reference.cc: writes tests/fixtures/record/occupancy.tsv, the answers of CUDA's own
// occupancy calculator (cuda_occupancy.h) and of Kineto's occupancy formula over a grid of
// devices and launches, which tests/unit/test_occupancy.c holds record/occupancy.c to.
// Not built by the build or CI (it needs a CUDA toolkit's header, nothing else). Run:
//   g++ -std=c++17 -O1 -Wall -I/usr/local/cuda/include -o /tmp/occ_reference tests/tools/occ_reference.cc && /tmp/occ_reference > tests/fixtures/record/occupancy.tsv
//
// The calculator is called as Kineto calls it (pytorch/kineto libkineto/src/
// DeviceProperties.cpp, kernelOccupancy): a default-constructed cudaOccFuncAttributes with
// maxThreadsPerBlock INT_MAX, numRegs, sharedSizeBytes, PARTITIONED_GC_OFF,
// FUNC_SHMEM_LIMIT_DEFAULT, maxDynamicSharedSizeBytes 0, and a default cudaOccDeviceState.
// Device values are cudaDeviceProp's for the named GPU (SXM parts where there are several);
// the few marked "approx." are plausible rather than read from the device, which is all
// a test of the port needs.
#include <cuda.h> // CUDA_VERSION only
#include <cuda_occupancy.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

struct Device {
	const char *name;
	int major, minor, maxThreadsPerBlock, maxThreadsPerSm, regsPerBlock, regsPerSm, warpSize, numSms;
	long smemPerBlock, smemPerSm, smemPerBlockOptin, reservedSmemPerBlock;
	bool full_grid;
};

const Device devices[] = {
	// the grid of the brief: every combination
	{ "P100", 6, 0, 1024, 2048, 65536, 65536, 32, 56, 49152, 65536, 49152, 0, true },
	{ "V100", 7, 0, 1024, 2048, 65536, 65536, 32, 80, 49152, 98304, 98304, 0, true },
	{ "T4", 7, 5, 1024, 1024, 65536, 65536, 32, 40, 49152, 65536, 65536, 0, true },
	{ "A100", 8, 0, 1024, 2048, 65536, 65536, 32, 108, 49152, 167936, 166912, 1024, true },
	{ "A10", 8, 6, 1024, 1536, 65536, 65536, 32, 72, 49152, 102400, 101376, 1024, true },
	{ "L4", 8, 9, 1024, 1536, 65536, 65536, 32, 58, 49152, 102400, 101376, 1024, true },
	{ "H100", 9, 0, 1024, 2048, 65536, 65536, 32, 132, 49152, 233472, 232448, 1024, true },
	{ "B200", 10, 0, 1024, 2048, 65536, 65536, 32, 148, 49152, 233472, 232448, 1024, true },
	// every other branch of the header, on a smaller grid
	{ "K80", 3, 7, 1024, 2048, 65536, 131072, 32, 13, 49152, 114688, 49152, 0, false },
	{ "M40", 5, 2, 1024, 2048, 65536, 65536, 32, 24, 49152, 98304, 49152, 0, false },
	{ "P40", 6, 1, 1024, 2048, 65536, 65536, 32, 30, 49152, 98304, 49152, 0, false },
	{ "Xavier", 7, 2, 1024, 2048, 65536, 65536, 32, 8, 49152, 98304, 98304, 0, false },
	{ "Orin", 8, 7, 1024, 1536, 65536, 65536, 32, 16, 49152, 167936, 166912, 1024, false },
	{ "sm101", 10, 1, 1024, 1536, 65536, 65536, 32, 20, 49152, 233472, 232448, 1024, false }, // approx.
	{ "B300", 10, 3, 1024, 2048, 65536, 65536, 32, 148, 49152, 233472, 232448, 1024, false },
	{ "Thor", 11, 0, 1024, 1536, 65536, 65536, 32, 20, 49152, 233472, 232448, 1024, false }, // approx.
	{ "RTX5090", 12, 0, 1024, 1536, 65536, 65536, 32, 170, 49152, 102400, 101376, 1024, false },
	{ "GB10", 12, 1, 1024, 1536, 65536, 65536, 32, 48, 49152, 102400, 101376, 1024, false },
	// made up: an SM with less shared memory than a block may have, so that the SM's
	// configuration follows the block's need (Volta on) or caps it (before)
	{ "odd-sm61", 6, 1, 1024, 2048, 65536, 65536, 32, 30, 49152, 16384, 49152, 0, false },
	{ "odd-sm70", 7, 0, 1024, 2048, 65536, 65536, 32, 80, 49152, 4096, 49152, 0, false },
	{ "odd-sm75", 7, 5, 1024, 1024, 65536, 65536, 32, 40, 49152, 8192, 49152, 0, false },
	// made up: an SM's shared memory between two configurations (120 KB -> 132, 180 -> 196)
	{ "odd-sm87", 8, 7, 1024, 1536, 65536, 65536, 32, 16, 49152, 122880, 121856, 1024, false },
	{ "odd-sm90", 9, 0, 1024, 2048, 65536, 65536, 32, 132, 49152, 184320, 183296, 1024, false },
	// what the calculator refuses: unknown majors and minors, an SM's shared memory past
	// every configuration, and a device value that is not positive
	{ "sm20", 2, 0, 1024, 1536, 32768, 32768, 32, 16, 49152, 49152, 49152, 0, false },
	{ "sm102", 10, 2, 1024, 2048, 65536, 65536, 32, 148, 49152, 233472, 232448, 1024, false },
	{ "sm130", 13, 0, 1024, 2048, 65536, 65536, 32, 148, 49152, 233472, 232448, 1024, false },
	{ "big-sm86", 8, 6, 1024, 1536, 65536, 65536, 32, 72, 49152, 262144, 101376, 1024, false },
	{ "no-sms", 9, 0, 1024, 2048, 65536, 65536, 32, 0, 49152, 233472, 232448, 1024, false },
};

const int full_regs[] = { 0, 16, 32, 64, 128, 255 };
const int full_blocks[] = { 1, 32, 64, 128, 256, 512, 1024 };
const long full_static[] = { 0, 1024, 48 * 1024 };
const long full_dynamic[] = { 0, 16 * 1024, 100 * 1024 };
// launches whose registers fit a block's warps but not the same warps rounded up to the
// sub-partitions (9 and 17 warps round to 12 and 20; on GP100, to 10 and 18)
const int edge_regs[] = { 112, 200 };
const int edge_blocks[] = { 160, 288, 544 };
const int small_regs[] = { 0, 32, 72, 255 };
const int small_blocks[] = { 1, 96, 256, 1024 };
const long small_static[] = { 1024, 48 * 1024 };
const long small_dynamic[] = { 0, 100 * 1024 };

cudaOccDeviceProp occ_prop(const Device &d)
{
	cudaOccDeviceProp p;
	p.computeMajor = d.major;
	p.computeMinor = d.minor;
	p.maxThreadsPerBlock = d.maxThreadsPerBlock;
	p.maxThreadsPerMultiprocessor = d.maxThreadsPerSm;
	p.regsPerBlock = d.regsPerBlock;
	p.regsPerMultiprocessor = d.regsPerSm;
	p.warpSize = d.warpSize;
	p.sharedMemPerBlock = d.smemPerBlock;
	p.sharedMemPerMultiprocessor = d.smemPerSm;
	p.numSms = d.numSms;
	p.sharedMemPerBlockOptin = d.smemPerBlockOptin;
	p.reservedSharedMemPerBlock = d.reservedSmemPerBlock;
	return p;
}

// Kineto's kernelOccupancy, word for word but for the device table; -1.0f when the
// calculator fails.
float kineto_occupancy(const Device &d, int regs, int staticSmem, int dynamicSmem, int blockX, float blocksPerSm)
{
	cudaOccDeviceProp prop = occ_prop(d);
	cudaOccFuncAttributes occFuncAttr;
	occFuncAttr.maxThreadsPerBlock = INT_MAX;
	occFuncAttr.numRegs = (uint16_t)regs;
	occFuncAttr.sharedSizeBytes = staticSmem;
	occFuncAttr.partitionedGCConfig = PARTITIONED_GC_OFF;
	occFuncAttr.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
	occFuncAttr.maxDynamicSharedSizeBytes = 0;
	const cudaOccDeviceState occDeviceState = {};
	int blockSize = blockX * 1 * 1;
	size_t dynamicSmemSize = dynamicSmem;
	cudaOccResult occ_result;
	float occupancy = -1.0;
	cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
		&occ_result, &prop, &occFuncAttr, &occDeviceState, blockSize, dynamicSmemSize);
	if (status == CUDA_OCC_SUCCESS) {
		if (occ_result.activeBlocksPerMultiprocessor < blocksPerSm)
			blocksPerSm = occ_result.activeBlocksPerMultiprocessor;
		occupancy = blocksPerSm * blockSize / (float)d.maxThreadsPerSm;
	}
	return occupancy;
}

// Kineto's blocks_per_sm for a grid of gridX blocks
float kineto_blocks_per_sm(const Device &d, int gridX)
{
	float blocks_per_sm = -1.0;
	if (d.numSms)
		blocks_per_sm = (gridX * 1 * 1) / (float)d.numSms;
	return blocks_per_sm;
}

const char *limiting(unsigned factors)
{
	static char buf[128];
	static const struct { unsigned bit; const char *name; } names[] = {
		{ OCC_LIMIT_WARPS, "WARPS" }, { OCC_LIMIT_REGISTERS, "REGISTERS" },
		{ OCC_LIMIT_SHARED_MEMORY, "SHARED_MEMORY" }, { OCC_LIMIT_BLOCKS, "BLOCKS" },
		{ OCC_LIMIT_BARRIERS, "BARRIERS" }, { OCC_LIMIT_VIRTUAL_RESOURCES, "VIRTUAL_RESOURCES" },
	};
	buf[0] = 0;
	for (const auto &n : names)
		if (factors & n.bit)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "|" : "", n.name);
	return buf;
}

void row(const Device &d, int regs, int block, long staticSmem, long dynamicSmem)
{
	cudaOccDeviceProp prop = occ_prop(d);
	cudaOccFuncAttributes attr;
	attr.maxThreadsPerBlock = INT_MAX;
	attr.numRegs = regs;
	attr.sharedSizeBytes = staticSmem;
	attr.partitionedGCConfig = PARTITIONED_GC_OFF;
	attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
	attr.maxDynamicSharedSizeBytes = 0;
	const cudaOccDeviceState state = {};
	cudaOccResult r;
	cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, block, dynamicSmem);

	// Kineto's estimate for a grid far larger than the GPU (capped by the active blocks)
	// and for one of about three blocks an SM (capped or not, as the launch goes)
	float full = kineto_occupancy(d, regs, (int)staticSmem, (int)dynamicSmem, block,
				      kineto_blocks_per_sm(d, 1000000));
	float part = kineto_occupancy(d, regs, (int)staticSmem, (int)dynamicSmem, block,
				      kineto_blocks_per_sm(d, 3 * d.numSms + 1));
	printf("%s\t%d\t%d\t%ld\t%ld\t", d.name, regs, block, staticSmem, dynamicSmem);
	if (status != CUDA_OCC_SUCCESS)
		printf("error\t-\t-\t-\t-\t-\t-");
	else
		printf("ok\t%d\t%d\t%d\t%d\t%d\t%s", r.activeBlocksPerMultiprocessor, r.blockLimitWarps,
		       r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitBlocks, limiting(r.limitingFactors));
	printf("\t%.9g\t%.9g\n", full, part);
}

} // namespace

int main()
{
	printf("# occupancy.tsv: CUDA's occupancy calculator (cuda_occupancy.h of CUDA %d.%d, "
	       "cudaOccMaxActiveBlocksPerMultiprocessor) with Kineto's configuration, and Kineto's "
	       "est. occupancy; written by tests/tools/occ_reference.cc, read by tests/unit/test_occupancy.c\n",
	       CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	printf("# device NAME cc_major cc_minor max_threads_per_block max_threads_per_sm regs_per_block "
	       "regs_per_sm warp_size num_sms shmem_per_block shmem_per_sm shmem_per_block_optin "
	       "reserved_shmem_per_block\n");
	printf("# NAME regs block static_smem dynamic_smem status active limit_warps limit_regs "
	       "limit_smem limit_blocks limiting kineto_full kineto_part\n");
	printf("# kineto_*: Kineto's occupancy fraction (float, -1 none) for grid 1000000 (full) "
	       "and 3 * num_sms + 1 (part) blocks\n");
	for (const Device &d : devices)
		printf("device\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%ld\t%ld\t%ld\t%ld\n", d.name, d.major,
		       d.minor, d.maxThreadsPerBlock, d.maxThreadsPerSm, d.regsPerBlock, d.regsPerSm,
		       d.warpSize, d.numSms, d.smemPerBlock, d.smemPerSm, d.smemPerBlockOptin,
		       d.reservedSmemPerBlock);
	for (const Device &d : devices) {
		if (d.full_grid) {
			for (int regs : full_regs)
				for (int block : full_blocks)
					for (long s : full_static)
						for (long dyn : full_dynamic)
							row(d, regs, block, s, dyn);
		} else {
			for (int regs : small_regs)
				for (int block : small_blocks)
					for (long s : small_static)
						for (long dyn : small_dynamic)
							row(d, regs, block, s, dyn);
		}
		for (int regs : edge_regs)
			for (int block : edge_blocks)
				row(d, regs, block, 0, 0);
	}
	return 0;
}
