#!/bin/sh
# hostile_ranks.sh: ranks whose clocks lie centuries apart (baseTimeNanoseconds -9e18 and
# +9e18, a difference beyond int64), and a time base at INT64_MAX. Offsets, waits, skews
# and the summary's start must saturate, never wrap: no negative duration is printed, a
# warning says what was clamped, and the sanitizer build stays silent (the suite runs
# under UBSan with halt_on_error=1).
. "$srcdir/tests/lib.sh"

mkdir -p "$TMP/far"
for r in 0 1; do
	awk -v r=$r 'BEGIN {
		printf "{\"baseTimeNanoseconds\": %s, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2},\n\"traceEvents\": [\n", r ? "9000000000000000000" : "-9000000000000000000", r
		for (s = 0; s < 10; s++) {
			t0 = s * 10000
			printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 9000},\n", s, t0
			printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}},\n", t0 + 50, 2 * s + 1
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 2000, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", t0 + 100, 2 * s + 1
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": %d}},\n", t0 + 3000 + r * 500, 3000 - r * 500, 2 * s + 2
		}
		print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
	}' >"$TMP/far/rank$r.json"
done
# the time base at INT64_MAX, the events after it
sed -e 's/"baseTimeNanoseconds": [-0-9]*/"baseTimeNanoseconds": 9223372036854775807/' "$TMP/far/rank1.json" >"$TMP/top.json"

# durations in the text report: the rank table (compute .. waiting), the collectives table
# (skew, transfer) and the sentences
negative_figures() {
	printf '%s\n' "$1" | awk '
		/^   rank +offset +compute/ { table = 1; next }
		table && NF >= 8 && $1 ~ /^[0-9]+$/ { for (i = 3; i <= 11; i++) if ($i ~ /^-[0-9]/) print }
		table && $1 !~ /^[0-9]+$/ { table = 0 }
		/^   collective +ranks +last rank +skew +transfer/ { colls = 1; next }
		colls && $1 ~ /^#[0-9]+$/ { for (i = 3; i <= NF; i++) if ($i ~ /^-[0-9]/) print }
		/waited -|average -|spread -/ { print }'
}
# the tables must be found, or the check above proves nothing
run --report=distributed "$TMP/far"
is "$(printf '%s\n' "$out" | grep -cE '^   (rank +offset +compute|collective +ranks +last rank)')" 2 "the rank and collective tables are there"

for align in collective raw step; do
	run --report=distributed --align=$align "$TMP/far"
	no_crash "--align=$align"
	is "$rc" 0 "--align=$align: the report runs"
	is "$(negative_figures "$out")" "" "--align=$align: no negative (wrapped) duration"
	like "$out" "times of 292 years or more (clocks far apart?) are clamped to that" "--align=$align: says what is clamped"
	run --report=distributed --align=$align --json "$TMP/far"
	no_crash "--align=$align --json"
	printf '%s' "$out" >"$TMP/d.json"
	is "$("$JSONQ" ranks.0.waiting_ns ranks.1.waiting_ns alignment.residual_ns collectives.0.skew_ns <"$TMP/d.json" |
		awk '$1 < 0 { n++ } END { print n + 0 }')" 0 "--align=$align --json: waits, residual and skew are not negative"
done
run --report=distributed "$TMP/far"
like "$out" "rank 1's clock lies too far from rank 0's (292 years or more): not aligned" \
	"an offset beyond int64 is not applied, and the report says so"
run --report=distributed --align=step "$TMP/far"
like "$out" "rank 1's clock lies too far from rank 0's (292 years or more): not aligned" "likewise for step alignment"

for report in summary gaps overview; do
	run --report=$report "$TMP/far/rank0.json" "$TMP/far/rank1.json" "$TMP/top.json"
	no_crash "--report=$report with far time bases"
	is "$rc" 0 "--report=$report with far time bases runs"
done
run --report=distributed "$TMP/far/rank0.json" "$TMP/top.json"
no_crash "a time base at INT64_MAX against one at -9e18"
is "$(negative_figures "$out")" "" "no negative duration against a time base at INT64_MAX"
for keys in '' 'y' 'yy' '{' '}' 'y}{'; do
	run -q --dump-screen --size 150x30 --keys "$keys" "$TMP/far"
	no_crash "timeline of the far ranks, keys '$keys'"
done

finish
