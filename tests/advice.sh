#!/bin/sh
# advice.sh: --report=advice: every rule on a fixture where it must fire (its key, figure
# and instance count) and one where it must not (tests/fixtures/advice, written by
# tests/tools/gen-advice-fixtures.py, whose comments work each one out); then the findings
# each trace of ../shared/traces gets, when they are there, with the reason for each.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/advice"

# find KEY [PREFIX]: sets $fp to the JSON path of the finding KEY in $TMP/a.json (PREFIX:
# files.0 for one file, empty for several ranks), or to "" when it is not there.
find_key() {
	pre=${2-files.0.}
	fp=
	n=$("$JSONQ" "${pre}findings.#" <"$TMP/a.json" 2>/dev/null)
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		if [ "$("$JSONQ" "${pre}findings.$i.key" <"$TMP/a.json")" = "$1" ]; then
			fp="${pre}findings.$i"
			return
		fi
		i=$((i + 1))
	done
}
q() { "$JSONQ" "$@" <"$TMP/a.json" | tr '\n' ' '; }
# round3 VALUE: a figure to 3 decimals, as the expectations write it.
round3() { awk -v v="$1" 'BEGIN { printf "%.3f", v }'; }
advice() { # advice ARGS...: --report=advice --json into $TMP/a.json
	"$TTRACE" -q --report=advice --json "$@" >"$TMP/a.json" 2>"$TMP/err"
	rc=$?
}

# fires FIXTURE KEY FIGURE COUNT REASON: the rule fires with that figure (3 decimals) and
# that many instances, and does not fire on its -quiet twin.
fires() {
	advice "$F/$1-fire.json"
	find_key "$2"
	if [ -z "$fp" ]; then
		ok 1 "$1-fire: $2 fires ($5)"
		sed 's/^/#   /' "$TMP/a.json" | head -20
	else
		is "$(round3 "$(q $fp.figure)") $(q $fp.count)" "$3 $4 " "$1-fire: $2 fires, figure $3, $4 instances ($5)"
	fi
	advice "$F/$1-quiet.json"
	find_key "$2"
	is "$fp" "" "$1-quiet: $2 does not fire"
}

fires low_gpu_utilization low_gpu_utilization 0.300 3 "one 300-us kernel per 1000-us step; instances: the 3 gaps"
fires dataloader_stall dataloader_stall 0.199 3 "199 us of DataLoader per step with the GPU idle"
fires host_sync host_sync 0.255 3 "255 us of GPU idle in each step's aten::item; nested syncs counted once"
fires pageable_memcpy pageable_memcpy 0.100 3 "a 100-us Pageable -> Device copy per step"
fires launch_bound launch_bound 0.700 105 "35 waits of 20 us per step after the first kernel; the first follows the previous step"
fires tensor_cores_unused tensor_cores_unused 1.000 1 "all kernel time in volta_sgemm on compute capability 8"
fires low_occupancy low_occupancy 12.000 1 "the one kernel at 12% occupancy, 0.5 blocks per SM"
fires exposed_communication exposed_communication 0.300 3 "a 300-us AllGather after the compute kernel, per step"
fires allreduce_after_backward allreduce_after_backward 0.200 3 "a 200-us AllReduce after the backward kernel, per step"
fires large_other_share large_other_share 0.401 3 "nothing runs over [600, 1000) of each step; instances: the steps"
fires memory_fragmentation memory_fragmentation 0.750 1 "4 GiB reserved, at most 1 GiB allocated"
fires memory_growth memory_growth 268435456.000 4 "a quarter GiB more allocated at each of 4 step starts (bytes per step)"
fires memory_near_capacity memory_near_capacity 0.969 1 "7.75 GiB reserved of 8 GiB"

