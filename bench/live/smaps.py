#!/usr/bin/env python3
"""Where a process's resident memory is, from /proc/PID/smaps.

    smaps.py PID          prints the breakdown
    smaps.py --file PATH  the same for a saved copy of a smaps file

bench.py imports breakdown() to print it at the end of each run.  Each
mapping is put in one group:

- the executable, each shared library and each other mapped file (the
  database's -shm), by file name (all its mappings);
- [heap], the main arena (brk), and [stack], the main thread's;
- a thread stack: an anonymous writable mapping right above a guard page
  (an inaccessible mapping that ends where it starts), the way glibc and
  musl lay out pthread stacks.  The kernel merges anonymous mappings that
  touch, so with musl, whose malloc maps its blocks next to them, this
  group holds such blocks too;
- a malloc arena: glibc's per-thread arenas are 64 MiB-aligned anonymous
  heaps whose unused rest is an inaccessible mapping right after them;
- other anonymous memory: large malloc blocks glibc or musl map one by
  one (SQLite's page caches among them), and whatever the libraries map.

Private (dirty and clean) is what this process alone holds; shared is
resident memory it shares with other processes (library text, mostly).
"""
import os
import sys

ARENA_ALIGN = 64 << 20


def parse(text):
    maps = []
    cur = None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if "-" in f[0] and len(f) >= 5 and not f[0].endswith(":"):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            cur = {"lo": lo, "hi": hi, "perms": f[1],
                   "path": " ".join(f[5:]) if len(f) > 5 else "", "kb": {}}
            maps.append(cur)
        elif cur is not None and f[0].endswith(":") and len(f) >= 2 and f[1].isdigit():
            cur["kb"][f[0][:-1]] = int(f[1])
    return maps


def group_of(maps, i, exe):
    m = maps[i]
    path = m["path"]
    if path == "[heap]":
        return "heap (brk)"
    if path == "[stack]":
        return "main thread stack"
    if path.startswith("["):
        return "kernel (%s)" % path.strip("[]")
    if path:
        base = os.path.basename(path.replace(" (deleted)", ""))
        if exe and os.path.basename(exe) == base:
            return "executable " + base
        if ".so" in base:
            return "lib " + base
        return "file " + base
    if m["perms"].startswith("---"):
        return "guard / reserve"
    prev = maps[i - 1] if i > 0 else None
    nxt = maps[i + 1] if i + 1 < len(maps) else None
    if (nxt and not nxt["path"] and nxt["perms"].startswith("---")
            and nxt["lo"] == m["hi"] and m["lo"] % ARENA_ALIGN == 0):
        return "malloc arenas (per thread)"
    if (prev and not prev["path"] and prev["perms"].startswith("---")
            and prev["hi"] == m["lo"] and prev["hi"] - prev["lo"] <= 1 << 16):
        return "thread stacks"
    return "other anonymous (large malloc blocks, library maps)"


def breakdown(text, exe=None):
    """{group: [rss, private, shared, pss, count]} in kB."""
    maps = parse(text)
    out = {}
    for i, m in enumerate(maps):
        g = group_of(maps, i, exe)
        kb = m["kb"]
        priv = kb.get("Private_Clean", 0) + kb.get("Private_Dirty", 0)
        shr = kb.get("Shared_Clean", 0) + kb.get("Shared_Dirty", 0)
        row = out.setdefault(g, [0, 0, 0, 0, 0])
        row[0] += kb.get("Rss", 0)
        row[1] += priv
        row[2] += shr
        row[3] += kb.get("Pss", 0)
        row[4] += 1
    return out


def lib_total(rows):
    """The resident kB of every shared library, the executable excluded."""
    return sum(r[0] for g, r in rows.items() if g.startswith("lib "))


def report(rows, title="smaps"):
    lines = ["%-52s %8s %8s %8s %8s %5s" % (title, "rss kB", "private", "shared", "pss", "maps")]
    total = [0, 0, 0, 0, 0]
    libs = [0, 0, 0, 0, 0]
    for g, r in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        if r[0] == 0:
            continue
        for k in range(5):
            total[k] += r[k]
            if g.startswith("lib "):
                libs[k] += r[k]
        lines.append("  %-50s %8d %8d %8d %8d %5d" % (g, r[0], r[1], r[2], r[3], r[4]))
    lines.append("  %-50s %8d %8d %8d %8d %5d" % ("shared libraries, all", *libs))
    lines.append("  %-50s %8d %8d %8d %8d %5d" % ("total", *total))
    return "\n".join(lines)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--file":
        with open(sys.argv[2]) as f:
            text = f.read()
        exe = None
    elif len(sys.argv) == 2 and sys.argv[1].isdigit():
        with open("/proc/%s/smaps" % sys.argv[1]) as f:
            text = f.read()
        try:
            exe = os.readlink("/proc/%s/exe" % sys.argv[1])
        except OSError:
            exe = None
    else:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    print(report(breakdown(text, exe)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
