#!/bin/sh
# static.sh: the static binary that `./quickstart.sh static` links (static/ttrace-ARCH):
# nothing to load at run time, --version says what it is, its SHA-256 beside it, every
# report on the fixtures byte for byte the dynamic build's with an empty environment, and
# the timeline in tmux with no library path and with locales the machine cannot load (UTF-8
# still); the aarch64 binary under qemu, every report the same bytes. Skipped when the static
# binary was not built (CI builds it first, .ci/run, and then requires both).
. "$srcdir/tests/lib.sh"

ARCH=$(uname -m)
SB="$srcdir/static/ttrace-$ARCH"
if [ ! -x "$SB" ]; then
	if [ -n "${TTRACE_REQUIRE_STATIC:-}" ] && [ -d "$srcdir/.git" ]; then
		echo "not ok 1 - no $SB, which CI builds (./quickstart.sh static)"
		echo "1..1"
		exit 1
	fi
	skip_all "no $SB: ./quickstart.sh static builds it"
fi
out=$(ldd "$SB" 2>&1)
like "$out" "not a dynamic executable" "ldd finds no dynamic dependency"
out=$(env -i "$SB" --version)
like "$out" "build: static, for $ARCH-linux-gnu" "--version: a static build, its target"
like "$out" "libraries: ncurses " "--version: the libraries linked in"
if [ -f "$srcdir/static/libttrace-record-$ARCH.so" ]; then
	like "$out" "recorder: $(cd "$srcdir/static" && pwd -P)/libttrace-record-$ARCH.so" \
		"--version: the recorder library beside it, by its own name"
fi
(cd "$srcdir/static" && sha256sum -c --quiet "ttrace-$ARCH.sha256")
ok $? "its SHA-256 sum, beside it, checks"

# every report, text and JSON, on the fixtures: the same bytes as the dynamic build's (but
# the time the load took, which the summary says)
same() { # same A B: the files are the same but for the load times
	sed 's/loaded in [0-9.]* s/loaded in - s/' "$1" >"$1.m"
	sed 's/loaded in [0-9.]* s/loaded in - s/' "$2" >"$2.m"
	cmp -s "$1.m" "$2.m"
}
# The builds compared, each run with an empty environment
static_x86() { env -i "$SB" "$@"; }
dynamic() { "$TTRACE" "$@"; }
static_qemu() { env -i "$QEMU" "$SA" "$@"; }

