#!/bin/sh
# source.sh: jump to source (e): the Python frame at or above the selected slice opened in
# the editor at its line, with a stand-in editor that records its arguments: the path as
# recorded, one that is not here (the paths tried are said), --source-map and
# --source-root, TTRACE_EDITOR's template, VISUAL before EDITOR, a path no shell may split,
# a slice with no frame; then in a terminal (tmux): the terminal handed over and back.
. "$srcdir/tests/lib.sh"

mkdir -p "$TMP/proj" "$TMP/my dir"
seq 1 20 >"$TMP/proj/train.py"
seq 1 20 >"$TMP/my dir/x;rm -rf y.py"
cat >"$TMP/ed.sh" <<'EOF'
#!/bin/sh
for a in "$@"; do printf '[%s]' "$a"; done >"$ED_OUT"
printf '\n' >>"$ED_OUT"
EOF
chmod +x "$TMP/ed.sh"
ED_OUT="$TMP/ed.args"
export ED_OUT
unset VISUAL TTRACE_EDITOR

# trace FILE FRAME: a python_function frame FRAME around aten::mm on one thread
trace() {
	printf '{"traceEvents": [
{"ph": "X", "cat": "python_function", "name": "%s", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
{"ph": "X", "cat": "cpu_op", "name": "aten::lonely", "pid": 1, "tid": 2, "ts": 10, "dur": 50}
]}\n' "$2" >"$1"
}
scr() { # scr FILE KEYS [OPTIONS...]: the status line after the keys
	f=$1 keys=$2
	shift 2
	rm -f "$ED_OUT"
	EDITOR="$TMP/ed.sh" "$TTRACE" -q --dump-screen --size=400x30 --keys="$keys" "$@" "$f" | sed '/^--$/,$d' | tail -1
}
args() { cat "$ED_OUT" 2>/dev/null || echo none; }

trace "$TMP/here.json" "$TMP/proj/train.py(7): step"
out=$(scr "$TMP/here.json" '/aten::mm<Enter>e')
is "$(args)" "[+7][$TMP/proj/train.py]" "e on aten::mm: the frame above it opened at its line (+LINE FILE)"
like "$out" "$TMP/proj/train.py:7 opened in $TMP/ed.sh" "the status line says what was opened"
is "$(rm -f "$ED_OUT"; VISUAL="$TMP/ed.sh -v" EDITOR=false "$TTRACE" -q --dump-screen --keys='/aten::mm<Enter>e' "$TMP/here.json" >/dev/null; args)" \
	"[-v][+7][$TMP/proj/train.py]" "VISUAL (its words) before EDITOR"
is "$(rm -f "$ED_OUT"; TTRACE_EDITOR="$TMP/ed.sh -g %f:%l %%" "$TTRACE" -q --dump-screen --keys='/aten::mm<Enter>e' "$TMP/here.json" >/dev/null; args)" \
	"[-g][$TMP/proj/train.py:7][%]" "TTRACE_EDITOR: a template, %f the file, %l the line, %% a percent sign"

trace "$TMP/there.json" "/recorded/proj/train.py(12): forward"
out=$(scr "$TMP/there.json" '/aten::mm<Enter>e')
is "$(args)" "none" "a recorded path that is not here: no editor"
like "$out" "source not found on this machine: tried /recorded/proj/train.py (--source-root, --source-map)" \
	"the path tried is said"
scr "$TMP/there.json" '/aten::mm<Enter>e' --source-map="/recorded=$TMP" >/dev/null
is "$(args)" "[+12][$TMP/proj/train.py]" "--source-map=/recorded=DIR: the prefix replaced"
scr "$TMP/there.json" '/aten::mm<Enter>e' --source-root="$TMP" >/dev/null
is "$(args)" "[+12][$TMP/proj/train.py]" "--source-root=DIR: the path's trailing parts under DIR"
out=$(scr "$TMP/there.json" '/aten::mm<Enter>e' --source-root="$TMP/nope")
like "$out" "tried /recorded/proj/train.py; $TMP/nope/recorded/proj/train.py; $TMP/nope/proj/train.py; $TMP/nope/train.py" \
	"every candidate tried is said, in order"
