#!/bin/sh
# fuzz_keys_corpus.sh: replays the timeline fuzz target (tests/fuzz/fuzz_keys.c, built as
# tests/fuzz_keys_replay) over its saved corpus (tests/fuzz/keys_corpus), then over every
# fixture (tests/fixtures, recursively, hostile ones included) wrapped with one key script
# that zooms, pans, searches, opens every list, selects, follows flows and clicks, at two
# screen sizes, and over each fixture directory's first two files as two ranks. One TAP
# test point per input, each under a watchdog of FUZZ_REPLAY_TIMEOUT seconds (10 by
# default): a crash, a sanitizer report, a control character on the screen or a hang fails
# that input, and the replay goes on with the next.
. "$srcdir/tests/lib.sh"
: "${FUZZ_KEYS_REPLAY:=$builddir/tests/fuzz_keys_replay}"
: "${FUZZ_REPLAY_TIMEOUT:=10}"
export FUZZ_REPLAY_TIMEOUT

# The key script, in fuzz_keys.c's encoding: wwwwWWssSSaaddAAD, End, Home,
# /a Enter n N, ? Esc, o Down Enter Esc, p Esc, Down Down Enter ] [ . , m f x,
# a click at 40,5, a wheel up at 50,6, g b, t.
keys='wwwwWWssSSaaddAAD\214\213/a\200nN?\202o\204\200\202p\202\204\204\200][.,mfx\220\050\005\223\062\006gbt'
nkeys=$(printf "$keys" | wc -c)
wrap() { # wrap CONF OUT FILE...: the fuzz input for FILE (or two files as two ranks)
	conf=$1 out=$2
	shift 2
	{
		printf "\\$(printf %o "$conf")\\$(printf %o "$nkeys")$keys"
		cat "$1"
		if [ $# -gt 1 ]; then
			printf '\n--rank--\n'
			cat "$2"
		fi
	} >"$out"
}

# The inputs, one path a line.
for f in "$srcdir"/tests/fuzz/keys_corpus/*; do
	[ -f "$f" ] && echo "$f"
done >"$TMP/inputs"
mkdir -p "$TMP/in"
fix="$srcdir/tests/fixtures"
find "$fix" -type f | LC_ALL=C sort >"$TMP/files"
while read -r f; do
	name=$(printf '%s' "${f#"$fix"/}" | tr '/ ' '::')
	wrap 0 "$TMP/in/$name@80x24" "$f" && echo "$TMP/in/$name@80x24"
	wrap 7 "$TMP/in/$name@320x90" "$f" && echo "$TMP/in/$name@320x90"
done <"$TMP/files" >>"$TMP/inputs"
find "$fix" -type d | LC_ALL=C sort >"$TMP/dirs"
while read -r d; do
	set -- $(find "$d" -maxdepth 1 -type f | LC_ALL=C sort | head -n 2)
	[ $# -eq 2 ] || continue
	name=$(printf '%s' "${d#"$fix"}" | tr '/ ' '::')
	wrap 40 "$TMP/in/dir$name@2ranks" "$1" "$2" # two ranks, collective alignment
	echo "$TMP/in/dir$name@2ranks"
done <"$TMP/dirs" >>"$TMP/inputs"

label() { # the test point's name of input path $1
	case "$1" in
	"$TMP"/in/*) echo "fixtures ${1#"$TMP"/in/}" ;;
	*) echo "keys_corpus/${1##*/}" ;;
	esac
}

# One replay runs the inputs left; when it dies, the input after the last one it passed
# failed, and a new replay goes on after it.
cp "$TMP/inputs" "$TMP/left"
while [ -s "$TMP/left" ]; do
	tr '\n' '\0' <"$TMP/left" | xargs -0 "$FUZZ_KEYS_REPLAY" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	passed=$(grep -c '^ok ' "$TMP/out")
	head -n "$passed" "$TMP/left" | while read -r f; do
		echo "ok $(label "$f")"
	done >"$TMP/oks"
	while read -r line; do
		ok 0 "${line#ok }"
	done <"$TMP/oks"
	[ "$rc" -eq 0 ] && break
	failed=$(sed -n "$((passed + 1))p" "$TMP/left")
	ok 1 "$(label "$failed")"
	echo "#   exit status $rc"
	grep -E 'runtime error|ERROR: |SUMMARY|fuzz_keys:|timeout|^ +#[0-9] ' "$TMP/err" | head -n 12 | sed 's/^/#   /'
	sed "1,$((passed + 1))d" "$TMP/left" >"$TMP/rest" && mv "$TMP/rest" "$TMP/left"
done
finish
