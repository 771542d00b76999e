#!/bin/sh
# negative.sh: broken and foreign inputs get a clear message with file and position,
# the right exit status, and what can be salvaged stays usable.
. "$srcdir/tests/lib.sh"
B="$srcdir/tests/fixtures/bad"

check_json() { # check_json FILE PATH WANT DESC
	"$TTRACE" --report=summary --json "$1" 2>/dev/null >"$TMP/j.json"
	is "$("$JSONQ" "$2" <"$TMP/j.json")" "$3" "$4"
}

run --report=summary "$B/bad-truncated-mid-event.json"
is "$rc" 0 "a truncated file is still usable (exit 0)"
like "$err" "bad-truncated-mid-event.json: truncated: input ends at byte 5070 (line 125, column 42)" "truncation located"
like "$err" "kept 20 complete events" "and what was kept is counted"
unlike "$err" "times are relative" "epoch-microsecond times are absolute: no warning of a lost time base"
run --report=summary "$B/bad-truncated-relative.json"
like "$err" "kept 4 complete events" "relative times, cut short: the complete events kept"
like "$err" "times are relative: baseTimeNanoseconds was not read" "relative times, cut short: the lost time base explained"
like "$err" "cannot be aligned with other ranks on absolute time" "and what it costs"
check_json "$B/bad-truncated-mid-event.json" files.0.events 20 "20 complete events salvaged"
check_json "$B/bad-truncated-mid-event.json" files.0.status truncated "status truncated in JSON"

run --report=summary "$B/bad-truncated.json.gz"
is "$rc" 0 "a cut gzip file is usable"
like "$err" "gzip stream truncated at compressed byte 9000" "compressed offset given"
like "$err" "kept 994 complete events" "994 events salvaged from the gzip prefix"
run --report=summary "$B/bad-truncated.json.zst"
is "$rc" 0 "a cut zstd file is usable"
like "$err" "zstd frame truncated at compressed byte 4000" "zstd compressed offset given"
like "$err" "kept 797 complete events" "797 events salvaged from the zstd prefix"

run --report=summary "$B/bad-unescaped-quote.json"
is "$rc" 0 "unescaped quote: usable"
like "$err" "bad-unescaped-quote.json:27:91: byte 1098: malformed event skipped" "malformed event located (line:column, byte)"
like "$err" "skipped 1 malformed events" "skipped events counted"
check_json "$B/bad-unescaped-quote.json" files.0.events 11 "the events around it are kept"

run --report=summary "$B/bad-control-char.json"
like "$err" "bad-control-char.json:27:55: byte 1062: raw control character" "control character located"
run --dump-model "$B/bad-control-char.json"
like "$out" '\x01' "and shown escaped"
run --report=summary "$B/bad-backslash.json"
like "$err" "bad-backslash.json:27:56: byte 1063: invalid escape" "bad escape located"
check_json "$B/bad-backslash.json" files.0.quality.bad_escapes 2 "two bad escapes counted"
run --report=summary "$B/bad-invalid-utf8.json"
is "$rc" 0 "invalid UTF-8 loads"
like "$out" '\xc3(' "invalid UTF-8 shown escaped"
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '\377')"; then ok 1 "no raw 0xFF byte reaches the output"; else ok 0 "no raw 0xFF byte reaches the output"; fi
run --report=summary "$B/bad-garbage-between.json"
is "$rc" 0 "garbage number: usable"
like "$err" "bad-garbage-between.json:41:21: byte 1488" "garbage located"

for f in empty.json just-whitespace.json; do
	run --report=summary "$B/$f"
	is "$rc" 1 "$f: unusable (exit 1)"
	like "$err" "$f: not a Chrome trace: the input is empty" "$f: one clear sentence"
done
run --report=summary "$B/not-json.txt"
is "$rc" 1 "plain text: exit 1"
like "$err" "not-json.txt: not a Chrome trace: expected '{' or '[' at line 1, column 1 (byte 0), found 'T'" "plain text: says where and what"
run --report=summary "$B/not-trace-rocprof.json"
is "$rc" 1 "rocprofv3 output: exit 1"
like "$err" 'not a Chrome trace: no "traceEvents" (top-level key "rocprofiler-sdk-tool", looks like rocprofv3 output)' "rocprofv3 output named"
run --report=summary "$srcdir/tests/fixtures/q-no-events-key.json"
is "$rc" 1 "an object without traceEvents: exit 1"
run --report=summary "$srcdir/tests/fixtures/q-empty-events.json"
is "$rc" 0 "an empty traceEvents is a valid, empty trace"

# Not traces: an events array with elements but no trace event (an object with "ph"), a cut
# before the first trace event, {} and null: exit 1, one sentence naming the file. An empty
# events array, bare or under traceEvents, is an empty trace.
for j in '[1,2,3]' '["a"]' '[{"id":1}]' '[' '{}' 'null' '{"traceEvents": [1]}' '{"traceEvents": [' '[{"id":1},'; do
	printf '%s' "$j" >"$TMP/nt.json"
	run --report=summary "$TMP/nt.json"
	is "$rc" 1 "$j: not a trace, exit 1"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "$j: one line on stderr"
	like "$err" "ttrace: $TMP/nt.json: " "$j: the line names the file"
	is "$out" "" "$j: no report"
