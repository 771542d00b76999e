/* op_args.c: the Operators view's keys from args (see op_args.h). */
#include "parsers/op_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/sort.h"
#include "lib/xalloc.h"
#include "src/args.h"
#include "src/index.h"

/* Reads are merged into windows of at most this many bytes: one read from the file's
 * nearest seek point covers many operators. */
#define WINDOW ((uint64_t)4 << 20)

struct want {
	uint64_t offset;
	uint32_t len, inst;
};

#define WANT_LESS(x, y) ((x)->offset < (y)->offset)
SORT_DEFINE(sort_wants, struct want, WANT_LESS)

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* Python's str() of a list of lists of numbers (and strings), as the plugin groups by. */
static void write_list(struct buf *b, const cJSON *j, int depth)
{
	char num[64];
	if (depth > 16) {
		put(b, "...", 3);
		return;
	}
	if (cJSON_IsArray(j)) {
		put(b, "[", 1);
		const cJSON *e;
		bool first = true;
		cJSON_ArrayForEach(e, j)
		{
			if (!first)
				put(b, ", ", 2);
			first = false;
			write_list(b, e, depth + 1);
		}
		put(b, "]", 1);
	} else if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;
		if (d == (double)(long long)d && d > -9e15 && d < 9e15)
			snprintf(num, sizeof num, "%lld", (long long)d);
		else
			snprintf(num, sizeof num, "%.17g", d);
		put(b, num, strlen(num));
	} else if (cJSON_IsString(j)) {
		put(b, "'", 1);
		put(b, j->valuestring, strlen(j->valuestring));
		put(b, "'", 1);
	} else {
		put(b, "None", 4);
	}
}

bool op_args_user_frame(const char *f, size_t n)
{
	if (n == 0 || f[0] == '<' || strncmp(f, "nn.Module: ", 11) == 0)
		return false;
	/* torch's own files: ".../site-packages/torch/...", "torch/nn/...", "/torch/" */
	for (size_t i = 0; i + 6 <= n; i++)
		if (memcmp(f + i, "torch/", 6) == 0 && (i == 0 || f[i - 1] == '/'))
			return false;
	return true;
}

/* The key of one operator's args TEXT (LEN bytes) into TEXT_TAB: 0 when it has none. */
static uint32_t key_of(const char *args, size_t len, enum op_group g, struct strtab *tab, struct buf *b)
{
	cJSON *j = cJSON_ParseWithLength(args, len);
	uint32_t key = 0;
	if (j == NULL)
		return 0;
	b->n = 0;
	if (g == OP_BY_SHAPE) {
		const cJSON *dims = cJSON_GetObjectItemCaseSensitive(j, "Input Dims");
		if (dims == NULL)
			dims = cJSON_GetObjectItemCaseSensitive(j, "Input dims");
		if (cJSON_IsArray(dims)) {
			write_list(b, dims, 0);
			key = strtab_intern(tab, b->p, b->n);
		}
	} else {
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "Call stack");
		if (cJSON_IsString(cs)) {
			const char *p = cs->valuestring;
			while (*p != '\0') {
				const char *e = strchr(p, ';');
				size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
				if (op_args_user_frame(p, n)) {
					key = strtab_intern(tab, p, n);
					break;
				}
				p += n + (e != NULL);
			}
		}
	}
	cJSON_Delete(j);
	return key;
}

static bool layer_op(const char *nm)
{
	static const char *const layers[] = { "aten::linear",     "aten::conv1d",      "aten::conv2d",
		                              "aten::conv3d",     "aten::convolution", "aten::embedding",
		                              "aten::matmul",     "aten::addmm",       "aten::bmm",
		                              "aten::layer_norm", "aten::batch_norm" };
	for (size_t i = 0; i < sizeof layers / sizeof *layers; i++)
		if (strcmp(nm, layers[i]) == 0)
			return true;
	return false;
}

