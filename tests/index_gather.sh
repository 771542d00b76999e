#!/bin/sh
# index_gather.sh: a track out of order is put in order through a permutation, applied in
# place by following its cycles, or, for a track of GATHER_MIN slices or more (4 GB traces),
# gathered into new arrays (src/index.c). TTRACE_TEST_GATHER_MIN=0 gathers every track
# that needs it: the model (slices, GPU facts) and what is read through each slice's args
# (operators by input shape, the communication table) are the same bytes both ways.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
n=0
m=0
for f in $(find "$FX" -type f -name '*.json' | sort); do
	m=$((m + 1))
	for args in "--dump-model" "--report=operators --json --group-by=shape" "--report=distributed --json"; do
		a=$("$TTRACE" -q --no-cache $args "$f" 2>&1)
		b=$(TTRACE_TEST_GATHER_MIN=0 "$TTRACE" -q --no-cache $args "$f" 2>&1)
		if [ "$a" != "$b" ]; then
			echo "# $args differs on $f"
			n=$((n + 1))
		fi
	done
done
is "$n" 0 "every fixture ($m): the same model, shapes and communication, tracks gathered or not"

# a track in two runs merged over its whole length (the 10 GB trace's case), with args
# that say which slice each is
{
	printf '{"traceEvents": [\n'
	i=0
	while [ $i -lt 300 ]; do
		printf '{"ph": "X", "cat": "cpu_op", "name": "a%d", "pid": 1, "tid": 1, "ts": %d, "dur": 1, "args": {"Input Dims": [[%d]]}},\n' $i $((i * 10)) $i
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 300 ]; do
		printf '{"ph": "X", "cat": "cpu_op", "name": "b%d", "pid": 1, "tid": 1, "ts": %d, "dur": 1, "args": {"Input Dims": [[%d]]}},\n' $i $((i * 10 + 5)) $((1000 + i))
		i=$((i + 1))
	done
	printf '{"ph": "X", "cat": "cpu_op", "name": "z", "pid": 1, "tid": 1, "ts": 9999, "dur": 1}\n]}\n'
} >"$TMP/runs.json"
a=$("$TTRACE" -q --no-cache --report=operators --json --group-by=shape "$TMP/runs.json" 2>&1)
b=$(TTRACE_TEST_GATHER_MIN=0 "$TTRACE" -q --no-cache --report=operators --json --group-by=shape "$TMP/runs.json" 2>&1)
is "$b" "$a" "two runs merged: each slice keeps its args, gathered or not"
like "$b" '[[1299]]' "(the shapes are read: the last b's is there)"
d=$(TTRACE_TEST_GATHER_MIN=0 "$TTRACE" -q --no-cache --dump-model "$TMP/runs.json" 2>&1)
like "$d" '    0 +1000 cpu_op "a0" cat "cpu_op"
    5000 +1000 cpu_op "b0" cat "cpu_op"
    10000 +1000 cpu_op "a1" cat "cpu_op"' "and in time order, the runs interleaved"
finish
