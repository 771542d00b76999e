/* advice_rules.c: what each rule of the findings is (see advice.h): its fixed text, the
 * same for every trace (titles, figures, causes, fixes, examples, thresholds), and the
 * words and units the reports write them in. */
#include "src/advice.h"

#include <math.h>
#include <stdio.h>

#include "lib/timefmt.h"

/* clang-format off */
static const struct advice_rule_info rules[ADV__COUNT] = {
	[ADV_LOW_GPU_UTILIZATION] = {
		"low_gpu_utilization", "Low GPU utilization", "GPU utilization",
		"time some kernel runs on the device (union of its streams) over the steps' time (the TensorBoard plugin's)",
		"the device's longest gaps with every stream idle",
		"the GPU waits for the host: input loading, CPU overhead in Python or the framework, or synchronisations "
		"(the gaps' causes say which)",
		"find what the host does in the longest gaps and take it off the GPU's path: more DataLoader workers and "
		"pinned memory for input, fewer host syncs, fused or captured kernels for overhead",
		"DataLoader(ds, batch_size=64, num_workers=8, pin_memory=True, persistent_workers=True)",
		"utilization counts kernels only (a step bound by copies looks idle); warm-up steps in the window; work of "
		"this GPU from another process is not in the trace",
		AU_SHARE, TT_ADVICE_GPU_UTIL_MIN, false },
	[ADV_DATALOADER_STALL] = {
		"dataloader_stall", "DataLoader stall", "DataLoader stall share",
		"time a DataLoader __next__ runs on the host while the GPU runs nothing (all of it without a GPU), over the "
		"steps' time",
		"DataLoader __next__ calls, by the time the GPU waited",
		"the input pipeline is slower than the model: loading, decoding or augmenting in the training process, or "
		"too few workers",
		"load in worker processes, keep them alive between epochs, and pin host memory so that copies can be "
		"asynchronous",
		"DataLoader(ds, batch_size=64, num_workers=8, pin_memory=True, persistent_workers=True, prefetch_factor=4)",
		"the stall is only at the first step or at an epoch boundary (workers starting): steady steps would not "
		"show it",
		AU_SHARE, TT_ADVICE_DATALOADER_MAX, true },
	[ADV_HOST_SYNC] = {
		"host_sync", "Host synchronisation", "GPU idle during host syncs",
		"time the GPU runs nothing while the host is inside a synchronising call (aten::item, "
		"_local_scalar_dense, cuda/hip Stream/Device/Event Synchronize, cudaFree, cudaMemcpy, a blocking device-to-host "
		"copy), over the steps' time",
		"the outermost synchronising calls, by GPU idle time, with the operator that made them",
		"the host waits for the GPU (.item(), .cpu(), .tolist(), printing a tensor, a data-dependent shape such as "
		"nonzero or boolean indexing), then the GPU waits for the host to queue new work",
		"keep values on the GPU and read them back rarely, or copy them asynchronously into pinned memory",
		"if step % 100 == 0: print(loss.item())   # not every step; or loss.to('cpu', non_blocking=True)",
		"the GPU was idle for another reason during the call, e.g. a collective waiting for another rank: the sync "
		"then only shows that wait",
		AU_SHARE, TT_ADVICE_SYNC_IDLE_MAX, true },
	[ADV_PAGEABLE_MEMCPY] = {
		"pageable_memcpy", "Pageable memory copies", "pageable memcpy share",
		"time of memcpys whose name says Pageable (to or from host memory that is not pinned), over the steps' time",
		"the pageable copies, longest first, with their size",
		"host memory is not pinned: the copy is staged through a driver buffer, runs synchronously with the host "
		"and cannot overlap compute",
		"pin the host buffers (pin_memory=True in the DataLoader) and copy with non_blocking=True",
		"DataLoader(ds, ..., pin_memory=True); x = x.to('cuda', non_blocking=True)",
		"the copies are one-off transfers (loading a checkpoint) rather than part of every step",
		AU_SHARE, TT_ADVICE_PAGEABLE_MAX, true },
	[ADV_LAUNCH_BOUND] = {
		"launch_bound", "Launch-bound", "GPU idle waiting for launches",
		"device idle time before an operation whose launch call started after the GPU ran out of work (gaps under "
		"100 us, and longer gaps whose cause is launch-bound), over the steps' time",
		"the longest such waits, at the operation that came late",
		"kernels are shorter than the CPU takes to launch them: per-operator dispatch overhead (eager mode, small "
		"tensors, many tiny kernels)",
		"fuse kernels and cut launch overhead with torch.compile, or capture the step in a CUDA graph; larger "
		"batches make each kernel longer",
		"model = torch.compile(model, mode='reduce-overhead')   # fuses kernels, replays CUDA graphs",
		"the host was doing other work than launching between kernels (Python, data); a launch that waited for a "
		"sync counts here too",
		AU_SHARE, TT_ADVICE_LAUNCH_IDLE_MAX, true },
	[ADV_TENSOR_CORES_UNUSED] = {
		"tensor_cores_unused", "Tensor Cores unused", "matmul/conv kernel time on SIMT lanes",
		"time of GEMM, convolution and attention kernels whose names say they run on SIMT lanes (FFMA, sgemm, simt; "
		"FP64 aside), over all kernel time; kernels whose names do not say their unit are left out",
		"those kernels by total time, at their longest call",
		"matmuls and convolutions run in FP32 (no mixed precision, TF32 off) on a GPU that has Tensor Cores",
		"use automatic mixed precision (bf16 or fp16), or allow TF32 for FP32 matmuls and convolutions; where "
		"mixed precision is already on, find why these stayed in FP32",
		"with torch.autocast('cuda', dtype=torch.float16): loss = model(x)   # bfloat16, or "
		"torch.backends.cuda.matmul.allow_tf32 = True, from Ampere on",
		"ttrace judges by kernel name (KERNEL CLASSES in ttrace(1)): the shapes are too small or odd for the "
		"matrix units, or the kernels are kept in FP32 on purpose; a GPU before Volta has no Tensor Cores",
		AU_SHARE, TT_ADVICE_TC_MATMUL_MAX, true },
	[ADV_LOW_OCCUPANCY] = {
		"low_occupancy", "Low occupancy", "est. achieved occupancy of the longest kernels",
		"duration-weighted mean est. achieved occupancy (Kineto's) of the longest kernels that run under 50% or "
		"with fewer blocks than SMs",
		"the flagged kernels by total time, at their longest call",
		"kernels launch too few threads to fill the GPU (small batch or tensors), or use many registers or much "
		"shared memory per thread",
		"give each kernel more work: larger batches, fused operations; for custom kernels tune the block size and "
		"register use",
		"model = torch.compile(model)   # fuses small ops; or a larger batch_size",
		"occupancy is Kineto's estimate, not a measurement; kernels bound by memory or built for low occupancy "
		"(large GEMM tiles) can run well under 50%",
		AU_PERCENT, TT_ADVICE_OCCUPANCY_MIN, false },
	[ADV_EXPOSED_COMMUNICATION] = {
		"exposed_communication", "Exposed communication", "Communication share",
		"time when a collective kernel (NCCL/RCCL) runs and no other kernel does (TraceLens's exposed "
		"communication; without a GPU, the union of the nccl:/gloo: ops), over the steps' time",
		"the collectives, by time not hidden by compute",
		"gradient synchronisation does not overlap compute, or ranks wait for each other at collectives",
		"synchronise less often (gradient accumulation with no_sync), tune DDP's buckets, and look for a straggler "
		"rank",
		"with model.no_sync(): loss.backward()   # accumulate, sync every k steps; DDP(model, bucket_cap_mb=25)",
		"the time is spent waiting for a slower rank rather than transferring (load every rank to see the "
		"straggler)",
		AU_SHARE, TT_ADVICE_COMM_EXPOSED_MAX, true },
	[ADV_ALLREDUCE_AFTER_BACKWARD] = {
		"allreduce_after_backward", "AllReduce serialised after backward", "serialised AllReduce share",
		"time of AllReduce kernels at least half of which no compute kernel hides, counting the part not hidden, "
		"over the steps' time",
		"those AllReduce kernels, by time not hidden",
		"DDP's gradient AllReduce runs after backward instead of during it: a large last bucket, "
		"find_unused_parameters=True, or hooks that delay the reduction",
		"use smaller buckets so that reduction starts during backward, and find_unused_parameters=False",
		"DDP(model, bucket_cap_mb=10, find_unused_parameters=False, gradient_as_bucket_view=True)",
		"ttrace does not check where backward ends: an AllReduce that is not DDP's (of metrics, a manual "
		"all_reduce) looks the same",
		AU_SHARE, TT_ADVICE_ALLREDUCE_EXPOSED_MAX, true },
	[ADV_LARGE_OTHER_SHARE] = {
		"large_other_share", "Large Other share", "Other share",
		"time of the steps when nothing the plugin knows runs: no kernel, copy, collective, runtime call, DataLoader "
		"or CPU operator (the TensorBoard plugin's Other)",
		"the steps, by their Other time",
		"Python code that launches nothing (data handling, logging, control flow), or time outside the operators "
		"the profiler records",
		"profile with Python stacks to see which code it is, then take it out of the step or vectorise it",
		"torch.profiler.profile(..., with_stack=True)   # python_function frames fill the gap",
		"the profiler's own overhead, or a deliberate wait (a sleep, a checkpoint writer) looks the same",
		AU_SHARE, TT_ADVICE_OTHER_MAX, true },
	[ADV_MEMORY_FRAGMENTATION] = {
		"memory_fragmentation", "Reserved memory far above allocated", "reserved but unallocated",
		"peak Total Reserved - peak Total Allocated of a device, as a share of the peak reserved ([memory] "
		"samples): memory the allocator holds beyond the most the program ever had allocated",
		"the sample at the peak reserved, with the operator running then",
		"the caching allocator holds freed blocks that do not fit new requests (tensor sizes that vary)",
		"let the allocator grow segments rather than split blocks, or free the cache between phases",
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # or torch.cuda.empty_cache() between phases",
		"the reserve is kept for the next step's peak and reused at once: it matters only when memory runs short",
		AU_SHARE, TT_ADVICE_FRAGMENTATION_MAX, true },
	[ADV_MEMORY_GROWTH] = {
		"memory_growth", "Allocated memory grows from step to step", "allocated memory growth per step",
		"memory allocated at the start of each step ([memory] samples), from the first step to the last, per step",
		"the steps, with the memory allocated at their start",
		"tensors are kept from step to step: a loss summed with its graph, outputs appended to a list, a growing "
		"cache",
		"keep detached values, or Python numbers, across steps",
		"running_loss += loss.detach()   # not loss; history.append(out.detach().cpu())",
		"the first steps fill caches that then stay (optimizer state, workspaces): a longer trace would show it "
		"flatten",
		AU_BYTES, 0, true },
	[ADV_MEMORY_NEAR_CAPACITY] = {
		"memory_near_capacity", "GPU memory nearly full", "peak reserved memory",
		"the largest Total Reserved of a device over its memory (deviceProperties totalGlobalMem)",
		"the sample at the peak",
		"the model, its activations and the allocator's cache nearly fill the GPU: a larger batch or a "
		"fragmentation spike runs out of memory",
		"cut activation memory (activation checkpointing, mixed precision) or the batch size",
		"torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)",
		"the allocator reserved memory it does not use (see memory_fragmentation); a server reserves it on purpose "
		"(vLLM's KV cache, gpu_memory_utilization); another process shares the GPU",
		AU_SHARE, TT_ADVICE_CAPACITY_MAX, true },
	[ADV_STRAGGLER] = {
		"straggler", "Straggler rank", "collectives the straggler arrived last at",
		"the share of the collectives seen on two ranks or more at which this rank started last (aligned clocks)",
		"the collectives it arrived last at, on its own timeline",
		"this rank has more work or runs slower: an uneven batch, data of another size, a slower or throttled GPU, "
		"a busier host",
		"balance the work across ranks (equal batches, drop the ragged last batch) and check the GPU's clocks and "
		"temperature",
		"DataLoader(ds, sampler=DistributedSampler(ds), drop_last=True)   # nvidia-smi -q -d PERFORMANCE",
		"the clocks are not aligned well (see the residual of --report=distributed), or the rank was late once "
		"for a one-off reason in the traced steps",
		AU_SHARE, TT_ADVICE_STRAGGLER_LAST_MIN, true },
	[ADV_ALL_RANKS_IDLE] = {
		"all_ranks_idle", "All ranks idle together", "time every rank's GPU is idle",
		"time in the ranks' common window when no rank runs a kernel, memcpy or memset (aligned clocks), over "
		"that window",
		"the longest such stretches, on the first rank's timeline",
		"every rank waits on its host at once: input pipeline, checkpointing, logging or evaluation in the step",
		"find the host work the ranks share in those stretches and overlap it with compute or move it out of the "
		"step",
		"DataLoader(ds, num_workers=8, pin_memory=True)   # and write checkpoints asynchronously",
		"the ranks' clocks are not aligned, or the traced windows of the ranks differ",
		AU_SHARE, TT_ADVICE_ALL_IDLE_MAX, true },
};
/* clang-format on */

const struct advice_rule_info *advice_rule_info(enum advice_rule r) { return &rules[r < ADV__COUNT ? r : 0]; }

const char *advice_confidence_key(enum advice_confidence c)
{
	return c == ADV_HIGH ? "high" : c == ADV_MEDIUM ? "medium" : "low";
}

bool advice_values_are_bytes(enum advice_rule r)
{
	return r == ADV_MEMORY_FRAGMENTATION || r == ADV_MEMORY_GROWTH || r == ADV_MEMORY_NEAR_CAPACITY;
}

const char *advice_figure_text(enum advice_unit u, double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (u == AU_SHARE)
		snprintf(buf, n, "%.1f%%", 100.0 * v);
	else if (u == AU_PERCENT)
		snprintf(buf, n, "%.1f%%", v);
	else
		timefmt_bytes(v, buf, n);
	return buf;
}
