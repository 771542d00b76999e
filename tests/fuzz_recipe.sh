#!/bin/sh
# fuzz_recipe.sh: the by-hand recipes of tests/fuzz/README build the three fuzz targets.
# The commands are taken from the README itself (its indented lines that start with
# "mkdir -p /tmp/fz/inc", "LIBSRC=" or "clang ", with their continuation lines), so that
# the test breaks when the README and the sources diverge (a file added to the library
# but not to the recipe no longer links). They run as written but at -O0, without ASan and
# UBSan and into the test's own directory, to be quick; each target then runs one input.
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev): skipped without them,
# unless TTRACE_REQUIRE_CLANG=1 (CI), where that fails.
. "$srcdir/tests/lib.sh"

probe() { # can clang build a libFuzzer target here?
	command -v clang >/dev/null 2>&1 || return 1
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n%s\n' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$TMP/probe.c"
	clang -fsanitize=fuzzer "$TMP/probe.c" -o "$TMP/probe" >"$TMP/probe.err" 2>&1
}
if ! probe; then
	if [ "${TTRACE_REQUIRE_CLANG:-0}" = 1 ]; then
		echo "not ok 1 - clang with libFuzzer is missing (TTRACE_REQUIRE_CLANG=1)"
		sed 's/^/#   /' "$TMP/probe.err" 2>/dev/null | head -n 5
		echo "1..1"
		exit 1
	fi
	skip_all "clang with libFuzzer (Debian: clang, libclang-rt-14-dev) not found"
fi

# The README's commands, one a line, continuation lines joined.
awk '
	/^    / {
		line = substr($0, 5)
		if (cont) { sub(/^ +/, "", line); cmd = cmd " " line }
		else if (line ~ /^(mkdir -p \/tmp\/fz\/inc|LIBSRC=|clang )/) cmd = line
		else next
		cont = sub(/ *\\$/, "", cmd)
		if (!cont) { print cmd; cmd = "" }
		next
	}
	{ cont = 0 }
' "$srcdir/tests/fuzz/README" >"$TMP/recipe.txt"
for t in fuzz_loader fuzz_keys fuzz_cache; do
	grep -q "^clang .* -o /tmp/fz/$t\$" "$TMP/recipe.txt"
	ok $? "the README has a by-hand recipe for $t"
done
grep -q '^mkdir -p /tmp/fz/inc' "$TMP/recipe.txt" && grep -q '^LIBSRC=' "$TMP/recipe.txt"
ok $? "and the commands they start from (config.h, LIBSRC)"

# at -O0, with libFuzzer but without the sanitizers, into $TMP/fz
{
	echo "set -e"
	sed -e "s|/tmp/fz|$TMP/fz|g" -e 's/ -g -O1 / -O0 /' -e 's/-fsanitize=fuzzer,address,undefined/-fsanitize=fuzzer/' \
		-e 's/ -fno-sanitize-recover=undefined//' "$TMP/recipe.txt"
} >"$TMP/recipe.sh"
(cd "$srcdir" && sh "$TMP/recipe.sh") >"$TMP/build.log" 2>&1
ok $? "the recipes compile and link"
grep -v '^$' "$TMP/build.log" | head -n 20 | sed 's/^/#   /'

one_input() { # one_input TARGET FILE: the target built by hand runs FILE once
	"$TMP/fz/$1" "$2" >"$TMP/$1.out" 2>&1 && grep -q '^Executed ' "$TMP/$1.out"
	ok $? "$1, built by hand, runs an input ($(basename "$2"))"
}
first() { ls "$1" | head -n 1; }
one_input fuzz_loader "$srcdir/tests/fixtures/q-phases.json"
one_input fuzz_keys "$srcdir/tests/fuzz/keys_corpus/$(first "$srcdir/tests/fuzz/keys_corpus")"
one_input fuzz_cache "$srcdir/tests/fuzz/cache_corpus/$(first "$srcdir/tests/fuzz/cache_corpus")"
finish
