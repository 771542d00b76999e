/* test_builder.c: a model built through the builder API alone, as a recorder that never
 * writes JSON would build it: a CPU thread with nested slices, a GPU stream with
 * overlapping kernels, a flow and a launch from a runtime call to a kernel, a counter,
 * memory, device properties and metadata; then what the finished model and its index
 * say. A second model is built in two parts whose begin and end lie in different parts; a
 * third, big one in three parts and in one, which must agree. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "src/builder.h"
#include "src/index.h"
#include "tests/unit/tap.h"

static struct trace *new_trace(void)
{
	struct trace *t = xcalloc(1, sizeof *t);
	strtab_init(&t->strings);
	t->path = xstrdup("(built)");
	t->codec = "none";
	return t;
}

static uint32_t str(struct builder *b, const char *s) { return builder_string(b, s, strlen(s)); }

static struct builder_id num(int64_t v) { return (struct builder_id){ false, v }; }

static const char *text(const struct trace *t, uint32_t id) { return strtab_get(&t->strings, id); }

/* The index of the slice named NAME on TR, or TT_NONE. */
static uint32_t slice_named(const struct trace *t, const struct track *tr, const char *name)
{
	for (uint32_t i = 0; i < tr->nslices; i++)
		if (strcmp(text(t, slice_name(t, &tr->slices[i])), name) == 0)
			return i;
	return TT_NONE;
}

static struct builder_gpu no_gpu_facts(void)
{
	struct builder_gpu g;
	memset(&g, 0, sizeof g);
	g.external_id = g.stream = g.bytes = -1;
	g.device = -1;
	g.blocks_per_sm = g.occupancy = NAN;
	g.regs = g.smem = -1;
	return g;
}

static void add(struct builder *b, uint32_t track, int64_t ts, int64_t dur, const char *name, const char *cat,
                const struct builder_gpu *gpu)
{
	struct builder_slice s = { ts, dur, str(b, name), str(b, cat), 0, 0, 0 };
	builder_slice(b, track, &s, gpu);
}

