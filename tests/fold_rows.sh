#!/bin/sh
# fold_rows.sh: at 80x24 the GPU is on screen (issue 12, item 3): a CPU thread too deep for
# the screen is folded to as many rows as let the GPU streams show, its last row saying how
# many are hidden; z unfolds and folds again; a slice in a folded row unfolds to show.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/render/deep-thread.json" # thread 1: 21 rows of nested frames; a kernel on stream 7
scr() { "$TTRACE" -q --dump-screen --size="$1" --keys="$2" "$F" | sed '/^--$/,$d'; }
out=$(scr 80x24 '')
like "$out" "  stream 7          │" "80x24: the GPU stream is on screen"
like "$out" "    7 +14 rows (z)  │" "the thread is folded to 8 rows, the last saying how many are hidden"
unlike "$out" "frame_08" "and the rows below it are not drawn"
out=$(scr 80x24 'z')
unlike "$out" "  stream 7 " "z unfolds: the deep thread takes the screen again"
like "$(printf '%s\n' "$out" | tail -1)" "every row of every thread shown" "and says so"
like "$(scr 80x24 'zz')" "  stream 7          │" "z again folds"
out=$(scr 80x24 '/frame_19<Enter>')
like "$out" "frame_19" "a search into a folded row unfolds the thread to show the match"
unlike "$(scr 120x60 '')" "rows (z)" "a screen with room for every row folds nothing"
finish
