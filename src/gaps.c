/* gaps.c: device unions, gaps, their causes and the utilization figures (see gaps.h). */
#include "src/gaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "src/host_calls.h"
#include "src/index.h"
#include "src/spans.h"

#define HTA_KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30, compared as us */

static const struct {
	const char *key, *text, *rule;
} causes[GC__COUNT] = {
	[GC_SYNC] = { "sync", "host sync",
	              "a blocking call (sync, cudaFree, .item(), cudaMemcpy, copy into pageable memory) covers it on a thread" },
	[GC_DATALOADER] = { "dataloader", "data loading", "a DataLoader __next__ or pin-memory frame covers the gap" },
	[GC_PAGEABLE] = { "pageable_copy", "pageable H2D copy",
	                  "the next GPU operation is a pageable (or blocking) H2D copy whose call covers the gap" },
	[GC_WAIT] = { "wait", "stream/collective wait",
	              "the next work was launched before the gap began: it waited (event, stream, collective)" },
	[GC_LAUNCH] = { "launch", "launch-bound CPU",
	                "the next work was launched in the gap, and launch calls cover it on that thread" },
	[GC_CPU] = { "cpu_work", "CPU work",
	             "launched in the gap; the deepest frame covering it on that thread (not ProfilerStep#)" },
	[GC_NO_CPU] = { "no_cpu_activity", "no CPU activity recorded",
	                "launched in the gap, and no recorded frame covers it on that thread" },
	[GC_OTHER] = { "other", "other", "the next GPU operation or its launch is not in the trace" },
};

const char *gap_cause_key(enum gap_cause c) { return c < GC__COUNT ? causes[c].key : "?"; }
const char *gap_cause_text(enum gap_cause c) { return c < GC__COUNT ? causes[c].text : "?"; }
const char *gap_cause_rule(enum gap_cause c) { return c < GC__COUNT ? causes[c].rule : "?"; }
const char *hta_class_key(enum hta_class c)
{
	return c == HTA_HOST_WAIT ? "host_wait" : c == HTA_KERNEL_WAIT ? "kernel_wait" : "other";
}

static inline bool is_gpu_op(uint8_t cls) { return cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET; }
static inline bool is_gpu_track(const struct track *tr)
{
	return tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM;
}

/* ---- names that explain a gap --------------------------------------------------------- */

enum { N_DATALOADER = 1, N_SYNC = 2, N_WAIT = 4, N_MEMCPY_ASYNC = 8 };

/* The hint flags of every string (src/host_calls.h: one definition with the findings). */
static uint8_t *classify_names(const struct trace *t)
{
	uint8_t *f = xcalloc(t->strings.n ? t->strings.n : 1, 1);
	for (uint32_t id = 0; id < t->strings.n; id++) {
		unsigned h = host_call_flags(strtab_get(&t->strings, id));
		f[id] = (uint8_t)((h & (HC_DATALOADER | HC_PIN_MEMORY) ? N_DATALOADER : 0) |
		                  (h & HC_SYNC ? N_SYNC : 0) | (h & HC_STREAM_WAIT ? N_WAIT : 0) |
		                  (h & HC_MEMCPY_ASYNC ? N_MEMCPY_ASYNC : 0));
	}
	return f;
}

struct hint {
	int64_t start, end;
	struct slice_ref ref;
	uint8_t flags;
};

static inline bool hint_less(const struct hint *a, const struct hint *b) { return a->start < b->start; }
SORT_DEFINE(sort_hints, struct hint, hint_less)

/* The hints in start order, and for each flag bit the running maximum of the ends of the
 * hints with that flag (INT64_MIN before the first): the hints that start before a gap are
 * judged by one binary search, however long some of them are. */
struct hints {
	const struct hint *h;
	uint32_t n;
	int64_t *max_end[4];
};

static void hints_index(struct hints *x, const struct hint *h, uint32_t n)
{
	x->h = h;
	x->n = n;
	for (int f = 0; f < 4; f++) {
		int64_t m = INT64_MIN;
		x->max_end[f] = xmalloc((n ? n : 1) * sizeof *x->max_end[f]);
		for (uint32_t i = 0; i < n; i++) {
			if (h[i].flags & 1u << f && h[i].end > m)
				m = h[i].end;
			x->max_end[f][i] = m;
		}
	}
}

