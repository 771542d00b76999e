#!/bin/sh
# record_cmd.sh: `ttrace record` without a GPU: the environment it gives the command, exit
# statuses and signals, output paths, and the summary of the files named in the manifest.
# Stand-in commands play the recorder's part (they append trace paths to the manifest);
# TTRACE_RECORD_FORCE=1 with TTRACE_RECORD_LIB lets a build without CUPTI run all this.
. "$srcdir/tests/lib.sh"
FX="$srcdir/tests/fixtures/overview-gpu.json" # 6 kernels, 1 memcpy, 2 GPUs, 3 streams
ESC=$(printf '\033')

run record --help
is "$rc" 0 "record --help exits 0"
like "$out" "--output=DIR|FILE" "and lists -o"
run --help
like "$out" "ttrace record [OPTIONS] -- CMD" "the top-level help names the subcommand"

# A build without CUPTI explains itself and runs nothing.
if ! grep -q '^#define HAVE_CUPTI' "$builddir/config.h"; then
	env -u TTRACE_RECORD_FORCE "$TTRACE" record -- sh -c 'touch "$1"' sh "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	is "$?" 2 "without CUPTI: exit 2"
	like "$(cat "$TMP/err")" "built without CUPTI" "and says why"
	like "$(cat "$TMP/err")" "apt-get install libcupti-dev nvidia-cuda-dev" "and how to get it"
	like "$(cat "$TMP/err")" "--with-cupti=/usr/local/cuda" "or from a toolkit"
	[ ! -e "$TMP/ran" ]
	ok $? "without CUPTI: the command is not run"
fi

TTRACE_RECORD_FORCE=1
TTRACE_RECORD_LIB="$TMP/lib/fake-record.so"
TTRACE_CUPTI_LIB="$TMP/lib/fake-cupti.so"
export TTRACE_RECORD_FORCE TTRACE_RECORD_LIB TTRACE_CUPTI_LIB
mkdir "$TMP/lib" "$TMP/work"
: >"$TMP/lib/fake-record.so"
cd "$TMP/work" || exit 1

# Exit statuses.
run record -- /bin/true
is "$rc" 0 "/bin/true: exit 0"
like "$err" "ttrace record: no CUDA context was seen: /bin/true did not initialise CUDA" "and no CUDA context was seen"
run record -- sh -c 'exit 3'
is "$rc" 3 "the command's exit status is ttrace's"
like "$err" "no CUDA context was seen" "still says no CUDA context was seen"
run record -- sh -c 'kill -TERM $$'
is "$rc" 143 "killed by SIGTERM: 128+15"
like "$err" "sh was killed by SIGTERM (signal 15" "and names the signal"
run record -- "$TMP/no-such-command"
is "$rc" 127 "a missing command: 127"
like "$err" "ttrace record: cannot run $TMP/no-such-command: No such file or directory" "with a message"
unlike "$err" "CUDA context" "and no summary"
run record -- no-such-command-on-path-$$
is "$rc" 127 "a command not on PATH: 127"
: >"$TMP/not-executable"
run record -- "$TMP/not-executable"
is "$rc" 126 "a file that cannot be run: 126"

# Usage errors.
run record
is "$rc" 2 "no command: usage error"
like "$err" "no command given" "and says so"
run record --
is "$rc" 2 "nothing after --: usage error"
run record -o
is "$rc" 2 "-o without a value: usage error"
like "$err" "option '-o' needs a value" "and says which"
run record --frob -- /bin/true
is "$rc" 2 "unknown option: usage error"
like "$err" "unknown or ambiguous option '--frob'" "and names it"
run record --delay=soon -- /bin/true
is "$rc" 2 "--delay wants seconds"
run record --duration=0 -- /bin/true
is "$rc" 2 "--duration wants more than 0"
run record --delay=1e3 -- /bin/true
is "$rc" 2 "--delay wants plain decimal seconds"
# Seconds are decimal digits with at most one '.', whole, at most 31536000 (365 days): a
# value past that was passed on and ignored by the recorder, which then recorded at once.
for v in 99999999999 31536001 31536000.5 31536000.0000000001 nan inf -1 ' 1' '1 ' 1x +1 0x10 . '' 1.2.3; do
	run record --delay="$v" -- sh -c 'touch "$1"' sh "$TMP/ran"
	is "$rc" 2 "--delay='$v' is refused"
