#!/usr/bin/env python3
"""gen-straggler-fixtures.py: writes tests/fixtures/stragglers/CASE/rank{0,1,2}.json, three
ranks of one job (distributedInfo, NCCL) in which rank 2 is late at every collective, each
case for another reason (src/straggler.h): dataloader, compute, host-sync, slower-gpu, and
unknown (nothing in its trace explains it). tests/stragglers.sh pins what each one gives.

Every rank runs four steps of 2000 us (ProfilerStep#1..#4 on pid 1 tid 1). In step k
(S = 2000 k): a DataLoader __next__ from S+10 (50 us), then on stream 7 two gemms
(grid 128, 200 us each) and two elementwise kernels (50 us each) back to back from 20 us
after the DataLoader, so an on-time rank arrives at S+580 at its AllReduce on stream 20.
Every rank's AllReduce ends 100 us after the last rank arrives (the transfer); an
optimizer kernel runs on stream 7 over the first 40 us of that transfer on every rank.
So on an on-time rank each collective is: wait (its arrival to the last arrival, no
compute under it), then 100 us of transfer of which 40 us is hidden by compute. Rank 2 is
400 us late (350 us for dataloader), by:
  dataloader  its DataLoader __next__ takes 400 us, not 50;
  compute     its gemms have grid 256 and take 400 us each (a larger batch: other kernels);
  host-sync   after its kernels, an aten::item (a cudaStreamSynchronize inside) of 400 us
              with its GPU idle;
  slower-gpu  every kernel of its takes 1.8x as long, with the same grid and block
              (gemm 360 us, elementwise 90 us: 400 us more);
  unknown     its host does nothing recorded for 400 us before launching the AllReduce.
Rank 1's clock runs 5 ms ahead (every ts + 5000): alignment on the collectives removes it.

Run from the top of the source tree: python3 tests/tools/gen-straggler-fixtures.py
"""
import json
import os

OUT = os.path.join("tests", "fixtures", "stragglers")
STEP = 2000
NSTEPS = 4
LATE = 2
DEVICE = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920,
          "computeMajor": 8, "computeMinor": 0, "numSms": 108, "maxThreadsPerMultiprocessor": 2048}
ALLREDUCE = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
DL = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


class Trace:
    def __init__(self, rank, shift):
        self.ev = []
        self.corr = 0
        self.rank, self.shift = rank, shift

    def x(self, cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts + self.shift, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def launch(self, name, gpu_ts, gpu_dur, stream=7, grid=None):
        """A cudaLaunchKernel 15 us before the kernel, linked by correlation."""
        self.corr += 1
        self.x("cuda_runtime", "cudaLaunchKernel", gpu_ts - 15, 5, args={"correlation": self.corr})
        a = {"device": 0, "stream": stream, "correlation": self.corr}
        if grid is not None:
            a["grid"] = [grid, 1, 1]
            a["block"] = [256, 1, 1]
        self.x("kernel", name, gpu_ts, gpu_dur, pid=0, tid=stream, args=a)

    def write(self, path):
        with open(path, "w") as f:
            f.write('{"schemaVersion": 1,\n"deviceProperties": %s,\n' % json.dumps([DEVICE]))
            f.write('"distributedInfo": %s,\n' % json.dumps({"backend": "nccl", "rank": self.rank, "world_size": 3}))
            f.write('"traceEvents": [\n')
            f.write(",\n".join(json.dumps(e) for e in self.ev))
            f.write("\n]}\n")


def arrival(case, r, s):
    """Where rank R's work of step S ends (its arrival at the AllReduce), writing nothing."""
    late = r == LATE
    dl = 400 if late and case == "dataloader" else 50
    t = s + 10 + dl + 20
    gemm = 400 if late and case == "compute" else 360 if late and case == "slower-gpu" else 200
    elem = 90 if late and case == "slower-gpu" else 50
    t += 2 * gemm + 2 * elem
    if late and case in ("host-sync", "unknown"):
        t += 400
    return t


def rank_trace(case, r):
    t = Trace(r, 5000 if r == 1 else 0)
    late = r == LATE
    for k in range(NSTEPS):
        s = k * STEP
        t.x("user_annotation", "ProfilerStep#%d" % (k + 1), s, STEP)
        dl = 400 if late and case == "dataloader" else 50
        t.x("user_annotation", DL, s + 10, dl)
        g = s + 10 + dl + 20
        gemm = 400 if late and case == "compute" else 360 if late and case == "slower-gpu" else 200
        grid = 256 if late and case == "compute" else 128
        elem = 90 if late and case == "slower-gpu" else 50
        for _ in range(2):
            t.launch("ampere_sgemm_128x64_nn", g, gemm, grid=grid)
            g += gemm
        for _ in range(2):
            t.launch("elementwise_kernel", g, elem, grid=512)
            g += elem
        if late and case == "host-sync":
            t.x("cpu_op", "aten::item", g, 400)
            t.x("cpu_op", "aten::_local_scalar_dense", g + 2, 396)
            t.x("cuda_runtime", "cudaStreamSynchronize", g + 5, 390)
            g += 400
        elif late and case == "unknown":
            g += 400
        assert g == arrival(case, r, s)
        last = max(arrival(case, q, s) for q in range(3))
        t.launch(ALLREDUCE, g, last + 100 - g, stream=20)
        t.launch("sgd_update_kernel", last, 40, grid=64)
    return t


def gen():
    for case in ("dataloader", "compute", "host-sync", "slower-gpu", "unknown"):
        d = os.path.join(OUT, case)
        os.makedirs(d, exist_ok=True)
        for r in range(3):
            rank_trace(case, r).write(os.path.join(d, "rank%d.json" % r))


if __name__ == "__main__":
    gen()
