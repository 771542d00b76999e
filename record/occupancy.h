/* TEMPORARY stub until the helper's occupancy lands */
#ifndef TTRACE_RECORD_OCCUPANCY_H
#define TTRACE_RECORD_OCCUPANCY_H
struct occ_device { int cc_major, cc_minor, max_threads_per_block, max_threads_per_sm,
    regs_per_block, regs_per_sm, warp_size, num_sms, max_blocks_per_sm;
    long shmem_per_block, shmem_per_sm, shmem_per_block_optin, reserved_shmem_per_block; };
double occ_kineto_estimate(const struct occ_device *d, int regs_per_thread, long static_smem,
    long dynamic_smem, int bx, int by, int bz, double blocks_per_sm);
#endif