# Low utilization's cause must hold (tests/tools/gen-advice-fixtures.py says why each):
advice "$F/low_gpu_utilization-fire.json"
find_key low_gpu_utilization
like "$(q $fp.cause)" "the GPU waits for the host; of its idle time, 66.7% is in gaps whose cause is CPU work" \
	"utilization: CPU work holds most of the idle time: the GPU waits for the host"
advice "$F/low_gpu_utilization-unrecorded.json"
find_key low_gpu_utilization
like "$(q $fp.cause)" "not in the trace" "utilization: kernels with no launch in the trace: the cause is not in it"
is "$(q $fp.confidence)" "low " "and the confidence is low"
unlike "$(q $fp.cause $fp.fix)" "waits for the host" "and it does not say the GPU waits for the host"
advice "$F/low_gpu_utilization-wait.json"
find_key low_gpu_utilization
like "$(q $fp.cause)" "the GPU waits on events, other streams or collectives, not on the host" \
	"utilization: work launched early that waited: the GPU waits on a stream, not the host"
unlike "$(q $fp.fix)" "DataLoader" "and the fix is not the DataLoader's"
advice "$F/low_gpu_utilization-short.json"
find_key low_gpu_utilization
like "$(q $fp.cause)" "short gaps between kernels" "utilization: idle in 7-us gaps only: short gaps, said so"
like "$(q $fp.cause)" "all of its idle time is in gaps under" "and no cause of the gap list is quoted"

advice "$F/large_other_share-no-ops.json"
find_key large_other_share
is "$fp" "" "Other share: a trace with no CPU operator (GPU activity only) has no Other of the user's code"

# Warm-up steps are set aside: the findings are over the steady steps after them
advice "$F/warmup.json"
is "$(q files.0.window.steps files.0.window.warmup_steps files.0.window.warmup_ns files.0.window.steady_median_ns files.0.findings.#)" \
	"3 1 3000000 1000000 0 " "warm-up: a first step 3x the others is set aside; the steady steps have no finding"
run -q --report=advice "$F/warmup.json"
like "$out" "set aside: step #1 as warm-up (3.00 ms; the median step after it: 1.00 ms)" "warm-up: the text says what it set aside"
advice "$F/warmup-mild.json"
is "$(q files.0.window.steps files.0.window.warmup_steps)" "4 0 " "a first step 1.4x the others is no warm-up: all four steps"

# The details of a few: the host sync names the calling operator and the annotation
# around it, the copy its size, the memory rules their device, scores order the list.
advice "$F/host_sync-fire.json"
find_key host_sync
is "$(q $fp.instances.0.name $fp.instances.0.op $fp.instances.0.context $fp.instances.0.value)" \
	"aten::item aten::is_nonzero ## metrics ## 255000 " \
	"host sync: the outermost sync (aten::item), its calling op, its annotation, GPU idle in it from the copy's end (152) to its end (407)"
is "$(q $fp.confidence $fp.unit $fp.threshold $fp.fires)" "high share 0.01 above " \
	"host sync: several calls give high confidence; threshold 1% of the step, above"
