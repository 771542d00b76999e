#!/bin/sh
# gpu_summary.sh: the Overview's GPU Summary (--report=overview): utilization, Est. SM
# efficiency, Est. achieved occupancy and Tensor Cores per device, with the TensorBoard
# plugin's definitions, on a hand-worked trace; and on ../shared/traces, equal to the
# plugin's own figures (../shared/REFERENCE-FIGURES.md) to 0.01 percentage point.
. "$srcdir/tests/lib.sh"

# tests/fixtures/overview-gpu.json, worked by hand. One step, ProfilerStep#1 [0, 100] us;
# everything below is launched inside it but K5 (launched at 110 us). Window = [0, 100].
#   device 0: K1 [10,30] bps 0.5 occ 40 volta_h884gemm (plugin's TC list)
#             K2 [20,40] bps 0.8 occ 60 (stream 8)     K3 [60,70] bps 2 occ 100 nvjet_ (TC, not on the list)
#             K4 [80,90] no bps, no occupancy          K5 [120,130] s16816gemm (the list), outside the window
#             a memcpy [45,55] (not a kernel)
#   device 1: K6 [10,60] bps 0.25 occ 20
# utilization 0: [10,40] + [60,70] + [80,90] = 50 of 100; 1: 50 of 100
# SM efficiency 0: [10,20] 0.5 + [20,30] min(1, 1.3) + [30,40] 0.8 + [60,70] min(1, 2) = 5 + 10 + 8 + 10 = 33 of 100
#               1: 0.25 * 50 = 12.5 of 100
# occupancy 0: (40*20 + 60*20 + 100*10) / 50 = 60 (K4 has none: left out, not a 0; K5: no time in the window)
# Tensor Cores 0: K1 + K3 + K5 = 40 of 70 us; by the plugin's list K1 + K5 = 30 of 70
F="$srcdir/tests/fixtures/overview-gpu.json"
"$TTRACE" --report=overview --json "$F" >"$TMP/o.json" 2>"$TMP/err"
is "$?" 0 "--report=overview --json runs"
q() { "$JSONQ" "$@" <"$TMP/o.json"; }
is "$(q files.0.window.start_ns files.0.window.end_ns files.0.window.from_steps | tr '\n' ' ')" "0 100000 true " \
	"the window is the step (K5's launch lies after it)"
is "$(q files.0.devices.# files.0.devices.0.device files.0.devices.0.kernels files.0.devices.0.kernel_time_ns | tr '\n' ' ')" \
	"2 0 5 70000 " "two devices; device 0: 5 kernels, 70 us (sums over the whole trace)"
is "$(q files.0.devices.0.utilization files.0.devices.0.sm_efficiency files.0.devices.0.achieved_occupancy | tr '\n' ' ')" \
	"0.5 0.33 0.6 " "device 0: utilization 50%, SM efficiency 33%, occupancy 60%"
is "$(q files.0.devices.0.tensor_cores files.0.devices.0.tensor_cores_plugin files.0.devices.0.tensor_core_time_ns | tr '\n' ' ')" \
	"0.571429 0.428571 40000 " "Tensor Cores 40 of 70 us; by the plugin's list 30 of 70"
is "$(q files.0.devices.1.device files.0.devices.1.utilization files.0.devices.1.sm_efficiency files.0.devices.1.achieved_occupancy | tr '\n' ' ')" \
	"1 0.5 0.125 0.2 " "device 1 apart: 50%, 12.5%, 20%"

out=$("$TTRACE" --report=overview "$F")
like "$out" "ProfilerStep#1 as the TensorBoard plugin stretches it to the device, 100 us" "text: the window"
like "$out" "50.00%             33.00%         60.00%       57.14%       14.29%           42.86%" "text: device 0's row"

# Work launched before the profiler's first step, still running when it starts, delays
# the step's start as in the plugin (_find_device_steps): a kernel with no launch in the
# trace, [0, 8] us, ends before the step's own first device work (10 us).
sed 's|^{"ph": "M"|{"ph": "X", "cat": "kernel", "name": "early_kernel", "pid": 0, "tid": 7, "ts": 0, "dur": 8, "args": {"device": 0, "stream": 7, "correlation": 99}},\n{"ph": "M"|' "$F" >"$TMP/early.json"
"$TTRACE" --report=overview --json "$TMP/early.json" >"$TMP/e.json"
is "$("$JSONQ" files.0.window.start_ns files.0.devices.0.kernels <"$TMP/e.json" | tr '\n' ' ')" "8000 6 " \
	"the step starts when the earlier work ends (8 us)"
