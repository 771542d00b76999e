/* kernels.c: the Kernels view's figures (see kernels.h). One pass over the kernels. */
#include "src/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/compiled.h"
#include "src/index.h"

bool kernel_on_plugin_tc_list(const char *name)
{
	/* clang-format off */
	static const char *const plugin[] = { "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
		                              "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
		                              "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv",
		                              "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
		                              "c1688" };
	/* clang-format on */
	for (size_t i = 0; i < sizeof plugin / sizeof *plugin; i++)
		if (strstr(name, plugin[i]) != NULL)
			return true;
	return false;
}

/* Appends the NUL-terminated S to BUF at *AT, as much as fits (N bytes with the NUL). */
static void put(char *buf, size_t n, size_t *at, const char *s, size_t len)
{
	while (len-- > 0 && *at + 1 < n)
		buf[(*at)++] = *s++;
	buf[*at] = '\0';
}

char *kernel_short_name(const char *name, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	if (strncmp(name, "void ", 5) == 0)
		name += 5;
	for (const char *p = name; *p != '\0';) {
		if (*p == '<' || *p == '(') {
			char open = *p, close = open == '<' ? '>' : ')';
			const char *q = p + 1;
			int depth = 1, paren = 0; /* in "<(a > b)>", the '>' in parentheses closes nothing */
			for (; *q != '\0' && depth > 0; q++) {
				if (open == '<' && *q == '(')
					paren++;
				else if (open == '<' && *q == ')' && paren > 0)
					paren--;
				else if (paren == 0 && *q == open)
					depth++;
				else if (paren == 0 && *q == close)
					depth--;
			}
			if (depth > 0) { /* unbalanced: keep the rest as it is */
				put(buf, n, &at, p, strlen(p));
				break;
			}
			if (open == '(' && strncmp(p, "(anonymous namespace)", 21) == 0)
				put(buf, n, &at, "(anonymous)", 11);
			else if (q - p == 2) /* "<>", "()": nothing to fold */
				put(buf, n, &at, p, 2);
			else
				put(buf, n, &at, open == '<' ? "<\u2026>" : "(\u2026)", 5);
			p = q;
		} else {
			put(buf, n, &at, p, 1);
			p++;
		}
	}
	return buf;
}

/* Operators per row: (row, operator) pairs counted in a small open hash. */
struct pair {
	uint32_t row, op;
	uint64_t n;
};

static int row_cmp(const void *a, const void *b)
{
	const struct kernel_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->name != y->name)
		return (x->name > y->name) - (x->name < y->name);
	if (x->op != y->op)
		return (x->op > y->op) - (x->op < y->op);
	const int32_t u[8] = { x->grid[0],  x->grid[1],  x->grid[2], x->block[0],
		               x->block[1], x->block[2], x->regs,    x->smem };
	const int32_t v[8] = { y->grid[0],  y->grid[1],  y->grid[2], y->block[0],
		               y->block[1], y->block[2], y->regs,    y->smem };
	for (int i = 0; i < 8; i++)
		if (u[i] != v[i])
			return u[i] < v[i] ? -1 : 1;
	return 0;
}

/* What a call of kernel S is grouped by under G. */
struct key {
	uint32_t name, op;
	int32_t grid[3], block[3], regs, smem;
};

static struct key key_of(const struct trace *t, const struct slice *s, const struct kernel_launch *g, uint32_t op,
                         enum kernel_group group)
{
	struct key k = { .name = slice_name(t, s), .op = group == KG_OP ? op : TT_NONE, .regs = -1, .smem = -1 };
	if ((group == KG_SHAPE || group == KG_OP) && g != NULL) {
		memcpy(k.grid, g->grid, sizeof k.grid);
		memcpy(k.block, g->block, sizeof k.block);
		k.regs = g->regs;
		k.smem = g->smem;
	}
	return k;
}

