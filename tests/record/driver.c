/* driver.c: a stand-in CUDA program for the recorder's tests. It does what libcuda does
 * with the recorder (loads CUDA_INJECTION64_PATH and calls InitializeInjection), then
 * plays a scenario against the stand-in CUPTI (fake_cupti.c, loaded by the recorder from
 * TTRACE_CUPTI_LIB): contexts appear, activity records (real CUPTI structs, filled here)
 * are produced, and the program ends in the scenario's way. At the very end (after the
 * recorder's own exit handler) it prints the log of CUPTI calls, "cupti: ..." lines.
 *
 *   driver SCENARIO [N]
 * basic [N]  one GPU: N kernel launches (default 3), a copy, a memset, a sync, NVTX
 *            ranges and marks (one with a hostile name), overhead, a thread's name,
 *            a driver-API launch; then returns from main
 * two        contexts on GPUs 0 and 1, a kernel on each
 * many N     N kernels and their launches (several buffers)
 * signal     basic's records, then SIGTERM left to its default action
 * handler    the program's own SIGTERM handler (installed before CUDA) exits with 3
 * crash      basic's records, a checkpoint, more records, then abort()
 * fork       basic, and a forked child that exits through exit()
 * nocontext  CUDA initialised, no context created
 * delay      records now and after 0.8 s (for TTRACE_RECORD_DELAY / DURATION)
 * dropped    basic, and CUPTI reports 7 dropped records */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "record/trace_writer.h"
#include "tests/record/fake_cupti.h"

static struct {
	void (*context)(uint32_t, int);
	void (*add)(const void *, size_t);
	void (*complete)(void);
	void (*drop)(size_t);
	const char *(*log)(void);
} fake;

static uint32_t pid, tid, corr;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the fake CUPTI's clock */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print_log(void)
{
	if (fake.log == NULL)
		return;
	const char *l = fake.log();
	for (const char *p = l; *p;) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);
		printf("cupti: %.*s\n", n, p);
		p += n + (e != NULL);
	}
	fflush(stdout);
}

static void device(uint32_t id)
{
	tw_device d;
	memset(&d, 0, sizeof d);
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.id = id;
	d.name = id == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA H100 80GB HBM3 (second)";
	d.computeCapabilityMajor = 9;
	d.computeCapabilityMinor = 0;
	d.numMultiprocessors = 132;
	d.maxThreadsPerBlock = 1024;
	d.maxWarpsPerMultiprocessor = 64;
	d.numThreadsPerWarp = 32;
	d.maxRegistersPerBlock = 65536;
	d.maxRegistersPerMultiprocessor = 65536;
	d.maxSharedMemoryPerBlock = 49152;
	d.maxSharedMemoryPerMultiprocessor = 233472;
	d.maxBlocksPerMultiprocessor = 32;
	d.globalMemorySize = 85520809984ull;
	fake.add(&d, sizeof d);
}

static void context(uint32_t ctx, uint32_t dev)
{
	tw_context c;
	memset(&c, 0, sizeof c);
	c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c.contextId = ctx;
	c.deviceId = dev;
	fake.add(&c, sizeof c);
	fake.context(ctx | dev << 16, 1);
}

static void api(CUpti_ActivityKind kind, unsigned cbid, uint32_t c, uint64_t start, uint64_t dur)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = kind;
	a.cbid = cbid;
	a.start = start;
	a.end = start + dur;
	a.processId = pid;
	a.threadId = tid;
	a.correlationId = c;
	fake.add(&a, sizeof a);
}

static void kernel(const char *name, uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t c, uint64_t start,
                   uint64_t dur)
{
	tw_kernel k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.name = name;
	k.deviceId = dev;
	k.contextId = ctx;
	k.streamId = stream;
	k.correlationId = c;
	k.start = start;
	k.end = start + dur;
	k.gridX = 264;
	k.gridY = k.gridZ = 1;
	k.blockX = 256;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = 32;
	k.staticSharedMemory = 1024;
	k.dynamicSharedMemory = 4096;
	fake.add(&k, sizeof k);
}

static void launch(const char *name, uint32_t dev, uint32_t ctx, uint32_t stream, uint64_t t)
{
	uint32_t c = ++corr;
	api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, c, t, 5000);
	kernel(name, dev, ctx, stream, c, t + 3000, 4000);
}

static void marker(uint32_t id, uint32_t flags, const char *name, uint64_t ts)
{
	tw_marker m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.id = id;
	m.timestamp = ts;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = pid;
	m.objectId.pt.threadId = tid;
	m.name = name;
	m.domain = flags & CUPTI_ACTIVITY_FLAG_MARKER_END ? NULL : "app";
	fake.add(&m, sizeof m);
}

