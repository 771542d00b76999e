/* test_trace_writer.c: CUPTI activity records (the real structs, filled here) through the
 * recorder's trace writer; the document it makes is parsed back with cJSON and checked
 * event by event. The round trip through ttrace's own loader is tests/record.sh. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "record/trace_writer.h"
#include "tests/unit/tap.h"

static const char *names(CUpti_CallbackDomain d, uint32_t cbid)
{
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
		return "cudaLaunchKernel_v7000";
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020)
		return "cudaStreamSynchronize_v3020";
	return NULL;
}

struct doc {
	char *text;
	size_t n;
};

static void add(struct doc *d, const char *s, size_t n)
{
	d->text = realloc(d->text, d->n + n + 1);
	memcpy(d->text + d->n, s, n);
	d->n += n;
	d->text[d->n] = '\0';
}

static void take(struct tw *w, struct doc *d)
{
	size_t n;
	const char *t = tw_take(w, &n);
	add(d, t, n);
}

/* prefix + what was taken + suffix, parsed */
static cJSON *finish(struct tw *w, struct doc *body)
{
	size_t n;
	char *p = tw_prefix(w, &n);
	struct doc d = { 0 };
	add(&d, p, n);
	free(p);
	take(w, body);
	add(&d, body->text ? body->text : "", body->n);
	p = tw_suffix(w, &n);
	add(&d, p, n);
	free(p);
	cJSON *j = cJSON_Parse(d.text);
	if (j == NULL)
		printf("# not JSON: %.300s\n", d.text);
	free(d.text);
	return j;
}

/* The I-th event with this cat (and ph, when given), or NULL. */
static cJSON *event(cJSON *doc, const char *cat, const char *ph, int i)
{
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		cJSON *c = cJSON_GetObjectItem(e, "cat"), *p = cJSON_GetObjectItem(e, "ph");
		if (cJSON_IsString(c) && strcmp(c->valuestring, cat) == 0 &&
		    (ph == NULL || (cJSON_IsString(p) && strcmp(p->valuestring, ph) == 0)) && i-- == 0)
			return e;
	}
	return NULL;
}

static int count(cJSON *doc, const char *cat)
{
	int n = 0;
	while (event(doc, cat, NULL, n))
		n++;
	return n;
}

/* the number at PATH, keys separated by '.'; a key with a '.' of its own is looked up
 * whole first */
static double num(cJSON *o, const char *path)
{
	cJSON *whole = cJSON_GetObjectItem(o, path);
	if (cJSON_IsNumber(whole))
		return whole->valuedouble;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	cJSON *v = o;
	for (char *save, *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
		v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, atoi(t)) : cJSON_GetObjectItem(v, t);
	return cJSON_IsNumber(v) ? v->valuedouble : -12345;
}

static const char *str(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

#define BASE 1700000000000000000ull

static struct tw *writer(bool no_api)
{
	/* clang-format off */
	struct tw_options o = {
		.base_ns = BASE, .clock_offset_ns = 1000, .pid = 4242, .process_name = "trainer",
		.hostname = "node1", .rank = 3, .world_size = 8, .local_rank = 1, .no_api = no_api,
		.callback_name = names,
	};
	/* clang-format on */
	return tw_new(&o);
}

static void device_record(struct tw *w)
{
	tw_device d;
	memset(&d, 0, sizeof d);
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.id = 1;
	d.name = "NVIDIA A100-SXM4-40GB";
	d.computeCapabilityMajor = 8;
	d.numMultiprocessors = 108;
	d.maxThreadsPerBlock = 1024;
	d.maxWarpsPerMultiprocessor = 64;
	d.numThreadsPerWarp = 32;
	d.maxRegistersPerBlock = 65536;
	d.maxRegistersPerMultiprocessor = 65536;
	d.maxSharedMemoryPerBlock = 49152;
	d.maxSharedMemoryPerMultiprocessor = 167936;
	d.maxBlocksPerMultiprocessor = 32;
	d.globalMemorySize = 42505273344ull;
	tw_record(w, (CUpti_Activity *)&d);
}

static void launch_and_kernel(struct tw *w, uint32_t corr, uint64_t t)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	a.start = t;
	a.end = t + 4500;
	a.processId = 4242;
	a.threadId = 4243;
	a.correlationId = corr;
	tw_record(w, (CUpti_Activity *)&a);
	tw_kernel k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.name = "ampere_sgemm_128x64_tn";
	k.deviceId = 1;
	k.contextId = 5;
	k.streamId = 7;
	k.correlationId = corr;
	k.start = t + 6000;
	k.end = t + 16001;
	k.gridX = 216;
	k.gridY = 1;
	k.gridZ = 1;
	k.blockX = 128;
	k.blockY = 1;
	k.blockZ = 1;
	k.registersPerThread = 64;
	k.staticSharedMemory = 1000;
	k.dynamicSharedMemory = 24;
	tw_record(w, (CUpti_Activity *)&k);
}

