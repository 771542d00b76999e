#!/bin/sh
# gpu_timeline.sh: the timeline's utilization and Est. SM efficiency lines and the
# Overview's `gpu_timeline` (JSON), as the TensorBoard plugin's timeline counters: buckets of
# 10^k us (at most 100 over the trace), each the share of it the kernels cover, or ∫ min(1,
# Σ blocks per SM) over it; checked on a hand-worked trace, their mean over the steps against
# the Overview's figures, and on ../shared/traces when it is there.
. "$srcdir/tests/lib.sh"

# tests/fixtures/overview/gpu-timeline.json (us). The trace spans [0, 125): 125 us cut in
# 10^k us buckets, at most 100: 10 us, int(125 / 10) = 12 buckets, the last [110, 125).
#   GPU 0: gemm_a [5, 25) bps 0.5 (stream 7), elementwise_b [15, 35) bps 0.8 (stream 8),
#          gemm_c [50, 52) bps 2, a memcpy [40, 48) (not a kernel), reduce_d [70, 95) no bps,
#          late_e [112, 120) bps 1
#   GPU 1: copy_f [30, 80), no bps: no SM efficiency
# utilization, GPU 0, by bucket: [0,10) 5/10; [10,20) 1; [20,30) 1; [30,40) 5/10; [40,50) 0
#   (the memcpy); [50,60) 2/10; [60,70) 0; [70,80) 1; [80,90) 1; [90,100) 5/10; [100,110) 0;
#   [110,125) 8/15 = 0.533333
# SM efficiency, GPU 0: [5,15) 0.5, [15,25) min(1, 1.3) = 1, [25,35) 0.8, [50,52) min(1, 2),
#   [112,120) 1: [0,10) 2.5/10; [10,20) (2.5 + 5)/10; [20,30) (5 + 4)/10; [30,40) 4/10;
#   [50,60) 2/10; [110,125) 8/15; the rest 0
# The plugin's window: step 2 launched 1 device activity against step 1's 5 (under 80%):
# dropped; step 1 ends where copy_f does: [0, 80), on bucket edges, so the buckets' mean
# over it, each weighted by its overlap, is the Overview's figure: GPU 0 utilization
# (5+10+10+5+0+2+0+10)/80 = 0.525, SM efficiency (2.5+7.5+9+4+0+2)/80 = 0.3125, GPU 1 50/80.
FX="$srcdir/tests/fixtures/overview/gpu-timeline.json"
"$TTRACE" --report=overview --json "$FX" >"$TMP/o.json" 2>"$TMP/err"
is "$?" 0 "--report=overview --json runs"
q() { "$JSONQ" "$@" <"$TMP/o.json"; }
is "$(q files.0.gpu_timeline.start_ns files.0.gpu_timeline.end_ns files.0.gpu_timeline.bucket_ns | tr '\n' ' ')" \
	"0 125000 10000 " "the trace's span, buckets of 10 us (the least 10^k us giving at most 100)"
is "$(q files.0.gpu_timeline.devices.0.device files.0.gpu_timeline.devices.0.utilization)" \
	"0
[0.5,1,1,0.5,0,0.2,0,1,1,0.5,0,0.533333]" "GPU 0's utilization by bucket, the last one 15 us long"
is "$(q files.0.gpu_timeline.devices.0.sm_efficiency)" "[0.25,0.75,0.9,0.4,0,0.2,0,0,0,0,0,0.533333]" \
	"GPU 0's SM efficiency by bucket (min(1, sum) where kernels overlap; no bps: nothing)"
is "$(q files.0.gpu_timeline.devices.1.utilization files.0.gpu_timeline.devices.1.sm_efficiency)" \
	"[0,0,0,1,1,1,1,1,0,0,0,0]
null" "GPU 1: utilization; no SM efficiency (no kernel has blocks per SM)"
is "$(q files.0.window.start_ns files.0.window.end_ns | tr '\n' ' ')" "0 80000 " "the plugin's window is [0, 80) us"

# the mean of the buckets over the window, each weighted by its overlap with it; then what
# the buckets cut by the window's edges can move it by (their overlap / the window: 0 when
# the edges fall on buckets' edges)
wmean_bound() { # wmean_bound DEVICE KEY: from o.json
	q files.0.gpu_timeline.start_ns files.0.gpu_timeline.end_ns files.0.gpu_timeline.bucket_ns \
		files.0.window.start_ns files.0.window.end_ns "files.0.gpu_timeline.devices.$1.$2" | tr -d '[]' | tr ',' ' ' |
		tr '\n' ' ' | awk '{ s = $1; e = $2; b = $3; w0 = $4; w1 = $5; n = NF - 5; sum = 0; cut = 0
			for (i = 0; i < n; i++) { a = s + i * b; z = (i == n - 1) ? e : a + b
				lo = a > w0 ? a : w0; hi = z < w1 ? z : w1
				if (hi > lo) { sum += $(i + 6) * (hi - lo); if (hi - lo < z - a) cut += hi - lo } }
			printf "%.6g %.6g\n", sum / (w1 - w0), cut / (w1 - w0) }'
}
wmean() { wmean_bound "$@" | cut -d' ' -f1; }
is "$(wmean 0 utilization) $(q files.0.devices.0.utilization)" "0.525 0.525" \
	"GPU 0: the buckets' mean over the steps is the Overview's utilization"
