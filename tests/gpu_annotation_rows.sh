#!/bin/sh
# gpu_annotation_rows.sh: a gpu_user_annotation on a stream (DistributedDataParallel.forward
# over the whole step) never takes the stream's first row: that row shows the kernels, with
# the idle time between them empty, and the annotation is a thin line in a row of its own
# below (issue 12, item 8).
. "$srcdir/tests/lib.sh"
F="$srcdir/tests/fixtures/render/gpu-annotation.json"
out=$("$TTRACE" -q --dump-screen --size=100x14 "$F")
text=$(printf '%s\n' "$out" | sed '/^--$/,$d')
styles=$(printf '%s\n' "$out" | sed '1,/^--$/d')
stream=$(printf '%s\n' "$text" | grep -n '^  stream 7 ')
n=${stream%%:*}
line=$(printf '%s\n' "$text" | sed -n "${n}p")
below=$(printf '%s\n' "$text" | sed -n "$((n + 1))p")
like "$line" "gemm" "the stream's first row shows its kernels"
unlike "$line" "DistributedDataParallel" "and not the annotation over them"
like "$line" "▌gemm██▌                                            ▌relu" "the idle time between the kernels stays empty"
like "$below" "DistributedDataParallel.forward───" "the annotation: a thin line in the row below"
like "$(printf '%s\n' "$styles" | sed -n "$((n + 1))p")" "nnnnnnnnnn" "drawn in the annotation style, not as work"
like "$("$TTRACE" -q --dump-screen --size=100x14 --ascii "$F" | sed -n "$((n + 1))p")" "DistributedDataParallel.forward---" \
	"ASCII: a line of -"
finish
