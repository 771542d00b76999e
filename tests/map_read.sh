#!/bin/sh
# map_read.sh: a small plain file is mapped, not read, into the scanner's window
# (parsers/scan_window.c, "Mapped windows"). TTRACE_TEST_NO_MAP=1 reads it as before: every
# fixture's model and messages are the same bytes both ways, and so are files whose sizes
# put their end at, just before and just after a page's end (where the window's zeros come
# from an anonymous page instead of the file's last one). A file cut while it is mapped does
# not kill ttrace (SIGBUS): what came before the cut is kept and the warning says so.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
n=0
m=0
for f in $(find "$FX" -type f \( -name '*.json' -o -name '*.txt' \) | sort); do
	a=$("$TTRACE" -q --no-cache --dump-model "$f" 2>&1)
	b=$(TTRACE_TEST_NO_MAP=1 "$TTRACE" -q --no-cache --dump-model "$f" 2>&1)
	m=$((m + 1))
	if [ "$a" != "$b" ]; then
		echo "# the model differs on $f"
		n=$((n + 1))
	fi
done
is "$n" 0 "every fixture's model and messages the same, mapped or read ($m files)"
ok "$([ "$m" -gt 100 ] && echo 0 || echo 1)" "(over a hundred fixtures: $m)"

# sizes around a page's end: the trace padded with spaces to SIZE bytes, whole, and cut
# inside its last event (a truncation message that names the last byte)
ev='{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":5,"args":{"External id":1}}'
n=0
for size in 4033 4034 4095 4096 4097 8191 8192 12224 12288; do
	f="$TMP/size$size.json"
	head="{\"traceEvents\":[$ev,$ev]"
	tail='}'
	pad=$((size - ${#head} - ${#tail}))
	{
		printf '%s' "$head"
		printf "%${pad}s" ''
		printf '%s' "$tail"
	} >"$f"
	got=$(wc -c <"$f" | tr -d ' ')
	[ "$got" = "$size" ] || echo "# $f has $got bytes, not $size"
	for g in "$f" "$TMP/cut$size.json"; do
		[ "$g" = "$f" ] || { head -c $((size - 1)) "$f" | sed 's/}$/ /' >"$g"; }
		a=$("$TTRACE" -q --no-cache --dump-model "$g" 2>&1)
		b=$(TTRACE_TEST_NO_MAP=1 "$TTRACE" -q --no-cache --dump-model "$g" 2>&1)
		if [ "$a" != "$b" ]; then
			echo "# the model differs on $g ($(wc -c <"$g") bytes)"
			n=$((n + 1))
		fi
	done
done
is "$n" 0 "files ending at, before and after a page's end: the same model mapped or read"
a=$("$TTRACE" -q --no-cache --dump-model "$TMP/size4096.json" 2>&1)
like "$a" "events 2" "(a 4096-byte file mapped: both its events)"
a=$("$TTRACE" --no-cache --report=none "$TMP/cut4096.json" 2>&1)
like "$a" "truncated" "(a file cut before its end is said to be)"

# cut while mapped: a slow load of 20,000 events, the file cut to 1,000 bytes mid-way
awk 'BEGIN { printf "{\"traceEvents\":[\n"
	for (i = 0; i < 20000; i++)
		printf "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"args\":{\"External id\":%d}}\n", (i ? "," : ""), i % 50, i * 10, i
	printf "]}\n" }' >"$TMP/whole.json"
cut_while_loading() { # cut_while_loading [ENV...]: loads a copy of whole.json, cut under it
	cp "$TMP/whole.json" "$TMP/c.json"
	env "$@" TTRACE_TEST_SLOW_LOAD=150000 "$TTRACE" --no-cache --report=overview "$TMP/c.json" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	# the load has the file open (and mapped, at once) before the cut
	i=0
	while [ $i -lt 100 ] && ! ls -l "/proc/$pid/fd" 2>/dev/null | grep -q c.json; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.3
	truncate -s 1000 "$TMP/c.json"
	wait $pid
	rc=$?
}
cut_while_loading
is "$rc" 0 "a file cut while mapped: no SIGBUS, the load ends with what it kept"
err=$(cat "$TMP/err")
like "$err" "the file was cut while it was read (2093798 bytes when the read began, 1000 now)" \
	"the warning says the file was cut under the read, with both sizes"
like "$err" "kept " "(and how many events it kept)"
like "$(cat "$TMP/out")" "the file is cut short" "the overview says the file is cut short"
cut_while_loading TTRACE_TEST_NO_MAP=1
is "$rc" 0 "the same cut under a read: ends with what it kept"
case "$(cat "$TMP/err")" in
*"cut while it was read"*) ok 1 "(read: no word of a mapping's cut)" ;;
*) ok 0 "(read: no word of a mapping's cut)" ;;
esac
finish
