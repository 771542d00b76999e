#!/bin/sh
# hostile_text.sh: no text from a trace, a file name or the command line reaches the
# terminal raw. Two ranks whose every string carries ESC sequences (OSC 0 title, OSC 52
# clipboard, CSI), BEL, DEL, C1 controls (as UTF-8 and as raw bytes) and bidi controls
# (tests/tools/gen-hostile-text.py), under file and directory names that carry them
# too, go through every report, text and JSON, every warning and error we can reach, and
# the timeline headless; stdout and stderr must hold none of these.
. "$srcdir/tests/lib.sh"
FX="$srcdir/tests/fixtures/hostile"

# What a name may carry: OSC 0, OSC 52, CSI, BEL, C1 as UTF-8 (NEL, CSI) and as a raw
# byte, RLO and LRI, a tab.
H=$(printf '\033]0;NAME\007\033]52;c;bmFtZQ==\007\033[7m\302\205\302\233\233\342\200\256\342\201\246\011x')

# Forbidden in any output: C0 but newline (tab included: nothing we write uses it), DEL,
# C1 as UTF-8, bidi controls as UTF-8; raw 0x80-0xff bytes outside valid UTF-8 (checked
# with iconv).
C0=$(printf '[\001-\011\013-\037\177]')
C1U=$(printf '\302[\200-\237]')
BIDI1=$(printf '\342\200[\216\217\252-\256]')
BIDI2=$(printf '\342\201[\246-\251]')
ALM=$(printf '\330\234')
have_iconv=0
if command -v iconv >/dev/null 2>&1 && printf 'ok' | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 &&
	! printf '\233' | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
	have_iconv=1
fi

# clean FILE: prints what FILE holds that a terminal would act on; nothing when clean.
clean() {
	if [ "$(tr -d '\000' <"$1" | wc -c)" -ne "$(wc -c <"$1")" ]; then echo "NUL"; fi
	if LC_ALL=C grep -a -n "$C0" "$1" | head -3 | grep .; then echo "C0 or DEL"; fi
	if LC_ALL=C grep -a -n -e "$C1U" "$1" | head -3 | grep .; then echo "C1 as UTF-8"; fi
	if LC_ALL=C grep -a -n -e "$BIDI1" -e "$BIDI2" -e "$ALM" "$1" | head -3 | grep .; then echo "bidi control"; fi
	if [ "$have_iconv" -eq 1 ] && ! iconv -f UTF-8 -t UTF-8 <"$1" >/dev/null 2>&1; then
		echo "invalid UTF-8 (a raw 0x80-0x9f byte?)"
	fi
}

# check DESCRIPTION ARGS...: runs ttrace; stdout and stderr must be clean, no crash.
check() {
	desc=$1
	shift
	run "$@"
	no_crash "$desc"
	for s in out err; do
		found=$(clean "$TMP/$s")
		if [ -z "$found" ]; then
			ok 0 "$desc: std$s clean"
		else
			ok 1 "$desc: std$s clean"
			printf '%s\n' "$found" | head -8 | LC_ALL=C cat -v | sed 's/^/#   /'
		fi
	done
}

# The ranks, under hostile names, in a directory with a hostile name.
D="$TMP/ranks$H"
mkdir "$D" || exit 1
R0="$D/rank0$H.json"
R1="$D/rank1$H.json"
cp "$FX/text-rank0.json" "$R0"
# Rank 1 carries the controls also as raw bytes (not valid JSON then): C0 bytes, C1 as
# UTF-8 and as lone bytes, bidi controls as UTF-8.
RAW=$(printf '\033]0;RAW\007\033]52;c;cmF3\007\033[1m\010\177\001\302\205\302\233\233\205\200\342\200\256\342\201\247\342\200\216\330\234')
LC_ALL=C sed -e "s/\\\\u061c\"/\\\\u061c$RAW\"/g" -e 's/"rank": 0,/"rank": 1,/' -e 's/"ts": 1440, "dur": 200/"ts": 1445, "dur": 200/' \
	"$FX/text-rank0.json" >"$R1"
is "$(LC_ALL=C grep -c "$(printf '\033]0;RAW')" "$R1")" "$(grep -c 'u061c"' "$FX/text-rank0.json")" "rank 1 made, raw bytes in it"

# ---- reports, text and JSON ------------------------------------------------------------
check "summary" --report=summary "$R0" "$R1"
is "$rc" 0 "summary: exit 0"
like "$out" 'rank 0 of 2 (nccl\x1b]0;PWNED\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31m\x07\x08\x7f\u0085\u009b\u202e\u2066\u200f\u061c)' \
	"summary: the backend shown escaped, C1 and bidi as \\u"
