"""The clients of the soak parts (tests/soak/*.sh), all towards 127.0.0.1.

Times are time.monotonic(), which is CLOCK_MONOTONIC, the clock tapd
stamps its own work with.  Every mode but kills writes one JSON object
(to the file named OUT), and each closes every socket it opened before it
exits.

  follow PORT|- OUT [--kill PID AFTER] [--until FILE] [--seconds N]
      Follows /v1/events (each tap announced: when, its id and t_up_ns)
      and samples /v1/health every 50 ms (when the answer came, its
      status, latency, counters, frames_lag_ms, the store's health and
      detail).  With --kill, SIGKILLs PID AFTER seconds after the start
      and records when (both clocks); with --until, stops once FILE
      exists.  With - for PORT, only the kill.
  kills TRUTH INPUT DB PACE ITERATION...
      The kill -9 part's verdict, from each iteration's follow record
      and run id and the rows of DB: prints one line per iteration and a
      last line "summary key=value...".
  hold PORT SECONDS IDLE SLOW OUT
      IDLE sockets that send nothing and SLOW slowloris senders (a byte
      of a request head every second), each reopened when the server
      closes it, for SECONDS.
  clients PORT SECONDS N SEED OUT
      N clients in threads, each on a keep-alive connection, asking a mix
      of the API's reads with a short pause between requests, for
      SECONDS.  Any failure, status other than 200 or answer slower than
      5 s is an error; a request that finds its kept-alive connection
      closed by the server is asked again once on a new one (counted).
  probe PORT SECONDS OUT
      One /v1/health every 20 ms on a new connection each, for SECONDS.
  load OUT IN...
      Adds up the hold, clients and probe records into one: requests,
      errors and why, /v1/health's count, max, p99, those over 100 ms and
      how many of them came within 2 s of the server closing held
      sockets.
"""
import bisect
import http.client
import json
import os
import random
import selectors
import signal
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def now():
    return time.monotonic()


def request(port, path, timeout=2.0):
    """One GET on a new connection: (status, body, seconds)."""
    t0 = now()
    try:
        c = http.client.HTTPConnection(HOST, port, timeout=timeout)
        c.request("GET", path, headers={"Connection": "close"})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data, now() - t0
    except (OSError, http.client.HTTPException):
        return 0, b"", now() - t0


def write_json(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f)
    os.replace(path + ".tmp", path)


# follow ----------------------------------------------------------------

def sse_reader(port, events, stop):
    """
    Every tap /v1/events announces, with the time it arrived.  The
    stream is chunked: the chunks are taken apart before the lines are
    read, so that an event split across chunks still counts.
    """
    try:
        s = socket.create_connection((HOST, port), timeout=2)
        s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(0.2)
    except OSError:
        return
    raw = b""
    text = b""
    head = None
    chunked = False
    while not stop.is_set():
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not chunk:
            break
        t = now()
        raw += chunk
        if head is None:
            if b"\r\n\r\n" not in raw:
                continue
            head, _, raw = raw.partition(b"\r\n\r\n")
            chunked = b"chunked" in head.lower()
        if not chunked:
            text += raw
            raw = b""
        while chunked and b"\r\n" in raw:
            size, _, rest = raw.partition(b"\r\n")
            try:
                n = int(size.split(b";")[0], 16)
            except ValueError:
                raw = b""
                break
            if len(rest) < n + 2:
                break
            text += rest[:n]
            raw = rest[n + 2:]
        while b"\n" in text:
            line, _, text = text.partition(b"\n")
            if not line.startswith(b"data: {"):
                continue
            try:
                tap = json.loads(line[6:])
            except ValueError:
                continue
            if "t_up_ns" in tap:
                events.append([t, tap["id"], tap["t_up_ns"]])
    s.close()


def health_sample(port):
    status, body, took = request(port, "/v1/health", timeout=2.0)
    s = {"t": now(), "took": took, "http": status}
    try:
        h = json.loads(body)
        c = h["counters"]
        s.update({"status": h["status"],
                  "events": c["input_events"],
                  "finalized": c["taps_finalized"],
                  "stored": c["rows_stored"],
                  "lag_ms": h.get("frames_lag_ms"),
                  "store": h["sources"]["store"]["health"],
                  "store_detail": h["sources"]["store"]["detail"]})
    except (ValueError, KeyError, TypeError):
        pass
    return s


