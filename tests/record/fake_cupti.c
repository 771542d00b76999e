/* fake_cupti.c: a stand-in for libcupti, loaded by the recorder in place of the real one
 * in the tests (TTRACE_CUPTI_LIB). It implements the entry points the recorder calls with
 * CUPTI's own signatures (cupti.h is included, so a mismatch does not compile), keeps a
 * log of the calls, and lets the test program (tests/record/driver.c) play the driver:
 * create and destroy contexts (the resource callbacks), produce activity records (real
 * CUpti_Activity* structs the test fills) which it hands over in buffers the recorder
 * gives it, when flushed, as CUPTI does. Records of kinds the recorder did not enable
 * are not produced, as with CUPTI. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "tests/record/fake_cupti.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_CallbackFunc sub_callback;
static void *sub_userdata;
static int subscribers;
static bool resource_domain;
static bool kind_on[256];
static CUpti_BuffersCallbackRequestFunc request_fn;
static CUpti_BuffersCallbackCompleteFunc complete_fn;
static char call_log[1 << 16];
static size_t log_n;
static uint64_t fake_clock;
static size_t dropped;

struct rec {
	uint8_t *p;
	size_t n;
};
static struct rec *pending;
static size_t npending, cap_pending;

static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (log_n < sizeof call_log - 128) {
		int n = vsnprintf(call_log + log_n, sizeof call_log - log_n - 1, fmt, ap);
		if (n > 0)
			log_n += (size_t)n;
		call_log[log_n++] = '\n';
		call_log[log_n] = '\0';
	}
	va_end(ap);
}

/* ---- the CUPTI entry points ------------------------------------------------------------ */

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata)
{
	pthread_mutex_lock(&lock);
	note("subscribe");
	if (subscribers > 0 || getenv("FAKE_CUPTI_BUSY")) {
		pthread_mutex_unlock(&lock);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	subscribers++;
	sub_callback = callback;
	sub_userdata = userdata;
	*subscriber = (CUpti_SubscriberHandle)&sub_callback;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	(void)subscriber;
	pthread_mutex_lock(&lock);
	note("unsubscribe");
	subscribers = 0;
	sub_callback = NULL;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain)
{
	(void)subscriber;
	pthread_mutex_lock(&lock);
	note("enable_domain %d %u", (int)domain, enable);
	if (domain == CUPTI_CB_DOMAIN_RESOURCE)
		resource_domain = enable != 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                       CUpti_CallbackId cbid)
{
	(void)subscriber;
	note("enable_callback %d %u %u", (int)domain, (unsigned)cbid, enable);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	pthread_mutex_lock(&lock);
	note("activity_enable %d", (int)kind);
	if ((unsigned)kind < 256)
		kind_on[kind] = true;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	pthread_mutex_lock(&lock);
	note("activity_disable %d", (int)kind);
	if ((unsigned)kind < 256)
		kind_on[kind] = false;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                  CUpti_BuffersCallbackCompleteFunc complete)
{
	pthread_mutex_lock(&lock);
	note("register_callbacks");
	request_fn = request;
	complete_fn = complete;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

/* A buffer holds records each after an 8-byte header giving its size, 8-byte aligned. */
static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Hands the pending records over in as many buffers as they need. */
static void deliver(void)
{
	pthread_mutex_lock(&lock);
	struct rec *recs = pending;
	size_t n = npending;
	pending = NULL;
	npending = cap_pending = 0;
	CUpti_BuffersCallbackRequestFunc req = request_fn;
	CUpti_BuffersCallbackCompleteFunc done = complete_fn;
	pthread_mutex_unlock(&lock);
	size_t i = 0;
	while (i < n && req != NULL && done != NULL) {
		uint8_t *buf = NULL;
		size_t size = 0, max_records = 0;
		req(&buf, &size, &max_records);
		if (buf == NULL || size < 64) {
			pthread_mutex_lock(&lock);
			dropped += n - i;
			note("buffer refused: %zu records dropped", n - i);
			pthread_mutex_unlock(&lock);
			break;
		}
		size_t used = 0, count = 0;
		while (i < n && used + 8 + align8(recs[i].n) <= size && (max_records == 0 || count < max_records)) {
			uint64_t len = recs[i].n;
			memcpy(buf + used, &len, 8);
			memcpy(buf + used + 8, recs[i].p, recs[i].n);
			used += 8 + align8(recs[i].n);
			free(recs[i].p);
			i++;
			count++;
		}
		done(NULL, 0, buf, size, used);
	}
	for (; i < n; i++)
		free(recs[i].p);
	free(recs);
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&lock);
	note("flush %s", flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED ? "forced" : "plain");
	pthread_mutex_unlock(&lock);
	deliver();
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
	uint8_t *at = *record == NULL ? buffer : (uint8_t *)*record - 8;
	if (*record != NULL) {
		uint64_t len;
		memcpy(&len, at, 8);
		at += 8 + align8(len);
	}
	if ((size_t)(at - buffer) + 8 > valid) {
		*record = NULL;
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	*record = (CUpti_Activity *)(at + 8);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream, size_t *n)
{
	(void)context;
	(void)stream;
	pthread_mutex_lock(&lock);
	*n = dropped; /* CUPTI resets the count when it is read */
	dropped = 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
	if (fake_clock != 0) {
		*timestamp = fake_clock;
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		*timestamp = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
	*str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "fake CUPTI error";
	return CUPTI_SUCCESS;
}

/* clang-format off */
#define RT(name) { CUPTI_RUNTIME_TRACE_CBID_##name, #name }
#define DRV(name) { CUPTI_DRIVER_TRACE_CBID_##name, #name }
/* clang-format on */
static const struct {
	unsigned cbid;
	const char *name;
} runtime_names[] = {
	RT(cudaLaunchKernel_v7000), RT(cudaMemcpyAsync_v3020), RT(cudaMemsetAsync_v3020),
	RT(cudaStreamSynchronize_v3020), RT(cudaDeviceSynchronize_v3020), RT(cudaMalloc_v3020),
}, driver_names[] = {
	DRV(cuLaunchKernel), DRV(cuCtxSynchronize),
};

EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	bool rt = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	size_t n = rt ? sizeof runtime_names / sizeof runtime_names[0] : sizeof driver_names / sizeof driver_names[0];
	for (size_t i = 0; i < n; i++)
		if ((rt ? runtime_names : driver_names)[i].cbid == cbid) {
			*name = (rt ? runtime_names : driver_names)[i].name;
			return CUPTI_SUCCESS;
		}
	return CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiGetContextId(CUcontext context, uint32_t *id)
{
	*id = (uint32_t)(uintptr_t)context;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetDeviceId(CUcontext context, uint32_t *device)
{
	*device = (uint32_t)((uintptr_t)context >> 16);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	note("thread_id_type %d", (int)type);
	return CUPTI_SUCCESS;
}

/* ---- the test program's side ----------------------------------------------------------- */

/* Context CTX (device in its upper bits, see cuptiGetDeviceId) created or being
 * destroyed: the recorder's resource callback, as the driver calls it. */
EXPORT void fake_cupti_context(uint32_t ctx, int created)
{
	pthread_mutex_lock(&lock);
	CUpti_CallbackFunc cb = resource_domain ? sub_callback : NULL;
	void *ud = sub_userdata;
	pthread_mutex_unlock(&lock);
	if (cb == NULL)
		return;
	CUpti_ResourceData rd;
	memset(&rd, 0, sizeof rd);
	rd.context = (CUcontext)(uintptr_t)ctx;
	cb(ud, CUPTI_CB_DOMAIN_RESOURCE,
	   created ? CUPTI_CBID_RESOURCE_CONTEXT_CREATED : CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
}

/* A record the GPU or the driver made: kept until the next flush if its kind is on. */
EXPORT void fake_cupti_add(const void *record, size_t size)
{
	const CUpti_Activity *r = record;
	pthread_mutex_lock(&lock);
	if ((unsigned)r->kind < 256 && kind_on[r->kind]) {
		if (npending == cap_pending) {
			cap_pending = cap_pending ? cap_pending * 2 : 256;
			pending = realloc(pending, cap_pending * sizeof *pending);
		}
		uint8_t *copy = malloc(size);
		memcpy(copy, record, size);
		pending[npending++] = (struct rec){ copy, size };
	}
	pthread_mutex_unlock(&lock);
}

/* CUPTI's own thread handing back a full buffer, unasked. */
EXPORT void fake_cupti_complete(void) { deliver(); }

EXPORT void fake_cupti_drop(size_t n)
{
	pthread_mutex_lock(&lock);
	dropped += n;
	pthread_mutex_unlock(&lock);
}

EXPORT void fake_cupti_set_clock(uint64_t ns) { fake_clock = ns; }

/* The calls so far, one per line. */
EXPORT const char *fake_cupti_log(void) { return call_log; }