done
[ ! -e "$TMP/ran" ]
ok $? "and the command is not run"
rm -f "$TMP/ran"
run record --delay=99999999999 -- /bin/true
like "$err" "--delay wants decimal seconds, such as 10 or 2.5, at most 31536000 (365 days) (got '99999999999')" \
	"the message names the value and the largest"
for v in 0 0.0 0.0000000001 99999999999 31536000.001 nan; do
	run record --duration="$v" -- /bin/true
	is "$rc" 2 "--duration='$v' is refused"
done
like "$err" "--duration wants decimal seconds, such as 10 or 2.5, more than 0, at most 31536000 (365 days) (got 'nan')" \
	"--duration: the message names the value"
run record --delay="$(printf '1\033]0;x\007')" -- /bin/true
like "$err" "(got '1\\x1b]0;x\\x07')" "a hostile --delay value is named escaped"
case "$err" in *"$ESC"*) ok 1 "no ESC byte on stderr" ;; *) ok 0 "no ESC byte on stderr" ;; esac
run record --delay=31536000 --duration=31536000.000 -- sh -c 'echo "$TTRACE_RECORD_DELAY $TTRACE_RECORD_DURATION"'
is "$rc" 0 "the largest --delay and --duration are taken"
is "$out" "31536000 31536000.000" "and passed on as given"
run record --delay=0 --duration=0.000000001 -- sh -c 'echo "$TTRACE_RECORD_DELAY $TTRACE_RECORD_DURATION"'
is "$out" "0 0.000000001" "--delay=0 and a nanosecond --duration are taken"
run record --delay=.5 --duration=10. -- sh -c 'echo "$TTRACE_RECORD_DELAY $TTRACE_RECORD_DURATION"'
is "$out" ".5 10." "so are .5 and 10."

