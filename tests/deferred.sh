#!/bin/sh
# deferred.sh: a big trace draws its first frame before its gaps, utilization lines and
# counter tracks (ui/view.c view_complete), then the same screens as if it had not: the
# first frame comes sooner, nothing after it differs. TTRACE_TEST_DEFER_SLICES makes small
# fixtures defer as a trace of millions of slices does; TTRACE_TEST_FIRST_FRAME keeps the
# first frame the headless run drew.
. "$srcdir/tests/lib.sh"
EX="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
MEM="$srcdir/tests/fixtures/memory/counter.json"

for f in "$EX" "$MEM"; do
	name=$(basename "$f")
	for keys in "" "wwwdd" "gggG" "jjjjjjjjjj<Enter>"; do
		"$TTRACE" --dump-screen --size=120x40 ${keys:+--keys="$keys"} "$f" >"$TMP/now.txt" 2>&1
		TTRACE_TEST_DEFER_SLICES=1 TTRACE_TEST_FIRST_FRAME="$TMP/first.txt" \
			"$TTRACE" --dump-screen --size=120x40 ${keys:+--keys="$keys"} "$f" >"$TMP/deferred.txt" 2>&1
		cmp -s "$TMP/now.txt" "$TMP/deferred.txt"
		ok $? "$name, keys '$keys': the screens are the same when the analyses come after the first frame"
	done
done
# the first frame really went without them: the example's utilization line and gap shading,
# the memory fixture's counter track
TTRACE_TEST_DEFER_SLICES=1 TTRACE_TEST_FIRST_FRAME="$TMP/first.txt" "$TTRACE" --dump-screen --size=120x40 "$EX" >"$TMP/deferred.txt"
grep -q "utilization" "$TMP/deferred.txt" && ! grep -q "utilization" "$TMP/first.txt"
ok $? "$(basename "$EX"): the first frame has no utilization line, the next has"
TTRACE_TEST_FIRST_FRAME="$TMP/first.txt" "$TTRACE" --dump-screen --size=120x40 "$EX" >/dev/null
grep -q "utilization" "$TMP/first.txt"
ok $? "$(basename "$EX"): without deferral the first frame has it"
TTRACE_TEST_DEFER_SLICES=1 TTRACE_TEST_FIRST_FRAME="$TMP/first.txt" "$TTRACE" --dump-screen --size=120x40 "$MEM" >"$TMP/deferred.txt"
! cmp -s "$TMP/first.txt" "$TMP/deferred.txt"
ok $? "$(basename "$MEM"): the first frame differs from the complete one (no counter track yet)"
finish