# same_reports A B: runs every report, text and JSON, on the fixtures with the commands A
# and B; sets n (reports) and bad (those whose output, errors or status differ)
same_reports() {
	n=0
	bad=""
	for f in "$srcdir"/tests/fixtures/*.json "$srcdir"/tests/fixtures/overview/*.json \
		"$srcdir"/tests/fixtures/comm-stats/*.json "$srcdir"/tests/fixtures/crop/*.json; do
		for r in summary overview kernels operators gaps memory advice distributed; do
			for j in "" --json; do
				"$1" -q --report=$r $j "$f" >"$TMP/a.out" 2>"$TMP/a.err"
				a=$?
				"$2" -q --report=$r $j "$f" >"$TMP/b.out" 2>"$TMP/b.err"
				b=$?
				if [ $a != $b ] || ! same "$TMP/a.out" "$TMP/b.out" || ! cmp -s "$TMP/a.err" "$TMP/b.err"; then
					bad="$bad $(basename "$f"):$r$j"
				fi
				n=$((n + 1))
			done
		done
	done
}

# suite_passes TAP MIN DESCRIPTION: a test suite's output TAP (and its status in $st) passed
# whole, with more than MIN points; the first failures shown
suite_passes() {
	nok=$(grep -c '^not ok' "$1")
	nall=$(grep -c -E '^(ok|not ok)' "$1")
	[ "$st" = 0 ] && [ "$nok" = 0 ] && [ "$nall" -gt "$2" ]
	ok $? "$3: $((nall - nok)) of $nall pass"
	[ "$nok" = 0 ] || grep -A3 '^not ok' "$1" | head -20 | sed 's/^/#   /'
}

same_reports static_x86 dynamic
is "${bad:-none}" none "$n reports on the fixtures: byte for byte the dynamic build's (differing: ${bad:-none})"
env -i "$SB" --dump-screen --size=120x40 "$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz" >"$TMP/s.scr"
"$TTRACE" --dump-screen --size=120x40 "$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz" >"$TMP/d.scr"
cmp -s "$TMP/s.scr" "$TMP/d.scr"
ok $? "the example's screen dump: the same"

# the aarch64 binary (Grace nodes), run under qemu: every report the same bytes as the
# x86-64 binary's
SA="$srcdir/static/ttrace-aarch64"
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ "$ARCH" = x86_64 ] && { [ -x "$SA" ] || [ -n "${TTRACE_REQUIRE_STATIC:-}" ]; }; then
	[ -x "$SA" ] && [ -n "$QEMU" ]
	ok $? "the aarch64 binary is there, and qemu to run it"
	out=$(env -i "$QEMU" "$SA" --version 2>&1)
	like "$out" "build: static, for aarch64-linux-gnu" "aarch64 --version: a static build for aarch64"
	(cd "$srcdir/static" && sha256sum -c --quiet ttrace-aarch64.sha256)
	ok $? "its SHA-256 sum checks"
	same_reports static_qemu static_x86
	is "${bad:-none}" none "$n reports on the fixtures from aarch64 under qemu: byte for byte x86-64's (differing: ${bad:-none})"
	env -i "$QEMU" "$SA" --dump-screen --size=120x40 "$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz" >"$TMP/a.scr"
	cmp -s "$TMP/a.scr" "$TMP/s.scr"
	ok $? "aarch64: the example's screen dump, the same"
fi

# the recorder library for each architecture (static/libttrace-record-ARCH.so, built where
# configure found CUPTI's headers): nothing dynamic but glibc, glibc 2.17's symbol versions
# at most (RHEL 8 has 2.28), one symbol exported; tests/record.sh whole with it in place of
# the build's (x86-64 natively, aarch64 under qemu with a stand-in CUDA program and CUPTI
# cross-compiled here); and the static ttrace records with the one beside it
CUPTI_CFLAGS=$(sed -n 's/^CUPTI_CFLAGS = //p' "$builddir/Makefile" 2>/dev/null)
for arch in x86_64 aarch64; do
	L="$srcdir/static/libttrace-record-$arch.so"
	if [ ! -f "$L" ]; then
		if [ -n "${TTRACE_REQUIRE_STATIC:-}" ] && [ "${TTRACE_REQUIRE_RECORDER:-0}" = 1 ] && [ "$ARCH" = x86_64 ]; then
			ok 1 "static/libttrace-record-$arch.so was built (CI requires it)"
		fi
		continue
	fi
	needed=$(readelf -d "$L" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
	case $arch in
	x86_64) want="libc.so.6 libdl.so.2 libpthread.so.0 " ;;
	aarch64) want="ld-linux-aarch64.so.1 libc.so.6 libdl.so.2 libpthread.so.0 " ;;
	esac
	is "$needed" "$want" "$arch recorder: loads nothing but glibc's libraries (zstd linked in)"
	newest=$(objdump -T "$L" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n 1)
	is "$newest" GLIBC_2.17 "$arch recorder: the newest glibc symbol version it needs is 2.17"
	is "$(objdump -T "$L" | awk '$2 == "g" && $4 != "*UND*" { print $NF }' | tr '\n' ' ')" "InitializeInjection " \
		"$arch recorder: exports InitializeInjection alone"
	(cd "$srcdir/static" && sha256sum -c --quiet "libttrace-record-$arch.so.sha256")
	ok $? "$arch recorder: its SHA-256 sum checks"
done
L="$srcdir/static/libttrace-record-$ARCH.so"
if [ -f "$L" ] && [ -x "${RECORD_DRIVER:-}" ] && [ -f "${FAKE_CUPTI:-}" ]; then
	RECORD_LIB="$L" sh "$srcdir/tests/record.sh" >"$TMP/rec.tap" 2>&1
	st=$?
	suite_passes "$TMP/rec.tap" 100 "tests/record.sh with static/libttrace-record-$ARCH.so"
	env -i TTRACE_CUPTI_LIB="$FAKE_CUPTI" "$SB" record -o "$TMP/r.json" -- "$RECORD_DRIVER" basic >/dev/null 2>"$TMP/r.err"
	is "$?:$("$TTRACE" --report=summary --json "$TMP/r.json" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["files"][0]["status"])' 2>&1)" \
		"0:ok" "the static ttrace records (env -i), with the recorder library beside it"
fi
L="$srcdir/static/libttrace-record-aarch64.so"
if [ "$ARCH" = x86_64 ] && [ -f "$L" ] && [ -n "$QEMU" ] && [ -n "$CUPTI_CFLAGS" ] && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	[ -e /lib/ld-linux-aarch64.so.1 ]; then
	# Debian's arm64 glibc (libc6:arm64, multiarch), not the cross compiler's copy: qemu's -L
	# with that one mixes two builds of glibc and hangs in pthread_create
	mkdir -p "$TMP/a64"
	# CUPTI's directory after the target's own headers: it may be the host's /usr/include
	CUPTI_CFLAGS=$(echo "$CUPTI_CFLAGS" | sed 's/-I/-idirafter /g')
	aarch64-linux-gnu-gcc -O2 -std=c11 -D_GNU_SOURCE -pthread -I"$srcdir" -I"$srcdir/static/work/build-aarch64" $CUPTI_CFLAGS \
		-fPIC -shared -Wl,-soname,libcupti.so -o "$TMP/a64/libfakecupti.so" "$srcdir/tests/record/fake_cupti.c" &&
		aarch64-linux-gnu-gcc -O2 -std=c11 -D_GNU_SOURCE -pthread -I"$srcdir" -I"$srcdir/static/work/build-aarch64" $CUPTI_CFLAGS \
			-o "$TMP/a64/driver" "$srcdir/tests/record/driver.c" -ldl
	ok $? "aarch64: the stand-in CUDA program and CUPTI cross-compile"
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$QEMU" "$TMP/a64/driver" >"$TMP/a64/run-driver"
	chmod +x "$TMP/a64/run-driver"
	RECORD_LIB="$L" FAKE_CUPTI="$TMP/a64/libfakecupti.so" RECORD_DRIVER="$TMP/a64/run-driver" \
		sh "$srcdir/tests/record.sh" >"$TMP/rec64.tap" 2>&1
	st=$?
	suite_passes "$TMP/rec64.tap" 100 "tests/record.sh with static/libttrace-record-aarch64.so under qemu"
elif [ -f "$L" ] && [ -n "${TTRACE_REQUIRE_STATIC:-}" ]; then
	ok 1 "the aarch64 recorder run under qemu (needs qemu, aarch64-linux-gnu-gcc, CUPTI's headers, libc6:arm64)"
fi

# the screen tests (every key through the headless timeline, against their goldens) and the
# tmux tests (the terminal, its restoring, signals) with the static binary in place of the
# dynamic one
for t in screen tmux; do
	TTRACE="$SB" sh "$srcdir/tests/$t.sh" >"$TMP/$t.tap" 2>&1
	st=$?
	suite_passes "$TMP/$t.tap" 0 "tests/$t.sh with the static binary"
done

# the timeline in a terminal, with an empty environment but TERM and a locale: one the C
# library has (C.UTF-8), one this machine lacks but that says UTF-8, and plain C (ASCII)
if command -v tmux >/dev/null 2>&1; then
	tmux_begin
	n=0
	for loc in C.UTF-8 xx_YY.UTF-8 C; do
		# a server of its own each: a new session on a server still going away can fail
		n=$((n + 1))
		SOCK="$TMP/tmux-$n.sock"
		T -f /dev/null new-session -d -s "$S" -x 100 -y 30 \
			"env -i TERM=xterm-256color LANG=$loc '$SB' '$srcdir/tests/fixtures/overview/gpu-timeline.json'"
		wait_for "time from start"
		ok $? "LANG=$loc: the static binary's timeline opens (env -i)"
		if [ $loc = C ]; then
			wait_for "- GPU 0 (2)"
			ok $? "LANG=C: ASCII glyphs"
		else
			wait_for "▾ GPU 0 (2)"
			ok $? "LANG=$loc: UTF-8 glyphs"
		fi
		T send-keys -t "$S" q
		T kill-server 2>/dev/null
	done

	# terminal descriptions (issue 36): the machine's own first (TERMINFO honoured: a
	# description under a name nothing else knows), then those built in, which must do with
	# every terminfo directory of this machine hidden (a mount namespace: root only); a
	# terminal described nowhere gets a message that says what to do
	like "$(env -i "$SB" --version)" "else built in: xterm-256color,xterm,screen,screen-256color,tmux,tmux-256color,linux,vt100" \
		"--version names the terminals built in"
	if command -v tic >/dev/null 2>&1 && command -v infocmp >/dev/null 2>&1; then
		mkdir -p "$TMP/ti"
		infocmp -x xterm-256color | sed 's/^xterm-256color|[^,]*,/ttrace-test-term|a terminal only TERMINFO knows,/' >"$TMP/tt.src"
		tic -x -o "$TMP/ti" "$TMP/tt.src" 2>/dev/null
		n=$((n + 1))
		SOCK="$TMP/tmux-$n.sock"
		T -f /dev/null new-session -d -s "$S" -x 100 -y 30 \
			"env -i TERM=ttrace-test-term TERMINFO='$TMP/ti' LANG=C.UTF-8 '$SB' '$srcdir/tests/fixtures/overview/gpu-timeline.json'"
		wait_for "time from start"
		ok $? "TERM=ttrace-test-term, described in TERMINFO only: the timeline opens"
		T send-keys -t "$S" q
		T kill-server 2>/dev/null
	fi
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		{
			echo 'for d in /etc/terminfo /lib/terminfo /usr/share/terminfo /usr/lib/terminfo; do'
			echo '	[ -d "$d" ] && mount -t tmpfs ttrace-test "$d"'
			echo 'done'
			echo 'term=$1'
			echo 'shift'
			echo 'env -i TERM="$term" HOME=/nonexistent LANG=C.UTF-8 "$@"'
			echo 'echo "exit status $?"'
			echo 'sleep 30'
		} >"$TMP/hide.sh"
		for term in tmux-256color screen linux foot; do
			n=$((n + 1))
			SOCK="$TMP/tmux-$n.sock"
			T -f /dev/null new-session -d -s "$S" -x 160 -y 30 \
				"unshare -m sh '$TMP/hide.sh' $term '$SB' '$srcdir/tests/fixtures/overview/gpu-timeline.json'"
			if [ $term = foot ]; then
				wait_for "exit status 1"
				ok $? "TERM=foot, described nowhere: exit status 1 ..."
				wait_for 'no description of the terminal "foot" (TERM) on this machine and none built in'
				ok $? "... and a message that says what to do"
			else
				wait_for "time from start"
				ok $? "TERM=$term with every terminfo directory hidden: the timeline opens (built in)"
				T send-keys -t "$S" q
				wait_for "exit status 0"
				ok $? "TERM=$term: q quits, exit status 0"
			fi
			T kill-server 2>/dev/null
		done
		# no locale files at all (a node's glibc may keep them where this one does not look):
		# LANG=C.UTF-8 cannot be loaded, the C library has no UTF-8 without them, so the
		# timeline draws in ASCII (readable, never mojibake)
		{
			echo 'for d in /usr/lib/locale /usr/share/locale /usr/share/i18n; do'
			echo '	[ -d "$d" ] && mount -t tmpfs ttrace-test "$d"'
			echo 'done'
			echo 'env -i TERM=xterm-256color LANG=C.UTF-8 "$@"'
			echo 'echo "exit status $?"'
			echo 'sleep 30'
		} >"$TMP/nolocale.sh"
		n=$((n + 1))
		SOCK="$TMP/tmux-$n.sock"
		T -f /dev/null new-session -d -s "$S" -x 160 -y 30 \
			"unshare -m sh '$TMP/nolocale.sh' '$SB' '$srcdir/tests/fixtures/overview/gpu-timeline.json'"
		wait_for "- GPU 0 (2)"
		ok $? "no locale files, LANG=C.UTF-8: the timeline opens in ASCII glyphs"
		T send-keys -t "$S" q
		wait_for "exit status 0"
		ok $? "... and q quits, exit status 0"
		T kill-server 2>/dev/null
		# the same binary with the database hidden but the terminal not built in shows the
		# hiding works: the dynamic build, whose ncurses has no fallbacks, fails there
		n=$((n + 1))
		SOCK="$TMP/tmux-$n.sock"
		T -f /dev/null new-session -d -s "$S" -x 160 -y 30 \
			"unshare -m sh '$TMP/hide.sh' tmux-256color '$TTRACE' '$srcdir/tests/fixtures/overview/gpu-timeline.json'"
		wait_for "exit status 1"
		ok $? "the check is real: the dynamic build, with no fallbacks, cannot open tmux-256color there"
		T kill-server 2>/dev/null
	else
		ok 0 "no mount namespace here (root and unshare -m): the built-in descriptions not tried with terminfo hidden # SKIP"
	fi
fi
finish
