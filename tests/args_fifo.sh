#!/bin/sh
# args_fifo.sh: the args of a trace read from a FIFO or standard input are never read back
# by reopening its name (that would wait forever for a writer): they are kept in memory
# while loading (up to LOAD_STDIN_ARGS_MAX; tests/unit/test_args.c tries the bound), so the
# details panel shows them, and the program ends. A regular file shows them too.
. "$srcdir/tests/lib.sh"

F="$srcdir/tests/fixtures/q-nonfinite.json"
KEYS='/aten::copy_<Enter>'
command -v timeout >/dev/null 2>&1 || skip_all "no timeout(1)"
command -v mkfifo >/dev/null 2>&1 || skip_all "no mkfifo(1)"

run --dump-screen --size=120x30 --keys="$KEYS" "$F"
is "$rc" 0 "regular file: exit 0"
like "$out" 'External id: 1' "regular file: args read back"

mkfifo "$TMP/fifo"
cat "$F" >"$TMP/fifo" &
writer=$!
timeout 30 "$TTRACE" --dump-screen --size=120x30 --keys="$KEYS" "$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
rc=$?
out=$(cat "$TMP/out")
wait "$writer"
is "$rc" 0 "FIFO: ends with exit 0 (124 is a hang cut by timeout)"
like "$out" 'External id: 1' "FIFO: args kept while loading"
like "$out" "aten::copy_" "FIFO: the slice is selected"

# loading alone never opens the FIFO a second time (which would wait for a writer)
cat "$F" >"$TMP/fifo" &
writer=$!
timeout 30 "$TTRACE" --report=summary "$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
rc=$?
wait "$writer"
is "$rc" 0 "FIFO: a report ends with exit 0"

cat "$F" | timeout 30 "$TTRACE" --dump-screen --size=120x30 --keys="$KEYS" - >"$TMP/out" 2>"$TMP/err"
rc=$?
out=$(cat "$TMP/out")
is "$rc" 0 "stdin pipe: ends with exit 0"
like "$out" 'External id: 1' "stdin pipe: args kept while loading"

timeout 30 "$TTRACE" --dump-screen --size=120x30 --keys="$KEYS" - <"$F" >"$TMP/out" 2>"$TMP/err"
rc=$?
out=$(cat "$TMP/out")
is "$rc" 0 "stdin redirected from a file: ends with exit 0"
like "$out" 'External id: 1' "stdin redirected from a file: args kept, not 'cannot open -'"

# compressed standard input: the same
if command -v gzip >/dev/null 2>&1; then
	gzip -c "$F" | timeout 30 "$TTRACE" --dump-screen --size=120x30 --keys="$KEYS" - >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	is "$rc" 0 "gzip on stdin: ends with exit 0"
	like "$out" 'External id: 1' "gzip on stdin: args kept while loading"
fi
finish
