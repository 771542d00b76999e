#!/bin/sh
# hostile_sizes.sh: the shapes of bench/hostile (one correlation id shared by many runtime
# calls, many pids, many GPU devices, many collectives) at a size that runs in a moment.
# The answers must stay right whatever the data structure behind them; bench/hostile
# measures the time at full size.
. "$srcdir/tests/lib.sh"

# 2000 runtime calls share correlation id 7, in an order that is not time order: the first
# in the file starts at 10 ms. Then 200 kernels: half with id 7, half with ids no call has.
awk 'BEGIN {
	printf "{\"traceEvents\": [\n"
	for (i = 0; i < 2000; i++)
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": 7}},\n", ((i * 7919 + 1000) % 2000) * 10
	for (i = 0; i < 200; i++)
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", 30000 + i * 100, i % 2 ? 7 : 1000000 + i
	print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
}' >"$TMP/corr.json"
run --dump-model "$TMP/corr.json"
is "$rc" 0 "2000 calls sharing one correlation id load"
is "$(printf '%s\n' "$out" | grep -c 'kernel "k" cat "kernel" corr 7 peer t0@10000000:"cudaLaunchKernel"$')" 100 \
	"every kernel of that id links to the first call of the file (10 ms), not the earliest"
like "$out" "quality gpu_without_launch 100" "the kernels of the other ids have no launch"
is "$(printf '%s\n' "$out" | grep -c 'runtime "cudaLaunchKernel" cat "cuda_runtime" corr 7 peer -$')" 1999 \
	"the other 1999 calls of that id stay unlinked"
like "$out" '    10000000 +5000 runtime "cudaLaunchKernel" cat "cuda_runtime" corr 7 peer t1@' \
	"the first call links to a kernel"

# 2000 distinct pids; their process_name events come after all their ops, in reverse order.
awk 'BEGIN {
	printf "{\"traceEvents\": [\n"
	for (i = 0; i < 2000; i++)
		printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": %d, \"tid\": 1, \"ts\": %d, \"dur\": 3},\n", 1000 + i, i * 2
	for (i = 1999; i >= 0; i--)
		printf "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"p%d\"}}%s\n", 1000 + i, 1000 + i, i ? "," : ""
	print "]}"
}' >"$TMP/pids.json"
run --dump-model "$TMP/pids.json"
is "$rc" 0 "2000 pids load"
is "$(printf '%s\n' "$out" | awk '$1 == "process" && $3 == "name" && $4 == "\"p" $2 "\"" { n++ } END { print n + 0 }')" 2000 \
	"each of the 2000 processes has its own name"
run --report=summary "$TMP/pids.json"
is "$(printf '%s\n' "$out" | awk '$1 == "cpu_thread" && $7 == "[pid" && $6 == "p" substr($8, 1, length($8) - 1) { n++ } END { print n + 0 }')" 2000 \
	"each of the 2000 threads is shown under its process's name"

# 300 GPU devices; device d runs a kernel at [0, 10) us and one at [1000 + d, 2000) us,
# each launched just before it: one gap per device, 990 + d us long.
awk 'BEGIN {
	printf "{\"traceEvents\": [\n"
	for (d = 0; d < 300; d++) {
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": -1.%03d, \"dur\": 0.001, \"args\": {\"correlation\": %d}},\n", d * 2, 2 * d + 1
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": %d, \"tid\": 7, \"ts\": 0, \"dur\": 10, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d}},\n", 100 + d, d, 2 * d + 1
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d.5, \"dur\": 0.1, \"args\": {\"correlation\": %d}},\n", 999 + d, 2 * d + 2
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d}},\n", 100 + d, 1000 + d, 1000 - d, d, 2 * d + 2
	}
	print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
}' >"$TMP/devices.json"
"$TTRACE" --report=gaps --json "$TMP/devices.json" >"$TMP/g.json" 2>"$TMP/err"
is "$?" 0 "300 devices: the gap report runs"
is "$("$JSONQ" files.0.devices.# files.0.gaps.# files.0.stream_gaps.# <"$TMP/g.json" | tr '\n' ' ')" "300 300 300 " \
	"300 devices, one device gap and one stream gap each"
paths=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "files.0.gaps.%d.device files.0.gaps.%d.dur_ns files.0.gaps.%d.next_gpu_op.start_ns files.0.gaps.%d.next_gpu_op.name\n", i, i, i, i }')
# shellcheck disable=SC2086
is "$("$JSONQ" $paths <"$TMP/g.json" | paste - - - - |
	awk '$2 == (990 + $1) * 1000 && $3 == (1000 + $1) * 1000 && $4 == "k2" { seen[$1]++ } END { n = 0; for (d in seen) n++; print n }')" 300 \
	"each device has its own gap, 990 + d us long, followed by its own second kernel"