static void test_one_model(void)
{
	struct trace *t = new_trace();
	struct builder *b = builder_new(t);

	/* a CPU thread: a step holding an op holding a launch and a begin/end pair */
	uint32_t cpu = builder_track(b, num(100), num(1));
	builder_track_name(b, cpu, str(b, "main thread"), 0, 0);
	builder_process_name(b, builder_process(b, num(100)), str(b, "python"), 0, 0);
	add(b, cpu, 0, 1000, "ProfilerStep#3", "user_annotation", NULL);
	add(b, cpu, 100, 500, "aten::mm", "cpu_op", NULL);
	struct builder_gpu launch = no_gpu_facts();
	launch.has_correlation = true;
	launch.correlation = 7;
	add(b, cpu, 200, 50, "cudaLaunchKernel", "cuda_runtime", &launch);
	builder_begin(b, cpu, 300, str(b, "inner"), str(b, "cpu_op"), 0, 0);
	ok(builder_end(b, cpu, 400, 0, "", 0), "an end closes the open begin");

	/* a GPU stream: gemm (launched above), relu overlapping it, then a memcpy */
	uint32_t gpu = builder_track(b, num(0), num(7));
	struct builder_gpu k = no_gpu_facts();
	k.has_correlation = true;
	k.correlation = 7;
	k.device = 0;
	k.stream = 7;
	k.grid[0] = 80, k.grid[1] = k.grid[2] = 1;
	k.block[0] = 128, k.block[1] = k.block[2] = 1;
	k.occupancy = 50;
	add(b, gpu, 260, 300, "gemm", "kernel", &k);
	k.correlation = 8; /* no runtime call has it */
	add(b, gpu, 500, 200, "relu", "kernel", &k);
	struct builder_gpu m = no_gpu_facts();
	m.bytes = 4096;
	add(b, gpu, 800, 100, "Memcpy HtoD", "gpu_memcpy", &m);

	/* the flow from the launch to its kernel */
	builder_flow(b, cpu, 200, 7, str(b, "ac2g"), FLOW_START);
	builder_flow(b, gpu, 260, 7, str(b, "ac2g"), FLOW_FINISH);

	/* a counter, a memory sample, a global instant */
	builder_counter(b, num(100), str(b, "GPU memory"), str(b, "allocated"), 0, 1.0);
	builder_counter(b, num(100), str(b, "GPU memory"), str(b, "allocated"), 500, 2.5);
	struct mem_sample ms = { .ts = 450,
		                 .total_allocated = 1 << 20,
		                 .total_reserved = 2 << 20,
		                 .bytes = 4096,
		                 .device_type = 1,
		                 .device_id = 0 };
	builder_memory(b, TT_NONE, &ms);
	builder_instant(b, TT_NONE, 950, str(b, "checkpoint"), str(b, "marker"), 'g');

	/* what is odd is counted */
	uint32_t other = builder_track(b, num(100), num(2));
	ok(!builder_end(b, other, 10, 0, "", 0), "an end with nothing open says so");
	add(b, other, 20, -1, "no duration", "cpu_op", NULL);

	/* the header */
	struct device_props dev = { .id = 0, .name = str(b, "NVIDIA H100"), .num_sms = 132 };
	builder_devices(b, &dev, 1);
	builder_base_time(b, 1700000000000000000);
	builder_distributed(b, 3, 8, str(b, "nccl"));
	builder_schema_version(b, 1);
	builder_display_time_unit(b, str(b, "ns"));
	builder_finish(b);

	is_int(t->ntracks, 3, "three tracks");
	const struct track *c = &t->tracks[cpu], *g = &t->tracks[gpu];
	is_int(c->kind, TRACK_CPU, "the thread is a CPU track");
	is_int(g->kind, TRACK_GPU_COMPUTE, "the stream is a GPU compute track");
	is_str(text(t, c->name), "main thread", "the thread keeps its name");
	is_str(text(t, g->name), "stream 7", "the unnamed stream is named after its stream");
	is_str(track_process_name(t, c), "python", "the thread's process is named");
	is_int(g->device, 0, "the stream's device comes from its kernels");
	is_int(c->events, 5, "events counted on the thread (a begin/end pair counts two)");

	/* depths: nesting on the CPU, overflow rows on the GPU */
	uint32_t step = slice_named(t, c, "ProfilerStep#3"), mm = slice_named(t, c, "aten::mm");
	uint32_t rt = slice_named(t, c, "cudaLaunchKernel"), inner = slice_named(t, c, "inner");
	ok(step != TT_NONE && mm != TT_NONE && rt != TT_NONE && inner != TT_NONE, "every CPU slice is there");
	is_int(slice_depth(t, &c->slices[step]), 0, "the step is at depth 0");
	is_int(slice_depth(t, &c->slices[mm]), 1, "the op is inside the step");
	is_int(slice_depth(t, &c->slices[rt]), 2, "the launch is inside the op");
	is_int(slice_depth(t, &c->slices[inner]), 2, "the begin/end pair is inside the op");
	is_int(track_dur_at(c, inner), 100, "the pair lasts from begin to end");
	ok(slice_flags(t, &c->slices[inner]) & SF_FROM_BE, "the pair is marked as one");
	is_int(c->nrows, 3, "three rows on the thread");
	uint32_t gemm = slice_named(t, g, "gemm"), relu = slice_named(t, g, "relu");
	uint32_t copy = slice_named(t, g, "Memcpy HtoD");
	is_int(slice_depth(t, &g->slices[gemm]), 0, "the first kernel on row 0");
	is_int(slice_depth(t, &g->slices[relu]), 1, "the overlapping kernel on an overflow row");
	is_int(slice_depth(t, &g->slices[copy]), 0, "the memcpy back on row 0");
	is_int(t->quality.count[Q_GPU_OVERLAP], 1, "the overlap is counted");

	/* index queries */
	is_int(index_slice_at(c, 350), inner, "at 350 the deepest CPU slice is the pair");
	is_int(index_slice_at(c, 650), step, "at 650 only the step runs");
	is_int(index_slice_at(g, 750), TT_NONE, "nothing runs on the GPU at 750");
	is_int(index_track_busy(g, 0, 1000), 440 + 100, "GPU busy time is the union of its slices");
	is_int(index_row_busy(c, 0, 0, 1000), 1000, "row 0 of the thread is busy throughout");
	is_int(index_row_dominant(c, 1, 0, 1000), mm, "the op covers most of row 1");

	/* GPU facts, the launch and the flow */
	ok(track_gpu_at(g, gemm) != TT_NONE, "the kernel keeps its GPU facts");
	const struct gpu_info *gi = &t->gpu[track_gpu_at(g, gemm)];
	is_int(gpu_launch(t, gi)->grid[0], 80, "grid kept");
	is_int(gpu_launch(t, gi)->block[0], 128, "block kept");
	ok(gpu_launch(t, gi)->occupancy == 50.0f, "occupancy kept");
	ok(t->gpu[track_gpu_at(g, relu)].launch != TT_NONE && t->gpu[track_gpu_at(c, rt)].launch == TT_NONE &&
	           t->gpu[track_gpu_at(g, copy)].launch == TT_NONE,
	   "only the kernels have launch records (not the runtime call, not the memcpy)");
	is_int(t->gpu[track_gpu_at(g, relu)].launch, gi->launch, "the two kernels' equal launches share one record");
	is_int(t->nlaunches, 1, "one record in all");
	is_int(gi->peer.track, cpu, "the kernel is linked to its launch's thread");
	is_int(gi->peer.idx, rt, "and to the launch itself");
	is_int(t->gpu[track_gpu_at(c, rt)].peer.idx, gemm, "the launch is linked back to its kernel");
	is_int(gpu_bytes(t, &t->gpu[track_gpu_at(g, copy)]), 4096, "the memcpy keeps its bytes");
	is_int(gpu_bytes(t, gi), -1, "a kernel has no bytes");
	is_int(gpu_stream(t, gi), 7, "the kernel's stream");
	is_int(gpu_device(t, gi), 0, "and device");
	is_int(t->quality.count[Q_KERNEL_NO_LAUNCH], 2, "the kernel and the memcpy with no launch are counted");
	is_int(track_gpu_at(c, mm), TT_NONE, "a CPU op keeps no GPU facts");
	is_int(t->nflows, 1, "one flow");
	is_int(t->flows[0].from.track, cpu, "the flow starts on the thread");
	is_int(t->flows[0].from.idx, rt, "at the launch");
	is_int(t->flows[0].to.track, gpu, "and ends on the stream");
	is_int(t->flows[0].to.idx, gemm, "at the kernel");

	/* counters, memory, instants, steps, header facts, quality */
	is_int(t->ncounters, 1, "one counter series");
	is_int(t->counters[0].n, 2, "with two samples");
	ok(t->counters[0].value[1] == 2.5, "values kept");
	is_int(t->nmem, 1, "one memory sample");
	uint32_t hint = 0;
	is_int(mem_sample_near(t, 0, &hint).total_reserved, 2 << 20, "memory sample kept");
	is_int(t->ninstants, 1, "one instant");
	is_int(t->instants[0].track, TT_NONE, "a global instant is on no track");
	is_int(t->nsteps, 1, "one step");
	is_int(t->steps[0].number, 3, "numbered from its name");
	ok(!t->steps[0].gpu, "on the CPU");
	is_int(t->start, 0, "span starts at the first slice");
	is_int(t->end, 1000, "span ends at the last slice");
	is_int(t->ndevices, 1, "one device");
	is_str(text(t, t->devices[0].name), "NVIDIA H100", "device named");
	is_int(t->devices[0].num_sms, 132, "device SMs");
	ok(t->has_base && t->base_ns == 1700000000000000000, "base time");
	is_int(t->rank, 3, "rank");
	is_int(t->world_size, 8, "world size");
	is_str(text(t, t->backend), "nccl", "backend");
	is_int(t->schema_version, 1, "schema version");
	is_str(text(t, t->display_time_unit), "ns", "display time unit");
	is_int(t->quality.count[Q_NEGATIVE_DUR], 1, "a negative duration is counted");
	is_int(track_dur_at(&t->tracks[other], 0), 0, "and taken as 0");
	ok(!t->legacy, "no source events: not the legacy exporter");
	trace_free(t);
}

