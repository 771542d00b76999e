/* host_calls.c: names of host calls (see host_calls.h). */
#include "src/host_calls.h"

#include <string.h>

#include "lib/tmath.h"

unsigned host_call_flags(const char *s)
{
	/* clang-format off */
	static const char *const syncs[] = { "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
		                             "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize",
		                             "cudaFree", "hipFree", "cudaMemcpy", "hipMemcpy",
		                             "aten::item", "aten::_local_scalar_dense" };
	/* clang-format on */
	unsigned f = 0;
	if ((strstr(s, "DataLoader") != NULL && strstr(s, "__next__") != NULL) ||
	    strncmp(s, "enumerate(DataLoader)", 21) == 0 || strncmp(s, "enumerate(DataPipe)", 19) == 0)
		f |= HC_DATALOADER;
	if (strstr(s, "pin_memory") != NULL || strstr(s, "pin memory") != NULL)
		f |= HC_PIN_MEMORY;
	for (size_t k = 0; k < sizeof syncs / sizeof *syncs; k++)
		if (strcmp(s, syncs[k]) == 0)
			f |= HC_SYNC;
	if (strcmp(s, "cudaMemcpyAsync") == 0 || strcmp(s, "hipMemcpyAsync") == 0 ||
	    strcmp(s, "hipMemcpyWithStream") == 0)
		f |= HC_MEMCPY_ASYNC;
	if (strcmp(s, "cudaStreamWaitEvent") == 0 || strcmp(s, "hipStreamWaitEvent") == 0)
		f |= HC_STREAM_WAIT;
	return f;
}

bool host_call_blocking_copy(const struct trace *t, const struct track *tr, const struct slice *s, int32_t *device)
{
	uint32_t g = slice_gpu(tr, s);
	if (g == TT_NONE || g >= t->ngpu)
		return false;
	struct slice_ref p = t->gpu[g].peer;
	if (p.track == TT_NONE || p.track >= t->ntracks || p.idx >= t->tracks[p.track].nslices)
		return false;
	const struct slice *op = &t->tracks[p.track].slices[p.idx];
	const char *nm = strtab_get(&t->strings, slice_name(t, op));
	bool dtoh = strstr(nm, "DtoH") != NULL || strstr(nm, "Device -> Pageable") != NULL ||
	            strstr(nm, "DeviceToHost") != NULL;
	if (slice_cls(t, op) != SC_MEMCPY || !dtoh)
		return false;
	if (device != NULL)
		*device = t->tracks[p.track].device;
	return strstr(nm, "Pageable") != NULL ||
	       tt_add(s->ts, slice_dur(tr, s)) >= tt_add(op->ts, slice_dur(&t->tracks[p.track], op));
}
