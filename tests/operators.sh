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
like "$err" "no column 'nope' (columns: name, input_shapes, source, depth, parent, calls, self_device_ns, device_total_ns, device_mean_ns, self_cpu_ns" "and lists the columns"
run --report=kernels --top=-1 "$TMP/o.json"
is "$rc" 2 "a negative --top is a usage error"

scr() { "$TTRACE" -q --dump-screen --size=160x40 --keys="$1" "$TMP/o.json" | sed '/^--$/,$d'; }
out=$(scr O)
like "$out" "3 operator names; 5 of 6 GPU activities reach an operator, by device total" "O opens the Operators view"
out=$(scr 'Oj<Enter>')
like "$out" "the longest call of this operator" "Enter jumps to the longest instance"
like "$out" "aten::addmm" "of the selected row"
out=$(scr 'Ossssss')
like "$out" ", by self CPU (largest first)" "sort by any column"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5, "args": {"device": 0, "stream": 7}}]}\n' >"$TMP/gpu.json"
like "$("$TTRACE" -q --dump-screen --keys=O "$TMP/gpu.json")" "no operator in this trace" "a trace without operators says so"

# The plugin's operator tree, worked by hand on fixtures/ops/tree.json (times in us):
# ProfilerStep#1 > nn.Module: Net_0 (10-900) holding
#   aten::linear 20-220 > aten::linear 25-215 (one same-name child: merged, one call) holding
#     cudaLaunchKernel 4 (-> k1 50) and aten::addmm 40-140 holding a python_function (not a
#     node: no subtraction), cudaLaunchKernel 3 (-> gemm 100) and inside it cuLaunchKernel 1
#     (-> k3 20; a driver call inside a runtime call is not subtracted again);
#   my_region (a user annotation: not a node) holding aten::mul 310-360 (cudaLaunchKernel 5 ->
#     mul_kernel 10) and a cudaLaunchKernel 5 outside any operator (-> k7 7: nobody's);
#   model.py(20): forward > aten::linear 600-700 (cudaMemcpyAsync 5 -> memcpy 30);
# then enumerate(DataLoader)#...__next__ (a node, not a row).
# linear: 2 calls, CPU total 300, self (200-100-4) + (100-5) = 191, self device 50+30 = 80,
#   device total 80+120 = 200; addmm: self 100-3 = 97, device 100+20 = 120; mul: 45 and 10.
F="$srcdir/tests/fixtures/ops/tree.json"
"$TTRACE" --report=operators --json "$F" >"$TMP/t.out"
qt() { "$JSONQ" "$@" <"$TMP/t.out"; }
is "$(qt files.0.group_by files.0.operators.# | tr '\n' ' ')" "name 3 " "tree fixture: three operator rows (steps, modules, DataLoader left out)"
is "$(qt files.0.operators.0.name files.0.operators.0.calls files.0.operators.0.cpu_total_ns files.0.operators.0.self_cpu_ns files.0.operators.0.self_device_ns files.0.operators.0.device_total_ns | tr '\n' ' ')" \
	"aten::linear 2 300000 191000 80000 200000 " "linear: the same-name child merged, self CPU less child nodes and own runtime calls"
is "$(qt files.0.operators.1.name files.0.operators.1.self_cpu_ns files.0.operators.1.self_device_ns | tr '\n' ' ')" \
	"aten::addmm 97000 120000 " "addmm: a python_function is no child, a nested driver call counts once, its kernel does"
is "$(qt files.0.operators.2.name files.0.operators.2.self_cpu_ns files.0.operators.2.self_device_ns | tr '\n' ' ')" \
	"aten::mul 45000 10000 " "mul under a user annotation keeps its runtime call"
is "$(qt files.0.gpu_activities files.0.gpu_activities_linked | tr '\n' ' ')" "6 5 " \
	"a launch inside an annotation but no operator belongs to nobody"

"$TTRACE" --report=operators --json --group-by=shape "$F" >"$TMP/t.out"
is "$(qt files.0.group_by files.0.operators.# files.0.instances_with_key | tr '\n' ' ')" "shape 4 4 " "--group-by=shape: linear splits in two"
is "$(qt files.0.operators.0.name files.0.operators.0.input_shapes files.0.operators.0.calls files.0.operators.0.device_total_ns | tr '\n' '|')" \
	"aten::linear|[[4, 8], [16, 8], [16]]|1|170000|" "shapes written as the plugin groups them"