/* A begin in part 1 closed in part 2; a warning group split over both parts. */
static void test_parts(void)
{
	struct trace *t1 = new_trace(), *t2 = new_trace();
	struct builder *b1 = builder_new(t1), *b2 = builder_new_part(t2);
	struct builder_id pid = { true, (int64_t)builder_string(b2, "worker", 6) };

	builder_begin(b1, builder_track(b1, num(1), num(1)), 10, str(b1, "outer"), str(b1, "cpu_op"), 0, 0);
	builder_begin(b1, builder_track(b1, num(1), num(1)), 20, str(b1, "open"), str(b1, "cpu_op"), 0, 0);
	trace_warn_group(t1, 1, 3, "one");
	trace_warn_group(t1, 1, 3, "two");
	/* part 2 sees strings in another order: ids must be mapped */
	uint32_t tr2 = builder_track(b2, pid, num(5));
	add(b2, tr2, 30, 5, "later", "cpu_op", NULL);
	ok(builder_end(b2, builder_track(b2, num(1), num(1)), 50, 0, "late", 4),
	   "a later part keeps an end it cannot match");
	ok(builder_end(b2, builder_track(b2, num(1), num(2)), 55, 77, "stray\xff", 6), "and one nothing will match");
	trace_warn_group(t2, 1, 3, "three");
	trace_warn_group(t2, 1, 3, "four");
	builder_merge(b1, b2);
	builder_finish(b1);

	is_int(t1->ntracks, 3, "tracks of both parts");
	const struct track *tr = &t1->tracks[0];
	uint32_t open = slice_named(t1, tr, "open"), outer = slice_named(t1, tr, "outer");
	ok(open != TT_NONE && outer != TT_NONE, "both begins became slices");
	is_int(track_dur_at(tr, open), 30, "the end of part 2 closed the innermost begin of part 1");
	ok(!(slice_flags(t1, &tr->slices[open]) & SF_UNCLOSED), "which is not left unclosed");
	ok(slice_flags(t1, &tr->slices[outer]) & SF_UNCLOSED, "the outer begin is never closed");
	is_int(track_dur_at(tr, outer), 40, "and ends at the last time seen");
	is_int(t1->quality.count[Q_UNMATCHED_END], 1, "one unmatched end: the stray one");
	is_str(text(t1, t1->quality.ex[Q_UNMATCHED_END][0].name), "stray\xff",
	       "counted under its own name, as a parse in one piece counts it");
	is_int(t1->quality.ex[Q_UNMATCHED_END][0].offset, 77, "at its own place");
	ok(strtab_find(&t1->strings, "late", 4) == UINT32_MAX,
	   "the name of an end that closed a begin is not interned (a parse in one piece never reads it)");
	is_int(t1->quality.count[Q_UNCLOSED_BEGIN], 1, "one unclosed begin");
	ok(t1->tracks[1].pid_is_str, "the string pid survives the merge");
	is_str(text(t1, (uint32_t)t1->tracks[1].pid), "worker", "with its text");
	is_str(text(t1, slice_name(t1, &t1->tracks[1].slices[0])), "later", "slice names are mapped");
	is_int(t1->nwarnings, 3, "a warning group keeps its first 3 over both parts");
	is_str(t1->warnings[2], "three", "in source order");
	trace_free(t1);
}

