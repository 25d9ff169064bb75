#!/usr/bin/env python3
"""The live daemon's own cost (bench/live/run.sh runs this).

`tapd run` on this machine with the simulator's fakes: the fake perfetto
writes FrameTimeline for two apps animating at 120 Hz, the foreground is
tracked on a fake sysroot (its top-app switches from one app to the other
halfway), and one tap a second reaches tapd through a live getevent stream
(a FIFO, `--input getevent:FIFO`) for the active phase; then the screen
goes idle (no frames, no touches).  A client follows /v1/events and stamps
each event's arrival in CLOCK_MONOTONIC.  tapd's own figures come from
/proc: CPU (utime + stime), peak RSS (VmHWM), context switches of all its
threads, bytes written (write_bytes); perfetto's (the fake's) separately.

    bench.py BUILD WORKDIR ACTIVE_S IDLE_S [TAPD [LABEL]]

TAPD is the daemon to measure (default BUILD/tapd), for example the static
Android x86_64 build; the fakes are BUILD/tapd-sim either way.  LABEL names
the build in the report.  With BENCH_LIVE_DB=FILE, tapd starts on a copy
of that database (for example bench/query's 1,000,000 taps, a month of a
busy phone) instead of an empty one, so that SQLite's page caches meet
b-trees of a real depth; a dashboard then asks for /v1/apps, /v1/percentiles
and /v1/taps every DASHBOARD_S seconds of the active phase, so that the
readers' caches meet them too.
"""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smaps  # noqa: E402

MS = 1000000
S = 1000000000
HZ = 120
# The fake's two apps (tests/sim/fake_perfetto.c) and where they are tapped.
APPS = [(1431, "com.example.mail", 270, 1200), (2202, "com.example.maps", 810, 1200)]
SETTLE_CAP_NS = 5 * S
FRAME_LATENCY_NS = 1 * S  # docs/DESIGN.md 1.8
WARMUP_S = 3
TAP_MS = 60
# The apps animate on this long after the active phase, past the last tap's
# burst; the idle phase starts IDLE_AFTER_S after the active phase.
ANIMATE_AFTER_MS = 1000
IDLE_AFTER_S = 3
# With a seeded database: a dashboard's refresh, this often.
DASHBOARD_S = 5
DASHBOARD = ["/v1/apps", "/v1/percentiles?p=50,90,99&method=exact", "/v1/taps?limit=100"]


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def cpu_ticks(pid):
    s = read("/proc/%d/stat" % pid)
    if not s:
        return 0
    f = s[s.rindex(")") + 2:].split()
    return int(f[11]) + int(f[12])  # utime, stime (fields 14, 15)


def status_kb(pid, key):
    for line in read("/proc/%d/status" % pid).splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def ctxt(pid):
    """Voluntary + involuntary switches summed over every thread."""
    n = 0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0
    for t in tids:
        for line in read("/proc/%d/task/%s/status" % (pid, t)).splitlines():
            if line.startswith(("voluntary_ctxt_switches:",
                                "nonvoluntary_ctxt_switches:")):
                n += int(line.split()[1])
    return n


def threads(pid):
    """Each thread's name and its switches, by tid."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tids:
        st = read("/proc/%d/task/%s/status" % (pid, t))
        n = 0
        name = "?"
        for line in st.splitlines():
            if line.startswith("Name:"):
                name = line.split(None, 1)[1] if len(line.split()) > 1 else "?"
            if line.startswith(("voluntary_ctxt_switches:",
                                "nonvoluntary_ctxt_switches:")):
                n += int(line.split()[1])
        out[t] = (name, n)
    return out


def io(pid):
    d = {}
    for line in read("/proc/%d/io" % pid).splitlines():
        k, _, v = line.partition(":")
        d[k] = int(v)
    return d


def children(pid):
    out = []
    for t in os.listdir("/proc/%d/task" % pid) if os.path.isdir("/proc/%d" % pid) else []:
        for c in read("/proc/%d/task/%s/children" % (pid, t)).split():
            out.append(int(c))
    return out


class Sample:
    def __init__(self, pid):
        self.t = mono_ns()
        self.cpu = cpu_ticks(pid)
        self.ctxt = ctxt(pid)
        self.io = io(pid)
        self.threads = status_kb(pid, "Threads")
        self.per = threads(pid)


class Children:
    """perfetto's figures, summed over every session (a rotation is a new pid)."""

    def __init__(self, tapd):
        self.tapd = tapd
        self.seen = {}  # pid -> (cpu ticks, wchar, ctxt)
        self.lock = threading.Lock()

    def poll(self):
        for c in children(self.tapd):
            v = (cpu_ticks(c), io(c).get("wchar", 0), ctxt(c))
            with self.lock:
                if c not in self.seen or v[1] >= self.seen[c][1]:
                    self.seen[c] = v

    def total(self):
        self.poll()
        with self.lock:
            vals = list(self.seen.values())
        return tuple(sum(v[i] for v in vals) for i in range(3))


