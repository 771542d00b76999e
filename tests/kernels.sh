#!/bin/sh
# kernels.sh: the Kernels view and --report=kernels on a hand-worked trace: calls, times,
# means over the calls that carry a figure, launch shape or "varies", Tensor Cores by
# name, GEMMs without them, the operator that launched most calls, and the panel.
. "$srcdir/tests/lib.sh"

# Four kernel names on stream 7, each launched by cudaLaunchKernel (correlation) under an
# operator on the main thread:
#   volta_h884gemm_64x64_nn      2 calls, 10 + 30 us, grid 4,1,1 both, blocks/SM 2 and 4,
#                                occupancy 50 and 70: Tensor Cores (plugin list: h884)
#   sm90_xmma_gemm_bf16bf16_...  1 call, 20 us: Tensor Cores (a Hopper cuBLAS name the list misses)
#   ampere_sgemm_128x64_nn       3 calls, 5 + 6 + 7 us, grids 1,1,1 / 2,1,1: GEMM without
#                                Tensor Cores; two launched under aten::mm, one under aten::addmm;
#                                registers 16, 16, 24
#   void at::native::elementwise_kernel<128, 4>(int, float*)
#                                1 call, 4 us, no blocks/SM or occupancy args
# Registers per thread 32 for the others; shared memory 0, but 49152 for the sm90 kernel.
# By name and launch shape, the ampere calls make 3 rows (grid 1 regs 16, grid 2 regs 16,
# grid 2 regs 24): 6 rows in all.
awk 'BEGIN {
	print "{\"traceEvents\": ["
	n = split("volta_h884gemm_64x64_nn volta_h884gemm_64x64_nn sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas ampere_sgemm_128x64_nn ampere_sgemm_128x64_nn ampere_sgemm_128x64_nn elementwise", k, " ")
	k[7] = "void at::native::elementwise_kernel<128, 4>(int, float*)"
	split("32 32 32 16 16 24 32", regs, " ")
	split("0 0 49152 0 0 0 0", smem, " ")
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
		extra = extra sprintf(", \"registers per thread\": %d, \"shared memory\": %d", regs[i], smem[i])
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
	"10000 30000 3.5 65 " "min, max; the plugin's means, weighted by duration: blocks per SM (2*10 + 4*30) / 40, occupancy (50*10 + 70*30) / 40"
is "$(q files.0.kernels.0.grid files.0.kernels.0.block files.0.kernels.0.tensor_cores files.0.kernels.0.launched_by | tr '\n' ' ')" \
	"4,1,1 128,1,1 true aten::bmm " "one grid and block for every call; Tensor Cores (h884); launched by aten::bmm"
is "$(q files.0.kernels.1.name files.0.kernels.1.tensor_cores files.0.kernels.1.matmul_without_tensor_cores | tr '\n' ' ')" \
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas true false " "a Hopper xmma name counts as Tensor Cores"
is "$(q files.0.kernels.2.name files.0.kernels.2.calls files.0.kernels.2.grid files.0.kernels.2.matmul_without_tensor_cores | tr '\n' ' ')" \
	"ampere_sgemm_128x64_nn 3 varies true " "grids differ: varies; a GEMM without Tensor Cores is flagged"
is "$(q files.0.kernels.2.launched_by files.0.kernels.2.launched_by_calls | tr '\n' ' ')" "aten::mm 2 " \
	"the operator that launched most calls (2 of 3)"
is "$(q files.0.kernels.3.mean_blocks_per_sm files.0.kernels.3.mean_est_achieved_occupancy_pct | tr '\n' ' ')" "null null " \
	"no figure in the trace: null, not 0"
is "$(q files.0.kernels.0.registers_per_thread files.0.kernels.0.shared_memory_bytes files.0.kernels.1.shared_memory_bytes files.0.kernels.2.registers_per_thread | tr '\n' ' ')" \
	"32 0 49152 varies " "registers per thread and shared memory: the value, or varies"
is "$(q files.0.kernels.3.name)" "void at::native::elementwise_kernel<128, 4>(int, float*)" "names whole in JSON"
is "$(q files.0.kernel_time_ns files.0.tensor_core_time_ns | tr '\n' ' ')" "82000 60000 " "kernel time and the part on Tensor Cores"

