#!/usr/bin/env bash
# End to end: hit-tested attribution in a replay (docs/DESIGN.md 3.5.2).
# A hand-written session: a chat app in front with the keyboard up, then
# a news app under the pulled-down notification shade.  Its windows.log
# holds real-format `dumpsys input` lists (tests/fixtures/dumpsys-input),
# its processes.log their owners, its latency/ the frames of each app.
# A tap on the keyboard must go to the keyboard's package and be measured
# by its frames, a tap on the shade to SystemUI; with --windows none the
# same session falls back to the foreground, and the control (the
# keyboard tap's expected first frame, taken from the foreground run)
# must be caught as wrong.
set -u
build=${BUILD:-build}
tapd=$build/tapd
fix=tests/fixtures/dumpsys-input
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NAME=replay_attrib
. "$(dirname "$0")/lib/report.sh"

need_bins "$tapd"
need_tools sqlite3

s=$tmp/session
mkdir -p "$s/latency"
S=1000000000
MS=1000000

# ev SECONDS.MICROS TYPE CODE VALUE: one labelled getevent line.
ev() {
	printf '[%14s] %-12s %-20s %08x\n' "$1" "$2" "$3" "$4"
}
# tap DOWN UP X Y ID: one finger down at DOWN, up at UP (seconds).
tap() {
	ev "$1" EV_ABS ABS_MT_TRACKING_ID "$5"
	ev "$1" EV_ABS ABS_MT_POSITION_X "$3"
	ev "$1" EV_ABS ABS_MT_POSITION_Y "$4"
	ev "$1" EV_SYN SYN_REPORT 0
	ev "$2" EV_ABS ABS_MT_TRACKING_ID 4294967295
	ev "$2" EV_SYN SYN_REPORT 0
}
{
	# The keyboard: 2000 of 2400 raw is 1950 px of the 2340 px display.
	tap 10.000000 10.060000 540 2000 1
	# Above the keyboard's touchable region: the chat itself.
	tap 12.000000 12.050000 540 1420 2
	# The shade, pulled down over the news app.
	tap 20.000000 20.050000 540 1200 3
} >"$s/input.getevent"

printf '%s\n' '{"screen": {"width": 1080, "height": 2400},' \
	'"touch": {"x": {"min": 0, "max": 1079}, "y": {"min": 0, "max": 2399}}}' \
	>"$s/device.json"

{
	echo "$((1 * S)) 4400 com.example.chat"
	echo "$((15 * S)) 8100 com.example.news"
} >"$s/foreground.log"

# The lists as the live daemon records them: the keyboard's at 5 s, an
# empty block where the foreground changed, the shade's at 16 s.
{
	echo "@ $((5 * S))"
	cat "$fix/android14-ime-vendor.txt"
	echo "@ $((15 * S))"
	echo "@ $((16 * S))"
	cat "$fix/android12-shade.txt"
} >"$s/windows.log"
{
	echo "$((5 * S)) 3300 10095 com.example.ime"
	echo "$((5 * S)) 4400 10200 com.example.chat"
	echo "$((16 * S)) 1650 10052 com.android.systemui"
	echo "$((16 * S)) 8100 10160 com.example.news"
} >"$s/processes.log"

