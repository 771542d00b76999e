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
for c in "dataloader 200000" "sync 100000" "wait 100000" "launch 100000" "pageable_copy 50000" "other 40000"; do
	set -- $c
	is "$(q files.0.devices.0.idle_by_cause_ns.$1)" "$2" "idle by cause: $1 $2 ns"
done
is "$(q files.0.gaps.0.cause files.0.gaps.0.start_ns files.0.gaps.0.dur_ns | tr '\n' ' ')" "dataloader 100000 200000 " "the longest gap is the DataLoader's, at 100 us for 200 us"
is "$(q files.0.gaps.0.cpu_slice.name)" "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" "and names the __next__ call"
is "$(q files.0.gaps.0.next_gpu_op.name)" "k2" "the next GPU op is k2"
for i in 1 2 3 4 5; do
	set -- $(q files.0.gaps.$i.start_ns files.0.gaps.$i.cause files.0.gaps.$i.cpu_slice.name 2>/dev/null | tr '\n' ' ')
	case "$1" in
	400000) is "$2 $3" "sync cudaStreamSynchronize" "gap at 400 us: host sync, cudaStreamSynchronize" ;;
	600000) is "$2 $3" "wait cudaStreamWaitEvent" "gap at 600 us: stream wait, cudaStreamWaitEvent" ;;
	750000) is "$2 $3" "launch aten::conv2d" "gap at 750 us: launch-bound, the CPU in aten::conv2d" ;;
	900000) is "$2 $3" "pageable_copy cudaMemcpyAsync" "gap at 900 us: a pageable H2D copy" ;;
	960000) is "$2" "other" "gap at 960 us (to the step's end): other" ;;
	*) ok 1 "unexpected gap at $1" ;;
	esac
done
is "$(q files.0.gaps.1.hta_class)" "host_wait" "HTA class of the sync gap: host wait"
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
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=gaps "$S/$f"
		no_crash "gaps report on $f"
	done
fi
finish
