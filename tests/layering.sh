#!/bin/sh
# layering.sh: dependencies point one way: lib/ <- src/ <- parsers/ <- cmd/ <- ui/. Each
# folder includes only itself and the folders before it (record/, the recorder, stands
# beside them: cmd/record.c reads its settings); cJSON only in parsers/, curses only in
# ui/tty.c, file I/O (stdio opens, read/pread) nowhere under ui/ but main.c, tty.c, the
# record command (its manifest and the pipe that says whether exec failed) and the report
# writer's FILE argument. The cJSON rules and "drawing reads no file" (ui/render.c reaches
# nothing of parsers/) follow includes through headers, however deep.
. "$srcdir/tests/lib.sh"
cd "$srcdir" || exit 1

bad() { # bad FOLDER FORBIDDEN-PATTERN DESCRIPTION
	hits=$(grep -n -E "$2" "$1"/*.c "$1"/*.h 2>/dev/null)
	[ -z "$hits" ]
	ok $? "$3"
	[ -z "$hits" ] || printf '%s\n' "$hits" | sed 's/^/#   /' | head -10
}
bad lib '#include "(src|parsers|ui)/' "lib/ includes nothing of src/, parsers/ or ui/"
bad src '#include "(parsers|ui)/' "src/ includes nothing of parsers/ or ui/"
bad parsers '#include "(cmd|ui)/' "parsers/ includes nothing of cmd/ or ui/"
bad cmd '#include "ui/' "cmd/ (the index and record commands) includes nothing of ui/"
bad lib '#include "cmd/' "lib/ includes nothing of cmd/"
bad src '#include "cmd/' "src/ includes nothing of cmd/"
bad lib 'cjson|cJSON' "lib/ does not use cJSON"
bad src 'cjson|cJSON' "src/ does not use cJSON"
bad ui 'cjson|cJSON' "ui/ does not use cJSON"
bad cmd 'cjson|cJSON' "cmd/ does not use cJSON"
# closure FILE: FILE and every project header it reaches through #include "..." (the
# headers' own includes too), one per line
closure() {
	seen="$1"
	todo="$1"
	while [ -n "$todo" ]; do
		next=""
		for f in $todo; do
			for h in $(sed -n 's/^#include "\(.*\)"$/\1/p' "$f" 2>/dev/null); do
				[ -f "$h" ] || continue
				case " $seen " in *" $h "*) continue ;; esac
				seen="$seen $h"
				next="$next $h"
			done
		done
		todo=$next
	done
	printf '%s\n' $seen
}
# through_headers FILES... PATTERN DESCRIPTION: no file reaches, through any chain of
# headers, a line matching PATTERN
through_headers() {
	desc=$1 pat=$2
	shift 2
	found=""
	for f in "$@"; do
		for h in $(closure "$f"); do
			grep -q -E "$pat" "$h" && found="$found
$f (through $h)"
		done
	done
	[ -z "$found" ]
	ok $? "$desc"
	[ -z "$found" ] || printf '%s\n' "$found" | sed '/^$/d; s/^/#   /' | head -10
}
through_headers "ui/ reaches no cJSON header, even through other headers" '#include <cjson/' ui/*.c ui/*.h
through_headers "src/ and lib/ reach no cJSON header, even through other headers" '#include <cjson/' src/*.c src/*.h lib/*.c lib/*.h
# drawing reads no file: ui/render.c reaches nothing of parsers/ (the args of the
# selection are read when it changes, ui/sel_args.c)
hits=$(closure ui/render.c | grep '^parsers/')
[ -z "$hits" ]
ok $? "ui/render.c (drawing) reaches nothing of parsers/, even through headers"
[ -z "$hits" ] || printf '#   %s\n' $hits
# a narrow door into the timeline: its state (ui/view_state.h) is for its own files; the app
# and the other panels reach it only through ui/view.h, even through other headers
timeline="ui/view.c ui/view_access.c ui/window.c ui/layout.c ui/render.c ui/search.c ui/gap_nav.c ui/follow.c
ui/places.c ui/align.c ui/sel_args.c ui/counter_track.c ui/counter_track.h ui/gpu_lines.c ui/gpu_lines.h ui/crop_key.c ui/loading.c
ui/view_state.h"
hits=""
for f in ui/*.c ui/*.h; do
	case " $(echo $timeline) " in *" $f "*) continue ;; esac
	closure "$f" | grep -q '^ui/view_state.h$' && hits="$hits $f"
done
[ -z "$hits" ]
ok $? "only the timeline's own files see its state (ui/view_state.h); the others go through ui/view.h"
[ -z "$hits" ] || printf '#   %s\n' $hits
hits=$(grep -l -E '#include <(n)?curses.h>' ui/*.c ui/*.h cmd/*.c cmd/*.h src/*.c parsers/*.c lib/*.c | grep -v '^ui/tty.c$')
[ -z "$hits" ]
ok $? "curses only in ui/tty.c"
hits=$(grep -n -E '(^|[^_.>a-z])(fopen|open|pread|read)\(' ui/*.c | grep -v -e '^ui/main.c' -e '^ui/tty.c' -e '^ui/keys.c:.*fopen(path' )
[ -z "$hits" ]
ok $? "no file I/O under ui/ but the command line, the terminal and the key map file"
[ -z "$hits" ] || printf '%s\n' "$hits" | sed 's/^/#   /' | head -10
# The binary loads no libm: three rounding functions were all it used, and loading it kept
# 0.3 MB of every run resident (its start-up relocations); lib/tmath.h has them.
if command -v readelf >/dev/null 2>&1 && [ -x "$TTRACE" ]; then
	needed=$(readelf -d "$TTRACE" | grep NEEDED)
	unlike "$needed" "libm.so" "ttrace does not load libm"
	like "$needed" "libc.so" "readelf lists the binary's libraries (libc among them)"
	# relative relocations packed where the linker can (configure: RELR_LDFLAGS)
	if [ -n "$RELR_LDFLAGS" ]; then
		like "$(readelf -d "$TTRACE")" "(RELR)" "the binary's relative relocations are packed (DT_RELR)"
	fi
fi
# The load path's code comes first in the binary (Makefile.am, LOAD_PATH_OBJECTS): a load
# touches it all, and the kernel maps code 64 KB around each page touched. Every function
# named below of the load lies below every one of the views and reports.
if command -v nm >/dev/null 2>&1 && [ -x "$TTRACE" ] && nm "$TTRACE" >"${TMPDIR:-/tmp}/layering.$$" 2>/dev/null &&
	grep -q ' T main$' "${TMPDIR:-/tmp}/layering.$$"; then
	at() { awk -v s="$1" '$3 == s { print $1 }' "${TMPDIR:-/tmp}/layering.$$"; }
	hi=0 lo=-1 missing=""
	for f in input_codec scan_run builder_push_slice index_build index_trace_span report_files; do
		a=$(at "$f")
		[ -n "$a" ] || { missing="$missing $f"; continue; }
		a=$(printf '%d' "0x$a")
		[ "$a" -gt "$hi" ] && hi=$a
	done
	for f in render_timeline advice_analyse ops_group overview_open diff_analyse crop_main memory_view_open; do
		a=$(at "$f")
		[ -n "$a" ] || { missing="$missing $f"; continue; }
		a=$(printf '%d' "0x$a")
		{ [ "$lo" -lt 0 ] || [ "$a" -lt "$lo" ]; } && lo=$a
	done
	[ -z "$missing" ]
	ok $? "nm finds the functions the layout check names"
	[ -z "$missing" ] || echo "#   missing:$missing"
	[ "$hi" -gt 0 ] && [ "$lo" -gt "$hi" ]
	ok $? "the load path's code lies below the views' and reports' (last at $hi, first other at $lo)"
fi
rm -f "${TMPDIR:-/tmp}/layering.$$"
finish