static uint32_t key_hash(const struct key *k)
{
	const int32_t v[8] = { k->grid[0],  k->grid[1],  k->grid[2], k->block[0],
		               k->block[1], k->block[2], k->regs,    k->smem };
	uint32_t h = k->name * 2654435761u ^ k->op * 40503u;
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint32_t)v[i]) * 16777619u;
	return h;
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->name == b->name && a->op == b->op && memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
	       memcmp(a->block, b->block, sizeof a->block) == 0 && a->regs == b->regs && a->smem == b->smem;
}

/* Rows by key: an open hash of row indices (TT_NONE: empty). */
struct rowmap {
	uint32_t *slot, cap, n;
};

static uint32_t *rowmap_find(struct rowmap *m, const struct kernel_report *r, const struct key *keys,
                             const struct key *k)
{
	(void)r;
	if (m->n * 2 >= m->cap) {
		uint32_t *old = m->slot, oc = m->cap;
		m->cap = oc ? oc * 2 : 256;
		m->slot = xmalloc(m->cap * sizeof *m->slot);
		memset(m->slot, 0xff, m->cap * sizeof *m->slot);
		for (uint32_t j = 0; j < oc; j++)
			if (old[j] != TT_NONE) {
				uint32_t p = key_hash(&keys[old[j]]) & (m->cap - 1);
				while (m->slot[p] != TT_NONE)
					p = (p + 1) & (m->cap - 1);
				m->slot[p] = old[j];
			}
		free(old);
	}
	uint32_t p = key_hash(k) & (m->cap - 1);
	while (m->slot[p] != TT_NONE && !key_eq(&keys[m->slot[p]], k))
		p = (p + 1) & (m->cap - 1);
	return &m->slot[p];
}

static void count_op(struct pair **hp, uint32_t *hcap, uint32_t *hn, uint32_t row, uint32_t opn)
{
	struct pair *h = *hp;
	if (*hn * 2 >= *hcap) {
		struct pair *old = h;
		uint32_t oc = *hcap;
		h = *hp = xcalloc(*hcap *= 2, sizeof *h);
		for (uint32_t j = 0; j < oc; j++)
			if (old[j].n > 0) {
				uint32_t p = (old[j].row * 2654435761u ^ old[j].op * 40503u) & (*hcap - 1);
				while (h[p].n > 0)
					p = (p + 1) & (*hcap - 1);
				h[p] = old[j];
			}
		free(old);
	}
	uint32_t p = (row * 2654435761u ^ opn * 40503u) & (*hcap - 1);
	while (h[p].n > 0 && (h[p].row != row || h[p].op != opn))
		p = (p + 1) & (*hcap - 1);
	if (h[p].n == 0) {
		h[p].row = row;
		h[p].op = opn;
		(*hn)++;
	}
	h[p].n++;
}

static void set_or_vary(int32_t *have, const int32_t *v, size_t n, bool first, bool *varies)
{
	if (first)
		memcpy(have, v, n * sizeof *v);
	else
		*varies |= memcmp(have, v, n * sizeof *v) != 0;
}

/* Groups T's kernels by GROUP into R, rows unsorted: with FULL, every figure of a row,
 * else only what kernels_times promises (no launching operator: the part that costs).
 * Rows are found by key in a hash, or by name alone in an array by string id. */
