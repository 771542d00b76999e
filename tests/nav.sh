#!/bin/sh
# nav.sh: moving around the timeline through the real key table (issue 12, items 1 and
# 11): from an operator to the GPU work it and the slices in it launched, cycling with ];
# from GPU work back to its launch and up the operators above it with [; the parent and
# first-child keys; Enter selecting the slice at the cursor; back and forward after
# jumps; bookmarks and their list; the help and the man page naming every key.
. "$srcdir/tests/lib.sh"

EX="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
TREE="$srcdir/tests/fixtures/ops/tree.json"
PARENT="$srcdir/tests/fixtures/nav/parent.json"
scr() { # scr FILE KEYS: the screen's text at 120x40 after KEYS
	"$TTRACE" -q --dump-screen --size=120x40 --keys="$2" "$1" | sed '/^--$/,$d'
}
# the selected slice's name (the details panel's first line) and the status line
sel() { scr "$1" "$2" | sed -n '/^── details/{n;p;q}' | sed 's/^ //;s/ *$//'; }
status() { scr "$1" "$2" | tail -1; }
header() { scr "$1" "$2" | head -1; }

# Zoom and pan stay on the trace, as in Perfetto (issue 31): the example spans 16.439 ms;
# zooming out stops at it and a hundredth of it on each side (16.8 ms), panning stops a
# hundredth past either end, whatever the number of presses.
is "$(header "$EX" SSSSSSSSSSSSSSSSSSSS | awk '{ print $2, $3, $4, $5, $6, $7, $8 }')" \
	"-0.164390 ms .. +16.603390 ms (16.8 ms)" "twenty S: the whole trace and its margin, no further"
is "$(header "$EX" wwwwaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | awk '{ print $2, $3 }')" "-0.164390 ms" \
	"thirty a: panning stops a hundredth before the start"
is "$(header "$EX" wwwwdddddddddddddddddddddddddddddd | awk '{ print $5, $6 }')" "+16.603390 ms" \
	"thirty d: and a hundredth past the end"

# f fits the selection, F the whole trace whatever is selected (Perfetto's keys); Esc
# clears the selection, then the mark, then the search, and the window stays
M0='/aten::mm<Enter>'
unlike "$(header "$EX" "${M0}f")" "(16.4 ms)" "f fits the selected aten::mm"
is "$(header "$EX" "${M0}fF")" "$(header "$EX" '')" "F fits the whole trace with a slice selected"
like "$(sel "$EX" "${M0}<Esc>")" "cursor at" "Esc clears the selection first"
is "$(header "$EX" "${M0}f<Esc>")" "$(header "$EX" "${M0}f")" "and the window does not move"
like "$(scr "$EX" "${M0}<Esc>n" | sed -n '/^── details/{n;p;q}')" "aten::mm" "the search is still there: n goes to the next match"
like "$(status "$EX" "${M0}m<Esc>")" "mark 29.0 us" "with a mark: the first Esc leaves the mark"
unlike "$(status "$EX" "${M0}m<Esc><Esc>")" "mark" "the second clears it"
like "$(sel "$EX" "${M0}<Esc><Esc>n")" "cursor at" "without a mark the second Esc ends the search: n finds nothing"

# ] from an operator: the GPU work of the runtime calls nested in it, one after the other
L='/aten::linear<Enter>' # the outer aten::linear of tree.json: k1, gemm, k3 below it
is "$(sel "$TREE" "$L")" "aten::linear" "the search selects the outer aten::linear"
is "$(sel "$TREE" "$L]")" "k1" "] from an operator reaches the kernel of a runtime call nested in it"
like "$(status "$TREE" "$L]")" "kernel 1/3 launched under aten::linear" "and counts the GPU work it launched"
is "$(sel "$TREE" "$L]]")" "gemm" "] again: the next kernel, launched by a deeper operator (aten::addmm)"
like "$(status "$TREE" "$L]]")" "kernel 2/3" "counted 2/3"
is "$(sel "$TREE" "$L]]]")" "k3" "] again: the kernel of a driver call"
is "$(sel "$TREE" "$L]]]]")" "k1" "after the last, the first again"
like "$(status "$TREE" "$L]]]]")" "kernel 1/3" "counted 1/3"
M='/aten::mm<Enter>'
like "$(sel "$EX" "$M]")" "gemmk1_kernel" "dlrm: ] from aten::mm reaches its kernel"
like "$(status "$EX" "$M]]")" "kernel 1/1 launched under aten::mm" "dlrm: ] again cycles on its one kernel, no 'no flow forward'"
like "$(status "$EX" '/ProfilerStep<Enter>]')" "memcpy 1/154 launched under ProfilerStep#10" \
	"dlrm: ] from the step reaches every launch below it"
