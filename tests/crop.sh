#!/bin/sh
# crop.sh: `ttrace crop`: the events of a window as a trace of its own. On a fixture whose
# every event says whether it is kept (K_) or not (D_) at the window [100, 200) us: the
# kept events byte for byte, header keys as they were, valid JSON (python3's json module);
# every output format; --step; the crop's slices are the source's slices over the window
# (tests/tools/crop_check.py on both models); outputs that ttrace loads without warnings;
# the rules for the output path (never an input, never through a symbolic link, an
# existing file only with -f); usage errors; and ../shared/traces when it is there.
. "$srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 is needed to check the JSON"
fi
FX="$srcdir/tests/fixtures/crop/edges.json"
CHECK="$srcdir/tests/tools/crop_check.py"
run crop --from=100us --to=200us "$FX" -o "$TMP/e.json"
is "$rc" 0 "crop --from=100us --to=200us runs"
total=$(grep -c '^{"ph"' "$FX")
kept=$(grep '^{"ph"' "$FX" | grep -v '"D_' | grep -c -e '^{"ph": "M"' -e '"K_')
like "$err" "ttrace crop: $TMP/e.json: $kept of $total events, +100 us to +200 us from the start" \
	"it says what it kept ($kept events marked K_ or metadata, of $total)"
python3 - "$FX" "$TMP/e.json" >"$TMP/py.out" 2>&1 <<'PY'
import json, sys
src_text = open(sys.argv[1], encoding='utf-8').read()
out_text = open(sys.argv[2], encoding='utf-8').read()
src, out = json.loads(src_text), json.loads(out_text)
print('valid')
# header keys: the source's, same values, and the crop's provenance
print('headers', all(out.get(k) == v for k, v in src.items() if k != 'traceEvents'),
      sorted(set(out) - set(src)))
print('window', out['ttraceCrop'])
# the events: each line of the source that is an event; kept iff marked K_ (and not D_), or M
lines = [l.rstrip(',') for l in src_text.splitlines() if l.startswith('{"ph"')]
want = [l for l in lines if l.startswith('{"ph": "M"') or ('"K_' in l and '"D_' not in l)]
got = [l.rstrip(',') for l in out_text.splitlines() if l.startswith('{"ph"')]
print('events', len(got), 'kept as marked', got == want)
print('missing', [l[:60] for l in want if l not in got][:3], 'extra', [l[:60] for l in got if l not in want][:3])
PY
out=$(cat "$TMP/py.out")
like "$out" "valid" "the output is valid JSON (python3 json)"
like "$out" "headers True ['ttraceCrop']" "every header key as in the source, values equal, plus ttraceCrop"
like "$out" "window {'from_ns': 100000, 'to_ns': 200000, 'source': 'edges.json'}" "ttraceCrop: the window in the file's time and the source"
like "$out" "events $kept kept as marked True" \
	"the kept events, byte for byte, in file order: X overlapping (whole), B/E pairs closed, the open B, the last counter and [memory] samples before, instants and flows inside, the async span"
like "$out" "missing [] extra []" "no event missing, none extra"
"$TTRACE" --report=summary "$TMP/e.json" >/dev/null 2>"$TMP/err2"
is "$?:$(cat "$TMP/err2")" "0:" "the crop loads without a warning"

# past the bytes crop holds, it reads the file a second time: the same output
TTRACE_TEST_CROP_HOLD=300 "$TTRACE" crop -q --from=100us --to=200us "$FX" -o "$TMP/e2.json"
cmp -s "$TMP/e2.json" "$TMP/e.json"
ok $? "holding 300 bytes at most (two passes): the same crop as in one pass"
TTRACE_TEST_CROP_HOLD=0 "$TTRACE" crop -q --from=100us --to=200us "$FX" -o "$TMP/e3.json"
cmp -s "$TMP/e3.json" "$TMP/e.json"
ok $? "holding nothing: the same"
# holding stops wherever the limit falls (a B held, a last sample replaced, the end): every
# limit from 0 to 3000 bytes gives the same crop, and no crash (a double free once, on a
# 10 GB trace: a last sample let go twice)
bad=""
h=0
while [ $h -le 3000 ]; do
	TTRACE_TEST_CROP_HOLD=$h "$TTRACE" crop -q --from=100us --to=200us "$FX" -o "$TMP/eh.json" 2>"$TMP/eh.err"
	st=$?
	{ [ $st = 0 ] && cmp -s "$TMP/eh.json" "$TMP/e.json"; } || bad="$bad $h:$st"
	rm -f "$TMP/eh.json"
	h=$((h + 10))
