#!/bin/sh
# record.sh: the CUPTI recorder (libttrace-record.so) end to end without a GPU. A stand-in
# CUDA program (tests/record/driver) loads the recorder as libcuda would and plays
# scenarios against a stand-in CUPTI (tests/record/libfakecupti.so); the files written
# are read back by ttrace's own loader. Skips when the build has no recorder (configure
# found no CUPTI), unless TTRACE_REQUIRE_RECORDER=1 (CI), where that fails.
. "${srcdir:-.}/tests/lib.sh"

if [ ! -f "${RECORD_LIB:-}" ] || [ ! -x "${RECORD_DRIVER:-}" ]; then
	if [ "${TTRACE_REQUIRE_RECORDER:-0}" = 1 ]; then
		echo "not ok 1 - the recorder was not built (TTRACE_REQUIRE_RECORDER=1): configure found no CUPTI"
		echo "1..1"
		exit 1
	fi
	skip_all "the recorder was not built (no CUPTI at configure time)"
fi
ulimit -c 0

OUT="$TMP/out"
# run SCENARIO [ARGS]: the driver under the recorder, writing into a fresh $OUT/;
# sets rc, log (stdout: the CUPTI call log) and err (stderr), files (the manifest)
run() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	: >"$TMP/manifest"
	CUDA_INJECTION64_PATH="$RECORD_LIB" TTRACE_CUPTI_LIB="$FAKE_CUPTI" TTRACE_RECORD_OUT="${REC_OUT:-$OUT/}" \
		TTRACE_RECORD_MANIFEST="$TMP/manifest" "$RECORD_DRIVER" "$@" >"$TMP/log" 2>"$TMP/err"
	rc=$?
	log=$(cat "$TMP/log")
	err=$(cat "$TMP/err")
	files=$(cat "$TMP/manifest")
}
# summary FILE PATH...: fields of ttrace's JSON summary of FILE
summary() {
	f=$1
	shift
	"$TTRACE" --report=summary --json "$f" 2>/dev/null | "$JSONQ" "$@"
}

# ---- one GPU, every kind of record
run basic
is "$rc" 0 "basic: the program's status"
is "$(printf '%s\n' "$files" | grep -c .)" 1 "basic: one file in the manifest"
f=$files
case "$(basename "$f")" in
*.[0-9]*.pt.trace.json.zst) ok 0 "basic: named HOST.PID.pt.trace.json.zst ($(basename "$f"))" ;;
*) ok 1 "basic: named HOST.PID.pt.trace.json.zst ($(basename "$f"))" ;;
esac
is "$(dirname "$f")" "$(cd "$OUT" && pwd -P)" "basic: in the output directory, absolute"
is "$(summary "$f" files.0.status files.0.codec)" "ok
zstd" "basic: ttrace loads it whole, as zstd"
check=$("$TTRACE" --check "$f" 2>&1)
is "$(printf '%s\n' "$check" | grep -c 'flow_\|gpu_without_launch\|conflicting_metadata\|malformed')" 0 \
	"basic: no data problem (every kernel linked to its launch, no renamed thread)"
