# lib.sh: TAP helpers for the shell tests. Source it; then call ok/is/like, and finish.
# TTRACE (the binary), srcdir and builddir come from the test environment (Makefile.am).
: "${TTRACE:=./ttrace}"
: "${srcdir:=.}"
: "${builddir:=.}"
JSONQ="$builddir/tests/jsonq"
OPCHECK="$builddir/tests/opcheck"
CACHEFORGE="$builddir/tests/cacheforge"
LC_ALL=C.UTF-8
# text reports take their width from COLUMNS or the terminal: tests pin 120 unless they say
unset COLUMNS
TZ=UTC
export LC_ALL TZ
tap_n=0
tap_fail=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ttrace-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# binary caches (parsers/cache_dir.h) of the test's files go to its own directory, never
# the user's ~/.cache
XDG_CACHE_HOME="$TMP/xdg-cache"
export XDG_CACHE_HOME

ok() { # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}

like() { # like TEXT SUBSTRING DESCRIPTION
	case "$1" in
	*"$2"*) ok 0 "$3" ;;
	*)
		ok 1 "$3"
		printf '#   wanted substring: %s\n#   in: %.600s\n' "$2" "$1"
		;;
	esac
}

unlike() { # unlike TEXT SUBSTRING DESCRIPTION
	case "$1" in
	*"$2"*)
		ok 1 "$3"
		printf '#   unwanted substring: %s\n' "$2"
		;;
	*) ok 0 "$3" ;;
	esac
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

finish() {
	echo "1..$tap_n"
	[ "$tap_fail" -eq 0 ]
}

# run ARGS...: runs ttrace, leaving stdout in $out, stderr in $err and status in $rc.
run() {
	"$TTRACE" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# no_crash: fails the test if the last run died of a signal or a sanitizer report.
no_crash() {
	if [ "$rc" -ge 128 ] || grep -q -e 'Sanitizer' -e 'runtime error' -e 'BUG at' "$TMP/err"; then
		ok 1 "$1: no crash (status $rc)"
		head -c 2000 "$TMP/err" | sed 's/^/#   /'
	else
		ok 0 "$1: no crash"
	fi
}

# The end-to-end tests in a terminal (tests/tmux.sh, tests/cache_cut.sh): tmux_begin gives
# the test a tmux server of its own (socket $SOCK, session $S), killed on exit; T runs a
# tmux command on it.
tmux_begin() {
	S="ttrace-test-$$"
	SOCK="$TMP/tmux.sock"
	trap 'tmux_end; rm -rf "$TMP"' EXIT
}
T() { tmux -S "$SOCK" "$@"; }

# tmux_end: a ttrace still ending in the pane (after the test's q) is let finish, 10 s at
# most, before the server goes: a hangup in the middle of its exit (the sanitizers' leak
# check at exit, on a loaded CI machine) once left it spinning after the test was over.
tmux_end() {
	i=0
	while [ $i -lt 100 ] && T list-panes -a -F '#{pane_current_command}' 2>/dev/null | grep -q ttrace; do
		sleep 0.1
		i=$((i + 1))
	done
	T kill-server 2>/dev/null
}

# wait_for TEXT [TRIES]: polls the pane until it shows TEXT (0.1 s apart, 30 s at most: a
# busy CI machine running many tests at once is slow, and a pass costs no more)
wait_for() {
	i=0
	while [ $i -lt "${2:-300}" ]; do
		if T capture-pane -p -t "$S" 2>/dev/null | grep -q -F -- "$1"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	T capture-pane -p -t "$S" 2>/dev/null | sed 's/^/#   /' | head -40
	return 1
}
