#!/usr/bin/env python3
"""Compute the facts listed in tests/fixtures/README for trace fixtures.

Developer tool only: the test suite does not need Python. Usage:

    python3 tests/tools/fixture_facts.py FILE...

For each FILE (plain, .gz or .zst; zstd through the `zstd` CLI) it prints:
  * the first strict-JSON error: 0-based byte offset in the uncompressed
    bytes, 1-based line and byte column, found with a small RFC 8259
    validator that also checks UTF-8; the offset is the first byte that
    cannot extend the text read so far to valid JSON (end of input for a
    truncation), plus where the offending sequence starts if earlier;
  * for a broken trace: the complete events before the error, and the
    facts of a salvaged / lenient / resynchronised read;
  * for a readable trace: events by ph, tracks, span, X per track, nesting
    depth, kernels, NCCL kernels, GPU overlap and busy time, flows,
    ProfilerSteps, metadata; times in exact integer ns (the decimal text of
    ts times 1000, never through a double).

The definitions are written out in tests/fixtures/README.
"""
import collections
import json
import re
import subprocess
import sys
import zlib
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy", "Memset",
            "cuda_profiler_range"}
KERNEL_CATS = {"kernel", "Kernel"}


# ------------------------------------------------------------------ strict validator
class JErr(Exception):
    def __init__(self, pos, msg, start=None):
        self.pos, self.msg = pos, msg
        self.start = pos if start is None else start


def validate(b):
    """Return None if b is valid JSON (RFC 8259, UTF-8), else (pos, msg)."""
    n = len(b)
    WS = b' \t\r\n'

    def ws(i):
        while i < n and b[i] in WS:
            i += 1
        return i

    def need(i):
        if i >= n:
            raise JErr(i, "unexpected end of input")

    def string(i):
        i += 1
        while True:
            need(i)
            c = b[i]
            if c == 0x22:
                return i + 1
            if c < 0x20:
                raise JErr(i, "raw control character 0x%02x in string" % c)
            if c == 0x5c:
                bs = i
                i += 1
                need(i)
                e = b[i]
                if e in b'"\\/bfnrt':
                    i += 1
                elif e == 0x75:
                    i += 1
                    for _ in range(4):
                        need(i)
                        if b[i] not in b'0123456789abcdefABCDEF':
                            raise JErr(i, "bad \\u escape", bs)
                        i += 1
                else:
                    raise JErr(i, "invalid escape \\%s" % chr(e), bs)
                continue
            if c < 0x80:
                i += 1
                continue
            # UTF-8
            if 0xc2 <= c <= 0xdf:
                k, lo, hi = 1, 0x80, 0xbf
            elif c == 0xe0:
                k, lo, hi = 2, 0xa0, 0xbf
            elif 0xe1 <= c <= 0xec or 0xee <= c <= 0xef:
                k, lo, hi = 2, 0x80, 0xbf
            elif c == 0xed:
                k, lo, hi = 2, 0x80, 0x9f
            elif c == 0xf0:
                k, lo, hi = 3, 0x90, 0xbf
            elif 0xf1 <= c <= 0xf3:
                k, lo, hi = 3, 0x80, 0xbf
            elif c == 0xf4:
                k, lo, hi = 3, 0x80, 0x8f
            else:
                raise JErr(i, "invalid UTF-8 lead byte 0x%02x" % c)
            lead = i
            i += 1
            for j in range(k):
                need(i)
                if not (lo <= b[i] <= hi if j == 0 else 0x80 <= b[i] <= 0xbf):
                    raise JErr(i, "invalid UTF-8 continuation byte 0x%02x after lead byte 0x%02x" % (b[i], c), lead)
                i += 1

    def digits(i):
        need(i)
        if not (0x30 <= b[i] <= 0x39):
            raise JErr(i, "digit expected in number", NUMSTART)
        while i < n and 0x30 <= b[i] <= 0x39:
            i += 1
        return i

    def number(i):
        global NUMSTART
        NUMSTART = i
        if b[i] == 0x2d:
            i += 1
        need(i)
        if b[i] == 0x30:
            i += 1
        elif 0x31 <= b[i] <= 0x39:
            i = digits(i)
        else:
            raise JErr(i, "digit expected")
        if i < n and b[i] == 0x2e:
            i = digits(i + 1)
        if i < n and b[i] in b'eE':
            i += 1
            if i < n and b[i] in b'+-':
                i += 1
            i = digits(i)
        return i

    def value(i):
        i = ws(i)
        need(i)
        c = b[i]
        if c == 0x7b:
            i = ws(i + 1)
            need(i)
            if b[i] == 0x7d:
                return i + 1
            while True:
                need(i)
                if b[i] != 0x22:
                    raise JErr(i, "object key string expected")
                i = ws(string(i))
                need(i)
                if b[i] != 0x3a:
                    raise JErr(i, "':' expected")
                i = ws(value(i + 1))
                need(i)
                if b[i] == 0x2c:
                    i = ws(i + 1)
                    continue
                if b[i] == 0x7d:
                    return i + 1
                raise JErr(i, "',' or '}' expected")
        if c == 0x5b:
            i = ws(i + 1)
            need(i)
            if b[i] == 0x5d:
                return i + 1
            while True:
                i = ws(value(i))
                need(i)
                if b[i] == 0x2c:
                    i += 1
                    continue
                if b[i] == 0x5d:
                    return i + 1
                raise JErr(i, "',' or ']' expected")
        if c == 0x22:
            return string(i)
        if c == 0x2d or 0x30 <= c <= 0x39:
            return number(i)
        for lit in (b'true', b'false', b'null'):
            if c == lit[0]:
                for k in range(len(lit)):
                    need(i + k)
                    if b[i + k] != lit[k]:
                        raise JErr(i + k, "bad literal")
                return i + len(lit)
        raise JErr(i, "value expected")

    sys.setrecursionlimit(10000)
    try:
        i = ws(value(0))
        if i != n:
            raise JErr(i, "trailing data after the top-level value")
    except JErr as e:
        return e.pos, e.msg, e.start
    return None


