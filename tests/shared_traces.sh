#!/bin/sh
# shared_traces.sh: every real trace in ../shared/traces (when present) loads or is
# rejected with one clear sentence, without crashing; the facts its README states hold.
. "$srcdir/tests/lib.sh"
S="${SHARED_TRACES:-$srcdir/../shared/traces}"
[ -d "$S" ] || skip_all "no shared traces at $S"

for f in $(cd "$S" && find . -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.json.zst' \) | sed 's|^\./||' | sort); do
	run --report=summary --json "$S/$f"
	no_crash "$f"
	case "$rc" in
	0) ok 0 "$f: loads" ;;
	1)
		case "$err" in
		*"not a Chrome trace"*) ok 0 "$f: rejected with a clear message" ;;
		*) ok 1 "$f: exit 1 without a clear message: $err" ;;
		esac
		;;
	*) ok 1 "$f: unexpected exit status $rc" ;;
	esac
done

j() { # j FILE PATH...: values from the JSON summary of FILE
	"$TTRACE" --report=summary --json "$S/$1" 2>/dev/null | "$JSONQ" "$@"
}
jv() { f=$1; shift; "$TTRACE" --report=summary --json "$S/$f" 2>/dev/null >"$TMP/v.json"; for p in "$@"; do "$JSONQ" "$p" <"$TMP/v.json"; done | tr '\n' ' '; }

run --report=summary "$S/other-rocprofv3-results-not-chrome-trace.json.gz"
is "$rc" 1 "rocprofv3 JSON is rejected"
like "$err" 'not a Chrome trace: no "traceEvents" (top-level key "rocprofiler-sdk-tool", looks like rocprofv3 output)' "and named"

is "$(jv derived/truncated-mid-event-nccl-basetime.json.gz files.0.status files.0.events)" "truncated 20391 " "mid-event cut: the 20,391 complete events kept"
run --report=none "$S/derived/truncated-mid-event-nccl-basetime.json.gz"
like "$err" "input ends at byte 4889446 (line 132178" "mid-event cut located at byte 4,889,446, line 132,178"
like "$err" "times are relative" "lost baseTimeNanoseconds explained"
run --report=none "$S/derived/truncated-gzip-stream-resnet50.pt.trace.json.gz"
like "$err" "gzip stream truncated at compressed byte 463827" "cut gzip stream: compressed offset"
unlike "$err" "times are relative" "cut gzip stream: its epoch-microsecond times are absolute, no false warning of a lost time base"
is "$(jv derived/truncated-gzip-stream-resnet50.pt.trace.json.gz files.0.status)" "truncated " "cut gzip stream salvaged"
run --report=none "$S/derived/bad-control-char-0x01-in-name.json"
like "$err" "bad-control-char-0x01-in-name.json:83:46: byte 3745" "control char at byte 3,745 (83:46)"
run --report=none "$S/derived/bad-unescaped-backslash-windows-path.json"
like "$err" "bad-unescaped-backslash-windows-path.json:83:47: byte 3746" "bad escape at byte 3,746 (83:47)"
run --report=none "$S/derived/bad-unescaped-quotes-newline-in-name.json"
like "$err" ":90:" "unescaped quotes: line 90"
like "$err" "byte 4014" "unescaped quotes: byte 4,014"
is "$(jv derived/bad-unescaped-quotes-newline-in-name.json files.0.quality.malformed_events files.0.events)" "1 70 " "one event skipped, 70 kept"
run --report=none "$S/derived/bad-inf-memory-bandwidth-nccl-basetime.json.gz"
like "$err" ":123781:148: byte 4567433" "bare inf at byte 4,567,433 (123781:148)"
is "$(jv derived/bad-inf-memory-bandwidth-nccl-basetime.json.gz files.0.status files.0.events)" "ok 40573 " "bare inf: the whole trace loads"
is "$(jv derived/bad-invalid-utf8-in-kernel-name.json files.0.events files.0.quality.invalid_utf8_strings)" "71 1 " "invalid UTF-8: 71 events, one bad string"
is "$(jv derived/odd-ts-zero-dur-zero-kernels-mi250.json.gz files.0.quality.ts_zero_outliers)" "3 " "three ts-0 kernels set aside"
start0=$(jv derived/odd-ts-zero-dur-zero-kernels-mi250.json.gz files.0.start_ns)
start1=$(jv mi250-rocm62-minitoy-train.json.gz files.0.start_ns)
is "$start0" "$start1" "the time axis is not stretched back to 0"