static void test_kernels_and_flows(void)
{
	struct tw *w = writer(false);
	struct doc body = { 0 };
	device_record(w);
	tw_context c;
	memset(&c, 0, sizeof c);
	c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c.contextId = 5;
	c.deviceId = 1;
	tw_record(w, (CUpti_Activity *)&c);
	/* 2 s after base on the host clock: CUPTI time + offset 1000 ns */
	uint64_t t = BASE + 2000000000ull - 1000;
	launch_and_kernel(w, 11, t);
	take(w, &body); /* the text is taken between records, as the recorder does */
	launch_and_kernel(w, 12, t + 20000);

	tw_sync s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	s.contextId = 5;
	s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s.start = t + 40000;
	s.end = t + 41000;
	s.correlationId = 13;
	tw_record(w, (CUpti_Activity *)&s);

	cJSON *doc = finish(w, &body);
	ok(doc != NULL, "prefix + events + suffix is one JSON document");
	if (doc == NULL) {
		tw_free(w);
		return;
	}
	is_int(num(doc, "baseTimeNanoseconds"), BASE, "baseTimeNanoseconds");
	is_int(num(doc, "distributedInfo.rank"), 3, "distributedInfo rank from the options");
	is_int(num(doc, "distributedInfo.world_size"), 8, "distributedInfo world_size");
	is_str(str(cJSON_GetObjectItem(doc, "ttrace"), "clock"), "CLOCK_REALTIME",
	       "the header says which clock the times come from (ranks align on it)");
	is_int(count(doc, "kernel"), 2, "two kernels");
	is_int(count(doc, "cuda_runtime"), 2, "two runtime calls");
	cJSON *k = event(doc, "kernel", "X", 0);
	is_str(str(k, "name"), "ampere_sgemm_128x64_tn", "kernel name");
	is_int(num(k, "pid"), 1, "kernel on its device's pid");
	is_int(num(k, "tid"), 7, "kernel on its stream's tid");
	/* ts = (t + 6000 + 1000 - BASE) ns = 2000006000 ns = 2000006.000 us */
	ok(num(k, "ts") == 2000006.0, "kernel ts in us from the base, offset applied (%f)", num(k, "ts"));
	ok(num(k, "dur") == 10.001, "kernel dur keeps the nanosecond (%f)", num(k, "dur"));
	is_int(num(k, "args.correlation"), 11, "kernel correlation");
	is_int(num(k, "args.grid.0"), 216, "grid");
	is_int(num(k, "args.block.0"), 128, "block");
	is_int(num(k, "args.shared memory"), 1024, "shared memory is static + dynamic");
	is_int(num(k, "args.static shared memory"), 1000, "static shared memory");
	is_int(num(k, "args.dynamic shared memory"), 24, "dynamic shared memory");
	is_int(num(k, "args.registers per thread"), 64, "registers per thread");
	ok(num(k, "args.blocks per SM") == 2.0, "blocks per SM = 216 / 108 SMs");
	ok(num(k, "args.warps per SM") == 8.0, "warps per SM = 2 x 128 / 32");
	/* registers allow 65536 / (64 x 128) = 8 blocks, warps 64 / 4 = 16: the grid's 2 blocks
	 * per SM are what runs, 2 x 128 of 2048 threads = 12.5%, rounded as Kineto does */
	is_int(num(cJSON_GetObjectItem(k, "args"), "est. achieved occupancy %"), 13,
	       "est. achieved occupancy from the calculator");
	cJSON *s0 = event(doc, "ac2g", "s", 0), *f0 = event(doc, "ac2g", "f", 0);
	ok(s0 && f0, "a flow start and end");
	is_int(num(s0, "id"), 11, "the flow starts at the launch's correlation");
	is_int(num(s0, "tid"), 4243, "at the launching thread");
	is_int(num(f0, "id"), 11, "and ends at the kernel's");
	is_str(str(f0, "bp"), "e", "bound to the enclosing slice");
	ok(num(f0, "ts") == num(k, "ts"), "at the kernel's start");
	cJSON *r = event(doc, "cuda_runtime", "X", 0);
	is_str(str(r, "name"), "cudaLaunchKernel", "runtime name without its version suffix");
	cJSON *y = event(doc, "cuda_sync", "X", 0);
	is_str(str(y, "name"), "Context Sync", "sync kind");
	is_int(num(y, "pid"), 1, "a context sync goes to the context's device");
	is_int(num(y, "args.stream"), -1, "a context sync has no stream");
	is_int(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "deviceProperties")), 1, "one device in deviceProperties");
	is_int(num(doc, "deviceProperties.0.numSms"), 108, "numSms");
	is_int(num(doc, "deviceProperties.0.id"), 1, "device id");
	is_int(num(doc, "deviceProperties.0.sharedMemPerBlockOptin"), 166912,
	       "opt-in shared memory: SM's less 1 KB reserved");
	is_int(num(doc, "deviceProperties.0.maxThreadsPerMultiprocessor"), 2048, "threads per SM = warps x 32");
	struct tw_stats st;
	tw_stats(w, &st);
	is_int(st.kernels, 2, "stats: kernels");
	is_int(st.devices, 1, "stats: devices");
	cJSON_Delete(doc);
	tw_free(w);
	free(body.text);
}