# A launch that outlasts the step is not the step's: the plugin takes runtime calls lying
# wholly inside it. K4 now runs [80, 105] and its launch ends at 101 us: the step is not
# stretched to 105 us, and K4 counts for [80, 100]: utilization 60 of 100.
sed 's|"ts": 4, "dur": 1,|"ts": 4, "dur": 97,|; s|"ts": 80, "dur": 10,|"ts": 80, "dur": 25,|' "$F" >"$TMP/long.json"
"$TTRACE" --report=overview --json "$TMP/long.json" >"$TMP/l.json"
is "$("$JSONQ" files.0.window.end_ns files.0.devices.0.utilization <"$TMP/l.json" | tr '\n' ' ')" "100000 0.6 " \
	"a launch outlasting the step does not stretch it"

# the panel (V): the summary above the table of steps; Enter shows the step
scr() { "$TTRACE" -q --dump-screen --size=160x30 --keys="$1" "$2" | sed '/^--$/,$d'; }
out=$(scr V "$F")
like "$out" "Overview: ProfilerStep#1 as the TensorBoard plugin stretches it to the device, 100 us" "V opens the Overview"
like "$out" "GPU 0: utilization 50.00%  est. SM efficiency 33.00%  est. occupancy 60.00%  Tensor Cores 57.14% (unit unknown 14.29%, plugin 42.86%)" \
	"its header: device 0's summary"
like "$out" "GPU 1: utilization 50.00%" "and device 1's"
like "$out" "    1 +0.000 ms   100 us    100 us 70.0 us 6.00 us 24.0 us     100 us    120 us" \
	"the step's row: start, duration, the plugin's breakdown (kernels of both GPUs [10,70] + [80,90] = 70 us)"
like "$out" " step     start duration host step  Kernel Runtime   Other host Other GPU Other" \
	"columns 0 in every step (Memcpy, Memset) or unknown (the phases not marked) are not shown"
like "$out" "step 100 us    Kernel        ███████░░░  70.0%  Memcpy        ░░░░░░░░░░   0.0%" "the mean breakdown as bars"
like "$out" "              Runtime       █░░░░░░░░░   6.0%" "on two lines"
like "$out" "phases         DataLoader unknown  Forward    unknown" "the phases, unknown when nothing marks them"
like "$("$TTRACE" -q --ascii --dump-screen --size=160x30 --keys=V "$F")" "Kernel        #######...  70.0%" "--ascii: bars of # and ."
out=$("$TTRACE" -q --dump-screen --size=80x30 --keys=V "$F" | sed '/^--$/,$d')
like "$out" "step 100 us    Kernel        ███████░░░  70.0%" "80 columns: a role a line"
like "$out" "               Other         ██░░░░░░░░  24.0%" "down to Other, none cut"
out=$(scr 'V<Enter>' "$F")
like "$out" "step 1 as the TensorBoard plugin stretches it to the device, 100 us" "Enter shows the step in the timeline"
like "$out" "+0.000 ms .. +0.100 ms" "the window is the step"
like "$(scr V "$TMP/early.json")" "+0.008 ms" "the step's start as stretched"
like "$(scr 'VV' "$F")" "cursor at" "V again closes it"
# several ranks: the views open on the rank of the selection (here found by a search)
out=$("$TTRACE" -q --dump-screen --size=160x30 --keys='/early_kernel<Enter>V' "$F" "$TMP/early.json" | sed '/^--$/,$d')
like "$out" "Overview of rank 1: ProfilerStep#1 as the TensorBoard plugin stretches it to the device, 92.0 us" \
	"two ranks: V opens on the selected slice's rank"
like "$out" "6 kernels, 78.0 us" "with that rank's figures"
out=$("$TTRACE" -q --dump-screen --size=160x30 --keys='V' "$F" "$TMP/early.json" | sed '/^--$/,$d')
like "$out" "Overview of rank 0: ProfilerStep#1 as the TensorBoard plugin stretches it to the device, 100 us" \
	"nothing selected: rank 0"
out=$("$TTRACE" -q --dump-screen --size=160x30 --keys='/early_kernel<Enter>K' "$F" "$TMP/early.json" | sed '/^--$/,$d')
like "$out" "rank 1: 6 rows by name" "K too opens on the selected rank"
T="$srcdir/tests/fixtures/ops/tree.json"
like "$("$TTRACE" -q --dump-screen --size=160x30 --keys='O' "$T" "$TMP/early.json")" "rank 0: " \
	"O on rank 0 (a trace with operators)"