out=$("$TTRACE" --report=kernels "$TMP/k.json")
like "$out" "4 rows by name, 82.0 us of kernel time" "text report: the count and the time"
out=$("$TTRACE" --report=kernels --group-by=shape "$TMP/k.json")
like "$out" "6 rows by name and launch shape" "--group-by=shape: the ampere calls make 3 rows"
like "$out" "regs shared mem" "and the text shows the launch shape"
is "$("$TTRACE" --report=kernels --group-by=operator --json "$TMP/k.json" | "$JSONQ" files.0.group_by files.0.kernels.# | tr '\n' ' ')" \
	"operator 6 " "--group-by=operator in JSON"
"$TTRACE" --report=kernels --group-by=tree "$TMP/k.json" >/dev/null 2>"$TMP/err"
is "$?" 2 "--group-by=tree is the operators' only"
like "$(cat "$TMP/err")" "--group-by wants name, shape or operator (got 'tree')" "and says what the kernels take"
like "$out" "73.2% of it on Tensor Cores or matrix" "text: the Tensor Core share (60 of 82 us)"
like "$out" "ampere_sgemm_128x64_nn" "text: the names"

scr() { "$TTRACE" -q --dump-screen --size=160x40 --keys="$1" "$TMP/k.json" | sed '/^--$/,$d'; }
out=$(scr K)
like "$out" "4 rows by name, 82.0 us of kernel time, 73.2% of it on Tensor Cores" "K opens the Kernels view"
like "$out" "varies" "the view shows the launch shape"
out=$(scr Kg)
like "$out" "6 rows by name and launch shape" "g groups by name and launch shape: the ampere calls make 3 rows"
out=$(scr Kgg)
like "$out" "6 rows by name, launching operator and launch shape" "g again: by name, operator and shape"
like "$out" "aten::addmm" "the ampere call under aten::addmm is a row of its own"
out=$(scr Kggg)
like "$out" "4 rows by name," "and again: by name"
like "$(scr K)" "void at::native::el" "names whole at first (elided in the middle to fit)"
# a narrow terminal: the name keeps 40 columns (elided in the middle), the launch shape and
# the rest scroll off to the right (marked)
out=$("$TTRACE" -q --dump-screen --size=80x20 --keys=K "$TMP/k.json" | sed '/^--$/,$d')
like "$out" " void at::native::ele…28, 4>(int, float*) " "80 columns: the name keeps 40 columns"
like "$out" "›" "and a mark for the columns past the edge"
out=$(scr KT)
like "$out" "at::native::elementwise_kernel<…>(…)" "T folds template arguments and parameters"
unlike "$out" "void at::native" "and drops the leading void"
like "$(scr KTT)" "void at::native::el" "T again: whole names"
out=$(scr 'K<Enter>')
like "$out" "the longest call of this kernel" "Enter jumps to the longest call"
like "$out" "volta_h884gemm_64x64_nn" "the longest call is selected"
like "$out" "start +0.115 ms, dur 30.0 us" "the 30 us call (the second), not the 10 us one"
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
	# the plugin's Kernel view on B200 (../shared/REFERENCE-VIEWS.md): calls, total us,
	# mean blocks per SM and mean est. occupancy (duration-weighted), rounded as it shows them
	B="$S/b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz"
	if [ -f "$B" ]; then
		"$TTRACE" --report=kernels --json "$B" >"$TMP/b.json" 2>/dev/null
		for i in 0 1 2 3 4 5; do
			"$JSONQ" files.0.kernels.$i.calls files.0.kernels.$i.total_ns files.0.kernels.$i.mean_blocks_per_sm \
				files.0.kernels.$i.mean_est_achieved_occupancy_pct <"$TMP/b.json" | tr '\n' ' ' |
				awk '{ printf "%d %.3f %.2f %.2f\n", $1, $2 / 1000, $3, $4 }'
		done >"$TMP/b.got"
		printf '%s\n' "36 3181.785 18.49 0.00" "73 2119.548 0.05 3.00" "36 2033.052 55.46 0.00" "72 452.068 6.00 75.00" \
			"72 380.568 22.70 68.20" "36 287.423 0.95 0.00" >"$TMP/b.want"
		is "$(cat "$TMP/b.got")" "$(cat "$TMP/b.want")" "B200: the plugin's top six kernels, their calls, totals and means"
		is "$("$JSONQ" files.0.kernel_time_ns <"$TMP/b.json")" 10862916 "B200: all kernels 10,862.916 us, as the plugin"
	fi
