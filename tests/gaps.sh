#!/bin/sh
# gaps.sh: gap hunting on traces whose gaps and causes are known exactly, the
# TensorBoard plugin's utilization on the shared traces (when present), and a generated
# trace with injected DataLoader stalls.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/gaps/causes.json"
g() { "$TTRACE" --report=gaps --json --gap-min=30us "$F" 2>/dev/null | "$JSONQ" "$@"; }
"$TTRACE" --report=gaps --json --gap-min=30us "$F" >"$TMP/g.json"
q() { "$JSONQ" "$@" <"$TMP/g.json"; }

# Worked by hand: kernels 90+100+100+50+50 = 390 us in the step [0, 1000] us.
is "$(q files.0.devices.0.gpu_utilization.kernel_busy_ns)" 390000 "kernel time inside the step"
is "$(q files.0.devices.0.gpu_utilization.value)" 0.39 "GPU utilization 39% (TensorBoard plugin's definition)"
is "$(q files.0.devices.0.busy_ns)" 400000 "busy with the memcpy: 400 us"
is "$(q files.0.devices.0.idle_ns)" 600000 "idle 600 us"
is "$(q files.0.gaps.#)" 6 "six gaps of 30 us or more"
# The causes by the rules of ttrace(1), GAP CAUSES: the cudaStreamSynchronize [380,405) covers
# 5 us of the gap [400,500), less than half: no host sync; nothing else covers it on the
# launching thread (no CPU activity recorded). aten::conv2d [740,840) covers 90 us of [750,850)
# while the launch came at 841: CPU work, not launch-bound (the launch calls cover 0 us of it).
for c in "dataloader 200000" "sync 0" "wait 100000" "launch 0" "cpu_work 100000" "no_cpu_activity 100000" "pageable_copy 50000" "other 40000"; do
	set -- $c
	is "$(q files.0.devices.0.idle_by_cause_ns.$1)" "$2" "idle by cause: $1 $2 ns"
done
is "$(q files.0.gaps.0.cause files.0.gaps.0.start_ns files.0.gaps.0.dur_ns | tr '\n' ' ')" "dataloader 100000 200000 " "the longest gap is the DataLoader's, at 100 us for 200 us"
is "$(q files.0.gaps.0.cpu_slice.name)" "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" "and names the __next__ call"
is "$(q files.0.gaps.0.next_gpu_op.name)" "k2" "the next GPU op is k2"
for i in 1 2 3 4 5; do
	set -- $(q files.0.gaps.$i.start_ns files.0.gaps.$i.cause files.0.gaps.$i.cpu_slice.name 2>/dev/null | tr '\n' ' ')
	case "$1" in
	400000) is "$2" "no_cpu_activity" "gap at 400 us: the sync covers too little of it; nothing else does" ;;
	600000) is "$2 $3" "wait cudaStreamWaitEvent" "gap at 600 us: stream wait, cudaStreamWaitEvent" ;;
	750000) is "$2 $3" "cpu_work aten::conv2d" "gap at 750 us: CPU work in aten::conv2d" ;;
	900000) is "$2 $3" "pageable_copy cudaMemcpyAsync" "gap at 900 us: a pageable H2D copy" ;;
	960000) is "$2" "other" "gap at 960 us (to the step's end): other" ;;
	*) ok 1 "unexpected gap at $1" ;;
	esac
done
is "$(q files.0.gaps.1.hta_class)" "host_wait" "HTA class of the gap at 400 us: host wait"

