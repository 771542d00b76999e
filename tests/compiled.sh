#!/bin/sh
# compiled.sh: compiled models and CUDA graphs (tests/fixtures/compiled, written by
# tests/tools/gen-compiled-fixtures.py): a Triton kernel names the compiled region or
# operator that launched it, not inductor's launcher frames; a kernel replayed from a
# CUDA graph names the graph launch and the region around it; the launch-bound finding
# of a compiled model does not tell it to use torch.compile, an eager one's does. The
# eager assertions are the contrast: they hold before and after.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/compiled"
S="$srcdir/../shared/traces"
TTRACE_NO_CACHE=1
export TTRACE_NO_CACHE

# row FILE KERNEL: sets $kp to the JSON path of KERNEL's row in --report=kernels --json of
# FILE (in $TMP/k.json), or "" when it is not there.
row() {
	"$TTRACE" -q --report=kernels --json "$1" >"$TMP/k.json" 2>"$TMP/err"
	kp=
	n=$("$JSONQ" files.0.kernels.# <"$TMP/k.json" 2>/dev/null)
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		if [ "$("$JSONQ" "files.0.kernels.$i.name" <"$TMP/k.json")" = "$2" ]; then
			kp="files.0.kernels.$i"
			return
		fi
		i=$((i + 1))
	done
}
kq() { [ -n "$kp" ] && "$JSONQ" "$kp.$1" <"$TMP/k.json" 2>/dev/null; }

# launched FILE KERNEL BY VIA WHY: the kernel's launched_by and launched_via (VIA "": no
# key, not replayed from a graph).
launched() {
	row "$1" "$2"
	is "$(kq launched_by) | $(kq launched_via)" "$3 | $4" "$(basename "$1"): $2 launched by $3${4:+ via $4} ($5)"
}

launched "$F/compiled-launch.json" triton_poi_fused_add_0 "## Call CompiledFxGraph fx1 ##" "" \
	"past _launch_kernel, the kernel's record_function and the heuristics' run"
launched "$F/compiled-launch.json" triton_red_fused_sum_1 CompiledFunction "" "no annotation: the compiled function"
launched "$F/eager-launch.json" elementwise_kernel aten::add "" "eager: the operator above the launch, as before"
launched "$F/graph-replay.json" triton_poi_graph_0 "## Call CompiledFxGraph fx2 ##" cudaGraphLaunch \
	"a graph's kernels: past the replay's Python frames"
launched "$F/graph-replay.json" elementwise_kernel aten::add "" "the eager work after the graph"
row "$F/graph-replay.json" triton_red_graph_2
is "$(kq launched_by_calls) x $(kq launched_by)" "3 x ## Call CompiledFxGraph fx2 ##" \
	"graph-replay: each replay's kernel counted under the region"
run -q --report=kernels "$F/graph-replay.json"
like "$out" "cudaGraphLaunch " "graph-replay: the text names the graph launch"
# the timeline's details pane says the same as the Kernels view
details() { # details FILE KEYS: the details pane's "launched by" line after KEYS
	"$TTRACE" -q --dump-screen --size=160x40 --keys="$2" "$1" | sed '/^--$/,$d' | grep "launched by"
}
like "$(details "$F/compiled-launch.json" '/triton_red_fused_sum_1<Enter>]')" "launched by CompiledFunction via cuLaunchKernel" \
	"details pane: a Triton kernel is launched by the compiled function, not _launch_kernel"
like "$(details "$F/graph-replay.json" '/triton_poi_graph_0<Enter>')" \
	"launched by ## Call CompiledFxGraph fx2 ## via cudaGraphLaunch" "details pane: a replayed kernel names the graph's region and launch"
like "$(details "$F/eager-launch.json" '/elementwise_kernel<Enter>')" "launched by aten::add via cudaLaunchKernel" \
	"details pane: an eager kernel is launched by its operator, as before"

# the launch-bound finding: cause, fix and example on the compiled models and the eager one
lb() { # lb FILE: $cause, $fix, $ex of the launch_bound finding of FILE
	"$TTRACE" -q --report=advice --json "$1" >"$TMP/a.json" 2>"$TMP/err"
	cause= fix= ex=
	n=$("$JSONQ" files.0.findings.# <"$TMP/a.json" 2>/dev/null)
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		if [ "$("$JSONQ" "files.0.findings.$i.key" <"$TMP/a.json")" = launch_bound ]; then
			cause=$("$JSONQ" "files.0.findings.$i.cause" <"$TMP/a.json")
			fix=$("$JSONQ" "files.0.findings.$i.fix" <"$TMP/a.json")
			ex=$("$JSONQ" "files.0.findings.$i.example" <"$TMP/a.json")
		fi
		i=$((i + 1))
	done
}
lb "$F/eager-launch.json"
like "$cause" "eager mode" "eager: launch_bound says eager dispatch"
like "$ex" "torch.compile(model" "eager: launch_bound offers torch.compile"
lb "$F/compiled-launch.json"
like "$cause" "the model is compiled" "compiled: launch_bound knows the model is compiled"
like "$fix" "reduce-overhead" "compiled: launch_bound says which mode (CUDA graphs)"
unlike "$fix $ex" "torch.compile(model" "compiled: launch_bound does not offer torch.compile as if eager"
unlike "$cause" "eager mode" "compiled: the cause is not eager dispatch"
lb "$F/compiled-aten.json"
like "$cause" "no kernel is a Triton kernel" "compiled regions running ATen kernels: launch_bound says no Triton kernel ran"
like "$cause" "100.0% of the kernel time is launched inside them" "compiled-aten: with the share the regions launch"
like "$fix" "compile with inductor" "compiled-aten: the fix is inductor's code generation, then CUDA graphs"
unlike "$cause" "the model is compiled (Triton" "compiled-aten: the cause claims no Triton kernels"
unlike "$ex" "torch.compile(model" "compiled-aten: no torch.compile(model as if eager"
like "$cause" "outside matmuls, convolutions, attention and collectives 100.0% is ATen's own kernels" \
	"compiled-aten: what is ATen's, of what a code generator would fuse"
lb "$F/compiled-nvfuser.json"
unlike "$cause" "ATen's own kernels" "compiled regions running another generator's fused kernels (nvFuser): not called ATen's"
like "$cause" "the model is compiled (compiled regions)" "compiled-nvfuser: compiled, and no Triton kernel claimed"
lb "$F/graph-replay.json"
like "$cause" "replays CUDA graphs" "graph-replay: launch_bound knows the graphs replay"
like "$fix" "graph breaks" "graph-replay: launch_bound points at what the graphs leave to the host"
unlike "$fix $ex" "torch.compile(model" "graph-replay: launch_bound does not offer torch.compile"
unlike "$fix $ex" "reduce-overhead" "graph-replay: nor CUDA graphs, which it has"
run -q --report=advice "$F/compiled-launch.json"
unlike "$out" "torch.compile(model" "compiled: the text report has no torch.compile(model"
lb "$F/mostly-eager.json"
like "$cause" "eager mode" "mostly eager (2.8% of kernel time compiled): launch_bound says eager dispatch"
like "$ex" "torch.compile(model" "mostly eager: launch_bound offers torch.compile"
lb "$F/partly-compiled.json"
like "$cause" "part of the model is compiled (33.3% of the kernel time" "a third compiled: launch_bound says so, with the share"
like "$fix" "bring the eager part into the compiled graph" "partly compiled: the fix is to compile the eager rest"
unlike "$fix $ex" "torch.compile(model" "partly compiled: no torch.compile(model as if eager"

# real traces, when they are there
if [ -f "$S/a100-triton-single-kernel-tiny.json.gz" ]; then
	launched "$S/a100-triton-single-kernel-tiny.json.gz" triton_poi_fused_add_cos_sin_0 "Torch-Compiled Region: 0/0" \
		"" "past cuLaunchKernel's record_function"
fi
if [ -f "$S/infer-mi300x-xdit-flux-230k-events.json.gz" ]; then
	row "$S/infer-mi300x-xdit-flux-230k-events.json.gz" triton_poi_fused__to_copy_arange_cat_cos_div_exp_mul_sin_unsqueeze_3
	like "$(kq launched_by)" "## Call CompiledFxGraph" "xdit-flux: a replayed Triton kernel names the compiled graph"
	is "$(kq launched_via)" hipGraphLaunch "xdit-flux: and the graph launch"
fi
if [ -f "$S/train-a100-rank0of16-nccl.json.gz" ]; then
	launched "$S/train-a100-rank0of16-nccl.json.gz" triton__0d1d2d CompiledFunction cudaGraphLaunch \
		"a CUDA graph replayed under CompiledFunction"
fi
# Graph breaks (issue 34): the outermost compiled regions of each step, the top-level
# operators outside them, and the Python frame that called them. graph-breaks.json: step 1
# has three regions (two breaks) with aten::add and aten::relu between them (aten::view
# nests in relu, aten::mm in a region), a backward region on another thread (not counted,
# nor what nests in it); step 2 one region; every region under model.py(10): forward (the
# built-in frame in between skipped)
G="$srcdir/tests/fixtures/compiled/graph-breaks.json"
gb() { f=$1; shift; "$TTRACE" --report=overview --json "$f" | "$JSONQ" "$@" | tr '\n' ' '; }
is "$(gb "$G" files.0.compiled.regions files.0.compiled.steps.0.regions files.0.compiled.steps.0.graph_breaks files.0.compiled.steps.0.eager_ops)" \
	"4 3 2 2 " "step 1: 3 regions, 2 graph breaks, 2 eager operators between them; 4 regions in all"
is "$(gb "$G" files.0.compiled.steps.1.step files.0.compiled.steps.1.regions files.0.compiled.steps.1.graph_breaks files.0.compiled.steps.1.eager_ops)" \
	"2 1 0 0 " "step 2: one region, no break, nothing eager"
is "$(gb "$G" files.0.compiled.called_from.0.frame files.0.compiled.called_from.0.regions)" "model.py(10): forward 4 " \
	"every region called from model.py(10): forward (the built-in method's frame skipped)"
is "$(gb "$srcdir/tests/fixtures/compiled/eager-launch.json" files.0.compiled)" "null " "an eager trace: compiled is null"
run --report=overview "$G"
like "$out" "torch.compile: 4 compiled regions" "text: the count"
like "$out" "      1        3             2                2" "text: step 1's row"
like "$out" "        4  model.py(10): forward" "text: where the regions were called from"
unlike "$("$TTRACE" --report=overview "$srcdir/tests/fixtures/compiled/eager-launch.json")" "torch.compile:" \
	"an eager trace: no torch.compile section"
if [ -f "$S/train-a100-rank0of16-nccl.json.gz" ]; then
	is "$(gb "$S/train-a100-rank0of16-nccl.json.gz" files.0.compiled.steps.0.regions files.0.compiled.steps.0.graph_breaks)" "7 6 " \
		"train-a100-rank0of16: 7 CompiledFunction regions a step (the backward ones not counted): 6 graph breaks"
fi
finish
