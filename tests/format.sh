#!/bin/sh
# format.sh: every C file is as clang-format leaves it under the tree's .clang-format, one
# point per file; a failing point shows the start of the diff (fix: clang-format -i FILE,
# or make format). The files: `git ls-files '*.c' '*.h'` in a git checkout; elsewhere (a
# tarball, make distcheck) every .c and .h under the source directory but config.h.
# clang-format's output changes between major versions: the check runs with version 14
# only (Debian 12's clang-format; $CLANG_FORMAT, else clang-format-14, else clang-format).
# Without it, it is skipped, unless TTRACE_REQUIRE_CLANG_FORMAT=1 (CI), where that fails.
. "$srcdir/tests/lib.sh"
WANT=14

major() { # major PROGRAM: its major version, or nothing
	"$1" --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9][0-9]*\).*/\1/p' | head -n 1
}
cf=""
found=""
for c in ${CLANG_FORMAT:-} clang-format-$WANT clang-format; do
	command -v "$c" >/dev/null 2>&1 || continue
	v=$(major "$c")
	found="${found:+$found, }$c (version ${v:-unknown})"
	if [ "$v" = "$WANT" ]; then
		cf=$c
		break
	fi
done
if [ -z "$cf" ]; then
	why="clang-format $WANT not found (Debian 12: apt-get install clang-format)${found:+; found $found}"
	if [ "${TTRACE_REQUIRE_CLANG_FORMAT:-0}" = 1 ]; then
		echo "not ok 1 - $why (TTRACE_REQUIRE_CLANG_FORMAT=1)"
		echo "1..1"
		exit 1
	fi
	skip_all "$why"
fi

cd "$srcdir" || exit 1
if [ ! -f .clang-format ]; then
	echo "not ok 1 - $srcdir/.clang-format exists"
	echo "1..1"
	exit 1
fi
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
	git ls-files '*.c' '*.h' >"$TMP/files"
	from="git ls-files"
else
	find . -name .git -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print |
		sed 's|^\./||' | grep -v -x 'config.h' | LC_ALL=C sort >"$TMP/files"
	from="the source directory (no git checkout)"
fi
if [ ! -s "$TMP/files" ]; then
	echo "not ok 1 - C files to check, from $from"
	echo "1..1"
	exit 1
fi
echo "# $cf ($("$cf" --version 2>/dev/null | head -n 1)), files from $from"

while read -r f; do
	if ! "$cf" --style="file:$PWD/.clang-format" "$f" >"$TMP/formatted" 2>"$TMP/err"; then
		ok 1 "$f: clang-format runs"
		sed 's/^/#   /' "$TMP/err" | head -n 5
	elif cmp -s "$f" "$TMP/formatted"; then
		ok 0 "$f is formatted"
	else
		ok 1 "$f is formatted (fix: $cf -i $f)"
		diff -u "$f" "$TMP/formatted" | sed -n '3,14s/^/#   /p'
	fi
done <"$TMP/files"
finish
