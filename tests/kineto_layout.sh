#!/bin/sh
# kineto_layout.sh: the scanner reads an event in Kineto's layouts ("ph", then "id" for a
# flow, "cat", "s" for an instant, "name", "pid", "tid", "ts", "dur", a flow's "cat", "name"
# and "bp", "args", in that order, one space after each colon) key by key without its
# general loop (parsers/scan_event.c), and goes on in the loop from the
# first key that differs. Each variant here moves the space before the colon of one key
# (the same bytes, so the same offsets): the layout then breaks at that key in every event,
# and the model must be the same bytes as the original's, on every fixture in that layout.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
files=$(grep -rl '"ph": "X", "cat": "' "$FX" | sort)
nf=0
n=0
for f in $files; do
	case "$f" in *.json) ;; *) continue ;; esac
	nf=$((nf + 1))
	want=$("$TTRACE" -q --no-cache --dump-model "$f" 2>&1 | sed "s|$f|FILE|g")
	for key in ph id cat s name pid tid ts dur bp args; do
		v="$TMP/v.json"
		sed "s/\"$key\": /\"$key\" :/g" "$f" >"$v"
		got=$("$TTRACE" -q --no-cache --dump-model "$v" 2>&1 | sed "s|$v|FILE|g")
		if [ "$got" != "$want" ]; then
			echo "# $f: the model differs when the layout breaks at \"$key\""
			n=$((n + 1))
		fi
	done
done
is "$n" 0 "every fixture in Kineto's layout: the same model whichever key breaks the layout ($nf files, 11 keys)"
ok "$([ "$nf" -gt 50 ] && echo 0 || echo 1)" "(over fifty fixtures in that layout: $nf)"

# a layout broken inside a value: a name with an escape, a pid as a string, an args that is
# not an object, a key repeated after the layout (the last value wins, as in the loop)
cat >"$TMP/odd.json" <<'EOF'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "a\"b", "pid": "7", "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 3}},
{"ph": "X", "cat": "cpu_op", "name": "c", "pid": 7, "tid": 1, "ts": 20, "dur": 5, "args": 4},
{"ph": "X", "cat": "cpu_op", "name": "d", "pid": 7, "tid": 1, "ts": 30, "dur": 5, "name": "e"},
{"ph": 1, "ph": "X", "cat": "cpu_op", "name": "f", "pid": 7, "tid": 1, "ts": 40, "dur": 5}
]}
EOF
d=$("$TTRACE" -q --no-cache --dump-model "$TMP/odd.json" 2>&1)
like "$d" 'cpu_op "a"b" cat' "an escaped name is read whole (the full lexer)"
like "$d" '"e" cat "cpu_op"' "a name given twice: the last one, as the general loop keeps"
like "$d" '"f" cat "cpu_op"' "a ph that is not a string, then one that is: the event is kept"
like "$d" "events 4" "all four events read"
finish
