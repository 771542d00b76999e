#!/bin/sh
# cache_trust.sh: what ttrace trusts of the cache directory (parsers/cache_dir.h, SECURITY in
# ttrace(1)). A cache is read or written only in a directory that is the user's and that
# nobody else can write (nor any directory above it, but for sticky ones); a cache file
# that is not the user's, or that its group or others can write, or that is a symbolic
# link, is not read, and the user is told why. As root, a second user is created and
# plays the attacker: a cache directory planted in a shared directory, a cache file handed
# to the victim. Also: the status change time in the key (an edit that puts the
# modification time back), temporary files on SIGINT/SIGTERM/SIGHUP and against the cap,
# the cap given up on the new cache first, byte counts that do not parse, a cache of a
# small file read back, and Slurm's task numbers parsed whole.
. "$srcdir/tests/lib.sh"

unset TTRACE_NO_CACHE TTRACE_CACHE_MAX TTRACE_CACHE_MIN SLURM_PROCID SLURM_NTASKS
TTRACE_CACHE_MIN=0
export TTRACE_CACHE_MIN

from_cache() { # from_cache FILE: the text summary says it came from the cache
	"$TTRACE" -q --report=summary "$1" 2>/dev/null | head -n 1 | grep -q 'loaded from its cache'
}
summary() { "$TTRACE" -q --report=summary --json "$1" 2>/dev/null; }
ttc_count() { find "$1" -name '*.ttc' 2>/dev/null | wc -l; }

F="$TMP/t.json"
cp "$srcdir/tests/fixtures/overview/steps.json" "$F"
REF=$(TTRACE_NO_CACHE=1 summary "$F")

# ---- modes of the cache directory and its cache files ------------------------------------------
export XDG_CACHE_HOME="$TMP/x1"
C="$XDG_CACHE_HOME/ttrace"
"$TTRACE" index "$F" >/dev/null
from_cache "$F"
ok $? "a cache in the user's own directory is read"
is "$(stat -c %a "$C")" 700 "the cache directory is created 0700"

chmod 775 "$C"
run --report=summary --json "$F"
like "$err" "can be written by its group (mode 0775)" "a group-writable cache directory: said"
is "$out" "$REF" "and the file parsed: the same report"
from_cache "$F"
ok $((!$?)) "its cache is not read"
cp "$srcdir/tests/fixtures/q-phases.json" "$TMP/fresh.json"
run index "$TMP/fresh.json"
is "$rc" 1 "ttrace index into it: status 1"
like "$out" "not cached: the cache directory $C can be written by its group" "and says why"
is "$(ttc_count "$C")" 1 "nothing was written in it"
chmod 700 "$C"

