#!/bin/sh
# set_aside.sh: what the trace records that is not GPU work stays out of every GPU figure:
# CUPTI range-profiler ranges (cuda_profiler_range), the profiler's own final sync after the
# last ProfilerStep, and CUPTI overhead spans (pid -1). The fixtures are hand-written
# (tests/fixtures/aside/); the summary says what was set aside, in text and JSON.
. "$srcdir/tests/lib.sh"
D="$srcdir/tests/fixtures/aside"

# ---- profiler-ranges.json ---------------------------------------------------------------
# Steps [0,500) [500,1000) us; two real kernels on stream 7: ampere_sgemm_128x64_nn [100,300)
# and [600,700), launched by aten::mm (correlation 1, 2). Eight cuda_profiler_range events on
# pid 0 tid 0, back to back, 125 us each over [0,1000), named after kernels, with
# "correlation" 1..8 and counter values in args (as Kineto's CuptiRangeProfiler wrote them).
# Worked by hand: kernel time 300 us; utilization 300/1000 = 30%, 40% and 20% per step;
# device gaps of 30 us or more: [0,100), [300,600), [700,1000).
F="$D/profiler-ranges.json"
"$TTRACE" --report=overview --json "$F" >"$TMP/o.json"
"$TTRACE" --report=gaps --json --gap-min=30us "$F" >"$TMP/g.json"
"$TTRACE" --report=kernels --json "$F" >"$TMP/k.json"
"$TTRACE" --report=advice --json "$F" >"$TMP/a.json"
"$TTRACE" --report=summary --json "$F" >"$TMP/s.json"
"$TTRACE" --report=summary "$F" >"$TMP/s.txt"
o() { "$JSONQ" "$@" <"$TMP/o.json" | tr '\n' ' '; }
g() { "$JSONQ" "$@" <"$TMP/g.json" | tr '\n' ' '; }
k() { "$JSONQ" "$@" <"$TMP/k.json" | tr '\n' ' '; }
a() { "$JSONQ" "$@" <"$TMP/a.json" | tr '\n' ' '; }
s() { "$JSONQ" "$@" <"$TMP/s.json" | tr '\n' ' '; }
is "$(o files.0.devices.0.kernels files.0.devices.0.kernel_time_ns)" "2 300000 " \
	"ranges: two kernels, 300 us of kernel time (the ranges are not kernels)"
is "$(o files.0.devices.0.utilization)" "0.3 " "ranges: GPU utilization 30%, not 100%"
is "$(g files.0.devices.0.gpu_utilization.steps.0.value files.0.devices.0.gpu_utilization.steps.1.value)" "0.4 0.2 " \
	"ranges: utilization per step 40% and 20%"
is "$(g files.0.devices.0.busy_ns files.0.devices.0.idle_ns)" "300000 700000 " "ranges: busy 300 us, idle 700 us"
is "$(g files.0.gaps.# files.0.gaps.0.start_ns files.0.gaps.0.dur_ns)" "3 300000 300000 " \
	"ranges: three device gaps, the longest at 300 us for 300 us"
is "$(k files.0.kernels.# files.0.kernels.0.name files.0.kernels.0.calls files.0.kernel_time_ns)" \
	"1 ampere_sgemm_128x64_nn 2 300000 " "ranges: the kernel table has the real kernel alone, 2 calls"
is "$(a files.0.findings.0.key)" "low_gpu_utilization " "ranges: the first finding is low GPU utilization"
tc=$("$JSONQ" files.0.findings.# <"$TMP/a.json")
found=""
i=0
while [ "$i" -lt "$tc" ]; do
	[ "$(a files.0.findings.$i.key)" = "tensor_cores_unused " ] && found="$(a files.0.findings.$i.total)"
	i=$((i + 1))
done
is "$found" "300000 " "ranges: GEMM time off Tensor Cores is the real kernel's 300 us, not 800 us"
is "$(s files.0.set_aside.profiler_ranges.count files.0.set_aside.profiler_ranges.time_ns)" "8 1000000 " \
	"ranges: the summary sets aside 8 ranges, 1 ms"
grep -q "8  profiler_ranges .*1.00 ms in all" "$TMP/s.txt"
ok $? "ranges: the text summary says so"
"$TTRACE" --dump-model "$F" >"$TMP/m.txt"
grep -q 'track t[0-9]* other pid 0 tid 0 name "profiler ranges (GPU 0)"' "$TMP/m.txt"
ok $? "ranges: drawn on a track of their own, named for their GPU"
is "$(grep -c ' profiler_range "' "$TMP/m.txt")" 8 "ranges: the 8 ranges have the class profiler_range"
"$TTRACE" --check "$F" | grep -q "profiler_ranges: 8, 1.00 ms"
ok $? "ranges: --check lists them"

# ---- final-sync.json --------------------------------------------------------------------
# Steps [0,400) [400,800); k1 [50,350), k2 [450,650), k3 [700,850) launched at 700 inside
# step 2; the profiler's cudaDeviceSynchronize [805,855) after the last step, then
# cudaEventQuery at 2000 and 2005 (the trace ends at 2008). The window is the plugin's steps,
# the last stretched to k3's end (850): no gap after it, no finding on the sync.
F="$D/final-sync.json"
"$TTRACE" --report=gaps --json --gap-min=30us "$F" >"$TMP/g.json"
"$TTRACE" --report=advice --json "$F" >"$TMP/a.json"
is "$(g files.0.window.end_ns)" "850000 " "final sync: the window ends with the last step's GPU work"
is "$(g files.0.gaps.# files.0.devices.0.idle_ns)" "3 200000 " \
	"final sync: three gaps, 200 us idle; the idle stretch after the last step is not a gap"
is "$(g files.0.gaps.0.start_ns files.0.gaps.1.start_ns files.0.gaps.2.start_ns)" "350000 0 650000 " \
	"final sync: the gaps are inside the steps"
"$TTRACE" --report=advice "$F" >"$TMP/a.txt"
grep -q "cudaDeviceSynchronize" "$TMP/a.txt"
ok $((1 - $?)) "final sync: no finding names the profiler's cudaDeviceSynchronize"

# ---- cupti-overhead.json ----------------------------------------------------------------
# One step [0,1000); k1 [100,400), k2 [600,900); CUPTI overhead spans on pid -1 at [400,550)
# and [420,520). They are not GPU work: utilization 60%, the gap [400,600) stays a gap.
F="$D/cupti-overhead.json"
"$TTRACE" --report=gaps --json --gap-min=30us "$F" >"$TMP/g.json"
"$TTRACE" --report=summary --json "$F" >"$TMP/s.json"
is "$(g files.0.devices.0.gpu_utilization.value files.0.devices.0.busy_ns)" "0.6 600000 " \
	"overhead: utilization 60%, busy 600 us"
is "$(g files.0.gaps.0.start_ns files.0.gaps.0.dur_ns)" "400000 200000 " "overhead: [400,600) is a gap"
is "$(s files.0.set_aside.cupti_overhead.count files.0.set_aside.cupti_overhead.time_ns)" "2 250000 " \
	"overhead: the summary sets aside 2 spans, 250 us"
is "$(s files.0.set_aside.profiler_ranges.count)" "0 " "overhead: no profiler ranges"

finish