# The environment the recorder reads.
TTRACE_RECORD_DELAY=9 "$TTRACE" record -o out/ --delay 1.5 --duration=2 --no-api -- sh -c 'env >"$1"' sh "$TMP/env1" 2>"$TMP/err"
is "$?" 0 "recording with options exits 0"
e=$(cat "$TMP/env1")
like "$e" "CUDA_INJECTION64_PATH=$TMP/lib/fake-record.so
" "CUDA_INJECTION64_PATH is the library"
like "$e" "NVTX_INJECTION64_PATH=$TMP/lib/fake-cupti.so
" "NVTX_INJECTION64_PATH is libcupti"
like "$e" "TTRACE_CUPTI_LIB=$TMP/lib/fake-cupti.so
" "TTRACE_CUPTI_LIB is passed through"
like "$e" "TTRACE_RECORD_OUT=$TMP/work/out
" "TTRACE_RECORD_OUT is the directory, absolute"
[ -d "$TMP/work/out" ]
ok $? "a directory ending in / is created"
like "$e" "TTRACE_RECORD_DELAY=1.5
" "--delay"
like "$e" "TTRACE_RECORD_DURATION=2
" "--duration"
like "$e" "TTRACE_RECORD_NO_API=1
" "--no-api"
unlike "$e" "TTRACE_RECORD_NO_NVTX" "NVTX on"
manifest=$(printf '%s\n' "$e" | sed -n 's/^TTRACE_RECORD_MANIFEST=//p')
case "$manifest" in /*) ok 0 "TTRACE_RECORD_MANIFEST is an absolute path" ;; *) ok 1 "TTRACE_RECORD_MANIFEST is an absolute path ($manifest)" ;; esac
[ ! -e "$manifest" ]
ok $? "the manifest is removed afterwards"

TTRACE_RECORD_DELAY=9 TTRACE_RECORD_NO_API=1 "$TTRACE" record --no-nvtx -- sh -c 'env >"$1"; grep -q . "$TTRACE_RECORD_MANIFEST" && echo notempty >>"$1"' sh "$TMP/env2" 2>"$TMP/err"
e=$(cat "$TMP/env2")
unlike "$e" "NVTX_INJECTION64_PATH" "--no-nvtx: no NVTX_INJECTION64_PATH"
like "$e" "TTRACE_RECORD_NO_NVTX=1
" "--no-nvtx: TTRACE_RECORD_NO_NVTX=1"
unlike "$e" "TTRACE_RECORD_DELAY" "a delay from the environment is not passed on without --delay"
unlike "$e" "TTRACE_RECORD_NO_API" "nor --no-api"
like "$e" "TTRACE_RECORD_OUT=$TMP/work
" "the default output is the current directory"
unlike "$e" "notempty" "the manifest starts empty"

mkdir "$TMP/work/sub"
(cd "$TMP/work/sub" && TTRACE_RECORD_LIB=../../lib/fake-record.so "$TTRACE" record -o t.json -- sh -c 'env >"$1"' sh "$TMP/env3" 2>"$TMP/err")
e=$(cat "$TMP/env3")
like "$e" "CUDA_INJECTION64_PATH=$TMP/lib/fake-record.so
" "a relative TTRACE_RECORD_LIB is made absolute"
like "$e" "TTRACE_RECORD_OUT=$TMP/work/sub/t.json
" "-o FILE: absolute"
CUDA_INJECTION64_PATH=/opt/other-tool.so "$TTRACE" record -- sh -c 'echo "$CUDA_INJECTION64_PATH"' >"$TMP/inj" 2>"$TMP/err"
is "$(cat "$TMP/inj")" "$TMP/lib/fake-record.so" "another CUDA_INJECTION64_PATH is replaced"
like "$(cat "$TMP/err")" "warning: replacing CUDA_INJECTION64_PATH=/opt/other-tool.so" "with a warning"
TTRACE_RECORD_LIB="$TMP/lib/none.so" "$TTRACE" record -- /bin/true 2>"$TMP/err"
is "$?" 2 "a missing TTRACE_RECORD_LIB is an error"
like "$(cat "$TMP/err")" "TTRACE_RECORD_LIB names $TMP/lib/none.so" "and says so"

# An existing -o FILE.
echo old >"$TMP/work/t.json"
run record -o t.json -- sh -c 'touch "$1"' sh "$TMP/ran"
is "$rc" 2 "an existing -o FILE is refused"
like "$err" "t.json exists (-f overwrites it)" "and says why"
[ ! -e "$TMP/ran" ]
ok $? "the command is not run"
is "$(cat "$TMP/work/t.json")" old "the file is kept"
run record -f -o t.json -- sh -c '[ ! -e "$TTRACE_RECORD_OUT" ]'
is "$rc" 0 "-f: the file is removed before the run"
run record -o "$TMP/nodir/t.json" -- /bin/true
is "$rc" 2 "-o FILE in a missing directory is refused"

# What -o names is never replaced but by a regular file: a FIFO or a character device is
# written into with -f, and kept; a symbolic link, a socket, a block device are refused.
mkfifo "$TMP/work/fifo"
run record -o fifo -- sh -c 'touch "$1"' sh "$TMP/ran"
is "$rc" 2 "-o an existing FIFO without -f is refused"
like "$err" "fifo exists and is a FIFO (-f writes into it)" "and says what it is"
[ -p "$TMP/work/fifo" ] && [ ! -e "$TMP/ran" ]
ok $? "the FIFO is kept and the command not run"
timeout 20 cat "$TMP/work/fifo" >"$TMP/fifo.got" &
reader=$!
run record -f -o fifo -- sh -c '[ -p "$TTRACE_RECORD_OUT" ] && [ "$TTRACE_RECORD_OUT_ID" = "$1" ] &&
	echo "$TTRACE_RECORD_OUT" >>"$TTRACE_RECORD_MANIFEST" && printf "trace data" >"$TTRACE_RECORD_OUT"' sh "$(stat -c %d:%i fifo)"
[ -p "$TMP/work/fifo" ] || kill "$reader" 2>/dev/null
wait "$reader"
is "$rc" 0 "-f -o FIFO: the command gets the FIFO itself, TTRACE_RECORD_OUT_ID its device and inode"
[ -p "$TMP/work/fifo" ]
ok $? "-f -o FIFO: still a FIFO afterwards"
is "$(cat "$TMP/fifo.got")" "trace data" "-f -o FIFO: its reader gets what was written into it"
like "$err" "ttrace record: wrote into $TMP/work/fifo (a FIFO): not read back" "-f -o FIFO: said, and not read back (that would wait)"
unlike "$err" "cannot open" "-f -o FIFO: no loader message"

run record -o /dev/null -- /bin/true
is "$rc" 2 "-o /dev/null without -f is refused"
like "$err" "/dev/null exists and is a character device (-f writes into it)" "and says what it is"
# -f -o a character device: written into, never removed (run as root, the old code removed
# /dev/null). As root, on a device node of our own, so that the test cannot harm /dev/null.
if [ "$(id -u)" = 0 ]; then
	dev="$TMP/work/null"
	mknod "$dev" c 1 3 2>/dev/null && echo probe >"$dev" 2>/dev/null || dev=""
else
	dev=/dev/null
fi
if [ -n "$dev" ]; then
	run record -f -o "$dev" -- sh -c '[ -c "$TTRACE_RECORD_OUT" ] && echo data >"$TTRACE_RECORD_OUT" && echo "$TTRACE_RECORD_OUT" >>"$TTRACE_RECORD_MANIFEST"'
	is "$rc" 0 "-f -o a character device: written into"
	[ -c "$dev" ]
	ok $? "-f -o a character device: still one afterwards"
	like "$err" "wrote into $dev (a character device): not read back" "-f -o a character device: not read back"
else
	ok 0 "# SKIP no character device of our own to write into"
	ok 0 "# SKIP"
	ok 0 "# SKIP"
fi
if [ "$(id -u)" = 0 ] && mknod "$TMP/work/blk" b 7 0 2>/dev/null; then
	run record -f -o blk -- /bin/true
	is "$rc" 2 "-f -o a block device: refused"
	like "$err" "blk is a block device: -o names a directory, a file, a FIFO or a character device" "and says why"
	[ -b "$TMP/work/blk" ]
	ok $? "-f -o a block device: kept"
fi
if command -v python3 >/dev/null 2>&1 &&
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/work/sock" 2>/dev/null; then
	run record -f -o sock -- /bin/true
	is "$rc" 2 "-f -o a socket: refused"
	like "$err" "sock is a socket: -o names" "and says why"
	[ -S "$TMP/work/sock" ]
	ok $? "-f -o a socket: kept"
fi

echo kept >"$TMP/work/target"
ln -s target "$TMP/work/link"
run record -o link -- sh -c 'touch "$1"' sh "$TMP/ran"
is "$rc" 2 "-o a symbolic link is refused"
like "$err" "link is a symbolic link: ttrace record does not write through one (name the file itself)" "and says why"
run record -f -o link -- sh -c 'touch "$1"; echo x >"$TTRACE_RECORD_OUT"' sh "$TMP/ran"
is "$rc" 2 "-f -o a symbolic link is refused as well"
[ -L "$TMP/work/link" ] && [ ! -e "$TMP/ran" ]
ok $? "the link is kept and the command not run"
is "$(cat "$TMP/work/target")" kept "the link's target is untouched"
ln -s "$TMP/work/planted" "$TMP/work/dangling"
run record -f -o dangling -- sh -c 'echo x >"$TTRACE_RECORD_OUT"'
is "$rc" 2 "-f -o a dangling symbolic link is refused"
[ -L "$TMP/work/dangling" ] && [ ! -e "$TMP/work/planted" ]
ok $? "and nothing is created where it points"
ln -s out "$TMP/work/outlink"
run record -o outlink -- sh -c 'echo "$TTRACE_RECORD_OUT"'
is "$out" "$TMP/work/out" "-o a symbolic link to a directory: the directory, resolved"

# The manifest: a stand-in recorder writes a trace and appends its path.
cp "$FX" "$TMP/work/out/host.11.pt.trace.json"
run record -o out -- sh -c 'echo "$TTRACE_RECORD_OUT/host.11.pt.trace.json" >>"$TTRACE_RECORD_MANIFEST"; exit 4'
is "$rc" 4 "a recorded run keeps the command's status"
like "$err" "ttrace record: wrote $TMP/work/out/host.11.pt.trace.json: 6 kernels, 1 memcpy, 0 memsets, 2 GPUs, 3 streams, span " "the summary line counts kernels, copies, GPUs, streams"
like "$err" " events" "and events"
unlike "$err" "no CUDA context" "no 'no CUDA context' when a file was written"

cp "$FX" "$TMP/work/out/host.12.pt.trace.json"
run record -o out -- sh -c 'for p in 11 12 11; do (echo "$TTRACE_RECORD_OUT/host.$p.pt.trace.json" >>"$TTRACE_RECORD_MANIFEST"); done; echo "$TTRACE_RECORD_OUT/gone.json" >>"$TTRACE_RECORD_MANIFEST"'
is "$(printf '%s\n' "$err" | grep -c 'ttrace record: wrote ')" 2 "several processes: one line per file, a repeated line once"
like "$err" "cannot open $TMP/work/out/gone.json" "a file that cannot be read: the loader's message"

# A process killed mid-write leaves a cut file: what it holds is summarised, the cut said.
head -c 1700 "$FX" >"$TMP/work/out/cut.json"
run record -o out -- sh -c 'echo "$TTRACE_RECORD_OUT/cut.json" >>"$TTRACE_RECORD_MANIFEST"'
like "$err" "wrote $TMP/work/out/cut.json: " "a cut file is summarised"
like "$err" "(cut short: " "and the cut is said"

H=$(printf 'evil\033]0;pwned\007\033[31m.json')
cp "$FX" "$TMP/work/out/$H"
run record -o out -- sh -c 'printf "%s\n" "$TTRACE_RECORD_OUT/$1" >>"$TTRACE_RECORD_MANIFEST"' sh "$H"
like "$err" 'wrote '"$TMP"'/work/out/evil\x1b]0;pwned\x07\x1b[31m.json: 6 kernels' "a hostile file name is shown escaped"
case "$err" in *"$ESC"*) ok 1 "no ESC byte on stderr" ;; *) ok 0 "no ESC byte on stderr" ;; esac

# --open: the files go to ttrace as on its command line; off a terminal that prints the
# summary report (the timeline itself is the tmux test's business).
run record --open -o out -- sh -c 'echo "$TTRACE_RECORD_OUT/host.11.pt.trace.json" >>"$TTRACE_RECORD_MANIFEST"'
is "$rc" 0 "--open exits 0"
like "$out" "== $TMP/work/out/host.11.pt.trace.json" "--open: ttrace opens the file written"
like "$out" "volta_h884gemm_64x64_nn" "--open: with its kernels"
run record --open -- /bin/true
like "$err" "nothing to open" "--open without a file says so"
is "$out" "" "and opens nothing"

# The real recorder (a build with CUPTI) under the stand-in CUPTI and CUDA program of
# tests/record.sh: the whole path from this command through the library to the summary.
if [ -f "${RECORD_LIB:-}" ] && [ -f "${FAKE_CUPTI:-}" ] && [ -x "${RECORD_DRIVER:-}" ]; then
	mkdir "$TMP/e2e"
	E2E=$(cd "$TMP/e2e" && pwd -P)
	rec() { # rec ARGS...: ttrace record with the real library and the stand-in CUPTI
		TTRACE_RECORD_LIB="$RECORD_LIB" TTRACE_CUPTI_LIB="$FAKE_CUPTI" "$TTRACE" record "$@" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		out=$(cat "$TMP/out")
		err=$(cat "$TMP/err")
	}
	rec -o "$E2E/basic/" -- "$RECORD_DRIVER" basic 5
	is "$rc" 0 "recorder: the program's status"
	f=$(ls "$E2E/basic")
	case "$f" in *.pt.trace.json.zst) ok 0 "recorder: one file, HOST.PID.pt.trace.json.zst" ;; *) ok 1 "recorder: one file, HOST.PID.pt.trace.json.zst ($f)" ;; esac
	# basic 5: five launches on stream 7 and a driver-API launch on stream 13, a copy, a memset
	like "$err" "ttrace record: wrote $E2E/basic/$f: 6 kernels, 1 memcpy, 1 memset, 1 GPU, 2 streams, span " "recorder: the summary of what the program did"
	rec -o "$E2E/two.json" -- "$RECORD_DRIVER" two
	like "$err" "wrote $E2E/two.json: 2 kernels, 0 memcpys, 0 memsets, 2 GPUs, 2 streams" "recorder: -o FILE.json, two GPUs"
	is "$(head -c 1 "$E2E/two.json")" "{" "recorder: a .json name is plain JSON"
	rec -o "$E2E/sig/" -- "$RECORD_DRIVER" signal
	is "$rc" 143 "recorder: a program killed by SIGTERM gives 143"
	like "$err" "killed by SIGTERM" "recorder: and the signal is named"
	like "$err" "wrote $E2E/sig/" "recorder: its file is still summarised"
	rec -o "$E2E/none/" -- "$RECORD_DRIVER" nocontext
	like "$err" "no CUDA context was seen" "recorder: a program with no context writes nothing, and that is said"
	rec --open -o "$E2E/open/" -- "$RECORD_DRIVER" basic
	like "$out" "== $E2E/open/" "recorder: --open opens the file written"
	# -f -o FIFO: the recorder writes the trace into it, which stays a FIFO
	mkfifo "$E2E/fifo"
	timeout 20 cat "$E2E/fifo" >"$E2E/fifo.got" &
	reader=$!
	rec -f -o "$E2E/fifo" -- "$RECORD_DRIVER" basic 5
	[ -p "$E2E/fifo" ] || kill "$reader" 2>/dev/null
	wait "$reader"
	is "$rc" 0 "recorder: -f -o FIFO: the program's status"
	[ -p "$E2E/fifo" ]
	ok $? "recorder: -f -o FIFO: still a FIFO"
	like "$err" "wrote into $E2E/fifo (a FIFO): not read back" "recorder: -f -o FIFO: the manifest names it"
	is "$("$TTRACE" --report=summary --json "$E2E/fifo.got" 2>/dev/null | "$JSONQ" files.0.status files.0.codec files.0.tracks.#)" "ok
zstd
3" "recorder: -f -o FIFO: the reader gets the whole trace, compressed"
	is "$(ls "$E2E" | grep -c '^fifo\.[0-9]')" 0 "recorder: -f -o FIFO: no file beside it"
fi

# Signals: SIGTERM and SIGHUP go on to the command; SIGINT and SIGQUIT are left to it. A
# command started with & from a script ignores SIGINT and SIGQUIT from the start, so ttrace
# is started with them at their defaults where env can do it (coreutils 8.31 on). The
# commands give up after 10 s, so that a signal that is not passed on fails, not hangs.
DFL=""
if env --default-signal=INT,QUIT true 2>/dev/null; then
	DFL="env --default-signal=INT,QUIT"
fi
$DFL sh -c 'grep "^SigIgn" /proc/$$/status' >"$TMP/sigign.direct"
$DFL "$TTRACE" record -- sh -c 'grep "^SigIgn" /proc/$$/status' >"$TMP/sigign.record" 2>/dev/null
is "$(cat "$TMP/sigign.record")" "$(cat "$TMP/sigign.direct")" "the command ignores the signals it would ignore without ttrace"
$DFL "$TTRACE" record -- sh -c 'trap "echo TERM >\"\$1\"; exit 7" TERM; : >"$1.ready"; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; exit 9' sh "$TMP/term" 2>"$TMP/err" &
pid=$!
i=0
while [ ! -e "$TMP/term.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$pid"
wait "$pid"
is "$?" 7 "SIGTERM to ttrace reaches the command, whose status is ttrace's"
is "$(cat "$TMP/term" 2>/dev/null)" TERM "the command saw SIGTERM"
$DFL "$TTRACE" record -- sh -c 'trap "" HUP; : >"$1.ready"; i=0; while [ ! -e "$1.stop" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; exit 5' sh "$TMP/int" 2>"$TMP/err" &
pid=$!
i=0
while [ ! -e "$TMP/int.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
if [ -n "$DFL" ]; then
	is "$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$pid/status | cut -c16)" 6 "ttrace record ignores SIGINT and SIGQUIT while the command runs"
fi
kill -INT "$pid"
kill -QUIT "$pid"
kill -HUP "$pid"
sleep 0.2
kill -0 "$pid" 2>/dev/null
ok $? "SIGINT, SIGQUIT and SIGHUP (which the command ignores) do not end ttrace record"
: >"$TMP/int.stop"
wait "$pid"
is "$?" 5 "it waits for the command and gives its status"

finish