# ---- rules.json: one gap per rule, worked by hand (us; step [0,1000), gaps of 100 us) -------
# [10,110) a cudaDeviceSynchronize on thread "other" [0,100) covers 90: host sync (no operator).
# [120,220) aten::to > aten::copy_ > cudaMemcpyAsync [117,213) whose copy is "Memcpy DtoH (Device
#   -> Pageable)": a blocking copy, host sync, made by aten::to.
# [222,322) a cudaStreamSynchronize on "other" [300,330) covers 22: not a sync; the launch at 318
#   is on "main", where python_function [225,318) holds aten::cat [240,300): the deepest frame
#   covering 50 us or more is aten::cat: CPU work.
# [330,430) enumerate(DataLoader)...__next__ [328,425): data loading.
# [440,540) the launch of k5 is a cudaLaunchKernel [441,535) that covers 94: launch-bound.
# [550,650) k6 was launched at 545, before the gap: a wait; the cudaStreamWaitEvent at 552 named.
# [660,760) launched at 755; on "main" only ProfilerStep#1 covers it: no CPU activity recorded.
# [770,870) the next operation is "Memcpy HtoD (Pageable -> Device)" and its cudaMemcpyAsync
#   [800,862) covers 62 us of the gap, half or more: pageable H2D copy.
"$TTRACE" --report=gaps --json --gap-min=30us "$srcdir/tests/fixtures/gaps/rules.json" >"$TMP/r.json"
rq() { "$JSONQ" "$@" <"$TMP/r.json" | tr '\n' ' '; }
is "$(rq files.0.gaps.#)" "8 " "rules.json: eight gaps"
for i in 0 1 2 3 4 5 6 7; do
	set -- $(rq files.0.gaps.$i.start_ns files.0.gaps.$i.cause files.0.gaps.$i.cpu_slice.name files.0.gaps.$i.op.name)
	case "$1" in
	10000) is "$2 $3 $4" "sync cudaDeviceSynchronize "  "10 us: a sync on another thread covers the gap" ;;
	120000) is "$2 $3 $4" "sync cudaMemcpyAsync aten::to" "120 us: a copy into pageable memory blocks, made by aten::to" ;;
	222000) is "$2 $3" "cpu_work aten::cat" "222 us: the deepest frame covering the gap, not the short sync elsewhere" ;;
	330000) is "$2" "dataloader" "330 us: data loading" ;;
	440000) is "$2 $3" "launch cudaLaunchKernel" "440 us: the launch call itself takes the gap" ;;
	550000) is "$2 $3" "wait cudaStreamWaitEvent" "550 us: launched before the gap, it waited" ;;
	660000) is "$2 $3" "no_cpu_activity " "660 us: only the step covers it: no CPU activity recorded" ;;
	770000) is "$2 $3" "pageable_copy cudaMemcpyAsync" "770 us: a host-to-device copy from pageable memory" ;;
	*) ok 1 "rules.json: unexpected gap at $1" ;;
	esac
done
is "$(rq files.0.gaps.0.rule | cut -c1-16)" "a blocking call " "each gap states its rule"
# A cause must hold for at least half of the gap: a pageable copy whose call covers 2 us of a
# 100-us gap [100,200) is what came next, not why the GPU waited (the launching thread's
# aten::index [105,195) covers it: CPU work).
cat >"$TMP/pageable-short.json" <<'EOF2'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 300},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 5, "dur": 95, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::index", "pid": 1, "tid": 1, "ts": 105, "dur": 90},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 196, "dur": 2, "args": {"correlation": 2}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 200, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 2, "bytes": 64}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 199, "dur": 1, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 205, "dur": 95, "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
EOF2
"$TTRACE" --report=gaps --json --gap-min=30us "$TMP/pageable-short.json" >"$TMP/ps.json"
is "$("$JSONQ" files.0.gaps.0.start_ns files.0.gaps.0.cause files.0.gaps.0.cpu_slice.name <"$TMP/ps.json" | tr '\n' ' ')" \
	"100000 cpu_work aten::index " "a pageable copy whose call covers 2% of the gap is not its cause: the CPU work that covers it is"
# When host code covers a gap, the user's line is named: the deepest Python frame outside
# torch/, other installed libraries (numpy/ here) and the standard library.
cat >"$TMP/user.json" <<'EOF2'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 300},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 5, "dur": 95, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "python_function", "name": "train.py(42): train_step", "pid": 1, "tid": 1, "ts": 101, "dur": 98},
{"ph": "X", "cat": "python_function", "name": "mymodel/augment.py(17): jitter", "pid": 1, "tid": 1, "ts": 102, "dur": 96},
{"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1743): _call_impl", "pid": 1, "tid": 1, "ts": 103, "dur": 94},
{"ph": "X", "cat": "python_function", "name": "contextlib.py(141): __exit__", "pid": 1, "tid": 1, "ts": 103, "dur": 93},
{"ph": "X", "cat": "python_function", "name": "numpy/lib/function_base.py(348): iterable", "pid": 1, "tid": 1, "ts": 104, "dur": 92},
{"ph": "X", "cat": "cpu_op", "name": "aten::index", "pid": 1, "tid": 1, "ts": 105, "dur": 90},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 199, "dur": 1, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 205, "dur": 95, "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
EOF2
"$TTRACE" --report=gaps --json --gap-min=30us "$TMP/user.json" >"$TMP/u.json"
is "$("$JSONQ" files.0.gaps.0.cause files.0.gaps.0.cpu_slice.name files.0.gaps.0.user_frame <"$TMP/u.json" | tr '\n' '|')" \
	"cpu_work|aten::index|mymodel/augment.py(17): jitter|" "the user's line: the deepest frame outside torch/, numpy/ and the standard library"
like "$("$TTRACE" --dump-screen --size=160x30 --keys=g "$TMP/user.json")" \
	"CPU work: aten::index, your code: mymodel/augment.py(17): jitter" "the timeline's gap key says it too"