fi
# Long kernel names that differ only in the middle (issue 12, item 10): three templated
# elementwise kernels alike in their first and last 40 characters. The summary elides each
# so that the part where it departs from the others shows; JSON keeps every name whole.
awk 'BEGIN {
	print "{\"traceEvents\": ["
	split("addcdiv_cuda_kernel addcmul_cuda_kernel sqrt_kernel_cuda", f, " ")
	for (i = 1; i <= 3; i++) {
		body = "at::native::" f[i] "(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 4>"
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4, %s >(int, %s)\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7}},\n", body, body, i * 100, 10 + i
	}
	print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"stream 7\"}}]}"
}' >"$TMP/alike.json"
run --report=summary "$TMP/alike.json"
printf '%s\n' "$out" | sed -n '/Top 20 kernels/,/^$/p' | grep '^   void ' >"$TMP/alike.rows"
is "$(wc -l <"$TMP/alike.rows" | tr -d ' ')" 3 "three long kernels, one row each"
is "$(sed 's/  *[0-9].*$//' "$TMP/alike.rows" | sort -u | wc -l | tr -d ' ')" 3 "their elided names all differ"
for fn in addcdiv_cuda_kernel addcmul_cuda_kernel sqrt_kernel_cuda; do
	like "$(cat "$TMP/alike.rows")" "$fn" "the elided name shows what tells it apart: $fn"
done
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/alike.rows")" -le 130 ]
ok $? "and the rows still fit the report's width"
"$TTRACE" --report=summary --json "$TMP/alike.json" >"$TMP/alike.out" 2>/dev/null
"$JSONQ" files.0.top_kernels.0.name files.0.top_kernels.1.name files.0.top_kernels.2.name <"$TMP/alike.out" | sort >"$TMP/alike.json-names"
sed -n 's/^.*"name": "\(void [^"]*\)".*$/\1/p' "$TMP/alike.json" | sort >"$TMP/alike.names"
is "$(cat "$TMP/alike.json-names")" "$(cat "$TMP/alike.names")" "JSON: the names whole"
# The kernel's class (src/kernel_class.h): family, math unit, precision; a unit the name does
# not say is null in tensor_cores, never "no", and the GEMM time of unknown unit is counted
# apart.
cat >"$TMP/cls.json" <<'EOF2'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": 10, "dur": 30, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "my_fused_gemm_kernel", "pid": 0, "tid": 7, "ts": 50, "dur": 20, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 80, "dur": 10, "args": {"device": 0, "stream": 7}}
]}
EOF2
"$TTRACE" --report=kernels --json "$TMP/cls.json" >"$TMP/cls.out" 2>/dev/null
c() { "$JSONQ" "$@" <"$TMP/cls.out" | tr '\n' ' '; }
is "$(c files.0.kernels.0.family files.0.kernels.0.math_unit files.0.kernels.0.precision files.0.kernels.0.tensor_cores files.0.kernels.0.matmul_without_tensor_cores)" \
	"gemm simt fp32 false true " "an FFMA xmma GEMM: SIMT, FP32, flagged (the plugin's list takes it for Tensor Cores)"
is "$(c files.0.kernels.1.family files.0.kernels.1.math_unit files.0.kernels.1.tensor_cores files.0.kernels.1.matmul_without_tensor_cores)" \
	"gemm unknown null null " "a GEMM whose name does not say its unit: unknown, null, not flagged"
is "$(c files.0.kernels.2.family files.0.kernels.2.math_unit files.0.kernels.2.tensor_cores files.0.kernels.2.matmul_without_tensor_cores)" \
	"elementwise unknown null false " "a Triton pointwise kernel: elementwise, unit unknown"
