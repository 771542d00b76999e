#!/bin/sh
# cache.sh: the binary cache (src/cache.h, parsers/cache_dir.h). A reopen from the cache
# gives byte for byte the model dump and the JSON reports of a parse, for every fixture and
# shared trace; a touched or rewritten input, a cut cache, a flipped byte in any section, a
# cache of another build or another file, and a cache directory that cannot be written are
# each noticed (a message or a silent rebuild, never a crash, never other output);
# --no-cache writes nothing; ttrace index says what it did; the cap evicts the least
# recently used caches.
. "$srcdir/tests/lib.sh"

XDG_CACHE_HOME="$TMP/xdg"
TTRACE_CACHE_MIN=0 # cache the small fixtures too
export XDG_CACHE_HOME TTRACE_CACHE_MIN
unset TTRACE_NO_CACHE TTRACE_CACHE_MAX
C="$XDG_CACHE_HOME/ttrace"

# outputs FILE TAG: the model dump and three JSON reports of FILE into $TMP/TAG.*
outputs() {
	"$TTRACE" --dump-model "$1" >"$TMP/$2.dump" 2>"$TMP/$2.err"
	echo "rc $?" >>"$TMP/$2.dump"
	for r in summary kernels overview; do
		"$TTRACE" --report=$r --json "$1" >"$TMP/$2.$r" 2>>"$TMP/$2.err"
		echo "rc $?" >>"$TMP/$2.$r"
	done
}
same() { # same TAG1 TAG2: the outputs agree
	for x in dump summary kernels overview; do
		cmp -s "$TMP/$1.$x" "$TMP/$2.$x" || { echo "#   $x differs"; return 1; }
	done
}
from_cache() { # from_cache FILE: the text summary says it came from the cache
	"$TTRACE" -q --report=summary "$1" 2>/dev/null | head -n 1 | grep -q 'loaded from its cache'
}
crashed() { grep -q -e 'Sanitizer' -e 'runtime error' -e 'BUG at' "$TMP/$1.err"; }

# ---- every fixture and shared trace: a reopen is the same ---------------------------------
S="$srcdir/../shared/traces"
{
	find "$srcdir/tests/fixtures" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.json.zst' \)
	[ -d "$S" ] && find "$S" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.json.zst' \)
} | sort >"$TMP/files"
n=0 bad=0 cached=0
while IFS= read -r f; do
	n=$((n + 1))
	TTRACE_NO_CACHE=1 outputs "$f" ref
	"$TTRACE" -q --report=none "$f" 2>/dev/null # parses and writes the cache
	outputs "$f" again                          # reads it (when the file loads)
	if ! same ref again || crashed again; then
		bad=$((bad + 1))
		echo "#   $f: a reopen differs from a parse"
	fi
	from_cache "$f" && cached=$((cached + 1))
done <"$TMP/files"
is "$bad" 0 "$n fixtures and shared traces: --dump-model and the summary, kernels and overview JSON are the same parsed, cached and reopened"
[ "$cached" -gt 80 ]
ok $? "most of them ($cached of $n) were read back from their cache (the rest do not load)"
ls -a "$C" | grep -q '\.tmp\.'
ok $((!$?)) "no temporary file is left in the cache directory"

# args read through the store the cache restores: shapes come from each operator's args
for f in "$srcdir/tests/fixtures/real/trim-a100-nccl-basetime.json.gz" "$S/train-a100-rank0of2-nccl-basetime.json.zst" \
	"$S/train-a100-rank0of2-nccl-basetime.json.gz" "$srcdir/tests/fixtures/ops/tree.json"; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	TTRACE_NO_CACHE=1 "$TTRACE" -q --report=operators --group-by=shape --json "$f" >"$TMP/shape.ref" 2>&1
	"$TTRACE" -q --report=operators --group-by=shape --json "$f" >/dev/null 2>&1
	"$TTRACE" -q --report=operators --group-by=shape --json "$f" >"$TMP/shape.cached" 2>&1
	from_cache "$f" && cmp -s "$TMP/shape.ref" "$TMP/shape.cached"
	ok $? "$b: operators by input shape (read from each op's args) are the same from the cache"