static void group_calls(const struct trace *t, enum kernel_group group, bool full, struct kernel_report *r)
{
	static const int32_t none[3] = { 0, 0, 0 }, minus1 = -1;
	uint32_t cap = 64, hcap = 1024, hn = 0;
	struct pair *h = xcalloc(hcap, sizeof *h);
	struct key *keys = xmalloc(cap * sizeof *keys);
	struct rowmap map = { 0 };
	uint32_t *by_name = NULL;
	if (group == KG_NAME) {
		by_name = xmalloc((t->strings.n ? t->strings.n : 1) * sizeof *by_name);
		memset(by_name, 0xff, t->strings.n * sizeof *by_name);
	}
	memset(r, 0, sizeof *r);
	r->group = group;
	r->rows = xmalloc(cap * sizeof *r->rows);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->gpu_slices == 0) /* no kernel, memcpy or memset on it */
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			const struct slice *s = &tr->slices[i];
			if (full)
				track_launch_prefetch(t, tr, i); /* its fact and launch, read below */
			if (slice_cls(t, s) != SC_KERNEL || slice_name(t, s) >= t->strings.n)
				continue;
			const struct gpu_info *g = slice_gpu(tr, s) != TT_NONE ? &t->gpu[slice_gpu(tr, s)] : NULL;
			/* the operator above the runtime call that launched it */
			uint32_t opn = TT_NONE, via = TT_NONE;
			if (full && g != NULL && g->peer.track != TT_NONE && g->peer.track < t->ntracks) {
				const struct track *pt = &t->tracks[g->peer.track];
				bool graph;
				uint32_t op = compiled_launching_slice(t, g->peer, &graph);
				if (op != TT_NONE)
					opn = slice_name(t, &pt->slices[op]);
				if (graph)
					via = slice_name(t, &pt->slices[g->peer.idx]);
			}
			const struct kernel_launch *kl = full && g != NULL ? gpu_launch(t, g) : NULL;
			uint32_t *slot;
			if (by_name != NULL) {
				slot = &by_name[slice_name(t, s)];
			} else {
				struct key key = key_of(t, s, kl, opn, group);
				slot = rowmap_find(&map, r, keys, &key);
			}
			if (*slot == TT_NONE) {
				if (r->n == cap) {
					r->rows = xreallocarray(r->rows, cap *= 2, sizeof *r->rows);
					keys = xreallocarray(keys, cap, sizeof *keys);
				}
				struct kernel_row *k = &r->rows[r->n];
				memset(k, 0, sizeof *k);
				k->name = slice_name(t, s);
				k->op = k->via = TT_NONE;
				k->min = INT64_MAX;
				k->regs = k->smem = -1;
				k->longest = (struct slice_ref){ ti, i };
				if (full)
					kernel_class_of(strtab_get(&t->strings, slice_name(t, s)), KC_ACT_KERNEL,
					                tr->kind == TRACK_GPU_COMM, &k->cls);
				keys[r->n] = key_of(t, s, kl, opn, group);
				*slot = r->n++;
				map.n++;
			}
			uint32_t row = *slot;
			struct kernel_row *k = &r->rows[row];
			if (full) {
				bool first = k->calls == 0;
				set_or_vary(k->grid, kl ? kl->grid : none, 3, first, &k->grid_varies);
				set_or_vary(k->block, kl ? kl->block : none, 3, first, &k->block_varies);
				set_or_vary(&k->regs, kl ? &kl->regs : &minus1, 1, first, &k->regs_varies);
				set_or_vary(&k->smem, kl ? &kl->smem : &minus1, 1, first, &k->smem_varies);
			}
			k->calls++;
			k->total = tt_add(k->total, slice_dur(tr, s));
			r->total = tt_add(r->total, slice_dur(tr, s));
			if (k->cls.unit == KC_UNIT_MATRIX)
				r->tc_total = tt_add(r->tc_total, slice_dur(tr, s));
			else if (k->cls.unit == KC_UNIT_UNKNOWN && kernel_class_is_matmul(k->cls.family))
				r->matmul_unknown = tt_add(r->matmul_unknown, slice_dur(tr, s));
			if (slice_dur(tr, s) < k->min)
				k->min = slice_dur(tr, s);
			if (slice_dur(tr, s) > k->max) {
				k->max = slice_dur(tr, s);
				k->longest = (struct slice_ref){ ti, i };
			}
			/* the plugin's means: weighted by duration, a call without the figure as 0 */
			if (kl != NULL && !isnan(kl->blocks_per_sm)) {
				k->bps_sum += (double)kl->blocks_per_sm * (double)slice_dur(tr, s);
				k->bps_n++;
			}
			if (kl != NULL && !isnan(kl->occupancy)) {
				k->occ_sum += (double)kl->occupancy * (double)slice_dur(tr, s);
				k->occ_n++;
				/* Kineto writes 0 where it could not compute the figure, next to blocks per SM
				 * that say the SMs were busy: that 0 is unknown, not low */
				if (kl->occupancy > 0 || isnan(kl->blocks_per_sm) || kl->blocks_per_sm < 1) {
					k->occ_known_sum += (double)kl->occupancy * (double)slice_dur(tr, s);
					k->occ_known_dur = tt_add(k->occ_known_dur, slice_dur(tr, s));
				}
			}
			if (opn != TT_NONE)
				count_op(&h, &hcap, &hn, row, opn);
			if (via != TT_NONE) {
				if (k->via == TT_NONE)
					k->via = via;
				k->via_calls++;
			}
		}
	}
	for (uint32_t j = 0; j < hcap; j++) {
		if (h[j].n == 0)
			continue;
		struct kernel_row *k = &r->rows[h[j].row];
		if (h[j].n > k->op_calls || (h[j].n == k->op_calls && h[j].op < k->op)) {
			k->op = h[j].op;
			k->op_calls = h[j].n;
		}
	}
	free(h);
	free(keys);
	free(map.slot);
	free(by_name);
}

