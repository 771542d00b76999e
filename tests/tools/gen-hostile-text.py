#!/usr/bin/env python3
# gen-hostile-text.py: writes tests/fixtures/hostile/text-rank0.json, rank 0 of a small Kineto
# trace whose every string (names, categories, args keys and values, metadata, header) carries
# terminal controls as JSON escapes, for tests/hostile_text.sh (which makes rank 1 from it, with
# the controls also as raw bytes). Run from tests/fixtures/hostile:
#   python3 ../../tools/gen-hostile-text.py
import json

# ESC sequences (OSC 0 title, OSC 52 clipboard, CSI), BEL, BS, DEL, C1 (NEL, CSI), bidi
H_ESC = (r"\u001b]0;PWNED\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u001b[31m\u0007\u0008\u007f"
         r"\u0085\u009b\u202e\u2066\u200f\u061c")
# short, for the collective kind ("AllReduce" + this, cut at the first '_')
K_ESC = r"\u001b]0;K\u0007\u0085\u202e"


def write(path, rank):
    def h(prefix=""):
        # a JSON string literal: PREFIX + the hostile text
        s = '"' + prefix.replace('"', '\\"') + H_ESC
        return s + '"'

    ev = []

    def X(name, cat, pid, tid, ts, dur, args=None, name_is_json=False):
        e = '{"ph": "X", "cat": %s, "name": %s, "pid": %s, "tid": %s, "ts": %s, "dur": %s' % (
            cat if cat.startswith('"') else json.dumps(cat), name if name_is_json else json.dumps(name),
            pid, tid, ts, dur)
        if args:
            e += ', "args": {' + ", ".join("%s: %s" % kv for kv in args) + "}"
        ev.append(e + "}")

    pid, tid, dev = 100 + rank, 200 + rank, 0
    hk, hv = h("key "), h("value ")
    # metadata
    ev.append('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": %s}}' % (pid, h("python ")))
    ev.append('{"ph": "M", "name": "process_labels", "pid": %d, "tid": 0, "args": {"labels": %s}}' % (pid, h("labels ")))
    ev.append('{"ph": "M", "name": "process_sort_index", "pid": %d, "tid": 0, "args": {"sort_index": 1}}' % pid)
    ev.append('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": %s}}' % (pid, tid, h("thread ")))
    ev.append('{"ph": "M", "name": "thread_sort_index", "pid": %d, "tid": %d, "args": {"sort_index": 2}}' % (pid, tid))
    ev.append('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": %s}}' % (dev, h("GPU 0 ")))
    ev.append('{"ph": "M", "name": "process_labels", "pid": %d, "tid": 0, "args": {"labels": %s}}' % (dev, h("GPU labels ")))
    ev.append('{"ph": "M", "name": "thread_name", "pid": %d, "tid": 7, "args": {"name": %s}}' % (dev, h("stream 7 ")))
    ev.append('{"ph": "M", "name": "thread_name", "pid": %d, "tid": 20, "args": {"name": %s}}' % (dev, h("stream 20 ")))
    # CPU side: a step, operators, launches (µs)
    X("ProfilerStep#1", "user_annotation", pid, tid, 1000, 3000, [(hk, hv)])
    X(h("aten::mm "), "cpu_op", pid, tid, 1010, 100,
      [('"External id"', 5), ('"Input dims"', "[[4, 4], [4, 4]]"), ('"Input type"', "[%s]" % hv), (hk, hv)], True)
    X("cudaLaunchKernel", "cuda_runtime", pid, tid, 1050, 20, [('"correlation"', 11), ('"External id"', 5), (hk, hv)])
    X(h("aten::copy_ "), "cpu_op", pid, tid, 1200, 100, [('"External id"', 6), (hk, hv)], True)
    X("cudaMemcpyAsync", "cuda_runtime", pid, tid, 1210, 30, [('"correlation"', 12), ('"External id"', 6)])
    X(h("nccl:all_reduce "), "cpu_op", pid, tid, 1400, 100, [('"External id"', 7)], True)
    X("cudaLaunchKernel", "cuda_runtime", pid, tid, 1410, 20, [('"correlation"', 13), ('"External id"', 7)])
    X(h("Optimizer.step "), "user_annotation", pid, tid, 1600, 1500, [(hk, hv)], True)
    X(h("aten::add_ "), "cpu_op", pid, tid, 2900, 100, [('"External id"', 8)], True)
    X("cudaLaunchKernel", "cuda_runtime", pid, tid, 2950, 20, [('"correlation"', 14), ('"External id"', 8)])
    X(h("hostile category "), h("cat "), pid, tid, 3100, 10, [(hk, hv)], True)
    # GPU side: kernels on stream 7, a memcpy, an NCCL kernel on stream 20
    X(h("void gemm_kernel<float> "), "kernel", dev, 7, 1100, 300,
      [('"device"', 0), ('"stream"', 7), ('"correlation"', 11), ('"External id"', 5), ('"grid"', "[1, 1, 1]"),
       ('"block"', "[128, 1, 1]"), (hk, hv)], True)
    X(h("Memcpy HtoD (Pageable -> Device) "), "gpu_memcpy", dev, 7, 1450, 50,
      [('"device"', 0), ('"stream"', 7), ('"correlation"', 12), ('"bytes"', 4096)], True)
    X('"ncclKernel_AllReduce%s_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"' % K_ESC, "kernel", dev, 20,
      1440 + 5 * rank, 200, [('"device"', 0), ('"stream"', 20), ('"correlation"', 13), ('"Process Group Name"', h("pg "))],
      True)
    X(h("void add_kernel "), "kernel", dev, 7, 3000, 500,
      [('"device"', 0), ('"stream"', 7), ('"correlation"', 14), (hk, hv)], True)
    # flows: launch -> kernel
    for i, (ts0, ts1, cat) in enumerate([(1050, 1100, '"ac2g"'), (2950, 3000, h("flow "))]):
        ev.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %d, "cat": %s, "name": %s}' % (
            11 + 3 * i, pid, tid, ts0, cat, h("flow ")))
        ev.append('{"ph": "f", "id": %d, "pid": %d, "tid": 7, "ts": %d, "cat": %s, "name": %s, "bp": "e"}' % (
            11 + 3 * i, dev, ts1, cat, h("flow ")))
    # begin/end, an unclosed begin, an instant, a counter, an event with no ts, string pid/tid
    ev.append('{"ph": "B", "pid": %d, "tid": %d, "ts": 3200, "cat": "user_annotation", "name": %s}' % (pid, tid, h("B ")))
    ev.append('{"ph": "E", "pid": %d, "tid": %d, "ts": 3210}' % (pid, tid))
    ev.append('{"ph": "B", "pid": %d, "tid": %d, "ts": 3300, "cat": "user_annotation", "name": %s}' % (pid, tid, h("open ")))
    ev.append('{"ph": "i", "s": "t", "pid": %d, "tid": %d, "ts": 3400, "name": %s, "args": {%s: %s}}' % (pid, tid, h("instant "), hk, hv))
    ev.append('{"ph": "C", "pid": %d, "tid": 0, "ts": 3500, "name": %s, "args": {%s: 5}}' % (pid, h("counter "), hk))
    ev.append('{"ph": "X", "pid": %d, "tid": %d, "dur": 5, "cat": "cpu_op", "name": %s}' % (pid, tid, h("no ts ")))
    ev.append('{"ph": "X", "pid": %s, "tid": %s, "ts": 3600, "dur": 5, "cat": "cpu_op", "name": %s}' % (
        h("pid "), h("tid "), h("string ids ")))
    ev.append('{"ph": "X", "cat": "Trace", "name": %s, "pid": %s, "tid": %s, "ts": 900, "dur": 3000, "args": {%s: %s}}' % (
        h("PyTorch Profiler "), h("Spans"), h("PyTorch Profiler"), hk, hv))

    header = [
        ('"schemaVersion"', "1"),
        ('"deviceProperties"', '[{"id": 0, "name": %s, "totalGlobalMem": 42297524224, "computeMajor": 8, '
                               '"computeMinor": 0, "numSms": 108, "maxThreadsPerMultiprocessor": 2048}]' % h("NVIDIA A100 ")),
        ('"distributedInfo"', '{"backend": %s, "rank": %d, "world_size": 2, "pg_count": 1, "nccl_version": %s}' % (
            h("nccl"), rank, h("2.18 "))),
        ('"traceName"', h("trace ")),
        (h("header key "), h("header value ")),
        ('"displayTimeUnit"', '"ms"'),
    ]
    text = "{\n" + "".join("  %s: %s,\n" % kv for kv in header)
    text += '  "traceEvents": [\n    ' + ",\n    ".join(ev) + "\n  ],\n"
    text += '  "baseTimeNanoseconds": 1700000000000000000,\n'
    text += '  "traceEnd": 4000\n}\n'
    with open(path, "w") as f:
        f.write(text)


write("text-rank0.json", 0)
