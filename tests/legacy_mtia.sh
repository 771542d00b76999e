#!/bin/sh
# legacy_mtia.sh: the traces the rules did not understand (issue 29, item 6): the phases
# and the step-time breakdown of legacy-exporter traces (no categories), the allocated
# memory derived from Bytes where the samples carry no totals (PyTorch before 1.10), and
# MTIA devices as devices with utilization. Each figure is worked out by hand below; the
# shared traces' figures are pinned when ../shared is there.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures"

# tests/fixtures/legacy/phases.json: the legacy exporter's shape (a bare array, no "cat",
# pid "CPU functions", "args": {}), two host steps of 1000 us, each (offsets from its start
# at 100 and 1100 us):
#   enumerate(DataLoader)#...__next__ [10, 110)       DataLoader 100
#   aten::linear [120, 320) > aten::addmm              (Forward: no marker)
#   evaluate_function: AddmmBackward0 [400, 600)       Backward: [400, 700) = 300
#   evaluate_function: AccumulateGrad [650, 700)
#   Optimizer.zero_grad#SGD.zero_grad [720, 750)       Optimizer 30 + 100 = 130
#   Optimizer.step#SGD.step [800, 900) > aten::add_
# Forward, before backward: [0, 400) less the DataLoader's 100 = 300; Other: [700, 720),
# [750, 800), [900, 1000) = 170. The plugin's roles, the slices taken as operators:
# DataLoader 100, CPU Exec 585 (the next step's aten::zeros [990, 995) included), Other 315.
ov=$("$TTRACE" --report=overview --json "$F/legacy/phases.json")
q() { printf '%s' "$ov" | "$JSONQ" "$@" | tr '\n' ' '; }
is "$(q files.0.phases.0.source files.0.phases.0.steps files.0.phases.0.cpu_mean_ns)" \
	"enumerate(DataLoader) 2 100000 " "legacy: DataLoader from enumerate(DataLoader)#, 100 us a step"
is "$(q files.0.phases.3.source files.0.phases.3.steps files.0.phases.3.cpu_mean_ns)" \
	"Optimizer.step 2 130000 " "legacy: Optimizer from Optimizer.step#/zero_grad#, 130 us"
is "$(q files.0.phases.1.source files.0.phases.1.cpu_mean_ns files.0.phases.2.source files.0.phases.2.cpu_mean_ns)" \
	"before backward 300000 autograd::engine::evaluate_function 300000 " \
	"legacy: Forward 300 us (the DataLoader comes first), Backward 300 us"
is "$(q files.0.steps.1.phases_cpu.dataloader_ns files.0.steps.1.phases_cpu.forward_ns files.0.steps.1.phases_cpu.backward_ns files.0.steps.1.phases_cpu.optimizer_ns files.0.steps.1.phases_cpu.other_ns)" \
	"100000 300000 300000 130000 170000 " "legacy: step 2's phases sum to its 1000 us"
is "$(q files.0.steps.0.breakdown.dataloader_ns files.0.steps.0.breakdown.cpu_exec_ns files.0.steps.0.breakdown.other_ns)" \
	"100000 585000 315000 " "legacy: the step-time breakdown takes the slices as operators"
like "$("$TTRACE" --report=overview "$F/legacy/phases.json")" "DataLoader enumerate(DataLoader)" "legacy: the text names the source"

# legacy/autograd-nodes.json: one step [100, 1100), no evaluate_function (older torch):
# autograd nodes AddmmBackward [500, 700) and MulBackward0 [760, 800): Backward [500, 800)
# = 300, Forward before it [100, 500) = 400, Other 300.
ov=$("$TTRACE" --report=overview --json "$F/legacy/autograd-nodes.json")
is "$(q files.0.phases.2.source files.0.phases.2.cpu_mean_ns files.0.phases.1.cpu_mean_ns files.0.phases.4.cpu_mean_ns)" \
	"autograd nodes 300000 400000 300000 " "legacy: Backward from autograd nodes, Forward before it"