# Two ranks of 500 collectives (AllReduce and Broadcast in turn); rank 1 runs 123456 us
# ahead and lacks its 11th Broadcast, so it pairs the later ones by order, one short.
for r in 0 1; do
	awk -v r=$r 'BEGIN {
		shift = r ? 123456 : 0
		printf "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2},\n\"traceEvents\": [\n", r
		for (i = 0; i < 500; i++) {
			if (r == 1 && i == 21)
				continue
			t0 = i * 100 + shift
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", t0, 2 * i + 1
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_%s_Sum_f32_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": %d}},\n", i % 2 ? "Broadcast" : "AllReduce", t0 + 40 + r * 10, 40 - r * 10, 2 * i + 2
		}
		print "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}]}"
	}' >"$TMP/rank$r.json"
done
"$TTRACE" --report=distributed --json "$TMP/rank0.json" "$TMP/rank1.json" >"$TMP/d.json" 2>"$TMP/err"
is "$?" 0 "two ranks of 500 collectives: the distributed report runs"
is "$("$JSONQ" collectives.# ranks.1.offset_ns alignment.residual_ns ranks.1.collectives <"$TMP/d.json" | tr '\n' ' ')" \
	"500 -123456000 200000 499 " \
	"500 collectives listed; rank 1's offset recovered exactly from the AllReduces; the later Broadcasts pair one off (200 us)"
paths=$(awk 'BEGIN { for (i = 0; i < 500; i++) printf "collectives.%d.kind collectives.%d.kind_index collectives.%d.per_rank.1.present\n", i, i, i }')
# shellcheck disable=SC2086
is "$("$JSONQ" $paths <"$TMP/d.json" | paste - - - | awk '
	{ want = NR % 2 ? "AllReduce" : "Broadcast"; if ($1 != want || $2 != int((NR - 1) / 2)) bad++ }
	$3 == "false" { missing = missing " " $1 $2 }
	END { print bad + 0 missing }')" "0 Broadcast249" \
	"collectives in order, each kind numbered in turn; only the last Broadcast is missing on rank 1"

# One host sync spanning the whole trace, 300 short ones, and a 290 us gap before each of
# 300 kernels: every gap is explained by the long sync (it covers the gap, the short ones
# only 2 us of it), found without scanning every sync for every gap.
awk 'BEGIN {
	n = 300
	printf "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": %d},\n", n * 300 + 1000
	for (i = 0; i < n; i++) {
		t = i * 300
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 2},\n", t + 1
		printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},\n", t + 5, i + 1
		printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}%s\n", t + 150, i + 1, i + 1 < n ? "," : ""
	}
	print "]}"
}' >"$TMP/hints.json"
"$TTRACE" --report=gaps --json --gap-min=50us "$TMP/hints.json" >"$TMP/h.json" 2>"$TMP/err"
is "$?" 0 "a long sync over 300 gaps: the gaps report runs"
paths=$(awk 'BEGIN { for (i = 0; i < 301; i++) printf "files.0.gaps.%d.cause files.0.gaps.%d.cpu_slice.start_ns files.0.gaps.%d.cpu_slice.dur_ns\n", i, i, i }')
# shellcheck disable=SC2086
is "$("$JSONQ" files.0.gaps.# $paths <"$TMP/h.json" | awk 'NR == 1 { n = $1; next } { v[(NR - 2) % 3] = $1 }
	(NR - 1) % 3 == 0 && !(v[0] == "sync" && v[1] == 0 && v[2] == 91000000) { bad++ }
	END { print n, bad + 0 }')" "301 0" \
	"301 gaps (one before each kernel, one at the end), each a host sync explained by the long cudaStreamSynchronize at 0"

# 2000 kernels on one stream, each overlapping every other: none dropped, each on its own
# overflow row (found through heaps, not by scanning every row).
awk 'BEGIN { n = 2000; print "{\"traceEvents\": ["
	for (i = 0; i < n; i++) printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7}}%s\n", i, 2 * n, i + 1 < n ? "," : ""
	print "]}" }' >"$TMP/overlap.json"
"$TTRACE" --dump-model "$TMP/overlap.json" >"$TMP/o.txt" 2>"$TMP/err"
is "$?" 0 "2000 kernels overlapping on one stream load"
is "$(grep -c '^  row [0-9]* n 1$' "$TMP/o.txt") $(grep -o 'slices [0-9]* rows [0-9]*' "$TMP/o.txt")" "2000 slices 2000 rows 2000" \
	"none dropped: 2000 rows of one kernel each"
# Back-to-back kernels reuse the lowest free row: 1000 pairs overlapping by 1 us take 2 rows.
awk 'BEGIN { print "{\"traceEvents\": ["
	for (i = 0; i < 2000; i++) printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 11, \"args\": {\"device\": 0, \"stream\": 7}}%s\n", i * 10, i + 1 < 2000 ? "," : ""
	print "]}" }' >"$TMP/pairs.json"
