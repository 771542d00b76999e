#include "record/occupancy.h"
double occ_kineto_estimate(const struct occ_device *d, int regs_per_thread, long static_smem,
    long dynamic_smem, int bx, int by, int bz, double blocks_per_sm) { (void)d;(void)regs_per_thread;(void)static_smem;(void)dynamic_smem;(void)bx;(void)by;(void)bz;(void)blocks_per_sm; return -1; }
