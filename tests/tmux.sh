#!/bin/sh
# tmux.sh: end-to-end runs of the real binary in a terminal (tmux): start, navigate,
# search, resize, quit, and a signal: the terminal is sane afterwards. Polls the pane
# instead of sleeping blindly. Skipped when tmux is not installed.
. "$srcdir/tests/lib.sh"
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed"
EX="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
tmux_begin

T -f /dev/null new-session -d -s "$S" -x 120 -y 35 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color sh"
T set-option -t "$S" remain-on-exit on >/dev/null
sleep 0.3 # the shell starts; keys sent before are queued anyway
T send-keys -t "$S" "stty -g > $TMP/stty.before; '$TTRACE' '$EX'; st=\$?; stty -g > $TMP/stty.after; echo EXIT=\$st" Enter
wait_for "time from start"
ok $? "the timeline opens"
wait_for "ProfilerStep#10"
ok $? "slices are drawn with their names"
T send-keys -t "$S" w w w
wait_for "8.42 ms"
ok $? "w zooms in (window 8.42 ms)"
T send-keys -t "$S" / n c c l Enter
wait_for "1/16"
ok $? "search finds 16 nccl slices and shows 1/16"
T send-keys -t "$S" n
wait_for "2/16"
ok $? "n goes to the next match"
T resize-window -t "$S" -x 90 -y 28 2>/dev/null || T resize-pane -t "$S" -x 90 -y 28
wait_for "2/16"
ok $? "still drawn after a resize"
T send-keys -t "$S" '?'
wait_for "Keys: timeline"
ok $? "? shows the key help"
T send-keys -t "$S" Escape o
wait_for "13 gaps of 100 us or more"
ok $? "o opens the gap list (a table panel)"
T send-keys -t "$S" s s s
wait_for "by start (largest first)"
ok $? "s sorts the table by its next column"
T send-keys -t "$S" / s y n c
wait_for 'filter "sync"'
ok $? "/ filters the rows as the text is typed"
T send-keys -t "$S" Enter Escape
wait_for "w/s zoom"
ok $? "Esc closes the table: the timeline has the keyboard again"
T send-keys -t "$S" q
wait_for "EXIT=0"
ok $? "q quits with status 0"
sleep 0.2
cmp -s "$TMP/stty.before" "$TMP/stty.after"
ok $? "the terminal modes are restored after q"

T send-keys -t "$S" "clear; '$TTRACE' '$EX'; st=\$?; stty -g > $TMP/stty.sig; echo SIGEXIT=\$st" Enter
wait_for "time from start"
pkill -TERM -P "$(T display-message -p -t "$S" '#{pane_pid}')" -x ttrace 2>/dev/null ||
	pkill -TERM -P "$(T display-message -p -t "$S" '#{pane_pid}')"
wait_for "SIGEXIT=143"
ok $? "SIGTERM ends ttrace (status 143)"
sleep 0.2
cmp -s "$TMP/stty.before" "$TMP/stty.sig"
ok $? "the terminal modes are restored after SIGTERM"

