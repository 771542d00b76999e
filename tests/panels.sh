#!/bin/sh
# panels.sh: the stack of panels: the table panel (sort, filter, Enter, mouse, the detail
# line), keys in contexts and remapping them with a key map, the help of the panel on
# top, overlays covering what lies below them, and the prompt taking every printable key.
. "$srcdir/tests/lib.sh"

EX="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
scr() { # scr SIZE KEYS [OPTIONS...]
	size=$1 keys=$2
	shift 2
	"$TTRACE" -q --dump-screen --size="$size" --keys="$keys" "$@" "$EX"
}
text() { sed '/^--$/,$d'; } # the screen's text, without the style lines
rlike() { # rlike TEXT REGEX DESCRIPTION: a line of TEXT matches the extended REGEX
	printf '%s\n' "$1" | grep -qE -- "$2"
	ok $? "$3"
}
runlike() { # runlike TEXT REGEX DESCRIPTION: no line of TEXT matches
	! printf '%s\n' "$1" | grep -qE -- "$2"
	ok $? "$3"
}

# a key of the gap list remapped through a key map, in both forms of a line
printf 'C gap-cause\n' >"$TMP/k1"
printf 'table C gap-cause\ntable c none\n' >"$TMP/k2"
want=$(scr 120x40 'occ' | text)
like "$want" "only data loading" "c c: the gap list shows only the second cause (the first, host sync, in rule order)"
is "$(scr 120x40 'oCC' --keymap="$TMP/k1" | text)" "$want" "a key map gives the cause filter to C (KEY ACTION)"
is "$(scr 120x40 'oCC' --keymap="$TMP/k2" | text)" "$want" "a key map gives it to C in the table context (CONTEXT KEY ACTION)"
unlike "$(scr 120x40 'occ' --keymap="$TMP/k2" | text)" "only data loading" "c unbound in tables by 'table c none'"
rlike "$(scr 120x60 'o?' --keymap="$TMP/k2" | text)" "^  C +gap list: only the next cause" "the help lists the remapped key"
printf 'table x gap-cause\n' >"$TMP/k3"
like "$(scr 120x40 'x' --keymap="$TMP/k3" | text)" "cleared" "a key bound in the table context keeps its timeline action (x clears the mark)"
# a key map's bad lines are said (file:line, what) and skipped; the rest applies
printf 'nowhere x gap-cause\nC gap-cause\nz zoomin\n' >"$TMP/k4"
out=$("$TTRACE" -q --dump-screen --size=120x40 --keymap="$TMP/k4" "$EX" 2>"$TMP/err")
is "$?" 0 "bad lines in a key map do not end the program"
like "$(printf '%s\n' "$out" | text)" "k4:1: unknown context 'nowhere' (line skipped); 1 more skipped" \
	"the status line says the first bad line, where and what, and how many more"
is "$(scr 120x40 'oCC' --keymap="$TMP/k4" | text)" "$want" "the good line of the same map still applies (C: the cause filter)"
printf 'z zoomin\n' >"$TMP/k5"
like "$("$TTRACE" -q --dump-screen --size=120x40 --keymap="$TMP/k5" "$EX" | text)" "k5:1: unknown action 'zoomin' (line skipped)" \
	"an unknown action is named"
"$TTRACE" -q --dump-screen --keymap="$TMP/missing" "$EX" >/dev/null 2>"$TMP/err"
is "$?" 2 "a key map that cannot be opened is still a usage error"

# sort: s cycles the column, r reverses; the rows follow
starts() { text | sed -n '5,17p' | awk '{print $3}' | tr -d '+'; }
s1=$(scr 120x40 'osss' | starts)
is "$(printf '%s\n' "$s1" | sort -g -r | tr '\n' ' ')" "$(printf '%s\n' "$s1" | tr '\n' ' ')" "s s s: by start, latest first"
like "$(scr 120x40 'osss' | text)" ", by start (largest first)" "the title says the sort"
s2=$(scr 120x40 'osssr' | starts)
is "$(printf '%s\n' "$s2" | sort -g | tr '\n' ' ')" "$(printf '%s\n' "$s2" | tr '\n' ' ')" "r: earliest first"
is "$(printf '%s\n' "$s2" | head -1)" "$(printf '%s\n' "$s1" | tail -1)" "reversed: the last row comes first"
like "$(scr 120x40 'or')" "choose a column to sort by first" "r before any sort says what to do"
is "$(scr 120x40 'ot' | starts | tr '\n' ' ')" "$(printf '%s\n' "$s2" | tr '\n' ' ')" "t (gap-order) sorts by start too"

# filter: / takes text live; Enter keeps it, Esc clears it
out=$(scr 120x40 'o/nosuchgap<Enter>' | text)
like "$out" 'filter "nosuchgap": 0 rows' "a filter with no match says so"
like "$out" "(no row holds the filter text)" "and the table says why it is empty"
out=$(scr 120x40 'o/cpu WORK<Enter>' | text)
like "$out" 'filter "cpu WORK": 10 rows' "the filter ignores case and counts the rows"
is "$(printf '%s\n' "$out" | sed -n '5,14p' | grep -c 'CPU work')" 10 "every row shown holds the text"
unlike "$(scr 120x40 'o/cpu WORK<Esc>' | text)" 'filter "' "Esc clears the filter"
like "$(scr 120x40 'o/loading' | text)" 'filter "loading": 1 rows' "the filter applies while typing"
rlike "$(scr 120x40 'o/sync' | text)" '^filter: sync' "the prompt takes the status line"