done
is "${bad:-none}" none "301 limits of what is held (0 to 3000 bytes): the same crop each time"

# every output format: the same JSON
run crop -q --from=100us --to=200us "$FX" -o "$TMP/e.json.gz"
is "$rc:$err" "0:" "-q: nothing said"
gzip -dc "$TMP/e.json.gz" | cmp -s - "$TMP/e.json"
ok $? ".json.gz: gzip of the same JSON"
"$TTRACE" crop -q --from=100us --to=200us "$FX" -o "$TMP/e.json.zst"
zstd -qdc "$TMP/e.json.zst" | cmp -s - "$TMP/e.json"
ok $? ".json.zst: zstd of the same JSON"
"$TTRACE" crop -q --from=100us --to=200us "$FX" -o - >"$TMP/e.stdout"
cmp -s "$TMP/e.stdout" "$TMP/e.json"
ok $? "-o -: the JSON on standard output"
for f in e.json.gz e.json.zst; do
	run --report=summary "$TMP/$f"
	is "$rc:$err" "0:" "$f loads without a warning"
done
# inputs of every format give the same crop
gzip -c "$FX" >"$TMP/in.json.gz"
zstd -q -c "$FX" >"$TMP/in.json.zst"
for f in in.json.gz in.json.zst; do
	"$TTRACE" crop -q --from=100us --to=200us "$TMP/$f" -o "$TMP/c-$f.json"
	sed 's/"source": "[^"]*"/"source": ""/' "$TMP/c-$f.json" >"$TMP/a"
	sed 's/"source": "[^"]*"/"source": ""/' "$TMP/e.json" >"$TMP/b"
	cmp -s "$TMP/a" "$TMP/b"
	ok $? "a $f input: the same crop"
done
# a crop of the crop over the same window changes nothing but the source
"$TTRACE" crop -q --from=100us --to=200us "$TMP/e.json" -o "$TMP/ee.json"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); print(list(b).count("ttraceCrop"), b["ttraceCrop"]["source"])' \
	"$TMP/ee.json" >"$TMP/py.out" 2>&1
is "$(cat "$TMP/py.out")" "1 e.json" "a crop of a crop: one ttraceCrop, naming the crop as its source"

# --step: the plugin's step (tests/fixtures/overview/gpu-timeline.json: step 1 is [0, 80) us,
# stretched to the end of the kernel it launched); the crop's slices are the source's over it
G="$srcdir/tests/fixtures/overview/gpu-timeline.json"
run crop --step=1 "$G" -o "$TMP/s1.json"
like "$err" "15 of 18 events, +0 ns to +80.0 us from the start" "--step=1: the plugin's step 1, [0, 80) us"
"$TTRACE" --dump-model "$G" >"$TMP/full.dump"
"$TTRACE" --dump-model "$TMP/s1.json" >"$TMP/crop.dump"
out=$(python3 "$CHECK" "$TMP/full.dump" "$TMP/crop.dump" 0 80000 2>&1)
is "$?:$out" "0:14 slices in 4 tracks" "the crop's model: exactly the source's slices overlapping the window"
run crop --step=7 "$G" -o "$TMP/s7.json"
is "$rc" 2 "--step of a step the trace lacks: usage error"
like "$err" "no ProfilerStep#7 in $G (its steps: 1 2)" "... saying which steps it has"
[ ! -e "$TMP/s7.json" ]
ok $? "... and writing nothing"