done
run --report=summary "$TMP/nt.json"
like "$err" "kept 1 complete events; no trace event before the cut" "a cut before any trace event: said so"
printf '[1, {"id": 1}]' >"$TMP/nt.json"
run --report=summary "$TMP/nt.json"
like "$err" 'not a Chrome trace: none of the 2 elements of its events array is a trace event (an object with "ph")' \
	"elements without trace events: said so"
for j in '[]' '{"traceEvents": []}' '[{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}, 7]'; do
	printf '%s' "$j" >"$TMP/et.json"
	run --report=summary "$TMP/et.json"
	is "$rc" 0 "$j: a trace, exit 0"
done

# A directory whose .json files are all empty or not traces: "no trace file found", exit 1,
# and no report, not even one of 0 ranks.
mkdir "$TMP/side"
: >"$TMP/side/empty.json"
printf '{"config": 1}' >"$TMP/side/config.json"
printf '[1, 2]' >"$TMP/side/list.json"
for r in summary gaps distributed; do
	run --report=$r "$TMP/side"
	is "$rc" 1 "directory of sidecars, --report=$r: exit 1"
	like "$err" "ttrace: no trace file found" "directory of sidecars, --report=$r: no trace file found"
	is "$out" "" "directory of sidecars, --report=$r: no report"
done
run -q --report=distributed --json "$TMP/side"
is "$rc" 1 "directory of sidecars, quiet JSON: exit 1"
is "$err" "ttrace: no trace file found" "directory of sidecars, quiet: only that line"
is "$out" "" "directory of sidecars, distributed JSON: no report"
cp "$srcdir/tests/fixtures/q-int-epoch.json" "$TMP/side/trace.json"
run --report=summary "$TMP/side"
is "$rc" 0 "sidecars beside a trace: exit 0"

# One bad file among good ones: the good ones are still reported, the status is 1.
run --report=summary --json "$B/empty.json" "$srcdir/tests/fixtures/q-int-epoch.json"
is "$rc" 1 "a bad file among good ones gives exit 1"
printf '%s' "$out" >"$TMP/mix.json"
is "$("$JSONQ" files.# <"$TMP/mix.json")" 1 "the good file is still reported"

# 60 raw control characters spread over the file: the first 5 are listed, whatever the
# number of parts it is parsed in (each part's scanner lists its first 5; merging keeps the
# first 5 of the file), plain and gzip.
awk 'BEGIN { printf "{\"traceEvents\": [\n"; for (i = 0; i < 60; i++) printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%c%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}%s\n", 1, i, i * 10, i + 1 < 60 ? "," : ""; print "]}" }' >"$TMP/ctl.json"
gzip -c "$TMP/ctl.json" >"$TMP/ctl.json.gz"
for f in ctl.json ctl.json.gz; do
	TTRACE_PARTS=1 "$TTRACE" --dump-model "$TMP/$f" >"$TMP/one" 2>/dev/null
	is "$(grep -c '^warning.*raw control character' "$TMP/one")" 5 "$f in one part: the first 5 control characters listed"
	for p in 3 5; do
		TTRACE_PARTS=$p "$TTRACE" --dump-model "$TMP/$f" >"$TMP/many" 2>/dev/null
		cmp -s "$TMP/one" "$TMP/many"
		ok $? "$f in $p parts: the same model and the same 5 warnings"
	done
done

# Places past the first window of a plain file (issue 33: its lines are counted only when a
# problem is reported, by reading the file again from where the last count ended): one
# event a line, a raw control character in the name on line 20000 and a bad escape on
# line 30002, 2.2 MB in all. The expected line, column and byte are worked out here by
# awk; the file whole, in 3 parts and gzipped (whose lines are counted as it streams) must
# all say them.
awk 'BEGIN {
	print "{\"traceEvents\": ["
	for (i = 2; i <= 40001; i++) {
		nm = i == 20000 ? "o\001p" : i == 30002 ? "o\\qp" : "op"
		printf "{\"ph\": \"X\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}%s\n", nm, i, i < 40001 ? "," : ""
	}
	print "]}"
}' >"$TMP/places.json"
want_place() { # want_place LINE NEEDLE: "LINE:COL: byte B" of NEEDLE's first byte on LINE
	awk -v l="$1" -v n="$2" 'NR < l { b += length($0) + 1 } NR == l { c = index($0, n); printf "%d:%d: byte %d", l, c, b + c - 1; exit }' "$TMP/places.json"
}
ctl=$(want_place 20000 "$(printf '\001')")
esc=$(want_place 30002 '\\q')
gzip -c "$TMP/places.json" >"$TMP/places.json.gz"
for how in whole parts gzip; do
	f="$TMP/places.json"
	p=1
	[ "$how" = parts ] && p=3
	[ "$how" = gzip ] && f="$TMP/places.json.gz"
	TTRACE_PARTS=$p run --no-cache --report=none "$f"
	like "$err" "$(basename "$f"):$ctl: raw control character" "a control character past the first window, $how: $ctl"
	like "$err" "$(basename "$f"):$esc: invalid escape" "a bad escape past the first window, $how: $esc"
done

finish