like "$(status "$EX" ']')" "select a slice first" "] with no selection says what to do"

# [ from GPU work: its launch, then up the chain of operators
is "$(sel "$TREE" "$L]][")" "cudaLaunchKernel" "[ from a kernel: its runtime call"
like "$(status "$TREE" "$L]][")" "the kernel's launch" "named as its launch"
is "$(sel "$TREE" "$L]][[")" "aten::addmm" "[ again: the operator around the runtime call"
like "$(status "$TREE" "$L]][[[")" "up to aten::linear, row 3" "[ again: the inner aten::linear"
like "$(status "$TREE" "$L]][[[[")" "up to aten::linear, row 2" "[ again: the outer aten::linear"
is "$(sel "$TREE" "$L]][[[[[[")" "ProfilerStep#1" "and on up to the step"
like "$(status "$TREE" "$L]][[[[[[[")" "at the top" "[ at the top says so"
is "$(sel "$EX" "$M][[[")" "AddmmBackward0" "dlrm: kernel, launch, aten::mm, then AddmmBackward0"

# u: the parent (from GPU work, its launch); i: the first child
is "$(sel "$EX" "${M}u")" "AddmmBackward0" "u from aten::mm selects its parent"
is "$(sel "$TREE" "${L}i")" "aten::linear" "i from the outer aten::linear: the inner one"
like "$(status "$TREE" "${L}i")" "down to aten::linear, row 3" "one row down"
is "$(sel "$TREE" "${L}ii")" "cudaLaunchKernel" "i again: its first child"
like "$(status "$TREE" "${L}iii")" "nothing nested in this slice" "i on a leaf says so"
like "$(status "$TREE" "${L}iiu")" "up to aten::linear, row 3" "u goes back up"
is "$(sel "$TREE" "${L}]u")" "cudaLaunchKernel" "u from a kernel: its launch"
like "$(status "$TREE" "/ProfilerStep<Enter>u")" "at the top: no slice encloses this one" "u at depth 0 says so"
like "$(status "$TREE" "u")" "select a slice first" "u with no selection says what to do"

# Enter picks the slice at the cursor: k from aten::addmm (at the very end of aten::linear,
# in the column where aten::relu begins and covers more) then Enter selects aten::linear
A='/addmm<Enter>'
is "$(sel "$PARENT" "$A")" "aten::addmm" "the search selects aten::addmm"
is "$(sel "$PARENT" "${A}k<Enter>")" "aten::linear" "k then Enter selects the slice it nests in, not the wider aten::relu"
is "$(sel "$PARENT" "${A}u")" "aten::linear" "so does u"

# back and forward
like "$(status "$EX" '(')" "nothing to go back to" "( with no jump yet says so"
like "$(status "$EX" ')')" "nothing to go forward to" ") with nothing forward says so"
is "$(sel "$EX" "$M](")" "aten::mm" "( after ] returns to the operator"
like "$(status "$EX" "$M](")" "back: 1 back, 1 forward" "and counts what lies back and forward"
like "$(sel "$EX" "$M]()")" "gemmk1_kernel" ") goes forward to the kernel again"
like "$(sel "$EX" "$M](<BS>")" "cursor at" "BS goes back too: before the search, nothing was selected"
is "$(header "$EX" "$M](<BS>")" "$(header "$EX" '')" "and the window is the one before the search"
like "$(status "$EX" "$M](<BS>")" "back: 0 back, 2 forward" "every jump can be undone"
like "$(status "$EX" "$M](])")" "nothing to go forward to" "a jump after going back forgets the places forward"
like "$(sel "$EX" "${M}WWWjjhh(")" "cursor at" "zooming and moving are not jumps: ( undoes the search"
is "$(header "$EX" "ojj<Enter>(")" "$(header "$EX" '')" "( after Enter in the gap list returns to the whole trace"
like "$(header "$EX" "ojj<Enter>()")" "$(header "$EX" "ojj<Enter>" | cut -c1-40)" ") returns to the gap"
is "$(sel "$TREE" "O<Enter>")" "aten::linear" "Enter in the Operators view selects an operator"
like "$(sel "$TREE" "O<Enter>(")" "cursor at" "( returns to no selection"
is "$(sel "$TREE" "${L}i]][[u(((")" "gemm" "back walks the places of [ and u too (addmm, the runtime call, gemm)"
is "$(sel "$TREE" "${L}i]][[u((((((")" "aten::linear" "and of i and ]: the outer aten::linear"
like "$(status "$TREE" "${L}i]][[u((((((")" "back: 1 back, 6 forward" "one more back: before the search"
like "$(sel "$EX" "g")" "gap" "g shows a gap"
like "$(sel "$EX" "g(")" "cursor at" "( after g returns to before the gap"

# bookmarks
like "$(status "$EX" "'")" "no bookmarks yet: B in the timeline bookmarks" "' with no bookmark says how to make one"
like "$(status "$EX" "${M}Bmy op<Enter>")" 'bookmarked as "my op"' "B asks a name and bookmarks"
like "$(status "$EX" "${M}B<Enter>")" 'bookmarked as "bookmark 1"' "with no name, a number"
like "$(status "$EX" "${M}B<Esc>")" "no bookmark made" "Esc makes none"
out=$(scr "$EX" "${M}Bmy op<Enter>]B<Enter>'")
like "$out" "2 bookmarks: Enter shows one, x deletes it" "' lists the bookmarks"
rlike() { printf '%s\n' "$1" | grep -qE -- "$2"; ok $? "$3"; }
rlike "$out" "^ 1 my op .* aten::mm +thread 59976" "a bookmark's row: name, window, selection, track"
rlike "$out" "^ 2 bookmark 2 .*gemmk1_kernel.* stream 7" "the second, with its default name"
is "$(sel "$EX" "${M}Bmy op<Enter>]WWW'<Enter>")" "aten::mm" "Enter in the list shows the bookmark's selection"
is "$(header "$EX" "${M}Bmy op<Enter>]WWW'<Enter>")" "$(header "$EX" "${M}")" "and its window"
like "$(status "$EX" "${M}Bmy op<Enter>]WWW'<Enter>")" 'bookmark "my op"' "and says which"
like "$(sel "$EX" "${M}Bmy op<Enter>]WWW'<Enter>(")" "gemmk1_kernel" "( returns from the bookmark"
out=$(scr "$EX" "${M}Bmy op<Enter>]B<Enter>'x")
like "$out" "1 bookmark:" "x deletes the selected bookmark"
rlike "$out" "^ 1 bookmark 2 " "the first one: the second is left"
like "$(scr "$EX" "${M}Bmy op<Enter>'")" "1 bookmark: Enter shows one" "' opens the list"
unlike "$(scr "$EX" "${M}Bmy op<Enter>''")" "Enter shows one" "' again closes it"

# the help and the man page name every key
help=$(scr "$EX" '?jjjjjjjjjjjjjjjjjjjjjjjjjjjjjj')$(scr "$EX" '?jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj')
rlike "$help" '^ +u +select the slice the selected one nests in' "the help lists u"
rlike "$help" '^ +i +select the first slice nested' "the help lists i"
rlike "$help" '^ +\( BS +go back' "the help lists ( and BS"
rlike "$help" '^ +\) +go forward' "the help lists )"
rlike "$help" '^ +B +bookmark the window' "the help lists B"
rlike "$help" "^ +' +the bookmarks" "the help lists '"
missing=
for a in $(sed -n 's/^	\[A_[A-Z_]*\] = { "\([a-z-]*\)".*/\1/p' "$srcdir/ui/keys.c"); do
	case "$a" in none | accept | erase) continue ;; esac # the prompt's keys: the man page's Search
	m=$(printf '%s' "$a" | sed 's/-/\\\\-/g')
	grep -q "Cm $m\\b" "$srcdir/man/ttrace.1" || missing="$missing $a"
done
is "$missing" "" "the man page documents every action"
finish
