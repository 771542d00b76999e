#!/usr/bin/env python3
"""gen-diff-fixtures.py: writes tests/fixtures/diff/*.json, for tests/diff.sh: a run before
(before.json) and after (after.json) a change whose every difference is known. Times in us;
steps are ProfilerStep#1..#4 on pid 1 tid 1; kernels on stream 7 of device 0.

before.json, on an A100, four steps of 900 + j us, j = 0, 4, 8, 12 (the spread of the
step times is 12 us), each:
  - a DataLoader __next__ over [1, 201) with the GPU idle (the DataLoader stall);
  - aten::slow_op launching slow_kernel, 300 us, at 220;
  - ten aten::add, each launching the elementwise add kernel ADD (10 us) from 520, 12 us apart;
  - aten::mm launching the GEMM kernel GEMM, 200 + j us, at 640.
after.json, on an H100, four steps of 600 + j us, each:
  - a DataLoader __next__ over [1, 21) (the stall is gone);
  - aten::slow_op launching slow_kernel, now 150 us, at 40;
  - one aten::add launching the fused Triton kernel FUSED (30 us) at 192: the ten ADD
    kernels are gone (elementwise: 100 us and 10 launches per step become 30 us and 1);
  - aten::mm launching GEMM, 203 + j us, at 225: 3 us slower, within the 12-us spread
    (noise).
after-2steps.json: after.json's first two steps only (no spread to judge by).
slow-step.json: before.json, but step 3's DataLoader stall lasts 700 us (500 us more, the
step too): diff --steps compares step #3 (the slowest, 1408 us) with step #2 (the median
by duration, the lower middle of 900, 904, 912, 1408), each figure against the other
steps' min-max (900..912: 12 us).
shapes-64.json, shapes-32.json: three steps of an aten::linear recorded with its input
shapes (record_shapes=True), batch 64 / batch 32: the diff says the input shapes differ.

Run from the top of the source tree: python3 tests/tools/gen-diff-fixtures.py
"""
import json
import os

OUT = os.path.join("tests", "fixtures", "diff")
A100 = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920, "computeMajor": 8,
        "computeMinor": 0, "numSms": 108, "maxThreadsPerMultiprocessor": 2048}
H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984, "computeMajor": 9,
        "computeMinor": 0, "numSms": 132, "maxThreadsPerMultiprocessor": 2048}
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, " \
      "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add<float>, at::detail::Array<char*, 2>)"
FUSED = "triton_poi_fused_add_0"
GEMM = "ampere_sgemm_128x64_nn"
JITTER = (0, 4, 8, 12)


class Trace:
    def __init__(self, device):
        self.ev = []
        self.corr = 0
        self.device = device

    def x(self, cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def op_launch(self, op, ts, kernel, gts, gdur):
        """Operator OP over [ts, ts + 2) launching KERNEL at gts for gdur."""
        self.corr += 1
        self.x("cpu_op", op, ts, 2)
        self.x("cuda_runtime", "cudaLaunchKernel", ts + 0.5, 1, args={"correlation": self.corr})
        self.x("kernel", kernel, gts, gdur, pid=0, tid=7,
               args={"device": 0, "stream": 7, "correlation": self.corr})

    def write(self, name):
        with open(os.path.join(OUT, name), "w") as f:
            f.write('{"schemaVersion": 1,\n"deviceProperties": [%s],\n"traceEvents": [\n' % json.dumps(self.device))
            f.write(",\n".join(json.dumps(e) for e in self.ev))
            f.write("\n]}\n")


def run(after, nsteps=4, slow_step=-1):
    t = Trace(H100 if after else A100)
    s = 0
    for i in range(nsteps):
        j = JITTER[i]
        extra = 500 if i == slow_step else 0
        length = (600 if after else 900) + j + extra
        t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, length)
        t.x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s + 1,
            20 if after else 200 + extra)
        s += extra
        if after:
            t.op_launch("aten::slow_op", s + 25, "slow_kernel", s + 40, 150)
            t.op_launch("aten::add", s + 30, FUSED, s + 192, 30)
            t.op_launch("aten::mm", s + 35, GEMM, s + 225, 203 + j)
        else:
            t.op_launch("aten::slow_op", s + 205, "slow_kernel", s + 220, 300)
            for k in range(10):
                t.op_launch("aten::add", s + 210 + 2.5 * k, ADD, s + 520 + 12 * k, 10)
            t.op_launch("aten::mm", s + 240, GEMM, s + 640, 200 + j)
        s += length - extra
    return t


def shapes(batch):
    t = Trace(A100)
    for i in range(3):
        s = i * 1000
        t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, 1000)
        t.corr += 1
        t.x("cpu_op", "aten::linear", s + 10, 20,
            args={"Input Dims": [[batch, 1024], [1024, 1024], [1024]], "Input type": ["float", "float", "float"]})
        t.x("cuda_runtime", "cudaLaunchKernel", s + 12, 5, args={"correlation": t.corr})
        t.x("kernel", GEMM, s + 40, 10 * batch, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": t.corr})
    return t


def gen():
    os.makedirs(OUT, exist_ok=True)
    run(False).write("before.json")
    run(True).write("after.json")
    run(True, 2).write("after-2steps.json")
    run(False, slow_step=2).write("slow-step.json")
    shapes(64).write("shapes-64.json")
    shapes(32).write("shapes-32.json")


if __name__ == "__main__":
    gen()