like "$out" '\x1b]0;RAW\x07\x1b]52;c;cmF3\x07\x1b[1m\x08\x7f\x01\u0085\u009b\x9b\x85\x80\u202e\u2067\u200e\u061c' \
	"summary: raw bytes shown escaped (raw C1 bytes as \\x)"
like "$out" 'rank0\x1b]0;NAME\x07\x1b]52;c;bmFtZQ==\x07\x1b[7m\u0085\u009b\x9b\u202e\u2066\tx.json' \
	"summary: the file name shown escaped"
check "summary: default mode on the directory" "$D"
check "summary --json" --report=summary --json "$R0" "$R1"
printf '%s' "$out" >"$TMP/sum.json"
"$JSONQ" <"$TMP/sum.json" >/dev/null
is "$?" 0 "summary --json: valid JSON"
is "$("$JSONQ" files.# <"$TMP/sum.json")" 2 "summary --json: both ranks"
like "$out" '\u001b]0;PWNED\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u001b[31m\u0007\u0008\u007f\u0085\u009b\u202e\u2066\u200f\u061c' \
	"summary --json: controls as \\u escapes"
like "$out" '\u0085\u009b\ufffd\ufffd\ufffd\u202e\u2067\u200e\u061c' "summary --json: raw C1 bytes as U+FFFD"

check "overview" --report=overview "$R0" "$R1"
check "overview --json" --report=overview --json "$R0" "$R1"
printf '%s' "$out" | "$JSONQ" >/dev/null
is "$?" 0 "overview --json: valid JSON"
check "advice" --report=advice "$R0"
check "advice, two ranks" --report=advice "$R0" "$R1"
check "advice --json" --report=advice --json "$R0" "$R1"
printf '%s' "$out" | "$JSONQ" >/dev/null
is "$?" 0 "advice --json: valid JSON"
check "gaps" --report=gaps --gap-min=10us "$R0" "$R1"
like "$out" 'Optimizer.step \x1' "gaps: the CPU slice in a gap is named, escaped (elided in the middle: the JSON has it whole)"
check "gaps --json" --report=gaps --json --gap-min=10us "$R0" "$R1"
printf '%s' "$out" >"$TMP/gaps.json"
"$JSONQ" <"$TMP/gaps.json" >/dev/null
is "$?" 0 "gaps --json: valid JSON"
like "$out" 'Optimizer.step \u001b]0;PWNED\u0007' "gaps --json: controls as \\u escapes"

for a in collective step raw; do
	check "distributed --align=$a" --report=distributed --align=$a "$R0" "$R1"
done
check "distributed" --report=distributed "$R0" "$R1"
like "$out" 'AllReduce\x1b]0;K\x07\u0085\u202e pg pg \x1b]0;PWNED' "distributed: the collective kind shown escaped"
check "distributed on the directory" --report=distributed "$D"
like "$out" "== 2 ranks" "distributed on the directory: two ranks"
check "distributed --json" --report=distributed --json "$D"
printf '%s' "$out" >"$TMP/dist.json"
"$JSONQ" <"$TMP/dist.json" >/dev/null
is "$?" 0 "distributed --json: valid JSON"
like "$out" '"kind": "AllReduce\u001b]0;K\u0007\u0085\u202e pg pg \u001b]0;PWNED' "distributed --json: kind as \\u escapes"

check "check" --check "$R0" "$R1"
like "$out" 'unclosed_begin' "check: findings listed"
check "dump-model" --dump-model "$R0" "$R1"
like "$out" 'device 0 "NVIDIA A100 \x1b]0;PWNED' "dump-model: deviceProperties name escaped"
like "$out" 'flow "flow \x1b]0;PWNED' "dump-model: flow category escaped"
check "report=none" --report=none "$R0" "$R1"

# ---- warnings and errors -----------------------------------------------------------------
check "unknown report" --report="$H" "$R0"
is "$rc" 2 "unknown report: usage error"
like "$err" "unknown report '\\x1b]0;NAME\\x07" "unknown report: the value shown escaped"
check "bad --size" --dump-screen --size="$H" "$R0"
is "$rc" 2 "bad --size: usage error"
check "bad --align" --report=distributed --align="$H" "$R0"
is "$rc" 2 "bad --align: usage error"
check "bad --gap-min" --report=gaps --gap-min="$H" "$R0"
is "$rc" 2 "bad --gap-min: usage error"
check "bad --keys" --dump-screen --keys="<$H>" "$R0"
is "$rc" 2 "bad --keys: usage error"
check "unknown long option" "--$H" "$R0"
is "$rc" 2 "unknown long option: usage error"
check "unknown short option" "-$H" "$R0"
is "$rc" 2 "unknown short option: usage error"
check "missing option value" "$R0" --size
is "$rc" 2 "missing option value: usage error"
check "missing key map" --dump-screen --keymap="$TMP/keys$H" "$R0"
is "$rc" 2 "missing key map: usage error"
printf '%s zoom-in\n' "$H" >"$TMP/keys$H"
check "bad key map" --dump-screen --keymap="$TMP/keys$H" "$R0"
is "$rc" 0 "bad key map: its line is skipped, said on the status line (escaped), the timeline runs"
check "missing file" --report=summary "$TMP/missing$H.json"
is "$rc" 1 "missing file: exit 1"