is "$(wmean 0 sm_efficiency) $(q files.0.devices.0.sm_efficiency)" "0.3125 0.3125" \
	"GPU 0: ... and its SM efficiency"
is "$(wmean 1 utilization) $(q files.0.devices.1.utilization)" "0.625 0.625" "GPU 1: ... utilization"

# the lines on the timeline, in ASCII (a byte a column; shades ' ' 0, '.' < 1/3, ':' < 2/3,
# '+' < 1, '#' 1): zoomed out, each bucket is a run of columns; runs collapsed to one each
scr() { "$TTRACE" -q --dump-screen "$@" | sed '/^--$/,$d'; }
out=$(scr --size=110x30 --ascii "$FX")
line() { printf '%s\n' "$out" | grep -A"$2" "^. GPU $1 " | tail -1; }
runs() { printf '%s\n' "$1" | cut -d'|' -f2- | sed 's/ *$//' | fold -w1 | uniq | tr -d '\n'; }
is "$(line 0 1 | cut -c1-16)$(line 0 2 | cut -c1-16)" "  utilization     SM efficiency " \
	"GPU 0: its utilization line, then its SM efficiency line"
is "$(runs "$(line 0 1)")" ":#: . #: :" "utilization: the buckets' shades in order (0.5 1 1 0.5 0 0.2 0 1 1 0.5 0 0.53)"
is "$(runs "$(line 0 2)")" ".+: . :" "SM efficiency: 0.25 0.75 0.9 0.4 0 0.2 0 ... 0.53"
last=$(printf '%s\n' "$(line 0 1)" | sed 's/ *$//' | grep -o ':*$' | tr -d '\n' | wc -c)
first=$(printf '%s\n' "$(line 0 1)" | cut -d'|' -f2 | grep -o '^:*' | tr -d '\n' | wc -c)
[ "$last" -gt "$first" ]
ok $? "the last bucket (15 us) is wider than the first (10 us): $last > $first columns"
is "$(line 1 1 | cut -c1-16)$(line 1 2 | cut -c1-10)" "  utilization     stream 7" \
	"GPU 1: no SM efficiency line (no kernel has blocks per SM)"

# the details on the line: the bucket at the cursor, its figures, the bucket size
det() { "$TTRACE" -q --dump-screen --size=110x30 "$@" "$FX" | sed '/^--$/,$d' | sed -n '/^── details/,$p'; }
d=$(det --keys='<Down><Down><Down>llllllll')
like "$d" "GPU 0, +0.010 ms to +0.020 ms: utilization 100.0%, est. SM efficiency 75.0%" \
	"the details: the bucket under the cursor and both figures"
like "$d" "buckets of 10.0 us: the TensorBoard plugin's 10^k us" "... and the bucket size"
d=$(det --keys='<Down><Down><Down><Down>')
like "$d" "GPU 0, +0.000 ms to +0.010 ms: utilization 50.0%, est. SM efficiency 25.0%" "on the SM line too"
d=$(det --keys='wwww<Down><Down><Down>')
like "$d" "buckets of 1.00 us" "zoomed in to 51 us: buckets of 1 us (at most 100 across the window)"
d=$("$TTRACE" -q --dump-screen --size=24x20 --keys='<Down><Down><Down>' "$FX" | sed '/^--$/,$d')
like "$d" " a column (" "a column longer than a bucket is a bucket of its own"

# ../shared/traces: on every trace with kernels, the buckets' mean over the window is the
# Overview's figure, within what the buckets the window's edges cut can move it
SH="$srcdir/../shared/traces"
if [ -d "$SH" ]; then
	n=0
	for f in "$SH"/*.json "$SH"/*.json.gz; do
		[ -f "$f" ] || continue
		"$TTRACE" -q --report=overview --json "$f" >"$TMP/o.json" 2>/dev/null || continue
		nd=$(q files.0.gpu_timeline.devices.#)
		[ "${nd:-0}" -gt 0 ] || continue
		d=0
		while [ "$d" -lt "$nd" ]; do
			dev=$(q files.0.gpu_timeline.devices.$d.device)
			k=$(q files.0.devices.# | awk -v d="$dev" '{ print $1 }')
			i=0
			while [ "$i" -lt "$k" ] && [ "$(q files.0.devices.$i.device)" != "$dev" ]; do i=$((i + 1)); done
			set -- $(wmean_bound "$d" utilization)
			want=$(q files.0.devices.$i.utilization)
			awk -v a="$1" -v b="$want" -v t="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t + 1e-5) }'
			ok $? "$(basename "$f") GPU $dev: buckets' mean $1, Overview $want (edge buckets: within $2)"
			if [ "$(q files.0.gpu_timeline.devices.$d.sm_efficiency)" != null ]; then
				set -- $(wmean_bound "$d" sm_efficiency)
				want=$(q files.0.devices.$i.sm_efficiency)
				awk -v a="$1" -v b="$want" -v t="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t + 1e-5) }'
				ok $? "$(basename "$f") GPU $dev: SM efficiency: buckets' mean $1, Overview $want (within $2)"
			fi
			n=$((n + 1))
			d=$((d + 1))
		done
	done
	[ "$n" -gt 0 ]
	ok $? "../shared/traces: $n devices compared"
fi
finish
