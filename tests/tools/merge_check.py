#!/usr/bin/env python3
"""merge_check.py MERGED.dump RANK.dump PID_BASE OFFSET_NS: checks one rank of a merge.

Both are `ttrace --dump-model` outputs: the merged file's and the rank's own. The merged
tracks whose pid lies in [PID_BASE, PID_BASE + 100000) must be the rank's tracks (their
pid aside), each with the rank's slices moved by OFFSET_NS (start, duration, name, and the
name of the slice its launch links it to, which a correlation shared with another rank
would change). Prints what differs and exits 1, or a count and exits 0."""
import re
import sys
from collections import Counter

TRACK = re.compile(r'^track t(\d+) (\S+) pid (\S+) (.*) events \d+ ')
SLICE = re.compile(r'^    (-?\d+) \+(-?\d+) \S+ ("(?:[^"\\]|\\.)*")(.*)$')
PEER = re.compile(r' peer (?:-|t(\d+)@(-?\d+):("(?:[^"\\]|\\.)*"))')


def tracks(path, lo=None, shift=0):
    """Per track (kind, the rest of its line but its pid), the slices (start - SHIFT,
    duration, name, peer); a peer is (its name, its start - SHIFT, whether its track is
    in the same pid range), or None."""
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        lines = f.readlines()
    pid_of = {}
    for line in lines:
        m = TRACK.match(line)
        if m:
            pid_of[m.group(1)] = m.group(3)

    def in_range(pid):
        if lo is None:
            return True
        return pid.lstrip('-').isdigit() and lo <= int(pid) < lo + 100000

    out, key = {}, None
    for line in lines:
        m = TRACK.match(line)
        if m:
            if not in_range(m.group(3)):
                key = None
                continue
            key = (m.group(2), m.group(4))
            out.setdefault(key, Counter())
            continue
        if not line.startswith('  '):
            key = None
            continue
        m = SLICE.match(line)
        if m and key is not None:
            p = PEER.search(m.group(4))
            peer = None
            if p and p.group(1):
                peer = (p.group(3), int(p.group(2)) - shift, in_range(pid_of.get(p.group(1), '')))
            out[key][(int(m.group(1)) - shift, int(m.group(2)), m.group(3), peer)] += 1
    return out


def main():
    base, off = int(sys.argv[3]), int(sys.argv[4])
    merged = tracks(sys.argv[1], base, off)
    rank = tracks(sys.argv[2])
    bad = 0
    for key in set(merged) | set(rank):
        a, b = merged.get(key, Counter()), rank.get(key, Counter())
        if a != b:
            bad += 1
            print(f'track {key}: merged lacks {list((b - a).items())[:2]}, has more {list((a - b).items())[:2]}')
    if bad:
        sys.exit(1)
    n = sum(sum(c.values()) for c in rank.values())
    links = sum(v for c in rank.values() for s, v in c.items() if s[3] is not None)
    print(f'{n} slices ({links} linked) in {len(rank)} tracks')


main()