static void marker(struct tw *w, uint32_t id, uint32_t flags, const char *name, uint64_t ts)
{
	tw_marker m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.id = id;
	m.timestamp = ts;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = 4242;
	m.objectId.pt.threadId = 4250;
	m.name = name;
	m.domain = "NCCL";
	tw_record(w, (CUpti_Activity *)&m);
}

static void test_nvtx(void)
{
	struct tw *w = writer(false);
	struct doc body = { 0 };
	uint64_t t = BASE + 5000000 - 1000;
	/* many ranges open at once, so that the table grows and removes in every order */
	for (uint32_t i = 1; i <= 200; i++)
		marker(w, i, CUPTI_ACTIVITY_FLAG_MARKER_START, i == 7 ? "ncclAllReduce" : "range", t + i);
	take(w, &body);
	for (uint32_t i = 200; i >= 2; i--)
		marker(w, i, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, t + 1000 + i);
	marker(w, 9999, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, t + 5000); /* its start was before recording */
	marker(w, 500, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, "tab\there \"q\" \x1b[31m\xff\xc3\xa9", t + 6000);
	struct tw_stats st;
	tw_stats(w, &st);
	is_int(st.open_ranges, 1, "range 1 is still open");
	cJSON *doc = finish(w, &body);
	ok(doc != NULL, "NVTX document parses");
	if (doc == NULL) {
		tw_free(w);
		return;
	}
	is_int(count(doc, "user_annotation"), 199 + 1, "199 ended ranges and one mark");
	cJSON *e = NULL;
	for (int i = 0; (e = event(doc, "user_annotation", "X", i)) != NULL; i++)
		if (str(e, "name") && strcmp(str(e, "name"), "ncclAllReduce") == 0)
			break;
	ok(e != NULL, "a range keeps its start's name at its end");
	ok(e && num(e, "dur") == 1.0, "from start to end (%f us)", e ? num(e, "dur") : -1);
	is_int(num(e, "tid"), 4250, "on the marker's thread");
	is_str(e ? str(cJSON_GetObjectItem(e, "args"), "domain") : NULL, "NCCL", "the NVTX domain in args");
	cJSON *m = event(doc, "user_annotation", "i", 0);
	is_str(str(m, "name"), "tab\there \"q\" \x1b[31m\xef\xbf\xbd\xc3\xa9",
	       "a mark's name round-trips; an invalid byte becomes U+FFFD");
	is_int(num(doc, "ttrace.open_nvtx_ranges"), 1, "the closing counts the open range");
	cJSON_Delete(doc);
	tw_free(w);
	free(body.text);
}

