#!/bin/sh
# row_compact.sh: a row's slice indices are kept in 2 bytes each, a block of 64 whole where
# they lie too far apart (struct row, src/index.c); a track out of order is sorted in place
# by insertion while its slices lie near their places, else through a permutation. Both
# give the same model: every fixture's dump and reports are the same bytes with every
# block of two slices or more whole (TTRACE_TEST_ROW_SPAN=0), with blocks whole past 3
# slices apart, and with every track sorted through the permutation
# (TTRACE_TEST_SORT_NEAR=0); a cache of whole blocks reads back the same; a row whose
# blocks span more than 65,535 slices (a step of 70,000 operators) is read right.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
n=0
m=0
for f in $(find "$FX" -type f -name '*.json' | sort); do
	m=$((m + 1))
	for args in "--dump-model" "--report=overview --json"; do
		a=$("$TTRACE" -q --no-cache $args "$f" 2>&1)
		for knob in TTRACE_TEST_ROW_SPAN=0 TTRACE_TEST_ROW_SPAN=3 TTRACE_TEST_SORT_NEAR=0; do
			b=$(env "$knob" "$TTRACE" -q --no-cache $args "$f" 2>&1)
			if [ "$a" != "$b" ]; then
				echo "# $args differs on $f with $knob"
				n=$((n + 1))
			fi
		done
	done
done
is "$n" 0 "every fixture ($m): the same model and overview, rows whole or in 2 bytes, sorted in place or not"

# out of order near its places, with ties a stable sort must keep in file order (equal
# starts and lengths, B/E pairs that tie on all but their args), and one slice far away
awk 'BEGIN {
	srand(7)
	printf "{\"traceEvents\": [\n"
	for (i = 0; i < 3000; i++) {
		ts = int(i / 3) * 10 + int(rand() * 40)
		d = int(rand() * 3) * 5
		printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d, \"args\": {\"i\": %d}},\n", i % 7, ts, d, i
		if (i % 50 == 0)
			printf "{\"ph\": \"B\", \"name\": \"be\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"args\": {\"j\": %d}},\n{\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": %d},\n", ts, i, ts + 5
	}
	printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"early\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}\n]}\n"
}' >"$TMP/near.json"
a=$("$TTRACE" -q --no-cache --dump-model "$TMP/near.json" 2>&1)
b=$(TTRACE_TEST_SORT_NEAR=0 "$TTRACE" -q --no-cache --dump-model "$TMP/near.json" 2>&1)
is "$a" "$b" "a track near its order with ties: sorted in place as through the permutation"
c=$(TTRACE_TEST_SORT_NEAR=100000 "$TTRACE" -q --no-cache --dump-model "$TMP/near.json" 2>&1)
is "$c" "$b" "and with the far slice moved back in place too"
like "$a" '    1000 +1000 cpu_op "early"' "(the far slice first)"

# a step of 70,000 operators, then more steps: row 0's entries lie 70,001 slices apart
awk 'BEGIN {
	printf "{\"traceEvents\": [\n"
	printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 80000},\n"
	for (i = 0; i < 70000; i++)
		printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1},\n", i
	for (s = 2; s < 200; s++)
		printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 10},\n", s, 80000 + s * 20
	printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 90000, \"dur\": 1}\n]}\n"
}' >"$TMP/wide.json"
a=$("$TTRACE" -q --no-cache --dump-model "$TMP/wide.json" 2>&1)
b=$(TTRACE_TEST_ROW_SPAN=0 "$TTRACE" -q --no-cache --dump-model "$TMP/wide.json" 2>&1)
is "$a" "$b" "a row 70,001 slices apart: the same rows in 2 bytes and whole"
like "$a" '    80040000 +10000 user_annotation "ProfilerStep#2"' "(its second step read back)"
o=$("$TTRACE" -q --no-cache --report=overview "$TMP/wide.json" 2>&1)
like "$o" "199 steps" "and the overview finds every step"

# the queries over whole blocks: test_index's random tracks against brute force, and the
# timeline through the real key table (zoom, pan, rows, search, next match, fit)
if [ -x "$builddir/tests/unit/test_index" ]; then
	out=$(TTRACE_TEST_ROW_SPAN=0 "$builddir/tests/unit/test_index" 2>&1)
	is "$(printf '%s\n' "$out" | grep -c '^not ok')" 0 "test_index's queries with every block whole"
	like "$out" "ok 99 " "(all of them ran)"
fi
K='WWWWWWWWWWWWWdddddDDDDDjjjjjjjjjj<PgDn>SSSSSSSSSSSSSS/op<Enter>nnnnnNNfllllLLLL'
n=0
m=0
for f in "$TMP/wide.json" "$TMP/near.json" "$FX"/*.json "$FX"/nav/*.json; do
	m=$((m + 1))
	a=$("$TTRACE" -q --no-cache --dump-screen --size=120x40 --keys="$K" "$f" 2>&1)
	b=$(TTRACE_TEST_ROW_SPAN=0 "$TTRACE" -q --no-cache --dump-screen --size=120x40 --keys="$K" "$f" 2>&1)
	if [ "$a" != "$b" ]; then
		echo "# the screen differs on $f"
		n=$((n + 1))
	fi
done
is "$n" 0 "the timeline's screens ($m traces) the same with every block whole"

# caches of whole blocks: written and read back as the parse gives
XDG_CACHE_HOME="$TMP/xdg"
TTRACE_CACHE_MIN=0
export XDG_CACHE_HOME TTRACE_CACHE_MIN
unset TTRACE_NO_CACHE TTRACE_CACHE_MAX
for f in "$TMP/wide.json" "$FX/overview-gpu.json"; do
	[ -f "$f" ] || continue
	a=$("$TTRACE" -q --no-cache --dump-model "$f" 2>&1)
	TTRACE_TEST_ROW_SPAN=0 "$TTRACE" -q --report=none "$f" >/dev/null 2>&1
	b=$("$TTRACE" -q --dump-model "$f" 2>&1)
	s=$("$TTRACE" -q --report=summary "$f" 2>/dev/null | head -n 1)
	is "$b" "$a" "$(basename "$f"): a cache of whole blocks reads back the parse's model"
	like "$s" "loaded from its cache" "(it was read from the cache)"
done
finish