# the output path: never an input, never through a link, an existing file only with -f
run crop --step=1 "$G" -o "$TMP/s1.json"
is "$rc" 1 "an existing output: refused"
like "$err" "$TMP/s1.json exists (-f overwrites it)" "... saying -f overwrites it"
run crop -f --step=2 "$G" -o "$TMP/s1.json"
is "$rc" 0 "-f replaces it"
cp "$G" "$TMP/in.json"
run crop -f --step=1 "$TMP/in.json" -o "$TMP/in.json"
is "$rc" 1 "-o the input: refused, even with -f"
like "$err" "$TMP/in.json is the input: ttrace never writes over an input" "... saying why"
cmp -s "$G" "$TMP/in.json"
ok $? "... and the input is untouched"
ln "$TMP/in.json" "$TMP/hard.json"
run crop -f --step=1 "$TMP/in.json" -o "$TMP/hard.json"
is "$rc" 1 "-o a hard link to the input: refused (same file)"
ln -s "$TMP/elsewhere.json" "$TMP/link.json"
run crop --step=1 "$G" -o "$TMP/link.json"
is "$rc" 1 "-o a symbolic link: refused"
like "$err" "is a symbolic link: ttrace does not write through one" "... saying why"
[ ! -e "$TMP/elsewhere.json" ]
ok $? "... and nothing is written where it points"
mkfifo "$TMP/fifo"
run crop --step=1 "$G" -o "$TMP/fifo"
is "$rc" 1 "-o a FIFO without -f: refused"
like "$err" "exists and is a FIFO (-f writes into it)" "... as ttrace record -o"
"$TTRACE" crop -q --step=1 "$G" -o "$TMP/s1b.json"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
"$TTRACE" crop -q -f --step=1 "$G" -o "$TMP/fifo"
is "$?" 0 "-f writes into a FIFO"
wait $reader
cmp -s "$TMP/fifo.out" "$TMP/s1b.json"
ok $? "... the same bytes as a file gets"
mkdir "$TMP/dir"
run crop --step=1 "$G" -o "$TMP/dir"
is "$rc" 1 "-o a directory: refused"

# C in the timeline: the window, else the marked range, of the selection's rank, to a file
# named at the prompt (empty: TRACE-crop.json.zst in the current directory)
scr() { (cd "$TMP" && "$TTRACE" -q --dump-screen --size=120x30 --keys="$1" "$G" | sed '/^--$/,$d' | tail -1); }
out=$(scr 'C')
like "$out" "crop the window to [gpu-timeline-crop.json.zst]: " "C: the prompt names the default file"
out=$(scr 'C<Enter>')
like "$out" "wrote gpu-timeline-crop.json.zst: 18 of 18 events, +0.000 ms to +0.125 ms from the start" \
	"C Enter: the whole window (the whole trace) to the default file"
zstd -qdc "$TMP/gpu-timeline-crop.json.zst" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["traceEvents"]))' >"$TMP/py.out" 2>&1
is "$(cat "$TMP/py.out")" "18" "... a valid zstd JSON trace of its 18 events"
out=$(scr 'C<Enter>')
like "$out" "crop: gpu-timeline-crop.json.zst exists (-f overwrites it)" "C again: an existing file is not replaced"
out=$(scr "wwC$TMP/zoomed.json<Enter>")
w=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["ttraceCrop"]; print(c["from_ns"], c["to_ns"])' "$TMP/zoomed.json")
like "$out" "wrote $TMP/zoomed.json: " "zoomed in, C writes the window"
"$TTRACE" --dump-model "$TMP/zoomed.json" >"$TMP/crop.dump"
"$TTRACE" --dump-model "$G" >"$TMP/full.dump"
out=$(python3 "$CHECK" "$TMP/full.dump" "$TMP/crop.dump" $w 2>&1)
ok $? "... the slices over the window shown ($w ns: $out)"
out=$(scr "lllllllllllvllllllllllllllllllllllllvC$TMP/range.json<Enter>")
like "$out" "wrote $TMP/range.json: 6 of 18 events" "with a range marked (v ... v), C writes the range"

