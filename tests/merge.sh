#!/bin/sh
# merge.sh: `ttrace merge`: a job's ranks as one trace for Perfetto. On
# tests/fixtures/stragglers/compute (three ranks, the same correlation ids in each, rank 1's
# clock 5 ms off): each rank's slices in the merged file, moved by its alignment offset,
# with their launch links within the rank (tests/tools/merge_check.py on the models); the
# offsets are --report=distributed's; a rank whose clock is a second off merges to the same
# events; processes named by rank and grouped; flow and async ids apart per rank; valid
# JSON in every format; the output path's rules; usage errors; the DLRM set of ../shared.
. "$srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 is needed to check the JSON"
fi
D="$srcdir/tests/fixtures/stragglers/compute"
CHECK="$srcdir/tests/tools/merge_check.py"
run merge "$D" -o "$TMP/m.json"
is "$rc" 0 "merge DIR -o OUT runs"
like "$err" "ttrace merge: $TMP/m.json: 3 ranks, " "it says how many ranks"
jq() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1" 2>&1; }
is "$(jq "$TMP/m.json" "d['ttraceMerge']['align'], [(r['rank'], r['offset_ns'], r['pid_base'], r['source']) for r in d['ttraceMerge']['ranks']]")" \
	"collective [(0, 0, 100000, 'rank0.json'), (1, -5000000, 200000, 'rank1.json'), (2, 0, 300000, 'rank2.json')]" \
	"ttraceMerge: the alignment, each rank's offset, pid base and source"
"$TTRACE" --report=distributed --json "$D" >"$TMP/d.json"
is "$(jq "$TMP/d.json" "[r['offset_ns'] for r in d['ranks']]")" "[0, -5000000, 0]" \
	"the offsets are --report=distributed's"
is "$(jq "$TMP/m.json" "sorted(k for k in d)")" "['deviceProperties', 'schemaVersion', 'traceEvents', 'ttraceMerge']" \
	"header: the first rank's keys but distributedInfo, and ttraceMerge"
"$TTRACE" --dump-model --merged-as-one "$TMP/m.json" >"$TMP/m.dump"
for r in 0 1 2; do
	"$TTRACE" --dump-model "$D/rank$r.json" >"$TMP/r.dump"
	off=$(jq "$TMP/m.json" "d['ttraceMerge']['ranks'][$r]['offset_ns']")
	out=$(python3 "$CHECK" "$TMP/m.dump" "$TMP/r.dump" $(((r + 1) * 100000)) "$off" 2>&1)
	is "$?:$out" "0:56 slices (48 linked) in 3 tracks" \
		"rank $r: its slices moved by its offset, each launch linked within the rank"
done
is "$(jq "$TMP/m.json" "sorted((e['pid'], e['args']['name']) for e in d['traceEvents'] if e['name'] == 'process_name')")" \
	"[(100000, 'rank 0: 1'), (100001, 'rank 0: 0'), (200000, 'rank 1: 1'), (200001, 'rank 1: 0'), (300000, 'rank 2: 1'), (300001, 'rank 2: 0')]" \
	"each rank's processes named 'rank R: ...' (no process_name in the sources: their pids)"
is "$(jq "$TMP/m.json" "all(e['args']['sort_index'] == e['pid'] for e in d['traceEvents'] if e['name'] == 'process_sort_index')")" \
	"True" "... and sorted by rank"
run --report=summary "$TMP/m.json"
is "$rc:$err" "0:" "the merged file loads without a warning"

