#!/bin/sh
# sizes.sh: issue 31's behaviours at the two sizes users bring, a laptop's 80x24 and a
# big monitor's 200x60: a GPU row on open, zoom and pan bounded by the trace, f / F /
# Esc, the headline figures of every view without scrolling sideways, Enter from a table
# landing on its slice centred and visible, T merging rows, columns empty for the trace
# left out, the cursor, selection and window surviving the views; and golden screens of
# the views at both sizes. REGEN=1 rewrites the goldens: review the diff.
. "$srcdir/tests/lib.sh"
GOLD="$srcdir/tests/golden/sizes"
cd "$srcdir" || exit 1 # relative paths: the header shows the file name as given
EX="examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
CPU="tests/fixtures/q-legacy.json"
FOLD="tests/fixtures/fold-names.json"
scr() { # scr SIZE KEYS FILE: the screen's text
	"$TTRACE" -q --dump-screen --size="$1" --keys="$2" "$3" | sed '/^--$/,$d'
}
rlike() { # rlike TEXT REGEX DESCRIPTION: a line of TEXT matches the extended REGEX
	if printf '%s\n' "$1" | grep -qE -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '#   wanted a line matching: %s\n' "$2"
	fi
}
header() { printf '%s\n' "$1" | sed -n 1p | sed 's/  [0-9.]* [mun]*s\/col.*//'; }

for size in 80x24 200x60; do
	h=${size#*x}
	# the timeline on open: a GPU group and its streams among the rows
	out=$(scr $size '' $EX)
	rows=$(printf '%s\n' "$out" | sed -n "3,$((h - 7))p")
	like "$rows" "GPU 0" "$size: the timeline shows the GPU on open"
	like "$rows" "stream 7 " "$size: and its compute stream"

	# zoom and pan stop at the trace (a hundredth of its span past each end)
	is "$(header "$(scr $size SSSSSSSSSSSSSSSSSSSS $EX)")" "ttrace  -0.164390 ms .. +16.603390 ms (16.8 ms)" \
		"$size: twenty S stop at the whole trace and its margin"
	like "$(header "$(scr $size WWWWaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa $EX)")" "ttrace  -0.164390 ms .. " \
		"$size: thirty a stop at the margin before the start"
	like "$(header "$(scr $size 'WWWW<End>dddddddddd' $EX)")" " .. +16.603390 ms" \
		"$size: d past the end stops at the margin after it"

	# f fits the selection, F the whole trace; Esc clears the selection, the window stays
	out=$(scr $size '/ncclKernel<Enter>f' $EX)
	like "$(header "$out")" "(2.36 ms)" "$size: f fits the selected kernel (2.15 ms and a twentieth on each side)"
	is "$(header "$(scr $size '/ncclKernel<Enter>fF' $EX)")" "ttrace  +0.000 ms .. +16.439 ms (16.4 ms)" \
		"$size: F fits the whole trace whatever is selected"
	a=$(scr $size '/ncclKernel<Enter>f<Esc>' $EX)
	is "$(header "$a")" "$(header "$out")" "$size: Esc keeps the window"
	unlike "$(printf '%s\n' "$a" | sed -n "$((h - 5)),$((h - 4))p")" "ncclKernel" "$size: and clears the selection"

	# the headline figures of the views, whole
	out=$(scr $size V $EX)
	rlike "$out" "^ Overview: ProfilerStep#10.*, 14.5 ms" "$size: the Overview's window, with its span"
	rlike "$out" "^ GPU 0: util(ization)? [0-9.]+%  (est. )?SM eff(iciency)? [0-9.]+%  (est. )?occ(upancy)? [0-9.]+%  Tensor Cores [0-9.]+%" \
		"$size: the GPU line keeps utilization, SM efficiency, occupancy and Tensor Cores"
	rlike "$out" "^ Advice: .*[0-9]+% of step time \(! shows" "$size: the advice line whole"
	rlike "$(scr $size K $EX)" "^ [0-9]+ rows.*, [0-9.]+ ms of kernel.*[0-9.]+% (of it )?on Tensor Cores" \
		"$size: the Kernels view's title: rows, kernel time, Tensor Core share"
	rlike "$(scr $size O $EX)" "^ 130 operator names(, by device total; 261/261 GPU activities linked|; 261 of 261 GPU activities reach an operator, by device total)" \
		"$size: the Operators view's title: rows, order, GPU activities linked"
	rlike "$(scr $size o $EX)" "^ 13 gaps of 100 us or more, longest first" "$size: the gap list's title"
	rlike "$(scr $size '!' $EX)" "^ Advice: 5 findings, worst first \(score: (est. )?share of step time( lost)?\)" \
		"$size: the advice panel's first line, with what the score is"

	# Enter from a table: the slice selected, centred, four columns wide or more
	out=$(scr $size 'K<End><Enter>' $EX)
	like "$out" "kernel on stream 7, row 0: start +10.304 ms, dur 3.00 us" "$size: Enter on the last kernel selects its longest call"
	is "$(header "$out")" "ttrace  +10.298 ms .. +10.313 ms (15.0 us)" "$size: a 3 us call: a 15 us window centred on it"
	out=$(scr $size 'O<Enter>' $EX)
	rlike "$out" "the longest call|slowest call|call of" "$size: Enter in the Operators view jumps"

	# T merges the rows it makes the same, and says so
	out=$(scr $size KT $FOLD)
	like "$out" "at::native::vectorized_elementwise_kernel<…>(…)" "$size: T folds the names"
	rlike "$out" "^ 2 rows.*folded" "$size: two rows of three, and the title says it"
	like "$out" "1 row merged into others, 2 left" "$size: the status line says what merged"

	# columns empty for the trace: a CPU-only trace's operators have no device columns
	out=$(scr $size O $CPU)
	like "$out" "self CPU" "$size: the operators of a CPU-only trace: CPU columns"
	unlike "$out" "device" "$size: no device columns"

	# the cursor, the selection and the window survive opening and closing every view
	pre='WWLLLLj<Enter>ll'
	base=$(scr $size "$pre" $EX | sed '$d')
	for k in o V O K Q '!' '?'; do
		is "$(scr $size "$pre$k<Esc>" $EX | sed '$d')" "$base" "$size: $k then Esc: the timeline as it was (window, cursor, selection)"
	done
	is "$(scr $size "${pre}KK" $EX | sed '$d')" "$base" "$size: K then K: the same"

	# golden screens of the views at this size
	for v in timeline: overview:V kernels:K operators:O gaps:o advice:! quality:Q; do
		name=${v%%:*} keys=${v#*:}
		"$TTRACE" -q --dump-screen --size=$size --keys="$keys" $EX >"$TMP/screen" 2>&1
		if [ -n "$REGEN" ]; then
			mkdir -p "$GOLD"
			cp "$TMP/screen" "$GOLD/$name-$size.screen"
			ok 0 "$name-$size: golden regenerated"
		else
			cmp -s "$TMP/screen" "$GOLD/$name-$size.screen"
			ok $? "$name-$size: screen matches its golden"
		fi
	done
done
finish