# usage
run crop "$G" -o "$TMP/u.json"
is "$rc" 2 "no window: usage error"
run crop --step=1 --from=1ms "$G" -o "$TMP/u.json"
is "$rc" 2 "--step with --from: usage error"
run crop --from=abc "$G" -o "$TMP/u.json"
is "$rc" 2 "a bad time: usage error"
run crop --from=2ms --to=1ms "$G" -o "$TMP/u.json"
is "$rc" 2 "an empty window: usage error"
run crop --step=1 "$G"
is "$rc" 2 "no -o: usage error"
run crop --step=1 - -o "$TMP/u.json" </dev/null
is "$rc" 2 "standard input: refused (read twice)"
run crop --step=1 "$TMP/nope.json" -o "$TMP/u.json"
is "$rc" 1 "a missing input: error"
[ ! -e "$TMP/u.json" ]
ok $? "no output left by the failures"

# a truncated input: what came before the cut
run crop --from=0 "$srcdir/tests/fixtures/bad/bad-truncated-mid-event.json" -o "$TMP/t.json"
is "$rc" 0 "a truncated input: cropped"
python3 -c 'import json, sys; json.load(open(sys.argv[1])); print("valid")' "$TMP/t.json" >"$TMP/py.out" 2>&1
like "$(cat "$TMP/py.out")" "valid" "... into valid JSON"

# the blocks the window needs: with a map of where the events lie (made by the load, kept in
# the cache: src/event_blocks.h), crop reads only those; the output is the same bytes as a
# read of the whole file (TTRACE_TEST_CROP_READ=full), for every crop above and for windows
# over a generated trace with flows across the edges, counters, [memory] samples, B/E and
# async events, metadata at both ends and a header after the events, also as .gz and .zst
# (read from their seek points); blocks of 64 bytes to 64 KB (TTRACE_TEST_BLOCK_SHIFT); in
# one pass and in two (TTRACE_TEST_CROP_HOLD=0); TTRACE_TEST_CROP_READ=blocks: however many
# blocks.
python3 - "$TMP/gen.json" <<'PY'
import sys
ev = ['{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "host"}}']
for i in range(4000):
    t = i * 0.75
    ev.append('{"ph": "X", "name": "op%d", "cat": "cpu_op", "pid": 1, "tid": %d, "ts": %.3f, "dur": %.3f, "args": {"External id": %d}}' % (i, 1 + i % 3, t, 0.5 + (i % 7) * 3, i))
    if i % 5 == 0:
        ev.append('{"ph": "s", "id": %d, "cat": "ac2g", "name": "f", "pid": 1, "tid": 1, "ts": %.3f}' % (i, t))
        ev.append('{"ph": "f", "id": %d, "cat": "ac2g", "name": "f", "bp": "e", "pid": 2, "tid": 7, "ts": %.3f}' % (i, t + (i % 11) * 4))
    if i % 37 == 0:
        ev.append('{"ph": "C", "name": "mem", "pid": 1, "ts": %.3f, "args": {"v": %d}}' % (t, i))
        ev.append('{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": %d, "Bytes": 1}}' % (t, i))
    if i % 401 == 0:
        ev.append('{"ph": "B", "name": "b%d", "pid": 1, "tid": 9, "ts": %.3f}' % (i, t))
        ev.append('{"ph": "E", "pid": 1, "tid": 9, "ts": %.3f}' % (t + 600))
    if i % 997 == 0:
        ev.append('{"ph": "b", "id": %d, "cat": "a", "name": "async", "pid": 1, "tid": 1, "ts": %.3f}' % (i, t))
        ev.append('{"ph": "e", "id": %d, "cat": "a", "name": "async", "pid": 1, "tid": 1, "ts": %.3f}' % (i, t + 50))