# moved DST US [BASE]: the fixture's ranks in DST, rank 1's times US microseconds later;
# with BASE, the ranks' baseTimeNanoseconds BASE, rank 1's US earlier (the same instants)
moved() {
	python3 - "$D" "$@" <<'PY'
import json, os, sys
src, dst, us = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = int(sys.argv[4]) if len(sys.argv) > 4 else None
os.makedirs(dst)
for name in sorted(os.listdir(src)):
    d = json.load(open(os.path.join(src, name)))
    if base is not None:
        d['baseTimeNanoseconds'] = base - (us * 1000 if name == 'rank1.json' else 0)
    if name == 'rank1.json':
        for e in d['traceEvents']:
            if 'ts' in e:
                e['ts'] += us
    json.dump(d, open(os.path.join(dst, name), 'w'))
PY
}
# a rank whose clock is a second late lines up the same: the same events
moved "$TMP/late" 1000000
"$TTRACE" merge -q "$TMP/late" -o "$TMP/late.json"
is "$(python3 -c 'import json, sys; a, b = (json.load(open(p)) for p in sys.argv[1:]); print(a["traceEvents"] == b["traceEvents"], b["ttraceMerge"]["ranks"][1]["offset_ns"])' "$TMP/m.json" "$TMP/late.json")" \
	"True -1005000000" "rank 1 a second late: offset -1.005 s, the same merged events"

# flow and async ids, numbers or strings, apart per rank
for r in 0 1; do
	printf '{"distributedInfo": {"rank": %d, "world_size": 2}, "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 9, "tid": 1, "ts": 10, "dur": 20},
{"ph": "s", "cat": "fwdbwd", "name": "fb", "id": 5, "pid": 9, "tid": 1, "ts": 11},
{"ph": "f", "cat": "fwdbwd", "name": "fb", "id": 5, "pid": 9, "tid": 1, "ts": 25, "bp": "e"},
{"ph": "b", "cat": "a", "name": "req", "id": "0x7", "pid": 9, "tid": 1, "ts": 12},
{"ph": "e", "cat": "a", "name": "req", "id": "0x7", "pid": 9, "tid": 1, "ts": 28},
{"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "python3 \\"train\\""}}
]}\n' "$r" >"$TMP/ids$r.json"
done
"$TTRACE" merge -q --align=raw "$TMP/ids0.json" "$TMP/ids1.json" -o "$TMP/ids.json"
is "$(jq "$TMP/ids.json" "sorted(set((e['ph'], e['pid'], e['id']) for e in d['traceEvents'] if 'id' in e))")" \
	"[('b', 100000, 'r0:0x7'), ('b', 200000, 'r1:0x7'), ('e', 100000, 'r0:0x7'), ('e', 200000, 'r1:0x7'), ('f', 100000, 1099511627781), ('f', 200000, 2199023255557), ('s', 100000, 1099511627781), ('s', 200000, 2199023255557)]" \
	"flow ids get the rank position above bit 40, string ids 'rN:'"
is "$(jq "$TMP/ids.json" "[e['args']['name'] for e in d['traceEvents'] if e['name'] == 'process_name']")" \
	"['rank 0: python3 \"train\"', 'rank 1: python3 \"train\"']" "process names from the sources, escaped as JSON needs"

# every output format
"$TTRACE" merge -q "$D" -o "$TMP/m.json.gz"
gzip -dc "$TMP/m.json.gz" | cmp -s - "$TMP/m.json"
ok $? ".json.gz: gzip of the same JSON"
"$TTRACE" merge -q "$D" -o "$TMP/m.json.zst"
zstd -qdc "$TMP/m.json.zst" | cmp -s - "$TMP/m.json"
ok $? ".json.zst: zstd of the same JSON"

# the output path's rules (as crop's and record -o's), usage
run merge "$D" -o "$TMP/m.json"
is "$rc" 1 "an existing output: refused without -f"
cp -r "$D" "$TMP/in"
run merge -f "$TMP/in" -o "$TMP/in/rank2.json"
is "$rc" 1 "-o one of the inputs: refused, even with -f"
like "$err" "is the input: ttrace never writes over an input" "... saying why"
cmp -s "$D/rank2.json" "$TMP/in/rank2.json"
ok $? "... and it is untouched"
run merge "$D"
is "$rc" 2 "no -o: usage error"
run merge --align=sideways "$D" -o "$TMP/x.json"
is "$rc" 2 "a bad --align: usage error"
run merge - -o "$TMP/x.json" </dev/null
is "$rc" 2 "standard input: usage error"
run merge "$D/rank0.json" "$TMP/nope.json" -o "$TMP/x.json"
is "$rc" 1 "a missing input: error"
[ ! -e "$TMP/x.json" ]
ok $? "... and no output"