is "$(qt files.0.operators.3.input_shapes)" "[[4, 8], []]" "an empty shape stays"
"$TTRACE" --report=operators --json --group-by=source "$F" >"$TMP/t.out"
is "$(qt files.0.operators.0.source files.0.operators.2.source files.0.instances_with_key | tr '\n' '|')" \
	"model.py(12): forward|model.py(20): forward|2|" "--group-by=source: Call stack's first user frame, else the python_function around"
run --report=operators --json --group-by=source --top=1 "$TMP/o.json"
like "$out" '"missing": "no operator has a source location' "a trace without stacks says so in JSON"
like "$("$TTRACE" --report=operators --group-by=shape "$TMP/o.json")" "record with record_shapes=True" "and names the option in text"
"$TTRACE" --report=operators --json --group-by=tree "$F" >"$TMP/t.out"
is "$(qt files.0.operators.# files.0.operators.0.name files.0.operators.0.self_cpu_ns files.0.operators.0.device_total_ns | tr '\n' '|')" \
	"5|nn.Module: Net_0|540000|210000|" "tree: the module rolls up its operators (self 890-200-100-50)"
is "$(qt files.0.operators.1.name files.0.operators.1.depth files.0.operators.1.parent files.0.operators.1.calls files.0.operators.2.name files.0.operators.2.depth files.0.operators.2.parent | tr '\n' ' ')" \
	"aten::linear 1 0 2 aten::addmm 2 1 " "tree: both linears on one path, addmm below; depth and parent"
is "$(qt files.0.operators.3.name files.0.operators.4.depth | tr '\n' ' ')" "aten::mul 0 " "tree: siblings by device total, DataLoader a root"
run --report=operators --group-by=nope "$F"
is "$rc" 2 "an unknown --group-by is a usage error"
out=$(scr2() { "$TTRACE" -q --dump-screen --size=160x40 --keys="$1" "$F" | sed '/^--$/,$d'; }; scr2 Og)
like "$out" "4 operator names and input shapes" "g in the panel groups by shapes"
out=$("$TTRACE" -q --dump-screen --size=160x40 --keys=Oggg "$F" | sed '/^--$/,$d')
like "$out" "5 operator call paths" "g again: the source, then the tree"
like "$out" "    aten::addmm" "indented by depth"
out=$("$TTRACE" -q --dump-screen --size=160x40 --keys='O<Enter>]' "$F" | sed '/^--$/,$d')
like "$out" "kernel 1/3 launched under aten::linear" "] from the operator's longest instance leads to its GPU work"
like "$out" "k1" "its first kernel selected"
like "$("$TTRACE" -q --dump-screen --size=160x40 --keys=Kg "$F" | sed '/^--$/,$d')" "kernel" "other tables ignore g"

rlike() { # rlike TEXT REGEX DESCRIPTION: a line of TEXT matches the extended REGEX
	printf '%s\n' "$1" | grep -qE -- "$2"
	ok $? "$3"
}

# The tree mode folds (the panel's only: the reports keep every row). tree.json's call
# tree: nn.Module: Net_0 > aten::linear (self CPU 191 us) > aten::addmm, Net_0 > aten::mul
# (45 us); enumerate(DataLoader)... (60 us) a root. Five rows: all open at first (at most
# 40 rows show). tscr KEYS [OPTIONS]: the screen's text; names: the rows' names in order,
# with their marks; at: the selection's place ("2/5").
tscr() { k=$1; shift; "$TTRACE" -q --dump-screen --size=160x40 --keys="$k" "$@" "$F" | sed '/^--$/,$d'; }
names() { sed -n '5,$p' | sed -E 's/^ +//; s/  +[0-9].*//' | sed '/^$/q' | sed '/^$/d' | tr '\n' '|'; }
at() { grep -oE ' [0-9]+/[0-9]+ *$' | tr -d ' '; }
DL="enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
is "$(tscr Oggg | names)" "▾ nn.Module: Net_0|▾ aten::linear|aten::addmm|aten::mul|$DL|" \
	"tree: a mark before each name with children (▾ expanded), none for a leaf"
