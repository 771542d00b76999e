#!/bin/sh
# fuzz_corpus.sh: replays the saved fuzz corpus (tests/fuzz/corpus) and every fixture
# (tests/fixtures, recursively) through the loader's fuzz target (tests/fuzz_replay), one
# TAP test point per input; a crash, a failed model check or a non-zero exit of the
# replay fails the test.
: "${FUZZ_REPLAY:=./tests/fuzz_replay}"
: "${srcdir:=.}"
LC_ALL=C.UTF-8
TZ=UTC
export LC_ALL TZ
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ttrace-fuzz.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$FUZZ_REPLAY" "$srcdir/tests/fuzz/corpus" "$srcdir/tests/fixtures" >"$TMP/out" 2>"$TMP/err"
rc=$?
# Pass the test points through; the plan is ours, since the replay may die before its own.
grep -v '^1\.\.' "$TMP/out"
n=$(grep -c '^\(not \)\{0,1\}ok ' "$TMP/out")
if [ "$rc" -ne 0 ]; then
	n=$((n + 1))
	echo "not ok $n - fuzz_replay exited with status $rc"
	sed 's/^/#   /' "$TMP/err" | head -n 60
fi
echo "1..$n"
[ "$rc" -eq 0 ]
