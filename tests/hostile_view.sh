#!/bin/sh
# hostile_view.sh: the timeline on traces whose times sit at the edges of int64 ns: one
# slice of 1e15 us, an epoch trace with one stray event at ts 1000, times near +-2^62 ns,
# two ranks whose clocks are 285 years apart. Every key script below used to hang the
# ruler (a tick step of 1 ns after an overflow) or overflow in zoom and pan; each run must
# end (timeout 30 s), exit 0, draw a ruler with at most one tick per column, and be silent
# under UBSan (the CI runs this test in the ASan+UBSan build with halt_on_error=1).
. "$srcdir/tests/lib.sh"
H="$srcdir/tests/fixtures/hostile"

# screen NAME FILES KEYS: draws the timeline headless after KEYS; checks it ended and drew.
screen() {
	name=$1 files=$2 keys=$3
	# shellcheck disable=SC2086
	timeout 30 "$TTRACE" --dump-screen --size=100x24 --keys="$keys" $files >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 124 ]; then
		ok 1 "$name: ends (timed out after 30 s)"
		return
	fi
	no_crash "$name"
	is "$rc" 0 "$name: exit status 0"
	ruler=$(sed -n 2p "$TMP/out")
	like "$ruler" "time from start" "$name: the ruler is drawn"
	ticks=$(printf '%s' "$ruler" | grep -o '│' | wc -l)
	[ "$ticks" -le 100 ]
	ok $? "$name: at most one tick per column ($ticks)"
}

for f in dur-1e15us.json stray-ts-1000-epoch.json times-near-2e62ns.json; do
	for keys in '' 'ww' 'wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwWWWWWWWWWWWWWWWWWWWWWWWWWW' 'SSSSSSSSSSSSSSSSSSSS' \
		'WWWWDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD' 'WWWWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' \
		'<End>wwwwwwLLLLLLLLLLLLLLLLLLLL' '<Home>WWWWWHHHHHHHHHHH' 'j<Enter>fmWWWWWSSSSSS' '/big<Enter>fww' \
		'jjj.......,,,,,,f' 'vLLLLLLLLv' 'gGbo<Enter>'; do
		screen "$f '$keys'" "$H/$f" "$keys"
	done
done

# Zoom and pan stay on the trace (issue 31): twenty S and forty S show the same window
# (zooming out stops), and so do forty A and eighty A after a zoom in (panning stops),
# even with times at the edges of int64.
for f in dur-1e15us.json stray-ts-1000-epoch.json times-near-2e62ns.json; do
	s20=$("$TTRACE" --dump-screen --size=100x24 --keys=SSSSSSSSSSSSSSSSSSSS "$H/$f" | head -1)
	s40=$("$TTRACE" --dump-screen --size=100x24 --keys=SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS "$H/$f" | head -1)
	is "$s40" "$s20" "$f: zooming out stops at the whole trace"
	a40=$("$TTRACE" --dump-screen --size=100x24 --keys=WWWWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA "$H/$f" | head -1)
	a80=$("$TTRACE" --dump-screen --size=100x24 --keys=WWWWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA "$H/$f" | head -1)
	is "$a80" "$a40" "$f: panning stops at the trace's start"
done

# The stray event: two presses of w draw a ruler with labelled ticks (the hang of issue 8).
screen "stray: ww" "$H/stray-ts-1000-epoch.json" "ww"
grep -q 'time from start *[^ ]' "$TMP/out"
ok $? "stray: ww: the ruler has tick labels"

# Two ranks whose base times are 9e18 ns apart: every alignment, every shift, every view.
for keys in '' 'y' 'yy' 'yyy' '}}}}}}}}}}' '{{{{{{{{{{{{' 'yyy}}}}}}}}}}}}}}}}}}}}}}WWWW' 'p<Enter>' 'pj<Enter>' 'pjj<Enter>' \
	'R' 'Rwwwwww' 'o' '<End>SSSSSSSSS'; do
	screen "far ranks '$keys'" "$H/far-ranks/rank0.json $H/far-ranks/rank1.json" "$keys"
done
finish