like "$(tscr Oggg)" "      aten::addmm" "indented two columns a level, behind the marks' column"
like "$(tscr Oggg)" "+/- expand" "the hints name the keys"
is "$(tscr Oggg- | names)" "▸ nn.Module: Net_0|$DL|" "- collapses the selected row: its descendants go (▸)"
is "$(tscr Oggg- | at)" "1/2" "and the rows counted are those shown"
is "$(tscr Oggg-+ | names)" "$(tscr Oggg | names)" "+ expands it again, as it was below"
is "$(tscr Oggg-= | names)" "$(tscr Oggg | names)" "= too (+ unshifted)"
is "$(tscr Ogggj- | names)" "▾ nn.Module: Net_0|▸ aten::linear|aten::mul|$DL|" "- on a child: only its subtree goes"
out=$(tscr Ogggjj-)
is "$(printf '%s\n' "$out" | names)" "$(tscr Oggg | names)" "- on a leaf collapses nothing"
is "$(printf '%s\n' "$out" | at)" "2/5" "and selects its parent"
is "$(tscr Ogggj-- | at)" "1/4" "- on a collapsed row selects its parent"
is "$(tscr Ogggj--- | names)" "▸ nn.Module: Net_0|$DL|" "and - again collapses that"
is "$(tscr Oggg_ | names)" "▸ nn.Module: Net_0|$DL|" "_ collapses every row"
is "$(tscr Oggg_* | names)" "$(tscr Oggg | names)" "* expands the selected row and every row below it"
is "$(tscr Oggg_j* | names)" "▸ nn.Module: Net_0|$DL|" "* on a leaf expands nothing"
out=$(tscr Ogggjj_)
is "$(printf '%s\n' "$out" | at)" "1/2" "a selected row folded away: the selection goes to its ancestor shown"
like "$(tscr 'Ogggjj_<Enter>')" "Net_0" "whose longest instance Enter shows"
out=$(tscr 'Ogggjj<Enter>')
like "$out" "the longest call of this operator" "Enter on a tree row jumps to its longest instance"
like "$out" "aten::addmm" "of the row selected"
is "$(tscr 'Oggg-j<Enter>' | grep -c "$DL")" 1 "Enter after folding: the row selected, not the one at its old place"
like "$(tscr 'Oggg-j<Enter>')" "the longest call of this operator" "(it jumps)"
like "$(tscr 'Oggg<Click:1,4>' | names)" "▸ nn.Module: Net_0" "a click on the mark collapses its row"
is "$(tscr 'Oggg<Click:1,4><Click:1,4>' | names)" "$(tscr Oggg | names)" "and expands it"
is "$(tscr 'Oggg<Click:8,5>' | names)" "$(tscr Oggg | names)" "a click on the name selects, folds nothing"
is "$(tscr 'Oggg<Click:8,5>' | at)" "2/5" "(selects)"
is "$(tscr Oggg- --ascii | names)" "+ nn.Module: Net_0|$DL|" "--ascii: + collapsed"
like "$(tscr Oggg --ascii | names)" "- nn.Module: Net_0|- aten::linear|aten::addmm" "- expanded"
like "$(tscr O+)" "expanding and collapsing rows is for the tree grouping (g groups" "other groupings say where the tree keys work"
out=$("$TTRACE" -q --dump-screen --size=160x70 --keys='Oggg?' "$F" | sed '/^--$/,$d')
like "$out" "tree: expand the selected row" "? lists the tree's keys"
rlike "$out" "^  \\+ = +tree: expand the selected row" "with + and ="
rlike "$out" "^  - +tree: collapse the selected row" "-"
rlike "$out" "^  \\* +tree: expand the selected row and every row below" "*"
rlike "$out" "^  _ +tree: collapse every row" "_"

# sort: siblings under their parent. By self CPU, smallest first: DataLoader (60) before
# Net_0 (540), and under Net_0 mul (45) before linear (191): mul stays below Net_0.
like "$(tscr Ogggssssss)" "as a call tree, by self CPU (largest first)" "s sorts the tree's rows"
is "$(tscr Ogggssssss | names)" "$(tscr Oggg | names)" "self CPU, largest first: the tree's own order here"
is "$(tscr Ogggssssssr | names)" "$DL|▾ nn.Module: Net_0|aten::mul|▾ aten::linear|aten::addmm|" \
	"smallest first: roots sorted, each row's children sorted under it"
is "$(tscr Ogggssssssjjr | at)" "5/5" "the selection stays on its row (addmm) across a sort"
is "$(tscr Ogggssssss-r | names)" "$DL|▸ nn.Module: Net_0|" "the folding stays across a sort"