def mkproc(root, pid, pkg, comm, uid):
    d = "%s/proc/%d" % (root, pid)
    os.makedirs(d, exist_ok=True)
    with open(d + "/cmdline", "w") as f:
        f.write(pkg + "\0")
    with open(d + "/stat", "w") as f:
        f.write("%d (%s) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1000 0 0\n" % (pid, comm))
    with open(d + "/status", "w") as f:
        f.write("Name:\t%s\nUid:\t%d\t%d\t%d\t%d\n" % (comm, uid, uid, uid, uid))


def set_top_app(root, pid):
    p = root + "/dev/cpuset/top-app/cgroup.procs"
    with open(p + ".tmp", "w") as f:
        f.write("%d\n" % pid)
    os.rename(p + ".tmp", p)


def getevent_line(t_ns, typ, code, value):
    us = t_ns // 1000
    return "[%8d.%06d] %-12.12s %-20.20s %08x\n" % (us // 1000000, us % 1000000, typ, code, value & 0xffffffff)


class Follower(threading.Thread):
    """Follows /v1/events; stamps each tap's arrival in CLOCK_MONOTONIC."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.got = {}  # t_up_ns -> (arrival ns, tap json)
        self.lock = threading.Lock()

    def run(self):
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port)
            c.request("GET", "/v1/events", headers={"Accept": "text/event-stream"})
            r = c.getresponse()
            while True:
                line = r.fp.readline()
                if not line:
                    return
                now = mono_ns()
                line = line.decode("utf-8", "replace").rstrip("\r\n")
                if not line.startswith("data:"):
                    continue
                try:
                    tap = json.loads(line[5:])
                except ValueError:
                    continue
                if "t_up_ns" not in tap:
                    continue
                with self.lock:
                    self.got[int(tap["t_up_ns"])] = (now, tap)
        except (OSError, http.client.HTTPException):
            return


def stored_status(db, taps, what):
    """The status the database holds for the tap named by what."""
    n = len(taps) - 1 if what.startswith("last") else int(what.split()[1]) - 1
    try:
        r = subprocess.run(["sqlite3", "-batch", "-noheader", db,
                            "select status || ' flags ' || flags from taps where t_up_ns = %d"
                            % taps[n][1]], capture_output=True, text=True)
        return r.stdout.strip() or "nothing"
    except OSError:
        return "?"


def pct(vals, p):
    v = sorted(vals)
    if not v:
        return None
    k = max(1, -(-p * len(v) // 100))
    return v[k - 1]


def main():
    build, work, active_s, idle_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sim = os.path.abspath(build + "/tapd-sim")
    tapd = os.path.abspath(sys.argv[5] if len(sys.argv) > 5 else build + "/tapd")
    label = sys.argv[6] if len(sys.argv) > 6 else "debian"
    root = work + "/root"
    binp = work + "/bin"
    for d in (root + "/dev/cpuset/top-app", binp, work + "/traces"):
        os.makedirs(d, exist_ok=True)
    for name in ("perfetto", "getprop", "dumpsys"):
        if not os.path.exists(binp + "/" + name):
            os.symlink(sim, binp + "/" + name)
    for pid, pkg, _, _ in APPS:
        mkproc(root, pid, pkg, pkg.split(".")[-1], 10000 + pid)
    set_top_app(root, APPS[0][0])
    with open(work + "/device.json", "w") as f:
        json.dump({"screen": {"width": 1080, "height": 2400}, "density_dpi": 420,
                   "refresh_hz": HZ, "android_sdk": 34,
                   "touch": {"x": {"min": 0, "max": 1079}, "y": {"min": 0, "max": 2399}}}, f)
    fifo = work + "/touch.fifo"
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    db = work + "/taps.db"
    seed = os.environ.get("BENCH_LIVE_DB")
    if seed and not os.path.exists(db):
        shutil.copyfile(seed, db)
    env = dict(os.environ, TAPD_FAKE_SDK="34", TAPD_FAKE_PERFETTO_HZ=str(HZ),
               TAPD_FAKE_PERFETTO_ANIMATE_MS=str((WARMUP_S + active_s) * 1000 + ANIMATE_AFTER_MS),
               TAPD_FAKE_PERFETTO_MAX_MS=str((WARMUP_S + active_s + idle_s + 120) * 1000),
               TAPD_FAKE_DUMPSYS_DIR=work)
    # Holds the FIFO open for writing before tapd opens it.
    wfd = os.open(fifo, os.O_RDWR)
    errf = open(work + "/tapd.err", "w")
    cmd = [tapd, "run", "--db", db, "--listen", "127.0.0.1:0", "--input", "getevent:" + fifo,
           "--frames", "ftl", "--foreground", "auto", "--device", work + "/device.json",
           "--sysroot", root, "--trace-dir", work + "/traces",
           "--perfetto-bin", binp + "/perfetto", "--getprop-bin", binp + "/getprop",
           "--dumpsys-bin", binp + "/dumpsys"]
    if seed:
        # The seed's taps are older than any retention: keep them.
        cmd += ["--retain-days", "0"]
    t_start = mono_ns()
    proc = subprocess.Popen(cmd, stdout=errf, stderr=errf, env=env)
    port = None
    for _ in range(200):
        for line in read(work + "/tapd.err").splitlines():
            if line.startswith("listening on http://"):
                port = int(line.rsplit(":", 1)[1])
        if port or proc.poll() is not None:
            break
        time.sleep(0.05)
    if not port:
        print("bench-live: tapd did not start:\n" + read(work + "/tapd.err"), file=sys.stderr)
        proc.kill()
        return 1
    pid = proc.pid
    follower = Follower(port)
    follower.start()
    kids = Children(pid)
    stop_poll = threading.Event()

    def poller():
        while not stop_poll.wait(1.0):
            kids.poll()

    threading.Thread(target=poller, daemon=True).start()
    stop_dash = threading.Event()
    dash = {"n": 0, "failed": 0}

    def dashboard():
        while not stop_dash.wait(DASHBOARD_S):
            for path in DASHBOARD:
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    c.request("GET", path)
                    r = c.getresponse()
                    r.read()
                    dash["n" if r.status == 200 else "failed"] += 1
                    c.close()
                except (OSError, http.client.HTTPException):
                    dash["failed"] += 1

    if seed:
        threading.Thread(target=dashboard, daemon=True).start()

    # The active phase starts with the first tap, WARMUP_S after tapd.
    while mono_ns() < t_start + WARMUP_S * S:
        time.sleep(0.01)
    a0 = Sample(pid)
    k0 = kids.total()
    taps = []  # (t_down, t_up, app index)
    tid = 1
    switched = False
    for i in range(active_s):
        # One tap a second, each at another phase of perfetto's 1 s writes.
        target = a0.t + i * S + 100 * MS + (i * 618 % 500) * MS
        while mono_ns() < target:
            time.sleep(0.001)
        if not switched and i >= active_s // 2:
            set_top_app(root, APPS[1][0])
            switched = True
            time.sleep(0.05)  # the tracker's next sample, or the touch-down
        app = 1 if switched else 0
        x, y = APPS[app][2] + (i % 7), APPS[app][3] + (i % 5)
        t_down = mono_ns()
        os.write(wfd, (getevent_line(t_down, "EV_ABS", "ABS_MT_TRACKING_ID", tid)
                       + getevent_line(t_down, "EV_ABS", "ABS_MT_POSITION_X", x)
                       + getevent_line(t_down, "EV_ABS", "ABS_MT_POSITION_Y", y)
                       + getevent_line(t_down, "EV_KEY", "BTN_TOUCH", 1).replace("00000001", "DOWN    ")
                       + getevent_line(t_down, "EV_SYN", "SYN_REPORT", 0)).encode())
        time.sleep(TAP_MS / 1000.0)
        t_up = mono_ns()
        os.write(wfd, (getevent_line(t_up, "EV_ABS", "ABS_MT_TRACKING_ID", -1)
                       + getevent_line(t_up, "EV_KEY", "BTN_TOUCH", 0).replace("00000000", "UP      ")
                       + getevent_line(t_up, "EV_SYN", "SYN_REPORT", 0)).encode())
        taps.append((t_down // 1000 * 1000, t_up // 1000 * 1000, app))
        tid += 1
    while mono_ns() < a0.t + active_s * S:
        time.sleep(0.01)
    a1 = Sample(pid)
    k1a = kids.total()
    stop_dash.set()
    # Idle: the fake stops drawing ANIMATE_AFTER_MS after the active phase.
    while mono_ns() < a1.t + IDLE_AFTER_S * S:
        time.sleep(0.05)
    i0 = Sample(pid)
    k1 = kids.total()
    while mono_ns() < i0.t + idle_s * S:
        time.sleep(0.05)
    i1 = Sample(pid)
    k2 = kids.total()
    hwm_kb = status_kb(pid, "VmHWM")
    anon_kb = status_kb(pid, "RssAnon")
    file_kb = status_kb(pid, "RssFile")
    rss_kb = status_kb(pid, "VmRSS")
    smaps_text = read("/proc/%d/smaps" % pid)
    with open(work + "/smaps.txt", "w") as f:
        f.write(smaps_text)
    mem = smaps.breakdown(smaps_text, tapd)
    stop_poll.set()
    t_term = mono_ns()
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=30)
    time.sleep(0.3)
    errf.close()
    load = read("/proc/loadavg").split()[:3]

    # Results: each tap's finalization point (docs/DESIGN.md 1.8) from what
    # the bench knows: the window ends at the next touch-down or at t_up +
    # 5 s; the frames run on without a gap past that (every vsync until the
    # animation stops), so the watermarks allow the tap from window_end +
    # frame_latency (1 s) on.
    delays, late = [], []
    with follower.lock:
        got = dict(follower.got)
    statuses = {}
    for n, (t_down, t_up, app) in enumerate(taps):
        wend = t_up + SETTLE_CAP_NS
        if n + 1 < len(taps):
            wend = min(wend, taps[n + 1][0])
        fin = wend + FRAME_LATENCY_NS
        if t_up in got:
            arr, tap = got[t_up]
            statuses[tap["status"]] = statuses.get(tap["status"], 0) + 1
            if n + 1 < len(taps):
                delays.append((arr - fin) / MS)
            else:
                late.append(("last tap before idle", (arr - fin) / MS, arr < t_term, tap))
        else:
            late.append(("tap %d of %d" % (n + 1, len(taps)), None, False, None)
                        if n + 1 < len(taps) else ("last tap before idle", None, False, None))
    # The last tap's burst ended on the idle screen.  Never on the stream,
    # its delay is at least the time to the stop, when it was finalized.
    last = late[-1] if late and late[-1][0] == "last tap before idle" else None
    last_ms = None
    if last:
        fin_last = taps[-1][1] + SETTLE_CAP_NS + FRAME_LATENCY_NS
        last_ms = last[1] if last[1] is not None else (t_term - fin_last) / MS
    every = delays + ([last_ms] if last_ms is not None else [])
    p50, p99, p99_active = pct(delays, 50), pct(every, 99), pct(delays, 99)
    tick = os.sysconf("SC_CLK_TCK")
    a_dt, i_dt = (a1.t - a0.t) / S, (i1.t - i0.t) / S
    cpu_a = (a1.cpu - a0.cpu) / tick / a_dt * 100
    cpu_i = (i1.cpu - i0.cpu) / tick / i_dt * 100
    wk_a = (a1.ctxt - a0.ctxt) / a_dt
    wk_i = (i1.ctxt - i0.ctxt) / i_dt
    wb_a = a1.io.get("write_bytes", 0) - a0.io.get("write_bytes", 0)
    wb_i = i1.io.get("write_bytes", 0) - i0.io.get("write_bytes", 0)
    wc_a = a1.io.get("wchar", 0) - a0.io.get("wchar", 0)
    db_mb_h = wb_a / a_dt * 3600 / 1e6
    db_mb_h_idle = wb_i / i_dt * 3600 / 1e6
    pcpu_a = (k1a[0] - k0[0]) / tick / a_dt * 100
    pcpu_i = (k2[0] - k1[0]) / tick / i_dt * 100
    trace_a = k1a[1] - k0[1]
    trace_i = k2[1] - k1[1]
    trace_mb_h = trace_a / a_dt * 3600 / 1e6
    trace_mb_h_idle = trace_i / i_dt * 3600 / 1e6
    pwk_i = (k2[2] - k1[2]) / i_dt
    pwk_a = (k1a[2] - k0[2]) / a_dt
    rows = ""
    try:
        rows = subprocess.run(["sqlite3", "-batch", "-noheader", db,
                               "select status, count(*) from taps group by status"],
                              capture_output=True, text=True).stdout.split()
    except OSError:
        pass

    out = []
    p = out.append
    p("[%s] %s" % (label, tapd))
    p("tapd run, live: %d s of taps (1 a second, getevent stream on a FIFO; no /dev/uinput here),"
      " two apps at %d Hz (fake perfetto), top-app switched at %d s; then %d s idle"
      % (active_s, HZ, active_s // 2, idle_s))
    p("load average %s %s %s (2 cores, shared); tapd exit %d" % (load[0], load[1], load[2], rc))
    if seed:
        p("seeded from %s (--retain-days 0); dashboard requests every %d s: %d answered, %d failed"
          % (seed, DASHBOARD_S, dash["n"], dash["failed"]))
    p("")
    p("%-34s %12s %12s   %s" % ("tapd's own", "active", "idle", "goal"))
    p("%-34s %12.3f %12.3f   <= 0.5" % ("cpu % of one core (utime+stime)", cpu_a, cpu_i))
    p("%-34s %12.1f %12s   <= 8" % ("peak rss MB (VmHWM)", hwm_kb / 1024, ""))
    p("%-34s %12s %12s" % ("  rss at the end: anon + file MB", "", "%.1f + %.1f" % (anon_kb / 1024, file_kb / 1024)))
    p("%-34s %12.2f %12.2f   idle <= 1 beyond the frame source's" %
      ("wake-ups/s (ctxt switches, all thr)", wk_a, wk_i))
    p("%-34s %12.3f %12.3f" % ("db MB written per hour (write_bytes)", db_mb_h, db_mb_h_idle))
    p("%-34s %12.3f %12s" % ("all bytes written MB/h (wchar)", wc_a / a_dt * 3600 / 1e6, ""))
    p("%-34s %12d %12d" % ("threads", a1.threads, i1.threads))
    for t in sorted(i1.per, key=int):
        name, n = i1.per[t]
        pa = a1.per.get(t, (name, 0))[1] - a0.per.get(t, (name, 0))[1]
        pi = n - i0.per.get(t, (name, 0))[1]
        p("%-34s %12.2f %12.2f" % ("  wake-ups/s of thread '%s'" % name, pa / a_dt, pi / i_dt))
    p("")
    p(smaps.report(mem, "memory at the end (/proc/PID/smaps)"))
    p("")
    p("%-34s %12s %12s" % ("perfetto (the fake), not tapd's", "active", "idle"))
    p("%-34s %12.3f %12.3f" % ("cpu % of one core", pcpu_a, pcpu_i))
    p("%-34s %12.2f %12.2f" % ("wake-ups/s", pwk_a, pwk_i))
    p("%-34s %12.3f %12.3f" % ("trace MB written per hour", trace_mb_h, trace_mb_h_idle))
    p("")
    p("results: %d taps sent, %d seen on /v1/events; statuses %s; stored %s"
      % (len(taps), len(got), json.dumps(statuses, sort_keys=True), " ".join(rows)))
    p("delay from finalization point (window_end + 1 s frame latency) to the event on /v1/events:")
    if delays:
        p("  taps of the active phase: n=%d p50 %.0f ms p99 %.0f ms max %.0f ms min %.0f ms"
          % (len(delays), p50, p99_active, max(delays), min(delays)))
    for what, d, before_term, tap in late:
        if d is None:
            p("  %s: never on /v1/events (finalized only at the stop, stored as %s)"
              % (what, stored_status(db, taps, what)))
            if what.startswith("last"):
                p("    counted as %.0f ms, the time from its finalization point to the stop"
                  % last_ms)
        else:
            p("  %s: %.0f ms after its finalization point (t_up + 6 s), %s, status %s flags %s"
              % (what, d, "before the stop" if before_term else "only at the stop (SIGTERM)",
                 tap["status"], tap.get("flags")))
    if every:
        p("  every tap: n=%d p99 %.0f ms (nearest rank) max %.0f ms" % (len(every), p99, max(every)))
    res = {"cpu_pct": cpu_a, "rss_mb": hwm_kb / 1024, "wakeups_per_s": wk_a,
           "idle_wakeups_per_s": wk_i, "result_p99_ms": p99 if p99 is not None else -1,
           "trace_mb_per_h": trace_mb_h, "db_mb_per_h": db_mb_h, "rss_now_mb": rss_kb / 1024,
           "rss_libs_mb": smaps.lib_total(mem) / 1024,
           "cpu_idle_pct": cpu_i, "perfetto_idle_wakeups_per_s": pwk_i,
           "result_p99_active_ms": p99_active if p99_active is not None else -1,
           "result_idle_tap_ms": last_ms,
           "idle_tap_on_stream": bool(last and last[1] is not None),
           "idle_tap_before_stop": bool(last and last[2])}
    with open(work + "/result.json", "w") as f:
        json.dump(res, f)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