n=$(q files.0.findings.#)
sorted=$("$JSONQ" $(i=0; while [ "$i" -lt "${n% }" ]; do printf 'files.0.findings.%d.score ' "$i"; i=$((i + 1)); done) \
	<"$TMP/a.json" | awk 'NR > 1 && $1 > prev { bad = 1 } { prev = $1 } END { print bad ? "no" : "yes" }')
is "$sorted" "yes" "findings are worst first (scores do not increase)"
advice "$F/pageable_memcpy-fire.json"
find_key pageable_memcpy
is "$(q $fp.instances.0.bytes $fp.instances.0.name $fp.total)" "4194304 Memcpy HtoD (Pageable -> Device) 300000 " \
	"pageable copy: its bytes and name; total 3 x 100 us"
advice "$F/memory_near_capacity-fire.json"
find_key memory_near_capacity
is "$(q $fp.device $fp.value_unit $fp.instances.0.value)" "0 bytes 8321499136 " "capacity: device 0, the peak reserved in bytes"
advice "$F/launch_bound-fire.json"
find_key launch_bound
is "$(q $fp.confidence $fp.instances.0.name $fp.instances.0.value)" "high tiny_kernel 20000 " \
	"launch-bound: every kernel shorter than its launch call (high); a wait is 20 us before tiny_kernel"
like "$(q $fp.cause)" "kernels are shorter than the CPU takes to launch them" \
	"launch-bound, high: the cause is launch overhead"
# its one wait ends at a kernel that outlasts its launch call: the cause must not be launch
# overhead, but the host busy between launches (and the fix: find what it does)
advice "$srcdir/tests/fixtures/q-bare-array.json"
find_key launch_bound
is "$(q $fp.confidence)" "medium " "launch-bound with no kernel after a wait shorter than its launch: medium"
like "$(q $fp.cause)" "the host launches late" "and the cause is the host busy between launches"
unlike "$(q $fp.cause)" "kernels are shorter than the CPU" "not launch overhead, which the waits do not show"
like "$(q $fp.fix)" "what the host does between the launches" "the fix: find what the host does there"
advice "$F/tensor_cores_unused-fire.json"
find_key tensor_cores_unused
is "$(q $fp.score $fp.instances.0.name)" "0.45 volta_sgemm_128x64_nn " \
	"Tensor Cores: score = half the GEMM time (2700 us) over the steps (3000 us)"
# by kernel class (src/kernel_class.h; tests/tools/gen-advice-fixtures.py says why each)
advice "$F/tensor_cores_unused-mixed.json"
find_key tensor_cores_unused
is "$(q $fp.confidence)$(round3 "$(q $fp.figure)")" "medium 0.333" \
	"an FFMA GEMM beside FP8 GEMMs: fires at a third of the kernel time, confidence medium"
like "$(q $fp.cause)" "mixed precision is on (66.7% of the matmul time" "and the cause says mixed precision is on"
advice "$F/tensor_cores_unused-fp8.json"
find_key tensor_cores_unused
is "$fp" "" "FP8 GEMMs on matrix units: no 'enable AMP'"
advice "$F/tensor_cores_unused-unknown.json"
find_key tensor_cores_unused
is "$fp" "" "a GEMM whose name does not say its unit is no evidence"
advice "$F/tensor_cores_unused-ffma-xmma.json"
find_key tensor_cores_unused
is "$(q $fp.confidence $fp.figure)" "high 1 " "an FFMA xmma_gemm (on the plugin's Tensor Core list) is SIMT work: fires"

# The limits of the data (src/advice_limits.c): a finding never says "high" on a cut file,
# a window of one step or a legacy-exporter trace; ranks missing from the job cap what is
# compared across ranks. The same FFMA fixture, cut at 80% of its bytes:
n=$(wc -c <"$F/tensor_cores_unused-ffma-xmma.json")
head -c $((n * 8 / 10)) "$F/tensor_cores_unused-ffma-xmma.json" >"$TMP/cut.json"
advice "$TMP/cut.json"
find_key tensor_cores_unused
is "$(q files.0.limits.0.key files.0.limits.0.confidence_at_most $fp.confidence)" "truncated medium medium " \
	"a cut file: the limit is said, and the finding that was high is medium"
like "$(q $fp.confidence_why)" "at most medium: the file is cut short" "its confidence_why says why"
run -q --report=advice "$TMP/cut.json"
like "$out" "limit: the file is cut short" "the text says the limit too"
advice "$srcdir/tests/fixtures/q-legacy.json"
is "$(q files.0.limits.0.key)" "legacy_exporter " "a legacy-exporter trace: the limit is said"
advice "$srcdir/tests/fixtures/q-bare-array.json"
is "$(q files.0.window.steps files.0.limits.0.key)" "1 one_step " "a window of one step: the limit is said"
mkdir -p "$TMP/two"
cp "$srcdir/tests/fixtures/stragglers/compute/rank0.json" "$srcdir/tests/fixtures/stragglers/compute/rank2.json" "$TMP/two/"
advice "$TMP/two"
is "$(q limits.0.key limits.0.confidence_at_most)" "ranks_missing medium " "2 of a job's 3 ranks: the limit is said"
find_key straggler ""
is "$(q $fp.confidence)" "medium " "and the straggler is at most medium"
advice "$srcdir/tests/fixtures/stragglers/compute"
is "$(q limits.#)" "0 " "the whole job, aligned: no limit"
# files that cannot be one job: who waited for whom is not said at all
mkdir -p "$TMP/dup" "$TMP/far"
cp "$srcdir/tests/fixtures/stragglers/compute/rank0.json" "$TMP/dup/a.json"
cp "$srcdir/tests/fixtures/stragglers/compute/rank0.json" "$srcdir/tests/fixtures/stragglers/compute/rank2.json" "$TMP/dup/"
advice "$TMP/dup"
is "$(q limits.0.key limits.0.confidence_at_most)" "not_one_job low " "two files of rank 0: not one job, said"
like "$(q limits.0.text)" "two files say they are rank 0" "and why"
find_key straggler ""
is "$fp" "" "and no straggler is named"
cp "$srcdir"/tests/fixtures/stragglers/compute/rank*.json "$TMP/far/"
sed 's/"ts": 6980, "dur": 100,/"ts": 6980, "dur": 2000100,/' "$srcdir/tests/fixtures/stragglers/compute/rank2.json" >"$TMP/far/rank2.json"
advice "$TMP/far"
like "$(q limits.0.key limits.0.text)" "not_one_job the files do not look like one job (after alignment the same collectives still end 2.000 s apart)" \
	"a collective 2 s off after alignment: not one job, said"
find_key straggler ""
is "$fp" "" "and no straggler is named"
find_key exposed_communication ""
like "$(q $fp.confidence)" "low" "what is compared across ranks is low"
is "$(q $fp.wait_ns)" "" "and exposed communication is not split into waiting and transfer"

# Several ranks: the straggler (rank 2 last at all six AllReduces), all ranks idle
# together (both GPUs idle over [700, 1010) of each step), and the findings of each rank
# merged with the ranks they hold for.
advice "$F/straggler-fire"
find_key straggler ""
is "$(q $fp.figure $fp.rank $fp.ranks.# $fp.count $fp.instances.0.rank)" "1 2 1 6 2 " \
	"straggler-fire: rank 2, last at 6 of 6 collectives, instances on its own timeline"
find_key exposed_communication ""
is "$(q $fp.ranks.0.rank $fp.ranks.1.rank $fp.ranks.2.rank)" "0 1 2 " "merged finding: the ranks it holds for"
advice "$F/straggler-quiet"
find_key straggler ""
is "$fp" "" "straggler-quiet: the late rank rotates (each last at 2 of 6): no straggler"
advice --align=raw "$F/all_ranks_idle-fire"
find_key all_ranks_idle ""
is "$(round3 "$(q $fp.figure)") $(q $fp.ranks.#)" "0.310 2 " "all_ranks_idle-fire: both GPUs idle 31% of the common window"
advice --align=raw "$F/all_ranks_idle-quiet"
find_key all_ranks_idle ""
is "$fp" "" "all_ranks_idle-quiet: one GPU or the other is always busy"

# Text: the parts of a finding, and "no findings" said plainly.
run --report=advice "$F/host_sync-fire.json"
is "$rc" 0 "text report runs"
for part in "Host synchronisation [host_sync]" "symptom:" "evidence:" "cause:" "fix:" "e.g. " "confidence: high" \
	"called from aten::is_nonzero, in ## metrics ##"; do
	like "$out" "$part" "text: $part"
done
flat=$(printf '%s' "$out" | tr -s ' \n' '  ')
like "$flat" "2 findings, worst first" "text: host_sync-fire has two findings"
like "$flat" "scores overlap: they order, they do not add up" "text: several findings: their scores are said not to add up"
run --report=advice "$F/low_occupancy-fire.json"
like "$out" "1 finding, worst first" "text: low_occupancy-fire has one finding"
unlike "$out" "scores overlap" "text: one finding: nothing to add up, not said"
run --report=advice "$F/low_gpu_utilization-quiet.json"
like "$out" "no findings" "text: a trace with no finding says so"
run --report=advice "$F/straggler-fire"
like "$out" "== 3 ranks, alignment: collective" "text: several files are the ranks of one job"
like "$out" "3 of 3 ranks:" "text: a merged finding lists its ranks"
run --report=advice --json "$F/host_sync-fire.json"
"$JSONQ" ttrace_version files.0.window.steps <"$TMP/out" >/dev/null
ok $? "JSON report is valid JSON with the window"

# Trace text is escaped: a name with ESC and C1 controls in a finding's instance.
printf '{"traceEvents": [{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},\n{"ph":"X","cat":"cpu_op","name":"evil\\u001b]0;pwned\\u0007\\u009b2J","pid":1,"tid":1,"ts":1,"dur":998},\n{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":5,"args":{"correlation":1}},\n{"ph":"X","cat":"kernel","name":"volta_sgemm_\\u001b[31m","pid":0,"tid":7,"ts":10,"dur":300,"args":{"device":0,"stream":7,"correlation":1,"est. achieved occupancy %%":5}}]}\n' >"$TMP/evil.json"
run --report=advice "$TMP/evil.json"
no_crash "hostile names"
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '\033')"; then ok 1 "no raw ESC reaches the text report"; else ok 0 "no raw ESC reaches the text report"; fi
like "$out" 'volta_sgemm_\x1b[31m' "the kernel name is shown escaped"