ev.append('{"ph": "M", "name": "thread_name", "pid": 2, "tid": 7, "args": {"name": "stream 7"}}')
open(sys.argv[1], 'w').write('{"schemaVersion": 1,\n"traceEvents": [\n' + ',\n'.join(ev) + '\n],\n"displayTimeUnit": "ms"}\n')
PY
gzip -c "$TMP/gen.json" >"$TMP/gen.json.gz"
zstd -q -c "$TMP/gen.json" >"$TMP/gen.json.zst"
bad=""
same() { # same LABEL ARGS...: the crop read in blocks is the whole read's
	label=$1
	shift
	TTRACE_TEST_CROP_READ=full "$TTRACE" crop -q -f "$@" -o "$TMP/full.json" 2>/dev/null
	a=$?
	TTRACE_TEST_CROP_READ=blocks "$TTRACE" crop -f "$@" -o "$TMP/blk.json" 2>"$TMP/blk.err"
	b=$?
	{ [ "$a:$b" = 0:0 ] && grep -q "(read " "$TMP/blk.err" && cmp -s "$TMP/full.json" "$TMP/blk.json"; } ||
		bad="$bad [$label $a:$b]"
}
for sh in 6 9 12 16; do
	export TTRACE_TEST_BLOCK_SHIFT=$sh
	same "edges $sh" --from=100us --to=200us "$FX"
	same "step1 $sh" --step=1 "$G"
	same "step2 $sh" --step=2 "$G"
	for w in 0:10us 100us:150us 1ms:1.2ms 1.5ms:2ms 2.9ms:4ms; do
		same "gen $sh $w" --from="${w%%:*}" --to="${w#*:}" "$TMP/gen.json"
	done
	same "gen.json.gz $sh" --from=1ms --to=1.2ms "$TMP/gen.json.gz" # through the seek points
	same "gen.json.zst $sh" --from=1ms --to=1.2ms "$TMP/gen.json.zst"
	export TTRACE_TEST_CROP_HOLD=0 # two passes over the blocks
	same "edges hold0 $sh" --from=100us --to=200us "$FX"
	same "gen hold0 $sh" --from=1ms --to=1.2ms "$TMP/gen.json"
	unset TTRACE_TEST_CROP_HOLD
done
unset TTRACE_TEST_BLOCK_SHIFT
is "${bad:-none}" none "read in blocks (64 B to 64 KB; in one pass or two; plain, gzip, zstd): the same bytes as the whole file read, each window"
# with the cache: ttrace index maps the events, crop reads that map and only what it needs
no_cache=${TTRACE_NO_CACHE-}
unset TTRACE_NO_CACHE
TTRACE_CACHE_MIN=0 # a cache for this small file
export TTRACE_CACHE_MIN
TTRACE_TEST_BLOCK_SHIFT=12 "$TTRACE" index "$TMP/gen.json" >/dev/null 2>&1
run crop -f --from=0.1ms --to=0.3ms "$TMP/gen.json" -o "$TMP/blk.json"
size=$(wc -c <"$TMP/gen.json")
like "$err" "(read " "with the cache: crop reads the blocks the window needs"
read_kb=$(printf '%s\n' "$err" | sed -n 's/.*(read \([0-9]*\)[.0-9]* kB of.*/\1/p')
[ -n "$read_kb" ] && [ "$read_kb" -lt $((size / 4000)) ]
ok $? "... less than a quarter of the file (${read_kb:-?} kB)"
TTRACE_TEST_CROP_READ=full "$TTRACE" crop -q -f --from=0.1ms --to=0.3ms "$TMP/gen.json" -o "$TMP/full.json"
cmp -s "$TMP/full.json" "$TMP/blk.json"
ok $? "... the same bytes as the whole file read"
# a map that lies (a forged cache, its checksums made again: tests/cacheforge): a block of
# the window that says its events end earlier than they do. What is read is not what the
# map says: crop reads the whole file instead
python3 - "$XDG_CACHE_HOME"/ttrace/gen.json-*.ttc "$TMP/gen.json" <<'PY' >"$TMP/forge.out" 2>&1
import struct, sys
c = bytearray(open(sys.argv[1], 'rb').read())
src = open(sys.argv[2], 'rb').read()
kind, elem, off, length = struct.unpack_from('<IIQQ', c, 168 + 43 * 32)
assert kind == 43 and elem == 64, (kind, elem)  # src/cache_format.h S_BLOCKS (the 44th section), struct event_block
shift = 12  # TTRACE_TEST_BLOCK_SHIFT of the index above
k = src.index(b'"name": "op200", ') >> shift
at = off + k * elem
lo, hi = struct.unpack_from('<qq', c, at + 8)
struct.pack_into('<q', c, at + 16, lo)
open(sys.argv[1], 'wb').write(c)
print('forged block', k)
PY
"$CACHEFORGE" "$XDG_CACHE_HOME"/ttrace/gen.json-*.ttc op200 op200 >>"$TMP/forge.out" 2>&1
run crop -f --from=0.1ms --to=0.3ms "$TMP/gen.json" -o "$TMP/blk.json"
TTRACE_TEST_CROP_READ=full "$TTRACE" crop -q -f --from=0.1ms --to=0.3ms "$TMP/gen.json" -o "$TMP/full.json"
case $err in *"(read "*) read_blocks=yes ;; *) read_blocks=no ;; esac
cmp -s "$TMP/full.json" "$TMP/blk.json"
is "$?:$read_blocks:$(head -1 "$TMP/forge.out")" "0:no:forged block $(($(grep -b -o '"name": "op200", ' "$TMP/gen.json" | cut -d: -f1) >> 12))" \
	"a cache whose map lies about a block of the window: the whole file read instead"
