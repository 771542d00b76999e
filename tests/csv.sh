#!/bin/sh
# csv.sh: --csv and --table (issue 35): every table a report writes in its JSON comes out as
# CSV with the JSON's keys as its header and the JSON's values, cell for cell, in the same
# units; the blocks of a whole report are its tables at their JSON paths; hostile names
# (commas, quotes, CR, LF, '#', NUL, ESC, invalid UTF-8) survive Python's csv module; and
# the combinations that make no sense are refused.
. "$srcdir/tests/lib.sh"

FX="$srcdir/tests/fixtures"
NAMES="$FX/csv/names.json"

# Python's csv and json modules are the reference reader (pandas.read_csv parses the same
# RFC 4180); without python3 the points that need it are skipped, the byte-level ones run.
have_py=0
command -v python3 >/dev/null 2>&1 && python3 -c 'import csv, json' 2>/dev/null && have_py=1

# check.py JSON CSV PATH: the table at PATH of the report's JSON against the CSV that
# --table=PATH wrote. A path that is not in the JSON is a column of rows: the longest
# prefix that is an array of rows, then the rest of the path as the key of each row's
# rows; its CSV starts with parent_row, the row's position in that array. Numbers are
# compared as the JSON's own text (the same digits, so the same units); a nested object
# {"cpu_slice": {"name": ...}} is the columns cpu_slice.name...; a key a row leaves out
# (or a nested object that is null) is an empty field; a NUL in JSON text is U+FFFD in
# CSV, an invalid byte (U+FFFD in JSON) comes through raw. Prints "ROWS COLUMNS" or why not.
cat >"$TMP/check.py" <<'EOF'
import csv, json, sys

class Num(str):
    pass

doc = json.load(open(sys.argv[1], encoding="utf-8"), parse_int=Num, parse_float=Num)
with open(sys.argv[2], encoding="utf-8", errors="surrogateescape", newline="") as f:
    recs = list(csv.reader(f))
path = sys.argv[3].split(".")

def get(v, parts):
    for p in parts:
        if isinstance(v, list):
            if not p.isdigit() or int(p) >= len(v):
                return KeyError
            v = v[int(p)]
        elif isinstance(v, dict) and p in v:
            v = v[p]
        else:
            return KeyError
    return v

rows, lead = get(doc, path), []
if not isinstance(rows, list):
    for cut in range(len(path) - 1, 0, -1):
        parent = get(doc, path[:cut])
        if isinstance(parent, list):
            rows, lead = [], ["parent_row"]
            for k, r in enumerate(parent):
                sub = get(r, path[cut:])
                for c in sub if isinstance(sub, list) else []:
                    rows.append(dict([("parent_row", Num(str(k)))] + list(c.items())))
            break
    else:
        sys.exit("no table at %s in the JSON" % sys.argv[3])

header, body = recs[0], recs[1:]
if lead and header[:1] != lead:
    sys.exit("a column of rows' CSV does not start with parent_row: %r" % header)
if len(set(header)) != len(header):
    sys.exit("a key twice in the header: %r" % header)
if len(body) != len(rows):
    sys.exit("%d CSV rows, %d JSON rows" % (len(body), len(rows)))

def flat(row):  # a list (a column of rows) is a table of its own: not a column here
    out = {}
    for k, v in row.items():
        if isinstance(v, list):
            continue
        if isinstance(v, dict):  # nested objects: dotted keys, at any depth
            for k2, v2 in flat(v).items():
                out[k + "." + k2] = v2
        elif v is None and k not in header and any(h.startswith(k + ".") for h in header):
            for h in header:
                if h.startswith(k + "."):
                    out[h] = None
        else:
            out[k] = v
    return out

def want(v):
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, str):
        return v.replace("\0", "\ufffd")
    sys.exit("not a scalar: %r" % (v,))

def got(cell):  # an invalid byte, kept raw, reads as JSON's U+FFFD
    return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in cell)

seen = set()
for i, (row, cells) in enumerate(zip(rows, body)):
    fr = flat(row)
    keys = [k for k in header if k in fr]
    if keys != list(fr):
        sys.exit("row %d: JSON keys %r are not the header's %r in its order" % (i, list(fr), header))
    if len(cells) != len(header):
        sys.exit("row %d: %d fields, %d columns" % (i, len(cells), len(header)))
    seen.update(fr)
    for k, cell in zip(header, cells):
        w = want(fr.get(k))
        if got(cell) != w:
            sys.exit("row %d, %s: CSV %r, JSON %r" % (i, k, cell, w))
# a column no JSON row has is a key every row left out (null): empty in every row
for j, k in enumerate(header):
    if rows and k not in seen and any(c[j] != "" for c in body):
        sys.exit("column %s is in no JSON row but has values" % k)
print(len(rows), len(header))
EOF