static void basic(int n)
{
	uint64_t t = now_ns();
	device(0);
	context(1, 0);
	marker(1, CUPTI_ACTIVITY_FLAG_MARKER_START, "train step", t);
	for (int i = 0; i < n; i++)
		launch("_Z6matmulPfS_i", 0, 1, 7, t + 10000 * (uint64_t)(i + 1));
	uint64_t u = t + 10000 * (uint64_t)(n + 1);

	tw_memcpy m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.bytes = 1 << 20;
	m.start = u + 2000;
	m.end = u + 12000;
	m.deviceId = 0;
	m.contextId = 1;
	m.streamId = 7;
	m.correlationId = ++corr;
	api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, corr, u, 3000);
	fake.add(&m, sizeof m);

	tw_memset s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 4096;
	s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	s.start = u + 14000;
	s.end = u + 15000;
	s.contextId = 1;
	s.streamId = 7;
	s.correlationId = ++corr;
	api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, corr, u + 13000, 1000);
	fake.add(&s, sizeof s);

	tw_sync y;
	memset(&y, 0, sizeof y);
	y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	y.start = u + 16000;
	y.end = u + 20000;
	y.contextId = 1;
	y.streamId = 7;
	y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	y.correlationId = ++corr;
	api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, corr, u + 16000, 4500);
	fake.add(&y, sizeof y);

	/* a Triton-style launch through the driver API, on another stream */
	uint32_t c = ++corr;
	api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, c, u + 21000, 2000);
	kernel("triton_poi_fused_add_0", 0, 1, 13, c, u + 22000, 3000);

	tw_overhead o;
	memset(&o, 0, sizeof o);
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	o.objectId.pt.processId = pid;
	o.objectId.pt.threadId = tid;
	o.start = u + 26000;
	o.end = u + 27000;
	fake.add(&o, sizeof o);

	CUpti_ActivityName nm;
	memset(&nm, 0, sizeof nm);
	nm.kind = CUPTI_ACTIVITY_KIND_NAME;
	nm.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	nm.objectId.pt.processId = pid;
	nm.objectId.pt.threadId = tid;
	nm.name = "trainer";
	fake.add(&nm, sizeof nm);

	marker(2, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, "evil\x1b]0;owned\x07\"name\x1b[2J", u + 28000);
	marker(1, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL, u + 30000);
	marker(3, CUPTI_ACTIVITY_FLAG_MARKER_START, "never ended", u + 29000);
}

static void term_handler(int sig)
{
	(void)sig;
	exit(3);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: driver SCENARIO [N]\n");
		return 2;
	}
	const char *sc = argv[1];
	int n = argc > 2 ? atoi(argv[2]) : 3;
	pid = (uint32_t)getpid();
	tid = (uint32_t)gettid();
	atexit(print_log); /* before the recorder's: runs after it */
	if (strcmp(sc, "handler") == 0)
		signal(SIGTERM, term_handler);

	const char *inj = getenv("CUDA_INJECTION64_PATH");
	if (inj == NULL) {
		fprintf(stderr, "driver: CUDA_INJECTION64_PATH is not set\n");
		return 2;
	}
	void *h = dlopen(inj, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "driver: %s\n", dlerror());
		return 2;
	}
	int (*init)(void);
	*(void **)&init = dlsym(h, "InitializeInjection");
	if (init == NULL || init() != 1) {
		fprintf(stderr, "driver: no InitializeInjection\n");
		return 2;
	}
	const char *lib = getenv("TTRACE_CUPTI_LIB");
	void *f = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (f == NULL) {
		fprintf(stderr, "driver: the recorder did not load the fake CUPTI %s\n", lib ? lib : "(unset)");
		return 2;
	}
	*(void **)&fake.context = dlsym(f, "fake_cupti_context");
	*(void **)&fake.add = dlsym(f, "fake_cupti_add");
	*(void **)&fake.complete = dlsym(f, "fake_cupti_complete");
	*(void **)&fake.drop = dlsym(f, "fake_cupti_drop");
	*(void **)&fake.log = dlsym(f, "fake_cupti_log");

	if (strcmp(sc, "basic") == 0) {
		basic(n);
	} else if (strcmp(sc, "two") == 0) {
		uint64_t t = now_ns();
		device(0);
		device(1);
		context(1, 0);
		context(2, 1);
		launch("_Z4stepv", 0, 1, 7, t);
		launch("_Z4stepv", 1, 2, 7, t + 1000);
		fake.context(1, 0);
		fake.context(2 | 1 << 16, 0);
	} else if (strcmp(sc, "many") == 0) {
		uint64_t t = now_ns();
		device(0);
		context(1, 0);
		for (int i = 0; i < n; i++)
			launch("_Z4stepv", 0, 1, 7, t + 10000 * (uint64_t)i);
	} else if (strcmp(sc, "signal") == 0 || strcmp(sc, "handler") == 0) {
		basic(n);
		raise(SIGTERM);
		fprintf(stderr, "driver: still alive after SIGTERM\n");
		return 1;
	} else if (strcmp(sc, "crash") == 0) {
		basic(n);
		usleep(1600 * 1000); /* the writer checkpoints every second */
		launch("_Z9after_ckpv", 0, 1, 7, now_ns());
		abort();
	} else if (strcmp(sc, "fork") == 0) {
		basic(n);
		fflush(stdout);
		pid_t c = fork();
		if (c == 0)
			exit(0); /* the child's exit must not touch the parent's file */
		int st;
		waitpid(c, &st, 0);
		launch("_Z10after_forkv", 0, 1, 7, now_ns());
	} else if (strcmp(sc, "nocontext") == 0) {
		/* nothing */
	} else if (strcmp(sc, "delay") == 0) {
		uint64_t t = now_ns();
		device(0);
		context(1, 0);
		launch("_Z5earlyv", 0, 1, 7, t);
		fake.complete();
		usleep(800 * 1000);
		launch("_Z4latev", 0, 1, 7, now_ns());
	} else if (strcmp(sc, "dropped") == 0) {
		basic(n);
		fake.drop(7);
	} else {
		fprintf(stderr, "driver: no scenario %s\n", sc);
		return 2;
	}
	return 0;
}
