#!/bin/sh
# advice_view.sh: the advice panel (!) and the start-up hint (issue 11): the findings of
# --report=advice in the timeline, worst first, the selected one whole in the panel's
# header, Enter walking their instances, the Overview linking to them.
. "$srcdir/tests/lib.sh"
A="$srcdir/tests/fixtures/advice"
scr() { # scr KEYS FILE...: the screen's text at 120x40
	k=$1
	shift
	"$TTRACE" -q --dump-screen --size=120x40 --keys="$k" "$@" | sed '/^--$/,$d'
}
last() { printf '%s\n' "$1" | tail -1; }

# host_sync-fire.json: two findings, Low GPU utilization (36%) then Host synchronisation
# (25.5%), both of high confidence (tests/advice.sh works them out)
out=$(scr '' "$A/host_sync-fire.json")
like "$(last "$out")" "advice: Low GPU utilization, about 36% of step time (! shows 2 findings)" \
	"a serious finding: a hint in the status line at start, not a modal"
like "$out" "thread" "the timeline is there under it"
unlike "$(last "$(scr '' "$A/host_sync-quiet.json")")" "advice:" "no finding: no hint"
unlike "$(last "$(scr '' "$A/memory_growth-fire.json")")" "advice:" "findings under 10% of step time: no hint"

out=$(scr '!' "$A/host_sync-fire.json")
like "$out" "Advice: 2 findings, worst first" "! opens the panel"
like "$out" "Low GPU utilization [low_gpu_utilization]: GPU" "its header shows the selected finding's symptom"
like "$out" " cause: " "the likely cause"
like "$out" " fix: " "the first fix"
like "$out" "e.g. " "with an example"
like "$out" "confidence high: " "and how sure, with what would make it wrong"
rows=$(printf '%s\n' "$out" | grep -n '▾ ' | cut -d: -f1 | tr '\n' ' ')
first=$(printf '%s\n' "$out" | grep '▾ ' | head -1)
like "$first" "Low GPU utilization" "the worst finding first"
like "$(printf '%s\n' "$out" | grep '▾ ' | sed -n 2p)" "Host synchronisation" "then the next"
like "$(scr '!jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj' "$A/host_sync-fire.json")" "Host synchronisation [host_sync]: " \
	"the header follows the selection"

# Enter walks the instances: the finding's worst, then each next one
out=$(scr '!<Enter>' "$A/host_sync-fire.json")
like "$(last "$out")" "low_gpu_utilization: instance 1 of" "Enter on a finding shows its worst instance"
unlike "$out" "Advice: " "and closes the panel"
like "$(last "$(scr '!<Enter>!<Enter>' "$A/host_sync-fire.json")")" "low_gpu_utilization: instance 2 of" \
	"! Enter again: the next instance"
out=$(scr '!/host sync<Enter>j<Enter>' "$A/host_sync-fire.json")
like "$(last "$out")" "host_sync: instance 1 of" "Enter on an instance row shows that one"
like "$out" "aten::item" "and selects its slice (the synchronising call)"

# the Overview links to the findings once they are known (the timeline finds them after its first frame)
like "$(scr 'V' "$A/host_sync-fire.json")" "Advice: 2 findings, the worst: Low GPU utilization" "the Overview names the worst finding"
like "$(scr '!' "$A/host_sync-quiet.json")" "Advice: no findings" "no finding: the panel says so"
# several ranks: the findings of the set, with the ranks each holds for
out=$(scr '!' "$A/straggler-fire/rank0.json" "$A/straggler-fire/rank1.json" "$A/straggler-fire/rank2.json")
like "$out" "Advice: " "several ranks: one panel over the set"
like "$out" "ranks)" "a finding says how many ranks it holds for"
help=$("$TTRACE" -q --dump-screen --size=120x80 --keys='?' "$A/host_sync-quiet.json")$("$TTRACE" -q --dump-screen --size=120x80 --keys='?<PgDn>' "$A/host_sync-quiet.json")
like "$help" "advice: findings worst first" "the help lists !"
# Enter on a gap's row lands on the slice the row names (issue 31): the host work in the
# gap ("host in enumerate(DataLoader)..."), not the GPU operation after it
EXD="$srcdir/examples/dlrm-rank0-v100-nccl.pt.trace.json.gz"
out=$("$TTRACE" -q --dump-screen --size=160x40 --keys='!' "$EXD" | sed '/^--$/,$d')
like "$out" "1.33 ms  host in enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" "the worst gap's row names the DataLoader"
out=$("$TTRACE" -q --dump-screen --size=160x40 --keys='!<Enter>' "$EXD" | sed '/^--$/,$d' | sed -n '/^── details/{n;p;q}')
like "$out" "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" "and Enter selects the DataLoader, not the Memcpy after the gap"
finish
