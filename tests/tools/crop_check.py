#!/usr/bin/env python3
"""crop_check.py FULL.dump CROP.dump W0 W1: checks a crop's model against its source's.

Both are `ttrace --dump-model` outputs. Every track of the source with a slice that
overlaps [W0, W1) ns (a slice of no length: that starts inside it) must be in the crop
with exactly those slices (start, duration, name), and the crop must hold no other slice.
Prints what differs and exits 1, or prints a count and exits 0."""
import re
import sys
from collections import Counter

TRACK = re.compile(r'^track t\d+ (.*) events \d+ ')
SLICE = re.compile(r'^    (-?\d+) \+(-?\d+) \S+ ("(?:[^"\\]|\\.)*")')


def slices(path):
    out, key = {}, None
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            m = TRACK.match(line)
            if m:
                key = m.group(1)
                out.setdefault(key, Counter())
                continue
            if line.startswith('track ') or not line.startswith('    '):
                if not line.startswith('  '):
                    key = None
                continue
            m = SLICE.match(line)
            if m and key is not None:
                out[key][(int(m.group(1)), int(m.group(2)), m.group(3))] += 1
    return out


def main():
    full, crop = slices(sys.argv[1]), slices(sys.argv[2])
    w0, w1 = int(sys.argv[3]), int(sys.argv[4])

    def overlaps(ts, dur):
        return ts < w1 and ts + dur > w0 if dur > 0 else w0 <= ts < w1

    bad = 0
    want_n = 0
    for key, c in full.items():
        want = Counter({s: n for s, n in c.items() if overlaps(s[0], s[1])})
        got = crop.get(key, Counter())
        want_n += sum(want.values())
        if want != got:
            bad += 1
            print(f'track {key}: missing {list((want - got).items())[:3]}, extra {list((got - want).items())[:3]}')
    for key, c in crop.items():
        if key not in full and sum(c.values()):
            bad += 1
            print(f'track {key} is not in the source')
    if bad:
        sys.exit(1)
    print(f'{want_n} slices in {sum(1 for c in crop.values() if c)} tracks')


main()
