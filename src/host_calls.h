/* host_calls.h: what a CPU slice's name says the host was doing, one definition for the
 * gaps' causes (src/gaps.c) and the findings (src/advice.c): waiting for data, waiting for
 * the GPU (a synchronising call), queuing a wait on a stream; and whether an asynchronous
 * memcpy call blocked. */
#ifndef TT_HOST_CALLS_H
#define TT_HOST_CALLS_H

#include <stdbool.h>

#include "src/model.h"

enum host_call {
	HC_DATALOADER = 1 << 0,   /* a DataLoader __next__, enumerate(DataLoader)#..., enumerate(DataPipe)#... */
	HC_PIN_MEMORY = 1 << 1,   /* pin_memory / "pin memory" work */
	HC_SYNC = 1 << 2,         /* synchronises by its name: stream/device/event synchronize (CUDA, HIP),
	                           * cudaFree, hipFree, cudaMemcpy, hipMemcpy, aten::item, aten::_local_scalar_dense */
	HC_MEMCPY_ASYNC = 1 << 3, /* cudaMemcpyAsync, hipMemcpyAsync, hipMemcpyWithStream: blocks when
	                           * host_call_blocking_copy says so */
	HC_STREAM_WAIT = 1 << 4,  /* cudaStreamWaitEvent, hipStreamWaitEvent */
};

/* The enum host_call flags of NAME (0: none). */
unsigned host_call_flags(const char *name);
/* Whether runtime call S of T (an HC_MEMCPY_ASYNC call) blocked the host: its copy goes
 * device to host, into pageable memory or with the call lasting until the copy ended.
 * *DEVICE (may be NULL) gets the copy's device. */
bool host_call_blocking_copy(const struct trace *t, const struct track *tr, const struct slice *s, int32_t *device);

#endif
