#!/usr/bin/env bash
# End to end: tapd run --record with frames from FrameTimeline.  The live
# daemon takes its frames from the fake perfetto (BOOTTIME timestamps,
# converted through its clock snapshots) and its touches from a getevent
# stream on a FIFO, with --settle-cap-ms 1000, and records with
# --record-max-mb 1: taps, a long swipe that passes the bound, taps again.
# Each of the two directories must hold a frames.pftrace of its own (a
# ClockSnapshot first) and replay, with no threshold given, into exactly
# the live rows of its part: the frames the live source took in and the
# thresholds it measured with are all in the recording.  A threshold
# given to the replay wins over the recorded one, and the summary says
# which came from where.
set -u
build=${BUILD:-build}
tapd=$build/tapd
sim=$build/tapd-sim
NAME=live_record_ftl
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/tap.sh"
need_bins "$tapd" "$sim"
need_tools curl jq python3 sqlite3
work_dir live_record_ftl
tmp=$work
rec=$tmp/rec
app=com.example.mail
mkdir -p "$tmp/bin" "$tmp/traces" "$tmp/db"
for t in perfetto getprop; do
	ln -s "$PWD/$sim" "$tmp/bin/$t"
done

# swipe FIFO MOVES: one finger down, MOVES frames of moves 10 ms apart, up.
swipe() {
	python3 - "$1" "$2" <<'PY'
import os, sys, time

def line(t, typ, code, value):
    us = t // 1000
    return "[%8d.%06d] %-12s %-20s %s\n" % (us // 1000000, us % 1000000,
                                           typ, code, value)

fd = os.open(sys.argv[1], os.O_WRONLY)
t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
out = [line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "00000002"),
       line(t, "EV_ABS", "ABS_MT_POSITION_X", "00000064"),
       line(t, "EV_ABS", "ABS_MT_POSITION_Y", "00000064"),
       line(t, "EV_KEY", "BTN_TOUCH", "DOWN"),
       line(t, "EV_SYN", "SYN_REPORT", "00000000")]
for i in range(int(sys.argv[2])):
    t += 10000
    out += [line(t, "EV_ABS", "ABS_MT_POSITION_Y", "%08x" % (100 + i % 2000)),
            line(t, "EV_SYN", "SYN_REPORT", "00000000")]
t += 10000
out += [line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "ffffffff"),
        line(t, "EV_KEY", "BTN_TOUCH", "UP"),
        line(t, "EV_SYN", "SYN_REPORT", "00000000")]
os.write(fd, "".join(out).encode())
os.close(fd)
PY
}

# taps N: N taps 0.35 s apart, the mail app drawing half of the time.
taps() {
	local i
	for i in $(seq 1 "$1"); do
		play_tap "$fifo" "$tmp/ups" >/dev/null
		sleep 0.35
	done
}