static void kernel_at(struct tw *w, uint32_t corr, uint32_t stream, uint64_t start, uint64_t end)
{
	tw_kernel k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.name = "k";
	k.streamId = stream;
	k.correlationId = corr;
	k.start = start;
	k.end = end;
	tw_record(w, (CUpti_Activity *)&k);
}

static void launch_at(struct tw *w, uint32_t corr, uint32_t tid, uint64_t t)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	a.start = t;
	a.end = t + 10;
	a.processId = 4242;
	a.threadId = tid;
	a.correlationId = corr;
	tw_record(w, (CUpti_Activity *)&a);
}

/* NVTX ranges get gpu_user_annotation spans over the GPU work launched in them */
static void test_gpu_annotations(void)
{
	struct tw *w = writer(false);
	struct doc body = { 0 };
	uint64_t t = BASE - 1000;                                           /* host time = BASE */
	marker(w, 1, CUPTI_ACTIVITY_FLAG_MARKER_START, "forward", t + 100); /* thread 4250 */
	marker(w, 2, CUPTI_ACTIVITY_FLAG_MARKER_START, "attention", t + 200);
	launch_at(w, 1, 4250, t + 300); /* in attention */
	marker(w, 2, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, t + 400);
	launch_at(w, 2, 4250, t + 500); /* in forward */
	launch_at(w, 3, 4250, t + 600); /* in forward, on another stream */
	launch_at(w, 4, 4999, t + 650); /* another thread: in no range */
	marker(w, 1, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, t + 700);
	launch_at(w, 5, 4250, t + 800); /* after forward */
	take(w, &body);
	/* the GPU work comes after the ranges ended, as it does */
	kernel_at(w, 1, 7, t + 1000, t + 2000);
	kernel_at(w, 2, 7, t + 2500, t + 3000);
	kernel_at(w, 4, 7, t + 3000, t + 3100);
	kernel_at(w, 5, 7, t + 3200, t + 3300);
	take(w, &body);
	ok(strstr(body.text, "gpu_user_annotation") != NULL && strstr(body.text, "\"attention\"") != NULL,
	   "attention's span is written as soon as its one kernel came");
	ok(strstr(strstr(body.text, "gpu_user_annotation"), "\"forward\"") == NULL,
	   "forward's is not: a kernel of it is still to come");
	kernel_at(w, 3, 13, t + 2600, t + 4000);
	cJSON *doc = finish(w, &body);
	is_int(count(doc, "gpu_user_annotation"), 3, "attention on stream 7, forward on streams 7 and 13");
	int seen = 0;
	for (int i = 0; i < 3; i++) {
		cJSON *e = event(doc, "gpu_user_annotation", "X", i);
		const char *n = str(e, "name");
		double ts = num(e, "ts"), dur = num(e, "dur"), tid = num(e, "tid");
		if (n && strcmp(n, "attention") == 0 && tid == 7 && ts == 1.0 && dur == 1.0)
			seen |= 1;
		if (n && strcmp(n, "forward") == 0 && tid == 7 && ts == 2.5 && dur == 0.5)
			seen |= 2; /* kernel 2 only: 1 is attention's, 4 another thread's, 5 after */
		if (n && strcmp(n, "forward") == 0 && tid == 13 && ts == 2.6 && dur == 1.4)
			seen |= 4;
	}
	is_int(seen, 7, "each span covers the innermost range's own GPU work");
	cJSON_Delete(doc);
	tw_free(w);
	free(body.text);

	/* a range whose kernel never comes is written at the end by tw_flush_annotations */
	w = writer(false);
	struct doc b2 = { 0 };
	marker(w, 1, CUPTI_ACTIVITY_FLAG_MARKER_START, "step", t + 100);
	launch_at(w, 1, 4250, t + 200);
	launch_at(w, 2, 4250, t + 300);
	marker(w, 1, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, t + 400);
	kernel_at(w, 1, 7, t + 1000, t + 2000);
	take(w, &b2);
	ok(b2.text == NULL || strstr(b2.text, "gpu_user_annotation") == NULL, "not written while a kernel is pending");
	tw_flush_annotations(w);
	doc = finish(w, &b2);
	is_int(count(doc, "gpu_user_annotation"), 1, "written at the end with what came");
	cJSON_Delete(doc);
	tw_free(w);
	free(b2.text);
}