/* Events K of a synthetic source, cut anywhere: a CPU thread with a parent and a child
 * slice each, a runtime call with a correlation id and a flow start, and its kernel on a
 * stream with the flow's finish. */
static void big_event(struct builder *b, uint32_t k)
{
	static const char *const names[] = { "aten::add", "aten::empty", "aten::mm", "aten::view" };
	uint32_t cpu = builder_track(b, num(1), num(1)), gpu = builder_track(b, num(0), num(7));
	int64_t ts = (int64_t)k * 1000;
	/* now and then a parent of 5 s or more: its length is kept beside the slice */
	int64_t parent = k % 997 == 5 ? 5000000000 + k : 900;
	struct builder_slice s = { ts, parent, str(b, "parent"), str(b, "cpu_op"), (uint64_t)k * 4 + 1, 0, 0 };
	struct builder_gpu g = no_gpu_facts();

	builder_slice(b, cpu, &s, NULL);
	s = (struct builder_slice){
		ts + 10, k % 3 ? 50 : 0, str(b, names[k % 4]), str(b, "cpu_op"), (uint64_t)k * 4 + 2, 0, 0
	};
	builder_slice(b, cpu, &s, NULL);
	g.has_correlation = true;
	g.correlation = k % 5 == 0 ? 6000000000 + k : k; /* now and then past 32 bits */
	g.external_id = k % 7 == 0 ? -5 - (int64_t)k : k % 7 == 1 ? -1 : (int64_t)k;
	s = (struct builder_slice){
		ts + 100, 20, str(b, "cudaLaunchKernel"), str(b, "cuda_runtime"), (uint64_t)k * 4 + 3, 0, 0
	};
	builder_slice(b, cpu, &s, &g);
	builder_flow(b, cpu, ts + 100, (uint64_t)g.correlation, str(b, "ac2g"), FLOW_START);
	g.stream = 7;
	g.device = (int32_t)(k % 2);
	g.grid[0] = (int32_t)(k % 97); /* launches repeat: 97 distinct, the same in every part */
	g.regs = (int32_t)(k % 3 == 0 ? -1 : 32);
	if (k % 11 == 0) { /* a collective of one of two process groups */
		g.pg = k % 22 == 0 ? "pg-a" : "pg-b";
		g.pg_len = 4;
	}
	if (k % 13 == 0)
		g.bytes = k % 26 == 0 ? 5000000000 + k : k;
	s = (struct builder_slice){ ts + 500, 300, str(b, names[k % 4]), str(b, "kernel"), (uint64_t)k * 4 + 4, 0, 0 };
	builder_slice(b, gpu, &s, &g);
	builder_flow(b, gpu, ts + 500, (uint64_t)g.correlation, str(b, "ac2g"), FLOW_FINISH);
	if (k % 4 == 0) { /* a memory sample: the reserved total moves now and then (a run
		           * goes on across the cuts), samples of the CPU come between */
		struct mem_sample ms = { .ts = ts + 20,
			                 .total_allocated = (int64_t)k * 512,
			                 .total_reserved = (int64_t)(k / 40) << 20,
			                 .bytes = k % 8 == 0 ? 512 : -512,
			                 .device_id = k % 100 == 48 ? -1 : 0,
			                 .device_type = k % 100 == 48 ? 0 : 1,
			                 .flags = MEM_HAS_ADDR | MEM_HAS_BYTES };
		builder_memory(b, cpu, &ms);
	}
	if (k % 9 == 0) { /* a flow of another category, with the id of an ac2g flow */
		builder_flow(b, cpu, ts, k, str(b, "fwdbwd"), FLOW_START);
		builder_flow(b, cpu, ts + 10, k, str(b, "fwdbwd"), FLOW_FINISH);
	}
}

