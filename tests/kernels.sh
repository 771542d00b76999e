#!/bin/sh
# kernels.sh: the Kernels view and --report=kernels on a hand-worked trace: calls, times,
# means over the calls that carry a figure, launch shape or "varies", Tensor Cores by
# name, GEMMs without them, the operator that launched most calls, and the panel.
. "$srcdir/tests/lib.sh"

# Four kernel names on stream 7, each launched by cudaLaunchKernel (correlation) under an
# operator on the main thread:
#   volta_h884gemm_64x64_nn      2 calls, 10 + 30 us, grid 4,1,1 both, blocks/SM 2 and 4,
#                                occupancy 50 and 70: Tensor Cores (plugin list: h884)
#   sm90_xmma_gemm_f16f16_tn     1 call, 20 us: Tensor Cores (a Hopper name the list misses)
#   ampere_sgemm_128x64_nn       3 calls, 5 + 6 + 7 us, grids 1,1,1 / 2,1,1: GEMM without
#                                Tensor Cores; two launched under aten::mm, one under aten::addmm
#   elementwise_kernel           1 call, 4 us, no blocks/SM or occupancy args
awk 'BEGIN {
	print "{\"traceEvents\": ["
	n = split("volta_h884gemm_64x64_nn volta_h884gemm_64x64_nn sm90_xmma_gemm_f16f16_tn ampere_sgemm_128x64_nn ampere_sgemm_128x64_nn ampere_sgemm_128x64_nn elementwise_kernel", k, " ")
	split("10 30 20 5 6 7 4", d, " ")
	split("4 4 8 1 2 2 16", gx, " ")
	split("2 4 1 0.5 0.5 0.5 -", bps, " ")
	split("50 70 25 10 20 30 -", occ, " ")
	split("aten::bmm aten::bmm aten::linear aten::mm aten::mm aten::addmm aten::add", op, " ")
	t = 0
	for (i = 1; i <= n; i++) {
		printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 20},\n", op[i], t
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}},\n", t + 5, i
		extra = ""
		if (bps[i] != "-")
			extra = sprintf(", \"blocks per SM\": %s, \"est. achieved occupancy %%\": %s", bps[i], occ[i])
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d, \"grid\": [%d, 1, 1], \"block\": [128, 1, 1]%s}},\n", k[i], t + 15, d[i], i, gx[i], extra
		t += 100
	}
	print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
}' >"$TMP/k.json"

"$TTRACE" --report=kernels --json "$TMP/k.json" >"$TMP/k.out" 2>"$TMP/err"
is "$?" 0 "--report=kernels --json runs"
q() { "$JSONQ" "$@" <"$TMP/k.out"; }
is "$(q files.0.kernels.#)" 4 "four kernel names"
is "$(q files.0.kernels.0.name files.0.kernels.0.calls files.0.kernels.0.total_ns files.0.kernels.0.mean_ns | tr '\n' ' ')" \
	"volta_h884gemm_64x64_nn 2 40000 20000 " "longest total first: 2 calls, 40 us, mean 20 us"
is "$(q files.0.kernels.0.min_ns files.0.kernels.0.max_ns files.0.kernels.0.mean_blocks_per_sm files.0.kernels.0.mean_est_achieved_occupancy_pct | tr '\n' ' ')" \
	"10000 30000 3 60 " "min, max, mean blocks per SM (2, 4) and occupancy (50, 70)"
is "$(q files.0.kernels.0.grid files.0.kernels.0.block files.0.kernels.0.tensor_cores files.0.kernels.0.launched_by | tr '\n' ' ')" \
	"4,1,1 128,1,1 true aten::bmm " "one grid and block for every call; Tensor Cores (h884); launched by aten::bmm"
is "$(q files.0.kernels.1.name files.0.kernels.1.tensor_cores files.0.kernels.1.matmul_without_tensor_cores | tr '\n' ' ')" \
	"sm90_xmma_gemm_f16f16_tn true false " "a Hopper xmma name counts as Tensor Cores"
is "$(q files.0.kernels.2.name files.0.kernels.2.calls files.0.kernels.2.grid files.0.kernels.2.matmul_without_tensor_cores | tr '\n' ' ')" \
	"ampere_sgemm_128x64_nn 3 varies true " "grids differ: varies; a GEMM without Tensor Cores is flagged"
is "$(q files.0.kernels.2.launched_by files.0.kernels.2.launched_by_calls | tr '\n' ' ')" "aten::mm 2 " \
	"the operator that launched most calls (2 of 3)"
is "$(q files.0.kernels.3.mean_blocks_per_sm files.0.kernels.3.mean_est_achieved_occupancy_pct | tr '\n' ' ')" "null null " \
	"no figure in the trace: null, not 0"
is "$(q files.0.kernel_time_ns files.0.tensor_core_time_ns | tr '\n' ' ')" "82000 60000 " "kernel time and the part on Tensor Cores"

out=$("$TTRACE" --report=kernels "$TMP/k.json")
like "$out" "4 kernels, 82.0 us of kernel time" "text report: the count and the time"
like "$out" "73.2% of it in kernels using Tensor Cores" "text: the Tensor Core share (60 of 82 us)"
like "$out" "ampere_sgemm_128x64_nn" "text: the names"

scr() { "$TTRACE" -q --dump-screen --size=160x40 --keys="$1" "$TMP/k.json" | sed '/^--$/,$d'; }
out=$(scr K)
like "$out" "4 kernels, 82.0 us of kernel time, 73.2% of it on Tensor Cores" "K opens the Kernels view"
like "$out" "varies" "the view shows the launch shape"
out=$(scr 'K<Enter>')
like "$out" "the longest call of this kernel" "Enter jumps to the longest call"
like "$out" "volta_h884gemm_64x64_nn" "the longest call is selected"
like "$out" "start +115.000 us, dur 30.0 us" "the 30 us call (the second), not the 10 us one"
like "$(scr 'K?')" "Keys: table" "? over the Kernels view lists the table's keys"
like "$(scr "?<End>")" "the kernels: time, launch shape" "the timeline's help lists K"

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}\n' >"$TMP/cpu.json"
like "$("$TTRACE" -q --dump-screen --keys=K "$TMP/cpu.json")" "no GPU kernel in this trace" "a trace without kernels says so"
like "$("$TTRACE" --report=kernels "$TMP/cpu.json")" "no GPU kernel in this trace (record with ProfilerActivity.CUDA)" \
	"and the report names the profiler option"

# every shared trace: the report runs, and its kernel time is the summary's kernel total
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=kernels --json "$S/$f"
		no_crash "kernels report on $f"
	done
	"$TTRACE" --report=kernels --json "$S/train-a100-rank0of2-nccl-basetime.json.gz" >"$TMP/a.json" 2>/dev/null
	"$TTRACE" --report=summary --json "$S/train-a100-rank0of2-nccl-basetime.json.gz" >"$TMP/s.json" 2>/dev/null
	is "$("$JSONQ" files.0.kernels.0.total_ns <"$TMP/a.json")" "$("$JSONQ" files.0.top_kernels.0.total_ns <"$TMP/s.json")" \
		"A100: the longest kernel's total agrees with the summary's top kernel"
fi
finish
