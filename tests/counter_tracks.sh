#!/bin/sh
# counter_tracks.sh: the memory counter tracks of the timeline on a hand-worked step plot:
# where they go, their labels, bar heights that follow the data and the window (zoom,
# pan), the details at the cursor, stepping through samples, several ranks, and no track
# for a trace without [memory] curves.
. "$srcdir/tests/lib.sh"

# tests/fixtures/memory/counter.json (µs): ProfilerStep#1 [0, 1000) on thread 1; kernels
# on GPU 0 stream 7 at [150, 400) and [600, 900); [memory] samples, allocated/reserved:
#   cuda:0  100 1000/4000  300 2000/4000  500 4000/8000  700 8000/8000  800 2000/8000
#   cpu     200  512/0     600  256/0
# cuda:0's full height is its peak, 8000 B: 1000 is 2 eighths of the two lines (the lower
# line's ▂), 2000 is 4 (▄), 4000 is 8 (the lower line full), 8000 is 16 (both full);
# reserved 8000 over allocated 4000 or 2000 shades the top line.
FX="$srcdir/tests/fixtures/memory/counter.json"
scr() { "$TTRACE" -q --dump-screen --size=100x30 "$@" | sed '/^--$/,$d'; }
styles() { "$TTRACE" -q --dump-screen --size=100x30 "$@" | sed '1,/^--$/d'; }
out=$(scr "$FX")
printf '%s\n' "$out" | grep -A1 '^▾ GPU 0 (1) *$' | grep -q '^  utilization'
ok $? "the GPU group keeps its heading and utilization line"
like "$out" "  utilization            │▁" "the utilization line comes first"
like "$out" "
  cuda:0 memory          │" "cuda:0's counter track, labelled with the device as torch names it"
like "$out" "
  peak 8.00 kB           │" "its scale: full height is the device's peak"
# the counter sits between the utilization line and the streams of its GPU
is "$(printf '%s\n' "$out" | grep -n -e '^  utilization' -e '^  cuda:0 memory' -e '^  peak 8.00 kB' -e '^  stream 7' | cut -d: -f1 | tr '\n' ' ')" \
	"8 9 10 11 " "under its GPU's utilization line, above the streams"
printf '%s\n' "$out" | grep -A1 '^▾ memory (1) *$' | grep -q '^  cpu memory  *│'
ok $? "cpu's counter in a group of its own after the tracks"
like "$out" "  peak 512 B" "cpu's scale"

# bar heights, in ASCII so that a column is a byte: the timeline starts at column 27 and
# has 74 columns over [0, 1000) us, so time T us is column 27 + T * 74 / 1000
col() { echo $((27 + $1 * 74 / 1000)); }
asc=$(scr --ascii "$FX")
top=$(printf '%s\n' "$asc" | grep '^  cuda:0 memory')
low=$(printf '%s\n' "$asc" | grep '^  peak 8.00 kB')
cell() { printf '%s\n' "$1" | cut -c"$(col "$2")"; }
is "$(cell "$low" 50)$(cell "$top" 50)" "  " "before the first sample: nothing"
is "$(cell "$low" 200)$(cell "$top" 200)" "_ " "1000 of 8000: a low bar"
is "$(cell "$low" 400)$(cell "$top" 400)" "= " "2000: a half bar on the lower line"
is "$(cell "$low" 600)$(cell "$top" 600)" "#:" "4000 allocated, 8000 reserved: the lower line full, reserved shaded above"
is "$(cell "$low" 750)$(cell "$top" 750)" "##" "the peak, 8000: both lines full"
is "$(cell "$low" 950)$(cell "$top" 950)" "=:" "2000 after the peak, 8000 still reserved"
# the same in blocks, and each run in the right order
low=$(printf '%s\n' "$out" | grep '^  peak 8.00 kB')
top=$(printf '%s\n' "$out" | grep '^  cuda:0 memory')
printf '%s\n' "$low" | grep -q -E '│┆ +▂+▄+█+▄+$'
ok $? "blocks on the lower line: ▂ then ▄ then █ (the peak) then ▄"
printf '%s\n' "$top" | grep -q -E '│┆ +░+█+░+$'
ok $? "blocks on the top line: reserved shaded, full at the peak, shaded after"
st=$(styles "$FX")
like "$(printf '%s\n' "$st" | sed -n 10p)" "aaaa" "allocated cells have a style of their own (a)"
like "$(printf '%s\n' "$st" | sed -n 9p)" "eeee" "and reserved ones another (e)"
cpu=$(printf '%s\n' "$asc" | grep -A1 '^  cpu memory' | tail -1)
is "$(cell "$cpu" 400)$(cell "$cpu" 700)" "##" "cpu: 512 then 256 of 512 fill the lower line"
cpu=$(printf '%s\n' "$asc" | grep '^  cpu memory')
is "$(cell "$cpu" 400)$(cell "$cpu" 700)" "# " "and only 512 the top one"