static bool same_ref2(struct slice_ref a, struct slice_ref b) { return a.track == b.track && a.idx == b.idx; }
static bool same_ref(const struct slice_ref *a, const struct slice_ref *b)
{
	return a->track == b->track && a->idx == b->idx;
}

/* Parts big enough that builder_merge drains each array in several steps (over 1 MiB of
 * slices, GPU facts and flow ends) give the model that one part gives. */
/* T's GPU facts numbered in their slices' order: each slice's fact says that slice is its
 * own, the walk gives the facts 0, 1, 2... with their slices, and BOUND of them have one. */
static void gpu_words_check(const struct trace *t, uint32_t bound, const char *what)
{
	bool inverse = true, ordered = true;
	uint32_t next = 0, seen = 0, g;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		for (uint32_t i = 0; i < t->tracks[ti].nslices; i++) {
			uint32_t f = track_gpu_at(&t->tracks[ti], i);
			if (f == TT_NONE)
				continue;
			struct slice_ref r = gpu_self(t, f);
			inverse = inverse && r.track == ti && r.idx == i;
			ordered = ordered && f == next++; /* slices' order is the facts' */
		}
	struct slice_ref self;
	struct gpu_walk w = gpu_walk_start(t);
	while (gpu_walk_next(&w, &g, &self))
		ordered = ordered && g == seen++ && track_gpu_at(&t->tracks[self.track], self.idx) == g;
	ok(inverse, "%s: gpu_self gives back the slice of each slice's fact", what);
	ok(ordered && seen == next, "%s: the facts in their slices' order, the walk over all %u", what, seen);
	is_int(seen, bound, "%s: the facts bound to slices", what);
	struct slice_ref past = gpu_self(t, t->ngpu);
	ok(past.track == TT_NONE && past.idx == TT_NONE, "%s: no slice for a fact past the facts", what);
}