# layer FILE NAME ROWS...: a --latency snapshot, rows "START PRESENT" in
# ms (ready = start).  The latency reader knows a layer's app by its
# name only: the keyboard's and the shade's layers are named for their
# packages here.
layer() {
	local file=$1 name=$2 st pr
	shift 2
	{
		echo "# layer: $name"
		echo 16666666
		for r in "$@"; do
			st=${r% *}
			pr=${r#* }
			printf '%s\t%s\t%s\n' "$((st * MS))" "$((pr * MS))" \
				"$((st * MS))"
		done
		echo
	} >"$s/latency/$file"
}
# The first snapshots, before the taps, start the frames' coverage.
layer "$((9500 * MS))-0.txt" "com.example.ime/InputMethod#7" "9000 9010"
layer "$((9500 * MS))-1.txt" \
	"com.example.chat/com.example.chat.ConversationActivity#3" "9000 9012"
layer "$((9500 * MS))-2.txt" "com.android.systemui/NotificationShade#9" \
	"9000 9014"
layer "$((9500 * MS))-3.txt" \
	"com.example.news/com.example.news.ReaderActivity#4" "9000 9016"
layer "$((30 * S))-0.txt" "com.example.ime/InputMethod#7" \
	"9000 9010" "10070 10090"
layer "$((30 * S))-1.txt" \
	"com.example.chat/com.example.chat.ConversationActivity#3" \
	"9000 9012" "10075 10100" "12060 12080"
layer "$((30 * S))-2.txt" "com.android.systemui/NotificationShade#9" \
	"9000 9014" "20060 20085"
layer "$((30 * S))-3.txt" \
	"com.example.news/com.example.news.ReaderActivity#4" \
	"9000 9016" "20070 20110"

# q DB SQL: one query, '|'-separated.
q() {
	sqlite3 -batch -noheader "$tmp/$1.db" "$2" 2>&1
}
rows='SELECT app, coalesce(pid, 0), coalesce(window, "-"), attribution,
	status, first_frame_ns FROM taps ORDER BY t_up_ns'

"$tapd" replay --session "$s" --db "$tmp/win.db" >"$tmp/win.out" 2>&1
check "by window: exit status" 0 "$?"
check "by window: keyboard, chat, shade" \
	"com.example.ime|3300|c3d4e5f InputMethod|window|ok|$((30 * MS))
com.example.chat|4400|f6a7b8c com.example.chat/com.example.chat.ConversationActivity|window|ok|$((30 * MS))
com.android.systemui|1650|8a1b2c3 NotificationShade|window|ok|$((35 * MS))" \
	"$(q win "$rows")"
holds "by window: the summary counts them" \
	grep -q "^windows    3 gestures by window, 0 by foreground, 0 on no window" \
	"$tmp/win.out"
check "by window: /v1/taps fields in the store's view" "3" \
	"$(q win "SELECT sum(taps) FROM tap_windows WHERE attribution = 'window'")"

"$tapd" replay --session "$s" --windows none --db "$tmp/fg.db" \
	>"$tmp/fg.out" 2>&1
check "--windows none: exit status" 0 "$?"
check "--windows none: the foreground's, and its frames" \
	"com.example.chat|4400|-|foreground|ok|$((40 * MS))
com.example.chat|4400|-|foreground|ok|$((30 * MS))
com.example.news|8100|-|foreground|ok|$((60 * MS))" \
	"$(q fg "$rows")"

# The control: the keyboard tap measured by the foreground's frames (the
# value --windows none gives) is not what hit-testing measured.
control=$(q fg 'SELECT first_frame_ns FROM taps ORDER BY t_up_ns LIMIT 1')
got=$(q win 'SELECT first_frame_ns FROM taps ORDER BY t_up_ns LIMIT 1')
if [ "$control" != "$got" ]; then
	ok "control: the foreground's first frame is caught as wrong"
else
	ko "control: the foreground's first frame is caught as wrong" \
		"both $got"
fi

# An explicit --windows log:FILE and --processes log:FILE, outside the
# session: the same answers; without processes.log the owners are
# unknown but for the foreground's pid.
cp "$s/windows.log" "$tmp/w.log"
mv "$s/processes.log" "$tmp/p.log"
"$tapd" replay --session "$s" --windows "log:$tmp/w.log" \
	--processes "log:$tmp/p.log" --db "$tmp/opt.db" >"$tmp/opt.out" 2>&1
check "options: exit status" 0 "$?"
check "options: as the session's" "$(q win "$rows")" "$(q opt "$rows")"
"$tapd" replay --session "$s" --db "$tmp/nop.db" >"$tmp/nop.out" 2>&1
check "no processes.log: exit status" 0 "$?"
check "no processes.log: apps of the foreground's pid only" \
	"|3300|window
com.example.chat|4400|window
|1650|window" \
	"$(q nop 'SELECT coalesce(app, ""), pid, attribution FROM taps ORDER BY t_up_ns')"

"$tapd" replay --session "$s" --windows bogus --db "$tmp/bad.db" \
	>"$tmp/bad.out" 2>&1
check "--windows bogus: exit status" 2 "$?"
holds "--windows bogus: the message" \
	grep -qF "bad --windows 'bogus': expected log:FILE or none" \
	"$tmp/bad.out"
"$tapd" replay --session "$s" --windows "log:$tmp/missing" \
	--db "$tmp/miss.db" >"$tmp/miss.out" 2>&1
check "--windows missing file: exit status (as any missing recording)" 1 "$?"
holds "--windows missing file: the message names it" \
	grep -qF "cannot read the window lists '$tmp/missing'" "$tmp/miss.out"

finish