char *op_args_first_shapes(const struct trace *t, const char *name, uint32_t max, uint32_t *name_id, bool *recorded)
{
	*recorded = false;
	*name_id = 0;
	struct strtab text;
	strtab_init(&text);
	struct buf b = { 0 };
	char *out = NULL;
	struct args_reader reader;
	args_reader_init(&reader, t);
	for (uint32_t ti = 0; ti < t->ntracks && out == NULL; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		uint32_t seen = 0;
		for (uint32_t i = 0; i < tr->nslices && seen < max && out == NULL; i++) {
			const struct slice *s = &tr->slices[i];
			if (!ops_counts_as_op(t, s) || slice_name(t, s) >= t->strings.n)
				continue;
			seen++;
			if (seen > 20 && !*recorded)
				break; /* none of a thread's first 20 operators has shapes: not recorded */
			const char *nm = strtab_get(&t->strings, slice_name(t, s));
			bool wanted = name != NULL ? strcmp(nm, name) == 0 : layer_op(nm);
			if (!wanted && (*recorded || seen > 20))
				continue; /* the others' args only tell whether shapes are recorded */
			char *args = NULL, *cause = NULL;
			if (args_reader_text(&reader, track_args_at(tr, i), &args, &cause) == 0) {
				if (strstr(args, "\"Input Dims\"") != NULL || strstr(args, "\"Input dims\"") != NULL)
					*recorded = true;
				uint32_t key = wanted ? key_of(args, strlen(args), OP_BY_SHAPE, &text, &b) : 0;
				if (key != 0) {
					out = xstrdup(strtab_get(&text, key));
					*name_id = slice_name(t, s);
				}
			}
			free(args);
			free(cause);
		}
	}
	args_reader_end(&reader);
	free(b.p);
	strtab_free(&text);
	return out;
}

/* The innermost python_function around slice I of TR that is user code, or TT_NONE. */
static uint32_t user_python_around(const struct trace *t, const struct track *tr, uint32_t i)
{
	const struct slice *s = &tr->slices[i];
	for (int d = (int)slice_depth(t, s) - 1; d >= 0; d--) {
		uint32_t a, b;
		index_row_range(tr, (uint16_t)d, s->ts, s->ts + 1, &a, &b);
		if (a >= b)
			continue;
		const struct slice *p = &tr->slices[row_idx(&tr->rows[d], a)];
		if (slice_cls(t, p) == SC_PYTHON && op_args_user_frame(strtab_get(&t->strings, slice_name(t, p)),
		                                                       strtab_len(&t->strings, slice_name(t, p))))
			return row_idx(&tr->rows[d], a);
	}
	return TT_NONE;
}

void op_args_keys(const struct trace *t, const struct op_tree *tree, enum op_group g, uint32_t *keys,
                  struct strtab *text)
{
	struct want *w = xmalloc((tree->n ? tree->n : 1) * sizeof *w);
	uint32_t nw = 0;
	for (uint32_t i = 0; i < tree->n; i++) {
		keys[i] = 0;
		if (!tree->inst[i].row)
			continue;
		uint64_t args = track_args_at(&t->tracks[tree->inst[i].ref.track], tree->inst[i].ref.idx);
		uint32_t len = (uint32_t)(args & 0xffffff);
		if (args != 0 && len > 0 && len < 0xffffff && t->args != NULL)
			w[nw++] = (struct want){ args >> 24, len, i };
	}
	sort_wants(w, nw);
	struct buf b = { 0 };
	char *win = NULL;
	size_t wcap = 0;
	for (uint32_t i = 0; i < nw;) {
		/* a window: consecutive wants within WINDOW bytes */
		uint32_t j = i + 1;
		uint64_t end = w[i].offset + w[i].len;
		while (j < nw && w[j].offset + w[j].len - w[i].offset <= WINDOW) {
			if (w[j].offset + w[j].len > end)
				end = w[j].offset + w[j].len;
			j++;
		}
		size_t n = (size_t)(end - w[i].offset);
		if (n > wcap)
			win = xrealloc(win, wcap = n);
		char *cause = NULL;
		bool whole = t->args->ops->read(t->args, w[i].offset, n, win, &cause) == 0;
		free(cause);
		cause = NULL;
		for (uint32_t k = i; k < j; k++) {
			const struct op_inst *in = &tree->inst[w[k].inst];
			if (whole) {
				keys[w[k].inst] = key_of(win + (w[k].offset - w[i].offset), w[k].len, g, text, &b);
			} else {
				/* the store keeps args only (no bytes between them): one at a time */
				char *one = NULL;
				if (args_store_text(t, track_args_at(&t->tracks[in->ref.track], in->ref.idx), &one,
				                    &cause) == 0)
					keys[w[k].inst] = key_of(one, w[k].len, g, text, &b);
				free(one);
				free(cause);
				cause = NULL;
			}
		}
		i = j;
	}
	free(win);
	free(w);
	if (g == OP_BY_SOURCE) {
		for (uint32_t i = 0; i < tree->n; i++) {
			const struct op_inst *in = &tree->inst[i];
			if (!in->row || keys[i] != 0)
				continue;
			const struct track *tr = &t->tracks[in->ref.track];
			uint32_t p = user_python_around(t, tr, in->ref.idx);
			if (p != TT_NONE)
				keys[i] = strtab_intern(text, strtab_get(&t->strings, slice_name(t, &tr->slices[p])),
				                        strtab_len(&t->strings, slice_name(t, &tr->slices[p])));
		}
	}
	free(b.p);
}
