#!/usr/bin/env python3
"""same_figures.py A B: whether two --report ... --json outputs hold the same figures, the
names of files, processes and pids aside: A from the ranks' own files, B from the file
`ttrace merge` wrote of them, read back as its ranks. Prints "same (N values)" and exits 0,
or prints where they first differ and exits 1.

Set aside, because merging changes them by design (ttrace(1), MERGE): each file's path,
codec and sizes, its count of events and of metadata events (merge writes its own process
names), pids and process names ("rank R: ..." in the merged file), and in a track's label
what comes before "[pid N]"."""
import json
import re
import sys

FILE_DROP = {"path", "codec", "json_bytes", "file_bytes", "events", "events_by_phase"}
DROP = {"pid", "process"}
PID_LABEL = re.compile(r"^.*?\[pid [^\]]*\]")


def norm(x, count):
    if isinstance(x, dict):
        drop = DROP | FILE_DROP if "path" in x else DROP  # a file's object
        return {k: norm(v, count) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [norm(v, count) for v in x]
    count[0] += 1
    if isinstance(x, str):
        return PID_LABEL.sub("[pid]", x)
    return x


def first_diff(a, b, where):
    if type(a) is not type(b):
        return f"{where}: {a!r} against {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'B' if k not in a else 'A'}"
            d = first_diff(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {a!r} against {b!r}"


def main():
    count = [0]
    a, b = (norm(json.load(open(p)), count) for p in sys.argv[1:3])
    d = first_diff(a, b, "$")
    if d:
        print(d[:600])
        return 1
    print(f"same ({count[0] // 2} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
