#!/bin/sh
# stragglers.sh: why the straggler is late (src/straggler.h) and exposed communication
# split into waiting for a late rank and transfer not hidden by compute, in
# --report=distributed and --report=advice, on tests/fixtures/stragglers (written by
# tests/tools/gen-straggler-fixtures.py, whose comments work each figure out): three ranks,
# four AllReduces, rank 2 late at every one by 400 us (350 us for dataloader).
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/stragglers"

dist() { # dist CASE: --report=distributed --json into $TMP/d.json
	"$TTRACE" -q --report=distributed --json "$F/$1" >"$TMP/d.json" 2>"$TMP/err"
}
advice() { # advice DIR: --report=advice --json into $TMP/a.json
	"$TTRACE" -q --report=advice --json "$1" >"$TMP/a.json" 2>"$TMP/err"
}
d() { "$JSONQ" "$@" <"$TMP/d.json" | tr '\n' ' '; }
a() { "$JSONQ" "$@" <"$TMP/a.json" | tr '\n' ' '; }
# find KEY: sets $fp to the path of finding KEY in $TMP/a.json, "" when absent
find_key() {
	fp=
	n=$("$JSONQ" findings.# <"$TMP/a.json" 2>/dev/null)
	i=0
	while [ "$i" -lt "${n:-0}" ]; do
		if [ "$("$JSONQ" "findings.$i.key" <"$TMP/a.json")" = "$1" ]; then
			fp="findings.$i"
			return
		fi
		i=$((i + 1))
	done
}

# case reason late_ns explained_ns see_finding
for c in "dataloader dataloader_stall 1400000 1400000 dataloader_stall" \
	"compute longer_compute 1600000 1600000 null" \
	"host-sync host_sync 1600000 1600000 host_sync" \
	"slower-gpu slower_gpu 1600000 1600000 null" \
	"unknown unknown 1600000 - null"; do
	set -- $c
	dist "$1"
	is "$(d straggler straggler_reason.key straggler_reason.late_ns straggler_reason.collectives)" "2 $2 $3 4 " \
		"$1: distributed: rank 2 is late by $3 ns over 4 collectives, reason $2"
	if [ "$4" != - ]; then
		is "$(d straggler_reason.explained_ns.$2)" "$4 " "$1: distributed: $2 explains all of it"
	fi
	advice "$F/$1"
	find_key straggler
	is "$(a $fp.rank $fp.reason.key $fp.see_finding $fp.instances.# $fp.instances.0.rank)" "2 $2 $5 4 2 " \
		"$1: advice: the straggler finding says why ($2), points to rank 2's own finding ($5), its instances are the 4 late collectives"
done

# the sentences
dist dataloader
like "$(d straggler_reason.text)" "a DataLoader stall: before the 4 collectives it arrived last at, rank 2 spends 1.40 ms more" \
	"dataloader: the reason in a sentence"
dist slower-gpu
is "$(d straggler_reason.kernel_time_ratio straggler_reason.kernels_matched)" "1.8 16 " \
	"slower-gpu: its 16 kernels in the late segments take 1.8x the others' for the same name, grid and block"
like "$(d straggler_reason.text)" "take 1.80x as long on rank 2" "slower-gpu: said in the sentence"
dist compute
is "$(d straggler_reason.explained_ns.slower_gpu)" "0 " \
	"compute: its gemms have another grid (a larger batch): not matched, so not a slower GPU"
dist unknown
like "$(d straggler_reason.text)" "unknown: before the 4 collectives it arrived last at, none of DataLoader" \
	"unknown: says that nothing explains half"
run --report=distributed "$F/host-sync"
like "$out" "why: a host sync: before the 4 collectives" "text: distributed: the straggler's reason"
run --report=advice "$F/dataloader"
like "$out" "reason:     dataloader_stall" "text: advice: the straggler's reason key"
like "$out" "[dataloader_stall], the late rank's own finding of that cause" "text: advice: the link to its own finding"
like "$out" "cause:      a DataLoader stall: before the 4 collectives" "text: advice: the reason as the cause"
advice "$F/dataloader"
find_key straggler
like "$(a $fp.fix $fp.example)" "load in worker processes" "advice: the straggler's fix is the DataLoader stall's"
run --report=advice "$F/slower-gpu"
like "$out" "nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE" "text: advice: a slower GPU's fix checks that GPU"

# Exposed communication split: each on-time rank waits 400 us at each of 4 collectives (no
# compute under the wait) and has 100 us of transfer of which 40 us is hidden by the
# optimizer kernel: wait 1.6 ms, transfer 240 us, summing to exposed. The late rank waits 0.
dist compute
is "$(d ranks.0.exposed_comm_ns ranks.0.exposed_wait_ns ranks.0.exposed_transfer_ns)" "1840000 1600000 240000 " \
	"distributed: rank 0's exposed comm = 1.6 ms waiting + 240 us transfer not hidden"
is "$(d ranks.2.exposed_wait_ns ranks.2.exposed_transfer_ns)" "0 240000 " "distributed: the straggler waits 0, transfers 240 us"
is "$(d ranks.1.exposed_wait_ns ranks.1.offset_ns)" "1600000 -5000000 " "distributed: rank 1's clock offset does not shift the split"
is "$(d collectives.0.per_rank.0.exposed_wait_ns collectives.0.per_rank.0.exposed_transfer_ns)" "400000 60000 " \
	"distributed: per collective: 400 us waiting, 60 us transfer not hidden"
dist dataloader
is "$(d ranks.0.exposed_wait_ns ranks.0.exposed_transfer_ns)" "1400000 240000 " "dataloader: 350 us of waiting per collective"
run --report=distributed "$F/compute"
like "$out" "rank 0: exp.wait 1.60 ms, exp.transfer 240 us" "text: distributed: the split, per rank"
like "$out" "exp.wait: the part of exposed from the rank's arrival at a collective to the last" "text: distributed: and their definitions"
# Enter on a rank's row in the distributed view: the status line in the units of the table
out=$("$TTRACE" -q --dump-screen --size=160x40 --keys='pj<Enter>' "$F/compute" | sed '/^--$/,$d' | tail -1)
like "$out" "waited 1.60 ms; exposed comm 1.84 ms: 1.60 ms waiting for a late rank, 240 us transfer not hidden" \
	"view: Enter on an on-time rank: waiting and exposed as durations (was whole us: 1600 us)"
advice "$F/compute"
find_key exposed_communication
is "$(a $fp.rank $fp.wait_ns $fp.transfer_ns $fp.see_finding)" "0 1600000 240000 straggler " \
	"advice: exposed communication split into waiting and transfer, pointing at the straggler"
is "$(a $fp.ranks.0.wait_ns $fp.ranks.0.transfer_ns $fp.ranks.1.wait_ns)" "1600000 240000 1600000 " \
	"advice: each rank's split"
like "$(a $fp.fix)" "make the late rank arrive on time" "advice: waiting is most of it: the straggler's fix, not bucketing"
like "$(a $fp.cause)" "ranks wait for a late rank" "advice: the cause says so"

# The straggler-fire set of tests/fixtures/advice: rank 2 starts each AllReduce 200 us after
# the others with the same compute before it (its kernel runs later, with its GPU idle and
# nothing recorded on its host): unknown. Its others wait 1.2 ms, transfer 150 us x 6, no compute.
advice "$srcdir/tests/fixtures/advice/straggler-fire"
find_key straggler
is "$(a $fp.reason.key)" "unknown " "advice straggler-fire: nothing in rank 2's trace explains it"
find_key exposed_communication
is "$(a $fp.wait_ns $fp.transfer_ns)" "1200000 900000 " "advice straggler-fire: rank 0 waits 1.2 ms, 900 us transfer"
like "$(a $fp.cause)" "ranks wait for a late rank" "advice straggler-fire: waiting is the larger part"

# ../shared/traces: the two multi-rank sets (see its README)
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
if [ -d "$S/multirank-dlrm-v100x8-nccl" ]; then
	"$TTRACE" -q --report=distributed --json "$S/multirank-dlrm-v100x8-nccl" >"$TMP/d.json" 2>/dev/null
	# rank 7 starts ProfilerStep#10 last: its lateness at #0 (7.6 ms skew) is before the step's
	# start, and its segments before #1-#4 show no cause
	is "$(d straggler straggler_reason.key)" "7 unknown " "dlrm: rank 7's lateness is not explained inside the trace"
	awk -v b="$(d straggler_reason.late_before_segment_ns)" -v l="$(d straggler_reason.late_ns)" \
		'BEGIN { exit !(l > 0 && 2 * b >= l) }'
	ok $? "dlrm: most of it was there when its segments began"
	is "$(d ranks.0.exposed_wait_ns ranks.0.exposed_transfer_ns ranks.0.exposed_comm_ns)" "5346000 191000 5537000 " \
		"dlrm: rank 0's exposed comm is almost all waiting"
fi
if [ -d "$S/torch-cpu/ddp4-gloo" ]; then
	"$TTRACE" -q --report=distributed --json "$S/torch-cpu/ddp4-gloo" >"$TMP/d.json" 2>/dev/null
	# rank 2's per-rank batch is 64 (the others' 16): its forward is longer
	is "$(d straggler straggler_reason.key)" "2 longer_compute " "ddp4-gloo: rank 2 is late because it computes longer"
fi
finish
