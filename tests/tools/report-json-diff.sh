#!/bin/sh
# report-json-diff.sh: runs every --report=... --json of two ttrace binaries over the test
# fixtures and the shared traces, and counts the outputs that differ (byte for byte).
# Usage: report-json-diff.sh OLD_TTRACE NEW_TTRACE SRCDIR [SHARED_TRACES_DIR]
# Prints each differing run and, last, "runs N differ M". Exit 0 when none differ.
old=$1 new=$2 src=$3 shared=${4:-/work/shared/traces}
export LC_ALL=C.UTF-8 TZ=UTC
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
runs=0 differ=0
one() { # ARGS...: one report with both binaries
	runs=$((runs + 1))
	"$old" "$@" >"$tmp/a" 2>/dev/null
	echo "exit $?" >>"$tmp/a"
	"$new" "$@" >"$tmp/b" 2>/dev/null
	echo "exit $?" >>"$tmp/b"
	if ! cmp -s "$tmp/a" "$tmp/b"; then
		differ=$((differ + 1))
		echo "DIFFERS: $*"
		diff "$tmp/a" "$tmp/b" | head -10
	fi
}
files=$( (find "$src/tests/fixtures" -type f ! -name README ! -name '*.md'; [ -d "$shared" ] && find "$shared" -type f ! -name '*.md') | sort)
for f in $files; do
	one --report=summary --json "$f"
	one --report=gaps --json "$f"
	one --report=gaps --json --gap-min=1us "$f"
	one --report=distributed --json "$f"
done
dirs=$( (find "$src/tests/fixtures" -mindepth 1 -type d; [ -d "$shared" ] && find "$shared" -mindepth 1 -type d) | sort)
for d in $dirs; do
	for a in collective step raw; do
		one --report=distributed --json --align=$a "$d"
	done
	one --report=summary --json "$d"
	one --report=gaps --json --gap-min=10us "$d"
done
echo "runs $runs differ $differ"
[ "$differ" -eq 0 ]
