#!/bin/sh
# operators.sh: the Operators view and --report=operators on a hand-worked trace: self and
# total CPU time, self device time (GPU work launched by the operator's own runtime
# calls) and device total (its children's added), nested instances, the panel.
. "$srcdir/tests/lib.sh"

# Main thread, two steps of aten::linear (100 us) each holding:
#   cudaLaunchKernel (2 us) -> bias_kernel 5 us                    (linear's own launch)
#   aten::addmm (40 us) holding cudaLaunchKernel -> gemm_kernel 10 us (addmm's)
# and once aten::copy_ (10 us) with cudaMemcpyAsync -> Memcpy HtoD 8 us.
# So: linear: calls 2, CPU total 200, self CPU 200 - 2*(2 + 40) = 116, self device 2*5 = 10,
#     device total 2*(5 + 10) = 30; addmm: calls 2, CPU total 80, self 80 - 2*2 = 76, self
#     device 20, total 20; copy_: 1 call, device 8 (a memcpy counts as device time).
cat >"$TMP/o.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 2, "args": {"correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 20, "dur": 40},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 2, "args": {"correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "bias_kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 30, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 205, "dur": 2, "args": {"correlation": 3}},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 220, "dur": 40},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 225, "dur": 2, "args": {"correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "bias_kernel", "pid": 0, "tid": 7, "ts": 210, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 230, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 4}},
{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 400, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 401, "dur": 3, "args": {"correlation": 5}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 402, "dur": 8, "args": {"device": 0, "stream": 7, "correlation": 5, "bytes": 4096}},
{"ph": "X", "cat": "kernel", "name": "orphan_kernel", "pid": 0, "tid": 7, "ts": 500, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 99}},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}
]}
JSON
"$TTRACE" --report=operators --json "$TMP/o.json" >"$TMP/o.out" 2>"$TMP/err"
is "$?" 0 "--report=operators --json runs"
q() { "$JSONQ" "$@" <"$TMP/o.out"; }
is "$(q files.0.operators.#)" 3 "three operator names"
is "$(q files.0.operators.0.name files.0.operators.0.calls files.0.operators.0.cpu_total_ns files.0.operators.0.self_cpu_ns | tr '\n' ' ')" \
	"aten::linear 2 200000 116000 " "linear first (device total): 2 calls, CPU total 200 us, self 116 us"
is "$(q files.0.operators.0.self_device_ns files.0.operators.0.device_total_ns files.0.operators.0.device_mean_ns | tr '\n' ' ')" \
	"10000 30000 15000 " "linear: self device 10 us (its own launches), device total 30 us (addmm's added), mean 15 us"
is "$(q files.0.operators.1.name files.0.operators.1.self_cpu_ns files.0.operators.1.self_device_ns files.0.operators.1.device_total_ns | tr '\n' ' ')" \
	"aten::addmm 76000 20000 20000 " "addmm: self CPU 76 us, self device = device total = 20 us"
is "$(q files.0.operators.2.name files.0.operators.2.self_device_ns | tr '\n' ' ')" "aten::copy_ 8000 " \
	"a memcpy is device time of the operator that launched it"
is "$(q files.0.gpu_activities files.0.gpu_activities_linked | tr '\n' ' ')" "6 5 " \
	"6 GPU activities, 5 reach an operator (the orphan kernel has no launch)"
is "$(q files.0.operators.0.longest_dur_ns)" 100000 "the longest instance is kept"

out=$("$TTRACE" --report=operators "$TMP/o.json")
like "$out" "3 operator names by device total; 5 of 6 GPU activities reach an operator" "text report: the count and the linking"
like "$out" "aten::addmm" "text: the names"

# --top and --sort (text and JSON), and their usage errors
out=$("$TTRACE" --report=operators --top=1 --sort=self_cpu_ns "$TMP/o.json")
like "$out" "3 operator names by self_cpu_ns" "--sort names the column in the heading"
like "$out" "aten::linear" "--sort=self_cpu_ns: linear (116 us) first"
unlike "$out" "aten::addmm" "--top=1: one row"
like "$out" "... and 2 more" "and says how many more"
is "$("$TTRACE" --report=operators --json --sort=self_cpu_ns --top=2 "$TMP/o.json" | "$JSONQ" files.0.operators.# files.0.operators.1.name | tr '\n' ' ')" \
	"2 aten::addmm " "JSON: --top limits it, in the --sort order (addmm's 76 us second)"
run --report=operators --sort=nope "$TMP/o.json"
is "$rc" 2 "an unknown --sort column is a usage error"
like "$err" "no column 'nope' (columns: name, input_shapes, source, depth, parent, calls, self_cpu_ns" "and lists the columns"
run --report=kernels --top=-1 "$TMP/o.json"
is "$rc" 2 "a negative --top is a usage error"

scr() { "$TTRACE" -q --dump-screen --size=160x40 --keys="$1" "$TMP/o.json" | sed '/^--$/,$d'; }
out=$(scr O)
like "$out" "3 operator names; 5 of 6 GPU activities reach an operator, by device total" "O opens the Operators view"
out=$(scr 'Oj<Enter>')
like "$out" "the longest call of this operator" "Enter jumps to the longest instance"
like "$out" "aten::addmm" "of the selected row"
out=$(scr 'Osss')
like "$out" ", by self CPU (largest first)" "sort by any column"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5, "args": {"device": 0, "stream": 7}}]}\n' >"$TMP/gpu.json"
like "$("$TTRACE" -q --dump-screen --keys=O "$TMP/gpu.json")" "no operator in this trace" "a trace without operators says so"

S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=operators --json "$S/$f"
		no_crash "operators report on $f"
	done
fi
finish
