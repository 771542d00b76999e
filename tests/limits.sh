#!/bin/sh
# limits.sh: every report says the limits of what it stands on (src/data_limits.h), as
# "limits": [{key, text}] in JSON and "limit:" lines in text, worded as the advice words
# them: a file cut short, a legacy-exporter trace, a window of fewer than 2 steps (overview,
# gaps), memory without totals (memory), ranks missing and an alignment that does not hold
# (distributed); and the Overview panel shows them. REGEN=1 rewrites the golden screen.
. "$srcdir/tests/lib.sh"
FX="$srcdir/tests/fixtures"
GOLD="$srcdir/tests/golden/limits"
export TTRACE_NO_CACHE=1
keys() { "$JSONQ" "$@" <"$TMP/r.json" | tr '\n' ' '; }
json() { # json REPORT FILE...: --report=REPORT --json into $TMP/r.json
	r=$1
	shift
	"$TTRACE" -q --report="$r" --json "$@" >"$TMP/r.json" 2>/dev/null
}

# A file cut short (80% of its bytes): every per-file report says how much was kept.
F="$FX/advice/tensor_cores_unused-ffma-xmma.json"
n=$(wc -c <"$F")
head -c $((n * 8 / 10)) "$F" >"$TMP/cut.json"
for r in summary overview gaps operators kernels memory; do
	json $r "$TMP/cut.json"
	is "$(keys files.0.limits.# files.0.limits.0.key)" "1 truncated " "$r --json: a cut file's limit"
	like "$(keys files.0.limits.0.text)" "(1.63 kB of JSON, 3.00 ms of trace)" "$r --json: how much was kept"
	run -q --report=$r "$TMP/cut.json"
	like "$out" "
   limit: the file is cut short: only what came before the cut is here (1.63 kB of JSON, 3.00 ms of trace)" \
		"$r: a limit line"
done
# the same words as the advice's
json overview "$TMP/cut.json"
t=$(keys files.0.limits.0.text)
json advice "$TMP/cut.json"
is "$(keys files.0.limits.0.text)" "$t" "the advice and the reports word the limit alike"

# A legacy-exporter trace (torch before Kineto)
for r in summary overview gaps operators kernels memory; do
	json $r "$FX/q-legacy.json"
	is "$(keys files.0.limits.0.key)" "legacy_exporter " "$r --json: a legacy-exporter trace's limit"
	run -q --report=$r "$FX/q-legacy.json"
	like "$out" "limit: a legacy-exporter trace (torch before Kineto): no args, no launch links, times rounded to us" \
		"$r: a limit line"
done

# A window of one step: the overview and the gaps, over the steps, say so; the other
# reports are over the whole file
for r in overview gaps; do
	json $r "$FX/q-bare-array.json"
	is "$(keys files.0.limits.# files.0.limits.0.key)" "1 one_step " "$r --json: a window of one step"
	run -q --report=$r "$FX/q-bare-array.json"
	like "$out" "limit: a window of one step: warm-up or a one-off may dominate it" "$r: a limit line"
done
# no ProfilerStep at all: the window is the whole trace, and the limit says that, not
# "one step"
for r in overview gaps advice; do
	json $r "$FX/q-gpu-overlap.json"
	is "$(keys files.0.limits.# files.0.limits.0.key)" "1 no_steps " "$r --json: a trace without profiler steps"
	run -q --report=$r "$FX/q-gpu-overlap.json"
	like "$out" "limit: no profiler steps (ProfilerStep#N): the window is the whole trace" "$r: a limit line"
	unlike "$out" "a window of one step" "$r: and no word of a window of one step"
done
for r in summary operators kernels memory; do
	json $r "$FX/q-bare-array.json"
	is "$(keys files.0.limits.#)" "0 " "$r --json: no window, no step limit"
done
json overview "$FX/overview/steps.json"
is "$(keys files.0.limits.#)" "0 " "several steps: no limit (an empty array)"
run -q --report=overview "$FX/overview/steps.json"
unlike "$out" "limit:" "several steps: no limit line"

# Memory without totals (PyTorch before 1.10): the memory report says its figures are derived
json memory "$FX/memory/old-bytes.json"
is "$(keys files.0.limits.# files.0.limits.0.key)" "1 memory_derived " "memory --json: derived figures"
run -q --report=memory "$FX/memory/old-bytes.json"
like "$out" "limit: no memory sample of cpu, cuda:0 has Total Allocated/Reserved (PyTorch before 1.10)" \
	"memory: a limit line naming the devices"
json memory "$FX/q-memory.json"
like "$(keys files.0.limits.0.text)" "no memory sample of cuda:0 has" "one device of three without totals: named"
json memory "$FX/memory/views.json"
is "$(keys files.0.limits.#)" "0 " "memory --json: totals, no limit"

# Several ranks: 2 of a job's 3 loaded; the alignment residual over 100 us
mkdir -p "$TMP/two" "$TMP/res"
cp "$FX/stragglers/compute/rank0.json" "$FX/stragglers/compute/rank1.json" "$TMP/two/"
json distributed "$TMP/two"
is "$(keys limits.# limits.0.key)" "1 ranks_missing " "distributed --json: ranks missing"
run -q --report=distributed "$TMP/two"
like "$out" "limit: 2 of the job's 3 ranks loaded: a rank not loaded may be the late one" "distributed: a limit line"
json distributed "$FX/stragglers/compute"
is "$(keys limits.#)" "0 " "distributed --json: every rank, aligned: no limit"
cp "$FX/stragglers/compute/"rank*.json "$TMP/res/"
# one collective of rank 1 ends 300 us later than the others would have it
sed '58s/"dur": 500/"dur": 800/' "$FX/stragglers/compute/rank1.json" >"$TMP/res/rank1.json"
json distributed "$TMP/res"
is "$(keys alignment.residual_ns limits.0.key)" "300000 alignment_residual " "distributed --json: the residual"
run -q --report=distributed "$TMP/res"
like "$out" "limit: after alignment the same collectives still end up to 300 us apart" "distributed: a limit line"

# The Overview panel (V) of a cut file shows the limit under the advice line (golden)
cd "$TMP" || exit 1 # the header shows the name as given
"$TTRACE" -q --dump-screen --size=120x24 --keys=V cut.json >"$TMP/screen" 2>/dev/null
like "$(cat "$TMP/screen")" " Limit: the file is cut short: only what came before the cut is here (1.63 kB of JSON" \
	"the Overview panel says the file is cut short"
if [ -n "$REGEN" ]; then
	mkdir -p "$GOLD"
	cp "$TMP/screen" "$GOLD/overview-cut.screen"
	ok 0 "overview-cut: golden regenerated"
else
	cmp -s "$TMP/screen" "$GOLD/overview-cut.screen"
	ok $? "overview-cut: screen matches its golden"
fi
"$TTRACE" -q --dump-screen --size=120x24 --keys=V "$FX/overview/steps.json" >"$TMP/screen2" 2>/dev/null
unlike "$(cat "$TMP/screen2")" "Limit:" "several steps, whole file: no limit line in the panel"
finish