# read back: a merged file opens as the ranks it holds, each with its own file's figures
SAME="$srcdir/tests/tools/same_figures.py"
REPORTS="summary overview operators kernels memory gaps distributed advice"
# same_reports A B: every report's JSON of A (the ranks' files) and of B (a merged file)
# hold the same figures; prints the reports that differ, and why
same_reports() {
	for r in $REPORTS; do
		"$TTRACE" --report=$r --json "$1" >"$TMP/sa.json" 2>"$TMP/sa.err"
		"$TTRACE" --report=$r --json "$2" >"$TMP/sb.json" 2>"$TMP/sb.err"
		o=$(python3 "$SAME" "$TMP/sa.json" "$TMP/sb.json") || echo "$r: $o"
		cmp -s "$TMP/sa.err" "$TMP/sb.err" || echo "$r: stderr: $(cat "$TMP/sb.err")"
	done
}
for f in m.json m.json.gz m.json.zst; do
	is "$(same_reports "$D" "$TMP/$f")" "" "$f read back: every report's figures as the ranks' files' ($REPORTS)"
done
# a big plain merged file is parsed in parts, one a core (TTRACE_PARTS splits a small one)
for n in 2 3; do
	is "$(TTRACE_PARTS=$n same_reports "$D" "$TMP/m.json")" "" "m.json read back in $n parts: the same figures"
done

# caches (the tests' TTRACE_NO_CACHE=1 unset here): each rank of a merged file has one of
# its own (beside the file's, which --merged-as-one uses), read the next time, with the same
# figures
for f in m.json m.json.zst; do
	(unset TTRACE_NO_CACHE && TTRACE_CACHE_MIN=0 "$TTRACE" -q --report=none "$TMP/$f")
	n=$(unset TTRACE_NO_CACHE && TTRACE_CACHE_MIN=0 "$TTRACE" --report=summary "$TMP/$f" | grep -c "^== .* loaded from its cache in")
	is "$n" 3 "$f opened again: each of its 3 ranks from its own cache"
	is "$(unset TTRACE_NO_CACHE && TTRACE_CACHE_MIN=0 same_reports "$D" "$TMP/$f")" "" "... with the figures of the ranks' files"
done
n=$(unset TTRACE_NO_CACHE && TTRACE_CACHE_MIN=0 "$TTRACE" --report=summary --merged-as-one "$TMP/m.json" | grep -c "^== $TMP/m.json (plain, 32")
is "$n" 1 "... and --merged-as-one still one trace (its own cache)"

# one rank alone (read by itself; several are read by one parse of the file, shared)
"$TTRACE" merge -q "$D/rank1.json" -o "$TMP/one.json.gz"
is "$(same_reports "$D/rank1.json" "$TMP/one.json.gz")" "" "a merged file of one rank read back: its file's figures"
"$TTRACE" --report=summary --json "$TMP/m.json" >"$TMP/s.json"
is "$(jq "$TMP/s.json" "[(f['path'][-6:], f['rank'], f['world_size'], f['events']) for f in d['files']]")" \
	"[('m.json', 0, 3, 60), ('m.json', 1, 3, 60), ('m.json', 2, 3, 60)]" \
	"... three ranks of one file, each its distributedInfo, its 56 events and its 4 process names"
run --report=distributed "$TMP/m.json"
like "$out" "$TMP/m.json [rank1.json]" "... each rank named FILE [its own file] where the reports show files"
run --report=summary "$TMP/m.json"
like "$out" "== $TMP/m.json [rank2.json] (plain, " "... and in the summary's titles"
"$TTRACE" --report=summary --json --merged-as-one "$TMP/m.json" >"$TMP/s.json"
is "$(jq "$TMP/s.json" "[(f['rank'], f['events']) for f in d['files']]")" "[(None, 180)]" \
	"--merged-as-one: one trace, as Perfetto shows it"