static void test_big_parts(void)
{
	enum { N = 40000 };
	static const uint32_t cuts[] = { 0, 13001, 29999, N };
	struct trace *one = new_trace(), *t[3];
	struct builder *b = builder_new(one), *p[3];

	for (uint32_t k = 0; k < N; k++)
		big_event(b, k);
	builder_finish(b);
	for (int i = 0; i < 3; i++) {
		t[i] = new_trace();
		p[i] = i == 0 ? builder_new(t[i]) : builder_new_part(t[i]);
		for (uint32_t k = cuts[i]; k < cuts[i + 1]; k++)
			big_event(p[i], k);
	}
	builder_merge(p[0], p[1]);
	builder_merge(p[0], p[2]);
	builder_finish(p[0]);

	struct trace *m = t[0];
	ok(one->ntracks == 2 && m->ntracks == 2, "two tracks either way");
	ok(one->tracks[0].nlong > 30 && one->tracks[0].nlong == m->tracks[0].nlong,
	   "the long parents are kept either way (%u)", one->tracks[0].nlong);
	bool slices = true, facts = true;
	for (uint32_t ti = 0; ti < 2 && ti < m->ntracks && ti < one->ntracks; ti++) {
		const struct track *a = &one->tracks[ti], *c = &m->tracks[ti];
		slices = slices && a->nslices == c->nslices && a->nrows == c->nrows;
		for (uint32_t i = 0; slices && i < a->nslices; i++) {
			const struct slice *x = &a->slices[i], *y = &c->slices[i];
			slices = x->ts == y->ts && slice_dur(a, x) == slice_dur(c, y) &&
			         track_args_at(a, i) == track_args_at(c, i) &&
			         slice_depth(one, x) == slice_depth(m, y) && slice_cls(one, x) == slice_cls(m, y) &&
			         slice_flags(one, x) == slice_flags(m, y) &&
			         (track_gpu_at(a, i) == TT_NONE) == (track_gpu_at(c, i) == TT_NONE) &&
			         strcmp(text(one, slice_name(one, x)), text(m, slice_name(m, y))) == 0 &&
			         strcmp(text(one, slice_cat(one, x)), text(m, slice_cat(m, y))) == 0;
			if (slices && track_gpu_at(a, i) != TT_NONE) {
				const struct gpu_info *gx = &one->gpu[track_gpu_at(a, i)],
						      *gy = &m->gpu[track_gpu_at(c, i)];
				facts = facts && gpu_correlation(one, gx) == gpu_correlation(m, gy) &&
				        gpu_external_id(one, gx) == gpu_external_id(m, gy) &&
				        gpu_device(one, gx) == gpu_device(m, gy) &&
				        gpu_stream(one, gx) == gpu_stream(m, gy) &&
				        strcmp(text(one, gpu_pg(one, gx)), text(m, gpu_pg(m, gy))) == 0 &&
				        gpu_bytes(one, gx) == gpu_bytes(m, gy) &&
				        memcmp(gpu_launch(one, gx), gpu_launch(m, gy), sizeof(struct kernel_launch)) ==
				                0 &&
				        (gy->launch == TT_NONE ||
				         gpu_launch(m, gy)->grid[0] == (int32_t)((x->ts / 1000) % 97)) &&
				        same_ref2(gpu_self(one, track_gpu_at(a, i)), gpu_self(m, track_gpu_at(c, i))) &&
				        same_ref(&gx->peer, &gy->peer);
			}
		}
	}
	is_int(m->tracks[0].nslices, 3 * N, "every CPU slice kept");
	ok(slices, "the same slices, in the same order, on the same rows");
	is_int(m->ngpu, 2 * N, "every GPU fact kept");
	ok(facts, "the same GPU facts, linked the same way");
	bool seen[97][2] = { { false } };
	uint32_t distinct = 0;
	for (uint32_t k = 0; k < N; k++) /* grid 0 without registers is no launch record at all */
		if (!seen[k % 97][k % 3 == 0] && (k % 97 != 0 || k % 3 != 0)) {
			seen[k % 97][k % 3 == 0] = true;
			distinct++;
		}
	ok(distinct > 97 && one->nlaunches == distinct && m->nlaunches == distinct,
	   "equal launches share a record, across parts too (%u, %u of %u)", one->nlaunches, m->nlaunches, distinct);
	uint32_t wide = 0, negative = 0, big_copies = 0, pg_b = 0, linked = 0;
	for (uint32_t g = 0; g < m->ngpu; g++) {
		const struct gpu_info *gi = &m->gpu[g];
		wide += gpu_correlation(m, gi) >= 6000000000;
		negative += gpu_external_id(m, gi) < -1;
		big_copies += gpu_bytes(m, gi) >= 5000000000;
		pg_b += strcmp(text(m, gpu_pg(m, gi)), "pg-b") == 0;
		linked += gi->peer.track != TT_NONE;
	}
	is_int(wide, 2 * 8000, "correlation ids past 32 bits read back (a call and its kernel each)");
	is_int(negative, 2 * 5715, "negative External ids read back");
	is_int(big_copies, 1539, "byte counts past 32 bits read back");
	is_int(pg_b, 1818, "process groups read back");
	is_int(linked, 2 * N, "every call linked to its kernel, wide ids too");
	gpu_words_check(m, 2 * N, "the merged model");
	gpu_words_check(one, 2 * N, "the model of one part");
	ok(m->nwide_ids > 0 && m->ngpu_places <= 8, "the places are shared (%u of them)", m->ngpu_places);
	is_int(m->nflows, N + (N + 8) / 9, "every flow paired, of either category");
	bool flows = one->nflows == m->nflows;
	for (uint32_t i = 0; flows && i < m->nflows; i++)
		flows = flow_id(one, &one->flows[i]) == flow_id(m, &m->flows[i]) &&
		        strcmp(text(one, one->flows[i].cat), text(m, m->flows[i].cat)) == 0 &&
		        one->flows[i].ts_from == m->flows[i].ts_from && one->flows[i].ts_to == m->flows[i].ts_to &&
		        same_ref(&one->flows[i].from, &m->flows[i].from) &&
		        same_ref(&one->flows[i].to, &m->flows[i].to) && m->flows[i].from.track != TT_NONE &&
		        m->flows[i].to.track != TT_NONE;
	ok(flows, "the same flows, every end bound to its slice");
	bool mem = one->nmem == N / 4 && m->nmem == N / 4 && one->nmem_runs == m->nmem_runs;
	for (uint32_t i = 0; mem && i < m->nmem; i++) {
		uint32_t ho = 0, hm = 0; /* a fresh hint each time: found by the search */
		struct mem_sample x = mem_sample_near(one, i, &ho), y = mem_sample_near(m, i, &hm);
		mem = x.ts == y.ts && x.total_allocated == y.total_allocated && x.total_reserved == y.total_reserved &&
		      x.bytes == y.bytes && x.track == y.track && x.device_id == y.device_id &&
		      x.device_type == y.device_type && x.flags == y.flags && y.ts == (int64_t)i * 4000 + 20 &&
		      y.total_reserved == (int64_t)(i / 10) << 20 && y.track == 0;
	}
	ok(mem, "the same memory samples, read back whole (%u)", m->nmem);
	/* looked for from a hint: in order, backwards, and by jumps, the same runs */
	uint32_t hint = 0, hint_ok = 0;
	for (uint32_t k = 0; k < 3 * m->nmem; k++) {
		uint32_t i = k < m->nmem ? k : k < 2 * m->nmem ? 2 * m->nmem - 1 - k : (k * 7919u) % m->nmem;
		hint_ok += mem_run_near(m, i, &hint) == mem_run_of(m, i) && &m->mem_runs[hint] == mem_run_of(m, i);
	}
	is_int(hint_ok, 3 * m->nmem, "a sample's run found from a hint is its run, and the hint is set to it");
	ok(m->nmem_runs > 1, "(over %u runs)", m->nmem_runs);
	ok(one->nmem_runs == m->nmem_runs &&
	           memcmp(one->mem_runs, m->mem_runs, m->nmem_runs * sizeof *m->mem_runs) == 0 &&
	           m->nmem_runs > N / 400 && m->nmem_runs < m->nmem / 4,
	   "in the same runs: one goes on across a cut (%u runs of %u samples)", m->nmem_runs, m->nmem);
	uint32_t wide_flows = 0;
	for (uint32_t i = 0; i < m->nflows; i++)
		wide_flows += flow_id(m, &m->flows[i]) >= 6000000000u;
	is_int(wide_flows, 8000, "flow ids past 32 bits read back");
	is_int(m->quality.count[Q_FLOW_UNBOUND] + m->quality.count[Q_FLOW_NO_START] +
	               m->quality.count[Q_FLOW_NO_FINISH] + m->quality.count[Q_FLOW_REPEATED_ID],
	       0, "no flow problem (ends of one id but two categories kept apart)");
	uint32_t fwdbwd = 0;
	for (uint32_t i = 0; i < m->nflows; i++)
		fwdbwd += strcmp(text(m, m->flows[i].cat), "fwdbwd") == 0;
	is_int(fwdbwd, (N + 8) / 9, "the other category's flows");
	trace_free(one);
	trace_free(m);
}

