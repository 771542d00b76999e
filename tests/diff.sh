#!/bin/sh
# diff.sh: ttrace diff A B over a pair whose every difference is known
# (tests/fixtures/diff, written by tests/tools/gen-diff-fixtures.py, whose comments work
# each figure out): the figures per step, the noise marking, kernels fused away, the
# kernel families, the operators, the findings, the notes; then the arguments.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/diff"

d() { # d ARGS...: ttrace diff --json into $TMP/d.json
	"$TTRACE" diff -q --json "$@" >"$TMP/d.json" 2>"$TMP/err"
	rc=$?
}
q() { "$JSONQ" "$@" <"$TMP/d.json" | tr '\n' ' '; }
# at LIST FIELD VALUE: sets $p to the JSON path of the element of LIST whose FIELD is VALUE
at() {
	p=
	n=$("$JSONQ" "$1.#" <"$TMP/d.json" 2>/dev/null)
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		if [ "$("$JSONQ" "$1.$i.$2" <"$TMP/d.json")" = "$3" ]; then
			p="$1.$i"
			return
		fi
		i=$((i + 1))
	done
}

d "$F/before.json" "$F/after.json"
is "$rc $(q a.steps b.steps)" "0 4 4 " "two runs of 4 steps each"
like "$(q notes.0)" "different GPUs: A ran on NVIDIA A100-SXM4-80GB, B on NVIDIA H100 80GB HBM3" \
	"a different GPU is said first"
at figures key step_ns
is "$(q $p.a $p.b $p.change $p.spread $p.verdict)" "906000 606000 -300000 12000 change " \
	"step time: 906 -> 606 us (means of 900..912 and 600..612), spread 12 us: a change"
is "$(q steps.# steps.3.step_a steps.3.step_b steps.3.a_ns steps.3.b_ns steps.3.change_ns)" "4 4 4 912000 612000 -300000 " \
	"as many steps a side: step by step, #4 912 -> 612 us"
at figures key breakdown.dataloader_ns
is "$(q $p.a $p.b $p.verdict)" "200000 20000 change " "the DataLoader stall removed: 200 -> 20 us per step"
at figures key kernels_per_step
is "$(q $p.a $p.b $p.verdict)" "12 3 change " "kernel launches per step: 12 -> 3"
at figures key gpu_utilization
like "$(q $p.verdict)" "change" "GPU utilization judged against its per-step spread"

at kernels name slow_kernel
is "$(q $p.time_a_ns $p.time_b_ns $p.change_ns $p.change_pct $p.verdict)" "300000 150000 -150000 -50 change " \
	"the slower kernel: 300 -> 150 us per step, -50%"
at kernels name ampere_sgemm_128x64_nn
is "$(q $p.time_a_ns $p.time_b_ns $p.spread_ns $p.verdict)" "206000 209000 12000 noise " \
	"the GEMM 3 us slower within its 12-us spread: noise, not a loss"
at kernels name triton_poi_fused_add_0
is "$(q $p.calls_a $p.calls_b $p.verdict)" "null 1 new in B " "the fused kernel is new in B"
at kernels family elementwise
at kernel_families family elementwise
is "$(q $p.time_a_ns $p.time_b_ns $p.change_ns $p.launches_a $p.launches_b $p.launches_change)" \
	"100000 30000 -70000 10 1 -9 " "elementwise family: -70 us and 9 fewer launches per step (ten kernels fused)"
