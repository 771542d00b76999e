#!/usr/bin/env python3
"""gen-advice-fixtures.py: writes tests/fixtures/advice/*.json, one pair per rule of
--report=advice (src/advice.h): NAME-fire.json, where the rule must fire, and
NAME-quiet.json, where it must not. Times are in us; every trace has three steps of
1000 us (ProfilerStep#1..#3 on pid 1 tid 1) unless said otherwise, one A100-like device
(compute capability 8, 80 GB) and its kernels on stream 7. tests/advice.sh pins what each
one gives; the comments below say why.

Run from the top of the source tree: python3 tests/tools/gen-advice-fixtures.py
"""
import json
import os

OUT = os.path.join("tests", "fixtures", "advice")
STEP = 1000
NSTEPS = 3
DEVICE = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920,
          "computeMajor": 8, "computeMinor": 0, "numSms": 108, "maxThreadsPerMultiprocessor": 2048}


class Trace:
    def __init__(self, rank=None, world=None, device=None):
        self.ev = []
        self.corr = 0
        self.rank, self.world = rank, world
        self.device = DEVICE if device is None else device

    def x(self, cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def launch(self, name, cpu_ts, cpu_dur, gpu_ts, gpu_dur, cat="kernel", stream=7, call="cudaLaunchKernel",
               args=None, tid=1):
        """A runtime call on the CPU and the GPU operation it launched, linked by correlation."""
        self.corr += 1
        self.x("cuda_runtime", call, cpu_ts, cpu_dur, tid=tid, args={"correlation": self.corr})
        a = {"device": 0, "stream": stream, "correlation": self.corr}
        a.update(args or {})
        self.x(cat, name, gpu_ts, gpu_dur, pid=0, tid=stream, args=a)

    def steps(self, n=NSTEPS):
        for i in range(n):
            self.x("user_annotation", "ProfilerStep#%d" % (i + 1), i * STEP, STEP)

    def mem(self, ts, allocated, reserved, nbytes):
        self.ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
                        "ts": ts, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096 + ts, "Bytes": nbytes,
                                           "Total Allocated": allocated, "Total Reserved": reserved}})

    def write(self, name):
        doc = {"schemaVersion": 1, "deviceProperties": [self.device] if self.device else [], "traceEvents": self.ev}
        if self.rank is not None:
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": self.world}
        with open(os.path.join(OUT, name), "w") as f:
            f.write('{"schemaVersion": 1,\n"deviceProperties": %s,\n' % json.dumps(doc["deviceProperties"]))
            if "distributedInfo" in doc:
                f.write('"distributedInfo": %s,\n' % json.dumps(doc["distributedInfo"]))
            f.write('"traceEvents": [\n')
            f.write(",\n".join(json.dumps(e) for e in self.ev))
            f.write("\n]}\n")


def busy_host(t, s, a, b):
    """A CPU operator covering [a, b) of step s, so that the plugin's Other stays 0 there."""
    t.x("cpu_op", "aten::host_work", s + a, b - a)


