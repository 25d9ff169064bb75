#!/usr/bin/env bash
# End to end: no small group of local clients can starve the API.  Every
# adb forward client arrives as 127.0.0.1, so idle sockets, slowloris
# senders and event-stream clients that never read, all from loopback,
# must leave room for /v1/health; a connection that has not sent a whole
# request head within 10 s is closed, however slowly it trickles; an
# event stream beyond the streams' own cap is a JSON 503; refused
# connections are logged a line at a time, not one line each.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=api_conns
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$TAPD" "$SIM"
need_tools python3
work_dir api-conns

if ! "$SIM" gen --scenario two-apps --seed 4 --duration 20 \
	--out "$work/s" >"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(cat "$work/gen.log")"
	finish
fi
# tapd replay --listen goes on serving live taps (and /v1/events) after
# the replay, until stopped.
if ! start_server "$work/live.out" "$TAPD" replay --session "$work/s" \
	--db "$work/live.db" --listen 127.0.0.1:0; then
	ko "tapd replay --listen serves" "$(tail -n 5 "$work/live.out.err")"
	finish
fi

# The helper holds its sockets only towards 127.0.0.1, a bounded number
# of them for a bounded time, and closes them all before it exits.
cat >"$work/hold.py" <<'PY'
import json, socket, sys, threading, time

port = int(sys.argv[1])
mode = sys.argv[2]
end = time.monotonic() + 60
held = []

def conn(timeout=2.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    held.append(s)
    return s

def request(path, timeout=1.0):
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.settimeout(max(0.01, timeout - (time.monotonic() - t0)))
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close"
                   "\r\n\r\n" % path).encode())
        data = b""
        while time.monotonic() - t0 < timeout:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError:
        return 0, b"", time.monotonic() - t0
    status = 0
    if data.startswith(b"HTTP/1.1 "):
        status = int(data[9:12])
    return status, data.partition(b"\r\n\r\n")[2], time.monotonic() - t0

def slowloris(s, stop):
    text = b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: "
    i = 0
    while not stop.is_set() and time.monotonic() < end:
        try:
            s.send(text[i:i + 1] if i < len(text) else b"a")
        except OSError:
            return
        i += 1
        stop.wait(1.0)

if mode == "starve":
    out = {}
    stop = threading.Event()
    for i in range(200):
        conn()
    threads = []
    for i in range(40):
        t = threading.Thread(target=slowloris, args=(conn(), stop))
        t.start()
        threads.append(t)
    streams = 0
    for i in range(64):
        s = conn()
        s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            # The status line, and nothing more is ever read.
            if s.recv(12).startswith(b"HTTP/1.1 200"):
                streams += 1
        except OSError:
            pass
    out["streams"] = streams
    time.sleep(1.0)
    ok = 0
    slowest = 0.0
    for i in range(20):
        status, body, took = request("/v1/health")
        if status == 200 and took <= 1.0:
            ok += 1
        slowest = max(slowest, took)
        time.sleep(0.1)
    out["health_ok"] = ok
    out["slowest"] = round(slowest, 3)
    status, body, took = request("/v1/events", 2.0)
    out["extra_status"] = status
    try:
        out["extra_code"] = json.loads(body)["error"]["code"]
    except Exception:
        out["extra_code"] = None
    stop.set()
    for t in threads:
        t.join()
elif mode == "reopen":
    # 64 streams closed at once free their places at once: the server
    # notices a client gone without waiting for its next keep-alive.
    out = {}
    for round in ("first", "again"):
        socks = []
        n = 0
        for i in range(64):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            socks.append(s)
            s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                if s.recv(12).startswith(b"HTTP/1.1 200"):
                    n += 1
            except OSError:
                pass
        out[round] = n
        for s in socks:
            s.close()
        time.sleep(1.0)
