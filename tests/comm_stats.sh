#!/bin/sh
# comm_stats.sh: the communication operations statistics of --report=distributed (issue 34,
# item 1) on comm-stats/, two ranks with hand-computed figures (group of 4 but the
# broadcast's, of 2): allreduce 1e6 + 2e6 Float in 1 + 3 ms: 12 MB in 4 ms, algbw 3 GB/s,
# busbw 3 x 2(4-1)/4 = 4.5; _allgather_base out 2e6 BFloat16 (the output counts) in
# 0.5 ms: 4 MB, 8 GB/s, busbw 8 x 3/4 = 6; reduce_scatter_tensor in 4e6 Half (the input
# counts) in 2 ms: 8 MB, 4 GB/s, busbw 3; broadcast 1e6 Double in 1 ms: 8 MB, 8 GB/s,
# busbw 8 (factor 1); a SendRecv kernel without args: its kind from its name, no size.
# Rank 1's first allreduce lasts 1050 us against rank 0's 1000: its collective's transfer
# is 1000 us, rank 1 waited 50; the bandwidths are over the transfer time (4 ms), not the
# kernels' (4.05 ms).
. "$srcdir/tests/lib.sh"
D="$srcdir/tests/fixtures/comm-stats"
"$TTRACE" --report=distributed --json "$D" >"$TMP/d.json"
c() { "$JSONQ" "$@" <"$TMP/d.json" | tr '\n' ' '; }
is "$(c communication.#)" "10 " "a row per rank, process group and collective: 5 a rank"
is "$(c communication.0.rank communication.0.collective communication.0.calls communication.0.sized_calls communication.0.bytes)" \
	"0 SendRecv 1 0 null " "a kernel without args: its collective from its name, no size"
is "$(c communication.2.collective communication.2.group_size communication.2.calls communication.2.bytes communication.2.mean_bytes communication.2.time_ns communication.2.mean_time_ns)" \
	"allreduce 4 2 12000000 6000000 4000000 2000000 " "allreduce: 2 calls, 12 MB, 4 ms, means"
is "$(c communication.2.algbw_gbps communication.2.busbw_gbps)" "3 4.5 " "allreduce: algbw 3 GB/s, busbw x 2(n-1)/n = 4.5"
is "$(c communication.1.collective communication.1.bytes communication.1.algbw_gbps communication.1.busbw_gbps)" \
	"_allgather_base 4000000 8 6 " "all-gather: the output buffer (2e6 x 2 B), busbw x (n-1)/n"
is "$(c communication.3.collective communication.3.bytes communication.3.algbw_gbps communication.3.busbw_gbps)" \
	"reduce_scatter_tensor 8000000 4 3 " "reduce-scatter: the input buffer (4e6 x 2 B), busbw x (n-1)/n"
is "$(c communication.4.collective communication.4.process_group communication.4.group_size communication.4.busbw_gbps)" \
	"broadcast 7 2 8 " "broadcast: its own group of 2, busbw = algbw"
is "$(c communication.5.rank communication.9.rank)" "1 1 " "then rank 1's rows"
is "$(c communication.2.transfer_ns communication.2.wait_ns communication.2.bandwidth_over)" "4000000 0 transfer " \
	"rank 0's allreduces: all transfer"
is "$(c communication.7.rank communication.7.collective communication.7.time_ns communication.7.transfer_ns communication.7.wait_ns)" \
	"1 allreduce 4050000 4000000 50000 " "rank 1's: 4.05 ms of kernels, 4 ms transfer (the shortest kernel of each collective), 50 us waiting"
is "$(c communication.7.algbw_gbps communication.7.busbw_gbps communication.7.bandwidth_over)" "3 4.5 transfer " \
	"its bandwidths over the transfer time, not the kernels' (which would read 2.96)"
"$TTRACE" --report=distributed --json "$D/rank0.json" >"$TMP/d.json"
is "$(c communication.2.transfer_ns communication.2.bandwidth_over communication.2.algbw_gbps)" "null kernel 3 " \
	"one rank alone: no transfer to tell from waiting, bandwidth over the kernels' time"
run --report=distributed "$D"
like "$out" "communication operations (per rank, process group and collective" "text: the section"
like "$out" "      1 0     allreduce             4     2 12.0 MB   6.00 MB 4050 us   2025 us  4000 us 50.0 us          3        4.5" "text: rank 1's allreduce row, with its transfer and waiting"
like "$out" "2 rows without message sizes" "text: rows without sizes are said"
run --report=distributed "$srcdir/tests/fixtures/recorded-clock"
like "$out" "communication operations: no NCCL/RCCL kernel in these traces" "no communication kernel: said"