void kernels_analyse(const struct trace *t, enum kernel_group group, struct kernel_report *r)
{
	group_calls(t, group, true, r);
	if (r->n > 1)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
}

static bool total_less(const struct kernel_row *x, const struct kernel_row *y, const struct strtab *names)
{
	return x->total != y->total ? x->total > y->total : strtab_cmp(names, x->name, y->name) < 0;
}
SORT_DEFINE_CTX(sort_by_total, struct kernel_row, const struct strtab *, total_less)

void kernels_times(const struct trace *t, struct kernel_report *r)
{
	group_calls(t, KG_NAME, false, r);
	sort_by_total(r->rows, r->n, &t->strings);
}

double kernel_mean_bps(const struct kernel_row *k)
{
	return k->bps_n > 0 && k->total > 0 ? k->bps_sum / (double)k->total : NAN;
}

double kernel_mean_occupancy(const struct kernel_row *k)
{
	return k->occ_n > 0 && k->total > 0 ? k->occ_sum / (double)k->total : NAN;
}

double kernel_known_occupancy(const struct kernel_row *k)
{
	return k->occ_known_dur > 0 ? k->occ_known_sum / (double)k->occ_known_dur : NAN;
}

void kernels_free(struct kernel_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof *r);
}

/* ---- folding names ----------------------------------------------------------------- */

struct fold_key {
	char *key; /* the short name, then what else the group keys on */
	uint32_t row;
};

static int fold_key_cmp(const void *a, const void *b)
{
	const struct fold_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c != 0 ? c : (x->row > y->row) - (x->row < y->row);
}

struct folded {
	struct kernel_row row; /* first: row_cmp compares it */
	uint32_t at;           /* its place before sorting */
};

