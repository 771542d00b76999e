#!/usr/bin/env python3
"""gen-compiled-fixtures.py: writes tests/fixtures/compiled/*.json, for tests/compiled.sh:
a torch.compile'd model launching Triton kernels through inductor's launcher frames, an
eager model with the same timing, and a compiled model that replays a CUDA graph then runs
eager operators. Times in us; three steps of 1000 us (ProfilerStep#1..#3, pid 1 tid 1),
one A100-like device, kernels on stream 7. Every step is launch-bound as in
tests/fixtures/advice/launch_bound-fire.json: 36 kernels of 5 us, each launched by a
15-us call that starts 2 us after the previous kernel ended.

Run from the top of the source tree: python3 tests/tools/gen-compiled-fixtures.py
"""
import json
import os

OUT = os.path.join("tests", "fixtures", "compiled")
STEP = 1000
DEVICE = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920,
          "computeMajor": 8, "computeMinor": 0, "numSms": 108, "maxThreadsPerMultiprocessor": 2048}


class Trace:
    def __init__(self):
        self.ev = []
        self.corr = 0

    def x(self, cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def launch(self, kernels, cpu_ts, cpu_dur, call, cat="cuda_runtime"):
        """A runtime call and the kernels (name, gpu_ts, gpu_dur) it launched, by correlation."""
        self.corr += 1
        self.x(cat, call, cpu_ts, cpu_dur, args={"correlation": self.corr})
        for name, ts, dur in kernels:
            self.x("kernel", name, ts, dur, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": self.corr})

    def write(self, name):
        with open(os.path.join(OUT, name), "w") as f:
            f.write('{"schemaVersion": 1,\n"deviceProperties": [%s],\n"traceEvents": [\n' % json.dumps(DEVICE))
            f.write(",\n".join(json.dumps(e) for e in self.ev))
            f.write("\n]}\n")


def triton_launch(t, name, g):
    """Inductor's launch of Triton kernel NAME running at g: the heuristics' run, the
    kernel's record_function, the launcher's Python, cuLaunchKernel."""
    t.x("python_function", "torch/_inductor/runtime/triton_heuristics.py(1242): run", g - 20, 19.5)
    t.x("cpu_op", name, g - 19.8, 19)
    t.x("python_function", "<built-in function _launch_kernel>", g - 19.5, 18)
    t.launch([(name, g, 5)], g - 18, 15, "cuLaunchKernel", cat="cuda_driver")


ATEN_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)")


def eager_launch(t, g, kernel="elementwise_kernel"):
    t.x("python_function", "model.py(12): forward", g - 20, 19.5)
    t.x("cpu_op", "aten::add", g - 19.5, 18)
    t.launch([(kernel, g, 5)], g - 18, 15, "cudaLaunchKernel")


def compiled_step(t, i):
    """Step I of the compiled fixtures: its annotation, the compiled region and its
    CompiledFunction; returns where the step starts."""
    s = i * STEP
    t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, STEP)
    t.x("cpu_op", "Torch-Compiled Region: 0/0", s + 1, 998)
    t.x("cpu_op", "CompiledFunction", s + 1.5, 997)
    return s


def gen():
    os.makedirs(OUT, exist_ok=True)

    # compiled-launch: the compiled region covers each step; its first 18 kernels
    # (triton_poi_fused_add_0) run inside the "## Call CompiledFxGraph ##" annotation, the
    # other 18 (triton_red_fused_sum_1) directly under CompiledFunction.
    t = Trace()
    for i in range(3):
        s = compiled_step(t, i)
        t.x("user_annotation", "## Call CompiledFxGraph fx1 ##", s + 1.8, 20 + 25 * 17 + 2)
        for k in range(36):
            triton_launch(t, "triton_poi_fused_add_0" if k < 18 else "triton_red_fused_sum_1", s + 20 + 25 * k)
    t.write("compiled-launch.json")

    # compiled-aten: compiled regions cover each step, as in compiled-launch, but the graphs
    # run ATen's own kernels (a backend without code generation, such as aot_eager): no
    # Triton kernel, each aten::add's at::native kernel launched from the host under
    # CompiledFunction. compiled-nvfuser: the same, but the kernels are another code
    # generator's fused ones (nvFuser's CudaCodeGen::kernelN), not ATen's.
    for name, kernel in (("compiled-aten.json", ATEN_ADD), ("compiled-nvfuser.json", "CudaCodeGen::kernel1(float*)")):
        t = Trace()
        for i in range(3):
            s = compiled_step(t, i)
            for k in range(36):
                eager_launch(t, s + 20 + 25 * k, kernel)
        t.write(name)

    # eager-launch: the same timing, each kernel launched by aten::add under a Python frame.
    t = Trace()
    for i in range(3):
        s = i * STEP
        t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, STEP)
        for k in range(36):
            eager_launch(t, s + 20 + 25 * k)
    t.write("eager-launch.json")

    # mostly-eager / partly-compiled: the eager timing, but in each step the first kernel
    # (1 of 36, 2.8% of the kernel time) / the first 12 (a third) are Triton kernels launched
    # by a compiled region: "compiled" is the share of the GPU work compiled code launches,
    # not one compiled region in an eager job.
    for name, ncompiled in (("mostly-eager.json", 1), ("partly-compiled.json", 12)):
        t = Trace()
        for i in range(3):
            s = i * STEP
            t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, STEP)
            t.x("cpu_op", "Torch-Compiled Region: 0/0", s + 1, 25 * ncompiled + 5)
            for k in range(36):
                if k < ncompiled:
                    triton_launch(t, "triton_poi_fused_add_0", s + 30 + 25 * k)
                else:
                    eager_launch(t, s + 30 + 25 * k)
        t.write(name)

    # graph-replay: each step replays a CUDA graph captured by inductor (3 Triton kernels
    # launched by one cudaGraphLaunch, under the compiled region and CUDA graph Python),
    # then runs 30 eager launch-bound aten::add kernels (the graph break's work).
    t = Trace()
    for i in range(3):
        s = i * STEP
        t.x("user_annotation", "ProfilerStep#%d" % (i + 1), s, STEP)
        t.x("cpu_op", "Torch-Compiled Region: 1/0", s + 1, 60)
        t.x("user_annotation", "## Call CompiledFxGraph fx2 ##", s + 2, 58)
        t.x("python_function", "torch/_inductor/cudagraph_trees.py(1219): run_graph", s + 3, 56)
        t.x("python_function", "torch/cuda/graphs.py(139): replay", s + 4, 54)
        t.x("python_function", "<built-in method replay of PyCapsule object at 0x7f>", s + 5, 52)
        t.launch([("triton_poi_graph_0", s + 20, 30), ("triton_per_graph_1", s + 51, 30),
                  ("triton_red_graph_2", s + 82, 30)], s + 6, 50, "cudaGraphLaunch")
        for k in range(30):
            eager_launch(t, s + 150 + 25 * k)
    t.write("graph-replay.json")


if __name__ == "__main__":
    gen()