# tables NAME ARGS...: for the report run with ARGS, checks that --csv writes exactly the
# blocks listed in $want (their JSON paths, in order), each equal to what --table=PATH
# writes; and, with python3, each table against the JSON, cell for cell.
tables() {
	name=$1
	shift
	"$TTRACE" "$@" -q --json >"$TMP/r.json" 2>"$TMP/err"
	is "$?" 0 "$name: --json runs"
	"$TTRACE" "$@" -q --csv >"$TMP/r.csv" 2>"$TMP/err"
	is "$?" 0 "$name: --csv runs"
	: >"$TMP/joined"
	for p in $want; do
		[ -s "$TMP/joined" ] && echo >>"$TMP/joined"
		printf '# %s\n' "$p" >>"$TMP/joined"
		"$TTRACE" "$@" -q --csv --table="$p" >"$TMP/t.csv" 2>"$TMP/err"
		trc=$?
		cat "$TMP/t.csv" >>"$TMP/joined"
		if [ "$trc" -ne 0 ]; then
			ok 1 "$name: --table=$p runs (status $trc: $(cat "$TMP/err"))"
			continue
		fi
		if [ "$have_py" -eq 1 ]; then
			res=$(python3 "$TMP/check.py" "$TMP/r.json" "$TMP/t.csv" "$p" 2>&1)
			case "$res" in
			[0-9]*' '[0-9]*) ok 0 "$name: $p: $res rows x columns, header and cells = the JSON's" ;;
			*) ok 1 "$name: $p: $res" ;;
			esac
		fi
	done
	if cmp -s "$TMP/joined" "$TMP/r.csv"; then
		ok 0 "$name: --csv is the blocks $(echo $want | tr ' ' ',')"
	else
		ok 1 "$name: --csv is the blocks $(echo $want | tr ' ' ',')"
		diff "$TMP/joined" "$TMP/r.csv" | head -10 | sed 's/^/#   /'
	fi
}

# --- every report with tables -------------------------------------------------------------
want="files.0.steps files.0.tracks files.0.top_operators files.0.top_kernels"
tables summary --report=summary "$FX/overview-gpu.json"
tables "summary, hostile names" --report=summary "$NAMES"
want="files.0.devices files.0.breakdown files.0.phases files.0.steps"
tables overview --report=overview "$FX/overview-gpu.json"
want="files.0.tensorboard_steps files.0.devices files.0.devices.gpu_utilization.steps files.0.gaps files.0.stream_gaps"
tables gaps --report=gaps "$NAMES"
want="files.0.operators"
tables operators --report=operators "$NAMES"
tables "operators by shape" --report=operators --group-by=shape "$FX/diff/shapes-32.json"
tables "operators as a tree" --report=operators --group-by=tree "$FX/ops/tree.json"
want="files.0.kernels"
tables kernels --report=kernels "$NAMES"
tables "kernels, --top=2 --sort=calls" --report=kernels --top=2 --sort=calls "$FX/overview-gpu.json"
want="files.0.memory"
tables memory --report=memory "$FX/memory/counter.json"
# the findings: a row each, their instances (and over ranks, each rank's figure) as tables
# of their own; a straggler's reason, an object, is left to --json
want="files.0.limits files.0.findings files.0.findings.instances"
tables advice --report=advice "$FX/stragglers/compute/rank0.json"
tables "advice, hostile names" --report=advice "$NAMES"
want="ranks limits findings findings.ranks findings.instances"
tables "advice over ranks" --report=advice "$FX/stragglers/compute"
want="ranks collectives collectives.per_rank communication"
tables distributed --report=distributed "$FX/comm-stats"
want="steps kernel_families operators kernels findings"
tables diff diff "$FX/diff/before.json" "$FX/diff/after.json"
tables "diff --steps" diff --steps "$FX/diff/slow-step.json"
# several files: a block each, under files.N, N counting the files that loaded
want="files.0.kernels files.1.kernels"
tables "kernels of two files" --report=kernels "$FX/overview-gpu.json" "$NAMES"

# --table gives one file's table: the second file's kernels are the names fixture's
"$TTRACE" -q --report=kernels --csv --table=files.1.kernels "$FX/overview-gpu.json" "$NAMES" >"$TMP/k1.csv"
"$TTRACE" -q --report=kernels --csv --table=files.0.kernels "$NAMES" >"$TMP/k0.csv"
ok "$(cmp -s "$TMP/k1.csv" "$TMP/k0.csv"; echo $?)" "--table=files.1.kernels picks the second file's table"
head -1 "$TMP/k1.csv" >"$TMP/h"
is "$(cut -c1-15 "$TMP/h")" "name,calls,tota" "--table writes the table plain: its header first, no '#' line"
# a file that does not load is not counted: the good one after it is files.0
"$TTRACE" -q --report=kernels --csv --table=files.0.kernels "$FX/bad/not-trace-rocprof.json" "$NAMES" >"$TMP/kb.csv" 2>/dev/null
ok "$(cmp -s "$TMP/kb.csv" "$TMP/k0.csv"; echo $?)" "files.N counts the files that loaded (as --json)"