# ---- ../shared/traces: which findings each trace gets, and why ----------------------------
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ ! -d "$S" ]; then
	finish
	exit $?
fi
# has FILE KEY yes|no REASON (FILE: one trace, or several for a job)
has() {
	f=$1 key=$2 want=$3
	shift 3
	set -- $f
	[ -e "$S/$1" ] || return 0
	if [ "$#" -gt 1 ] || [ -d "$S/$1" ]; then pre=""; else pre="files.0."; fi
	args=
	for x in "$@"; do args="$args $S/$x"; done
	advice $args
	find_key "$key" "$pre"
	got=no
	[ -n "$fp" ] && got=yes
	is "$got" "$want" "$f: $key $want"
	if [ "$got" != "$want" ]; then # what the run said, for a failure seen once only
		echo "#   exit status $rc; the findings: $("$JSONQ" findings.#  <"$TMP/a.json" 2>&1); stderr:"
		head -20 "$TMP/err" | sed 's/^/#     /'
	fi
}
A16=train-a100-rank0of16-nccl.json.gz
# the issue's case: a 146 ms cudaMemcpyAsync of a 704-byte DtoH copy to pageable memory
# under aten::to, five times, on the main thread, with the GPU idle inside
has $A16 host_sync yes "blocking DtoH copies to pageable memory"
find_key host_sync
is "$(q $fp.instances.1.name $fp.instances.1.op $fp.instances.1.context)" "cudaMemcpyAsync aten::to ## sparse_data_dist ## " \
	"$A16: the blocking copy is named with its calling op aten::to and its annotation"