json=$("$TTRACE" --report=summary --json "$f")
is "$(printf '%s' "$json" | "$JSONQ" files.0.events_by_phase.s files.0.events_by_phase.f)" "6
6" "basic: a flow from each launching call to its GPU work (3 kernels, copy, memset, a driver launch; none for the sync)"
tracks=$(printf '%s' "$json" | "$JSONQ" files.0.tracks.#)
is "$tracks" 3 "basic: the thread and two streams"
is "$(printf '%s' "$json" | "$JSONQ" files.0.tracks.0.name files.0.tracks.1.name files.0.tracks.2.name)" "trainer
stream 7
stream 13" "basic: the thread has its NVTX name, the streams theirs"
is "$(printf '%s' "$json" | "$JSONQ" files.0.tracks.1.device files.0.tracks.1.events)" "0
7" "basic: stream 7 of GPU 0 holds 3 kernels, a copy, a memset, the sync and the NVTX range's GPU span"
dump=$("$TTRACE" --dump-model "$f" 2>&1)
like "$dump" '"matmul(float*, float*, int)"' "basic: kernel names demangled"
like "$dump" '"triton_poi_fused_add_0"' "basic: a driver-API launch's kernel"
like "$dump" '"Memcpy HtoD (Pageable -> Device)"' "basic: memcpy named as Kineto names it"
like "$dump" '"Memset (Device)"' "basic: memset"
like "$dump" '"Stream Sync"' "basic: the stream sync"
like "$dump" '"cudaLaunchKernel"' "basic: runtime calls without their version suffix"
like "$dump" '"cuLaunchKernel"' "basic: driver calls"
like "$dump" '"train step"' "basic: the NVTX range"
like "$dump" '"CUPTI Buffer Flush"' "basic: CUPTI's overhead"
like "$dump" 'evil\x1b]0;owned\x07' "basic: a hostile NVTX name arrives whole, and is shown escaped"
unlike "$dump" "$(printf '\033')" "basic: no raw escape reaches the terminal"
unlike "$dump" '"never ended"' "basic: a range without its end is not invented"
is "$(printf '%s\n' "$dump" | grep -c 'gpu_annotation "train step"')" 2 \
	"basic: the NVTX range has a GPU span on each stream its launches ran on (gpu_user_annotation)"
zstd -dc "$f" | "$JSONQ" ttrace.open_nvtx_ranges deviceProperties.0.numSms deviceProperties.0.name >"$TMP/hdr" 2>&1
is "$(cat "$TMP/hdr")" "1
132
NVIDIA H100 80GB HBM3" "basic: the header counts the open range and has deviceProperties"
like "$log" "cupti: subscribe" "control: subscribes"
like "$log" "cupti: enable_domain 3 1" "control: to the resource domain (contexts)"
like "$log" "cupti: register_callbacks" "control: registers its buffer callbacks"
like "$log" "cupti: thread_id_type 1" "control: asks for system thread ids"
for k in 10 1 2 5 4 38 11 12 17 8 9; do
	like "$log" "cupti: activity_enable $k
" "control: enables activity kind $k"
done
is "$(printf '%s\n' "$log" | tail -1)" "cupti: flush forced" "control: a forced flush at exit, last"

# ---- settings
TTRACE_RECORD_NO_API=1 run basic
unlike "$log" "activity_enable 5
" "--no-api: runtime calls not enabled"
unlike "$log" "activity_enable 4
" "--no-api: driver calls not enabled"
is "$(summary "$files" files.0.events_by_phase.s 2>/dev/null || echo none)" "none" "--no-api: no flows"
TTRACE_RECORD_NO_NVTX=1 run basic
unlike "$log" "activity_enable 12
" "--no-nvtx: markers not enabled"
unlike "$("$TTRACE" --dump-model "$files")" '"train step"' "--no-nvtx: no NVTX range"
RANK=5 WORLD_SIZE=8 LOCAL_RANK=1 run basic
case "$files" in *.rank5.pt.trace.json.zst) ok 0 "RANK: in the file name" ;; *) ok 1 "RANK: in the file name ($files)" ;; esac
is "$(summary "$files" files.0.rank files.0.world_size)" "5
8" "RANK, WORLD_SIZE: distributedInfo"

RANK=4 run basic
like "$("$TTRACE" --report=summary "$files")" "rank 4 (world size not given)" "RANK without WORLD_SIZE: no made-up world size"