run --source-map=nope "$TMP/here.json"
is "$rc" 2 "--source-map without FROM=TO: usage error"
# the same rewrite kept in the key map file, beside the bindings; the command line's wins
printf '# my keys\nsource-map /recorded=%s\nq quit\n' "$TMP" >"$TMP/keys.map"
scr "$TMP/there.json" '/aten::mm<Enter>e' --keymap="$TMP/keys.map" >/dev/null
is "$(args)" "[+12][$TMP/proj/train.py]" "source-map FROM=TO in the key map file: the prefix replaced"
out=$(scr "$TMP/there.json" '/aten::mm<Enter>e' --keymap="$TMP/keys.map" --source-map="/recorded=$TMP/nope")
is "$(args)" "none" "... --source-map on the command line goes first"
printf 'source-root %s\n' "$TMP" >"$TMP/keys2.map"
scr "$TMP/there.json" '/aten::mm<Enter>e' --keymap="$TMP/keys2.map" >/dev/null
is "$(args)" "[+12][$TMP/proj/train.py]" "source-root DIR in the key map file"
printf 'source-map nope\n' >"$TMP/keys3.map"
out=$(EDITOR="$TMP/ed.sh" "$TTRACE" --dump-screen --keymap="$TMP/keys3.map" "$TMP/there.json" 2>&1)
like "$out" "keys3.map:1: source-map: not FROM=TO: 'nope' (line skipped)" "a source-map line without FROM=TO: said and skipped"

trace "$TMP/odd.json" "$TMP/my dir/x;rm -rf y.py(3): f"
scr "$TMP/odd.json" '/aten::mm<Enter>e' >/dev/null
is "$(args)" "[+3][$TMP/my dir/x;rm -rf y.py]" "a path with a blank and a ';' is one word: no shell splits it"
like "$(scr "$TMP/here.json" '/aten::lonely<Enter>e')" "no Python frame at or above this slice (record with with_stack=True)" \
	"a slice without a frame above it says so"
like "$(scr "$TMP/here.json" 'e')" "select a slice first" "nothing selected: says what to do"
like "$("$TTRACE" -q --dump-screen --size=160x60 --keys='?<End>' "$TMP/here.json")" "open the Python source of the selection" \
	"the help lists e"
# a "<built-in method ...>" frame between the slice and the file's is skipped
printf '{"traceEvents": [
{"ph": "X", "cat": "python_function", "name": "%s", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "python_function", "name": "<built-in method mm of type object at 0x7f00>", "pid": 1, "tid": 1, "ts": 5, "dur": 80},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50}
]}\n' "$TMP/proj/train.py(9): step" >"$TMP/builtin.json"
scr "$TMP/builtin.json" '/aten::mm<Enter>e' >/dev/null
is "$(args)" "[+9][$TMP/proj/train.py]" "a built-in method's frame skipped: the file's frame above it opened"
# GPU work: the frames around its launch
printf '{"traceEvents": [
{"ph": "X", "cat": "python_function", "name": "%s", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 4}}
]}\n' "$TMP/proj/train.py(11): step" >"$TMP/gpu.json"
scr "$TMP/gpu.json" '/gemm_kernel<Enter>e' >/dev/null
is "$(args)" "[+11][$TMP/proj/train.py]" "e on a kernel: the frame around its launch"

# the Operators view grouped by source location (O g g): e on a row opens its source
scr "$TMP/here.json" 'Ogge' >/dev/null
is "$(args)" "[+7][$TMP/proj/train.py]" "Operators by source: e opens the row's source"
like "$(scr "$TMP/here.json" 'Oggje')" "this row has no source location" "a row without one says so"
like "$(scr "$TMP/here.json" 'Oe')" "e opens a row's source when the operators are grouped by source location (g)" \
	"by name: says which grouping has sources"

# In a terminal: the editor gets it, and ttrace's screen comes back when it ends
if command -v tmux >/dev/null 2>&1; then
	tmux_begin
	cat >"$TMP/ed-tty.sh" <<EOF
#!/bin/sh
[ -t 0 ] && [ -t 1 ] && echo tty >"$TMP/ed-tty.out"
printf 'EDITOR RUNNING\\n'
sleep 1
EOF
	chmod +x "$TMP/ed-tty.sh"
	T -f /dev/null new-session -d -s "$S" -x 120 -y 35 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color EDITOR='$TMP/ed-tty.sh' '$TTRACE' '$TMP/here.json'"
	wait_for "time from start"
	ok $? "the timeline opens"
	T send-keys -t "$S" / a t e n : : m m Enter
	sleep 0.5
	T send-keys -t "$S" e
	wait_for "EDITOR RUNNING"
	ok $? "e hands the terminal to the editor"
	wait_for "opened in"
	ok $? "and takes it back when the editor ends: the timeline and its status line"
	is "$(cat "$TMP/ed-tty.out" 2>/dev/null)" "tty" "the editor had the terminal as its input and output"
	T send-keys -t "$S" q
fi
finish