n=$("$JSONQ" kernels.# <"$TMP/d.json")
gone=0
i=0
while [ "$i" -lt "$n" ]; do
	[ "$("$JSONQ" kernels.$i.verdict <"$TMP/d.json")" = "gone in B" ] && gone=$((gone + 1))
	i=$((i + 1))
done
is "$gone" 1 "the add kernel is gone in B"
is "$(q kernels.0.name)" "slow_kernel " "kernels by the largest change first"

at operators name aten::add
is "$(q $p.calls_a $p.calls_b $p.self_device_a_ns $p.self_device_b_ns $p.verdict)" "10 1 100000 30000 change " \
	"aten::add: 10 calls of 10 us -> 1 of 30 us per step"
at operators name aten::mm
is "$(q $p.verdict)" "noise " "aten::mm: noise"

at findings key dataloader_stall
is "$(q $p.state $p.confidence_a $p.confidence_b)" "gone high null " "the DataLoader stall finding is gone in B"

# the text says the same
run diff -q "$F/before.json" "$F/after.json"
like "$out" "step time                          906 us       606 us      -300 us   -33.1%     12.0 us  change" \
	"text: the step time line"
like "$out" "note: different GPUs" "text: the note"
like "$out" "dataloader_stall    gone" "text: the findings"
unlike "$(printf '%s\n' "$out" | awk 'length($0) > 120')" "." "text: no line wider than 120 columns"

# fewer than 3 steps: no spread, said
d "$F/before.json" "$F/after-2steps.json"
like "$(q notes)" "B has 2 steps: no run-to-run spread to judge a change by" "2 steps: said"
is "$(q steps.#)" "0 " "4 steps against 2: no step-by-step table (means, said in the notes)"
at figures key step_ns
is "$(q $p.spread $p.verdict)" "null no_spread " "2 steps: no spread, no noise marking"

# a side against itself: nothing changed
d "$F/before.json" "$F/before.json"
at figures key step_ns
is "$(q $p.change $p.verdict notes.#)" "0 same 0 " "a run against itself: no change, no note"

# ranks of one job: --ranks
mkdir -p "$TMP/job"
cp "$srcdir/tests/fixtures/stragglers/compute/"rank*.json "$TMP/job/"
d --ranks 0,2 "$TMP/job"
is "$(q a.paths.0 b.paths.0)" "$TMP/job/rank0.json $TMP/job/rank2.json " "--ranks 0,2: rank 0 against rank 2"
d --ranks r0,r2 "$TMP/job"
is "$rc" 0 "--ranks r0,r2 reads too"
d "$TMP/job" "$TMP/job"
is "$(q a.paths.# b.paths.#)" "3 3 " "two rank directories: each side is its ranks"

# input shapes (record_shapes): told apart, or recorded on one side only
d "$F/shapes-64.json" "$F/shapes-32.json"
like "$(q notes)" "input shapes differ: A's first aten::linear takes [[64, 1024], [1024, 1024], [1024]], B's [[32, 1024], [1024, 1024], [1024]]" \
	"batch 64 against batch 32: the first layer's input shapes differ, said"
d "$F/before.json" "$F/shapes-64.json"
like "$(q notes)" "only B recorded input shapes (record_shapes=True)" "shapes recorded on one side only: said"
d "$F/shapes-64.json" "$F/shapes-64.json"
unlike "$(q notes)" "shapes" "the same shapes: nothing said"

# matched by more than the name: operators by input shapes, kernels by launching operator
d --group-by=shape "$F/shapes-64.json" "$F/shapes-32.json"
at operators name "aten::linear [[64, 1024], [1024, 1024], [1024]]"
is "$(q $p.verdict $p.self_device_a_ns)" "gone in B 640000 " "--group-by=shape: batch 64's aten::linear is gone in B"
at operators name "aten::linear [[32, 1024], [1024, 1024], [1024]]"
is "$(q $p.verdict $p.self_device_b_ns $p.spread_ns)" "new in B 320000 null " \
	"and batch 32's new, without a spread (operators by shape have no per-step split)"
d --group-by=operator "$F/before.json" "$F/after.json"
at kernels name "triton_poi_fused_add_0 <- aten::add"
is "$(q $p.verdict $p.time_b_ns)" "new in B 30000 " "--group-by=operator: a kernel with the operator that launched it"
at kernels name "slow_kernel <- aten::slow_op"
is "$(q $p.verdict $p.spread_ns)" "change 0 " "and its per-step split by the same key"
run diff --group-by=stream "$F/before.json" "$F/after.json"
is "$rc" 2 "--group-by of no such matching: usage error"

# step against step: the slowest step (#3: a DataLoader stall 500 us longer) against the
# median one (#2), judged against the other steps' min-max
d --steps "$F/slow-step.json"
is "$rc $(q a.step_number b.step_number)" "0 2 3 " "--steps: the median step #2 (A) against the slowest #3 (B)"
at figures key step_ns
is "$(q $p.a $p.b $p.spread $p.verdict)" "904000 1408000 12000 change " "the slowest step: 504 us longer, beyond the 12-us spread"
at figures key breakdown.dataloader_ns
is "$(q $p.a $p.b $p.verdict)" "200000 700000 change " "and the DataLoader says why: 500 us more"
at figures key breakdown.kernel_ns
is "$(q $p.verdict)" "noise " "its kernel time is within the spread: noise"
like "$(q notes)" "findings are over the whole trace" "findings are not compared step against step, said"
d --steps "$F/after-2steps.json"
like "$(q notes.0)" "step against step needs 3 steps or more: this trace has 2" "--steps on 2 steps: said"
run diff --steps "$F/before.json" "$F/after.json"
is "$rc" 2 "--steps with two traces: usage error"

# the timeline: --diff opens the Diff panel once both traces are there; X opens it
scr() { "$TTRACE" -q --dump-screen --size=140x40 "$@" | sed '/^--$/,$d'; }
out=$(scr --diff "$F/before.json" "$F/after.json")
like "$out" "Diff: rank 1 (B) against rank 0 (A), per step; 4 steps and 4" "--diff: the Diff panel opens"
like "$out" "note: different GPUs" "the panel shows the notes"
like "$out" "figure   step time" "and the figures"
like "$out" "906 us  606 us  -300 us   -33.1% 12.0 us change" "with the report's values"
like "$(scr --keys=X "$F/before.json" "$F/after.json")" "Diff: rank 1 (B)" "X opens it too"
like "$(scr --keys=X "$F/before.json")" "the diff compares two traces" "X with one trace says why not"
out=$(scr --diff --keys='/slow_kernel<Enter><Enter>' "$F/before.json" "$F/after.json")
like "$out" "slow_kernel" "Enter on a kernel row: its longest call in B is selected"
like "$out" "kernel on rank 1 stream 7, row 0: start +0.040 ms, dur 150 us" "in the details pane: B's call (150 us)"

# arguments
run diff "$F/before.json"
is "$rc" 2 "one trace: usage error"
like "$err" "diff wants two traces" "and says what it wants"
run diff --ranks 0 "$TMP/job"
is "$rc" 2 "--ranks with one rank: usage error"
run diff --ranks 0,9 "$TMP/job"
is "$rc" 1 "--ranks of a rank not loaded: fails"
like "$err" "no trace of rank 9" "and says which"
run --ranks 0,2 "$F/before.json"
is "$rc" 2 "--ranks without diff: usage error"
run diff --report=summary "$F/before.json" "$F/after.json"
is "$rc" 2 "diff with --report: usage error"

finish