# A TTRACE_RECORD_* value other than ttrace record sets (decimal seconds up to 31536000,
# a duration more than 0, a flag 0 or 1, DEV:INO): said, naming it escaped, and the
# program runs unrecorded, rather than recording other than was asked (a delay too long
# was ignored: recording began at once). (The stand-in program then stops short, as it
# plays its part through the stand-in CUPTI, which the recorder did not load.)
bad_setting() { # bad_setting NAME VALUE
	export "$1=$2"
	run basic
	unset "$1"
	like "$err" "ttrace record: $1=$2: not" "$1='$2': said, naming the value"
	like "$err" "the program runs unrecorded" "$1='$2': and that nothing is recorded"
	is "$files" "" "$1='$2': no file"
}
bad_setting TTRACE_RECORD_DELAY 99999999999
bad_setting TTRACE_RECORD_DELAY 31536000.5
bad_setting TTRACE_RECORD_DELAY 1e3
bad_setting TTRACE_RECORD_DELAY nan
bad_setting TTRACE_RECORD_DELAY -1
bad_setting TTRACE_RECORD_DELAY ' 1'
bad_setting TTRACE_RECORD_DURATION 0
bad_setting TTRACE_RECORD_DURATION inf
bad_setting TTRACE_RECORD_NO_API yes
bad_setting TTRACE_RECORD_OUT_ID 12
bad_setting TTRACE_RECORD_SKIP kernel
bad_setting TTRACE_RECORD_SKIP driver,nope
# TTRACE_RECORD_SKIP: activity kinds left off to measure what each costs (bench/gpu/check);
# the kernels stay (issue 32)
TTRACE_RECORD_SKIP=driver,sync,overhead run basic
for k in 4 38 17; do
	unlike "$log" "activity_enable $k
" "TTRACE_RECORD_SKIP=driver,sync,overhead: kind $k not enabled"
done
for k in 10 1 2 5; do
	like "$log" "activity_enable $k
" "TTRACE_RECORD_SKIP=driver,sync,overhead: kind $k still enabled"
done
is "$(summary "$files" files.0.status)" "ok" "TTRACE_RECORD_SKIP: the file is whole"
TTRACE_RECORD_DELAY=99999999999 run basic
like "$err" "TTRACE_RECORD_DELAY=99999999999: not seconds the recorder takes (decimal, at most 31536000 (365 days))" \
	"the message says what is taken"
TTRACE_RECORD_DELAY=$(printf '1\033]0;x\007') run basic
like "$err" 'TTRACE_RECORD_DELAY=1\x1b]0;x\x07: not' "a hostile value is named escaped"
unlike "$err" "$(printf '\033')" "no raw escape reaches the terminal"
TTRACE_RECORD_DELAY=31536000 run basic
is "$(printf '%s\n' "$files" | grep -c .)" 1 "the largest delay is taken: the file is made at the first context"
unlike "$log" "activity_enable 10
" "and kernels wait for the delay"
TTRACE_RECORD_DURATION=31536000 TTRACE_RECORD_NO_API=0 run basic
like "$log" "activity_enable 5
" "the largest duration and NO_API=0 are taken"
is "$(summary "$files" files.0.status)" ok "and record"
RANK=' 5' run basic
like "$err" "ttrace record: RANK= 5 is not a number from 0 to 2147483647: taken as not set" "a bad RANK is said"
case "$files" in *.rank*) ok 1 "and the file is not named after it ($files)" ;; *) ok 0 "and the file is not named after it" ;; esac
RANK=3 WORLD_SIZE=8x run basic
like "$err" "WORLD_SIZE=8x is not a number" "a bad WORLD_SIZE is said"
like "$("$TTRACE" --report=summary "$files")" "rank 3 (world size not given)" "and taken as not given"

# ---- several GPUs; many records
run two
is "$(summary "$files" files.0.tracks.# files.0.tracks.1.device files.0.tracks.2.device)" "3
0
1" "two: a stream on each of two GPUs"
like "$log" "cupti: flush forced" "two: a context being destroyed is flushed"
run many 30000
is "$rc" 0 "many: status"
is "$(summary "$files" files.0.tracks.1.events)" 30000 "many: 30000 kernels over several buffers, none lost"
unlike "$err" "dropped" "many: nothing dropped"