def follow(argv):
    port, out = (0 if argv[0] == "-" else int(argv[0])), argv[1]
    kill_pid = kill_after = until = None
    seconds = 600.0
    i = 2
    while i < len(argv):
        if argv[i] == "--kill":
            kill_pid, kill_after = int(argv[i + 1]), float(argv[i + 2])
            i += 3
        elif argv[i] == "--until":
            until = argv[i + 1]
            i += 2
        elif argv[i] == "--seconds":
            seconds = float(argv[i + 1])
            i += 2
        else:
            sys.exit("follow: unknown argument " + argv[i])
    start = now()
    stop = threading.Event()
    events = []
    reader = threading.Thread(target=sse_reader, args=(port, events, stop))
    if port:
        reader.start()
    samples = []
    killed = killed_rt = None
    while now() - start < seconds:
        if kill_pid is not None and now() - start >= kill_after:
            killed, killed_rt = now(), time.time()
            os.kill(kill_pid, signal.SIGKILL)
            break
        if until is not None and os.path.exists(until):
            break
        if not port:
            time.sleep(min(0.05, max(0.0, kill_after - (now() - start))))
            continue
        samples.append(health_sample(port))
        left = 0.05 - (now() - samples[-1]["t"])
        if kill_pid is not None:
            left = min(left, kill_after - (now() - start))
        if left > 0:
            time.sleep(left)
    # The stream ends with the server; a kill closes it at once.
    if killed is None:
        stop.set()
    if port:
        reader.join(5)
        stop.set()
        reader.join()
    write_json(out, {"start": start, "killed": killed,
                     "killed_rt": killed_rt, "events": events,
                     "samples": samples})


# kills -----------------------------------------------------------------

def input_times(path):
    """The time of each event line of a getevent -lt log, in order."""
    times = []
    with open(path) as f:
        for line in f:
            if line.startswith("["):
                stamp = line[1:line.index("]")].strip()
                sec, _, usec = stamp.partition(".")
                times.append(int(sec) * 1000000000 + int(usec) * 1000)
    return times


def required(truth, times, sample):
    """
    The t_up_ns of every gesture the daemon had finalized by the health
    sample, by the rule of docs/DESIGN.md 1.8 applied to the truth's
    response windows and the daemon's own watermarks: a swipe or
    multi-finger gesture once the input reached its t_up, a tap or long
    press once the input passed its window_end and the frames watermark
    (input time - frames_lag_ms) passed window_end + 1 s.
    """
    n = sample.get("events")
    if not n:
        return set()
    input_ns = times[min(n, len(times)) - 1]
    lag = sample.get("lag_ms")
    frames_ns = None if lag is None else input_ns - int(lag * 1e6)
    out = set()
    for g in truth:
        up = int(g["t_up_ns"])
        if g["kind"] in ("swipe", "multi"):
            if up <= input_ns:
                out.add(up)
        elif frames_ns is not None:
            end = int(g["window_end_ns"])
            if end <= input_ns and end + 1000000000 <= frames_ns:
                out.add(up)
    return out


def paced_finals(truth, times):
    """
    For a replay without the API: (t_up_ns, when it is final in event
    time) of every gesture.  A swipe or multi-finger gesture is stored at
    its t_up; a tap or long press is final at the first input event at or
    after window_end + 1 s, since the replay reads the frames ahead of the
    input (its frames watermark is never behind the input time).
    """
    out = []
    for g in truth:
        up = int(g["t_up_ns"])
        if g["kind"] in ("swipe", "multi"):
            out.append((up, up))
            continue
        k = bisect.bisect_left(times, int(g["window_end_ns"]) + 1000000000)
        if k < len(times):
            out.append((up, times[k]))
    return out