is "$(c files.0.kernel_time_ns files.0.tensor_core_time_ns files.0.matmul_unit_unknown_ns)" "60000 0 20000 " \
	"the GEMM time of unknown unit is counted apart"
"$TTRACE" --report=overview --json "$TMP/cls.json" >"$TMP/cls.ov" 2>/dev/null
is "$("$JSONQ" files.0.devices.0.tensor_cores files.0.devices.0.math_unit_unknown files.0.devices.0.tensor_cores_plugin <"$TMP/cls.ov" | tr '\n' ' ')" \
	"0 0.5 0.5 " "overview: none on matrix units, half the kernel time of unknown unit; the plugin's list takes the FFMA xmma_gemm"
# Communication outside NCCL (a symmetric-memory all-reduce) is communication: its stream is
# gpu_comm, its time is comm, not compute, and it is a collective of its own kind.
cat >"$TMP/comm.json" <<'EOF2'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 10, "dur": 100, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)", "pid": 0, "tid": 20, "ts": 150, "dur": 40, "args": {"device": 0, "stream": 20}}
]}
EOF2
like "$("$TTRACE" --dump-model "$TMP/comm.json" 2>/dev/null)" "track t1 gpu_comm pid 0 tid 20" \
	"a stream of symmetric-memory all-reduce kernels is a communication stream"
"$TTRACE" --report=distributed --json "$TMP/comm.json" >"$TMP/comm.out" 2>/dev/null
is "$("$JSONQ" ranks.0.compute_ns ranks.0.comm_ns collectives.0.kind <"$TMP/comm.out" | tr '\n' ' ')" \
	"100000 40000 multimem_all_reduce_kernel " "its time is communication, not compute, in a collective named for its kernel"
# T merges the rows it makes the same (issue 31): two instantiations of one template fold
# to one row (calls, times summed; min, max over both; the launch shape "varies"), the
# title and the status line say so, and the selection follows the row
k() { printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"grid": [%s, 1, 1], "block": [128, 1, 1]}}' "$@"; }
{
	printf '{"traceEvents": [\n'
	k "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float> >(int, float*)" 0 10 4; printf ',\n'
	k "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float> >(int, float*)" 20 12 4; printf ',\n'
	k "void at::native::vectorized_elementwise_kernel<4, MulFunctor<float> >(int, float*)" 40 30 8; printf ',\n'
	k "volta_sgemm_128x64_nn" 80 20 2
	printf '\n]}\n'
} >"$TMP/fold.json"
fs() { "$TTRACE" -q --dump-screen --size=160x20 --keys="$1" "$TMP/fold.json" | sed '/^--$/,$d'; }
out=$(fs K)
like "$out" " 3 rows by name, 72.0 us of kernel time" "three kernel names"
out=$(fs KT)
like "$out" " 2 rows by name (names folded: 3 rows before), 72.0 us of kernel time" "T: the two instantiations make one row, and the title says so"
like "$out" " at::native::vectorized_elementwise_kernel<…>(…)     3 52.0 us 17.3 us 10.0 us 30.0 us" \
	"the merged row: 3 calls, 52 us, mean 17.3, min 10, max 30"
like "$out" "varies" "its grid varies (4 and 8)"
like "$out" "names folded (<…> (…)): 1 row merged into others, 2 left (T unfolds)" "the status line says what merged"
like "$(fs KTT)" "names whole: 3 rows" "T again unfolds"
like "$(fs 'KjT<Enter>')" "dur 30.0 us" "the selection (AddFunctor) follows into the merged row, whose longest call is the MulFunctor one"
like "$(fs 'KTjT<Enter>')" "volta_sgemm_128x64_nn" "and out of a folded row: volta stays selected when unfolding"
like "$(fs 'KgT')" " 3 rows (folded), 72.0 us of kernels, 0.0% on Tensor Cores (g: by shape)" \
	"by launch shape: the AddFunctor calls' shape is their own, MulFunctor's differs: 3 rows stay 3 (a title too long for 160 columns in short)"
finish
