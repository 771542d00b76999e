#!/bin/sh
# index_threads.sh: a trace's tracks sorted and laid out on two threads (src/index.c, as
# traces of 200,000 slices and more are; TTRACE_TEST_INDEX_SPLIT=0 makes every trace do
# it) give what one thread gives: the model (tests/golden.sh checks every fixture), and the
# data-quality examples the lay-outs find, counted and kept in track order across the two
# threads' runs.
. "$srcdir/tests/lib.sh"

# Two threads, each with two CPU slices that overlap a neighbour without nesting, events
# out of order (so that the tracks are sorted), and a GPU stream with overlapping kernels:
# five findings of one kind, of which the first three are kept as examples.
f="$TMP/two-threads.json"
{
	echo '{"traceEvents": ['
	for tid in 11 22; do
		for k in 0 1; do
			b=$((1000 + tid * 1000 + k * 300))
			echo "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer_${tid}_$k\",\"pid\":1,\"tid\":$tid,\"ts\":$((b + 100)),\"dur\":100},"
			echo "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"first_${tid}_$k\",\"pid\":1,\"tid\":$tid,\"ts\":$b,\"dur\":150},"
		done
	done
	echo '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":5000,"dur":100,"args":{"device":0,"stream":7}},'
	echo '{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":5050,"dur":100,"args":{"device":0,"stream":7}}'
	echo ']}'
} >"$f"

run --check "$f"
one_out=$out
one_rc=$rc
TTRACE_TEST_INDEX_SPLIT=0 run --check "$f"
is "$rc" "$one_rc" "on two threads: the same status"
is "$out" "$one_out" "on two threads: the same findings and examples, in the same order"
like "$one_out" "cpu_partial_overlaps: 4" "the four partial overlaps are counted"
ex=$(printf '%s\n' "$one_out" | grep -A3 'cpu_partial_overlaps' | grep 'e\.g\.' | sed 's/.*"\([a-z_0-9]*\)".*/\1/' | tr '\n' ' ')
is "$ex" "outer_11_0 outer_11_1 outer_22_0 " "the first three kept, the first thread's first"
like "$one_out" "gpu_stream_overlaps: 1" "the overlapping kernels are counted"

TTRACE_TEST_INDEX_SPLIT=0 run --dump-model "$f"
two_dump=$out
run --dump-model "$f"
is "$two_dump" "$out" "on two threads: the same model dump"
finish