def gen():
    os.makedirs(OUT, exist_ok=True)

    # low_gpu_utilization: one kernel of 300 us per 1000-us step (30%) / 900 us (90%).
    for name, k in (("low_gpu_utilization-fire.json", 300), ("low_gpu_utilization-quiet.json", 900)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, k)
        t.write(name)

    # low_gpu_utilization's cause must hold (issue 29): the same 30% utilization, but
    # - unrecorded: the kernels have no launch in the trace (no runtime call, no correlation),
    #   so what the GPU waits for is not in it: cause "not in the trace", confidence low;
    # - wait: the second kernel of each step is launched at its start (s + 3) but runs only
    #   at s + 700 (it waited on an event), so the GPU waits on a stream, not on the host;
    # - short: 100 kernels of 3 us, 10 us apart: the idle time is in gaps of 7 us.
    t = Trace()
    t.steps()
    for i in range(NSTEPS):
        s = i * STEP
        busy_host(t, s, 1, STEP - 1)
        t.x("kernel", "elementwise_kernel", s + 10, 300, pid=0, tid=7, args={"device": 0, "stream": 7})
    t.write("low_gpu_utilization-unrecorded.json")
    t = Trace()
    t.steps()
    for i in range(NSTEPS):
        s = i * STEP
        busy_host(t, s, 1, STEP - 1)
        t.launch("elementwise_kernel", s + 2, 1, s + 10, 150)
        t.launch("elementwise_kernel", s + 3, 1, s + 700, 150)
    t.write("low_gpu_utilization-wait.json")
    t = Trace()
    t.steps()
    for i in range(NSTEPS):
        s = i * STEP
        busy_host(t, s, 1, STEP - 1)
        for j in range(100):
            t.launch("tiny_kernel", s + 10 * j + 2, 8, s + 10 * j + 10, 3)
    t.write("low_gpu_utilization-short.json")

    # warm-up: a first step of 3000 us (cuDNN autotuning, lazy init: the host busy, one
    # 300-us kernel) before three steady steps of 1000 us with a 900-us kernel (90%). Over
    # all four steps utilization is 3000/6000 = 50% and low_gpu_utilization would fire; the
    # first step lasts 3x the median of the rest, so it is set aside and nothing fires.
    # warmup-mild: the first step lasts 1400 us (1.4x, under the 1.5x that makes warm-up)
    # with a 1260-us kernel: kept, and the window is all four steps.
    for name, first, k0 in (("warmup.json", 3000, 300), ("warmup-mild.json", 1400, 1260)):
        t = Trace()
        starts = [0, first, first + STEP, first + 2 * STEP]
        for i, s in enumerate(starts):
            d = first if i == 0 else STEP
            t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, d)
            busy_host(t, s, 1, d - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, k0 if i == 0 else 900)
        t.write(name)

    # dataloader_stall: a DataLoader __next__ of 200 us at each step's start with the GPU
    # idle (20% of the step) / of 20 us (2%), then the step's kernel.
    for name, dl in (("dataloader_stall-fire.json", 200), ("dataloader_stall-quiet.json", 20)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            t.x("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", s + 1, dl - 1)
            busy_host(t, s, dl, STEP - 1)
            t.launch("elementwise_kernel", s + dl + 1, 5, s + dl + 10, STEP - dl - 20)
        t.write(name)

    # host_sync: per step, "## metrics ##" > aten::is_nonzero > aten::item >
    # aten::_local_scalar_dense > cudaMemcpyAsync (a DtoH copy to pageable memory) and
    # cudaStreamSynchronize, 300 us; the step's kernel ends 50 us into it, so the GPU idles
    # 250 us inside (25% of the step). Quiet: the same calls while a kernel runs throughout.
    for name, kernel_after in (("host_sync-fire.json", 50), ("host_sync-quiet.json", 310)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            t.launch("elementwise_kernel", s + 2, 5, s + 10, 100 + kernel_after - 10)
            t.x("user_annotation", "## metrics ##", s + 100, 320)
            t.x("cpu_op", "aten::is_nonzero", s + 101, 310)
            t.x("cpu_op", "aten::item", s + 102, 305)
            t.x("cpu_op", "aten::_local_scalar_dense", s + 103, 300)
            t.launch("Memcpy DtoH (Device -> Pageable)", s + 104, 250, s + 100 + kernel_after, 2, cat="gpu_memcpy",
                     call="cudaMemcpyAsync", args={"bytes": 4})
            t.x("cuda_runtime", "cudaStreamSynchronize", s + 360, 40)
            busy_host(t, s, 430, STEP - 1)
            t.launch("elementwise_kernel", s + 440, 5, s + 450, 500)
        t.write(name)

    # pageable_memcpy: a 4 MB host-to-device copy of 100 us per step from pageable memory
    # (10% of the step) / from pinned memory.
    for name, kind in (("pageable_memcpy-fire.json", "Pageable"), ("pageable_memcpy-quiet.json", "Pinned")):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("Memcpy HtoD (%s -> Device)" % kind, s + 2, 100, s + 5, 100, cat="gpu_memcpy",
                     call="cudaMemcpyAsync", args={"bytes": 4194304})
            t.launch("elementwise_kernel", s + 110, 5, s + 120, 850)
        t.write(name)

    # launch_bound: per step 36 kernels of 5 us, each launched by a 15-us call that starts
    # 2 us after the previous kernel ended: the GPU idles 20 us before each (36 x 20 = 720
    # us, 72% of the step) and every kernel is shorter than its launch. Quiet: the same
    # kernels back to back, all launched at the step's start (the GPU never waits).
    for name, late in (("launch_bound-fire.json", True), ("launch_bound-quiet.json", False)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            for k in range(36):
                if late:
                    g = s + 20 + 25 * k
                    t.launch("tiny_kernel", g - 18, 15, g, 5)
                else:
                    g = s + 100 + 5 * k
                    t.launch("tiny_kernel", s + 2 + k, 1, g, 5)
            if not late:
                t.launch("elementwise_kernel", s + 50, 1, s + 280, 700)
        t.write(name)

    # tensor_cores_unused: an FP32 GEMM (volta_sgemm) of 500 us per step on a compute
    # capability 8 GPU (all kernel time) / an FP16 Tensor Core GEMM (h884 on the plugin's list).
    for name, k in (("tensor_cores_unused-fire.json", "volta_sgemm_128x64_nn"),
                    ("tensor_cores_unused-quiet.json", "volta_h884gemm_64x128_ldg8_nn")):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch(k, s + 2, 5, s + 10, 900)
        t.write(name)

    # tensor_cores_unused by kernel class (src/kernel_class.h), each kernel 900 us per step:
    # - mixed: an FFMA SGEMM of 300 us beside an FP8 nvjet GEMM of 600 us: fires (33%), but
    #   mixed precision is on: the cause says so and the confidence is medium;
    # - fp8: the FP8 nvjet GEMM alone: quiet (no "enable AMP" on an FP8 job);
    # - unknown: a GEMM whose name does not say its unit: quiet (never evidence);
    # - ffma-xmma: an FFMA xmma_gemm, which the plugin's list takes for Tensor Cores: fires.
    FP8 = "nvjet_sm90_qqtst_128x256_64x4_2x1_v_bz_coopA_TNT"
    FFMA = ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_"
            "execute_kernel__5x_cublas")
    for name, ks in (("tensor_cores_unused-mixed.json", ((FFMA, 300), (FP8, 600))),
                     ("tensor_cores_unused-fp8.json", ((FP8, 900),)),
                     ("tensor_cores_unused-unknown.json", (("my_fused_gemm_kernel", 900),)),
                     ("tensor_cores_unused-ffma-xmma.json", ((FFMA, 900),))):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            g = s + 10
            for j, (k, d) in enumerate(ks):
                t.launch(k, s + 2 + j, 1, g, d)
                g += d
        t.write(name)

    # low_occupancy: the one kernel runs at est. achieved occupancy 12% with 0.5 blocks per
    # SM / at 80% with 4 blocks per SM.
    for name, occ, bps in (("low_occupancy-fire.json", 12, 0.5), ("low_occupancy-quiet.json", 80, 4)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("my_kernel", s + 2, 5, s + 10, 900,
                     args={"est. achieved occupancy %": occ, "blocks per SM": bps, "grid": [54, 1, 1],
                           "block": [256, 1, 1]})
        t.write(name)

    # exposed_communication: a compute kernel [10, 600) then an AllGather on stream 20 of 300
    # us after it (30% of the step alone) / the AllGather inside the compute kernel's time.
    for name, at in (("exposed_communication-fire.json", 620), ("exposed_communication-quiet.json", 200)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, 590)
            t.x("user_annotation", "nccl:_all_gather_base", s + 8, 4)
            t.launch("ncclKernel_AllGather_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", s + 9, 2,
                     s + at, 300, stream=20)
        t.write(name)

    # allreduce_after_backward: DistributedDataParallel.forward, a backward kernel [10, 700),
    # then an AllReduce of 200 us at 720 (all of it exposed: 20% of the step) / an AllReduce at
    # 580 that the backward kernel hides for 120 of its 200 us (exposed 80 us: 40% of it, 8%
    # of the step: neither serialised nor over the communication threshold).
    for name, at in (("allreduce_after_backward-fire.json", 720), ("allreduce_after_backward-quiet.json", 580)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            t.x("user_annotation", "DistributedDataParallel.forward", s + 1, 8)
            busy_host(t, s, 9, STEP - 1)
            t.launch("elementwise_kernel_backward", s + 10, 5, s + 10, 690)
            t.launch("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", s + 20, 2,
                     s + at, 200, stream=20)
        t.write(name)

    # large_other_share: per step, CPU operators over [1, 600) only and a kernel over [10,
    # 510): nothing runs over [600, 1000), the plugin's Other, 40% of the step (fire) / the
    # kernel over [10, 910): Other is [910, 1000), 9% (quiet).
    for name, k in (("large_other_share-fire.json", 500), ("large_other_share-quiet.json", 900)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, 600)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, k)
        t.write(name)
    # large_other_share-no-ops: the fire timing, but the trace records no CPU operator (a
    # GPU-only or non-PyTorch trace): its Other is what the profiler did not record, not
    # code of the user's; the rule must not fire.
    t = Trace()
    t.steps()
    for i in range(NSTEPS):
        s = i * STEP
        t.launch("elementwise_kernel", s + 2, 5, s + 10, 500)
    t.write("large_other_share-no-ops.json")

    # memory_fragmentation: reserved peaks at 4 GiB while at most 1 GiB is ever allocated
    # (75% beyond) / reserved 1.125 GiB (11%).
    G = 1 << 30
    for name, res in (("memory_fragmentation-fire.json", 4 * G), ("memory_fragmentation-quiet.json", 9 * G // 8)):
        t = Trace()
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, 900)
            t.mem(s + 100, G, res, G // 2)
            t.mem(s + 900, G // 2, res, -(G // 2))
        t.write(name)

    # memory_growth: four steps; allocated at each step's start 1, 1.25, 1.5, 1.75 GiB
    # (a quarter GiB kept per step) / 1 GiB every step.
    for name, grow in (("memory_growth-fire.json", G // 4), ("memory_growth-quiet.json", 0)):
        t = Trace()
        t.steps(4)
        for i in range(4):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, 900)
            base = G + i * grow
            t.mem(s + 100, base + G // 2, 4 * G, G // 2)
            t.mem(s + 900, base + grow, 4 * G, grow - G // 2)
        t.ev.insert(0, {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
                        "ts": 0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 64, "Bytes": G,
                                          "Total Allocated": G, "Total Reserved": 4 * G}})
        t.write(name)

    # memory_near_capacity: an 8 GiB GPU whose allocator reserves 7.75 GiB (97%), nearly all
    # allocated / 4 GiB (50%).
    small = dict(DEVICE, totalGlobalMem=8 * G)
    for name, res in (("memory_near_capacity-fire.json", 31 * G // 4), ("memory_near_capacity-quiet.json", 4 * G)):
        t = Trace(device=small)
        t.steps()
        for i in range(NSTEPS):
            s = i * STEP
            busy_host(t, s, 1, STEP - 1)
            t.launch("elementwise_kernel", s + 2, 5, s + 10, 900)
            t.mem(s + 100, res - G // 4, res, G // 4)
            t.mem(s + 900, res - G // 2, res, -(G // 4))
        t.write(name)

    # straggler (three ranks): six AllReduces per trace, each ending at the same time on every
    # rank. Fire: rank 2 starts each 200 us after the others (last at all six). Quiet: the
    # late rank rotates, 0, 1, 2, 0, 1, 2 (each last at two of six: 33%).
    os.makedirs(os.path.join(OUT, "straggler-fire"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "straggler-quiet"), exist_ok=True)
    for sub, late_of in (("straggler-fire", lambda k: 2), ("straggler-quiet", lambda k: k % 3)):
        for r in range(3):
            t = Trace(rank=r, world=3)
            t.steps()
            for i in range(NSTEPS):
                s = i * STEP
                busy_host(t, s, 1, STEP - 1)
                for j in range(2):
                    k = 2 * i + j
                    end = s + 450 + 450 * j
                    start = end - (150 if late_of(k) == r else 350)
                    t.launch("elementwise_kernel", s + 2 + j, 1, start - 100 if j else s + 10, 90)
                    t.launch("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                             s + 5 + j, 2, start, end - start, stream=20)
            t.write(os.path.join(sub, "rank%d.json" % r))

    # all_ranks_idle (two ranks, compared on raw clocks): both run a kernel over [10, 700)
    # of each step, so both GPUs idle together over [700, 1010) (about 30%) / rank 1 runs
    # its kernel over [300, 1000) instead, and one GPU or the other is busy from 10 to 1000.
    for sub, r1 in (("all_ranks_idle-fire", 10), ("all_ranks_idle-quiet", 300)):
        os.makedirs(os.path.join(OUT, sub), exist_ok=True)
        for r in range(2):
            t = Trace(rank=r, world=2)
            t.steps()
            for i in range(NSTEPS):
                s = i * STEP
                busy_host(t, s, 1, STEP - 1)
                a = 10 if r == 0 else r1
                t.launch("elementwise_kernel", s + 2, 5, s + a, 690 if r == 0 or r1 == 10 else 700)
            t.write(os.path.join(sub, "rank%d.json" % r))


if __name__ == "__main__":
    gen()