a=$(jv train-a100-rank0of2-nccl-basetime.json.gz files.0.events files.0.base_time_ns files.0.top_kernels.0.total_ns files.0.codec)
b=$(jv train-a100-rank0of2-nccl-basetime.json.zst files.0.events files.0.base_time_ns files.0.top_kernels.0.total_ns files.0.codec)
is "${a% gzip }" "${b% zstd }" ".gz and .zst of the same JSON give the same model"
like "$a" "40573 " "40,573 events"
"$TTRACE" --report=summary --json "$S/train-a100-rank0of2-nccl-basetime.json.gz" >"$TMP/a100.json" 2>/dev/null
like "$(cat "$TMP/a100.json")" '"base_time_ns": ' "base time read after traceEvents"
is "$(jv resnet50-v100-2020-toplevel-array.pt.trace.json.gz files.0.events)" "82276 " "bare top-level array: 82,276 events"
is "$(jv train-v100-rank1of2-nccl-memory-216k.json.gz files.0.events files.0.rank)" "216092 1 " "216k trace: events and rank 1"
is "$(jv mtia-rank0-310k-metadata-events.json.gz files.0.events_by_phase.M)" "310046 " "MTIA: 310,046 M events read"
is "$(jv train-v100-rank0-ns-float-epoch-ts.pt.trace.json.gz files.0.steps.0.number files.0.steps.4.number)" "101 105 " "ns-float file: ProfilerStep#101..#105"
is "$(jv cpu-only-gloo-rank34of300.pt.trace.json.gz files.0.rank files.0.world_size)" "34 300 " "CPU-only: rank 34 of 300"
is "$(jv torch-cpu/cpu_train_small.pt.trace.json files.0.legacy_format)" "true " "torch 1.13 legacy format recognised"
is "$(jv other-catapult-demo-BE-counters-samples.json files.0.status)" "ok " "catapult demo loads"

# DLRM, 8 ranks: rank from distributedInfo; 8 NCCL kernels on stream 84; step facts.
r=0
for w in 0 1 2 3 4 5 6 7; do
	f=$(cd "$S" && ls multirank-dlrm-v100x8-nccl/worker${w}_*.json)
	"$TTRACE" --report=summary --json "$S/$f" >"$TMP/w.json" 2>/dev/null
	is "$("$JSONQ" files.0.rank <"$TMP/w.json")" "$w" "DLRM worker$w: rank $w"
	n=$(grep -c '"kind": "gpu_comm"' "$TMP/w.json")
	is "$n" 1 "DLRM worker$w: one communication stream"
	like "$(tr -d '\n ' <"$TMP/w.json")" '"kind":"gpu_comm","pid":'"$w"',"tid":84,"name":"stream84","process":"python3","device":'"$w"',"stream":84,"events":8,"slices":8' "DLRM worker$w: its 8 NCCL kernels on stream 84"
done
"$TTRACE" --report=summary --json "$S/multirank-dlrm-v100x8-nccl/worker1_step_12.1694128201556.pt.trace.json" >"$TMP/w1.json" 2>/dev/null
like "$(cat "$TMP/w1.json")" '"number": 10,' "worker1 holds ProfilerStep#10"
like "$(cat "$TMP/w1.json")" '"start_ns": 1694128201421205000,' "worker1 step starts at 1694128201421205 us"
like "$(cat "$TMP/w1.json")" '"dur_ns": 19901000' "worker1 step lasts 19,901 us"

finish