def kills(argv):
    """
    Iterations with a follow record of /v1/events and /v1/health are
    judged by the samples (required()); those without, paced on the
    commit timer alone, by the pacing: the replay processes the input
    event at time e at started + (e - first event) / pace, started being
    the run's started_ns (REALTIME, just before the first event), and the
    kill's REALTIME is known.
    """
    import sqlite3
    truth = json.load(open(argv[0]))["gestures"]
    times = input_times(argv[1])
    db = sqlite3.connect("file:%s?mode=ro" % argv[2], uri=True)
    pace = float(argv[3])
    finals = paced_finals(truth, times)
    known = {int(g["t_up_ns"]) for g in truth}
    worst = {"lost": 0, "span": 0.0, "counted": 0}
    bad = 0
    total_stored = 0
    for it in argv[4:]:
        rec = json.load(open(os.path.join(it, "follow.json")))
        run = int(open(os.path.join(it, "run")).read())
        started = db.execute("SELECT started_ns FROM runs WHERE id = ?",
                             (run,)).fetchone()[0]
        rows = db.execute("SELECT id, t_up_ns, kind FROM taps WHERE run = ?",
                          (run,)).fetchall()
        stored = {r[1]: r[0] for r in rows}
        measured = sum(1 for r in rows if r[2] in ("tap", "long_press"))
        total_stored += len(rows)
        problems = []
        if rec["killed"] is None:
            problems.append("not killed")
            rec["killed"], rec["killed_rt"] = now(), time.time()
        kill = rec["killed"]
        if len(stored) != len(rows):
            problems.append("a gesture stored twice")
        spurious = [u for u in stored if u not in known]
        if spurious:
            problems.append("%d rows not in the truth" % len(spurious))
        # Announced on /v1/events, hence committed: all must be there,
        # under the id announced.
        gone = [e for e in rec["events"] if stored.get(int(e[2])) != e[1]]
        if gone:
            problems.append("%d announced taps missing" % len(gone))
        # Final before the kill but not stored: how many, and how long
        # before the kill the oldest of them was already final.
        lost = set()
        span = 0.0
        counted = 0
        if rec["samples"]:
            mode = "followed"
            for smp in rec["samples"]:
                missing = required(truth, times, smp) - set(stored)
                if missing - lost:
                    span = max(span, kill - smp["t"])
                    lost |= missing
                # The daemon's own count of finalized taps, a cross-check.
                counted = max(counted, smp.get("finalized", 0) - measured)
        else:
            mode = "timer"
            t0 = times[0]
            for up, final in finals:
                at = started / 1e9 + (final - t0) / 1e9 / pace
                if at <= rec["killed_rt"] and up not in stored:
                    lost.add(up)
                    span = max(span, rec["killed_rt"] - at)
        if span > 1.0:
            problems.append("taps final %.2f s before the kill lost" % span)
        worst["lost"] = max(worst["lost"], len(lost))
        worst["span"] = max(worst["span"], span)
        worst["counted"] = max(worst["counted"], counted)
        if problems:
            bad += 1
        print("%s (%s): run %d killed after %.2f s: %d rows, %d announced, "
              "lost %d (%.2f s), by the daemon's count %d%s"
              % (os.path.basename(it), mode, run, kill - rec["start"],
                 len(rows), len(rec["events"]), len(lost), span, counted,
                 "; " + "; ".join(problems) if problems else ""))
    print("summary failures=%d lost=%d span=%.2f counted=%d stored=%d"
          % (bad, worst["lost"], worst["span"], worst["counted"],
             total_stored))


# load ------------------------------------------------------------------

SLOW_HEAD = b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: "


def hold(argv):
    """Idle and slowloris sockets in one selector loop, reopened."""
    port, seconds = int(argv[0]), float(argv[1])
    nidle, nslow, out = int(argv[2]), int(argv[3]), argv[4]
    sel = selectors.DefaultSelector()
    st = {"opened": 0, "closed_by_server": 0, "open_failures": 0,
          "min_open": None, "closes": []}
    socks = {}

    def open_one(kind):
        try:
            s = socket.create_connection((HOST, port), timeout=2)
        except OSError:
            st["open_failures"] += 1
            return False
        s.setblocking(False)
        socks[s] = [kind, 0]
        sel.register(s, selectors.EVENT_READ)
        st["opened"] += 1
        return True

    def drop(s):
        sel.unregister(s)
        del socks[s]
        s.close()

    want = [("idle", nidle), ("slow", nslow)]
    end = now() + seconds
    next_byte = now()
    while now() < end:
        for kind, n in want:
            have = sum(1 for v in socks.values() if v[0] == kind)
            for i in range(n - have):
                if not open_one(kind):
                    break
        if now() >= next_byte:
            for s, v in list(socks.items()):
                if v[0] != "slow":
                    continue
                b = SLOW_HEAD[v[1]:v[1] + 1] if v[1] < len(SLOW_HEAD) \
                    else b"a"
                try:
                    s.send(b)
                    v[1] += 1
                except OSError:
                    st["closed_by_server"] += 1
                    drop(s)
            next_byte += 1.0
        held = len(socks)
        if st["min_open"] is None or held < st["min_open"]:
            st["min_open"] = held
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                st["closed_by_server"] += 1
                st["closes"].append(round(now(), 3))
                drop(s)
    for s in list(socks):
        drop(s)
    write_json(out, {"hold": st})


PATHS = [
    (40, "/v1/health"),
    (10, "/v1/taps?limit=100"),
    (8, "/v1/apps"),
    (8, "/v1/percentiles?metric=first_frame&p=50,90,99"),
    (6, "/v1/percentiles?metric=settle&app=com.example.shop"),
    (6, "/v1/histogram?metric=settle"),
    (8, "/metrics"),
    (6, "/v1/taps?format=csv&limit=500"),
    (4, "/v1/trace?since=1h"),
    (4, "/v1/sessions"),
]


