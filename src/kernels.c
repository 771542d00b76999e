/* kernels.c: the Kernels view's figures (see kernels.h). One pass over the kernels. */
#include "src/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/index.h"

bool kernel_on_plugin_tc_list(const char *name)
{
	static const char *const plugin[] = { "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
		                              "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
		                              "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv",
		                              "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
		                              "c1688" };
	for (size_t i = 0; i < sizeof plugin / sizeof *plugin; i++)
		if (strstr(name, plugin[i]) != NULL)
			return true;
	return false;
}

bool kernel_uses_tensor_cores(const char *name)
{
	static const char *const newer[] = { "wgmma", "gmma", "tensorop", "cutlass3x", "nvjet", "sm80_xmma",
		                             "sm90_xmma", "sm100_xmma", "flash_fwd", "flash_bwd", "fmha", "tcgen05" };
	if (kernel_on_plugin_tc_list(name))
		return true;
	for (size_t i = 0; i < sizeof newer / sizeof *newer; i++)
		if (strcasestr(name, newer[i]) != NULL)
			return true;
	return false;
}

bool kernel_is_matmul_like(const char *name)
{
	return strcasestr(name, "gemm") != NULL || strcasestr(name, "conv") != NULL || strcasestr(name, "matmul") != NULL ||
	       strcasestr(name, "gemv") != NULL;
}

/* The CPU slice directly above slice I of TR (one row up, holding its start), or TT_NONE. */
static uint32_t parent_of(const struct track *tr, uint32_t i)
{
	const struct slice *s = &tr->slices[i];
	uint32_t a, b;
	if (s->depth == 0)
		return TT_NONE;
	index_row_range(tr, (uint16_t)(s->depth - 1), s->ts, s->ts + 1, &a, &b);
	return a < b ? tr->rows[s->depth - 1].idx[a] : TT_NONE;
}

/* Operators per kernel name: (kernel, operator) pairs counted in a small open hash. */
struct pair {
	uint32_t kernel, op;
	uint64_t n;
};

static int row_cmp(const void *a, const void *b)
{
	const struct kernel_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

void kernels_analyse(const struct trace *t, struct kernel_report *r)
{
	uint32_t ns = t->strings.n ? t->strings.n : 1;
	uint32_t *slot = xmalloc(ns * sizeof *slot); /* string id -> row, or TT_NONE */
	memset(slot, 0xff, ns * sizeof *slot);
	uint32_t cap = 64, hcap = 1024, hn = 0;
	struct pair *h = xcalloc(hcap, sizeof *h);
	memset(r, 0, sizeof *r);
	r->rows = xmalloc(cap * sizeof *r->rows);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (s->cls != SC_KERNEL || s->name >= ns)
				continue;
			if (slot[s->name] == TT_NONE) {
				if (r->n == cap)
					r->rows = xreallocarray(r->rows, cap *= 2, sizeof *r->rows);
				struct kernel_row *k = &r->rows[r->n];
				memset(k, 0, sizeof *k);
				k->name = s->name;
				k->op = TT_NONE;
				k->min = INT64_MAX;
				k->longest = (struct slice_ref){ ti, i };
				const char *nm = strtab_get(&t->strings, s->name);
				k->tensor_cores = kernel_uses_tensor_cores(nm);
				k->matmul_like = kernel_is_matmul_like(nm);
				slot[s->name] = r->n++;
			}
			struct kernel_row *k = &r->rows[slot[s->name]];
			const struct gpu_info *g = s->gpu != TT_NONE ? &t->gpu[s->gpu] : NULL;
			if (k->calls == 0 && g != NULL) {
				memcpy(k->grid, g->grid, sizeof k->grid);
				memcpy(k->block, g->block, sizeof k->block);
			} else if (g != NULL) {
				k->grid_varies |= memcmp(k->grid, g->grid, sizeof k->grid) != 0;
				k->block_varies |= memcmp(k->block, g->block, sizeof k->block) != 0;
			}
			k->calls++;
			k->total = tt_add(k->total, s->dur);
			r->total = tt_add(r->total, s->dur);
			if (k->tensor_cores)
				r->tc_total = tt_add(r->tc_total, s->dur);
			if (s->dur < k->min)
				k->min = s->dur;
			if (s->dur > k->max) {
				k->max = s->dur;
				k->longest = (struct slice_ref){ ti, i };
			}
			if (g != NULL && !isnan(g->blocks_per_sm)) {
				k->bps_sum += g->blocks_per_sm;
				k->bps_n++;
			}
			if (g != NULL && !isnan(g->occupancy)) {
				k->occ_sum += g->occupancy;
				k->occ_n++;
			}
			/* the operator above the runtime call that launched it */
			if (g != NULL && g->peer.track != TT_NONE && g->peer.track < t->ntracks) {
				const struct track *pt = &t->tracks[g->peer.track];
				uint32_t op = g->peer.idx < pt->nslices ? parent_of(pt, g->peer.idx) : TT_NONE;
				if (op != TT_NONE) {
					uint32_t opn = pt->slices[op].name;
					if (hn * 2 >= hcap) {
						struct pair *old = h;
						uint32_t oc = hcap;
						h = xcalloc(hcap *= 2, sizeof *h);
						for (uint32_t j = 0; j < oc; j++)
							if (old[j].n > 0) {
								uint32_t p = (old[j].kernel * 2654435761u ^ old[j].op * 40503u) & (hcap - 1);
								while (h[p].n > 0)
									p = (p + 1) & (hcap - 1);
								h[p] = old[j];
							}
						free(old);
					}
					uint32_t p = (s->name * 2654435761u ^ opn * 40503u) & (hcap - 1);
					while (h[p].n > 0 && (h[p].kernel != s->name || h[p].op != opn))
						p = (p + 1) & (hcap - 1);
					if (h[p].n == 0) {
						h[p].kernel = s->name;
						h[p].op = opn;
						hn++;
					}
					h[p].n++;
				}
			}
		}
	}
	for (uint32_t j = 0; j < hcap; j++) {
		if (h[j].n == 0)
			continue;
		struct kernel_row *k = &r->rows[slot[h[j].kernel]];
		if (h[j].n > k->op_calls || (h[j].n == k->op_calls && h[j].op < k->op)) {
			k->op = h[j].op;
			k->op_calls = h[j].n;
		}
	}
	free(h);
	free(slot);
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
}

void kernels_free(struct kernel_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof *r);
}