"$TTRACE" --report=overview --json --merged-as-one "$TMP/m.json" >"$TMP/one.json"
"$TTRACE" --report=overview --json "$D" >"$TMP/dir.json"
python3 "$SAME" "$TMP/dir.json" "$TMP/one.json" >/dev/null
is "$?" 1 "... whose figures are not the ranks' (the comparison can fail)"

# ranks whose files have different base times (Kineto's baseTimeNanoseconds): the same
# instants, so the same merged file, read back the same
moved "$TMP/based" 3000 1700000000000000000
"$TTRACE" merge -q "$TMP/based" -o "$TMP/based.json"
"$TTRACE" merge -q "$D" -o "$TMP/nobase.json"
is "$(python3 -c 'import json, sys; a, b = (json.load(open(p)) for p in sys.argv[1:]); print(a["traceEvents"] == b["traceEvents"], b["baseTimeNanoseconds"])' "$TMP/nobase.json" "$TMP/based.json")" \
	"True 1700000000000000000" "rank 1's base 3 ms earlier: its times on rank 0's base, the same events"
is "$(same_reports "$TMP/based" "$TMP/based.json")" "" "... read back with each rank's figures"

# what is not a merged file as ttrace writes it opens as one trace
python3 - "$TMP/m.json" "$TMP/badkey.json" "$TMP/late-key.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = dict(d)
bad['ttraceMerge'] = {'align': 'raw', 'ranks': [{'rank': 'zero', 'pid_base': 5}]}
json.dump(bad, open(sys.argv[2], 'w'))
late = {'traceEvents': d['traceEvents'], 'ttraceMerge': d['ttraceMerge']}
json.dump(late, open(sys.argv[3], 'w'))
PY
run --report=summary --json "$TMP/badkey.json"
is "$rc:$(echo "$out" | jq /dev/stdin "len(d['files'])")" "0:1" "a ttraceMerge key it cannot use: one trace"
like "$err" "badkey.json: a merged trace whose ttraceMerge key has a rank without a number, a pid base or an offset it can use: opened as one trace" \
	"... saying why"
python3 -c 'import json, sys; json.dump({"ttraceMerge": {"ranks": [{"rank": i, "pid_base": (i + 1) * 100000, "offset_ns": 0} for i in range(5000)]}, "traceEvents": [{"ph": "X", "name": "a", "pid": 100000, "tid": 1, "ts": 1, "dur": 1}]}, open(sys.argv[1], "w"))' "$TMP/many.json"
run --report=summary --json "$TMP/many.json"
is "$rc:$(echo "$out" | jq /dev/stdin "len(d['files'])")" "0:1" "a key of 5000 ranks (each a parse of the file): one trace"
like "$err" "many.json: a merged trace whose ttraceMerge key has more than 4096 ranks: opened as one trace" "... saying why"
run --report=summary --json "$TMP/late-key.json"
is "$rc:$(echo "$out" | jq /dev/stdin "len(d['files'])"):$err" "0:1:" "ttraceMerge after the events (not where merge writes it): one trace"
head -c 200 "$TMP/m.json" >"$TMP/cut.json"
run --report=summary "$TMP/cut.json"
is "$rc" 1 "a merged file cut inside its key: one (bad) trace, status 1"
like "$err" "cut.json" "... the load says what is wrong"
head -c 20000 "$TMP/m.json" >"$TMP/cut-events.json"
run --report=summary --json "$TMP/cut-events.json"
is "$(echo "$out" | jq /dev/stdin "[(f['rank'], f['status'], f['events_by_phase']['X']) for f in d['files']]")" \
	"[(0, 'truncated', 56), (1, 'truncated', 51)]" "a merged file cut in rank 1's events: ranks 0 and 1 salvaged, truncated"