# the bars follow the window: W zooms in around the cursor (at the start), D pans
low=$(scr --keys=W "$FX" | grep '^  peak 8.00 kB')
printf '%s\n' "$low" | grep -q -E '│┆ +▂+▄+$'
ok $? "zoomed on [0, 400) us: the low bar, then the half bar, no peak"
low=$(scr --keys=WDD "$FX" | grep '^  peak 8.00 kB')
like "$low" "█" "panned right: the peak comes into the window"
unlike "$low" "▂" "and the first sample's bar leaves it"
like "$(scr --keys=WDD "$FX")" "  peak 8.00 kB" "the scale stays the device's peak whatever the window"

# selecting the counter: the details show its values at the cursor; . and , step
out=$(scr --keys=jjjjj "$FX")
like "$out" "cuda:0 memory at +0.000 ms: no sample yet (the first at +0.100 ms)" "on the counter: its value at the cursor"
like "$out" "peak allocated 8.00 kB at +0.700 ms in aten::add, reserved 8.00 kB at +0.500 ms" "and its peaks"
out=$(scr --keys=jjjjj. "$FX")
like "$out" "cuda:0 memory at +0.100 ms: allocated 1.00 kB, reserved 4.00 kB (unused 3.00 kB)" ". steps to the first sample"
out=$(scr --keys=jjjjj.... "$FX")
like "$out" "cuda:0 memory at +0.700 ms: allocated 8.00 kB, reserved 8.00 kB" "four steps: the peak"
like "$out" "its column (13.5 us): at most 8.00 kB allocated, 8.00 kB reserved; full height 8.00 kB, the peak" "the cursor's column, as the bars draw it"
like "$(scr --keys=jjjjj....., "$FX")" "cuda:0 memory at +0.700 ms" ", steps back"
like "$(scr --keys=jjjjj......, "$FX")" "cuda:0 memory at +0.700 ms" ", from between samples: to the start of the value in force"
like "$(scr --keys='jjjjj<End>.' "$FX")" "no later sample that changes this counter" "past the last sample, . says so"
like "$(scr --keys='jjjjjj<Enter>' "$FX")" "a memory counter: the details show it at the cursor" "Enter on a counter says what it is"
like "$(scr --keys=jjjjjU "$FX")" "Memory: 7 samples on 2 devices" "U on a counter opens the Memory view"
# moving off the counter shows the selection again
out=$(scr --keys='jjjjjjjLL<Enter>' "$FX")
like "$out" "stream 7, row 0: start +0.150 ms" "a kernel selected on the stream under the counter"
like "$(scr --keys='jjjjjjjLL<Enter>k' "$FX")" "cuda:0 memory at +0.270260 ms: allocated 1.00 kB" "the details follow the line onto the counter"
like "$(scr --keys='jjjjjjjLL<Enter>kj' "$FX")" "stream 7, row 0: start +0.150 ms" "and the selected slice comes back off it"

# no [memory] curve, no counter track
out=$(scr "$srcdir/tests/fixtures/q-gpu-overlap.json")
unlike "$out" "memory" "a trace without [memory] events: no counter track"
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5},
{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}}]}\n' >"$TMP/old.json"
unlike "$(scr "$TMP/old.json")" "memory" "samples without totals (PyTorch before 1.10): no curve, no track"

# several ranks: each file's own counters, by rank and by role
mkdir "$TMP/job"
cp "$FX" "$TMP/job/a.json"
cp "$srcdir/tests/fixtures/memory/views.json" "$TMP/job/b.json"
out=$("$TTRACE" -q --dump-screen --size=120x40 "$TMP/job/a.json" "$TMP/job/b.json" | sed '/^--$/,$d')
printf '%s\n' "$out" | grep -A1 '^▾ r0 GPU 0 (1) *$' | grep -q '^  utilization'
ok $? "rank 0: its GPU group"
like "$out" "  cuda:0 memory" "with its counter"
like "$out" "r0 memory (1)" "rank 0's cpu counter in its own group"
like "$out" "r1 memory (3)" "rank 1's three devices, none with kernels, in its memory group"
is "$(printf '%s\n' "$out" | grep -c '^  cuda:0 memory')" 2 "each rank has its own cuda:0 counter"
out=$("$TTRACE" -q --dump-screen --size=120x40 --keys=R "$TMP/job/a.json" "$TMP/job/b.json" | sed '/^--$/,$d')
like "$out" "memory counters (5)" "by role: every rank's counters in one last group"
like "$out" "  r0 cuda:0 memory" "named with their rank"
like "$out" "  r1 hip:0 memory" "rank 1's too"
finish