CF=$(ls "$C"/*.ttc)
chmod 664 "$CF"
run --report=summary --json "$F"
like "$err" "can be written by its group (mode 0664)" "a group-writable cache file: not read, said"
is "$out" "$REF" "the same report"
chmod 600 "$CF"
from_cache "$F"
ok $? "read again once its mode is 0600"

mv "$CF" "$TMP/real.ttc"
ln -s "$TMP/real.ttc" "$CF"
run --report=summary "$F"
like "$err" "is a symbolic link" "a cache that is a symbolic link is not followed: said"
unlike "$out" "from its cache" "and not read"
rm -f "$CF"

# a directory above the cache directory that others can write, without the sticky bit
mkdir -p "$TMP/open/base"
chmod 777 "$TMP/open"
XDG_CACHE_HOME="$TMP/open/base" run --report=summary "$F"
XDG_CACHE_HOME="$TMP/open/base" run --report=summary "$F"
like "$err" "$TMP/open, above the cache directory $TMP/open/base/ttrace, can be written by anyone and has no sticky bit" \
	"a world-writable directory above it without the sticky bit: said"
unlike "$out" "from its cache" "and the cache is not read"
chmod 1777 "$TMP/open"
XDG_CACHE_HOME="$TMP/open/base" "$TTRACE" index "$F" >/dev/null
XDG_CACHE_HOME="$TMP/open/base" run --report=summary "$F"
like "$out" "from its cache" "with the sticky bit (as /tmp), the cache is read"
is "$err" "" "and nothing is said"

# ---- the key: the status change time ------------------------------------------------------------
# big enough that the edit is not in the checksummed first and last 64 KB
B="$TMP/big.json"
awk 'BEGIN { printf "{\"traceEvents\": [\n"; for (i = 0; i < 4000; i++)
	printf "%s{\"ph\": \"X\", \"name\": \"op_%05d_aaaa\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5}\n",
	i ? "," : "", i, i * 10; printf "]}\n" }' >"$B"
"$TTRACE" index "$B" >/dev/null
from_cache "$B"
ok $? "a 300 KB trace: its cache is read"
touch -r "$B" "$TMP/stamp"
sleep 0.05
sed 's/op_02000_aaaa/op_02000_bbbb/' "$B" >"$TMP/big2.json" && cat "$TMP/big2.json" >"$B" && touch -r "$TMP/stamp" "$B"
is "$(stat -c '%s %Y' "$B")" "$(stat -c '%s %Y' "$TMP/big2.json" | cut -d' ' -f1) $(stat -c %Y "$TMP/stamp")" \
	"an edit in the middle, the same size, the modification time put back (touch -r)"
run --report=summary "$B"
unlike "$out" "from its cache" "is parsed again (its status change time moved)"
is "$("$TTRACE" -q --dump-model "$B" 2>/dev/null | grep -c -e op_02000_bbbb -e op_02000_aaaa)" 1 "and the model holds the new name"
like "$("$TTRACE" -q --dump-model "$B" 2>/dev/null)" "op_02000_bbbb" "not the old one"

# ---- temporary files -------------------------------------------------------------------------------
export XDG_CACHE_HOME="$TMP/x2"
C="$XDG_CACHE_HOME/ttrace"
mkdir -p "$C"
chmod 700 "$XDG_CACHE_HOME"
for sig in INT TERM HUP; do
	# a background job of a shell script starts with SIGINT ignored: give it back its default
	TTRACE_CACHE_TEST_STALL=5 env --default-signal=INT,TERM,HUP "$TTRACE" index "$F" >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! ls -a "$C" | grep -q '\.tmp\.'; do sleep 0.1; i=$((i + 1)); done
	ls -a "$C" | grep -q '\.tmp\.'
	seen=$?
	kill -$sig $pid
	wait $pid
	st=$?
	left=$(ls -a "$C" | grep -c '\.tmp\.')
	is "$seen:$left:$(ttc_count "$C")" "0:0:0" "ttrace index ended by SIG$sig while it writes: its temporary file is removed"
	[ "$st" -ge 128 ]
	ok $? "and it ends by the signal (status $st)"
	rm -f "$C"/.*.tmp.* 2>/dev/null
done

host=$(hostname | tr './' '__')
"$TTRACE" index "$F" >/dev/null
one=$(stat -c %s "$C"/*.ttc)
rm -f "$C"/*.ttc
# a temporary file of this host's process that is gone, one of a live process (this shell),
# one of another host
sleep 30 &
live=$!
sh -c 'exit 0' &
dead=$!
wait $dead
truncate -s $((3 * one)) "$C/.gone.ttc.tmp.$host.$dead.AAAAAA"
truncate -s $((3 * one)) "$C/.live.ttc.tmp.$host.$live.BBBBBB"
truncate -s 10 "$C/.far.ttc.tmp.otherhost.1.CCCCCC"
TTRACE_CACHE_MAX=$((4 * one + 100)) run index "$F"
[ ! -e "$C/.gone.ttc.tmp.$host.$dead.AAAAAA" ]
ok $? "a temporary file left by a process of this host that is gone is removed"
[ -e "$C/.live.ttc.tmp.$host.$live.BBBBBB" ] && [ -e "$C/.far.ttc.tmp.otherhost.1.CCCCCC" ]
ok $? "those of a live process and of another host are kept"
is "$rc:$(ttc_count "$C")" "0:1" "the new cache fits beside them"
rm -f "$C"/*.ttc
TTRACE_CACHE_MAX=$((3 * one + one / 2)) run index "$F"
is "$rc:$(ttc_count "$C")" "1:0" "the live writer's temporary file counts against the cap: the new cache does not fit"
like "$out" "does not fit in the cache directory's cap" "and it says so"
kill $live 2>/dev/null
rm -f "$C"/.*.tmp.*

# ---- the cap: the new cache is given up first -------------------------------------------------
for i in 1 2 3; do cp "$srcdir/tests/fixtures/overview/steps.json" "$TMP/cap$i.json"; done
"$TTRACE" index "$TMP/cap1.json" "$TMP/cap2.json" >/dev/null
is "$(ttc_count "$C")" 2 "two caches"
sed 's/ProfilerStep#/ProfilerStep%/' "$srcdir/tests/fixtures/q-memory.json" >"$TMP/cap3.json"
TTRACE_CACHE_MAX=$((one / 2)) run index "$TMP/cap3.json"
is "$rc:$(ttc_count "$C")" "1:2" "a cap below the new cache's size: the new one is given up, the others kept"
new=$(TTRACE_CACHE_MAX=1T XDG_CACHE_HOME="$TMP/measure" "$TTRACE" index "$TMP/cap3.json" >/dev/null; stat -c %s "$TMP/measure/ttrace/"*.ttc)
kib=$(awk -v b="$new" 'BEGIN { printf "%.1f KiB", b / 1024 }')
like "$out" "the cache ($kib) does not fit in the cache directory's cap" "the message gives the cache's size ($kib), not the JSON's"
for v in 5MiB 1e9 -1 12Q ' 5M' 99999999999999999999; do
	TTRACE_CACHE_MAX="$v" run --report=summary "$F"
	is "$rc" 2 "TTRACE_CACHE_MAX='$v': refused (status 2)"
	like "$err" "TTRACE_CACHE_MAX='$v' is not a byte count" "with a message"
done
TTRACE_CACHE_MIN=1e6 run index "$F"
is "$rc" 2 "ttrace index with TTRACE_CACHE_MIN=1e6: status 2"
like "$err" "TTRACE_CACHE_MIN='1e6' is not a byte count" "with a message"
TTRACE_CACHE_MAX=5MiB run --no-cache --report=summary "$F"
is "$rc" 0 "with --no-cache the value does not matter"

# ---- a file under TTRACE_CACHE_MIN that ttrace index cached -------------------------------------
cp "$srcdir/tests/fixtures/q-phases.json" "$TMP/small.json"
TTRACE_CACHE_MIN=1M "$TTRACE" index "$TMP/small.json" >/dev/null
TTRACE_CACHE_MIN=1M "$TTRACE" -q --report=summary "$TMP/small.json" 2>/dev/null | head -n 1 | grep -q 'loaded from its cache'
ok $? "a file under TTRACE_CACHE_MIN that ttrace index cached: its cache is read"

# ---- Slurm's task numbers ----------------------------------------------------------------------
for pair in "abc 2" "1x 2" "2 2" "-1 2" "0 0" "0 x" "1 99999999999999999999"; do
	set -- $pair
	SLURM_PROCID=$1 SLURM_NTASKS=$2 run index "$F"
	is "$rc" 2 "ttrace index with SLURM_PROCID=$1 SLURM_NTASKS=$2: status 2"
	like "$err" "is not a whole number" "with a message"
done
SLURM_PROCID=0 run index "$F"
is "$rc" 2 "SLURM_PROCID without SLURM_NTASKS: status 2"
like "$err" "SLURM_PROCID is set without SLURM_NTASKS" "with a message"
SLURM_PROCID=1 SLURM_NTASKS=2 run index "$F"
is "$rc:$out" "0:" "task 1 of 2 of one file: nothing to do"

# ---- a second user (as root) ---------------------------------------------------------------------
other=ttrace-test-other
if [ "$(id -u)" -ne 0 ]; then
	echo "# not root: the tests with a second user are skipped"
	finish
	exit $?
fi
id -u "$other" >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin "$other" >/dev/null 2>&1
ouid=$(id -u "$other" 2>/dev/null)
as_other() { setpriv --reuid="$ouid" --regid="$(id -g "$other")" --clear-groups -- env HOME=/nonexistent "$@"; }
S="$TMP/shared" # as /scratch: anyone may create in it, only the owner may rename or remove
mkdir -p "$S" && chmod 1777 "$S" && chmod 755 "$TMP"
V="$S/victim.json"
cp "$F" "$V" && chmod 644 "$V"
if [ -z "$ouid" ] || ! as_other "$TTRACE" --version >/dev/null 2>&1; then
	echo "# the second user cannot run $TTRACE: its tests are skipped"
	finish
	exit $?
fi

# the attacker builds a cache of the victim's file and plants it where the victim's
# ttrace looks: in a ttrace directory of its own in the shared directory
as_other env XDG_CACHE_HOME="$S" "$TTRACE" index "$V" >"$TMP/o.out" 2>&1
is "$(stat -c '%U %a' "$S/ttrace-$ouid" 2>/dev/null)" "$other 700" \
	"another user's cache in a shared directory goes to a directory of its own (ttrace-UID, 0700)"
as_other env XDG_CACHE_HOME="$S" "$TTRACE" -q --report=summary "$V" 2>/dev/null | head -n 1 | grep -q 'from its cache'
ok $? "and that user's next open reads it"
as_other sh -c "mkdir '$S/ttrace' && cp '$S/ttrace-$ouid'/*.ttc '$S/ttrace/' && chmod 755 '$S/ttrace' && chmod 644 '$S/ttrace'/*.ttc"
is "$(stat -c %U "$S/ttrace")" "$other" "the attacker plants a ttrace directory with that cache in the shared directory"
XDG_CACHE_HOME="$S" run --report=summary --json "$V"
like "$err" "the cache directory $S/ttrace belongs to user $ouid, not to you" "the victim's ttrace does not use it and says why"
is "$out" "$(TTRACE_NO_CACHE=1 summary "$V")" "the victim's report is the parse's"
# the attacker edits the planted cache and recomputes its checksums
forged=$("$CACHEFORGE" "$(ls "$S/ttrace"/*.ttc)" "gemm_bwd" "EVE_WAS_")
is "$?:$forged:$(stat -c %U "$(ls "$S/ttrace"/*.ttc)")" "0:1:$other" "the attacker forges it: a name replaced, its checksums recomputed"
XDG_CACHE_HOME="$S" run --dump-model "$V"
unlike "$out$err" "EVE_WAS_" "the forgery never reaches the victim's model or report"
# the same forgery where it is trusted (the attacker's own directory) is read: the test
# above is not passed by a forgery that any reader would refuse
cp "$(ls "$S/ttrace"/*.ttc)" "$TMP/forged.ttc"
cat "$TMP/forged.ttc" >"$(ls "$S/ttrace-$ouid"/*.ttc)"
like "$(as_other env XDG_CACHE_HOME="$S" "$TTRACE" --dump-model "$V" 2>&1)" "EVE_WAS_" \
	"(the same forged cache, in its writer's own directory, is read by its writer)"
XDG_CACHE_HOME="$S" run index "$V"
is "$rc" 1 "nor does ttrace index write in it (status 1)"
[ -z "$(find "$S/ttrace" -user root)" ]
ok $? "nothing of the victim's is in it"

# a cache file of another user's in the victim's own directory
export XDG_CACHE_HOME="$TMP/x3"
C="$XDG_CACHE_HOME/ttrace"
"$TTRACE" index "$F" >/dev/null
chown "$other" "$C"/*.ttc
run --report=summary "$F"
like "$err" "belongs to user $ouid, not to you" "a cache file of another user's: not read, said"
unlike "$out" "from its cache" "and the file parsed"

# the victim's directory owned by another user
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$C" && chown "$other" "$C" && chmod 700 "$C"
run --report=summary "$F"
like "$err" "the cache directory $C belongs to user $ouid" "a cache directory owned by another user: said"
[ -z "$(find "$C" -name '*.ttc')" ]
ok $? "and nothing is written in it"

finish