done

# ---- a row tree (a GPU stream of 300 overlapping kernels) round-trips ------------------------
awk 'BEGIN { printf "{\"traceEvents\": [";
	for (i = 0; i < 300; i++) printf "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":400,\"args\":{\"device\":0,\"stream\":7}}", i ? "," : "", i % 5, i;
	printf "]}\n" }' >"$TMP/deep.json"
TTRACE_NO_CACHE=1 outputs "$TMP/deep.json" ref
outputs "$TMP/deep.json" first
"$TTRACE" -q --dump-screen --size=100x30 --keys='wwwwdd' "$TMP/deep.json" >"$TMP/deep.screen1" 2>&1
outputs "$TMP/deep.json" again
"$TTRACE" -q --dump-screen --size=100x30 --keys='wwwwdd' "$TMP/deep.json" >"$TMP/deep.screen2" 2>&1
same ref again && from_cache "$TMP/deep.json" && cmp -s "$TMP/deep.screen1" "$TMP/deep.screen2"
ok $? "a track of 300 overlapping rows (with a row tree): the same model, reports and screen from its cache"

# ---- what makes a cache unusable ---------------------------------------------------------------
F="$TMP/t.json"
cp "$srcdir/tests/fixtures/overview/steps.json" "$F"
TTRACE_NO_CACHE=1 outputs "$F" ref
outputs "$F" first
from_cache "$F"
ok $? "a cache is written and read"

touch -d '2001-01-01 00:00:00' "$F"
from_cache "$F"
ok $((!$?)) "a touched input (another modification time) is parsed again"
from_cache "$F"
ok $? "and its new cache is read the time after"

# the same size and modification time, another byte: the checksum of the head sees it
stamp=$(stat -c %y "$F")
sed 's/ProfilerStep#/ProfilerStep%/' "$F" >"$TMP/t2.json" && cat "$TMP/t2.json" >"$F" && touch -d "$stamp" "$F"
TTRACE_NO_CACHE=1 outputs "$F" ref2
outputs "$F" mod
same ref2 mod
ok $? "a rewritten input of the same size and time: the output of the new content"
cp "$srcdir/tests/fixtures/overview/steps.json" "$F"
TTRACE_NO_CACHE=1 outputs "$F" ref
outputs "$F" first

cache_of() { ls "$C"/"$(basename "$1" | cut -c1-40)"-*.ttc 2>/dev/null | head -n 1; } # names keep 40 bytes
CF=$(cache_of "$F")
[ -n "$CF" ] && [ -f "$CF" ]
ok $? "the cache is named after the input in $C"

size=$(stat -c %s "$CF")
truncate -s $((size / 2)) "$CF"
outputs "$F" cut
same ref cut && ! crashed cut && grep -q 'was damaged' "$TMP/cut.err"
ok $? "a cut cache: said to be damaged, the file parsed again, the same output"
from_cache "$F"
ok $? "and replaced by a sound one"