# filter: the rows that match with their ancestors, expanded; clearing it brings back
# what was expanded before, with the selected row shown
out=$(tscr 'Oggg_/addmm<Enter>')
is "$(printf '%s\n' "$out" | names)" "▾ nn.Module: Net_0|▾ aten::linear|aten::addmm|" \
	"a filter shows the match under its ancestors, expanded, not the other rows"
like "$out" 'filter "addmm": 3 rows' "the title counts the rows shown"
is "$(tscr 'Oggg/mul<Enter>' | names)" "▾ nn.Module: Net_0|aten::mul|" "a match's ancestors only: linear is not on mul's path"
is "$(tscr 'Oggg/aten<Enter>' | names)" "▾ nn.Module: Net_0|▾ aten::linear|aten::addmm|aten::mul|" \
	"every match, and Net_0 without the DataLoader"
is "$(tscr 'Oggg/aten<Enter>j-' | names)" "▾ nn.Module: Net_0|▸ aten::linear|aten::mul|" "filtered rows fold too"
is "$(tscr 'Oggg_/addmm<Enter>/<Esc>' | names)" "▸ nn.Module: Net_0|$DL|" \
	"the filter cleared: the rows expanded before it come back"
out=$(tscr 'Oggg_/addmm<Enter>jj/<Esc>')
is "$(printf '%s\n' "$out" | names)" "▾ nn.Module: Net_0|▾ aten::linear|aten::addmm|aten::mul|$DL|" \
	"with the selected row's ancestors expanded"
is "$(printf '%s\n' "$out" | at)" "3/5" "and the selection on it"

# the reports keep every row, indented, with no mark
out=$("$TTRACE" --report=operators --group-by=tree "$F")
like "$out" "       aten::addmm" "--report=operators --group-by=tree: names indented by depth"
unlike "$out" "▾" "no mark in the report"
is "$("$TTRACE" --report=operators --group-by=tree --json "$F" | "$JSONQ" files.0.operators.# files.0.operators.2.name | tr '\n' ' ')" \
	"5 aten::addmm " "JSON: every row, names whole"

# A tree deeper than a screen: 3 roots, 30 children, a leaf under each child. The roots
# are expanded (33 rows); their children's 30 leaves would pass 40 rows, so they are not.
{
	printf '{"traceEvents": [\n'
	for r in a b; do
		base=$([ $r = a ] && echo 0 || echo 10000)
		printf '{"ph": "X", "cat": "cpu_op", "name": "root_%s", "pid": 1, "tid": 1, "ts": %d, "dur": 5000},\n' $r $base
		for j in $(seq 10 24); do
			ts=$((base + 10 + (j - 10) * 300))
			printf '{"ph": "X", "cat": "cpu_op", "name": "child_%s%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n' $r $j $ts $((100 + j))
			printf '{"ph": "X", "cat": "cpu_op", "name": "leaf_%s%d", "pid": 1, "tid": 1, "ts": %d, "dur": 50},\n' $r $j $((ts + 10))
		done
	done
	printf '{"ph": "X", "cat": "cpu_op", "name": "root_c", "pid": 1, "tid": 1, "ts": 20000, "dur": 100}\n]}\n'
} >"$TMP/deep.json"
dscr() { "$TTRACE" -q --dump-screen --size=120x60 --keys="$1" "$TMP/deep.json" | sed '/^--$/,$d'; }
out=$(dscr Oggg)
is "$(printf '%s\n' "$out" | at)" "1/33" "a deep tree opens with its roots expanded"
like "$out" "▸ child_a24" "their children collapsed"
unlike "$out" "leaf_" "the leaves below not shown"
is "$(printf '%s\n' "$out" | names | cut -d'|' -f1-3)" "▾ root_a|▸ child_a24|▸ child_a23" "children by CPU total, under their root"
like "$(dscr Ogggj+)" "    leaf_a24" "+ shows a child's leaf"
is "$(dscr Ogggj+ | at)" "2/34" "one row more"
is "$(dscr 'Oggg*' | at)" "1/48" "* on root_a: its 15 leaves come"
is "$(dscr 'Oggg_' | names)" "▸ root_a|▸ root_b|root_c|" "_: the roots alone"
like "$(dscr 'Oggg/leaf_b17<Enter>')" 'filter "leaf_b17": 3 rows' "a filter finds a leaf under a collapsed child"
is "$(dscr 'Oggg/leaf_b17<Enter>' | names)" "▾ root_b|▾ child_b17|leaf_b17|" "and shows it"

