#!/bin/sh
# screen.sh: golden screens: the timeline drawn headless (--dump-screen) after replaying
# keys through the real key table; text plus a style layer, compared byte for byte.
# REGEN=1 rewrites the goldens: review the diff.
. "$srcdir/tests/lib.sh"
GOLD="$srcdir/tests/golden/screens"
cd "$srcdir" || exit 1 # relative paths: the header shows the file name as given
EX="examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
FX="tests/fixtures"
printf 'z zoom-in\nZ zoom-in-big\nq pan-left\n' >"$TMP/azerty.keys"

# name | file | size | keys | extra options
cases='
default|EX|120x40||
small-80x24|EX|80x24||
ascii|EX|100x30||--ascii
zoom-in|EX|120x40|www|
zoom-in-big|EX|120x40|W|
deep-zoom|EX|120x40|LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLWWWWWWWWWWWW|
zoom-out|EX|120x40|WWs|
zoom-out-big|EX|120x40|WWWS|
pan-right|EX|120x40|WWdd|
pan-left-big|EX|120x40|WWDDA|
cursor-right|EX|120x40|llll|
cursor-right-big|EX|120x40|LL|
cursor-left|EX|120x40|LLhh|
rows-down|EX|120x40|jjjj|
rows-up|EX|120x40|jjjjk|
page-down|EX|120x30|<PgDn>|
page-up|EX|120x30|<PgDn><PgUp>|
end-home|EX|120x40|<End><Home>|
end|EX|120x40|<End>|
select|EX|120x40|LLLLj<Enter>|
fit-selection|EX|120x40|LLLLjj<Enter>f|
fit-all|EX|120x40|WWWf|
mark-slice|EX|120x40|LLLLj<Enter>m|
clear-mark|EX|120x40|LLLLj<Enter>mx|
range|EX|120x40|LLvLL|
range-mark|EX|120x40|LLvLLv|
search-typing|EX|120x40|/all_re|
search|EX|120x40|/nccl<Enter>|
search-next|EX|120x40|/nccl<Enter>nn|
search-prev|EX|120x40|/nccl<Enter>N|
search-then-enter|EX|120x40|/nccl<Enter><Enter>|
search-cancel|EX|120x40|/nccl<Enter><Esc><Esc>|
next-slice|EX|120x40|jj..|
prev-slice|EX|120x40|jj...,|
flow-forward|EX|120x40|/cudaLaunchKernel<Enter>]|
flow-back|EX|120x40|/cudaLaunchKernel<Enter>][|
flow-forward-operator|EX|120x40|/ProfilerStep<Enter>]]]|
flow-back-climb|EX|120x40|/aten::mm<Enter>][[[|
parent|EX|120x40|/aten::mm<Enter>u|
first-child|EX|120x40|/aten::mm<Enter>i|
back|EX|120x40|/aten::mm<Enter>]WW(|
bookmark-prompt|EX|120x40|/aten::mm<Enter>Bmy op|
toggle-group|EX|120x40|<Tab>|
toggle-group-twice|EX|120x40|<Tab><Tab>|
cursor-left-big|EX|120x40|LLLH|
mouse-click|EX|120x40|<Click:70,5>|
mouse-drag|EX|120x40|<Press:40,5><Release:70,5>|
mouse-wheel|EX|120x40|<WheelUp:60,5><WheelUp:60,5>|
mouse-wheel-out|EX|120x40|WW<WheelDown:60,5>|
next-gap|EX|120x40|g|
next-gap-twice|EX|120x40|gg|
prev-gap|EX|120x40|<End>G|
biggest-gap|EX|120x40|b|
second-biggest-gap|EX|120x40|bb|
gap-list|EX|120x40|o|
gap-list-jump|EX|120x40|ojj<Enter>|
gap-list-by-time|EX|120x40|ot|
gap-list-cause|EX|120x40|occ|
gap-min-up|EX|120x40|>|
gap-min-down|EX|120x40|<lt><lt>|
gap-fixture|FX/gaps/causes.json|120x40|b|
help|EX|120x40|?|
absolute-time|EX|120x40|t|
help-closed|EX|120x40|?<Esc>|
cancel-selection|EX|120x40|LLLLj<Enter><Esc>|
keymap-azerty|EX|120x40|zzZq|--keymap=KEYMAP
gpu-overlap|FX/q-gpu-overlap.json|120x40||
gpu-overlap-zoom|FX/q-gpu-overlap.json|120x40|WW|
control-char|FX/bad/bad-control-char.json|120x30||
legacy|FX/q-legacy.json|120x30||
ops-tree|FX/ops/tree.json|120x30|Oggg|
ops-tree-folded|FX/ops/tree.json|120x30|Ogggj-|
ops-tree-ascii|FX/ops/tree.json|100x24|Oggg-|--ascii
ops-tree-filter|FX/ops/tree.json|120x30|Oggg_/addmm<Enter>|
counter-track|FX/memory/counter.json|100x30||
counter-track-ascii|FX/memory/counter.json|100x30||--ascii
counter-track-details|FX/memory/counter.json|100x30|jjjjj....|
'
echo "$cases" | while IFS='|' read -r name file size keys extra; do
	[ -n "$name" ] || continue
	case "$file" in
	EX) f="$EX" ;;
	FX/*) f="$FX/${file#FX/}" ;;
	esac
	extra=$(printf '%s' "$extra" | sed "s|KEYMAP|$TMP/azerty.keys|")
	# shellcheck disable=SC2086
	"$TTRACE" --dump-screen --size="$size" --keys="$keys" $extra "$f" >"$TMP/screen" 2>"$TMP/err"
	rc=$?
	g="$GOLD/$name.screen"
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $name: ttrace exited $rc: $(head -c 300 "$TMP/err")"
		echo "$name" >>"$TMP/failed"
		continue
	fi
	if [ -n "$REGEN" ]; then
		mkdir -p "$GOLD"
		cp "$TMP/screen" "$g"
		echo "ok - $name: golden regenerated"
	elif cmp -s "$TMP/screen" "$g"; then
		echo "ok - $name: screen matches its golden"
	else
		echo "not ok - $name: screen differs from its golden $g"
		diff -u "$g" "$TMP/screen" 2>&1 | head -30 | sed 's/^/#   /'
		echo "$name" >>"$TMP/failed"
	fi
done >"$TMP/results"
n=$(grep -c '^\(not \)\{0,1\}ok' "$TMP/results")
# number the points
awk '/^(not )?ok/ { sub(/ok -/, "ok " ++i " -") } { print }' "$TMP/results"
tap_n=$n
tap_fail=$(grep -c '^not ok' "$TMP/results")

# Properties that must hold whatever the goldens say.
"$TTRACE" --dump-screen --size=80x24 "$EX" >"$TMP/s80"
widest=$(sed -n '1,24p' "$TMP/s80" | while IFS= read -r l; do printf '%s' "$l" | wc -m; done | sort -n | tail -1)
is "$widest" 80 "80x24: no text line is wider than 80 characters"
is "$(sed -n '/^--$/,$p' "$TMP/s80" | sed 1d | wc -l | tr -d ' ')" 24 "80x24: 24 lines of styles"
"$TTRACE" --dump-screen --size=100x30 --keys=W "$FX/q-gpu-overlap.json" >"$TMP/ov"
like "$(cat "$TMP/ov")" "    1" "overlapping GPU kernels get an overflow row"
"$TTRACE" --dump-screen --size=120x30 "$FX/bad/bad-control-char.json" >"$TMP/cc"
if LC_ALL=C grep -q "$(printf '\001')" "$TMP/cc"; then ok 1 "no raw control byte on the screen"; else ok 0 "no raw control byte on the screen"; fi
# Ruler labels differ at every zoom (issue 12, item 9: "16.4 ms │16.4 ms" at 50 us ticks):
# from the whole trace down to nanoseconds around +16.4 ms, and at 200 columns.
ruler_labels() { # the labels of the ruler (line 2) of the screen on stdin, one a line
	sed -n 2p | sed 's/│/\n/g' | sed 1d | sed 's/▼.*//; s/ *$//' | grep .
}
dups=""
for size in 120x10 200x10; do
	zoom=""
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
		zoom="${zoom}w"
		"$TTRACE" --dump-screen --size=$size --keys="LLLLLLLLLLLLLLLLLLLL$zoom" "$EX" | ruler_labels >"$TMP/labels"
		d=$(sort "$TMP/labels" | uniq -d | head -1)
		[ -z "$d" ] || dups="$dups $size/$i:'$d'"
	done
done
is "$dups" "" "ruler labels never repeat, zoomed in step by step at 120 and 200 columns"
"$TTRACE" --dump-screen --size=120x10 --keys=LLLLLLLLLLLLLLLLLLLLWWWWW "$EX" | ruler_labels >"$TMP/labels"
is "$(tr '\n' ' ' <"$TMP/labels")" "16.30 ms 16.35 ms 16.40 ms " "50 us ticks at the trace's end (+16.4 ms; the window stops there): two decimals of ms, as the step needs"
"$TTRACE" --dump-screen --keys='<Bogus>' "$EX" >/dev/null 2>"$TMP/err"
is "$?" 2 "an unknown key name in --keys is a usage error"
like "$(cat "$TMP/err")" "unknown key" "and says which"
finish
