#!/usr/bin/env bash
# End to end: tapd run --record and its rotation (daemon/record.h).  The
# live daemon reads its touches as a getevent stream on a FIFO, one app
# in front, and records them with --record-max-mb 1: taps, then a long
# swipe whose frames pass the bound, then taps again.  The recording must
# be rotated after the swipe (never through it): DIR.1 holds the taps
# before and the swipe, DIR the taps after, each a whole session whose
# replay stores exactly the live rows of its part.  A run whose frames
# come from dumpsys --latency by getprop's sdk records the level in
# device.json and where the frames' coverage starts.  The real-kernel test
# (tests/vm/run.sh) does the same over evdev and latency frames.
set -u
build=${BUILD:-build}
tapd=$build/tapd
NAME=live_record
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/tap.sh"
need_bins "$tapd" "$build/tapd-sim"
need_tools curl python3 sqlite3
work_dir live_record
tmp=$work
rec=$tmp/rec
app=com.example.rec

printf '%s\n' '{"screen": {"width": 1080, "height": 2340},' \
	'"touch": {"x": {"min": 0, "max": 1079}, "y": {"min": 0, "max": 2339}}}' \
	>"$tmp/device.json"

# swipe FIFO MOVES: one finger down, MOVES frames of moves, up.
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

fifo=$tmp/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
mkdir -p "$tmp/db"
start_server "$tmp/out" "$tapd" run --db "$tmp/db/taps.db" \
	--listen 127.0.0.1:0 --input "getevent:$fifo" --frames none \
	--foreground "app:$app" --device "$tmp/device.json" \
	--record "$rec" --record-max-mb 1
play_tap "$fifo" "$tmp/ups" >/dev/null
play_tap "$fifo" "$tmp/ups" >/dev/null
# About 1.3 MiB of moves: past the bound while the finger is down.
swipe "$fifo" 12000
# The rotation waits for the pipeline to be idle: the swipe stored.
for _ in $(seq 100); do
	[ -d "$rec.1" ] && break
	sleep 0.1
done
holds "the recording is rotated once the swipe ended" test -d "$rec.1"
play_tap "$fifo" "$tmp/ups" >/dev/null
sleep 0.3
stop_server "$pid"
exec 7>&-
check "run: exit 0" 0 "$status"
"$tapd" run --record "$rec" --db "$tmp/db/other.db" --input "getevent:$fifo" \
	>"$tmp/again.out" 2>&1
check "a directory holding a recording is refused: exit 1" 1 "$?"
holds "it says why" grep -q "already holds a recording" "$tmp/again.out"

for d in "$rec.1" "$rec"; do
	for f in input.getevent foreground.log device.json; do
		holds "$(basename "$d"): $f" test -s "$d/$f"
	done
	holds "$(basename "$d"): device.json keeps --device's panel" \
		grep -q '"touch": {"x": {"min": 0, "max": 1079}' "$d/device.json"
	holds "$(basename "$d"): the one app from time 0" \
		grep -qx "0 0 $app" "$d/foreground.log"
done
size=$(du -sb "$rec.1" | cut -f1)
holds "the rotated part passed the bound, by less than the swipe ($size bytes)" \
	test "$size" -ge 1048576 -a "$size" -lt 2097152

# Frames by dumpsys --latency, picked by a (fake) getprop's sdk 30: the
# level goes into device.json, and latency/ starts with the empty list
# that marks where the frames' coverage begins.
mkdir -p "$tmp/bin"
ln -s "$PWD/$build/tapd-sim" "$tmp/bin/getprop"
start_server "$tmp/h.out" env TAPD_FAKE_SDK=30 "$tapd" run --db "$tmp/db/h.db" \
	--listen 127.0.0.1:0 --sysroot "$tmp/empty" --foreground none \
	--getprop-bin "$tmp/bin/getprop" --dumpsys-bin "$tmp/bin/no-dumpsys" \
	--record "$tmp/rec-sdk"
stop_server "$pid"
check "sdk 30: exit 0" 0 "$status"
holds "sdk 30: device.json says so" grep -q '"android_sdk": 30' "$tmp/rec-sdk/device.json"
check "sdk 30: latency/ holds the start of coverage, an empty list" 1 \
	"$(find "$tmp/rec-sdk/latency" -name '*.list' -empty | wc -l)"

cols="run, session, app, pid, kind, status, flags, t_down_ns, t_up_ns, x, y,
	first_frame_ns, settle_ns, frames, jank, jank_tags, window, attribution"
q() {
	sqlite3 -batch -noheader "$1" "SELECT $cols FROM taps ${2:-} ORDER BY t_up_ns" 2>&1
}
"$tapd" replay --session "$rec.1" --db "$tmp/r1.db" >"$tmp/r1.out" 2>&1
check "replay of the older part: exit 0" 0 "$?"
"$tapd" replay --session "$rec" --db "$tmp/r0.db" >"$tmp/r0.out" 2>&1
check "replay of the newer part: exit 0" 0 "$?"
cut=$(sqlite3 "$tmp/db/taps.db" "SELECT t_up_ns FROM taps WHERE kind = 'swipe'")
live1=$(q "$tmp/db/taps.db" "WHERE t_up_ns <= $cut")
live0=$(q "$tmp/db/taps.db" "WHERE t_up_ns > $cut")
check "live: two taps and the swipe before the rotation" "tap tap swipe" \
	"$(sqlite3 "$tmp/db/taps.db" "SELECT kind FROM taps WHERE t_up_ns <= $cut ORDER BY t_up_ns" | tr '\n' ' ' | sed 's/ $//')"
check "live: one tap after it" 1 "$(printf '%s\n' "$live0" | grep -c .)"
check "replay of the older part: its live rows" "$live1" "$(q "$tmp/r1.db")"
check "replay of the newer part: its live rows" "$live0" "$(q "$tmp/r0.db")"

finish