# ---- ends
run signal
is "$rc" 143 "signal: the program dies of its SIGTERM as it would have"
is "$(summary "$files" files.0.status files.0.tracks.1.events)" "ok
7" "signal: the file is whole, with what was recorded before the signal"
run handler
is "$rc" 3 "handler: the program's own SIGTERM handler runs (it exits 3)"
is "$(summary "$files" files.0.status)" "ok" "handler: its exit() writes the file whole"
run crash
is "$rc" 134 "crash: abort() after a checkpoint"
is "$(summary "$files" files.0.status files.0.tracks.1.events)" "ok
7" "crash: the file is valid JSON with the checkpoint's events"
unlike "$("$TTRACE" --dump-model "$files")" "after_ckp" "crash: what came after the checkpoint is not there"
# Under ASan, the child forked while the recorder's writer thread holds an allocator lock
# deadlocks in LeakSanitizer's check at its exit (ASan's allocator has no fork handlers; glibc's
# malloc has): the leak check is off for this run only.
asan_saved=${ASAN_OPTIONS-}
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
run fork
ASAN_OPTIONS=$asan_saved
is "$rc" 0 "fork: status"
is "$(printf '%s\n' "$files" | grep -c .)" 1 "fork: one file; the child wrote none"
like "$("$TTRACE" --dump-model "$files")" "after_fork()" "fork: the parent recorded on after its child exited"
is "$(summary "$files" files.0.status)" "ok" "fork: whole"
run nocontext
is "$rc" 0 "nocontext: status"
is "$files" "" "nocontext: no file in the manifest"
is "$(ls "$OUT" | wc -l)" 0 "nocontext: no file written"
TTRACE_RECORD_DELAY=0.4 run delay
is "$("$TTRACE" --dump-model "$files" | grep -c 'kernel "early()"\|kernel "late()"')" 1 "delay: one kernel recorded"
like "$("$TTRACE" --dump-model "$files")" '"late()"' "delay: the one after the delay"
TTRACE_RECORD_DURATION=0.3 run delay
like "$("$TTRACE" --dump-model "$files")" '"early()"' "duration: the kernel within the duration"
unlike "$("$TTRACE" --dump-model "$files")" '"late()"' "duration: not the one after it"
like "$log" "activity_disable 10" "duration: kernels turned off at its end"
run dropped
like "$err" "CUPTI dropped 7 records" "dropped: said on stderr"
is "$(zstd -dc "$files" | "$JSONQ" ttrace.dropped_records)" 7 "dropped: in the file's header"
FAKE_CUPTI_BUSY=1 run basic
is "$rc" 0 "busy CUPTI: the program runs"
like "$err" "another profiler" "busy CUPTI: says why nothing is recorded"
is "$files" "" "busy CUPTI: no file"
CUDA_INJECTION64_PATH="$RECORD_LIB" TTRACE_CUPTI_LIB="$TMP/nonexistent.so" \
	"$RECORD_DRIVER" nocontext >/dev/null 2>"$TMP/err"
rc=$?
like "$(cat "$TMP/err")" "cannot load CUPTI" "no CUPTI: says so"

# ---- -o FILE: plain JSON, and a second process beside it
REC_OUT="$OUT/run.json" run basic
is "$files" "$(cd "$OUT" && pwd -P)/run.json" "-o FILE.json: the file itself"
"$JSONQ" traceEvents.# <"$OUT/run.json" >/dev/null
is $? 0 "-o FILE.json: plain JSON"
: >"$TMP/manifest"
CUDA_INJECTION64_PATH="$RECORD_LIB" TTRACE_CUPTI_LIB="$FAKE_CUPTI" TTRACE_RECORD_OUT="$OUT/run.json" \
	TTRACE_RECORD_MANIFEST="$TMP/manifest" "$RECORD_DRIVER" basic >/dev/null 2>&1
case "$(cat "$TMP/manifest")" in
*/run.[0-9]*.json) ok 0 "-o FILE taken: FILE.PID.json" ;;
*) ok 1 "-o FILE taken: FILE.PID.json ($(cat "$TMP/manifest"))" ;;
esac
# a symbolic link to a directory put where the file is to go: not followed
mkdir "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$TMP/planted.json"
REC_OUT="$TMP/planted.json" run basic
case "$files" in
"$TMP"/planted.[0-9]*.json) ok 0 "-o FILE a symbolic link to a directory: FILE.PID.json beside it" ;;
*) ok 1 "-o FILE a symbolic link to a directory: FILE.PID.json beside it ($files)" ;;
esac
is "$(ls "$TMP/elsewhere")" "" "and nothing where the link leads"

