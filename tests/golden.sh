#!/bin/sh
# golden.sh: golden dumps of the parsed model (--dump-model) for every fixture in
# tests/fixtures (not the .tsv tables, which are data for unit tests), compared byte for
# byte, parsed whole, in 3 parts and indexed on two threads. REGEN=1 rewrites the goldens:
# review the diff.
. "$srcdir/tests/lib.sh"
cd "$srcdir/tests/fixtures" || exit 1
GOLD="$srcdir/tests/golden"
for f in $(find . -type f ! -name README ! -name '*.md' ! -name '*.tsv' | sed 's|^\./||' | sort); do
	g="$GOLD/$f.dump"
	{
		"$TTRACE" --dump-model "$f" 2>"$TMP/err"
		echo "exit $?"
		sed 's/^/stderr: /' "$TMP/err"
	} >"$TMP/dump" 2>&1
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
	# The same file parsed in 3 parts on 3 threads must give the same model.
	if [ -z "$REGEN" ] && [ -f "$g" ]; then
		{
			TTRACE_PARTS=3 "$TTRACE" --dump-model "$f" 2>"$TMP/err"
			echo "exit $?"
			sed 's/^/stderr: /' "$TMP/err"
		} >"$TMP/dump3" 2>&1
		if cmp -s "$TMP/dump3" "$g"; then
			ok 0 "$f: parsed in 3 parts, the same model"
		else
			ok 1 "$f: parsed in 3 parts, the model differs"
			diff -u "$g" "$TMP/dump3" | head -20 | sed 's/^/#   /'
		fi
		# And its tracks sorted and laid out on two threads (as traces of 200,000 slices
		# and more are): the same model, the quality examples in the same order.
		{
			TTRACE_TEST_INDEX_SPLIT=0 "$TTRACE" --dump-model "$f" 2>"$TMP/err"
			echo "exit $?"
			sed 's/^/stderr: /' "$TMP/err"
		} >"$TMP/dump2" 2>&1
		if cmp -s "$TMP/dump2" "$g"; then
			ok 0 "$f: indexed on two threads, the same model"
		else
			ok 1 "$f: indexed on two threads, the model differs"
			diff -u "$g" "$TMP/dump2" | head -20 | sed 's/^/#   /'
		fi
	fi
done
finish