like "$err" "no trace event before the cut ($TMP/cut-events.json [rank2.json])" "... rank 2, none of whose events were read, says so"
like "$err" "kept 107 complete events ($TMP/cut-events.json [rank1.json])" "... and each rank that was cut"
# a hostile key: control characters in a source's name, a pid base past every pid, a shift
# of 2^62: loaded, the names escaped
python3 - "$TMP/m.json" "$TMP/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['ttraceMerge']['ranks']
r[1]['source'] = 'evil\x1b]0;pwned\x07\nname.json'
r[2]['pid_base'] = 9200000000000000000
r[0]['shift_ns'] = 4611686018427387904
json.dump(d, open(sys.argv[2], 'w'))
PY
run --report=summary "$TMP/hostile.json"
is "$rc:$(printf '%s%s' "$out" "$err" | grep -c "$(printf '\033')")" "0:0" "a hostile ttraceMerge: loaded, no escape character reaches the terminal"
like "$out" "== $TMP/hostile.json [evil\x1b]0;pwned\x07\nname.json] (" "... the source's name escaped"
run merge "$TMP/m.json" -o "$TMP/again.json"
is "$rc:$err" "1:ttrace merge: $TMP/m.json was written by ttrace merge: give the ranks' own files" \
	"merge refuses a merged file as input"
"$TTRACE" crop -q --from 0 --to 4ms "$TMP/m.json" -o "$TMP/m-crop.json"
"$TTRACE" --report=summary --json "$TMP/m-crop.json" >"$TMP/s.json"
is "$(jq "$TMP/s.json" "[(f['rank'], f['steps'][0]['number'] if f['steps'] else None) for f in d['files']]")" \
	"[(0, 1), (1, 1), (2, 1)]" "a crop of a merged file is merged too: its ranks read back"

# the timeline over a merged file: its ranks side by side, lined up; C on rank 1 writes the
# window of the merged file (every rank), as C on rank 0 does
scr() { "$TTRACE" -q --dump-screen --size=120x30 --keys="$1" "$TMP/m.json" | sed '/^--$/,$d'; }
out=$(scr '')
like "$out" "3 ranks  align: collective (residual 0 ns)" "the timeline opens a merged file as 3 ranks, aligned"
like "$(echo "$out" | grep -c 'ProfilerStep#1████████▌ProfilerStep#2')" "3" "... each rank's steps at the same columns"
out=$(scr "/ProfilerStep#1<Enter>nC$TMP/c1.json<Enter>")
like "$out" "user_annotation on rank 1 thread 1" "rank 1's step selected"
like "$out" "wrote $TMP/c1.json: 180 of 180 events, +0.000 ms to +8.000 ms from the start" "... C writes the window"
scr "C$TMP/c0.json<Enter>" >/dev/null
cmp -s "$TMP/c0.json" "$TMP/c1.json"
ok $? "... the same file as C on rank 0: the window in the merged file's time, every rank"

# the 8-rank DLRM set of ../shared: ranks 0 and 7 whole and linked within themselves
S="$srcdir/../shared/traces/multirank-dlrm-v100x8-nccl"
if [ -d "$S" ]; then
	"$TTRACE" merge -q "$S" -o "$TMP/dlrm.json.zst"
	ok $? "the DLRM set merges"
	zstd -qdc "$TMP/dlrm.json.zst" >"$TMP/dlrm.json"
	n=$(jq "$TMP/dlrm.json" "len(d['ttraceMerge']['ranks'])")
	is "$n" 8 "... its 8 ranks, valid JSON"
	"$TTRACE" --dump-model --merged-as-one "$TMP/dlrm.json" >"$TMP/m.dump"
	for r in 0 7; do
		f=$(jq "$TMP/dlrm.json" "d['ttraceMerge']['ranks'][$r]['source']")
		off=$(jq "$TMP/dlrm.json" "d['ttraceMerge']['ranks'][$r]['offset_ns']")
		"$TTRACE" --dump-model "$S/$f" >"$TMP/r.dump"
		out=$(python3 "$CHECK" "$TMP/m.dump" "$TMP/r.dump" $(((r + 1) * 100000)) "$off" 2>&1)
		ok $? "DLRM rank $r ($f, offset $off ns): $out"
	done
	is "$(same_reports "$S" "$TMP/dlrm.json.zst")" "" "the DLRM set read back: every report's figures as the 8 files'"
	is "$(TTRACE_PARTS=4 same_reports "$S" "$TMP/dlrm.json")" "" "... and as plain JSON parsed in 4 parts"
fi
finish
