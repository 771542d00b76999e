#!/bin/sh
# analysis_threads.sh: the analyses of a trace of 30,000 slices or more split their work
# over threads of their own (src/analysis_split.h); smaller ones, most fixtures and the
# ranks of a job, run on one (several ranks one per core). TTRACE_TEST_ANALYSIS_SPLIT=0
# sends every trace down the split path, =1000000000 none: every report that reads the
# analyses says the same bytes both ways, on fixtures of one rank and of several.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
n=0
for f in "$FX"/overview/*.json "$FX"/stragglers/* "$FX"/memory/*.json "$FX"/sync-on-stream.json \
	"$FX"/compiled/*.json "$FX"/advice/*; do
	[ -e "$f" ] || continue
	for r in advice overview kernels operators gaps memory distributed; do
		a=$(TTRACE_TEST_ANALYSIS_SPLIT=0 "$TTRACE" -q --report=$r --json "$f" 2>&1)
		b=$(TTRACE_TEST_ANALYSIS_SPLIT=1000000000 "$TTRACE" -q --report=$r --json "$f" 2>&1)
		if [ "$a" != "$b" ]; then
			echo "# $r differs on $f"
			n=$((n + 1))
		fi
	done
done
is "$n" 0 "every report the same, the analyses split over threads or not"
# the screen's advice line and the advice view, through the key table
f="$FX/stragglers/compute"
a=$(TTRACE_TEST_ANALYSIS_SPLIT=0 "$TTRACE" -q --dump-screen --size 150x40 --keys '!' "$f" 2>&1)
b=$(TTRACE_TEST_ANALYSIS_SPLIT=1000000000 "$TTRACE" -q --dump-screen --size 150x40 --keys '!' "$f" 2>&1)
is "$a" "$b" "the advice view over three ranks: the same screen"
like "$a" "Advice:" "(it is the advice view)"
finish
