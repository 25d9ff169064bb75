#!/usr/bin/env bash
# End to end: the live daemon's hit-tested attribution (docs/DESIGN.md
# 3.5.2).  `tapd run` reads its touches as a getevent stream on a FIFO,
# stamped with CLOCK_MONOTONIC as written, and a fake dumpsys prints a
# real-format window list (the keyboard over a chat) for `dumpsys
# input`.  A tap on the keyboard once the list is in must go to the
# keyboard's package, its owner found in the fake /proc; the lists and
# owners it used are recorded beside the database, and a replay of the
# same touches with those files attributes every tap exactly as the live
# run did.
set -u
build=${BUILD:-build}
tapd=$build/tapd
NAME=live_attrib
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$tapd"
need_tools curl jq python3 sqlite3
work_dir live_attrib
tmp=$work
list=$PWD/tests/fixtures/dumpsys-input/android14-ime-vendor.txt

mkdir -p "$tmp/bin" "$tmp/db" "$tmp/session"
cat >"$tmp/bin/dumpsys" <<SH
#!/bin/sh
echo "\$1" >>"$tmp/calls"
[ "\$1" = input ] || exit 1
cat "$list"
SH
chmod +x "$tmp/bin/dumpsys"
root=$tmp/root
mkproc() {
	mkdir -p "$root/proc/$1"
	printf '%s\0' "$2" >"$root/proc/$1/cmdline"
	echo "$1 ($2) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 $((7 * $1)) 0 0" \
		>"$root/proc/$1/stat"
	printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\n' "$2" "$3" "$3" "$3" "$3" \
		>"$root/proc/$1/status"
}
mkproc 3300 com.example.ime 10095
mkproc 4400 com.example.chat 10200
printf '%s\n' '{"screen": {"width": 1080, "height": 2340},' \
	'"touch": {"x": {"min": 0, "max": 1079}, "y": {"min": 0, "max": 2339}}}' \
	>"$tmp/session/device.json"

# play FIFO LOG X Y: one 60 ms tap at raw (X, Y), written to the stream
# and to LOG, each line stamped with CLOCK_MONOTONIC as it is written.
play() {
	python3 - "$@" <<'PY'
import os, sys, time

def line(t, typ, code, value):
    us = t // 1000
    return "[%8d.%06d] %-12s %-20s %s\n" % (us // 1000000, us % 1000000,
                                           typ, code, value)

def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)

fd = os.open(sys.argv[1], os.O_WRONLY)
log = open(sys.argv[2], "a")
x, y = int(sys.argv[3]), int(sys.argv[4])
t = now()
down = (line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "00000001") +
        line(t, "EV_ABS", "ABS_MT_POSITION_X", "%08x" % x) +
        line(t, "EV_ABS", "ABS_MT_POSITION_Y", "%08x" % y) +
        line(t, "EV_SYN", "SYN_REPORT", "00000000"))
os.write(fd, down.encode())
log.write(down)
time.sleep(0.06)
t = now()
up = (line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "ffffffff") +
      line(t, "EV_SYN", "SYN_REPORT", "00000000"))
os.write(fd, up.encode())
log.write(up)
os.close(fd)
PY
}

fifo=$tmp/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
start_server "$tmp/out" "$tapd" run --db "$tmp/db/taps.db" \
	--listen 127.0.0.1:0 --input "getevent:$fifo" --frames none \
	--foreground app:com.example.chat --device "$tmp/session/device.json" \
	--sysroot "$root" --dumpsys-bin "$tmp/bin/dumpsys"
log=$tmp/session/input.getevent
: >"$log"
# The first tap starts the read; the later ones find the list in.
play "$fifo" "$log" 540 2000
sleep 0.5
play "$fifo" "$log" 540 2000
sleep 0.2
play "$fifo" "$log" 540 1420
sleep 0.2
stop_server "$pid"
exec 7>&-
check "run: exit 0" 0 "$status"
# Once, as the list stays fresh for 2 s, unless a loaded machine
# stretched the taps past that: never more than once a touch-down.
n=$(grep -c '^input$' "$tmp/calls")
check "dumpsys input was asked, at most once a tap" true \
	"$([ "$n" -ge 1 ] && [ "$n" -le 3 ] && echo true)"

q() {
	sqlite3 -batch -noheader "$1" 'SELECT coalesce(app, ""), coalesce(pid, 0),
		coalesce(window, "-"), attribution FROM taps ORDER BY t_up_ns' 2>&1
}
live=$(q "$tmp/db/taps.db")
check "live: the keyboard tap once the list is in, then the chat" \
	"com.example.ime|3300|c3d4e5f InputMethod|window
com.example.chat|4400|f6a7b8c com.example.chat/com.example.chat.ConversationActivity|window" \
	"$(sed -n 2,3p <<<"$live")"
holds "live: the first tap is the window's or the foreground's" \
	grep -Eq '^(com.example.ime\|3300\|c3d4e5f InputMethod\|window|com.example.chat\|0\|-\|foreground)$' \
	<<<"$(head -n 1 <<<"$live")"
holds "live: windows.log beside the database, a block of the list" \
	grep -q '^@ [0-9]\+$' "$tmp/db/windows.log"
check "live: processes.log names both owners" \
	"3300 10095 com.example.ime
4400 10200 com.example.chat" \
	"$(cut -d' ' -f2- "$tmp/db/processes.log" | sort)"

cp "$tmp/db/windows.log" "$tmp/db/processes.log" "$tmp/session/"
"$tapd" replay --session "$tmp/session" --foreground app:com.example.chat \
	--db "$tmp/replay.db" >"$tmp/replay.out" 2>&1
check "replay: exit 0" 0 "$?"
check "replay: attributes every tap as the live run did" "$live" \
	"$(q "$tmp/replay.db")"
"$tapd" replay --session "$tmp/session" --foreground app:com.example.chat \
	--windows none --db "$tmp/none.db" >"$tmp/none.out" 2>&1
check "replay --windows none: the foreground's" \
	"com.example.chat|0|-|foreground
com.example.chat|0|-|foreground
com.example.chat|0|-|foreground" "$(q "$tmp/none.db")"

finish
