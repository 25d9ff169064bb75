#!/usr/bin/env bash
# End to end: a navigation seen live with one app in top-app (docs/DESIGN.md
# 1.5.1).  `tapd run` reads its touches as a getevent stream on a FIFO
# (lib/tap.sh) and its foreground from a fake Android tree (--sysroot: the
# shop alone in top-app) and the simulator's fake dumpsys, whose `dumpsys
# window` prints a real-format dump naming the focused activity.  Idle,
# no dumpsys runs.  A tap opens its launch window: the shop's focus is
# asked at finger up (MainActivityV2) and on each sample after, so when
# the dump then names its CartActivity the tap is stored as a navigation
# with that target_activity; a second tap, the focus unchanged, is none.
# Once the windows have closed, dumpsys is idle again.  The recording the
# run made replays to the same taps.
set -u
build=${BUILD:-build}
tapd=$build/tapd
sim=$build/tapd-sim
NAME=live_nav
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/tap.sh"
need_bins "$tapd" "$sim"
need_tools curl jq python3 sqlite3
work_dir live_nav
tmp=$work
shop=com.example.shop
cap_ms=2500

root=$tmp/root
mkdir -p "$root/dev/cpuset/top-app" "$root/proc/2001" "$tmp/dumpsys" "$tmp/bin"
ln -s "$PWD/$sim" "$tmp/bin/dumpsys"
printf '%s\0' "$shop" >"$root/proc/2001/cmdline"
echo "2001 (shop) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1000 0 0" \
	>"$root/proc/2001/stat"
printf 'Name:\tshop\nUid:\t10123\t10123\t10123\t10123\n' >"$root/proc/2001/status"
echo 2001 >"$root/dev/cpuset/top-app/cgroup.procs"

# focus FIXTURE: what `dumpsys window` prints from now on, swapped in
# whole so that a dumpsys running meanwhile reads one or the other.
focus() {
	cp "tests/fixtures/foreground/$1" "$tmp/dumpsys/window.new"
	mv "$tmp/dumpsys/window.new" "$tmp/dumpsys/window.out"
}
calls() {
	if [ -f "$tmp/dumpsys/window.calls" ]; then
		grep -c '^window$' "$tmp/dumpsys/window.calls"
	else
		echo 0
	fi
}
# tap_json N: the Nth tap stored (from 0, oldest first), waiting up to
# 10 s for it; empty when it never came.
tap_json() {
	local i t
	for i in $(seq 1 200); do
		t=$(curl -s --max-time 5 "$url/v1/taps?kind=tap" |
			jq -c ".taps | sort_by(.t_up_ns) | .[$1] // empty")
		[ -n "$t" ] && break
		sleep 0.05
	done
	printf '%s' "$t"
}

focus window-a14.txt
fifo=$tmp/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
start_server "$tmp/out" env TAPD_FAKE_DUMPSYS_DIR="$tmp/dumpsys" \
	"$tapd" run --db "$tmp/taps.db" --listen 127.0.0.1:0 \
	--input "getevent:$fifo" --frames none --sysroot "$root" \
	--dumpsys-bin "$tmp/bin/dumpsys" --launch-cap-ms "$cap_ms" \
	--settle-cap-ms 1000 \
	--record "$tmp/rec"
# Idle, one app in top-app: samples every second, and no dumpsys.
sleep 1.2
check "idle: no dumpsys window" 0 "$(calls)"

# 1. A tap, then the shop goes to its cart within the window.
play_tap "$fifo" "$tmp/ups" >/dev/null
for _ in $(seq 1 100); do
	[ "$(calls)" -ge 1 ] && break
	sleep 0.02
done
check "tap 1: its focus asked at finger up" 1 "$(calls)"
sleep 0.1
focus window-a9.txt
t1=$(tap_json 0)
check "tap 1: stored" true "$([ -n "$t1" ] && echo true)"
check "tap 1: a navigation" true "$(jq '.flags | index("navigation") != null' <<<"$t1")"
check "tap 1: not a launch" false "$(jq '.flags | index("launch") != null' <<<"$t1")"
check "tap 1: target_app" "$shop" "$(jq -r .target_app <<<"$t1")"
check "tap 1: target_activity" "$shop.CartActivity" \
	"$(jq -r .target_activity <<<"$t1")"

# 2. A tap with the focus unchanged: no switch, stored at its cap.
n1=$(calls)
play_tap "$fifo" "$tmp/ups" >/dev/null
t2=$(tap_json 1)
check "tap 2: stored" true "$([ -n "$t2" ] && echo true)"
check "tap 2: no navigation" false "$(jq '.flags | index("navigation") != null' <<<"$t2")"
check "tap 2: no target_app" null "$(jq -r .target_app <<<"$t2")"
# At most one dumpsys at finger up and one a second of the window after,
# and one more of tap 1's window if a sample came between n1 and tap 2's
# touch-down, which closed it.
n2=$(calls)
max=$((2 + (cap_ms + 999) / 1000))
holds "tap 2: $((n2 - n1)) dumpsys in its ${cap_ms} ms window, at most $max" \
	test $((n2 - n1)) -ge 1 -a $((n2 - n1)) -le "$max"
sleep 1.2
check "after the windows: no more dumpsys" "$n2" "$(calls)"
stop_server "$pid"
exec 7>&-
check "run: exit 0" 0 "$status"

# The recording: the switches with their activities, replayed the same.
holds "recorded: the activity switched to" \
	grep -q "^[0-9]* 2001 $shop $shop.CartActivity\$" "$tmp/rec/foreground.log"
"$tapd" replay --session "$tmp/rec" --db "$tmp/replay.db" >"$tmp/replay.out" 2>&1
check "replay: exit 0" 0 "$?"
cols="t_up_ns, flags, app, coalesce(target_app, '-'), coalesce(target_activity, '-')"
q() {
	sqlite3 -batch -noheader "$1" "SELECT $cols FROM taps ORDER BY t_up_ns" 2>&1
}
check "replay: the live taps" "$(q "$tmp/taps.db")" "$(q "$tmp/replay.db")"
check "replay: two taps, the first a navigation" "1 0" \
	"$(sqlite3 "$tmp/replay.db" 'SELECT (flags & 4096) != 0 FROM taps ORDER BY t_up_ns' | tr '\n' ' ' | sed 's/ $//')"
finish