# flips one byte in the middle of each section of each of these caches (the section table
# follows the header's key and file size, at byte 168)
sections() { # sections CACHE: "name offset length" of each section
	od -An -v -t u4 -j 168 -N 1024 "$1" | tr -s ' \n' '\n\n' | grep -v '^$' |
		awk '{ v[NR - 1] = $1 } END { for (i = 0; i < 32; i++) { b = 8 * i;
			off = v[b + 2] + v[b + 3] * 4294967296; len = v[b + 4] + v[b + 5] * 4294967296;
			if (len > 0) print i, off, len } }'
}
flip() { # flip FILE OFFSET: complements the byte at OFFSET
	byte=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((255 - byte)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
flipped=0 missed=0 seen=""
for src in "$srcdir/tests/fixtures/hostile/text-rank0.json" "$srcdir/tests/fixtures/overview/steps.json" \
	"$srcdir/tests/fixtures/real/other-catapult-demo-BE-counters-samples.json" \
	"$srcdir/tests/fixtures/q-ts-zero-outliers.json" "$srcdir/tests/fixtures/advice/memory_growth-fire.json" \
	"$TMP/deep.json"; do
	G="$TMP/flip-$(basename "$src")"
	cp "$src" "$G"
	TTRACE_NO_CACHE=1 outputs "$G" fref
	outputs "$G" first
	sections "$(cache_of "$G")" >"$TMP/sections"
	while read -r kind off len; do
		flip "$(cache_of "$G")" $((off + len / 2))
		outputs "$G" flipped
		if same fref flipped && ! crashed flipped && grep -q 'was damaged' "$TMP/flipped.err"; then
			flipped=$((flipped + 1))
			case " $seen " in *" $kind "*) ;; *) seen="$seen $kind" ;; esac
		else
			missed=$((missed + 1))
			echo "#   $(basename "$src"): section $kind: a flipped byte was not noticed or changed the output"
		fi
	done <"$TMP/sections"
done
is "$missed" 0 "a flipped byte in any section ($flipped flips, $(echo $seen | wc -w) of the 32 kinds of section) is noticed, the file parsed again, the same output"

# the header: another ttrace version, another file's key
outputs "$F" first
printf 'X' | dd of="$CF" bs=1 seek=32 conv=notrunc 2>/dev/null
outputs "$F" ver
same ref ver && ! grep -q 'damaged' "$TMP/ver.err"
ok $? "a cache of another ttrace version: rebuilt silently, the same output"
from_cache "$F"
ok $? "and replaced"
other="$TMP/other.json"
cp "$srcdir/tests/fixtures/q-phases.json" "$other"
TTRACE_NO_CACHE=1 outputs "$other" oref
outputs "$other" ofirst
cp "$CF" "$(cache_of "$other")"
outputs "$other" foreign
same oref foreign && ! crashed foreign
ok $? "another file's cache under this file's name: refused, this file's output"
printf 'garbage' >"$(cache_of "$other")"
outputs "$other" junk
same oref junk && ! crashed junk
ok $? "a cache file of garbage: refused, the same output"

# ---- a cache directory that cannot be written ------------------------------------------------
printf 'x' >"$TMP/notadir"
XDG_CACHE_HOME="$TMP/notadir" outputs "$F" unwritable
same ref unwritable && ! crashed unwritable && [ ! -s "$TMP/unwritable.err" ]
ok $? "an unwritable cache directory: the same output, nothing said"
XDG_CACHE_HOME="$TMP/notadir" run index "$F"
is "$rc" 1 "ttrace index into an unwritable cache directory: status 1"
like "$out" "not cached: cannot create the cache directory" "and says why"

# ---- --no-cache and TTRACE_NO_CACHE ------------------------------------------------------------
XDG_CACHE_HOME="$TMP/fresh" "$TTRACE" -q --no-cache --report=summary "$F" >/dev/null 2>&1
XDG_CACHE_HOME="$TMP/fresh" TTRACE_NO_CACHE=1 "$TTRACE" -q --report=summary "$F" >/dev/null 2>&1
[ ! -e "$TMP/fresh" ]
ok $? "--no-cache and TTRACE_NO_CACHE=1 write nothing"
"$TTRACE" -q --no-cache --report=summary "$F" 2>/dev/null | head -n 1 | grep -q 'from its cache'
ok $((!$?)) "--no-cache does not read a valid cache either"
XDG_CACHE_HOME="$TMP/small" TTRACE_CACHE_MIN=1M "$TTRACE" -q --report=summary "$F" >/dev/null 2>&1
[ ! -e "$TMP/small" ]
ok $? "files under TTRACE_CACHE_MIN are not cached"
printf '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$TMP/in.json"
XDG_CACHE_HOME="$TMP/stdin" "$TTRACE" -q --report=summary - <"$TMP/in.json" >/dev/null 2>&1
[ ! -e "$TMP/stdin" ]
ok $? "standard input is not cached"