elif mode == "idle":
    # An idle connection is closed after the idle timeout; an event
    # stream that has sent nothing new since is not.
    out = {"idle_closed": None, "stream_open": False}
    idle = conn()
    stream = conn()
    stream.sendall(b"GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    stream.settimeout(2)
    try:
        stream.recv(4096)
    except OSError:
        pass
    t0 = time.monotonic()
    idle.settimeout(20)
    try:
        if idle.recv(1) == b"":
            out["idle_closed"] = round(time.monotonic() - t0, 1)
    except OSError:
        pass
    time.sleep(1.0)
    stream.setblocking(False)
    try:
        out["stream_open"] = stream.recv(4096) != b""
    except BlockingIOError:
        out["stream_open"] = True
    except OSError:
        pass
elif mode == "deadline":
    # libmicrohttpd's idle timeout restarts with every byte; tapd's head
    # deadline does not.  Three clients at once: a slowloris sending a
    # byte a second, a POST whose body comes a byte a second (its head
    # is in: only the longer body deadline applies), and a kept-alive
    # connection that goes quiet after an answer.
    out = {}

    def closed_by_server(s, t0, key, limit=25.0):
        # The server closed it when recv says end of stream or reset;
        # a client-side timeout is a failure (None).
        s.settimeout(max(0.1, limit - (time.monotonic() - t0)))
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
        except ConnectionResetError:
            pass
        except OSError:
            out[key] = None
            return
        out[key] = round(time.monotonic() - t0, 2)

    def slow_head():
        s = conn()
        t0 = time.monotonic()
        text = b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: "
        i = 0
        s.settimeout(1.0)
        out["slow_head"] = None
        while time.monotonic() - t0 < 25:
            try:
                s.send(text[i:i + 1] if i < len(text) else b"a")
                i += 1
                chunk = s.recv(4096)
            except socket.timeout:
                continue
            except ConnectionResetError:
                chunk = b""
            except OSError:
                chunk = b""
            if chunk:
                # An answer is not what a half-sent head should get.
                out["slow_head_answer"] = chunk[:40].decode("latin-1")
                return
            out["slow_head"] = round(time.monotonic() - t0, 2)
            return

    def slow_body():
        s = conn()
        t0 = time.monotonic()
        body = b'{"name": "slow"}'
        s.sendall(b"POST /v1/sessions/999999/stop HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nConnection: close"
                  b"\r\nContent-Length: %d\r\n\r\n" % len(body))
        out["slow_body"] = None
        try:
            for i in range(len(body)):
                time.sleep(0.8)
                s.sendall(body[i:i + 1])
            s.settimeout(5)
            data = s.recv(4096)
        except OSError:
            return
        if data.startswith(b"HTTP/1.1 "):
            out["slow_body"] = [int(data[9:12]),
                                round(time.monotonic() - t0, 2)]

    def keepalive():
        s = conn()
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                data += s.recv(4096)
            head, _, rest = data.partition(b"\r\n\r\n")
            clen = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    clen = int(line.split(b":")[1])
            while len(rest) < clen:
                rest += s.recv(4096)
        except OSError:
            out["keepalive"] = None
            return
        closed_by_server(s, time.monotonic(), "keepalive")

    threads = [threading.Thread(target=f)
               for f in (slow_head, slow_body, keepalive)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
elif mode == "flood":
    # Past the connection limit, then more attempts that are refused.
    out = {"held": 0, "attempts": 0}
    try:
        for i in range(int(sys.argv[3])):
            conn()
            out["held"] += 1
    except OSError:
        pass
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and out["attempts"] < 300:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=0.5)
            s.close()
        except OSError:
            pass
        out["attempts"] += 1
        time.sleep(0.01)
    time.sleep(0.5)
for s in held:
    s.close()
print(json.dumps(out))
PY

python3 "$work/hold.py" "$port" starve >"$work/starve.json" 2>"$work/starve.err"
r=$(cat "$work/starve.json")
detail() { printf '%s\n' "$r"; tail -n 5 "$work/starve.err"; }
holds "64 event streams open beside 200 idle and 40 slowloris sockets" \
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["streams"] != 64)' "$work/starve.json"
slowest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["slowest"])' "$work/starve.json" 2>/dev/null)
holds "20/20 /v1/health answer 200 within 1 s meanwhile (slowest ${slowest:-?} s)" \
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["health_ok"] != 20)' "$work/starve.json"
holds "an event stream beyond the cap is a JSON 503" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["extra_status"] == 503 and d["extra_code"]))' "$work/starve.json"
sleep 0.5
code=$(python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=2)
s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print(s.recv(12)[9:12].decode())' "$port" 2>/dev/null)
check "health answers once the sockets close" 200 "$code"

python3 "$work/hold.py" "$port" reopen >"$work/reopen.json" 2>"$work/reopen.err"
r=$(cat "$work/reopen.json")
holds "64 streams closed at once free their places within 1 s" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["first"] == 64 and d["again"] == 64))' "$work/reopen.json"

python3 "$work/hold.py" "$port" idle >"$work/idle.json" 2>"$work/idle.err"
r=$(cat "$work/idle.json")
holds "an idle connection is closed after 10 s" \
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["idle_closed"]; sys.exit(not (t is not None and 8 <= t <= 13))' "$work/idle.json"
holds "an event stream outlives the idle timeout" \
	python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["stream_open"])' "$work/idle.json"

# The head deadline: 10 s for a whole request head, whatever trickles
# in meanwhile, then the server closes the connection (by 10.25 s; the
# bounds leave room for a loaded machine).
python3 "$work/hold.py" "$port" deadline >"$work/deadline.json" 2>"$work/deadline.err"
r=$(cat "$work/deadline.json")
detail() { printf '%s\n' "$r"; tail -n 5 "$work/deadline.err"; }
t=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("slow_head"))' "$work/deadline.json" 2>/dev/null)
holds "a slowloris sending a byte a second is closed by the server after 10 s (at ${t:-?} s)" \
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["slow_head"]; sys.exit(not (t is not None and 9.5 <= t <= 14))' "$work/deadline.json"
holds "a body coming a byte a second after its head is answered, past 10 s" \
	python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["slow_body"]; sys.exit(not (b is not None and b[1] >= 11))' "$work/deadline.json"
holds "a kept-alive connection quiet after its answer is closed after 10 s" \
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["keepalive"]; sys.exit(not (t is not None and 9.5 <= t <= 14))' "$work/deadline.json"

# 600 sockets pass the connection limit (512); every refused connection
# after it must not be a line of its own.
python3 "$work/hold.py" "$port" flood 600 >"$work/flood.json" 2>"$work/flood.err"
r=$(cat "$work/flood.json")
lines=$(grep -ci 'connection limit\|suppressed' "$work/live.out.err")
detail() { printf '%s\n' "$r"; echo "$lines log lines"; grep -i 'limit' "$work/live.out.err" | tail -n 5; }
holds "refused connections: at most 3 log lines" [ "$lines" -ge 1 -a "$lines" -le 3 ]
stop_server "$pid"
check "the server stops cleanly" 0 "$status"
finish