unset TTRACE_CACHE_MIN
[ -z "$no_cache" ] || export TTRACE_NO_CACHE="$no_cache"

# ../shared/traces: a step of real traces, every format, checked as above
SH="$srcdir/../shared/traces"
if [ -d "$SH" ]; then
	for f in train-a100-rank0of2-nccl-basetime.json.gz train-a100-rank0of2-nccl-basetime.json.zst \
		infer-h100-owlv2-memory-pyfunc.json.gz resnet50-v100-2021-oldcats-memory.pt.trace.json.gz; do
		[ -f "$SH/$f" ] || continue
		step=$("$TTRACE" --report=overview --json "$SH/$f" | "$JSONQ" files.0.steps.1.number 2>/dev/null)
		case $step in '' | null | *[!0-9]*) step= ;; esac
		if [ -n "$step" ]; then
			"$TTRACE" crop -q --step="$step" "$SH/$f" -o "$TMP/r.json.zst"
		else
			"$TTRACE" crop -q --from=0 --to=50ms "$SH/$f" -o "$TMP/r.json.zst"
		fi
		ok $? "$f: cropped (step ${step:-none: the first 50 ms})"
		TTRACE_TEST_CROP_READ=full "$TTRACE" crop -q --step="${step:-0}" "$SH/$f" -o "$TMP/rf.json.zst" 2>/dev/null ||
			TTRACE_TEST_CROP_READ=full "$TTRACE" crop -q -f --from=0 --to=50ms "$SH/$f" -o "$TMP/rf.json.zst"
		cmp -s "$TMP/r.json.zst" "$TMP/rf.json.zst"
		ok $? "$f: the same bytes as the whole file read"
		rm -f "$TMP/rf.json.zst"
		zstd -qdc "$TMP/r.json.zst" >"$TMP/r.json"
		w=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["ttraceCrop"]; print(c["from_ns"], c["to_ns"])' "$TMP/r.json")
		ok $? "$f: valid JSON"
		"$TTRACE" --dump-model "$SH/$f" >"$TMP/full.dump"
		"$TTRACE" --dump-model "$TMP/r.json" >"$TMP/crop.dump"
		out=$(python3 "$CHECK" "$TMP/full.dump" "$TMP/crop.dump" $w 2>&1)
		ok $? "$f: the crop's slices are the source's over the window ($out)"
		run --report=summary "$TMP/r.json.zst"
		is "$rc" 0 "$f: the crop loads"
		rm -f "$TMP/r.json.zst"
	done
fi
finish