# without a report, and without a terminal, the summary's tables (as --json)
"$TTRACE" -q --csv "$NAMES" >"$TMP/d.csv"
"$TTRACE" -q --report=summary --csv "$NAMES" >"$TMP/s.csv"
ok "$(cmp -s "$TMP/d.csv" "$TMP/s.csv"; echo $?)" "--csv alone writes the summary's tables"

# --- hostile names, byte for byte ----------------------------------------------------------
"$TTRACE" -q --report=kernels --csv --table=files.0.kernels "$NAMES" >"$TMP/k.csv"
"$TTRACE" -q --report=operators --csv --table=files.0.operators "$NAMES" >"$TMP/o.csv"
# RFC 4180 by hand: quoted, the quotes doubled
like "$(cat "$TMP/k.csv")" '"void k<float, 2>(int, ""x"")",1,50000,' "a kernel name with commas and quotes is quoted, its quotes doubled"
like "$(cat "$TMP/k.csv")" ',"aten::add, ""fused""",' "and so is the operator that launched it"
like "$(cat "$TMP/o.csv")" '
"sleep, zz",' "a name with a comma and no quote is quoted"
printf '"line1\nline2\r\nline3",' >"$TMP/lf"
ok "$(grep -c -F "$(printf 'line2\r')" "$TMP/o.csv" >/dev/null && tr -d '\n' <"$TMP/o.csv" | grep -q -F "$(tr -d '\n' <"$TMP/lf")"; echo $?)" \
	"a name with LF and CRLF is quoted, its line breaks kept as they are"
like "$(cat "$TMP/o.csv")" '
"#not a comment",' "a name starting with # is quoted (no line of data reads as a block's comment)"
like "$(cat "$TMP/k.csv")" "$(printf 'ctrl \033[31m bidi \342\200\256 end,')" "ESC and bidi controls are written raw: CSV is data, not terminal text"
ok "$(tr -d '\000' <"$TMP/o.csv" | cmp -s - "$TMP/o.csv"; echo $?)" "no NUL byte in the CSV"
like "$(cat "$TMP/o.csv")" "$(printf '\nnul\357\277\275byte,')" "a NUL in a name is written as U+FFFD"
# an invalid byte: raw in CSV (U+FFFD in JSON)
sed 's/#hash_kernel/\xffhash_kernel/' "$NAMES" >"$TMP/bad-utf8.json"
"$TTRACE" -q --report=kernels --csv --table=files.0.kernels "$TMP/bad-utf8.json" >"$TMP/ku.csv"
ok "$(grep -q "$(printf '^\377hash_kernel,1,50000,')" "$TMP/ku.csv"; echo $?)" "an invalid UTF-8 byte is written as it is"
if [ "$have_py" -eq 1 ]; then
	"$TTRACE" -q --report=kernels --json "$TMP/bad-utf8.json" >"$TMP/ku.json"
	res=$(python3 "$TMP/check.py" "$TMP/ku.json" "$TMP/ku.csv" files.0.kernels 2>&1)
	like "$res" "4 " "and reads as the JSON's U+FFFD through Python's csv module (surrogateescape)"
	# the names read back through Python's csv module are the trace's, byte for byte
	res=$(python3 -c '
import csv, sys
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    print(sorted(r[0] for r in list(csv.reader(f))[1:]) == sorted(["void k<float, 2>(int, \"x\")", "kern\r\nel", "#hash_kernel", "ctrl \x1b[31m bidi \u202e end"]))
' "$TMP/k.csv")
	is "$res" "True" "Python's csv module reads the kernel names back as the trace has them"
fi
# the null/empty distinction: an empty field is null; the header has no field quoted
is "$(head -1 "$TMP/k.csv" | tr -cd '"' | wc -c)" 0 "no key in a header is quoted"

# --- what is refused -------------------------------------------------------------------------
run --report=kernels --csv --json "$NAMES"
is "$rc" 2 "--csv with --json: a usage error"
like "$err" "ttrace: --csv and --json: choose one" "it says so"
run --report=kernels --table=files.0.kernels "$NAMES"
is "$rc" 2 "--table without --csv: a usage error"
like "$err" "--table goes with --csv" "it says so"
run --report=none --csv "$NAMES"
is "$rc" 2 "--report=none --csv: refused (no report, no table)"
like "$err" "--csv goes with --report=summary, overview, advice, gaps, distributed, operators, kernels or memory and ttrace diff" \
	"it says which reports have tables"
is "$out" "" "and writes nothing"
run --check --csv "$NAMES"
is "$rc" 2 "--check --csv: refused"
run --report=none --csv "$NAMES"
is "$rc" 2 "--report=none --csv: refused"
run --dump-screen --csv "$NAMES"
is "$rc" 2 "--dump-screen --csv: refused"
run --report=gaps --csv --table=files.0.gap "$NAMES"
is "$rc" 2 "--table naming no table: a usage error"
like "$err" "ttrace: --table: the report has no table 'files.0.gap' (its tables: files.0.tensorboard_steps, files.0.devices, files.0.devices.gpu_utilization.steps, files.0.gaps, files.0.stream_gaps)" \
	"it lists the report's tables"
is "$out" "" "and writes no table"

finish
