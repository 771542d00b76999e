#!/bin/sh
# golden.sh: golden dumps of the parsed model (--dump-model) for every fixture in
# tests/fixtures (not the .tsv tables, which are data for unit tests), compared byte for
# byte, parsed whole, in 3 parts and indexed on two threads. REGEN=1 rewrites the goldens:
# review the diff.
. "$srcdir/tests/lib.sh"
cd "$srcdir/tests/fixtures" || exit 1
GOLD="$srcdir/tests/golden"

# dump FILE [VAR=VALUE...]: FILE's model dump (with those variables set), its exit status
# and its stderr, on stdout.
dump() {
	dump_file=$1
	shift
	env "$@" "$TTRACE" --dump-model "$dump_file" 2>"$TMP/err"
	echo "exit $?"
	sed 's/^/stderr: /' "$TMP/err"
}

# same_model FILE GOLDEN HOW VAR=VALUE: FILE's dump with VAR set (read HOW) is its golden.
same_model() {
	dump "$1" "$4" >"$TMP/dump_how" 2>&1
	if cmp -s "$TMP/dump_how" "$2"; then
		ok 0 "$1: $3, the same model"
	else
		ok 1 "$1: $3, the model differs"
		diff -u "$2" "$TMP/dump_how" | head -20 | sed 's/^/#   /'
	fi
}

for f in $(find . -type f ! -name README ! -name '*.md' ! -name '*.tsv' | sed 's|^\./||' | sort); do
	g="$GOLD/$f.dump"
	dump "$f" >"$TMP/dump" 2>&1
	if [ -n "$REGEN" ]; then
		mkdir -p "$(dirname "$g")"
		cp "$TMP/dump" "$g"
		ok 0 "$f: golden regenerated"
	elif [ ! -f "$g" ]; then
		ok 1 "$f: golden $g missing (run with REGEN=1 and review)"
	elif cmp -s "$TMP/dump" "$g"; then
		ok 0 "$f: model dump matches its golden"
	else
		ok 1 "$f: model dump differs from its golden"
		diff -u "$g" "$TMP/dump" | head -40 | sed 's/^/#   /'
	fi
	if grep -q -e 'Sanitizer' -e 'runtime error' -e 'BUG at' "$TMP/dump"; then
		ok 1 "$f: no sanitizer report"
	fi
	# The same file parsed in 3 parts on 3 threads, and its tracks sorted and laid out on
	# two threads (as traces of 200,000 slices and more are; tests/index_threads.sh checks
	# the findings' examples), must give the same model.
	if [ -z "$REGEN" ] && [ -f "$g" ]; then
		same_model "$f" "$g" "parsed in 3 parts" TTRACE_PARTS=3
		same_model "$f" "$g" "indexed on two threads" TTRACE_TEST_INDEX_SPLIT=0
	fi
done
finish