def client(port, seconds, rng, res, lock):
    paths = [p for w, p in PATHS for i in range(w)]
    conn = None
    end = now() + seconds
    mine = {"requests": 0, "errors": 0, "health": [], "slowest": 0.0,
            "why": {}, "slow": [], "retried": 0}
    while now() < end:
        path = rng.choice(paths)
        t0 = now()
        for attempt in (1, 2):
            reused = conn is not None
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, port, timeout=5)
                conn.request("GET", path)
                r = conn.getresponse()
                r.read()
                took = now() - t0
                ok = r.status == 200
                why = "HTTP %d" % r.status
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
                break
            except (OSError, http.client.HTTPException) as e:
                took = now() - t0
                ok = False
                why = type(e).__name__
                if conn is not None:
                    conn.close()
                conn = None
                # A kept-alive connection the server had closed before
                # this request: asked again on a new one, as curl does.
                if not (reused and attempt == 1 and isinstance(
                        e, (http.client.RemoteDisconnected,
                            ConnectionResetError, BrokenPipeError))):
                    break
                mine["retried"] += 1
        mine["requests"] += 1
        mine["slowest"] = max(mine["slowest"], took)
        if not ok or took > 5.0:
            mine["errors"] += 1
            key = "%s %s" % (why, path.split("?")[0])
            mine["why"][key] = mine["why"].get(key, 0) + 1
        if path == "/v1/health" and ok:
            mine["health"].append(took)
            if took > 0.05:
                mine["slow"].append([round(t0, 3), round(took, 3)])
        time.sleep(rng.uniform(0.05, 0.25))
    if conn is not None:
        conn.close()
    with lock:
        res["requests"] += mine["requests"]
        res["errors"] += mine["errors"]
        res["health"] += mine["health"]
        res["slow"] += mine["slow"]
        res["retried"] += mine["retried"]
        res["slowest"] = max(res["slowest"], mine["slowest"])
        for k, v in mine["why"].items():
            res["why"][k] = res["why"].get(k, 0) + v


def clients(argv):
    port, seconds, n = int(argv[0]), float(argv[1]), int(argv[2])
    seed, out = int(argv[3]), argv[4]
    res = {"clients": n, "requests": 0, "errors": 0, "health": [],
           "slowest": 0.0, "why": {}, "slow": [], "retried": 0}
    lock = threading.Lock()
    threads = [threading.Thread(target=client,
                                args=(port, seconds,
                                      random.Random(seed * 1000 + i), res,
                                      lock))
               for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    write_json(out, res)


def probe(argv):
    port, seconds, out = int(argv[0]), float(argv[1]), argv[2]
    res = {"requests": 0, "errors": 0, "health": [], "why": {}, "slow": []}
    end = now() + seconds
    while now() < end:
        t0 = now()
        status, body, took = request(port, "/v1/health", timeout=5.0)
        res["requests"] += 1
        if status == 200:
            res["health"].append(took)
            if took > 0.05:
                res["slow"].append([round(t0, 3), round(took, 3)])
        else:
            res["errors"] += 1
            key = "HTTP %d /v1/health" % status
            res["why"][key] = res["why"].get(key, 0) + 1
        time.sleep(max(0.0, 0.02 - took))
    write_json(out, res)


def load(argv):
    out = {"clients": 0, "requests": 0, "errors": 0, "retried": 0, "why": {},
           "health_n": 0, "health_max_ms": 0.0, "health_p99_ms": 0.0,
           "health_over_100ms": 0, "slowest_s": 0.0}
    health = []
    slow = []
    closes = []
    for path in argv[1:]:
        r = json.load(open(path))
        if "hold" in r:
            closes = r["hold"].pop("closes")
            out["hold"] = r["hold"]
            continue
        slow += [x for x in r["slow"] if x[1] > 0.1]
        out["clients"] += r.get("clients", 0)
        out["requests"] += r["requests"]
        out["errors"] += r["errors"]
        out["retried"] += r.get("retried", 0)
        out["slowest_s"] = max(out["slowest_s"], r.get("slowest", 0.0))
        for k, v in r["why"].items():
            out["why"][k] = out["why"].get(k, 0) + v
        health += r["health"]
    health.sort()
    if health:
        out["health_n"] = len(health)
        out["health_max_ms"] = round(health[-1] * 1000, 1)
        # Nearest rank, as tapd's own percentiles.
        rank = -(-99 * len(health) // 100)
        out["health_p99_ms"] = round(health[rank - 1] * 1000, 1)
        out["health_over_100ms"] = sum(1 for t in health if t > 0.1)
    # Slow answers that overlap the server closing held sockets (its
    # idle timeout sweeping the idle ones, all opened together): within
    # 2 s of a close the holder saw.
    closes.sort()
    near = 0
    for t0, took in slow:
        k = bisect.bisect_left(closes, t0 - 2.0)
        if k < len(closes) and closes[k] <= t0 + took + 2.0:
            near += 1
    out["health_over_100ms_near_closes"] = near
    write_json(argv[0], out)


MODES = {"follow": follow, "kills": kills, "hold": hold, "clients": clients,
         "probe": probe, "load": load}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.exit("usage: soak.py %s ARGS..." % "|".join(sorted(MODES)))
    MODES[sys.argv[1]](sys.argv[2:])