is "$("$JSONQ" files.0.gaps.0.user_chain <"$TMP/u.json")" \
	"mymodel/augment.py(17): jitter > torch/nn/modules/module.py(1743): _call_impl > contextlib.py(141): __exit__ > numpy/lib/function_base.py(348): iterable > aten::index" \
	"the library chain under the user's line, down to the CPU slice"
like "$("$TTRACE" --dump-screen --size=200x30 --keys=g "$TMP/user.json")" \
	"your code: mymodel/augment.py(17): jitter > torch/nn/modules/module.py(1743): _call_impl > contextlib.py(141)" \
	"the details pane shows the chain under the gap"
out=$("$TTRACE" --report=gaps --gap-min=30us "$srcdir/tests/fixtures/gaps/rules.json")
like "$out" "1. host sync: a blocking call" "text: the rules, in the order they are tried"
like "$out" "aten::to" "text: the operator that made the blocking call"
unlike "$(printf '%s\n' "$out" | awk 'length($0) > 120')" "." "text: no line wider than 120 columns"
is "$(q files.0.devices.0.stream_idle_by_hta_class_ns.host_wait)" 450000 "HTA per-stream host wait: 450 us"
is "$(q files.0.devices.0.stream_idle_by_hta_class_ns.other)" 100000 "HTA per-stream other: 100 us"
is "$(q files.0.devices.0.stream_idle_by_hta_class_ns.kernel_wait)" 0 "HTA per-stream kernel wait: 0"
"$TTRACE" --report=gaps --json "$F" >"$TMP/g100.json"
is "$("$JSONQ" files.0.gaps.# <"$TMP/g100.json")" 4 "the default minimum (100 us) keeps the four gaps of 100 us or more"
run --report=gaps --gap-min=abc "$F"
is "$rc" 2 "a bad --gap-min is a usage error"
# the GPU utilization of the text report: the first row of its GPU table
gpu_utilization() { printf '%s\n' "$1" | awk '/^ +GPU +utilization / { getline; print $2; exit }'; }
run --report=gaps "$F"
is "$(gpu_utilization "$out")" "39.00%" "text report: utilization, in the GPU table"
like "$out" "data loading" "text report: causes"

# A generated trace: 500 steps of 20 back-to-back 100 us kernels (10,000 kernels); every
# 5th step starts with a 3 ms DataLoader stall while the GPU has nothing to do. All 100
# must be found, each with its cause, and nothing else.
awk 'BEGIN {
	print "{\"traceEvents\": ["; t = 0; c = 0
	for (s = 0; s < 500; s++) {
		start = t
		if (s % 5 == 0) {
			printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 3000},\n", t
			t += 3000
		}
		for (k = 0; k < 20; k++) {
			c++
			printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},\n", t + k, c
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", t + 5 + k * 100, c
		}
		t += 5 + 20 * 100
		printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},\n", s, start, t - start
	}
	print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
}' >"$TMP/stalls.json"
"$TTRACE" --report=gaps --json --gap-min=1ms "$TMP/stalls.json" >"$TMP/s.json" 2>/dev/null
is "$("$JSONQ" files.0.gaps.# <"$TMP/s.json")" 100 "generated trace: the 100 injected stalls are found, nothing else"
is "$(grep -c '"cause": "dataloader"' "$TMP/s.json")" 100 "generated trace: each with the cause data loading"
is "$("$JSONQ" files.0.gaps.0.dur_ns files.0.gaps.99.dur_ns <"$TMP/s.json" | tr '\n' ' ')" "3005000 3005000 " "generated trace: each 3.005 ms (the stall plus the launch lead)"
is "$("$JSONQ" files.0.stream_gaps.# <"$TMP/s.json")" 99 "generated trace: 99 per-stream gaps (the first stall opens the window)"