# Enter, the mouse, the detail line
rlike "$(scr 120x40 'o<Click:10,6>' | text)" " 3/13 $" "a click selects the row under it"
like "$(scr 120x40 'o' | text)" "CPU slice: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" "the detail line shows whole what a column cut"
like "$(scr 120x40 'o' | text | sed -n 5p)" "enumerate(DataLo…derIter" "(the column itself elides it in the middle)"
like "$(scr 120x40 'ojj<Enter>' | text)" "gap: 316 us gap on GPU 0" "Enter jumps to the selected gap and closes the list"
rlike "$(scr 120x40 'oj<End>' | text)" " 13/13 $" "End goes to the last row"

# columns past the right edge: a mark, and Right (l) scrolls them in, the first column staying
out=$(scr 60x20 'o' | text | sed -n 4p)
rlike "$out" "›$" "60 columns: the heading marks columns past the right edge"
unlike "$out" "HTA class" "(the HTA class column is past it)"
out=$(scr 60x20 'oll' | text | sed -n 4p)
rlike "$out" "^‹ # " "l l: columns scrolled off the left are marked; the first column stays"
like "$out" "HTA class" "and the columns past the right edge come in"
is "$(scr 60x20 'olllllllllll' | text | sed -n 4p)" "$(scr 60x20 'oll<Right>ll' | text | sed -n 4p)" "Right stops once the last column is in"
is "$(scr 60x20 'ollh' | text | sed -n 4p)" "$(scr 60x20 'ol' | text | sed -n 4p)" "h scrolls back"
unlike "$(scr 120x40 'ol' | text | sed -n 4p)" "‹" "nothing scrolls when every column fits"

# overlays cover what lies below them: no slice glyph or group arrow shows through
for k in o '?'; do
	lines=$(scr 120x40 "$k" | text | sed -n '3,30p')
	runlike "$lines" "[█▌▏▾▸░]" "'$k': nothing of the timeline shows through the overlay"
done

# the help: the panel on top's keys, grouped, scrolling; at 80x24 nothing is cut
all=""
for p in '' '<PgDn>' '<PgDn><PgDn>' '<PgDn><PgDn><PgDn>' '<PgDn><PgDn><PgDn><PgDn>'; do
	all="$all
$(scr 80x24 "?$p" | text)"
done
for k in g b o p R t Tab q '\?' Esc; do
	rlike "$all" "^  ([^ ]+ )*$k +[a-z]" "help at 80x24 lists '$k'"
done
like "$all" "show the window in absolute time (UTC) or from the trace start" "a long help line is whole at 80 columns"
like "$(scr 80x24 '?' | text)" "Keys: timeline" "the help says whose keys it lists"
rlike "$(scr 80x24 '?<End>' | text)" " [0-9]+-([0-9]+) of \\1 *$" "End scrolls to the last lines"
like "$(scr 120x40 'o?' | text)" "Keys: table" "? over a table lists the table's keys"
like "$(scr 120x40 'o?' | text)" "sort by the next column" "the table's own actions"
unlike "$(scr 120x40 'o?' | text)" "zoom in around the cursor" "and not the timeline's"
rlike "$(scr 80x24 '?<WheelDown:10,10><WheelDown:10,10>' | text)" "Keys: timeline .* 7-26 of" "the wheel scrolls the help three lines a notch"
like "$(scr 120x40 '?x' | text)" "cursor at" "any other key closes the help"
unlike "$(scr 120x40 '?x' | text)" "mark cleared" "and does nothing else"

# the prompt takes every printable key, even those bound to views
out=$(scr 120x40 '/opq?<Enter>' | text)
like "$out" 'no slice name contains "opq?"' "o p q ? typed into the search, not acted on"
unlike "$out" "gaps of" "no gap list opened from the prompt"

# a view's key closes it; a view opened twice comes back on top instead
unlike "$(scr 120x40 'oo' | text)" "gaps of" "o again closes the gap list"
like "$(scr 120x40 'o?o' | text)" "gaps of" "o from the help over the list brings the list back"
# Columns empty for a trace are not shown (issue 31): on a trace without GPU work the
# operator view has no device-time or device-memory columns, and says its rows are in CPU
# total order; on the example (GPU work) they are there
CPU="$srcdir/tests/fixtures/q-legacy.json"
out=$("$TTRACE" -q --dump-screen --size=120x24 --keys=O "$CPU" | text)
like "$out" " operator           calls self CPU CPU total CPU mean" "a CPU-only trace: the operator view's columns are the CPU ones"
unlike "$out" "device" "no device columns"
like "$out" "0 of 0 GPU activities reach an operator, by CPU total" "the title says the order is CPU total"
like "$("$TTRACE" --report=operators "$CPU")" "13 operator names by CPU total;" "and the text report"
like "$(scr 200x40 O | text)" "self device" "a GPU trace keeps its device columns"
like "$(scr 200x40 O | text)" "by device total" "in device total order"
finish