/* A later part whose only unmatched end has no name (no name bytes kept at all). */
static void test_unnamed_orphan(void)
{
	struct trace *t1 = new_trace(), *t2 = new_trace();
	struct builder *b1 = builder_new(t1), *b2 = builder_new_part(t2);
	add(b1, builder_track(b1, num(1), num(1)), 10, 5, "first", "cpu_op", NULL);
	ok(builder_end(b2, builder_track(b2, num(1), num(1)), 56, 78, NULL, 0),
	   "a later part keeps an end with no name");
	builder_merge(b1, b2);
	builder_finish(b1);
	is_int(t1->quality.count[Q_UNMATCHED_END], 1, "counted unmatched");
	is_str(text(t1, t1->quality.ex[Q_UNMATCHED_END][0].name), "", "under the empty name");
	trace_free(t1);
}

/* A snapshot's copy given up: none when cancelled before it starts; given up at any point
 * of the copy, no leak and no double free (ASan), and the builder copied goes on. */
struct canceller {
	_Atomic bool *flag;
	useconds_t after;
};

static void *cancel_later(void *arg)
{
	struct canceller *c = arg;
	usleep(c->after);
	atomic_store(c->flag, true);
	return NULL;
}

static void test_snapshot_cancel(void)
{
	struct trace *t = new_trace(), *ct = NULL;
	struct builder *b = builder_new(t);
	_Atomic bool flag = true;

	for (uint32_t k = 0; k < 200000; k++) /* 800k slices: copies of several steps */
		big_event(b, k);
	ok(builder_snapshot(b, &ct, &flag) == NULL && ct == NULL, "a snapshot cancelled before it starts is none");
	int stopped = 0, whole = 0;
	for (int i = 0; i < 20; i++) { /* a whole copy takes about 0.4 s on the 2-core VM */
		struct canceller c = { &flag, (useconds_t)i * 5000 };
		pthread_t th;
		atomic_store(&flag, false);
		bool later = i < 16; /* the last copies are not cancelled */
		if (later)
			pthread_create(&th, NULL, cancel_later, &c);
		struct builder *copy = builder_snapshot(b, &ct, &flag);
		if (later)
			pthread_join(th, NULL);
		if (copy == NULL) {
			stopped++;
		} else {
			whole++;
			builder_abort(copy);
			trace_free(ct);
		}
	}
	printf("# snapshot copies: %d given up midway or before, %d whole\n", stopped, whole);
	ok(stopped + whole == 20 && whole >= 4, "copies given up at any point free what they copied");
	struct builder *copy = builder_snapshot(b, &ct, NULL);
	ok(copy != NULL && ct->tracks[0].nslices == t->tracks[0].nslices, "the builder copied goes on: a whole copy");
	builder_abort(copy);
	trace_free(ct);
	big_event(b, 200000);
	builder_finish(b);
	is_int(t->tracks[0].nslices, 600003, "and it finishes with every slice");
	trace_free(t);
}