# A directory: a hostile-named sidecar (with hostile keys), an empty file, a trace.
S="$TMP/dir$H"
mkdir "$S"
printf '{"\033]0;KEY\007\342\200\256": 1, "\302\233x": {"y": "\033]52;c;QQ==\007"}}' >"$S/sidecar$H.json"
: >"$S/empty$H.json"
cp "$R0" "$S/trace$H.json"
check "directory with a sidecar" --report=summary "$S"
is "$rc" 0 "directory with a sidecar: exit 0"
like "$err" "warning: skipped" "directory with a sidecar: the sidecar skipped with a warning"
check "directory with a sidecar, --check" --check "$S"
# a sidecar is known by what it is, not by its message: broken JSON is a damaged file, even
# one whose name reads like the message of a sidecar
S2="$TMP/named$H"
mkdir "$S2"
printf '{"traceEvents": [ {"ph": "X", "name": tru' >"$S2/not a Chrome trace.json"
cp "$R0" "$S2/trace.json"
run --report=none "$S2"
is "$rc" 1 "a directory with a broken JSON file named 'not a Chrome trace.json': exit 1, not skipped as a sidecar"
unlike "$err" "skipped" "and not called a skipped sidecar"
mkdir "$TMP/none$H"
check "directory without traces" --report=summary "$TMP/none$H"
is "$rc" 1 "directory without traces: exit 1"

# Damaged copies: truncated, a malformed event, a bad header.
head -c 9000 "$R1" >"$TMP/trunc$H.json"
check "truncated" --report=summary "$TMP/trunc$H.json"
like "$err" "truncated" "truncated: said"
X=$(printf '\033]0;X\007\342\200\256')
sed "s/\"ts\": 3400,/\"ts\": 34$X, \"x\": 1 2,/" "$R1" >"$TMP/malformed$H.json"
check "malformed event" --report=summary "$TMP/malformed$H.json"
check "malformed event, --check" --check "$TMP/malformed$H.json"
sed "s/\"baseTimeNanoseconds\": 1700000000000000000/\"baseTimeNanoseconds\": \"$X\"/" \
	"$FX/text-rank0.json" >"$TMP/header$H.json"
check "bad header values" --report=summary "$TMP/header$H.json"
like "$err" "baseTimeNanoseconds" "bad header values: warned"
printf '[1, "\033]0;E\007", {"id": 1}]' >"$TMP/list$H.json"
check "an array of no trace event" --report=summary "$TMP/list$H.json"
is "$rc" 1 "an array of no trace event: exit 1"
check "standard input twice" - - </dev/null
TTRACE_PARTS=3
export TTRACE_PARTS
check "summary, each file parsed in 3 parts" --report=summary "$R0" "$R1"
unset TTRACE_PARTS
gzip -c "$R0" | head -c 3000 >"$TMP/trunc$H.json.gz"
check "truncated gzip" --report=summary "$TMP/trunc$H.json.gz"

# ---- the timeline, headless ---------------------------------------------------------------
for keys in '' '/PWNED<Enter>' '/PWNED<Enter>n<Enter>' '/aten::mm<Enter>' 'jjj<Enter>' '?' 'o' 'o<Enter>' \
	'p' 'p<Enter>' 'jjjjjjjjjj<Tab>' 'Oggg*' 'Oggg/PWNED<Enter>' "/$(printf '\342\200\256\302\233')x"; do
	check "timeline, keys '$keys'" --dump-screen --size=160x50 --keys="$keys" "$D"
	# the grid turns a control it is given into '?': the renderer must escape before that
	if grep -q -e '?]0;' -e '?]52;' "$TMP/out"; then
		ok 1 "timeline, keys '$keys': every text escaped before the grid"
		grep -n -e '?]0;' -e '?]52;' "$TMP/out" | head -3 | sed 's/^/#   /'
	else
		ok 0 "timeline, keys '$keys': every text escaped before the grid"
	fi
done
check "timeline, small, details" --dump-screen --size=60x20 --keys='/mm<Enter>' "$R1"
check "timeline, ascii, gap list" --dump-screen --ascii --keys='o' "$R1"
run --dump-screen --size=160x50 --keys='/aten::mm<Enter>' "$D"
like "$out" 'aten::mm \x1b]0;PWNED' "timeline: the selected hostile slice is shown escaped"

finish