has $A16 low_gpu_utilization yes # the plugin's GPU utilization is 32.24% (REFERENCE-FIGURES)
has $A16 dataloader_stall no     # the plugin's DataLoader is 0 in every step
has $A16 tensor_cores_unused no  # its GEMMs are cutlass tensorop kernels (29.65% Tensor Cores)
# the slow input pipeline of torch-cpu: DataLoader __next__ 136-139 ms of 160-165 ms steps
has torch-cpu/cpu_train_stall.pt.trace.json dataloader_stall yes
find_key dataloader_stall
awk -v v="$(q $fp.figure)" 'BEGIN { exit !(v > 0.8 && v < 0.87) }'
ok $? "cpu_train_stall: the stall is 136-139 ms of 160-165 ms steps (84% here)"
# its aten::item per step is not a device sync: there is no GPU
has torch-cpu/cpu_train_stall.pt.trace.json host_sync no
# the small one: DataLoader 0.6-1.0 ms of 29-35 ms steps, under 5%
has torch-cpu/cpu_train_small.pt.trace.json dataloader_stall no
# the DDP job on gloo: rank 2 is the straggler (its batch is 64, the others' 16)
has torch-cpu/ddp4-gloo straggler yes
find_key straggler ""
is "$(q $fp.rank)" "2 " "ddp4-gloo: the straggler is rank 2"
# DLRM on 8 V100s: rank 7 arrives last at collectives #0-#4 (5 of 8)
has multirank-dlrm-v100x8-nccl straggler yes
find_key straggler ""
is "$(q $fp.rank $fp.figure)" "7 0.625 " "dlrm: the straggler is rank 7, last at 5 of 8 collectives"
# ResNet-50 with num_workers=0: the plugin's DataLoader is 48-69 ms of 166-188 ms steps,
# its Tensor Cores 0% on a V100 (compute capability 7), and no pinned memory
R21=resnet50-v100-2021-oldcats-memory.pt.trace.json.gz
has $R21 dataloader_stall yes
has $R21 tensor_cores_unused yes
has $R21 pageable_memcpy yes
# the ns-float V100 trace: Tensor Cores 0% on compute capability 7, GPU utilization 96.8%
has train-v100-rank0-ns-float-epoch-ts.pt.trace.json.gz tensor_cores_unused yes
has train-v100-rank0-ns-float-epoch-ts.pt.trace.json.gz low_gpu_utilization no
# v100 rank 1 of 2: peak reserved 12.8 GB against peak allocated 6.63 GB (--report=memory);
# 2,020 NCCL AllReduce kernels on stream 14
has train-v100-rank1of2-nccl-memory-216k.json.gz memory_fragmentation yes
has train-v100-rank1of2-nccl-memory-216k.json.gz allreduce_after_backward yes
# B200: the plugin's list predates Blackwell (it says 0%), but its GEMMs are nvjet Tensor Core kernels
has b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz tensor_cores_unused no
# one 1.76-us Triton kernel at 0% occupancy in a 13-s step: too little time to be worth a
# finding (low_occupancy asks 1% of the steps' time too)
has a100-triton-single-kernel-tiny.json.gz low_occupancy no
has a100-triton-single-kernel-tiny.json.gz low_gpu_utilization yes
# MI300X: no occupancy in ROCm traces, and Tensor Core names are NVIDIA's: neither rule speaks
has mi300x-rank0of8-resnet-actckpt-rccl-pyfunc.json.gz low_occupancy no
has mi300x-rank0of8-resnet-actckpt-rccl-pyfunc.json.gz tensor_cores_unused no
# CPU only: no GPU rule; the plugin's Communication is 85% of its step
has cpu-only-gloo-rank34of300.pt.trace.json.gz low_gpu_utilization no
has cpu-only-gloo-rank34of300.pt.trace.json.gz exposed_communication yes
# vLLM reserves 90% of the GPU for its KV cache on purpose (gpu_memory_utilization)
has infer-mi300x-vllm-decode-graph-capture.pt.trace.json.gz memory_near_capacity yes
# every shared trace: the report runs, is valid JSON, and no finding scores above 1
for f in $(cd "$S" && find . -type f -name '*.json*' ! -path './derived/*' | sort); do
	"$TTRACE" -q --report=advice --json "$S/$f" >"$TMP/a.json" 2>"$TMP/err"
	rc=$?
	no_crash "advice on $f"
done
finish