# stored N: waits up to 15 s for the live API to hold N gestures.
stored() {
	local i
	for i in $(seq 1 150); do
		[ "$(curl -s --max-time 5 "$url/v1/taps?limit=100" |
			jq '.taps | length')" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

fifo=$tmp/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
start_server "$tmp/out" env TAPD_FAKE_SDK=33 "$tapd" run \
	--db "$tmp/db/taps.db" --listen 127.0.0.1:0 --input "getevent:$fifo" \
	--foreground "app:$app" --settle-cap-ms 1000 \
	--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop" \
	--dumpsys-bin "$tmp/bin/no-dumpsys" --trace-dir "$tmp/traces" \
	--record "$rec" --record-max-mb 1
for _ in $(seq 1 100); do
	[ "$(curl -s --max-time 5 "$url/v1/health" |
		jq -r '.sources.frames.health // empty')" = up ] && break
	sleep 0.05
done
taps 4
# About 1.3 MiB of moves: past the bound while the finger is down.
swipe "$fifo" 12000
holds "live: the taps and the swipe are stored" stored 5
for _ in $(seq 100); do
	[ -d "$rec.1" ] && break
	sleep 0.1
done
holds "the recording is rotated once the swipe ended" test -d "$rec.1"
taps 4
holds "live: the taps after the rotation are stored" stored 9
stop_server "$pid"
exec 7>&-
check "run: exit 0" 0 "$status"
holds "no warning that frames are not recorded" \
	sh -c "! grep -q 'not recorded' '$tmp/out.err'"

for d in "$rec.1" "$rec"; do
	b=$(basename "$d")
	holds "$b: frames.pftrace" test -s "$d/frames.pftrace"
	holds "$b: device.json has the settle cap in effect" \
		grep -q '"settle_cap_ms": 1000' "$d/device.json"
	holds "$b: and the defaults measured with" \
		grep -q '"settle_quiet_ms": 300, ' "$d/device.json"
done

# snapshot_mono FILE: the MONOTONIC value of the ClockSnapshot that is
# the trace's first packet, or "none".
snapshot_mono() {
	python3 - "$1" <<'PY'
import sys

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 0:
            v, i = varint(b, i)
            yield k >> 3, v
        elif k & 7 == 2:
            n, i = varint(b, i)
            yield k >> 3, b[i:i + n]
            i += n
        else:
            raise SystemExit("none")

data = open(sys.argv[1], "rb").read()
num, pkt = next(fields(data))
snap = dict(fields(pkt)).get(6) if num == 1 else None
mono = [dict(fields(c)).get(2) for n, c in fields(snap or b"") if n == 1
        and dict(fields(c)).get(1) == 3]
print(mono[0] if mono else "none")
PY
}
for d in "$rec.1" "$rec"; do
	holds "$(basename "$d"): frames.pftrace begins with a ClockSnapshot" \
		test "$(snapshot_mono "$d/frames.pftrace")" -gt 0
done
check "the rotated-to part's snapshot is where it was begun (device.json's anchor)" \
	"$(jq -r .clock.monotonic_ns "$rec/device.json")" "$(snapshot_mono "$rec/frames.pftrace")"

cols="run, session, app, pid, kind, status, flags, t_down_ns, t_up_ns, x, y,
	first_frame_ns, settle_ns, frames, jank, jank_tags, window, attribution"
q() {
	sqlite3 -batch -noheader "$1" "SELECT $cols FROM taps ${2:-} ORDER BY t_up_ns" 2>&1
}
"$tapd" replay --session "$rec.1" --db "$tmp/r1.db" >"$tmp/r1.out" 2>&1
check "replay of the older part: exit 0" 0 "$?"
"$tapd" replay --session "$rec" --db "$tmp/r0.db" >"$tmp/r0.out" 2>&1
check "replay of the newer part: exit 0" 0 "$?"
holds "replay: the frames are FrameTimeline's" grep -q "frames.pftrace" "$tmp/r0.out"
holds "replay: the summary names the recorded thresholds" \
	grep -q "^thresholds recorded: .*settle_cap_ms 1000" "$tmp/r0.out"
cut=$(sqlite3 "$tmp/db/taps.db" "SELECT t_up_ns FROM taps WHERE kind = 'swipe'")
live1=$(q "$tmp/db/taps.db" "WHERE t_up_ns <= $cut")
live0=$(q "$tmp/db/taps.db" "WHERE t_up_ns > $cut")
check "live: four taps and the swipe before the rotation" "tap tap tap tap swipe" \
	"$(sqlite3 "$tmp/db/taps.db" "SELECT kind FROM taps WHERE t_up_ns <= $cut ORDER BY t_up_ns" | tr '\n' ' ' | sed 's/ $//')"
check "live: four taps after it" 4 "$(printf '%s\n' "$live0" | grep -c .)"
check "live: taps measured against frames (ok or no_response, none unavailable)" 0 \
	"$(sqlite3 "$tmp/db/taps.db" "SELECT count(*) FROM taps WHERE kind = 'tap' AND status NOT IN ('ok', 'no_response')")"
check "live: some taps have a response" true \
	"$(sqlite3 "$tmp/db/taps.db" "SELECT count(*) > 0 FROM taps WHERE status = 'ok'" | sed 's/1/true/')"
check "replay of the older part: its live rows" "$live1" "$(q "$tmp/r1.db")"
check "replay of the newer part: its live rows" "$live0" "$(q "$tmp/r0.db")"

# The command line wins over the recording, and the summary says so.
"$tapd" replay --session "$rec" --db "$tmp/r2.db" --settle-cap-ms 200 \
	>"$tmp/r2.out" 2>&1
check "replay with --settle-cap-ms: exit 0" 0 "$?"
holds "it says the command line's cap was used" \
	grep -q "from the command line instead of the recording's: settle_cap_ms 200" "$tmp/r2.out"
# A settle past the cap is the cap's (settle_capped, or interrupted when
# the next touch ended the window first).
check "no tap of that replay settles past 200 ms uncapped" 0 \
	"$(sqlite3 "$tmp/r2.db" "SELECT count(*) FROM taps WHERE settle_ns > 200000000 AND flags & 6 = 0")"
# The same rows as the recording would give had it been made with 200.
cp -r "$rec" "$tmp/rec200"
jq -c '.measure.settle_cap_ms = 200' "$rec/device.json" >"$tmp/rec200/device.json"
"$tapd" replay --session "$tmp/rec200" --db "$tmp/r3.db" >"$tmp/r3.out" 2>&1
check "replay of a recording that says 200: exit 0" 0 "$?"
check "the command line's 200 measures as a recorded 200 does" "$(q "$tmp/r3.db")" \
	"$(q "$tmp/r2.db")"
finish
