#!/bin/sh
# memory.sh: the Memory view and --report=memory on a hand-worked trace (peaks, the
# operator running then, fragmentation, memory at each step start, the operator table
# self and total, a sample in no operator, a device the plugin does not name), the panel
# with its curve, a trace without [memory] events, and the plugin's peaks pinned on the
# shared traces when they are there.
. "$srcdir/tests/lib.sh"

# tests/fixtures/memory/views.json, thread 1 (µs; cuda:0 unless said):
#   ProfilerStep#1 [0, 1000)
#     aten::linear [100, 400) > aten::addmm [110, 310) > cudaMalloc [120, 140)
#       A  130  +1000  allocated 1000 reserved 2000  (in the runtime call: addmm's)
#       B  350   +500            1500          2000  (linear's own)
#     aten::empty [500, 550)
#       C  510  +3000            4500          6000  reserved peaks (first reaching 6000)
#          520   +256 hip:0       256          1024  (Device Type 6: hip)
#     model.py(1): f [600, 700) (python_function)
#       D  650  -3000            1500          6000  innermost node not an operator: in none;
#                                                    unused 4500: the most
#     aten::add [700, 800)
#       E  710  +4000            5500          6000  allocated peaks; unused 500 then
#       F  720  -1000            4500          6000
#       G  720    +64 cpu          64             0
#   ProfilerStep#2 [1000, 2000)
#     aten::linear [1100, 1400) > aten::addmm [1110, 1310)
#       H 1150  -2000            2500          6000
#   thread 2: 1500 +100 2600 6000, no Addr, no operator
# Step starts: #1 at 0, before any sample: null; #2 at 1000: F's 4500 (cpu G's 64).
# Operators, cuda:0 (self allocs/bytes/increase; total allocs/bytes/increase; calls):
#   aten::add    1 4000 3000; 1 4000  3000; 1
#   aten::empty  1 3000 3000; 1 3000  3000; 1
#   aten::addmm  1 1000 -1000; 1 1000 -1000; 2 (the first instance allocated the 1000)
#   aten::linear 1  500  500; 2 1500  -500; 2 (addmm's A and H added)
# then aten::empty on hip:0 (256) and aten::add on cpu (64).
FX="$srcdir/tests/fixtures/memory/views.json"
"$TTRACE" --report=memory --json "$FX" >"$TMP/m.out" 2>"$TMP/err"
is "$?" 0 "--report=memory --json runs"
q() { "$JSONQ" "$@" <"$TMP/m.out"; }
is "$(q files.0.memory_samples files.0.devices.# files.0.devices.0.device files.0.devices.1.device files.0.devices.2.device | tr '\n' ' ')" \
	"10 3 cpu cuda:0 hip:0 " "10 samples on three devices, named as torch names them"
d=files.0.devices.1
is "$(q $d.samples $d.samples_without_addr $d.curve_samples $d.samples_in_operators $d.allocations $d.allocated_bytes | tr '\n' ' ')" \
	"8 1 8 6 5 8600 " "cuda:0: 8 samples, 1 without Addr, 6 in an operator, 5 allocations of 8600 B"
is "$(q $d.peak_allocated_bytes $d.peak_allocated_ns $d.peak_allocated_op $d.reserved_at_peak_bytes | tr '\n' ' ')" \
	"5500 710000 aten::add 6000 " "peak allocated 5500 B at 710 us in aten::add, 6000 reserved then"
is "$(q $d.peak_reserved_bytes $d.peak_reserved_ns $d.peak_reserved_op | tr '\n' ' ')" \
	"6000 510000 aten::empty " "peak reserved: the first sample reaching 6000, in aten::empty"
is "$(q $d.max_unused_bytes $d.max_unused_ns | tr '\n' ' ')" "4500 650000 " \
	"reserved but unallocated: at most 4500 B, at 650 us"
is "$(q $d.step_start_allocated.# $d.step_start_allocated.0.step $d.step_start_allocated.0.allocated_bytes $d.step_start_allocated.1.step $d.step_start_allocated.1.allocated_bytes | tr '\n' ' ')" \
	"2 1 null 2 4500 " "allocated at step start: none before the first sample, 4500 at step 2"
is "$(q $d.plugin_has_peak files.0.devices.2.plugin_has_peak files.0.devices.2.peak_allocated_bytes | tr '\n' ' ')" \
	"true false 256 " "hip:0 has a peak here, where the plugin (cpu and cuda only) shows none"
is "$(q files.0.devices.0.peak_allocated_bytes files.0.devices.0.peak_allocated_op files.0.devices.0.step_start_allocated.1.allocated_bytes | tr '\n' ' ')" \
	"64 aten::add 64 " "cpu: 64 B in aten::add"
is "$(q files.0.memory.#)" 6 "six operator rows (device, name)"
r() { q files.0.memory.$1.name files.0.memory.$1.device files.0.memory.$1.calls files.0.memory.$1.self_allocations \
	files.0.memory.$1.self_allocated_bytes files.0.memory.$1.self_size_increase_bytes files.0.memory.$1.allocations \
	files.0.memory.$1.allocated_bytes files.0.memory.$1.size_increase_bytes | tr '\n' ' '; }