# The shared traces: the TensorBoard plugin's GPU utilization (REFERENCE-FIGURES.md).
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	for pair in "train-a100-rank0of2-nccl-basetime.json.gz 23.26" "train-v100-rank1of2-nccl-memory-216k.json.gz 56.27" \
		"resnet50-v100-2021-oldcats-memory.pt.trace.json.gz 55.51" "b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz 12.49" \
		"multirank-dlrm-v100x8-nccl/worker0_step_12.1694128201545.pt.trace.json 45.46"; do
		set -- $pair
		run --report=gaps "$S/$1"
		is "$(gpu_utilization "$out")" "$2%" "$1: GPU utilization $2% as the TensorBoard plugin reports"
	done
	# HTA's per-stream idle breakdown (REFERENCE-FIGURES.md), DLRM rank 0 summed over its
	# four streams: host wait 11,448 + 145 + 5,906 + 4,740 = 22,239 us, kernel wait 144 us,
	# other 0. HTA rounds to whole us, so allow 1 us per gap (at most ~200 gaps).
	"$TTRACE" --report=gaps --json "$S/multirank-dlrm-v100x8-nccl/worker0_step_12.1694128201545.pt.trace.json" >"$TMP/hta.json" 2>/dev/null
	hw=$("$JSONQ" files.0.devices.0.stream_idle_by_hta_class_ns.host_wait <"$TMP/hta.json")
	kw=$("$JSONQ" files.0.devices.0.stream_idle_by_hta_class_ns.kernel_wait <"$TMP/hta.json")
	ow=$("$JSONQ" files.0.devices.0.stream_idle_by_hta_class_ns.other <"$TMP/hta.json")
	d=$(( hw / 1000 - 22239 )); [ $d -lt 0 ] && d=$(( -d ))
	[ "$d" -le 200 ]
	ok $? "DLRM rank 0: HTA host wait 22,239 us, ttrace $((hw / 1000)) us"
	d=$(( kw / 1000 - 144 )); [ $d -lt 0 ] && d=$(( -d ))
	[ "$d" -le 10 ]
	ok $? "DLRM rank 0: HTA kernel wait 144 us, ttrace $((kw / 1000)) us"
	is "$ow" 0 "DLRM rank 0: HTA other 0"
	# The causes of the biggest gaps (issue 11), with why each is right:
	# a100 rank 0 of 16: five gaps of about 64 ms while the main thread sits in a 146 ms
	# cudaMemcpyAsync whose copy is "Memcpy DtoH (Device -> Pageable)" (a blocking copy),
	# under aten::to in "## sparse_data_dist ##"; the longest (64.7 ms) lies in a 158 ms
	# cudaDeviceSynchronize.
	"$TTRACE" --report=gaps --json "$S/train-a100-rank0of16-nccl.json.gz" >"$TMP/a100.json" 2>/dev/null
	aq() { "$JSONQ" "$@" <"$TMP/a100.json" | tr '\n' ' '; }
	is "$(aq files.0.gaps.0.cause files.0.gaps.0.cpu_slice.name)" "sync cudaDeviceSynchronize " \
		"a100 rank 0/16: the 64.7 ms gap lies in a cudaDeviceSynchronize"
	for i in 1 2 3 4 5; do
		is "$(aq files.0.gaps.$i.cause files.0.gaps.$i.cpu_slice.name files.0.gaps.$i.op.name)" "sync cudaMemcpyAsync aten::to " \
			"a100 rank 0/16: gap $((i + 1)) (about 64 ms): a blocking device-to-pageable copy made by aten::to"
	done
	# v100 rank 1 of 2: the biggest gap (5.05 ms) follows Optimizer.step; on the launching
	# thread nothing but ProfilerStep#4 covers it until zero_grad, 5 ms later: no CPU activity
	# recorded (not "launch-bound in ProfilerStep#4"). The sixth (3.91 ms) is CPU work: an
	# aten::empty_strided of 2.1 ms (an allocation) covers more than half of it.
	"$TTRACE" --report=gaps --json "$S/train-v100-rank1of2-nccl-memory-216k.json.gz" >"$TMP/v100.json" 2>/dev/null
	vq() { "$JSONQ" "$@" <"$TMP/v100.json" | tr '\n' ' '; }
	is "$(vq files.0.gaps.0.dur_ns files.0.gaps.0.cause files.0.gaps.0.cpu_slice.name)" "5046000 no_cpu_activity " \
		"v100 rank 1/2: the biggest gap, 5.05 ms: no CPU activity recorded"
	is "$(vq files.0.gaps.5.cause files.0.gaps.5.cpu_slice.name)" "cpu_work aten::empty_strided " \
		"v100 rank 1/2: the sixth gap: CPU work in aten::empty_strided"
	run --report=gaps "$S/cpu-only-gloo-rank34of300.pt.trace.json.gz"
	like "$out" "no GPU in this trace" "CPU-only trace: says there is no GPU"
	like "$out" "5 steps: ProfilerStep#551..#555" "CPU-only trace: counts its five steps"
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=gaps "$S/$f"
		no_crash "gaps report on $f"
	done
fi
# --gap-min holds in the timeline too: the gap list and the gap keys start from it
EXG="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
run --dump-screen --gap-min=1ms --keys='o' "$EXG"
like "$out" "1 gaps of 1.00 ms or more, longest first" "the timeline's gap list honours --gap-min=1ms"
run --dump-screen --keys='o' "$EXG"
like "$out" "13 gaps of 100 us or more, longest first" "without it, the list starts at 100 us"
run --dump-screen --gap-min=1ms --keys='<lt>' "$EXG"
like "$out" "minimum gap 500 us" "< halves the --gap-min given"

finish