def line_col(b, pos):
    line = b.count(b'\n', 0, pos) + 1
    col = pos - (b.rfind(b'\n', 0, pos) + 1) + 1
    return line, col


# ------------------------------------------------------------------ reading
def read_bytes(path):
    raw = open(path, 'rb').read()
    info = {"stored_bytes": len(raw)}
    if raw[:2] == b'\x1f\x8b':
        d = zlib.decompressobj(16 + 15)
        out = d.decompress(raw) + d.flush()
        info["compression"] = "gzip"
        info["complete_stream"] = d.eof
        return out, info
    if raw[:4] == b'\x28\xb5\x2f\xfd':
        p = subprocess.run(["zstd", "-dc"], input=raw, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        info["compression"] = "zstd"
        info["complete_stream"] = p.returncode == 0
        info["zstd_stderr"] = p.stderr.decode(errors='replace').strip()
        return p.stdout, info
    info["compression"] = None
    return raw, info


def dec_ns(x):
    """Exact ns from the Decimal/int µs value."""
    v = Decimal(x) * 1000
    if v != v.to_integral_value():
        return str(v)
    return int(v)


def norm(v):
    if isinstance(v, str) and re.fullmatch(r'[0-9]+', v):
        return int(v)
    return v


def keyrepr(v):
    if v is NONE:
        return "<none>"
    return json.dumps(v)


NONE = object()
NUMSTART = 0


def resync_events(b):
    text = b.decode("utf-8", "replace")
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if m:
        pos = m.end()
    elif text.lstrip().startswith('['):
        pos = text.index('[') + 1
    else:
        return [], 0
    dec = json.JSONDecoder(parse_float=Decimal, strict=False)
    good, skipped, n = [], 0, len(text)
    while pos < n:
        while pos < n and text[pos] in ' \t\r\n,':
            pos += 1
        if pos >= n or text[pos] == ']':
            break
        try:
            o, pos = dec.raw_decode(text, pos)
            good.append(o)
        except json.JSONDecodeError as e:
            skipped += 1
            m2 = re.compile(r'\}\s*,\s*\{').search(text, max(e.pos, pos + 1))
            if not m2:
                break
            pos = m2.end() - 1
    return good, skipped


def complete_events(b, limit=None):
    """Events that parse and end before byte offset limit (events in the array, in order)."""
    text = b.decode("latin-1")
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if m:
        pos = m.end()
    else:
        s = text.lstrip()
        if not s.startswith('['):
            return None
        pos = text.index('[') + 1
    dec = json.JSONDecoder(parse_float=Decimal)
    out = []
    n = len(text)
    while True:
        while pos < n and text[pos] in ' \t\r\n,':
            pos += 1
        if pos >= n or text[pos] == ']':
            break
        try:
            o, end = dec.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        if limit is not None and end > limit:
            break
        pos = end
        out.append(o)
    return out


# ------------------------------------------------------------------ facts
def num(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def union_of(items):
    u = Decimal(0)
    cs = ce = None
    for s1, t1 in sorted(items):
        if cs is None or s1 > ce:
            if cs is not None:
                u += ce - cs
            cs, ce = s1, t1
        else:
            ce = max(ce, t1)
    if cs is not None:
        u += ce - cs
    return u


def cnt(counter):
    return ", ".join("%s=%d" % kv for kv in sorted(counter.items(), key=lambda kv: str(kv[0])))


def tkey(e, n=True):
    p = e.get("pid", NONE)
    t = e.get("tid", NONE)
    if n:
        p = norm(p) if p is not NONE else p
        t = norm(t) if t is not NONE else t
    return (keyrepr(p), keyrepr(t))


def trace_facts(doc, brief=False):
    P = []
    if isinstance(doc, list):
        events = doc
        P.append("top level: bare array")
    else:
        events = doc.get("traceEvents")
        P.append("top level: object; keys in order: " + ", ".join(doc.keys()))
        h = []
        for k in ("schemaVersion", "displayTimeUnit", "baseTimeNanoseconds", "traceName"):
            if k in doc:
                h.append("%s=%s" % (k, json.dumps(doc[k]) if not isinstance(doc[k], Decimal) else str(doc[k])))
        if "deviceProperties" in doc:
            h.append("deviceProperties: %d entries" % len(doc["deviceProperties"]))
        di = doc.get("distributedInfo")
        if isinstance(di, dict):
            h.append("distributedInfo: " + ", ".join("%s=%s" % (k, json.dumps(di[k])) for k in
                                                     ("backend", "rank", "world_size", "pg_count") if k in di))
        if h and not brief:
            P.append("header: " + "; ".join(h))
        if events is None:
            P.append("NO traceEvents key")
            return P
    base = doc.get("baseTimeNanoseconds") if isinstance(doc, dict) else None
    P.append("events %d: %s" % (len(events), cnt(collections.Counter(str(e.get("ph")) for e in events))))
    nonM = [e for e in events if e.get("ph") != "M"]
    if not brief:
        P.append("cat (non-M): " + cnt(collections.Counter(str(e.get("cat", "<no cat>")) for e in nonM)))
    raw_tracks = set(tkey(e, False) for e in nonM)
    n_tracks = collections.OrderedDict()
    for e in nonM:
        n_tracks.setdefault(tkey(e), []).append(e)
    P.append("tracks (pid,tid) of non-M events: raw %d, normalised %d" % (len(raw_tracks), len(n_tracks)))

    tsev = [e for e in nonM if num(e.get("ts"))]
    if tsev and not brief:
        lo = min(e["ts"] for e in tsev)
        hi = max(e["ts"] + (e.get("dur") if num(e.get("dur")) else 0) for e in tsev)
        line = "span of non-M events [%s, %s) ns = %s ns" % (dec_ns(lo), dec_ns(hi), dec_ns(hi - lo))
        act = [e for e in tsev if e.get("ph") == "X" and e.get("cat") != "Trace" and e["ts"] != 0]
        if act:
            lo2 = min(e["ts"] for e in act)
            hi2 = max(e["ts"] + (e.get("dur") if num(e.get("dur")) else 0) for e in act)
            if (lo2, hi2) == (lo, hi):
                line += " (same for X events without Trace/ts 0)"
            else:
                line += "; X events without Trace/ts 0: [%s, %s) = %s ns" % (dec_ns(lo2), dec_ns(hi2), dec_ns(hi2 - lo2))
            if base is not None:
                line += "; absolute X span [%d, %d) ns" % (int(base) + dec_ns(lo2), int(base) + dec_ns(hi2))
        P.append(line)
        zero = [e for e in nonM if num(e.get("ts")) and e["ts"] == 0]
        if zero:
            P.append("events with ts 0: %d (%s)" % (len(zero), cnt(collections.Counter(
                "%s/%s" % (e.get("ph"), e.get("cat")) for e in zero))))
        back, prev = 0, None
        for e in events:
            if num(e.get("ts")):
                if prev is not None and e["ts"] < prev:
                    back += 1
                prev = e["ts"]
        P.append("ts decreases in file order: %d times" % back)

    gpu_tracks = set(k for k, evs in n_tracks.items()
                     if any(e.get("ph") == "X" and e.get("cat") in GPU_CATS for e in evs))
    if not brief:
        P.append("per track: X count, other phases, class, depth (containment/stack)")
    for k, evs in n_tracks.items():
        if brief:
            break
        xs = [(i, e) for i, e in enumerate(evs) if e.get("ph") == "X" and num(e.get("ts"))]
        other = collections.Counter(e.get("ph") for e in evs if e.get("ph") != "X")
        line = "  (%s,%s) X=%d" % (k[0], k[1], len(xs))
        if other:
            line += " +" + ",".join("%s:%d" % kv for kv in sorted(other.items(), key=str))
        if xs:
            iv = [(i, e["ts"], e["ts"] + (e.get("dur") or 0)) for i, e in xs]
            cdepth = {}
            for i, s0, t0 in iv:
                d = 1
                for j, s2, t2 in iv:
                    if j != i and s2 <= s0 and t0 <= t2 and not (s2 == s0 and t2 == t0 and j > i):
                        d += 1
                cdepth[i] = d
            st, sdepth = [], {}
            for i, s0, t0 in sorted(iv, key=lambda x: (x[1], -x[2], x[0])):
                while st and st[-1] <= s0:
                    st.pop()
                sdepth[i] = len(st) + 1
                st.append(t0)
            partial = []
            so = sorted(iv, key=lambda x: (x[1], x[2]))
            for x in range(len(so)):
                for y in range(x + 1, len(so)):
                    _, sa, ta = so[x]
                    _, sb, tb = so[y]
                    if sb >= ta:
                        break
                    if sa < sb < ta < tb:
                        partial.append((ta - sb, tb - ta))
            cm, sm = max(cdepth.values()), max(sdepth.values())
            line += " %s depth %s" % ("GPU" if k in gpu_tracks else "CPU/other", cm if cm == sm else "%d/%d" % (cm, sm))
            if partial:
                line += "; partial overlaps %d (overlap max %s ns, overhang max %s ns)" % (
                    len(partial), dec_ns(max(p[0] for p in partial)), dec_ns(max(p[1] for p in partial)))
            nd = sum(1 for i in cdepth if cdepth[i] != sdepth[i])
            if nd:
                line += "; %d events with different depths" % nd
        P.append(line)
    for k, evs in n_tracks.items():
        if brief:
            break
        be = sorted([(e["ts"], i, e) for i, e in enumerate(evs) if e.get("ph") in ("B", "E") and num(e.get("ts"))],
                    key=lambda x: (x[0], x[1]))
        if not be:
            continue
        st, sl, bad_e = [], [], 0
        for ts, i, e in be:
            if e["ph"] == "B":
                st.append(e)
            elif st:
                b0 = st.pop()
                sl.append("%s [%s,%s)%s" % (json.dumps(b0.get("name")), dec_ns(b0["ts"]), dec_ns(ts),
                                            "" if e.get("name") == b0.get("name") else " (E named %s)" % json.dumps(e.get("name"))))
            else:
                bad_e += 1
        P.append("  B/E slices on (%s,%s): %d%s%s: %s" % (k[0], k[1], len(sl), "; unmatched B %d" % len(st) if st else "",
                                                         "; unmatched E %d" % bad_e if bad_e else "", "; ".join(sl)))

    kern = [e for e in events if e.get("ph") == "X" and e.get("cat") in KERNEL_CATS]
    nccl = [e for e in kern if str(e.get("name", "")).lower().startswith("nccl")]
    by_stream = collections.Counter("(%s,%s)" % tkey(e) for e in kern)
    P.append("kernels %d, NCCL %d%s" % (len(kern), len(nccl), "; per track " + cnt(by_stream) if by_stream else ""))
    if kern and not brief:
        e = kern[0]
        P.append("  first kernel in file order: %s... on (%s,%s) ts %s ns dur %s ns" % (
            str(e.get("name"))[:40], json.dumps(e.get("pid")), json.dumps(e.get("tid")), dec_ns(e["ts"]), dec_ns(e.get("dur", 0))))
    for e in (nccl[:4] if not brief else []):
        P.append("  NCCL %s... on (%s,%s) [%s, %s) ns" % (e["name"][:40], e.get("pid"), e.get("tid"), dec_ns(e["ts"]),
                                                       dec_ns(e["ts"] + e.get("dur", 0))))
    oc = collections.Counter(e.get("cat") for e in events if e.get("ph") == "X" and e.get("cat") in (
        "gpu_memcpy", "gpu_memset", "Memcpy", "Memset", "gpu_user_annotation", "cuda_runtime", "Runtime", "cuda_driver"))
    if oc and not brief:
        P.append("other X: " + cnt(oc))
    for k in ([] if brief else sorted(gpu_tracks)):
        g = sorted([(e["ts"], e["ts"] + (e.get("dur") or 0), e.get("name")) for e in n_tracks[k]
                    if e.get("ph") == "X" and e.get("cat") in GPU_CATS - {"gpu_user_annotation"} and num(e.get("ts"))])
        if not g:
            continue
        ov, maxend = [], None
        for s0, t0, nm in g:
            if maxend is not None and s0 < maxend:
                ov.append("%s.. %s%s" % (str(nm)[:16], dec_ns(min(t0, maxend) - s0), " inside" if t0 <= maxend else ""))
            maxend = t0 if maxend is None else max(maxend, t0)
        P.append("  GPU (%s,%s): %d kernel/memcpy/memset ops, sum dur %s ns, union %s ns, overlapping an earlier op: %d%s" % (
            k[0], k[1], len(g), dec_ns(sum(t - s0 for s0, t, _ in g)), dec_ns(union_of([(x[0], x[1]) for x in g])), len(ov),
            (" [" + "; ".join(ov[:8]) + (" ..." if len(ov) > 8 else "") + "] (ns)") if ov else ""))
    dev, devk = collections.defaultdict(list), collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS - {"gpu_user_annotation"} and num(e.get("ts")) and e["ts"] != 0:
            item = (e["ts"], e["ts"] + (e.get("dur") or 0))
            dev[keyrepr(norm(e.get("pid")))].append(item)
            if e.get("cat") in KERNEL_CATS:
                devk[keyrepr(norm(e.get("pid")))].append(item)
    for p in ([] if brief else sorted(dev)):
        P.append("  device pid %s union (ts 0 left out): kernels %s ns, kernels+memcpy+memset %s ns" % (
            p, dec_ns(union_of(devk[p])) if devk[p] else 0, dec_ns(union_of(dev[p]))))

    fl = [e for e in events if e.get("ph") in ("s", "t", "f")]
    if fl:
        fc = collections.Counter(e["ph"] for e in fl)
        starts = collections.Counter((e.get("cat"), str(e.get("id"))) for e in fl if e["ph"] == "s")
        ends = collections.Counter((e.get("cat"), str(e.get("id"))) for e in fl if e["ph"] == "f")
        P.append("flows s=%d t=%d f=%d; f without s %d; s without f %d; repeated f ids %d; f with bp e %d; by cat/ph: %s" % (
            fc.get("s", 0), fc.get("t", 0), fc.get("f", 0), sum(c for k, c in ends.items() if k not in starts),
            sum(c for k, c in starts.items() if k not in ends), sum(1 for k, c in ends.items() if c > 1),
            sum(1 for e in fl if e["ph"] == "f" and e.get("bp") == "e"),
            cnt(collections.Counter("%s/%s" % (e.get("cat"), e["ph"]) for e in fl))))
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep")]
    for e in steps:
        P.append("%s (%s) on (%s,%s) ts %s ns dur %s ns" % (e["name"], e.get("cat", "no cat"), json.dumps(e.get("pid")),
                                                         json.dumps(e.get("tid")), dec_ns(e["ts"]), dec_ns(e.get("dur", 0))))
    if not steps:
        P.append("no ProfilerStep")
    if brief:
        return P
    ms = [e for e in events if e.get("ph") == "M"]
    if ms:
        P.append("M: " + cnt(collections.Counter(e.get("name") for e in ms)))
        tn = collections.OrderedDict()
        for e in ms:
            if e.get("name") == "thread_name":
                tn.setdefault("(%s,%s)" % tkey(e), []).append(e["args"].get("name"))
        for k, v in tn.items():
            uniq = list(dict.fromkeys(v))
            if len(uniq) > 1:
                P.append("  conflicting thread_name %s: %s" % (k, " then ".join(json.dumps(x) for x in uniq)))
        pn = collections.OrderedDict()
        for e in ms:
            if e.get("name") == "process_name":
                pn.setdefault(keyrepr(norm(e.get("pid"))), []).append(e["args"].get("name"))
        groups = collections.OrderedDict()
        for k, v in pn.items():
            uniq = list(dict.fromkeys(v))
            desc = " then ".join(json.dumps(x) for x in uniq) + (" (x%d)" % len(v) if len(v) > 1 else "")
            groups.setdefault(desc, []).append(k)
        for desc, pids in groups.items():
            P.append("  process_name %s %s: %s" % ("pid" if len(pids) == 1 else "pids", ", ".join(pids), desc))
    inst = [e for e in events if e.get("ph") in ("i", "I")]
    if inst:
        line = "instants: " + cnt(collections.Counter("%s/s=%s" % (e["ph"], e.get("s", "none")) for e in inst))
        memv = [e for e in inst if e.get("name") == "[memory]"]
        if memv:
            line += "; [memory] %d (with cat %d, without %d), sum Bytes %d, negative Bytes %d" % (
                len(memv), sum(1 for e in memv if "cat" in e), sum(1 for e in memv if "cat" not in e),
                sum(e["args"].get("Bytes", 0) for e in memv), sum(1 for e in memv if e["args"].get("Bytes", 0) < 0))
        P.append(line)
    names = [e.get("name") for e in events if isinstance(e.get("name"), str)]
    if names:
        ln = max(names, key=len)
        P.append("longest name: %d chars, %d UTF-8 bytes" % (len(ln), len(ln.encode("utf-8", "surrogatepass"))))
    return P


def facts(path):
    out = ["== %s" % path]
    b, info = read_bytes(path)
    line = "%d bytes" % info["stored_bytes"]
    if info["compression"]:
        line += " %s -> %d bytes%s" % (info["compression"], len(b), "" if info["complete_stream"] else
                                       " (stream INCOMPLETE%s)" % ((": zstd says " + info["zstd_stderr"]) if info.get("zstd_stderr") else ""))
    line += "; begins %r" % b[:12]
    out.append(line)
    err = validate(b)
    if err is None:
        out.append("strict JSON (RFC 8259 + UTF-8): valid")
    else:
        pos, msg, start = err
        line, col = line_col(b, pos)
        out.append("strict JSON: FIRST ERROR at byte %d (line %d, column %d): %s; byte there %r" % (
            pos, line, col, msg, b[pos:pos + 1] if pos < len(b) else "<EOF>"))
        if start != pos:
            l2, c2 = line_col(b, start)
            out.append("  offending sequence starts at byte %d (line %d, column %d): %r" % (start, l2, c2, b[start:pos + 1]))
    text = b.decode("utf-8", "surrogateescape")
    doc = json.loads(text, parse_float=Decimal) if err is None else None
    looks_like_trace = bool(re.search(r'"traceEvents"\s*:\s*\[', text)) or text.lstrip().startswith('[')
    if doc is None and err is not None and looks_like_trace:
        evs = complete_events(b, err[0])
        out.append("complete events that end before the first error: %d" % len(evs))
        lenient = None
        if err[0] == len(b):
            if evs:
                lenient = ("salvaged (the complete events)", {"traceEvents": evs})
        else:
            t2 = b.decode("utf-8", "replace")
            t2 = re.sub(r'\\(?![\\"/bfnrtu])', r'\\\\', t2)
            t2 = re.sub(r'(?<=[:\[,\s])(-?)(inf|nan)(?=[\s,}\]])',
                        lambda m: "NaN" if m.group(2) == "nan" else m.group(1) + "Infinity", t2)
            try:
                lenient = ("lenient read (bad UTF-8 -> U+FFFD, raw control characters accepted, invalid escapes "
                           "kept as a literal backslash, bare inf/nan as non-finite)",
                           json.loads(t2, parse_float=Decimal, strict=False))
            except json.JSONDecodeError as e:
                good, skipped = resync_events(b)
                out.append("lenient read fails too (%s); resync at the next '},{' boundary: %d good events, %d damaged region(s) skipped"
                           % (e.msg, len(good), skipped))
                if good:
                    lenient = ("the good events", {"traceEvents": good})
        if lenient:
            out.append(lenient[0] + ":")
            out += ["  " + l for l in trace_facts(lenient[1], brief=True)]
    if isinstance(doc, (list, dict)):
        if isinstance(doc, dict) and "traceEvents" not in doc:
            out.append("valid JSON but no traceEvents; top-level keys: " + ", ".join(doc.keys()))
        else:
            out += trace_facts(doc)
    return "\n".join(out)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(facts(p))
        print()