static void test_no_api(void)
{
	struct tw *w = writer(true);
	struct doc body = { 0 };
	launch_and_kernel(w, 1, BASE + 1000);
	cJSON *doc = finish(w, &body);
	is_int(count(doc, "kernel"), 1, "no_api: the kernel stays");
	is_int(count(doc, "cuda_runtime"), 0, "no_api: no runtime calls");
	is_int(count(doc, "ac2g"), 0, "no_api: no flows");
	/* no device record: the kernel has no occupancy figures rather than wrong ones */
	cJSON *k = event(doc, "kernel", "X", 0);
	ok(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "args"), "blocks per SM") == NULL,
	   "without the device's record, no blocks per SM");
	cJSON_Delete(doc);
	tw_free(w);
	free(body.text);
}

static void test_names(void)
{
	char b[64];
	tw_api_name("cudaLaunchKernel_v7000", b, sizeof b);
	is_str(b, "cudaLaunchKernel", "version suffix dropped");
	tw_api_name("cudaMemcpyAsync_v3020_ptsz", b, sizeof b);
	is_str(b, "cudaMemcpyAsync", "version and stream suffixes dropped");
	tw_api_name("cuLaunchKernel", b, sizeof b);
	is_str(b, "cuLaunchKernel", "a name without a suffix stays");
	tw_api_name("cuMemcpyHtoDAsync_v2", b, sizeof b);
	is_str(b, "cuMemcpyHtoDAsync", "driver _v2 dropped");
	tw_api_name("cudaGetDevice_value", b, sizeof b);
	is_str(b, "cudaGetDevice_value", "_v not followed by a digit stays");
	ok(tw_is_launch("cudaLaunchKernel") && tw_is_launch("cuLaunchKernelEx") && tw_is_launch("cudaMemcpyAsync") &&
	           tw_is_launch("cudaGraphLaunch"),
	   "launching calls start flows");
	ok(!tw_is_launch("cudaStreamSynchronize") && !tw_is_launch("cudaMalloc"), "others do not");
}

int main(void)
{
	test_kernels_and_flows();
	test_nvtx();
	test_gpu_annotations();
	test_no_api();
	test_names();
	return done_testing();
}
