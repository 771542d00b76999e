/* occupancy.h: how many blocks of a kernel fit on one SM, as CUDA's occupancy calculator
 * (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor) computes it, and the three
 * figures Kineto derives from it for a kernel event ("blocks per SM", "warps per SM",
 * "est. achieved occupancy %"). Pure C: no CUDA or CUPTI header is needed to build it.
 *
 * The calculator is ported for the one configuration Kineto gives it: partitioned global
 * caching off, the default per-block shared memory limit (no opt-in), the default L1 /
 * shared memory carveout, no per-function limit on threads or dynamic shared memory, no
 * block barriers and no virtual resources counted. Printing the figures as Kineto does is
 * described above occ_kineto_estimate. */
#ifndef TT_OCCUPANCY_H
#define TT_OCCUPANCY_H

/* A device, with the values of cudaDeviceProp that have the same names in
 * cudaOccDeviceProp. max_blocks_per_sm and shmem_per_block_optin are not read: the
 * calculator has its own per-architecture block limit, and the opt-in limit only counts
 * for functions that opted in, which Kineto's configuration does not. */
struct occ_device {
	int cc_major, cc_minor, max_threads_per_block, max_threads_per_sm, regs_per_block, regs_per_sm, warp_size,
		num_sms, max_blocks_per_sm;
	long shmem_per_block, shmem_per_sm, shmem_per_block_optin, reserved_shmem_per_block;
};

/* What limits a launch: each limit_* is how many blocks per SM that resource alone
 * allows (INT_MAX where the kernel uses none of it: no registers, or no shared memory
 * before Ampere reserves 1 KB per block); active_blocks_per_sm is the least of them.
 * limiting names every limit equal to that least one, in the calculator's bit order,
 * joined by '|': "WARPS", "REGISTERS", "SHARED_MEMORY", "BLOCKS", or e.g.
 * "WARPS|REGISTERS"; it points to a static string. */
struct occ_result {
	int active_blocks_per_sm;
	int limit_warps, limit_regs, limit_smem, limit_blocks;
	const char *limiting;
};

/* Fills *out with the occupancy of a kernel using regs_per_thread registers, static_smem
 * and dynamic_smem bytes of shared memory and block_size threads a block on device d.
 * Returns 0, or -1 with *out untouched on bad input: block_size outside 1 ..
 * d->max_threads_per_block, regs_per_thread outside 0 .. 255, shared memory negative or
 * past 512 MiB, a device value not positive (or absurdly large), or a compute capability
 * or shared memory size the calculator of CUDA 13.0 does not know (it answers
 * CUDA_OCC_ERROR_UNKNOWN_DEVICE or _INVALID_INPUT there; see cc list in occupancy.c).
 * active_blocks_per_sm can be 0: the launch does not fit (too much shared memory, too
 * many registers for a block). */
int occ_max_active_blocks(const struct occ_device *d, int regs_per_thread, long static_smem, long dynamic_smem,
                          int block_size, struct occ_result *out);

/* Kineto's "blocks per SM" of a kernel: the grid's block count over the device's SM
 * count, in float, the block count being the int32 product of the grid's dimensions
 * (CUPTI's gridX * gridY * gridZ; a product past INT32_MAX wraps, as it does in Kineto).
 * Returns -1 when num_sms is not positive, the value Kineto gives its occupancy
 * calculation then (it prints "inf" as blocks per SM; the recorder always knows its SMs). */
float occ_kineto_blocks_per_sm(int grid_x, int grid_y, int grid_z, int num_sms);

/* Kineto's "warps per SM": blocks_per_sm times the block's threads over 32 (a constant in
 * Kineto, whatever the warp size), in float, the thread count an int32 product. */
float occ_kineto_warps_per_sm(float blocks_per_sm, int block_x, int block_y, int block_z);

/* Kineto's "est. achieved occupancy %" before rounding: the SM's share of threads that
 * min(active blocks per SM, blocks_per_sm) blocks of bx*by*bz threads fill, times 100,
 * computed in float as Kineto does (then widened: the result is exactly the double that
 * Kineto rounds). blocks_per_sm is occ_kineto_blocks_per_sm's value for the kernel.
 * Returns -1 when Kineto's calculation fails and it has no figure (a block dimension not
 * positive or their product past INT_MAX, shared memory negative or past 512 MiB, an
 * unknown device, blocks_per_sm NaN). Unlike occ_max_active_blocks, a block larger than
 * the device allows or more than 255 registers are not errors here: the calculator, and
 * so Kineto, counts 0 active blocks and gives 0.
 *
 * A negative blocks_per_sm (no SM count) gives what Kineto gives then, a negative figure.
 *
 * How Kineto prints the three figures, in the versions of pytorch/kineto read for this
 * port (metadataJson of the kernel activity in libkineto/src/CuptiActivity.cpp, later
 * CuptiActivity.h; the figures from libkineto/src/DeviceProperties.cpp blocksPerSm,
 * warpsPerSm, kernelOccupancy):
 *   "blocks per SM", "warps per SM": std::to_string(float), i.e. printf "%f" of the float
 *     (six decimals: 4.705883), or the string "inf" (quoted) when infinite; the oldest
 *     versions used fmt "{}" of the float, the shortest text that reads back as it;
 *   "est. achieved occupancy %": (int)(0.5 + occupancy * 100.0), occupancy being the
 *     float fraction; this function returns occupancy * 100.0, so print
 *     (int)(0.5 + occ_kineto_estimate(...)). With no figure Kineto's occupancy is -1.0
 *     and it prints (int)(0.5 - 100.0) = -99, where this function returns -1.
 * The newest version read (visitTypedMetadata in CuptiActivity.h, written out by
 * TypedMetadataJson.h) prints the two floats widened to double with fmt "{}" (shortest
 * round trip: 4.705882549285889), the occupancy as std::lround(occupancy * 100.0) (-100
 * with no figure), and adds an "occupancy" object with the calculator's limits. Which of
 * these a torch.profiler trace follows depends on the Kineto its PyTorch was built with. */
double occ_kineto_estimate(const struct occ_device *d, int regs_per_thread, long static_smem, long dynamic_smem, int bx,
                           int by, int bz, double blocks_per_sm);

#endif