# A signal while the program computes (a slow frame, simulated by TTRACE_TEST_BUSY_MS)
# cannot wait for the key loop: it still ends the program with the terminal restored
# (modes, and the alternate screen left: the timeline is no longer on the pane).
for sig in INT:130 TERM:143 HUP:129; do
	name=${sig%%:*} want=${sig#*:}
	T send-keys -t "$S" "clear; TTRACE_TEST_BUSY_MS=600000 '$TTRACE' '$EX'; st=\$?; stty -g > $TMP/stty.busy; echo BUSY$name=\$st" Enter
	wait_for "time from start"
	sleep 0.3
	pkill -"$name" -P "$(T display-message -p -t "$S" '#{pane_pid}')" -x ttrace 2>/dev/null ||
		pkill -"$name" -P "$(T display-message -p -t "$S" '#{pane_pid}')"
	wait_for "BUSY$name=$want"
	ok $? "SIG$name while busy ends ttrace (status $want)"
	sleep 0.2
	cmp -s "$TMP/stty.before" "$TMP/stty.busy"
	ok $? "the terminal modes are restored after SIG$name while busy"
	if T capture-pane -p -t "$S" | grep -q "time from start"; then ok 1 "SIG$name while busy: the alternate screen is left"; else ok 0 "SIG$name while busy: the alternate screen is left"; fi
done

# Traces that used to hang the ruler: the frame is drawn after w w and q quits.
for f in dur-1e15us.json stray-ts-1000-epoch.json; do
	T send-keys -t "$S" "clear; '$TTRACE' '$srcdir/tests/fixtures/hostile/$f'; echo HOSTILE=\$?" Enter
	wait_for "time from start"
	T send-keys -t "$S" w w W
	sleep 0.3
	T send-keys -t "$S" q
	wait_for "HOSTILE=0"
	ok $? "$f: w w W draw and q quits"
done

# Colours: 256 colours by default; with NO_COLOR none, only attributes (reverse video).
T send-keys -t "$S" "clear; '$TTRACE' '$EX'; echo C1=\$?" Enter
wait_for "time from start"
T capture-pane -e -p -t "$S" >"$TMP/color.txt"
grep -q "$(printf '\033')\[[0-9;]*48;5;" "$TMP/color.txt"
ok $? "slices are drawn in 256 colours"
T send-keys -t "$S" q
wait_for "C1=0"
T send-keys -t "$S" "clear; NO_COLOR=1 '$TTRACE' '$EX'; echo C2=\$?" Enter
wait_for "time from start"
T capture-pane -e -p -t "$S" >"$TMP/nocolor.txt"
if grep -q "$(printf '\033')\[[0-9;]*\(3[0-7]\|4[0-7]\|38;5\|48;5\)[;m]" "$TMP/nocolor.txt"; then ok 1 "NO_COLOR: no colour codes"; else ok 0 "NO_COLOR: no colour codes"; fi
grep -q "$(printf '\033')\[[0-9;]*7m" "$TMP/nocolor.txt"
ok $? "NO_COLOR: attributes (reverse video) instead"
T send-keys -t "$S" q
wait_for "C2=0"

# A crash restores the terminal before the process dies.
T send-keys -t "$S" "clear; '$TTRACE' '$EX'; st=\$?; stty -g > $TMP/stty.segv; echo SEGV=\$st" Enter
wait_for "time from start"
pkill -SEGV -P "$(T display-message -p -t "$S" '#{pane_pid}')" -x ttrace 2>/dev/null ||
	pkill -SEGV -P "$(T display-message -p -t "$S" '#{pane_pid}')"
wait_for "SEGV=139"
ok $? "SIGSEGV: the process dies of it (status 139)"
sleep 0.2
cmp -s "$TMP/stty.before" "$TMP/stty.segv"
ok $? "the terminal modes are restored after a crash"

# A key map in the user's config directory is read: here z zooms in (AZERTY hands).
mkdir -p "$TMP/home/.config/ttrace"
printf '# AZERTY\nz zoom-in\n' >"$TMP/home/.config/ttrace/keys"
T send-keys -t "$S" "clear; HOME='$TMP/home' XDG_CONFIG_HOME= '$TTRACE' '$EX'; echo MAPEXIT=\$?" Enter
wait_for "time from start"
T send-keys -t "$S" z z z
wait_for "8.42 ms"
ok $? "a key map in ~/.config/ttrace/keys remaps z to zoom-in"
T send-keys -t "$S" q
wait_for "MAPEXIT=0"
ok $? "and q still quits"

# A trace that takes long to load (slowed by TTRACE_TEST_SLOW_LOAD) opens on a snapshot of
# what is read so far, says so in the header, keeps the keys alive, holds back what would be
# wrong on part of a trace (the gap list), then shows the whole trace; q while loading quits
# at once with the terminal restored (parsers/load.h snapshots, ui/loading.c).
# wait_gone TEXT: polls the pane until it no longer shows TEXT (60 s at most)
wait_gone() {
	i=0
	while [ $i -lt 600 ]; do
		T capture-pane -p -t "$S" 2>/dev/null | grep -q -F -- "$1" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	T capture-pane -p -t "$S" 2>/dev/null | sed 's/^/#   /' | head -40
	return 1
}
T send-keys -t "$S" "clear; TTRACE_TEST_SLOW_LOAD=900000 TTRACE_TEST_SNAPSHOTS=0,0.2,1,1 '$TTRACE' '$EX'; st=\$?; stty -g > $TMP/stty.live; echo LIVE=\$st" Enter
wait_for "LOADING"
ok $? "a slow load opens the timeline at once, marked LOADING in the header"
T send-keys -t "$S" o
wait_for "gap list view opens when the trace has loaded"
ok $? "while loading, the gap list waits for the whole trace (keys work during the load)"
T send-keys -t "$S" Escape w B
wait_for "bookmark name"
T send-keys -t "$S" Enter
wait_for 'bookmarked as "bookmark 1"' && T capture-pane -p -t "$S" | grep -q LOADING
ok $? "a bookmark made while loading"
wait_gone "LOADING"
ok $? "the LOADING mark goes when the whole trace is in"
T send-keys -t "$S" "'"
wait_for "bookmark 1"
ok $? "the bookmark is still there with the whole trace"
T send-keys -t "$S" Escape
T send-keys -t "$S" o
wait_for "13 gaps of 100 us or more"
ok $? "then the gap list opens on the whole trace's gaps"
T send-keys -t "$S" Escape q
wait_for "LIVE=0"
ok $? "q quits with status 0"
# quit_while_loading INPUT SHOWN WHAT: opens INPUT on a slowed load, types q once SHOWN is
# on the screen, and checks that the program ends within 10 s (the whole slowed load takes
# minutes) with the terminal restored.
quit_while_loading() {
	T send-keys -t "$S" "clear; TTRACE_TEST_SLOW_LOAD=5000000 TTRACE_TEST_SNAPSHOTS=0,0.2,1,1 '$TTRACE' '$1'; st=\$?; stty -g > $TMP/stty.quit; echo QUITLOAD=\$st" Enter
	wait_for "$2"
	T send-keys -t "$S" q
	wait_for "QUITLOAD=0" 100
	ok $? "q while $3 quits within 10 s (the load is given up)"
	sleep 0.2
	cmp -s "$TMP/stty.before" "$TMP/stty.quit"
	ok $? "the terminal modes are restored after quitting while $3"
	T send-keys -t "$S" "clear" Enter
	wait_gone "QUITLOAD=0"
}
quit_while_loading "$EX" "LOADING" "loading"

# Several files (a directory of ranks) that take long to load: the timeline opens on the
# first while the others load, says so, holds back the views, then shows every rank.
mkdir -p "$TMP/ranks"
for r in 0 1 2; do cp "$EX" "$TMP/ranks/rank$r.pt.trace.json.gz"; done
T resize-window -t "$S" -x 120 -y 35 2>/dev/null || T resize-pane -t "$S" -x 120 -y 35
T send-keys -t "$S" "clear; TTRACE_TEST_SLOW_LOAD=900000 TTRACE_TEST_SNAPSHOTS=0,0.2,1,1 '$TTRACE' '$TMP/ranks'; echo RANKS=\$?" Enter
wait_for "file 1 of 3 shown"
ok $? "a directory of ranks opens the timeline on the first file while the others load"
T send-keys -t "$S" o
wait_for "gap list view opens when every file has loaded"
ok $? "while they load, the views wait for every file"
T send-keys -t "$S" Escape
wait_gone "LOADING"
ok $? "the LOADING mark goes when every file is in"
wait_for "3 ranks  align: collective"
ok $? "then every rank is shown, aligned"
T send-keys -t "$S" q
wait_for "RANKS=0"
ok $? "q quits with status 0"
quit_while_loading "$TMP/ranks" "file 1 of 3 shown" "the ranks load"

# a terminal with no description anywhere: a message that names it and says what to do, not
# curses' "Error opening terminal", and the shell's terminal left as it was
T send-keys -t "$S" "clear; TERM=ttrace-no-such-term '$TTRACE' '$EX'; echo NOTERM=\$?" Enter
wait_for "NOTERM=1"
ok $? "TERM=ttrace-no-such-term: exit status 1"
wait_for 'ttrace: no description of the terminal "ttrace-no-such-term" (TERM) on this machine'
ok $? "... with a message that names the terminal and says what to do"
finish