# every kind and group size nccl-tests has a factor for, on tests/fixtures/comm-stats-kinds
# (one rank, so over the kernels' time), by hand (bytes = nelems x dtype; GB/s = B / ns):
#   all_to_all n=8: 4e6 Long = 32 MB in 4 ms: 8 GB/s, busbw x 7/8 = 7
#   allreduce n=8: 4e6 Float = 16 MB in 2 ms: 8, x 2*7/8 = 14; n=3: 3e6 UInt8 = 3 MB in 0.5 ms: 6, x 4/3 = 8
#   reduce_scatter_tensor n=8: its input, 8e6 Half = 16 MB in 4 ms: 4, x 7/8 = 3.5
#   all_gather_into_tensor n=2: its output, 2e6 BFloat16 = 4 MB in 1 ms: 4, x 1/2 = 2
#   reduce n=4: 1e6 Double = 8 MB in 2 ms: 4, x 1; send n=2: 2e6 Half = 4 MB in 1 ms: 4, x 1
"$TTRACE" --report=distributed --json "$srcdir/tests/fixtures/comm-stats-kinds/rank0.json" >"$TMP/d.json"
row() { c communication.$1.collective communication.$1.group_size communication.$1.bytes communication.$1.time_ns \
	communication.$1.algbw_gbps communication.$1.busbw_gbps; }
is "$(row 0)" "all_to_all 8 32000000 4000000 8 7 " "all-to-all of 8: busbw x (n-1)/n"
is "$(row 1)" "allreduce 8 16000000 2000000 8 14 " "all-reduce of 8: busbw x 2(n-1)/n"
is "$(row 2)" "reduce_scatter_tensor 8 16000000 4000000 4 3.5 " "reduce-scatter of 8: the input, busbw x (n-1)/n"
is "$(row 3)" "all_gather_into_tensor 2 4000000 1000000 4 2 " "all-gather of 2: the output, busbw x 1/2"
is "$(row 4)" "reduce 4 8000000 2000000 4 4 " "reduce: busbw = algbw"
is "$(row 5)" "send 2 4000000 1000000 4 4 " "send: busbw = algbw"
is "$(row 6)" "allreduce 3 3000000 500000 6 8 " "all-reduce of 3, one-byte elements: busbw x 4/3"

# the same table as a panel: g in the distributed view (p) switches to it, g again back;
# with one trace p opens on it; Enter goes to the row's rank
scr() { "$TTRACE" -q --dump-screen --size=160x30 "$@" | sed '/^--$/,$d'; }
out=$(scr --keys='pg' "$D/rank0.json" "$D/rank1.json")
like "$out" "communication: 10 rows, 2 without sizes; busbw as nccl-tests, over transfer time (g: ranks" \
	"panel: g in the distributed view shows the communication table"
like "$out" "    1 0     allreduce             4     2 12.0 MB   6.00 MB 4050 us   2025 us  4000 us 50.0 us          3        4.5" \
	"panel: rank 1's allreduce, as the report has it"
out=$(scr --keys='pgg' "$D/rank0.json" "$D/rank1.json")
like "$out" "2 ranks, align collective" "panel: g again: ranks and collectives"
unlike "$out" "busbw" "... without the communication columns"
out=$(scr --keys='pg<Down><Down><Down><Down><Down><Down><Down><Enter>' "$D/rank0.json" "$D/rank1.json")
like "$out" "rank 1: its allreduce calls" "panel: Enter on rank 1's allreduce row goes to rank 1"
out=$(scr --keys='p' "$D/rank0.json")
like "$out" "communication: 5 rows, 1 without sizes; busbw as nccl-tests, over kernel time (one trace" \
	"panel: one trace opens on its communication, bandwidth over the kernels' time"
unlike "$out" " transfer " "panel: one trace: no transfer or waiting columns"
out=$(scr --keys='pg' "$D/rank0.json")
like "$out" "one trace: no ranks to compare, only its communication" "panel: g with one trace says why it stays"
out=$(scr --keys='p' "$srcdir/tests/fixtures/overview/gpu-timeline.json")
like "$out" "one trace without NCCL/RCCL kernels: the distributed view compares several ranks" \
	"panel: one trace without communication: said, no panel"

S="$srcdir/../shared/traces/train-a100-rank0of2-nccl-basetime.json.gz"
if [ -f "$S" ]; then
	"$TTRACE" --report=distributed --json "$S" >"$TMP/d.json"
	is "$(c communication.0.collective communication.0.group_size communication.0.calls)" "allreduce 2 15 " \
		"train-a100-rank0of2: 15 allreduces in a group of 2, sized from the kernels' args"
fi
finish
