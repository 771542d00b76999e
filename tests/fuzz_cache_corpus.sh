#!/bin/sh
# fuzz_cache_corpus.sh: replays the saved corpus of the cache reader's fuzz target
# (tests/fuzz/cache_corpus) through tests/fuzz_cache_replay, one TAP test point per input:
# each input's trace is loaded, its cache written, forged by the input's recipe and resealed,
# then read, and what is accepted goes through every report and index check. A crash, a
# sanitizer report, a failed check or a non-zero exit fails the test. The inputs must
# exercise the reader's checks of the values, not just its header: most must reach them
# (their header and section table hold), some be accepted, some refused there.
: "${FUZZ_CACHE_REPLAY:=./tests/fuzz_cache_replay}"
: "${srcdir:=.}"
LC_ALL=C.UTF-8
TZ=UTC
export LC_ALL TZ
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ttrace-fuzz-cache.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

FUZZ_CACHE_STATS=1 "$FUZZ_CACHE_REPLAY" "$srcdir/tests/fuzz/cache_corpus" >"$TMP/out" 2>"$TMP/err"
rc=$?
# Pass the test points through; the plan is ours, since the replay may die before its own.
grep -v -e '^1\.\.' -e '^# fuzz_cache:' "$TMP/out"
n=$(grep -c '^\(not \)\{0,1\}ok ' "$TMP/out")
if [ "$rc" -ne 0 ]; then
	n=$((n + 1))
	echo "not ok $n - fuzz_cache_replay exited with status $rc"
	sed 's/^/#   /' "$TMP/err" | head -n 60
fi
# "# fuzz_cache: N inputs, L with a trace that loads, R reached the value checks, A accepted"
set -- $(sed -n 's/^# fuzz_cache: \([0-9]*\) inputs, \([0-9]*\) with a trace that loads, \([0-9]*\) reached the value checks, \([0-9]*\) accepted$/\1 \2 \3 \4/p' "$TMP/out")
inputs=${1:-0} loaded=${2:-0} reached=${3:-0} accepted=${4:-0}
point() { # point COND TEXT
	n=$((n + 1))
	if [ "$1" -eq 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
fail=0
point $([ "$inputs" -ge 100 ] && echo 1 || echo 0) "the corpus holds $inputs inputs (at least 100)"
point $([ $((10 * loaded)) -ge $((9 * inputs)) ] && echo 1 || echo 0) "nine in ten of their traces load, at least ($loaded of $inputs)"
point $([ $((2 * reached)) -ge "$inputs" ] && echo 1 || echo 0) \
	"at least half of them reach the reader's checks of the values ($reached of $inputs)"
point $([ "$accepted" -gt 0 ] && [ $((reached - accepted)) -ge $((reached / 4)) ] && echo 1 || echo 0) \
	"some are accepted ($accepted), and at least a quarter of those checked are refused there ($((reached - accepted)))"
echo "1..$n"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