static void fold_into(struct kernel_row *m, const struct kernel_row *k)
{
	if (k->max > m->max)
		m->longest = k->longest;
	m->calls += k->calls;
	m->total = tt_add(m->total, k->total);
	m->min = k->min < m->min ? k->min : m->min;
	m->max = k->max > m->max ? k->max : m->max;
	m->bps_sum += k->bps_sum;
	m->occ_sum += k->occ_sum;
	m->bps_n += k->bps_n;
	m->occ_n += k->occ_n;
	m->occ_known_sum += k->occ_known_sum;
	m->occ_known_dur = tt_add(m->occ_known_dur, k->occ_known_dur);
	m->grid_varies |= k->grid_varies || memcmp(m->grid, k->grid, sizeof m->grid) != 0;
	m->block_varies |= k->block_varies || memcmp(m->block, k->block, sizeof m->block) != 0;
	m->regs_varies |= k->regs_varies || m->regs != k->regs;
	m->smem_varies |= k->smem_varies || m->smem != k->smem;
	if (m->cls.family != k->cls.family)
		m->cls.family = KC_OTHER;
	if (m->cls.unit != k->cls.unit)
		m->cls.unit = KC_UNIT_UNKNOWN;
	if (m->cls.prec != k->cls.prec)
		m->cls.prec = KC_PREC_UNKNOWN;
	if (k->op == m->op)
		m->op_calls += k->op_calls;
	else if (k->op_calls > m->op_calls) {
		m->op = k->op;
		m->op_calls = k->op_calls;
	}
	if (k->via == m->via)
		m->via_calls += k->via_calls;
	else if (k->via_calls > m->via_calls) {
		m->via = k->via;
		m->via_calls = k->via_calls;
	}
}

void kernels_fold_names(const struct trace *t, const struct kernel_report *in, struct kernel_report *out, uint32_t **of)
{
	memset(out, 0, sizeof *out);
	out->group = in->group;
	out->total = in->total;
	out->tc_total = in->tc_total;
	out->matmul_unknown = in->matmul_unknown;
	uint32_t n = in->n;
	struct fold_key *keys = xmalloc((n ? n : 1) * sizeof *keys);
	for (uint32_t i = 0; i < n; i++) {
		const struct kernel_row *k = &in->rows[i];
		char name[512], rest[160] = "";
		kernel_short_name(strtab_get(&t->strings, k->name), name, sizeof name);
		if (in->group != KG_NAME)
			snprintf(rest, sizeof rest, "%d,%d,%d/%d,%d,%d/%d/%d/%d%d%d%d/%u", k->grid[0], k->grid[1],
			         k->grid[2], k->block[0], k->block[1], k->block[2], k->regs, k->smem, k->grid_varies,
			         k->block_varies, k->regs_varies, k->smem_varies, in->group == KG_OP ? k->op : 0u);
		size_t len = strlen(name) + strlen(rest) + 2;
		keys[i].key = xmalloc(len);
		snprintf(keys[i].key, len, "%s%c%s", name, '\x1f', rest);
		keys[i].row = i;
	}
	if (n > 1)
		qsort(keys, n, sizeof *keys, fold_key_cmp);
	struct folded *f = xmalloc((n ? n : 1) * sizeof *f);
	uint32_t *group = xmalloc((n ? n : 1) * sizeof *group), nf = 0;
	for (uint32_t j = 0; j < n; j++) {
		const struct kernel_row *k = &in->rows[keys[j].row];
		if (j > 0 && strcmp(keys[j].key, keys[j - 1].key) == 0) {
			/* rows of a key come in IN's order (by total, largest first): the first names it */
			fold_into(&f[nf - 1].row, k);
		} else {
			f[nf].row = *k;
			f[nf].at = nf;
			nf++;
		}
		group[keys[j].row] = nf - 1;
	}
	for (uint32_t j = 0; j < n; j++)
		free(keys[j].key);
	free(keys);
	if (nf > 1)
		qsort(f, nf, sizeof *f, row_cmp);
	uint32_t *place = xmalloc((nf ? nf : 1) * sizeof *place);
	out->rows = xmalloc((nf ? nf : 1) * sizeof *out->rows);
	for (uint32_t j = 0; j < nf; j++) {
		out->rows[j] = f[j].row;
		place[f[j].at] = j;
	}
	out->n = nf;
	for (uint32_t i = 0; i < n; i++)
		group[i] = place[group[i]];
	free(place);
	free(f);
	if (of != NULL)
		*of = group;
	else
		free(group);
}
