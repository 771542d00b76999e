/* test_occupancy.c: record/occupancy.c gives what CUDA's own occupancy calculator and
 * Kineto's formula give on every row of tests/fixtures/record/occupancy.tsv (written by
 * tests/tools/occ_reference.cc from cuda_occupancy.h), a few launches worked by hand, and
 * -1 rather than a crash on bad input. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/occupancy.h"
#include "tests/unit/tap.h"

#define MAX_DEVICES 32
#define MAX_FIELDS 16

struct named_device {
	char name[32];
	struct occ_device d;
	int rows, mismatches;
};

static struct named_device devices[MAX_DEVICES];
static int ndevices;

/* Splits line at tabs in place; returns the field count. */
static int split_tabs(char *line, char **field, int max)
{
	int n = 0;
	line[strcspn(line, "\n")] = 0;
	for (char *p = line; n < max;) {
		field[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = 0;
	}
	return n;
}

static struct named_device *find_device(const char *name)
{
	for (int i = 0; i < ndevices; i++)
		if (strcmp(devices[i].name, name) == 0)
			return &devices[i];
	return NULL;
}

static void read_device(char **f)
{
	struct named_device *nd = &devices[ndevices++];
	struct occ_device *d = &nd->d;
	snprintf(nd->name, sizeof nd->name, "%s", f[1]);
	d->cc_major = atoi(f[2]);
	d->cc_minor = atoi(f[3]);
	d->max_threads_per_block = atoi(f[4]);
	d->max_threads_per_sm = atoi(f[5]);
	d->regs_per_block = atoi(f[6]);
	d->regs_per_sm = atoi(f[7]);
	d->warp_size = atoi(f[8]);
	d->num_sms = atoi(f[9]);
	d->shmem_per_block = atol(f[10]);
	d->shmem_per_sm = atol(f[11]);
	d->shmem_per_block_optin = atol(f[12]);
	d->reserved_shmem_per_block = atol(f[13]);
	d->max_blocks_per_sm = 0; /* not read by the calculator */
}

/* Kineto's figure for the TSV's float fraction: what occ_kineto_estimate must return. */
static double kineto_percent(const char *text)
{
	float fraction = strtof(text, NULL);
	return fraction == -1.0f ? -1.0 : (double)fraction * 100.0;
}

/* One launch row: returns 1 when every figure agrees; prints what differs (first few). */
static int check_row(struct named_device *nd, char **f)
{
	static int reported;
	int regs = atoi(f[1]), block = atoi(f[2]);
	long static_smem = atol(f[3]), dynamic_smem = atol(f[4]);
	int cuda_ok = strcmp(f[5], "ok") == 0;
	struct occ_result r = { .active_blocks_per_sm = -7, .limiting = "untouched" };
	int rc = occ_max_active_blocks(&nd->d, regs, static_smem, dynamic_smem, block, &r);
	int same = cuda_ok ? rc == 0 && r.active_blocks_per_sm == atoi(f[6]) && r.limit_warps == atoi(f[7]) &&
	                             r.limit_regs == atoi(f[8]) && r.limit_smem == atoi(f[9]) &&
	                             r.limit_blocks == atoi(f[10]) && strcmp(r.limiting, f[11]) == 0
	                   : rc == -1 && r.active_blocks_per_sm == -7;

	float full_bps = occ_kineto_blocks_per_sm(1000000, 1, 1, nd->d.num_sms);
	float part_bps = occ_kineto_blocks_per_sm(3 * nd->d.num_sms + 1, 1, 1, nd->d.num_sms);
	double full = occ_kineto_estimate(&nd->d, regs, static_smem, dynamic_smem, block, 1, 1, full_bps);
	double part = occ_kineto_estimate(&nd->d, regs, static_smem, dynamic_smem, block, 1, 1, part_bps);
	same = same && full == kineto_percent(f[12]) && part == kineto_percent(f[13]);
	if (!same && reported++ < 10)
		printf("# %s regs %d block %d static %ld dynamic %ld: CUDA %s %s %s %s %s %s %s, Kineto %s %s;"
		       " port rc %d: %d %d %d %d %d %s, Kineto %.9g %.9g\n",
		       nd->name, regs, block, static_smem, dynamic_smem, f[5], f[6], f[7], f[8], f[9], f[10], f[11],
		       f[12], f[13], rc, r.active_blocks_per_sm, r.limit_warps, r.limit_regs, r.limit_smem,
		       r.limit_blocks, r.limiting, full / 100, part / 100);
	return same;
}

static void check_reference_table(void)
{
	const char *dir = getenv("srcdir");
	char path[4096], line[1024];
	snprintf(path, sizeof path, "%s/tests/fixtures/record/occupancy.tsv", dir ? dir : ".");
	FILE *fp = fopen(path, "r");
	if (!ok(fp != NULL, "the reference table opens (%s)", path))
		return;
	int bad_lines = 0, rows = 0;
	while (fgets(line, sizeof line, fp)) {
		char *f[MAX_FIELDS];
		if (line[0] == '#')
			continue;
		int n = split_tabs(line, f, MAX_FIELDS);
		if (n == 14 && strcmp(f[0], "device") == 0 && ndevices < MAX_DEVICES) {
			read_device(f);
			continue;
		}
		struct named_device *nd = n == 14 ? find_device(f[0]) : NULL;
		if (!nd) {
			bad_lines++;
			continue;
		}
		nd->rows++;
		rows++;
		nd->mismatches += !check_row(nd, f);
	}
	fclose(fp);
	is_int(bad_lines, 0, "every line of the table is a device, a launch of a listed device, or a comment");
	/* 8 devices x 6 register counts x 7 block sizes x 3 static x 3 dynamic sizes, then 20
	 * devices on 4 x 4 x 2 x 2; all 28 on 2 x 3 register-rounding cases */
	is_int(rows, 8 * 378 + 20 * 64 + 28 * 6, "launch rows read");
	for (int i = 0; i < ndevices; i++)
		ok(devices[i].rows > 0 && devices[i].mismatches == 0,
		   "%s (sm %d.%d): %d of %d launches as CUDA's calculator and Kineto give them", devices[i].name,
		   devices[i].d.cc_major, devices[i].d.cc_minor, devices[i].rows - devices[i].mismatches,
		   devices[i].rows);
}

static const struct occ_device a100 = { 8, 0, 1024, 2048, 65536, 65536, 32, 108, 32, 49152, 167936, 166912, 1024 };
static const struct occ_device t4 = { 7, 5, 1024, 1024, 65536, 65536, 32, 40, 16, 49152, 65536, 65536, 0 };
static const struct occ_device l4 = { 8, 9, 1024, 1536, 65536, 65536, 32, 58, 24, 49152, 102400, 101376, 1024 };
static const struct occ_device h100 = { 9, 0, 1024, 2048, 65536, 65536, 32, 132, 32, 49152, 233472, 232448, 1024 };
static const struct occ_device b200 = { 10, 0, 1024, 2048, 65536, 65536, 32, 148, 32, 49152, 233472, 232448, 1024 };

static void check_by_hand(void)
{
	struct occ_result r;

	/* A100, 32 registers, 256 threads, no shared memory of its own:
	 *   warps: 2048 / 32 = 64 warps an SM, 256 / 32 = 8 a block -> 64 / 8 = 8 blocks
	 *   registers: 32 x 32 = 1024 a warp (a multiple of 256); 65536 / 4 sub-partitions =
	 *     16384 -> 16 warps each, 64 an SM -> 64 / 8 = 8 blocks
	 *   shared: 0 + 1024 reserved = 1024 a block; the SM's 167936 is the 164 KB
	 *     configuration -> 167936 / 1024 = 164 blocks
	 *   blocks: 32 on 8.0.  Least 8, reached by warps and registers. */
	is_int(occ_max_active_blocks(&a100, 32, 0, 0, 256, &r), 0, "A100 32 regs 256 threads: computed");
	is_int(r.active_blocks_per_sm, 8, "A100 32 regs 256 threads: 8 blocks an SM");
	is_int(r.limit_smem, 164, "A100: 164 blocks of 1 KB (the reserved KB) in 164 KB");
	is_str(r.limiting, "WARPS|REGISTERS", "A100 32 regs 256 threads: warps and registers limit");
	/* Kineto, a grid far larger than the GPU: 8 blocks x 256 threads / 2048 = 1.0 */
	ok(occ_kineto_estimate(&a100, 32, 0, 0, 256, 1, 1, occ_kineto_blocks_per_sm(1000000, 1, 1, 108)) == 100.0,
	   "A100: Kineto's estimate is 100%%");

	/* T4, 64 registers, 128 threads, 48 KB static: 49152 + 0 reserved, in 256-byte units,
	 * fits the 48 KB a block; the SM's 65536 is Turing's 64 KB configuration ->
	 * 65536 / 49152 = 1 block.  Warps: 1024 / 32 = 32, / 4 = 8; registers: 2048 a warp,
	 * 16384 / 2048 = 8 warps a sub-partition, 32 an SM, / 4 = 8.  Kineto: 1 x 128 / 1024 =
	 * 12.5%, printed (int)(0.5 + 12.5) = 13. */
	is_int(occ_max_active_blocks(&t4, 64, 49152, 0, 128, &r), 0, "T4 48 KB static: computed");
	is_int(r.active_blocks_per_sm, 1, "T4 48 KB static: 1 block");
	is_str(r.limiting, "SHARED_MEMORY", "T4 48 KB static: shared memory limits");
	double est = occ_kineto_estimate(&t4, 64, 49152, 0, 64, 2, 1, 1000.0);
	ok(est == 12.5, "T4: Kineto's estimate 12.5%% for a 64x2 block (%.9g)", est);
	is_int((int)(0.5 + est), 13, "T4: printed as Kineto prints it, 13");

	/* T4 with no shared memory: Turing's smallest configuration is 32 KB, and 0 bytes a
	 * block leaves shared memory no limit (INT_MAX); a 1024-thread block takes all 32 warps. */
	is_int(occ_max_active_blocks(&t4, 0, 0, 0, 1024, &r), 0, "T4 1024 threads: computed");
	is_int(r.limit_smem, INT_MAX, "T4 no shared memory: no limit from it");
	is_int(r.limit_regs, INT_MAX, "T4 no registers: no limit from them");
	is_int(r.active_blocks_per_sm, 1, "T4 1024 threads: 1 block");
	is_str(r.limiting, "WARPS", "T4 1024 threads: warps limit");

	/* L4, 16 registers, one warp a block: warps 1536 / 32 = 48; registers 512 a warp, 32 a
	 * sub-partition, 128 an SM; shared 102400 (100 KB) / 1024 = 100; the 24 blocks of 8.9
	 * limit.  Kineto: 24 x 32 / 1536 = 0.5. */
	is_int(occ_max_active_blocks(&l4, 16, 0, 0, 32, &r), 0, "L4 32 threads: computed");
	is_int(r.active_blocks_per_sm, 24, "L4 32 threads: 24 blocks (8.9's limit)");
	is_str(r.limiting, "BLOCKS", "L4 32 threads: the block limit");
	ok(occ_kineto_estimate(&l4, 16, 0, 0, 32, 1, 1, 1e6) == 50.0, "L4: Kineto's estimate is 50%%");

	/* H100, 255 registers, 1024 threads: 255 x 32 = 8160 -> 8192 a warp, x 32 warps =
	 * 262144 > 65536 registers a block: no block fits. */
	is_int(occ_max_active_blocks(&h100, 255, 0, 0, 1024, &r), 0, "H100 255 regs 1024 threads: computed");
	is_int(r.active_blocks_per_sm, 0, "H100 255 regs 1024 threads: 0 blocks");
	is_str(r.limiting, "REGISTERS", "H100 255 regs 1024 threads: registers limit");

	/* B200, 64 registers, 256 threads, 1 KB static + 16 KB dynamic: shared 1024 + 1024
	 * reserved + 16384 = 18432 a block, 233472 (228 KB) / 18432 = 12; registers 2048 a
	 * warp, 8 warps a sub-partition, 32 an SM, / 8 = 4 blocks.  Kineto with a grid of 445
	 * blocks on 148 SMs: 445 / 148 = 3.0068 < 4 blocks, x 256 / 2048 = 37.58%. */
	is_int(occ_max_active_blocks(&b200, 64, 1024, 16384, 256, &r), 0, "B200: computed");
	is_int(r.limit_smem, 12, "B200: 12 blocks of 18 KB in 228 KB");
	is_int(r.active_blocks_per_sm, 4, "B200: 4 blocks");
	is_str(r.limiting, "REGISTERS", "B200: registers limit");
	est = occ_kineto_estimate(&b200, 64, 1024, 16384, 256, 1, 1, occ_kineto_blocks_per_sm(445, 1, 1, 148));
	ok(fabs(est - 37.5844595) < 1e-4, "B200: Kineto's estimate with fewer blocks than fit (%.9g)", est);
	is_int((int)(0.5 + est), 38, "B200: printed 38");

	/* 256 registers a thread: the calculator's limit from Volta on (one warp takes 8192 of
	 * a sub-partition's 16384: 2 warps each, 8 an SM, 8 one-warp blocks, 8 x 32 / 2048 =
	 * 12.5%), one past it before (0 blocks). occ_max_active_blocks refuses 256 (no compiler
	 * gives a thread more than 255); Kineto's estimate takes what CUPTI says. */
	static const struct occ_device p40 = { 6, 1, 1024, 2048, 65536, 65536, 32, 30, 32, 49152, 98304, 49152, 0 };
	ok(occ_kineto_estimate(&h100, 256, 0, 0, 32, 1, 1, 1e6) == 12.5, "H100 256 registers: Kineto's 12.5%%");
	ok(occ_kineto_estimate(&p40, 256, 0, 0, 32, 1, 1, 1e6) == 0.0, "P40 256 registers: Kineto's 0%%");
	ok(occ_kineto_estimate(&p40, 255, 0, 0, 32, 1, 1, 1e6) == 12.5, "P40 255 registers: Kineto's 12.5%%");

	/* Kineto's blocks and warps per SM */
	ok(occ_kineto_blocks_per_sm(800, 1, 1, 170) == 800.0f / 170.0f, "blocks per SM: 800 / 170 in float");
	ok(occ_kineto_warps_per_sm(2.5f, 16, 16, 1) == 20.0f, "warps per SM: 2.5 x 256 / 32 = 20");
	ok(occ_kineto_blocks_per_sm(65536, 65536, 1, 132) == 0.0f,
	   "blocks per SM: a grid of 2^32 blocks wraps to 0 in int32, as in Kineto");
	ok(occ_kineto_blocks_per_sm(1, 1, 1, 0) == -1.0f, "blocks per SM: no SM count gives -1");
}

static void check_bad_input(void)
{
	struct occ_result r = { .active_blocks_per_sm = -7 };
	struct occ_device no_warp = h100, unknown = h100, bad_smem = h100;
	no_warp.warp_size = 0;
	unknown.cc_major = 13;
	bad_smem.shmem_per_sm = 512 * 1024; /* past the 228 KB configuration */

	is_int(occ_max_active_blocks(&h100, 32, 0, 0, 0, &r), -1, "block size 0");
	is_int(occ_max_active_blocks(&h100, 32, 0, 0, -64, &r), -1, "negative block size");
	is_int(occ_max_active_blocks(&h100, 32, 0, 0, 1025, &r), -1, "block larger than the device's 1024");
	is_int(occ_max_active_blocks(&h100, 32, 0, 0, INT_MAX, &r), -1, "block size INT_MAX");
	is_int(occ_max_active_blocks(&h100, 256, 0, 0, 128, &r), -1, "256 registers a thread");
	is_int(occ_max_active_blocks(&h100, -1, 0, 0, 128, &r), -1, "negative registers");
	is_int(occ_max_active_blocks(&h100, 32, -1, 0, 128, &r), -1, "negative static shared memory");
	is_int(occ_max_active_blocks(&h100, 32, 0, LONG_MAX, 128, &r), -1, "LONG_MAX dynamic shared memory");
	is_int(occ_max_active_blocks(NULL, 32, 0, 0, 128, &r), -1, "no device");
	is_int(occ_max_active_blocks(&no_warp, 32, 0, 0, 128, &r), -1, "a device with warp size 0");
	is_int(occ_max_active_blocks(&unknown, 32, 0, 0, 128, &r), -1, "compute capability 13.0");
	is_int(occ_max_active_blocks(&bad_smem, 32, 0, 0, 128, &r), -1,
	       "an SM with more shared memory than any configuration");
	is_int(r.active_blocks_per_sm, -7, "the result is left alone on bad input");

	/* Kineto's estimate: its calculator counts 0 blocks where occ_max_active_blocks refuses */
	ok(occ_kineto_estimate(&h100, 32, 0, 0, 2048, 1, 1, 10.0) == 0.0, "Kineto: a 2048-thread block gives 0%%");
	ok(occ_kineto_estimate(&h100, 300, 0, 0, 128, 1, 1, 10.0) == 0.0, "Kineto: 300 registers give 0%%");
	ok(occ_kineto_estimate(&h100, 32, 0, 0, 0, 1, 1, 10.0) == -1.0, "Kineto: block x 0 has no figure");
	ok(occ_kineto_estimate(&h100, 32, 0, 0, 65536, 65536, 1, 10.0) == -1.0,
	   "Kineto: a block of 2^32 threads has no figure");
	ok(occ_kineto_estimate(&unknown, 32, 0, 0, 128, 1, 1, 10.0) == -1.0, "Kineto: an unknown device has no figure");
	ok(occ_kineto_estimate(&h100, 32, 0, 0, 128, 1, 1, NAN) == -1.0, "Kineto: NaN blocks per SM has no figure");
	ok(occ_kineto_estimate(NULL, 32, 0, 0, 128, 1, 1, 1.0) == -1.0, "Kineto: no device has no figure");
}

int main(void)
{
	check_reference_table();
	check_by_hand();
	check_bad_input();
	return done_testing();
}