# memory/old-bytes.json: samples with Bytes, Device Type and Device Id only.
#   cuda:0  10 +1000, 20 +500, 30 -1200, 40 -800, 50 +2500, 60 +500: running sum 1000, 1500,
#           300, -500, 2000, 2500; it falls to -500, so base 500: 1500, 2000, 800, 0, 2500,
#           3000. Peak 3000 at 60 us in aten::add [45, 65); step #2 (at 35) starts at 800.
#   cpu     15 +64: peak 64.
#   cuda:1  12 +4096 with totals 8192/16384, 22 +1024 without: the reported curve, nothing
#           derived (never mixed).
mj=$("$TTRACE" --report=memory --json "$F/memory/old-bytes.json")
m() { printf '%s' "$mj" | "$JSONQ" "$@" | tr '\n' ' '; }
is "$(m files.0.devices.1.device files.0.devices.1.derived files.0.devices.1.peak_allocated_bytes)" "cuda:0 true null " \
	"old memory: cuda:0 is derived, its reported peak stays null"
is "$(m files.0.devices.1.derived_allocated.peak_allocated_bytes files.0.devices.1.derived_allocated.peak_allocated_ns files.0.devices.1.derived_allocated.peak_allocated_op files.0.devices.1.derived_allocated.base_bytes files.0.devices.1.derived_allocated.curve_samples)" \
	"3000 60000 aten::add 500 6 " "old memory: the derived peak, its operator, the base"
is "$(m files.0.devices.1.derived_allocated.step_start_allocated.0.allocated_bytes files.0.devices.1.derived_allocated.step_start_allocated.1.allocated_bytes files.0.devices.1.derived_allocated.end_allocated_bytes)" \
	"null 800 3000 " "old memory: derived allocated at step starts and at the end"
like "$(m files.0.devices.1.derived_allocated.note)" "derived, not reported" "old memory: JSON says derived in a note"
is "$(m files.0.devices.0.device files.0.devices.0.derived_allocated.peak_allocated_bytes)" "cpu 64 " "old memory: cpu derived 64 B"
is "$(m files.0.devices.2.device files.0.devices.2.derived files.0.devices.2.derived_allocated files.0.devices.2.peak_allocated_bytes)" \
	"cuda:1 false null 8192 " "old memory: a device with totals keeps them and derives nothing"
out=$("$TTRACE" --report=memory "$F/memory/old-bytes.json")
like "$out" "derived peak allocated 3.00 kB (3000 B) at +0.060 ms, in aten::add" "old memory: the text gives the derived peak"
like "$out" "the figures below are DERIVED" "old memory: and says it is derived"
like "$("$TTRACE" -q --dump-screen --keys=U "$F/memory/old-bytes.json")" "DERIVED from Bytes, peak allocated >= 3.00 kB" \
	"old memory: the panel says derived"

# mtia/device.json: device pid 9 "MTIA 9"; a step [0, 1000); two mtia_runtime submissions
# (correlation 11 at [50, 90), 12 at [95, 99)) inside aten::mm [40, 120); their jobs on
# "Stream 1 FW" [100, 300) and [300, 400); a dma_request there [450, 500) and one on
# "DMA_REQUEST" [600, 700). Kernels: the jobs, 300 us: utilization 30%. Breakdown: Kernel
# 300, Memcpy 150, Runtime 44, CPU Exec [40, 50) + [90, 95) + [99, 100) = 16, Other 490.
ov=$("$TTRACE" --report=overview --json "$F/mtia/device.json")
is "$(q files.0.devices.0.device files.0.devices.0.kernels files.0.devices.0.kernel_time_ns files.0.devices.0.utilization)" \
	"9 2 300000 0.3 " "MTIA: device 9, its two jobs as kernels, utilization 30%"
is "$(q files.0.steps.0.breakdown.kernel_ns files.0.steps.0.breakdown.memcpy_ns files.0.steps.0.breakdown.runtime_ns files.0.steps.0.breakdown.cpu_exec_ns files.0.steps.0.breakdown.other_ns)" \
	"300000 150000 44000 16000 490000 " "MTIA: the step-time breakdown"
is "$(q files.0.steps.0.gpu_launched_ns)" "300000 " "MTIA: the jobs are linked to their submissions"
sj=$("$TTRACE" --report=summary --json "$F/mtia/device.json")
is "$(printf '%s' "$sj" | "$JSONQ" files.0.tracks.1.kind files.0.tracks.1.device files.0.tracks.1.stream files.0.tracks.2.kind files.0.tracks.2.name | tr '\n' ' ')" \
	"gpu_compute 9 1 gpu_compute DMA_REQUEST " "MTIA: its threads are device tracks, not CPU threads"