"$TTRACE" --dump-model "$TMP/pairs.json" >"$TMP/p.txt" 2>"$TMP/err"
is "$(grep -o 'rows [0-9]*' "$TMP/p.txt") $(grep '^  row' "$TMP/p.txt" | tr '\n' ' ')" "rows 2   row 0 n 1000   row 1 n 1000 " \
	"kernels overlapping their neighbour by 1 us alternate between two rows"

# 2000 CPU slices nested 2000 deep, a flow ending inside each: every flow binds to the
# innermost slice containing it (found by binary search over the rows).
awk 'BEGIN { n = 2000; print "{\"traceEvents\": ["
	for (i = 0; i < n; i++) printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},\n", i, i, 4 * n - 2 * i
	for (i = 0; i < n; i++) printf "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d.5},\n{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d.5}%s\n", i, i, i, i, i + 1 < n ? "," : ""
	print "]}" }' >"$TMP/deep.json"
"$TTRACE" --dump-model "$TMP/deep.json" >"$TMP/d.txt" 2>"$TMP/err"
is "$?" 0 "2000 nested slices with 2000 flows load"
is "$(grep -o 'rows [0-9]*' "$TMP/d.txt") $(grep '^flow' "$TMP/d.txt" | awk '{ want = "t0@" ($5 - 500) ":\"op" ($5 - 500) / 1000 "\""; if ($9 != want || $11 != want) bad++; n++ } END { print n, bad + 0 }')" \
	"rows 2000 2000 0" "each flow starts and ends on the innermost slice around it"

# The same nesting, 600 deep, broken by one slice that starts inside op300 and outlives
# every op (a partial overlap, so the rows holding a time are no longer 0..D): flows still
# bind to the innermost slice around them, the partial one at 300.5 us and at 3000 us
# (where no op is left), through the row tree of deep tracks that do not nest.
awk 'BEGIN { n = 600; print "{\"traceEvents\": ["
	for (i = 0; i < n; i++) printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},\n", i, i, 4 * n - 2 * i
	printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"partial\", \"pid\": 1, \"tid\": 1, \"ts\": 300.25, \"dur\": 6000},\n"
	for (i = 0; i < n; i++) printf "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d.5},\n{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d.5},\n", i, i, i, i
	printf "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": 9999, \"pid\": 1, \"tid\": 1, \"ts\": 3000},\n"
	printf "{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"f\", \"id\": 9999, \"pid\": 1, \"tid\": 1, \"ts\": 3000}\n"
	print "]}" }' >"$TMP/partial.json"
"$TTRACE" --dump-model "$TMP/partial.json" >"$TMP/pa.txt" 2>"$TMP/err"
is "$?" 0 "600 nested slices and a partial overlap load"
is "$(grep -o 'rows [0-9]*' "$TMP/pa.txt") $(grep '^flow' "$TMP/pa.txt" | awk '
	{ t = $5; want = t == 300500 || t == 3000000 ? "\"partial\"" : "\"op" (t - 500) / 1000 "\""; sub(/^t0@[0-9]*:/, "", $9); sub(/^t0@[0-9]*:/, "", $11); if ($9 != want || $11 != want) { bad++; print "#", $0 > "/dev/stderr" } n++ }
	END { print n, bad + 0 }')" "rows 601 601 0" "each flow binds to the innermost slice around it, the partial one included"

# A name of 700 kB holding 70,000 raw control characters runs past the scanner's first
# window (256 kB), so its event is parsed again from its start as the window grows: each
# character is counted once, in one piece and in parts alike (it was counted once per
# try, and the count hung on where the reads ended).
awk 'BEGIN { printf "[{\"ph\": \"X\", \"name\": \""; for (i = 0; i < 70000; i++) printf "abcdefghi\001"
	print "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]" }' >"$TMP/ctl.json"
"$TTRACE" --dump-model "$TMP/ctl.json" >"$TMP/ctl1.txt" 2>"$TMP/err"
TTRACE_PARTS=3 "$TTRACE" --dump-model "$TMP/ctl.json" >"$TMP/ctl3.txt" 2>"$TMP/err"
gzip -c "$TMP/ctl.json" >"$TMP/ctl.json.gz"
"$TTRACE" --dump-model "$TMP/ctl.json.gz" >"$TMP/ctlz.txt" 2>"$TMP/err"
is "$(grep -h 'quality control_chars' "$TMP/ctl1.txt" "$TMP/ctl3.txt" "$TMP/ctlz.txt" | tr '\n' ' ')" \
	"quality control_chars 70000 quality control_chars 70000 quality control_chars 70000 " \
	"raw control characters in a string longer than the first window are counted once (plain, 3 parts, gzip)"

finish