like "$("$TTRACE" -q --dump-screen --size=160x30 --keys='/early_kernel<Enter>O' "$T" "$TMP/early.json")" \
	"no operator in this trace" "O on the selected rank 1, which has none, says so"
M="$srcdir/tests/fixtures/memory/views.json"
like "$("$TTRACE" -q --dump-screen --size=160x30 --keys='U' "$M" "$TMP/early.json")" "Memory of rank 0: 10 samples" \
	"U on rank 0 (a trace with memory samples)"
like "$("$TTRACE" -q --dump-screen --size=160x30 --keys='/early_kernel<Enter>U' "$M" "$TMP/early.json")" \
	"no [memory] events in this trace" "U on the selected rank 1, which has none, says so"

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}\n' >"$TMP/cpu.json"
like "$("$TTRACE" --report=overview "$TMP/cpu.json")" "no GPU kernel in this trace (record with ProfilerActivity.CUDA)" \
	"a trace without kernels says so and names the option"
is "$("$TTRACE" --report=overview --json "$TMP/cpu.json" | "$JSONQ" files.0.devices.#)" 0 "and JSON has no device"
like "$(scr V "$TMP/cpu.json")" "no GPU kernel in this trace (record with ProfilerActivity.CUDA)" "and so does the panel"

# The plugin's GPU Summary on the shared traces (REFERENCE-FIGURES.md, "GPU summary"):
# file, utilization, SM efficiency, occupancy, Tensor Cores (its list), in percent.
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	while read -r f util sm occ tc; do
		[ -f "$S/$f" ] || continue
		"$TTRACE" --report=overview --json "$S/$f" >"$TMP/s.json" 2>/dev/null
		got=$("$JSONQ" files.0.devices.0.utilization files.0.devices.0.sm_efficiency files.0.devices.0.achieved_occupancy \
			files.0.devices.0.tensor_cores_plugin <"$TMP/s.json" | tr '\n' ' ')
		res=$(echo "$got" | awk -v u="$util" -v s="$sm" -v o="$occ" -v t="$tc" '{
			split(u " " s " " o " " t, w, " ")
			for (i = 1; i <= 4; i++) { d = $i * 100 - w[i]; if (d < 0) d = -d; if (d > 0.01) { print "off"; exit } }
			print "ok" }')
		is "$res" ok "$f: the plugin's utilization $util, SM efficiency $sm, occupancy $occ, TC $tc (got $got)"
	done <<'LIST'
train-a100-rank0of2-nccl-basetime.json.gz 23.26 16.87 35.31 16.38
train-v100-rank1of2-nccl-memory-216k.json.gz 56.27 34.12 31.95 0.00
resnet50-v100-2021-oldcats-memory.pt.trace.json.gz 55.51 54.68 49.13 0.00
b200-rank0of8-pdl-kernel-overlap-no-metadata.json.gz 12.49 9.16 12.69 0.00
multirank-dlrm-v100x8-nccl/worker0_step_12.1694128201545.pt.trace.json 45.46 5.81 3.90 0.00
multirank-dlrm-v100x8-nccl/worker1_step_12.1694128201556.pt.trace.json 65.14 7.51 3.51 0.00
multirank-dlrm-v100x8-nccl/worker2_step_12.1694128201554.pt.trace.json 32.92 4.70 4.36 0.00
multirank-dlrm-v100x8-nccl/worker3_step_12.1694128201557.pt.trace.json 56.19 6.64 3.62 0.00
multirank-dlrm-v100x8-nccl/worker4_step_12.1694128201547.pt.trace.json 42.69 5.25 3.84 0.00
multirank-dlrm-v100x8-nccl/worker5_step_12.1694128201549.pt.trace.json 40.75 4.98 3.81 0.00
multirank-dlrm-v100x8-nccl/worker6_step_12.1694128201553.pt.trace.json 33.15 4.71 4.32 0.00
multirank-dlrm-v100x8-nccl/worker7_step_12.1694128201553.pt.trace.json 21.10 3.52 5.21 0.00
LIST
	# every shared trace: the report runs and its JSON parses
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		"$TTRACE" --report=overview --json "$S/$f" >"$TMP/a.json" 2>/dev/null
		st=$?
		[ "$st" -le 1 ] && "$JSONQ" files.# <"$TMP/a.json" >/dev/null
		ok $? "$f: --report=overview --json runs (status $st)"
	done
fi
finish
