#!/bin/sh
# details_panel.sh: every arg of a slice can be read at 80x24 (issue 12, item 2): one arg a
# line, long values wrapped, a Call stack a frame a line, and I enlarging the panel and then
# paging through what does not fit, back to its size after the last page.
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/render/long-args.json" # aten::linear: 7 args, a Call stack of 41 frames
det() { "$TTRACE" -q --dump-screen --size="${2:-80x24}" --keys="<Enter>$1" "$F" | sed '/^--$/,$d' | sed -n '/── details/,$p'; }
out=$(det '')
like "$out" "External id: 7" "an arg a line, from the first"
like "$out" "more lines of args: I enlarges" "the panel says there is more, and which key shows it"
all=""
for k in I II III IIII; do all="$all
$(det "$k")"; done
for want in "Input Dims: [[32,1024],[4096,1024],[4096]]" "Input type: [\"float\",\"float\",\"float\"]" "Call stack:" \
	"  model/layer00.py(10): forward_block_00" "  model/layer39.py(49): forward_block_39" "  train.py(99): TAIL_FRAME" \
	"Sequence number: 12" "Fwd thread id: 0" "Last: END_OF_ARGS"; do
	like "$all" "$want" "I pages to every arg: $want"
done
like "$(det I)" "page 1/4" "I enlarges the panel: four pages at 80x24"
is "$(det IIIII | grep -c .)" "$(det '' | grep -c .)" "after the last page, I brings the panel back to its size"
# a long value without breaks wraps, its continuation indented
out=$("$TTRACE" -q --dump-screen --size=60x40 --keys='<Enter>I' "$srcdir/tests/fixtures/q-long-name.json" | sed '/^--$/,$d')
is "$(printf '%s\n' "$out" | LC_ALL=C.UTF-8 wc -L)" 60 "no line wider than the screen"
like "$(det '' 120x40)" "Input Dims: [[32,1024]" "a bigger screen shows more args at once"
finish