is "$(r 0)" "aten::add cuda:0 1 1 4000 3000 1 4000 3000 " "aten::add first (self bytes allocated); the free counts in the increase"
is "$(r 1)" "aten::empty cuda:0 1 1 3000 3000 1 3000 3000 " "aten::empty"
is "$(r 2)" "aten::addmm cuda:0 2 1 1000 -1000 1 1000 -1000 " "aten::addmm: a sample in its cudaMalloc is its own"
is "$(r 3)" "aten::linear cuda:0 2 1 500 500 2 1500 -500 " "aten::linear: total adds addmm's samples"
is "$(r 4)" "aten::empty hip:0 1 1 256 256 1 256 256 " "the hip sample has a row of its own device"
is "$(q files.0.memory.2.top_instance_start_ns files.0.memory.2.top_instance_allocated_bytes | tr '\n' ' ')" "110000 1000 " \
	"Enter's instance: the addmm that allocated (at 110 us), not the one that freed"

out=$("$TTRACE" --report=memory "$FX")
like "$out" "peak allocated 5.50 kB (5500 B) at +0.710 ms, in aten::add" "text: the peak, exact, with its time and operator"
like "$out" "reserved but unallocated: 500 B at the allocated peak, at most 4.50 kB at +0.650 ms" "text: fragmentation"
like "$out" "allocated at step start: #1 - #2 4.50 kB" "text: memory at each step start"
like "$out" "1 samples without Addr: the TensorBoard plugin leaves them out of its peak" "text: says where the plugin differs"
like "$out" "aten::linear cuda:0     2           1      2" "text: the table"
out=$("$TTRACE" --report=memory --top=1 --sort=allocated_bytes "$FX")
like "$out" "operators by allocated_bytes" "--sort names the column"
like "$out" "aten::add" "--sort=allocated_bytes: 4000 first"
like "$out" "... and 5 more" "--top=1: one row, and says how many more"

# the panel: the header, the curve over the timeline's window, Enter
scr() { "$TTRACE" -q --dump-screen --size=120x40 --keys="$1" "$FX" | sed '/^--$/,$d'; }
out=$(scr U)
like "$out" "Memory: 10 samples on 3 devices; 6 operator rows, by self bytes allocated" "U opens the Memory view"
like "$out" "cuda:0   peak allocated 5.50 kB at +0.710 ms in aten::add; reserved 6.00 kB at +0.510 ms" "the peak line"
like "$out" "allocated at step start (cuda:0): #1 - #2 4.50 kB" "the step line"
like "$out" "█ allocated  ░ reserved (most in each column)" "the curve's legend"
like "$out" "+0.000 ms" "the curve's axis starts at the window's start"
like "$out" "+2.000 ms" "and ends at its end"
like "$out" "█████" "the curve is drawn"
like "$("$TTRACE" -q --dump-screen --size=120x40 --ascii --keys=U "$FX")" "# allocated  : reserved" "ASCII: the curve in #, :"
# zoomed on the second step, the curve and its axis follow the timeline's window
out=$(scr 'fWWWWUq')
unlike "$out" "+2.000 ms " "zoomed in: the axis follows the timeline's window"
out=$(scr 'Ujj<Enter>')
like "$out" "the instance of this operator that allocated most itself" "Enter jumps to the instance"
like "$out" "aten::addmm" "of the selected row (addmm)"
like "$out" "start +0.110 ms" "the first addmm, the one that allocated"
like "$(scr 'U?')" "Keys: table" "? over the Memory view lists the table's keys"
like "$(scr "?<End>")" "memory: allocated and reserved over time" "the timeline's help lists U"

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}\n' >"$TMP/cpu.json"
like "$("$TTRACE" -q --dump-screen --keys=U "$TMP/cpu.json")" "no [memory] events in this trace (record with profile_memory=True)" \
	"a trace without [memory] events says so"
like "$("$TTRACE" --report=memory "$TMP/cpu.json")" "no [memory] events in this trace (record with profile_memory=True)" \
	"and the report names the profiler option"
is "$("$TTRACE" --report=memory --json "$TMP/cpu.json" | "$JSONQ" files.0.memory_samples files.0.note | tr '\n' ' ')" \
	"0 no [memory] events in this trace (record with profile_memory=True) " "JSON too"
# samples without totals (PyTorch before 1.10): no reported peak, a derived one (said so;
# tests/legacy_mtia.sh works one out), and the table still counts Bytes
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5},
{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}}]}\n' >"$TMP/old.json"
out=$("$TTRACE" --report=memory "$TMP/old.json")
like "$out" "no Total Allocated/Reserved in its samples (PyTorch before 1.10): the figures below are DERIVED" "no totals: says so"
like "$out" "derived peak allocated 512 B (512 B)" "and derives the peak from Bytes"
like "$out" "aten::add cuda:0     1" "and still lists the operator"
is "$("$TTRACE" --report=memory --json "$TMP/old.json" | "$JSONQ" files.0.devices.0.peak_allocated_bytes)" null "JSON: the peak is null"
like "$("$TTRACE" -q --dump-screen --keys=U "$TMP/old.json")" "DERIVED from Bytes" "the panel says so"

