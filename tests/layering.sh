#!/bin/sh
# layering.sh: dependencies point one way: lib/ <- src/ <- parsers/ <- ui/. Each folder
# includes only itself and the folders before it; cJSON only in parsers/, curses only in
# ui/tty.c, file I/O (stdio opens, read/pread) nowhere under ui/ but main.c, tty.c, the
# record command (its manifest and the pipe that says whether exec failed) and the report
# writer's FILE argument.
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
bad parsers '#include "ui/' "parsers/ includes nothing of ui/"
bad lib 'cjson|cJSON' "lib/ does not use cJSON"
bad src 'cjson|cJSON' "src/ does not use cJSON"
bad ui 'cjson|cJSON' "ui/ does not use cJSON"
hits=$(grep -l -E '#include <(n)?curses.h>' ui/*.c ui/*.h src/*.c parsers/*.c lib/*.c | grep -v '^ui/tty.c$')
[ -z "$hits" ]
ok $? "curses only in ui/tty.c"
hits=$(grep -n -E '(^|[^_.>a-z])(fopen|open|pread|read)\(' ui/*.c | grep -v -e '^ui/main.c' -e '^ui/tty.c' -e '^ui/record_cmd.c' -e '^ui/keys.c:.*fopen(path' )
[ -z "$hits" ]
ok $? "no file I/O under ui/ but the command line, the terminal, the key map file and the record command"
[ -z "$hits" ] || printf '%s\n' "$hits" | sed 's/^/#   /' | head -10
finish
