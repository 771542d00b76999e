#!/bin/sh
# quality_view.sh: the data-quality panel (Q) and the header's mark: what --check finds,
# seen in the timeline rather than only after quitting (issue 12, item 4).
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures"
scr() { # scr KEYS FILE: the screen's text at 100x20
	"$TTRACE" -q --dump-screen --size=100x20 --keys="$1" "$2" | sed '/^--$/,$d'
}

# q-gpu-overlap.json: four kernels overlap another on stream 7 (gpu_stream_overlaps: 4,
# three examples kept), and nothing else is wrong with it.
out=$(scr '' "$F/q-gpu-overlap.json")
like "$(printf '%s\n' "$out" | head -1)" "! 1 data problem (Q)" "the header marks a file with problems"
unlike "$(scr '' "$F/gaps/rules.json" | head -1)" "data problem" "and says nothing of a clean file"
out=$(scr Q "$F/q-gpu-overlap.json")
like "$out" "Data quality: 1 kind of problem" "Q opens the panel"
like "$out" "gpu_stream_overlaps     4" "a row per kind, with its count"
is "$(printf '%s\n' "$out" | grep -c 'near byte')" 3 "its three examples below it"
like "$out" "+0.058 ms GPU 0 stream 7" "an example's time (from the trace start) and track"
out=$(scr 'Qj<Enter>' "$F/q-gpu-overlap.json")
like "$out" "gpu_stream_overlaps: example 1 of 4" "Enter on an example closes the panel and says which"
like "$out" "kernel on stream 7, row 1: start +0.058 ms" "and selects the slice at its time on its track"
like "$(scr 'Q<Enter>' "$F/q-gpu-overlap.json")" "Enter on an example row" "Enter on a kind's row explains itself"
like "$(scr 'Q' "$F/gaps/rules.json")" "no problem found" "a clean file: the panel says so"
# a file cut short: the mark says so, and the cut is the panel's first row
head -c 2000 "$F/gaps/rules.json" >"$TMP/cut.json"
like "$(scr '' "$TMP/cut.json" | head -1)" "! cut short," "a truncated file: the header says it was cut short"
like "$(scr Q "$TMP/cut.json")" "cut short" "and the panel's first row says where"
help=$("$TTRACE" -q --dump-screen --size=120x80 --keys='?<PgDn>' "$F/q-gpu-overlap.json")$("$TTRACE" -q --dump-screen --size=120x80 --keys='?' "$F/q-gpu-overlap.json")
like "$help" "data quality: what --check finds" "the help lists Q"
# --check's example times are from the trace start too
like "$("$TTRACE" --check "$F/q-gpu-overlap.json")" "ts +0.058 ms" "--check: example times from the trace start"
# cuda_sync spans on a GPU stream (Kineto's and the recorder's) are waits, not GPU work:
# no overlap counted for them, drawn in rows after the work (issue 32); the kernel k3
# that does overlap k2 still counts
S="$srcdir/tests/fixtures/sync-on-stream.json"
run --check "$S"
like "$out" "gpu_stream_overlaps: 1 " "a stream with two cuda_sync spans over its kernels: only the real overlap counts"
like "$out" '"k3" on GPU 0 stream 7' "and it is the kernel"
unlike "$out" "Stream Wait Event" "not the wait"
finish