# the shared traces: every report runs; the plugin's peaks (REFERENCE-VIEWS.md) to the byte
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	for f in $(cd "$S" && find . -type f -name '*.json*' | sort); do
		run --report=memory --json "$S/$f"
		no_crash "memory report on $f"
	done
	# times in the text: from the trace start, which is the plugin's profiler_start_ts
	# (the first event); exact bytes beside the rounded ones
	peaks() { "$TTRACE" --report=memory "$S/$1" 2>/dev/null; }
	out=$(peaks infer-h100-owlv2-memory-pyfunc.json.gz)
	like "$out" "cuda:0: 12270 samples" "owlv2: 12,270 GPU0 records, as the plugin's"
	like "$out" "peak allocated 2.71 GB (2707847680 B) at +132.720228 ms" "owlv2 GPU0: the plugin's peak allocated and its time"
	like "$out" "peak reserved  3.60 GB (3600809984 B) at +128.926523 ms" "owlv2 GPU0: the plugin's peak reserved and its time"
	like "$out" "peak allocated 153 MB (152680988 B) at +1208.410525 ms" "owlv2 CPU: 152,680,988 B at 1,208,410.525 us"
	out=$(peaks infer-h100-qwen1.5-0.5b-chat-memory.json.gz)
	like "$out" "peak allocated 2.09 GB (2088508416 B) at +46.587553 ms" "qwen GPU0: peak allocated"
	like "$out" "peak reserved  2.63 GB (2629828608 B) at +14.884232 ms" "qwen GPU0: peak reserved"
	like "$out" "peak allocated 16 B (16 B) at +16.778886 ms" "qwen CPU: 16 B"
	out=$(peaks train-v100-rank1of2-nccl-memory-216k.json.gz)
	like "$out" "peak allocated 6.63 GB (6629508096 B) at +226.886 ms" "V100 GPU1: peak allocated"
	like "$out" "peak reserved  12.8 GB (12782141440 B) at +51.849 ms" "V100 GPU1: peak reserved"
	like "$out" "peak allocated 8 B (8 B) at +53.083 ms" "V100 CPU: 8 B"
	"$TTRACE" --report=memory --json "$S/train-v100-rank1of2-nccl-memory-216k.json.gz" >"$TMP/v.json" 2>/dev/null
	is "$("$JSONQ" files.0.devices.1.device files.0.devices.1.peak_allocated_bytes files.0.devices.1.peak_reserved_bytes files.0.devices.1.plugin_has_peak <"$TMP/v.json" | tr '\n' ' ')" \
		"cuda:1 6629508096 12782141440 true " "JSON: the same peaks, and the plugin shows them"
	is "$(( $("$JSONQ" files.0.devices.0.samples_in_operators files.0.devices.1.samples_in_operators <"$TMP/v.json" | tr '\n' '+') 0 ))" \
		27995 "V100: 27,995 records attached to an operator, as the plugin"
	"$TTRACE" --report=memory --json "$S/resnet50-v100-2021-oldcats-memory.pt.trace.json.gz" >"$TMP/r.json" 2>/dev/null
	is "$("$JSONQ" files.0.devices.1.peak_allocated_bytes files.0.devices.1.plugin_has_peak files.0.devices.1.samples_without_addr <"$TMP/r.json" | tr '\n' ' ')" \
		"null false 8220 " "resnet50 2021: no totals, no Addr: no reported peak, as the plugin"
	"$TTRACE" --report=memory --json "$S/infer-mi300x-sglang-decode-cudagraph-capture.json.gz" >"$TMP/h.json" 2>/dev/null
	is "$("$JSONQ" files.0.devices.0.device files.0.devices.0.peak_allocated_bytes files.0.devices.0.plugin_has_peak <"$TMP/h.json" | tr '\n' ' ')" \
		"hip:0 151821681664 false " "MI300X: Device Type 6 is hip:0; its peak is get_peak_memory()'s, where the plugin's curve fails"
	# the plugin's memory table, GPU0 of owlv2 (top rows)
	"$TTRACE" --report=memory --json "$S/infer-h100-owlv2-memory-pyfunc.json.gz" >"$TMP/o.json" 2>/dev/null
	is "$("$JSONQ" files.0.memory.0.name files.0.memory.0.calls files.0.memory.0.self_allocated_bytes files.0.memory.0.size_increase_bytes <"$TMP/o.json" | tr '\n' ' ')" \
		"aten::bmm 365 104510323200 104510323200 " "owlv2: aten::bmm as the plugin's table"
	is "$("$JSONQ" files.0.memory.2.name files.0.memory.2.allocations files.0.memory.2.self_allocations files.0.memory.2.allocated_bytes files.0.memory.2.self_allocated_bytes files.0.memory.2.self_size_increase_bytes <"$TMP/o.json" | tr '\n' ' ')" \
		"aten::addmm 2235 1125 12888975360 11725056000 10561136640 " "owlv2: aten::addmm, self and total, as the plugin's table"
fi
finish