# ---- ttrace index ------------------------------------------------------------------------------
D="$TMP/run"
mkdir -p "$D"
cp "$srcdir/tests/fixtures/q-phases.json" "$D/rank0.json"
cp "$srcdir/tests/fixtures/q-memory.json" "$D/rank1.json"
export XDG_CACHE_HOME="$TMP/idx"
C="$XDG_CACHE_HOME/ttrace"
run index "$D"
is "$rc" 0 "ttrace index DIR: status 0"
like "$out" "$D/rank0.json: built" "a new cache: built"
like "$out" "$D/rank1.json: built" "each file of the directory"
run index "$D/rank0.json" "$D/rank1.json"
is "$rc" 0 "again: status 0"
is "$(printf '%s\n' "$out" | grep -c ': up to date$')" 2 "both up to date"
from_cache "$D/rank1.json"
ok $? "and a later open reads them"
printf '[1, 2]' >"$D/rank2.json"
run index "$D"
is "$rc" 1 "a file that does not load: status 1"
like "$out" "$D/rank2.json: failed: not a Chrome trace" "with the loader's message"
mkfifo "$TMP/fifo.json" 2>/dev/null && {
	run index "$TMP/fifo.json"
	is "$rc" 1 "a FIFO: status 1"
	like "$out" "not cached: not a regular file" "not opened, not cached"
}
rm -f "$D/rank2.json"
run index -q "$D"
is "$rc:$out" "0:" "-q prints nothing when all is well"
SLURM_PROCID=1 SLURM_NTASKS=2 run index "$D"
is "$out" "$D/rank1.json: up to date" "under Slurm, task 1 of 2 takes the second file"
TTRACE_NO_CACHE=1 run index "$D"
is "$rc" 2 "ttrace index with caching off: status 2"
run index
is "$rc" 2 "ttrace index without a file: status 2"

# ---- the cap: the least recently used caches go ------------------------------------------------
export XDG_CACHE_HOME="$TMP/cap"
C="$XDG_CACHE_HOME/ttrace"
for i in 1 2 3; do cp "$srcdir/tests/fixtures/overview/steps.json" "$TMP/cap$i.json"; done
"$TTRACE" index "$TMP/cap1.json" >/dev/null
one=$(stat -c %s "$C"/cap1.json-*.ttc)
"$TTRACE" index "$TMP/cap2.json" >/dev/null
sleep 1
from_cache "$TMP/cap1.json" # cap1 used after cap2: cap2 is now the least recently used
TTRACE_CACHE_MAX=$((2 * one + one / 2)) "$TTRACE" index "$TMP/cap3.json" >/dev/null
[ -e "$(cache_of "$TMP/cap1.json")" ] && [ -z "$(cache_of "$TMP/cap2.json")" ] && [ -e "$(cache_of "$TMP/cap3.json")" ]
ok $? "over the cap (TTRACE_CACHE_MAX), the least recently used cache is removed"
TTRACE_CACHE_MAX=100 run index "$TMP/cap2.json"
is "$rc" 1 "a cache bigger than the whole cap: status 1"
like "$out" "does not fit in the cache directory's cap" "and said"
[ -z "$(cache_of "$TMP/cap2.json")" ]
ok $? "and not kept"

# a report leaves its traces to the process's end (trace_end_of_process), but not its
# cache: a writer slower than the report is waited for, and the file is whole
cp "$F" "$TMP/slow.json"
TTRACE_CACHE_TEST_STALL=2 "$TTRACE" -q --report=summary "$TMP/slow.json" >/dev/null 2>&1
s=$(ls -a "$C" | grep -c '\.tmp\.')
[ -n "$(cache_of "$TMP/slow.json")" ] && [ "$s" -eq 0 ]
ok $? "a report whose cache writer is slow exits once the cache is written"
from_cache "$TMP/slow.json"
ok $? "and the next run reads it"

finish