like "$("$TTRACE" --report=summary "$F/mtia/device.json")" "MTIA 9 Stream 1 FW" "MTIA: a device track named after the MTIA"
like "$("$TTRACE" --report=gaps "$F/mtia/device.json")" "30.00%" "MTIA: the gaps report sees the device"
gt=$("$TTRACE" --report=gaps "$F/mtia/device.json")
like "$gt" "MTIA 9 idle by cause" "MTIA: the gaps report calls the device an MTIA"
unlike "$gt" "GPU 9" "and never a GPU"
at=$("$TTRACE" --report=advice "$F/mtia/device.json")
like "$at" "MTIA 9 runs kernels 30.0%" "MTIA: the utilization finding calls the device an MTIA"
unlike "$at" "GPU 9" "and never a GPU"
like "$("$TTRACE" -q --dump-screen --size=120x30 "$F/mtia/device.json")" "MTIA 9" "MTIA: the timeline's device group too"

# the shared traces: the legacy and MTIA traces' new figures
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S" ]; then
	ov=$("$TTRACE" --report=overview --json "$S/torch-cpu/cpu_train_stall.pt.trace.json")
	is "$(q files.0.phases.0.source files.0.phases.0.steps files.0.phases.3.source)" \
		"enumerate(DataLoader) 3 label+Optimizer.step " "cpu_train_stall: DataLoader and Optimizer known"
	awk -v x="$(q files.0.phases.0.cpu_pct)" 'BEGIN { exit !(x > 84 && x < 84.5) }'
	ok $? "cpu_train_stall: the DataLoader takes 84.2% of the host step (the advice's stall)"
	ov=$("$TTRACE" --report=overview --json "$S/torch-cpu/ddp4-gloo/rank0.pt.trace.json.gz")
	is "$(q files.0.phases.0.source files.0.phases.1.source files.0.phases.3.source)" \
		"enumerate(DataLoader) label+DDP.forward label+Optimizer.step " "ddp4-gloo rank 0: every phase known"
	ov=$("$TTRACE" --report=overview --json "$S/mtia-rank0-310k-metadata-events.json.gz")
	is "$(q files.0.devices.0.device files.0.devices.0.kernels files.0.devices.0.kernel_time_ns)" \
		"9 3453 7309063136 " "MTIA trace: 3,453 jobs on device 9"
	awk -v x="$(q files.0.devices.0.utilization)" 'BEGIN { exit !(x > 0.548 && x < 0.549) }'
	ok $? "MTIA trace: utilization 54.8%"
	"$TTRACE" --report=operators --json "$S/mtia-rank0-310k-metadata-events.json.gz" >"$TMP/o.json"
	n=$("$JSONQ" files.0.operators.# <"$TMP/o.json")
	paths=$(seq 0 $((n - 1)) | sed 's/.*/files.0.operators.&.name/')
	# shellcheck disable=SC2086 # one path a word
	i=$("$JSONQ" $paths <"$TMP/o.json" | grep -n -x -F aten::mm | head -1 | cut -d: -f1)
	is "$("$JSONQ" files.0.operators.$((i - 1)).calls files.0.operators.$((i - 1)).cpu_total_ns files.0.operators.$((i - 1)).self_device_ns files.0.operators.$((i - 1)).device_total_ns <"$TMP/o.json" | tr '\n' ' ')" \
		"162 8420058121 3826597064 7653194128 " "MTIA trace: aten::mm gets the device time of the jobs it submitted"
	mj=$("$TTRACE" --report=memory --json "$S/resnet50-v100-2021-oldcats-memory.pt.trace.json.gz")
	is "$(m files.0.devices.1.device files.0.devices.1.derived files.0.devices.1.derived_allocated.peak_allocated_bytes files.0.devices.1.derived_allocated.base_bytes files.0.devices.0.derived_allocated.peak_allocated_bytes)" \
		"cuda:0 true 2791636480 0 57803264 " "resnet50 2021: derived peaks 2.79 GB (cuda:0), 57.8 MB (cpu)"
fi
finish