/* More categories than trace.cats holds: the first 254 keep their names, the rest share
 * "(other categories)" but keep their class; a parse in two parts numbers them alike. */
static void cat_event(struct builder *b, uint32_t track, uint32_t k)
{
	char cat[32];
	snprintf(cat, sizeof cat, k % 2 ? "cat%u" : "kernel_cat%u", k);
	if (k == 299)
		snprintf(cat, sizeof cat, "kernel"); /* past the room: still a kernel */
	add(b, track, 10 * (int64_t)k, 5, "op", cat, NULL);
}

static void test_many_categories(void)
{
	enum { N = 300, CUT = 120 };
	struct trace *one = new_trace(), *t0 = new_trace(), *t1 = new_trace();
	struct builder *b = builder_new(one), *p0 = builder_new(t0), *p1 = builder_new_part(t1);
	uint32_t tr = builder_track(b, num(1), num(1));
	for (uint32_t k = 0; k < N; k++)
		cat_event(b, tr, k);
	builder_finish(b);
	uint32_t tr0 = builder_track(p0, num(1), num(1)), tr1 = builder_track(p1, num(1), num(1));
	for (uint32_t k = 0; k < N; k++)
		cat_event(k < CUT ? p0 : p1, k < CUT ? tr0 : tr1, k);
	builder_merge(p0, p1);
	builder_finish(p0);

	is_int(one->ncats, TRACE_MAX_CATS, "the category table is full");
	const struct track *a = &one->tracks[0], *m = &t0->tracks[0];
	is_int(a->nslices, N, "every slice kept");
	is_str(text(one, slice_cat(one, &a->slices[0])), "kernel_cat0", "the first category keeps its name");
	is_str(text(one, slice_cat(one, &a->slices[253])), "cat253", "the 254th too");
	is_str(text(one, slice_cat(one, &a->slices[254])), "(other categories)", "the 255th shares the last entry");
	is_int(slice_cls(one, &a->slices[299]), SC_KERNEL, "a slice past the room keeps its class");
	bool same = m->nslices == a->nslices && t0->ncats == one->ncats;
	for (uint32_t i = 0; same && i < a->nslices; i++)
		same = slice_cat_ix(one, &a->slices[i]) == slice_cat_ix(t0, &m->slices[i]) &&
		       slice_cls(one, &a->slices[i]) == slice_cls(t0, &m->slices[i]) &&
		       strcmp(text(one, slice_cat(one, &a->slices[i])), text(t0, slice_cat(t0, &m->slices[i]))) == 0;
	ok(same, "a parse in two parts gives every slice the same category");
	trace_free(one);
	trace_free(t0);
}

/* builder_string remembers the strings it interned last (a memo by length and ends): the
 * same ids as the table's own, for strings that share their length and ends and differ
 * inside, short ones, the empty one, and an absent one ({NULL, 0}), in any order and
 * again. */
static void test_string_memo(void)
{
	enum { N = 3000 };
	struct trace *t = new_trace();
	struct builder *b = builder_new(t);
	static uint32_t ids[N];
	char s[64];
	bool same = true;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < N; i++) {
			int k = round == 1 ? N - 1 - i : (i * 7919) % N;
			size_t n = (size_t)(k % 5 == 0 ? k % 7 : 40); /* short ones, and long ones alike at both ends */
			memset(s, 'x', sizeof s);
			if (n == 40)
				snprintf(s + 10, 20, "%019d", k), s[29] = 'x';
			else
				for (size_t j = 0; j < n; j++)
					s[j] = (char)('a' + (k + (int)j) % 26);
			uint32_t id = builder_string(b, s, n);
			same &= strtab_find(&t->strings, s, n) == id && strtab_len(&t->strings, id) == n &&
			        memcmp(strtab_get(&t->strings, id), s, n) == 0;
			if (round == 0)
				ids[k] = id;
			else
				same &= ids[k] == id;
		}
	ok(same, "3000 strings alike at both ends: the table's ids, the same each time");
	is_int(builder_string(b, NULL, 0), builder_string(b, "", 0), "an absent string is the empty one");
	builder_finish(b);
	trace_free(t);
}

int main(void)
{
	test_string_memo();
	test_one_model();
	test_parts();
	test_big_parts();
	test_unnamed_orphan();
	test_snapshot_cancel();
	test_many_categories();
	return done_testing();
}