S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	# The plugin's Operator view (torch-tb-profiler 0.4.3, ../shared/REFERENCE-VIEWS.md), in
	# ns: file|operator|calls|self CPU|CPU total|self device|device total ("-": no device
	# columns). Equal within 2 ns a call: the plugin takes durations as float (ts+dur)-ts.
	# Rows whose figures differ on purpose (External id mismatch, cuda_driver launches,
	# activation checkpointing) are in the man page, not here.
	while IFS='|' read -r f name calls self total dself dtotal; do
		[ -f "$S/$f" ] || continue
		"$TTRACE" --report=operators --json "$S/$f" >"$TMP/p.out" 2>/dev/null
		n=$("$JSONQ" files.0.operators.# <"$TMP/p.out")
		paths=$(seq 0 $((n - 1)) | sed 's/.*/files.0.operators.&.name/')
		# shellcheck disable=SC2086 # one path a word
		i=$("$JSONQ" $paths <"$TMP/p.out" | grep -n -x -F "$name" | head -1 | cut -d: -f1)
		if [ -z "$i" ]; then
			ok 1 "plugin figures: $name in $f"
			continue
		fi
		i=$((i - 1))
		got=$("$JSONQ" files.0.operators.$i.calls files.0.operators.$i.self_cpu_ns files.0.operators.$i.cpu_total_ns \
			files.0.operators.$i.self_device_ns files.0.operators.$i.device_total_ns <"$TMP/p.out" | tr '\n' ' ')
		echo "$got" | awk -v c="$calls" -v a="$self" -v b="$total" -v d="$dself" -v e="$dtotal" '
			function off(x, y) { return y != "-" && (x - y > 2 * c + 2 || y - x > 2 * c + 2) }
			{ exit !($1 == c && !off($2, a) && !off($3, b) && !off($4, d) && !off($5, e)) }'
		ok $? "plugin figures: $name in $f ($calls calls, self CPU $self, CPU total $total, self device $dself, device total $dtotal; ttrace: $got)"
	done <<'PLUGIN'
b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz|symm_mem::multimem_all_reduce_|73|635147|1166256|2119547|2119547
b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz|aten::copy_|236|3446883|6998965|1186101|1186101
cpu-only-gloo-rank34of300.pt.trace.json.gz|aten::mm|80|48133723|48168179|-|-
infer-h100-owlv2-memory-pyfunc.json.gz|aten::_softmax|180|1016174|1797943|262538216|262538216
infer-h100-qwen1.5-0.5b-chat-memory.json.gz|aten::mul|220|1372802|2131622|6752900|6752900
infer-h100-qwen1.5-0.5b-chat-memory.json.gz|aten::mm|96|2430251|3690535|6668682|6668682
infer-mi300x-sglang-decode-cudagraph-capture.json.gz|aten::fill_|2|32419|50385|11016|11016
infer-mi300x-xdit-flux-230k-events.json.gz|Torch-Compiled Region: 0/0|4|2635589|4943689|170998309|171128354
mi250-rocm62-minitoy-train.json.gz|aten::copy_|2|40947|136719|38161|38161
mi250-rocm62-minitoy-train.json.gz|aten::addmm|1|133381|181604|24480|24480
resnet50-v100-2021-oldcats-memory.pt.trace.json.gz|aten::cudnn_convolution_backward_weight|318|22804000|40246000|142461000|142461000
resnet50-v100-2021-oldcats-memory.pt.trace.json.gz|aten::cudnn_convolution_backward_input|312|29324000|41445000|130967000|130967000
train-a100-rank0of2-nccl-basetime.json.gz|record_param_comms|27|1795742|4319036|46876492|46876492
train-a100-rank0of2-nccl-basetime.json.gz|aten::convolution_backward|159|28160768|52597723|39529077|39529077
PLUGIN
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=operators --json "$S/$f"
		no_crash "operators report on $f"
		# shapes read from args: a side store (one-frame .zst) reads one op at a time
		run --report=operators --json --group-by=shape "$S/$f"
		no_crash "operators by shape on $f"
	done
fi
# device memory per operator, from the Memory view's table (tests/fixtures/memory/views.json,
# worked in tests/memory.sh): summed over the devices that are not the CPU
M="$srcdir/tests/fixtures/memory/views.json"
"$TTRACE" --report=operators --json "$M" >"$TMP/m.json"
mq() { "$JSONQ" "$@" <"$TMP/m.json" | tr '\n' ' '; }
is "$(mq files.0.operators.0.name files.0.operators.0.self_device_alloc_bytes files.0.operators.0.device_alloc_bytes)" \
	"aten::linear 500 1500 " "aten::linear: 500 bytes itself, 1500 with the aten::addmm inside it"
is "$(mq files.0.operators.2.name files.0.operators.2.self_device_alloc_bytes)" "aten::add 4000 " \
	"aten::add: cuda:0's 4000 bytes, not the CPU's 64"
is "$(mq files.0.operators.3.name files.0.operators.3.device_alloc_bytes)" "aten::empty 3256 " \
	"aten::empty: cuda:0's 3000 and hip:0's 256"
like "$("$TTRACE" -q --dump-screen --size=200x20 --keys=O "$M")" "self dev mem dev mem" "the panel shows them"
unlike "$("$TTRACE" -q --dump-screen --size=200x20 --keys=O "$srcdir/tests/fixtures/ops/tree.json")" "dev mem" \
	"not for a trace without [memory] samples"
is "$("$TTRACE" --report=operators --json "$srcdir/tests/fixtures/ops/tree.json" | "$JSONQ" files.0.operators.0.device_alloc_bytes)" \
	null "whose JSON has null"

# The grouping by name, which the view opens on, is computed in one sweep without the tree
# (ops_by_name); tests/opcheck checks it against the tree grouped by name, field by field.
# tests/fixtures/ops/merge-graph.json, worked by hand:
#   aten::to (100) holds only aten::to (80): merged (torch's _remove_dup_nodes), the outer
#     one's own launch (k_outer_to 6 us) dropped, the inner's kept: self CPU 100 - 40
#     (copy_) - 2 (launch) = 58, self device 4, device total 4 + 8 (copy_'s memcpy) = 12;
#   aten::add (100) holds two aten::add (30): not merged: 3 calls, CPU total 160, self CPU
#     40 + 28 + 28 = 96, self device 3 + 5, device total 8 + 8 = 16;
#   CUDAGraph::replay: one cudaGraphLaunch launched three kernels: self device 10+20+30;
#   aten::copy_ (40) with its cudaMemcpyAsync (5): self CPU 35, device 8 (the memcpy).
G="$srcdir/tests/fixtures/ops/merge-graph.json"
"$TTRACE" --report=operators --json "$G" >"$TMP/g.json"
gq() { "$JSONQ" "$@" <"$TMP/g.json" | tr '\n' ' '; }
row() { gq files.0.operators.$1.name files.0.operators.$1.calls files.0.operators.$1.cpu_total_ns \
	files.0.operators.$1.self_cpu_ns files.0.operators.$1.self_device_ns files.0.operators.$1.device_total_ns; }
is "$(row 0)" "CUDAGraph::replay 1 100000 90000 60000 60000 " "a graph launch: every kernel it launched is device time"
is "$(row 1)" "aten::add 3 160000 96000 8000 16000 " "same-name children that are not alone: three instances"
is "$(row 2)" "aten::to 1 100000 58000 4000 12000 " "a lone same-name child merged into its parent"
is "$(row 3)" "aten::copy_ 1 40000 35000 8000 8000 " "aten::copy_ under the merged aten::to: self CPU 40 - 5 (its cudaMemcpyAsync)"
is "$(gq files.0.operators.# files.0.gpu_activities files.0.gpu_activities_linked)" "4 8 8 " \
	"four names; 8 GPU activities, all linked"
out=$("$OPCHECK" "$G" "$srcdir/tests/fixtures/ops/tree.json" "$M" "$TMP/o.json" 2>&1)
is "$?" 0 "one sweep = the tree grouped by name on the hand-worked fixtures"
like "$out" "merge-graph.json: 4 rows, same (runtime calls with several GPU activities)" "the graph launch path taken"
files=$(find "$srcdir/tests/fixtures" -name '*.json*' -type f | sort)
out=$(echo "$files" | xargs "$OPCHECK" 2>&1)
is "$(echo "$out" | grep -v -e ', same' -e 'cannot load' | head -3)" "" "one sweep = the tree on every fixture"
if [ -d "$S" ]; then
	out=$(find "$S" -type f -name '*.json*' | sort | xargs "$OPCHECK" 2>&1)
	is "$(echo "$out" | grep -v -e ', same' -e 'cannot load' | head -3)" "" "one sweep = the tree on every shared trace"
	like "$out" "train-a100-rank0of16-nccl.json.gz: 143 rows, same" "including a trace with graph launches"
fi
finish