# ---- a FIFO or a character device to write into (ttrace record -f -o): only the one
# TTRACE_RECORD_OUT_ID names, by the first process to claim it in the manifest
mkfifo "$TMP/fifo"
id=$(stat -c %d:%i "$TMP/fifo")
REC_OUT="$TMP/fifo" run basic
case "$files" in "$TMP/fifo".[0-9]*) ok 0 "a FIFO without TTRACE_RECORD_OUT_ID: not written into, a file beside it" ;;
*) ok 1 "a FIFO without TTRACE_RECORD_OUT_ID: not written into, a file beside it ($files)" ;; esac
rm -f "$TMP"/fifo.[0-9]*
timeout 20 cat "$TMP/fifo" >"$TMP/fifo.got" &
reader=$!
TTRACE_RECORD_OUT_ID=$id REC_OUT="$TMP/fifo" run basic
[ -n "$(ls "$TMP" | grep '^fifo\.[0-9]')" ] && kill "$reader" 2>/dev/null
wait "$reader"
is "$rc" 0 "TTRACE_RECORD_OUT_ID names the FIFO: the program's status"
is "$files" "$TMP/fifo" "the FIFO is the file in the manifest"
[ -p "$TMP/fifo" ]
ok $? "and stays a FIFO"
is "$(summary "$TMP/fifo.got" files.0.status files.0.codec files.0.tracks.1.events)" "ok
zstd
7" "its reader gets the whole trace"
CUDA_INJECTION64_PATH="$RECORD_LIB" TTRACE_CUPTI_LIB="$FAKE_CUPTI" TTRACE_RECORD_OUT="$TMP/fifo" TTRACE_RECORD_OUT_ID=$id \
	TTRACE_RECORD_MANIFEST="$TMP/manifest" "$RECORD_DRIVER" basic >/dev/null 2>&1
case "$(sed -n 2p "$TMP/manifest")" in
"$TMP/fifo".[0-9]*) ok 0 "a second process of the run: a file beside the FIFO, which the first took" ;;
*) ok 1 "a second process of the run: a file beside the FIFO, which the first took ($(cat "$TMP/manifest"))" ;;
esac
# a reader that goes away: said once, and the program is not killed by SIGPIPE (30000
# kernels are far more than a pipe holds)
rm -f "$TMP"/fifo.[0-9]*
timeout 20 head -c 1 "$TMP/fifo" >/dev/null &
reader=$!
TTRACE_RECORD_OUT_ID=$id REC_OUT="$TMP/fifo" run many 30000
[ -n "$(ls "$TMP" | grep '^fifo\.[0-9]')" ] && kill "$reader" 2>/dev/null
wait "$reader"
is "$rc" 0 "a reader that goes away: the program's status, not SIGPIPE's"
like "$err" "writing $TMP/fifo failed: Broken pipe; its reader has what was written before" "a reader that goes away: said"
is "$(printf '%s\n' "$err" | grep -c 'failed: Broken pipe')" 1 "said once"
# (made before the old one goes, so that it cannot have the old one's inode number)
rm -f "$TMP"/fifo.[0-9]*
mkfifo "$TMP/fifo2"
mv "$TMP/fifo2" "$TMP/fifo"
TTRACE_RECORD_OUT_ID=$id REC_OUT="$TMP/fifo" run basic
case "$files" in "$TMP/fifo".[0-9]*) ok 0 "another FIFO put in its place: not written into" ;;
*) ok 1 "another FIFO put in its place: not written into ($files)" ;; esac
if [ "$(id -u)" = 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null && echo probe >"$TMP/null" 2>/dev/null; then
	TTRACE_RECORD_OUT_ID=$(stat -c %d:%i "$TMP/null") REC_OUT="$TMP/null" run basic
	is "$files" "$TMP/null" "a character device TTRACE_RECORD_OUT_ID names: written into"
	[ -c "$TMP/null" ]
	ok $? "and still one"
fi

echo "1..$tap_n"
[ $tap_fail -eq 0 ]