static void hints_free(struct hints *x)
{
	for (int f = 0; f < 4; f++)
		free(x->max_end[f]);
}

/* The hint with FLAG (one bit) that overlaps [a, b) the most (at least MIN_OVER >= 1 ns),
 * the first in start order among equals, or NULL. */
static const struct hint *best_hint(const struct hints *x, uint8_t flag, int64_t a, int64_t b, int64_t min_over)
{
	const struct hint *h = x->h, *best = NULL;
	const int64_t *me = x->max_end[__builtin_ctz(flag)];
	int64_t best_over = min_over - 1;
	uint32_t lo = 0, hi = x->n;
	while (lo < hi) { /* the first hint starting at or after a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (h[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* those starting before a overlap by min(end, b) - a: the first whose end reaches the
	 * best such value is the one a scan in start order would keep */
	uint32_t before = lo;
	if (before > 0 && me[before - 1] > a) {
		int64_t reach = me[before - 1] < b ? me[before - 1] : b;
		uint32_t l = 0, r = before - 1;
		while (l < r) {
			uint32_t mid = l + (r - l) / 2;
			if (me[mid] >= reach)
				r = mid;
			else
				l = mid + 1;
		}
		if (reach - a > best_over) {
			best_over = reach - a;
			best = &h[l];
		}
	}
	for (uint32_t i = before; i < x->n && h[i].start < b; i++) {
		if (!(h[i].flags & flag))
			continue;
		int64_t y = h[i].end < b ? h[i].end : b;
		if (y - h[i].start > best_over) {
			best_over = y - h[i].start;
			best = &h[i];
		}
	}
	return best;
}

/* ---- analysis --------------------------------------------------------------------------- */

static inline bool gap_less(const struct gap *a, const struct gap *b)
{
	int64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da > db;
	if (a->start != b->start)
		return a->start < b->start;
	return a->device < b->device;
}
SORT_DEFINE(sort_gaps, struct gap, gap_less)

/* A time and a position, sorted by time then position. */
struct at {
	int64_t ts;
	uint32_t i;
};

static inline bool at_less(const struct at *a, const struct at *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->i < b->i;
}
SORT_DEFINE(sort_ats, struct at, at_less)

/* The GPU tracks of one device: positions GT[0 .. N) of the device's tracks, in track order. */
struct device_tracks {
	const struct at *gt;
	uint32_t n;
};

/* The first slice of TR (slices in start order) starting at or after TS, or nslices. */
static uint32_t first_starting_at(const struct track *tr, int64_t ts)
{
	uint32_t lo = 0, hi = tr->nslices;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->slices[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of the device's GPU operations starting at or after TS; on equal starts the
 * one of the first track. Each track's slices are in start order: a binary search per
 * track, rather than a sorted copy of every operation of the device. */
static struct slice_ref first_op_after(const struct trace *t, struct device_tracks dt, int64_t ts)
{
	struct slice_ref best = { TT_NONE, TT_NONE };
	int64_t best_ts = 0;
	for (uint32_t k = 0; k < dt.n; k++) {
		uint32_t ti = dt.gt[k].i;
		const struct track *tr = &t->tracks[ti];
		uint32_t lo = first_starting_at(tr, ts);
		while (lo < tr->nslices && !is_gpu_op(slice_cls(t, &tr->slices[lo])))
			lo++;
		if (lo == tr->nslices)
			continue;
		int64_t x = tr->slices[lo].ts;
		if (best.track == TT_NONE || x < best_ts || (x == best_ts && ti < best.track)) {
			best = (struct slice_ref){ ti, lo };
			best_ts = x;
		}
	}
	return best;
}

/* Sets the step of each of the N gaps G: the first TensorBoard step (in step order) that
 * holds its start, or -1. One sweep over the gaps in time order with a min-heap of the
 * steps begun so far, so that many steps and many gaps stay O(n log n). */
static void assign_steps(const struct gap_report *r, struct gap *g, uint32_t n)
{
	if (n == 0)
		return;
	uint32_t ns = r->nsteps, nh = 0, next = 0;
	struct at *by_start = xmalloc((ns ? ns : 1) * sizeof *by_start);
	struct at *by_ts = xmalloc((size_t)n * sizeof *by_ts);
	uint32_t *heap = xmalloc((ns ? ns : 1) * sizeof *heap);
	for (uint32_t i = 0; i < ns; i++)
		by_start[i] = (struct at){ r->steps[i].start, i };
	for (uint32_t i = 0; i < n; i++)
		by_ts[i] = (struct at){ g[i].start, i };
	sort_ats(by_start, ns);
	sort_ats(by_ts, n);
	for (uint32_t q = 0; q < n; q++) {
		int64_t ts = by_ts[q].ts;
		for (; next < ns && by_start[next].ts <= ts; next++) {
			uint32_t k = nh++, v = by_start[next].i;
			while (k > 0 && heap[(k - 1) / 2] > v) {
				heap[k] = heap[(k - 1) / 2];
				k = (k - 1) / 2;
			}
			heap[k] = v;
		}
		/* a step that has ended holds no later gap either */
		while (nh > 0 && r->steps[heap[0]].end <= ts) {
			uint32_t v = heap[--nh], k = 0;
			for (;;) {
				uint32_t c = 2 * k + 1;
				if (c >= nh)
					break;
				if (c + 1 < nh && heap[c + 1] < heap[c])
					c++;
				if (heap[c] >= v)
					break;
				heap[k] = heap[c];
				k = c;
			}
			if (nh > 0)
				heap[k] = v;
		}
		g[by_ts[q].i].step = nh > 0 ? r->steps[heap[0]].number : -1;
	}
	free(by_start);
	free(by_ts);
	free(heap);
}

static int64_t overlap(const struct track *tr, const struct slice *s, int64_t a, int64_t b)
{
	int64_t x = s->ts > a ? s->ts : a,
		y = tt_add(s->ts, slice_dur(tr, s)) < b ? tt_add(s->ts, slice_dur(tr, s)) : b;
	return y > x ? y - x : 0;
}

/* The outermost operator around slice REF on its thread (REF itself when none is), or
 * {TT_NONE} when neither it nor any frame around it is an operator. */
static struct slice_ref outer_op(const struct trace *t, struct slice_ref ref)
{
	const struct track *tr = &t->tracks[ref.track];
	const struct slice *s = &tr->slices[ref.idx];
	int64_t mid = s->ts + slice_dur(tr, s) / 2;
	for (uint16_t r = 0; r < slice_depth(t, s) && r < tr->nrows; r++) {
		uint32_t i = index_row_slice_at(tr, r, mid);
		if (i != TT_NONE && slice_cls(t, &tr->slices[i]) == SC_CPU_OP && tr->slices[i].ts <= s->ts &&
		    tt_add(tr->slices[i].ts, slice_dur(tr, &tr->slices[i])) >= tt_add(s->ts, slice_dur(tr, s)))
			return (struct slice_ref){ ref.track, i };
	}
	return slice_cls(t, s) == SC_CPU_OP ? ref : (struct slice_ref){ TT_NONE, TT_NONE };
}

/* How much of [A, B) the launch calls (runtime calls that started GPU work) of track TR
 * cover. A thread's slices are in start order and its runtime calls do not overlap. */
static int64_t launch_cover(const struct trace *t, const struct track *tr, int64_t a, int64_t b)
{
	int64_t sum = 0;
	uint32_t i = index_slice_at(tr, a); /* a call that began before the gap */
	if (i != TT_NONE && slice_cls(t, &tr->slices[i]) == SC_RUNTIME && track_gpu_at(tr, i) != TT_NONE &&
	    t->gpu[track_gpu_at(tr, i)].peer.track != TT_NONE && tr->slices[i].ts < a)
		sum += overlap(tr, &tr->slices[i], a, b);
	for (uint32_t lo = first_starting_at(tr, a); lo < tr->nslices && tr->slices[lo].ts < b; lo++) {
		const struct slice *s = &tr->slices[lo];
		if (slice_cls(t, s) == SC_RUNTIME && slice_gpu(tr, s) != TT_NONE &&
		    t->gpu[slice_gpu(tr, s)].peer.track != TT_NONE)
			sum += overlap(tr, s, a, b);
	}
	return sum;
}

static bool is_profiler_step(const struct trace *t, const struct slice *s)
{
	return strncmp(strtab_get(&t->strings, slice_name(t, s)), "ProfilerStep#", 13) == 0;
}

/* The deepest frame of track TR covering at least half of [A, B): operators, Python,
 * labels and runtime calls (a ProfilerStep#N marks a step, it is not work); TT_NONE. */
static uint32_t deepest_cover(const struct trace *t, const struct track *tr, int64_t a, int64_t b)
{
	int64_t mid = a + (b - a) / 2; /* a span covering half of the gap holds its middle */
	for (uint16_t r = tr->nrows; r-- > 0;) {
		uint32_t i = index_row_slice_at(tr, r, mid);
		if (i == TT_NONE)
			continue;
		const struct slice *s = &tr->slices[i];
		if (overlap(tr, s, a, b) * 2 < b - a)
			continue;
		if (slice_cls(t, s) == SC_CPU_OP || slice_cls(t, s) == SC_PYTHON || slice_cls(t, s) == SC_RUNTIME ||
		    slice_cls(t, s) == SC_SYNC || (slice_cls(t, s) == SC_USER_ANNOTATION && !is_profiler_step(t, s)))
			return i;
	}
	return TT_NONE;
}

bool gaps_is_user_frame(const char *name)
{
	/* the top-level names of the standard library and of libraries a trace names by their
	 * module path (Kineto drops the site-packages/ prefix) */
	static const char *const lib[] = {
		"torch",
		"numpy",
		"scipy",
		"transformers",
		"accelerate",
		"diffusers",
		"PIL",
		"timm",
		"torchvision",
		"torchaudio",
		"triton",
		"apex",
		"deepspeed",
		"megatron",
		"vllm",
		"sglang",
		"fbgemm_gpu",
		"torchrec",
		"tqdm",
		"pandas",
		"sklearn",
		"huggingface_hub",
		"safetensors",
		"tokenizers",
		"lightning",
		"pytorch_lightning",
		"xformers",
		"flash_attn",
		"einops",
		"jax",
		"tensorflow",
		"importlib",
		"collections",
		"concurrent",
		"multiprocessing",
		"threading",
		"queue",
		"contextlib",
		"functools",
		"typing",
		"enum",
		"dataclasses",
		"abc",
		"copy",
		"inspect",
		"logging",
		"json",
		"os",
		"posixpath",
		"re",
		"random",
		"math",
		"time",
		"weakref",
		"warnings",
		"traceback",
		"selectors",
		"socket",
		"subprocess",
		"pickle",
		"codecs",
		"encodings",
		"asyncio",
		"unittest",
		"operator",
		"itertools",
		"heapq",
		"bisect",
		"string",
		"textwrap",
		"tempfile",
		"shutil",
		"pathlib",
		"io",
		"abc",
		"numbers",
		"types",
		"runpy",
		"pkgutil",
		"site",
		"genericpath",
		"threading",
		"signal",
		"argparse",
		"glob",
		"fnmatch",
		"zipfile",
		"tarfile",
		"gzip",
		"struct",
		"hashlib",
		"uuid",
		"datetime",
		"calendar",
		"locale",
		"ctypes",
		"distutils",
		"sysconfig",
		"dis",
		"ast",
		"tokenize",
		"linecache",
		"platform",
		"getpass",
		"pprint",
		"reprlib",
		"statistics",
		"decimal",
		"fractions",
		"csv",
	};
	const char *paren = strstr(name, ".py(");
	if (paren == NULL || strncmp(name, "<built-in", 9) == 0)
		return false;
	if (strstr(name, "site-packages/") != NULL || strstr(name, "dist-packages/") != NULL ||
	    strstr(name, "/lib/python") != NULL)
		return false;
	const char *top = name;
	size_t n = strcspn(top, "/.");
	for (size_t i = 0; i < sizeof lib / sizeof *lib; i++)
		if (strlen(lib[i]) == n && strncmp(top, lib[i], n) == 0)
			return false;
	return top[0] != '<' && top[0] != '_';
}

char *gaps_user_chain(const struct trace *t, struct slice_ref user, struct slice_ref cpu, char *buf, size_t n)
{
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (user.track == TT_NONE || cpu.track == TT_NONE || user.track != cpu.track || user.track >= t->ntracks)
		return buf;
	const struct track *tr = &t->tracks[user.track];
	if (user.idx >= tr->nslices || cpu.idx >= tr->nslices)
		return buf;
	/* the frames from CPU up to USER, innermost first */
	uint32_t chain[256], k = 0;
	uint32_t i = cpu.idx;
	for (; i != TT_NONE && i != user.idx && k < 255; i = index_parent(t, tr, i))
		chain[k++] = i;
	if (i != user.idx)
		return buf; /* USER is not above CPU (or the chain is deeper than shown) */
	chain[k++] = user.idx;
	size_t at = 0;
	for (uint32_t j = k; j-- > 0;) {
		const char *nm = strtab_get(&t->strings, slice_name(t, &tr->slices[chain[j]]));
		size_t len = strtab_len(&t->strings, slice_name(t, &tr->slices[chain[j]]));
		const char *sep = j + 1 < k ? " > " : "";
		if (at + strlen(sep) + len + 4 >= n) {
			snprintf(buf + at, n - at, "%s", n - at > 4 ? "..." : "");
			break;
		}
		at += (size_t)snprintf(buf + at, n - at, "%s%.*s", sep, (int)len, nm);
	}
	return buf;
}

/* The deepest Python frame of the user's own code around slice REF on its thread, or
 * {TT_NONE}. */
static struct slice_ref user_frame(const struct trace *t, struct slice_ref ref)
{
	struct slice_ref none = { TT_NONE, TT_NONE };
	if (ref.track == TT_NONE || t->tracks[ref.track].kind != TRACK_CPU)
		return none;
	const struct track *tr = &t->tracks[ref.track];
	const struct slice *s = &tr->slices[ref.idx];
	for (uint16_t r = slice_depth(t, s) + 1; r-- > 0;) {
		uint32_t i = r == slice_depth(t, s) ? ref.idx : index_row_slice_at(tr, r, s->ts);
		if (i == TT_NONE)
			continue;
		const struct slice *f = &tr->slices[i];
		if (slice_cls(t, f) == SC_PYTHON && gaps_is_user_frame(strtab_get(&t->strings, slice_name(t, f))))
			return (struct slice_ref){ ref.track, i };
	}
	return none;
}

static void explain_cause(const struct trace *t, const struct hints *hx, struct device_tracks dt, struct gap *g);

static void explain(const struct trace *t, const struct hints *hx, struct device_tracks dt, struct gap *g)
{
	explain_cause(t, hx, dt, g);
	g->user = user_frame(t, g->cpu);
}

static void explain_cause(const struct trace *t, const struct hints *hx, struct device_tracks dt, struct gap *g)
{
	int64_t len = g->end - g->start, half = len / 2 + (len & 1);
	const struct hint *x;
	struct slice_ref launch = { TT_NONE, TT_NONE };

	g->next = first_op_after(t, dt, g->end);
	g->cpu.track = g->cpu.idx = TT_NONE;
	g->op.track = g->op.idx = TT_NONE;
	g->user = g->op;
	if (g->next.track != TT_NONE) {
		uint32_t op = track_gpu_at(&t->tracks[g->next.track], g->next.idx);
		if (op != TT_NONE)
			launch = t->gpu[op].peer;
	}
	const struct slice *rt = launch.track != TT_NONE ? &t->tracks[launch.track].slices[launch.idx] : NULL;
	g->hta = rt != NULL && rt->ts > g->start ? HTA_HOST_WAIT
	         : len < HTA_KERNEL_WAIT_NS      ? HTA_KERNEL_WAIT
	                                         : HTA_OTHER;

	/* 1. a blocking call on any thread */
	if ((x = best_hint(hx, N_SYNC, g->start, g->end, half)) != NULL) {
		g->cause = GC_SYNC;
		g->cpu = x->ref;
		g->op = outer_op(t, x->ref);
		return;
	}
	/* 2. data loading */
	if ((x = best_hint(hx, N_DATALOADER, g->start, g->end, half)) != NULL) {
		g->cause = GC_DATALOADER;
		g->cpu = x->ref;
		return;
	}
	/* 3. the next operation is a host-to-device copy from pageable memory, or a blocking one */
	if (g->next.track != TT_NONE) {
		const struct slice *op = &t->tracks[g->next.track].slices[g->next.idx];
		const char *nm = strtab_get(&t->strings, slice_name(t, op));
		const char *rn = rt != NULL ? strtab_get(&t->strings, slice_name(t, rt)) : "";
		bool h2d = slice_cls(t, op) == SC_MEMCPY && (strstr(nm, "HtoD") != NULL || strstr(nm, "H2D") != NULL);
		bool blocking = strcmp(rn, "cudaMemcpy") == 0 || strcmp(rn, "hipMemcpy") == 0;
		/* the cause must hold for the gap: the host's copy call covers at least half of it
		 * (a pageable copy stalls the host while it is staged), else the gap has another
		 * cause and the copy is only what came next */
		if (h2d && (strstr(nm, "Pageable") != NULL || blocking) && rt != NULL &&
		    overlap(&t->tracks[launch.track], rt, g->start, g->end) >= half) {
			g->cause = GC_PAGEABLE;
			g->cpu = launch.track != TT_NONE ? launch : g->next;
			return;
		}
	}
	uint32_t thread = launch.track;
	if (rt == NULL && g->next.track != TT_NONE) {
		/* the launch of the next operation is not in the trace: the thread that launched
		 * the next ones on its stream (a few looked at) is taken for the launching thread */
		const struct track *st = &t->tracks[g->next.track];
		for (uint32_t k = g->next.idx + 1; k < st->nslices && k <= g->next.idx + 16 && thread == TT_NONE; k++)
			if (track_gpu_at(st, k) != TT_NONE)
				thread = t->gpu[track_gpu_at(st, k)].peer.track;
	}
	if (thread == TT_NONE) {
		g->cause = GC_OTHER; /* no next operation, or nothing tells which thread launches */
		return;
	}
	/* 4. the work was there before the GPU ran dry: it waited */
	if (rt != NULL && rt->ts <= g->start) {
		g->cause = GC_WAIT;
		x = best_hint(hx, N_WAIT, g->start, g->end, 1);
		g->cpu = x != NULL ? x->ref : launch;
		return;
	}
	/* 5-7. launched during the gap: what was the launching thread doing? */
	const struct track *tr = &t->tracks[thread];
	if (launch_cover(t, tr, g->start, g->end) >= half) {
		g->cause = GC_LAUNCH;
		g->cpu = launch.track != TT_NONE ? launch
		                                 : (struct slice_ref){ thread, index_slice_at(tr, g->start + len / 2) };
		return;
	}
	uint32_t i = deepest_cover(t, tr, g->start, g->end);
	if (i != TT_NONE) {
		g->cause = GC_CPU;
		g->cpu = (struct slice_ref){ thread, i };
		return;
	}
	g->cause = GC_NO_CPU;
}

void gaps_analyse(const struct trace *t, int64_t min_gap, const struct tb_step *steps, uint32_t nsteps,
                  struct gap_report *r)
{
	memset(r, 0, sizeof *r);
	r->min_gap = min_gap;
	if (steps != NULL && nsteps > 0) {
		r->steps = xmalloc(nsteps * sizeof *r->steps);
		memcpy(r->steps, steps, nsteps * sizeof *r->steps);
		r->nsteps = nsteps;
	} else {
		r->steps = tb_steps_find(t, &r->nsteps);
	}
	r->tb_start = r->steps[0].start;
	r->tb_end = r->steps[r->nsteps - 1].end;
	r->from_steps = false;
	for (uint32_t i = 0; i < t->nsteps; i++)
		r->from_steps |= !t->steps[i].gpu;
	if (r->from_steps) {
		r->start = r->tb_start;
		r->end = r->tb_end;
	} else {
		r->start = t->start;
		r->end = t->end;
	}

	/* CPU slices that can explain a gap, sorted by start */
	uint8_t *names = classify_names(t);
	struct hint *h = NULL;
	uint32_t nh = 0, hcap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (tr->kind != TRACK_CPU)
			continue;
		for (uint32_t i = 0; i < tr->nslices; i++) {
			uint8_t f = names[slice_name(t, &tr->slices[i])];
			if (f == 0)
				continue;
			if (f & N_MEMCPY_ASYNC) /* a hint only when it blocks */
				f = (uint8_t)((f & ~N_MEMCPY_ASYNC) |
				              (host_call_blocking_copy(t, tr, &tr->slices[i], NULL) ? N_SYNC : 0));
			if (f == 0)
				continue;
			if (nh == hcap)
				h = xreallocarray(h, hcap = hcap ? hcap * 2 : 256, sizeof *h);
			h[nh++] = (struct hint){
				tr->slices[i].ts, tr->slices[i].ts + slice_dur(tr, &tr->slices[i]), { ti, i }, f
			};
		}
	}
	sort_hints(h, nh);
	struct hints hx;
	hints_index(&hx, h, nh);

	/* GPU tracks grouped by device (then track order); devices in order of first track */
	uint32_t ngt = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		ngt += is_gpu_track(&t->tracks[ti]);
	struct at *gt = xmalloc((ngt ? ngt : 1) * sizeof *gt);
	ngt = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (is_gpu_track(&t->tracks[ti]))
			gt[ngt++] = (struct at){ t->tracks[ti].device, ti };
	sort_ats(gt, ngt);
	struct at *first = xmalloc((ngt ? ngt : 1) * sizeof *first); /* (first track, its position in gt) */
	for (uint32_t k = 0; k < ngt; k++)
		if (k == 0 || gt[k].ts != gt[k - 1].ts)
			first[r->ndevices++] = (struct at){ gt[k].i, k };
	sort_ats(first, r->ndevices);
	r->devices = xcalloc(r->ndevices ? r->ndevices : 1, sizeof *r->devices);
	for (uint32_t d = 0; d < r->ndevices; d++)
		r->devices[d].device = t->tracks[first[d].ts].device;

	/* scratch, reused from device to device */
	struct span *all = NULL, *kern = NULL;
	uint32_t gcap = 0, scap = 0, kcap = 0;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		struct device_gaps *dg = &r->devices[d];
		uint32_t na = 0, nk = 0;
		struct device_tracks dt = { &gt[first[d].i], 0 };
		uint64_t nall = 0;
		while (first[d].i + dt.n < ngt && gt[first[d].i + dt.n].ts == dg->device)
			nall += t->tracks[gt[first[d].i + dt.n++].i].gpu_slices;
		/* every GPU operation's span; this array becomes the device's busy spans */
		all = xmalloc((nall ? nall : 1) * sizeof *all);
		for (uint32_t k = first[d].i; k < first[d].i + dt.n; k++) {
			uint32_t ti = gt[k].i;
			const struct track *tr = &t->tracks[ti];
			int64_t prev_end = INT64_MIN;
			for (uint32_t i = 0; i < tr->nslices; i++) {
				const struct slice *s = &tr->slices[i];
				track_launch_prefetch(t, tr, i); /* the launch read below */
				if (!is_gpu_op(slice_cls(t, s)))
					continue;
				if (na == nall) /* the tracks' counts are exact: this is a guard */
					all = xreallocarray(all, nall = nall * 2 + 1024, sizeof *all);
				all[na++] = (struct span){ s->ts, s->ts + slice_dur(tr, s) };
				if (slice_cls(t, s) == SC_KERNEL) {
					if (nk == kcap)
						kern = xreallocarray(kern, kcap = kcap ? kcap * 2 : 1024, sizeof *kern);
					kern[nk++] = (struct span){ s->ts, s->ts + slice_dur(tr, s) };
				}
				/* HTA's per-stream idle breakdown */
				if (prev_end != INT64_MIN && s->ts > prev_end && s->ts > r->start &&
				    prev_end < r->end) {
					int64_t a = prev_end > r->start ? prev_end : r->start,
						b = s->ts < r->end ? s->ts : r->end;
					const struct slice *rt = NULL;
					uint32_t gi = track_gpu_at(tr, i);
					if (gi != TT_NONE && t->gpu[gi].peer.track != TT_NONE)
						rt = &t->tracks[t->gpu[gi].peer.track].slices[t->gpu[gi].peer.idx];
					enum hta_class c = rt != NULL && rt->ts > prev_end         ? HTA_HOST_WAIT
					                   : s->ts - prev_end < HTA_KERNEL_WAIT_NS ? HTA_KERNEL_WAIT
					                                                           : HTA_OTHER;
					dg->idle_by_hta[c] += b - a;
					if (b - a >= min_gap) {
						if (r->nstream_gaps == scap)
							r->stream_gaps = xreallocarray(r->stream_gaps,
							                               scap = scap ? scap * 2 : 64,
							                               sizeof *r->stream_gaps);
						struct gap *sg = &r->stream_gaps[r->nstream_gaps++];
						memset(sg, 0, sizeof *sg);
						sg->device = dg->device;
						sg->track = ti;
						sg->start = a;
						sg->end = b;
						sg->cause = GC_OTHER;
						sg->hta = c;
						sg->cpu.track = sg->cpu.idx = TT_NONE;
						sg->op.track = sg->op.idx = TT_NONE;
						sg->user = sg->op;
						sg->next = (struct slice_ref){ ti, i };
					}
				}
				if (s->ts + slice_dur(tr, s) > prev_end)
					prev_end = s->ts + slice_dur(tr, s);
			}
		}
		na = spans_merge(all, na);
		nk = spans_merge(kern, nk);
		int64_t *kern_prefix = spans_prefix(kern, nk);
		dg->kernel_busy = spans_within_prefix(kern, kern_prefix, nk, r->tb_start, r->tb_end);
		dg->step_kernel_busy = xcalloc(r->nsteps ? r->nsteps : 1, sizeof *dg->step_kernel_busy);
		for (uint32_t k = 0; k < r->nsteps; k++)
			dg->step_kernel_busy[k] =
				spans_within_prefix(kern, kern_prefix, nk, r->steps[k].start, r->steps[k].end);
		free(kern_prefix);
		all = dg->busy_spans = xreallocarray(all, na ? na : 1, sizeof *all); /* merged: often far fewer */
		dg->nbusy = na;
		dg->busy_prefix = spans_prefix(all, na);
		dg->busy = spans_within_prefix(all, dg->busy_prefix, na, r->start, r->end);
		dg->idle = (r->end - r->start) - dg->busy;
		/* device gaps: the complement of the union inside the window */
		int64_t cur = r->start;
		for (uint32_t i = 0; i <= na; i++) {
			int64_t next_start = i < na ? all[i].start : r->end;
			if (next_start > r->end)
				next_start = r->end;
			if (next_start - cur >= min_gap && next_start > cur) {
				if (r->ngaps == gcap)
					r->gaps = xreallocarray(r->gaps, gcap = gcap ? gcap * 2 : 64, sizeof *r->gaps);
				struct gap *g = &r->gaps[r->ngaps++];
				memset(g, 0, sizeof *g);
				g->device = dg->device;
				g->track = TT_NONE;
				g->start = cur;
				g->end = next_start;
				explain(t, &hx, dt, g);
				dg->idle_by_cause[g->cause] += g->end - g->start;
			}
			if (i < na && all[i].end > cur)
				cur = all[i].end;
			if (cur >= r->end)
				break;
		}
		all = NULL; /* the device's now */
	}
	free(kern);
	assign_steps(r, r->gaps, r->ngaps);
	assign_steps(r, r->stream_gaps, r->nstream_gaps);
	sort_gaps(r->gaps, r->ngaps);
	sort_gaps(r->stream_gaps, r->nstream_gaps);
	free(first);
	free(gt);
	hints_free(&hx);
	free(h);
	free(names);
}

int64_t gaps_device_busy(const struct device_gaps *d, int64_t t0, int64_t t1)
{
	return spans_within_prefix(d->busy_spans, d->busy_prefix, d->nbusy, t0, t1);
}

void gaps_free(struct gap_report *r)
{
	for (uint32_t d = 0; d < r->ndevices; d++) {
		free(r->devices[d].step_kernel_busy);
		free(r->devices[d].busy_spans);
		free(r->devices[d].busy_prefix);
	}
	free(r->devices);
	free(r->gaps);
	free(r->stream_gaps);
	free(r->steps);
	memset(r, 0, sizeof *r);
}
