#!/bin/sh
# cache_cut.sh: a binary cache cut while ttrace has it mapped (lib/map_guard.h). The
# timeline survives: the trace is parsed again (each rank of a merged trace as its rank),
# the status line says so, the keys go on, the exit status is 0. A report says which cache
# was cut and exits 1, not by SIGBUS.
. "$srcdir/tests/lib.sh"
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed"
unset TTRACE_NO_CACHE TTRACE_CACHE_MAX
TTRACE_CACHE_MIN=0
export TTRACE_CACHE_MIN
EX="$TMP/trace.json.gz"
cp "$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz" "$EX"
C="$XDG_CACHE_HOME/ttrace"
"$TTRACE" index "$EX" >/dev/null
CF=$(ls "$C"/*.ttc)
[ -f "$CF" ]
ok $? "the example's cache is built"

tmux_begin
# the jump back from the cut cache abandons what that frame had allocated (one frame's
# temporaries, once per cut: lib/map_guard.h): LeakSanitizer would count it
T -f /dev/null new-session -d -s "$S" -x 120 -y 35 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color XDG_CACHE_HOME='$XDG_CACHE_HOME' TTRACE_CACHE_MIN=0 ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0' sh"
T set-option -t "$S" remain-on-exit on >/dev/null
sleep 0.3
# cut_under TRACE SHOWS DESCRIPTION CACHE...: opens TRACE in the session's shell (ok when
# SHOWS appears: DESCRIPTION), waits for the whole trace (its cache checked: one cut while it
# is still being read is a damaged cache, parsed again by the load itself; the gap list
# opens only then), cuts each CACHE to its header under it and presses a key; true when the
# status line says it was parsed again
cut_under() {
	tr=$1 shows=$2 what=$3
	shift 3
	T send-keys -t "$S" "clear; '$TTRACE' '$tr'; echo EXIT=\$?" Enter
	wait_for "$shows"
	ok $? "$what"
	T send-keys -t "$S" o
	wait_for "gaps of"
	T send-keys -t "$S" Escape
	wait_for "w/s zoom"
	for f in "$@"; do truncate -s 4096 "$f"; done
	T send-keys -t "$S" w
	wait_for "was cut while in use: parsed again"
}
cut_under "$EX" "ProfilerStep#10" "the timeline opens on the trace read from its cache" "$CF"
ok $? "its cache cut to its header under it, then keys: the trace is parsed again and the status line says so"
T send-keys -t "$S" s s s
wait_for "ProfilerStep#10"
ok $? "the slices are drawn again, the keys go on"
T send-keys -t "$S" q
wait_for "EXIT=0"
ok $? "q quits with status 0 (no SIGBUS)"

# the ranks of a merged trace (tests/merge.sh), each from its own cache: the caches cut under
# the timeline, each rank is parsed again as that rank
M="$TMP/merged.json"
"$TTRACE" merge -q "$srcdir/tests/fixtures/stragglers/compute" -o "$M"
"$TTRACE" -q --report=none "$M"
is "$(ls "$C" | grep -c '^merged.json-')" 3 "a merged file of 3 ranks: 3 caches"
cut_under "$M" "3 ranks  align: collective" "the timeline opens its 3 ranks from their caches" "$C"/merged.json-*
ok $? "the caches cut under it: the ranks are parsed again, the status line says so"
T send-keys -t "$S" s "/ProfilerStep#1" Enter n
wait_for "user_annotation on rank 1 thread 1"
ok $? "... each as its rank (rank 1's step found on rank 1)"
like "$(T capture-pane -p -t "$S")" "3 ranks  align: collective (residual 0 ns)" "... the 3 ranks aligned as before"
T send-keys -t "$S" q
wait_for "EXIT=0"
ok $? "q quits with status 0"

# a report: the cache cut after it was mapped, before the report reads it
"$TTRACE" index "$EX" >/dev/null
CF=$(ls "$C"/trace.json*.ttc)
TTRACE_TEST_REPORT_DELAY_MS=3000 "$TTRACE" --report=summary "$EX" >"$TMP/out" 2>"$TMP/err" &
pid=$!
i=0 # the report says when it has mapped its cache and waits
while [ $i -lt 300 ] && ! grep -q "the report waits" "$TMP/err"; do sleep 0.1; i=$((i + 1)); done
truncate -s 4096 "$CF"
wait $pid
rc=$?
is "$rc" 1 "a report whose cache is cut under it exits 1 (not by SIGBUS)"
like "$(cat "$TMP/err")" "$EX: its cache was cut while it was read" "and says which"
"$TTRACE" --report=summary "$EX" >"$TMP/out2" 2>"$TMP/err2"
is "$?" 0 "the next run parses the file again"
like "$(cat "$TMP/err2")" "was damaged" "saying that its cache was damaged"
finish
