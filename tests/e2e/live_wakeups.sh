#!/usr/bin/env bash
# End to end: an idle `tapd run` sleeps (issue 11, "idle wake-ups").  With
# FrameTimeline from the fake perfetto in its idle mode (nothing drawn, so
# nothing is written to the trace), the foreground tracked on a fake
# sysroot, a live getevent stream on a FIFO and one /v1/events stream
# open, the daemon's threads together must wake less than once a second
# (voluntary and involuntary context switches, from /proc): the heartbeat
# runs only while there is work, the trace file is watched with inotify,
# the connection watch sleeps until a deadline and the stream until a tap.
# The old fixed timers (100 ms, 250 ms, 250 ms, 250 ms) made about 22 a
# second.  Then one tap must still come through: the loop wakes for the
# touch, finalizes it from the fake dumpsys's rows, and the stream gets it.
set -u
build=${BUILD:-build}
tapd=$build/tapd
sim=$build/tapd-sim
NAME=live_wakeups
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/tap.sh"
need_bins "$tapd" "$sim"
need_tools curl jq python3
work_dir live_wakeups
tmp=$work
mkdir -p "$tmp/bin" "$tmp/traces"
for t in perfetto dumpsys getprop; do
	ln -s "$PWD/$sim" "$tmp/bin/$t"
done

# A fake Android with one app in top-app.
root=$tmp/root
mkdir -p "$root/dev/cpuset/top-app" "$root/proc/2001"
echo 2001 >"$root/dev/cpuset/top-app/cgroup.procs"
printf '%s\0' com.example.taps >"$root/proc/2001/cmdline"
echo "2001 (taps) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1000 0 0" \
	>"$root/proc/2001/stat"
printf 'Name:\ttaps\nUid:\t10123\t10123\t10123\t10123\n' \
	>"$root/proc/2001/status"

# The switches of every thread of a process, summed, and per thread.
switches() {
	local t n=0 v
	for t in /proc/"$1"/task/*; do
		v=$(awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }' \
			"$t/status" 2>/dev/null)
		n=$((n + ${v:-0}))
	done
	echo "$n"
}
per_thread() {
	local t
	for t in /proc/"$1"/task/*; do
		awk -v tid="${t##*/}" '/^Name:/ { name = $2 }
			/^(non)?voluntary_ctxt_switches:/ { s += $2 }
			END { printf "%s:%s=%d ", tid, name, s }' "$t/status" 2>/dev/null
	done
}

fifo=$tmp/touch.fifo
mkfifo "$fifo"
: >"$tmp/frames"
exec 7<>"$fifo"
start_server "$tmp/out" env TAPD_FAKE_SDK=33 TAPD_FAKE_PERFETTO_IDLE=1 \
	TAPD_FAKE_TAPS="$tmp/frames" \
	"$tapd" run --db "$tmp/taps.db" --listen 127.0.0.1:0 \
	--input "getevent:$fifo" --sysroot "$root" --settle-cap-ms 1000 \
	--perfetto-bin "$tmp/bin/perfetto" --dumpsys-bin "$tmp/bin/dumpsys" \
	--getprop-bin "$tmp/bin/getprop" --trace-dir "$tmp/traces"
check "daemon listens" true "$([ -n "$url" ] && echo true)"
for i in $(seq 1 100); do
	[ "$(curl -s --max-time 5 "$url/v1/health" |
		jq -r '.sources.frames.health // empty')" = up ] && break
	sleep 0.05
done
check "frames up (the trace file is open)" up \
	"$(curl -s --max-time 5 "$url/v1/health" | jq -r .sources.frames.health)"
curl -s -N --max-time 60 "$url/v1/events" >"$tmp/events.txt" &
curl_pid=$!
# Past the heartbeat's second after the last request, and the stream's
# first write.
sleep 3
secs=8
a=$(switches "$pid")
before=$(per_thread "$pid")
sleep "$secs"
b=$(switches "$pid")
after=$(per_thread "$pid")
echo "     threads before: $before"
echo "     threads after:  $after"
n=$((b - a))
echo "     $n wake-ups in $secs s, idle"
holds "idle: fewer than one wake-up a second ($n in $secs s)" \
	test "$n" -lt "$secs"

# One tap after the idle time: the touch wakes the loop, which finalizes
# the tap from the fake dumpsys's rows (the screen stays idle) and
# announces it on the stream that has slept meanwhile.
play_tap "$fifo" "$tmp/frames" >/dev/null
for i in $(seq 1 200); do
	grep -q '^event: tap' "$tmp/events.txt" && break
	sleep 0.05
done
check "the tap after the idle time reached the stream" 1 \
	"$(grep -c '^event: tap' "$tmp/events.txt")"
check "it names the foreground app" com.example.taps \
	"$(grep -m 1 '^data: ' "$tmp/events.txt" | cut -c 7- | jq -r .app)"
kill "$curl_pid" 2>/dev/null
wait "$curl_pid" 2>/dev/null
stop_server "$pid"
check "SIGTERM: exit 0" 0 "$status"
exec 7>&-
finish
