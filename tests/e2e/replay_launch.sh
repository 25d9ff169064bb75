#!/usr/bin/env bash
# End to end: launches and navigations in a replay (docs/DESIGN.md
# 1.5.1), from a hand-written session whose foreground.log names the
# activities in its fourth field, one of them in Android's short form
# (".ui.HomeActivity").  Six taps:
#   1  a launcher icon; the shop comes to the front 90 ms later: a launch,
#      measured on the shop's frames that started after t_up (one that
#      started before is not), the burst ending at a gap over 300 ms;
#   2  in the shop, its cart activity 50 ms later: a navigation;
#   3  in the shop, nothing switches: a control;
#   4  the mail app comes only after the next touch-down: not 4's, but
#   5  that next tap's launch;
#   6  the news app comes 10.45 s later, past the 10 s cap: no launch,
#      except with --launch-cap-ms 11000.
# Every expected value is worked out below from the times written here.
# The fields on /v1/taps come from `tapd serve` of the database.  The
# control: the same log without its fourth field loses the navigation.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
NAME=replay_launch
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD"
need_tools sqlite3 jq curl

work_dir replay-launch
s=$work/session
mkdir -p "$s/latency"
S=1000000000
MS=1000000

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
	tap 10.000000 10.060000 300 900 1
	tap 20.000000 20.050000 500 1500 2
	tap 30.000000 30.050000 500 1500 3
	tap 40.000000 40.050000 500 1500 4
	tap 41.000000 41.050000 500 1500 5
	tap 50.000000 50.050000 300 900 6
} >"$s/input.getevent"

{
	echo "# monotonic_ns pid package [activity]"
	echo "$((1 * S)) 1000 com.android.launcher3 com.android.launcher3.Launcher"
	echo "$((10150 * MS)) 2000 com.example.shop .ui.HomeActivity"
	echo "$((20100 * MS)) 2000 com.example.shop com.example.shop.ui.CartActivity"
	echo "$((41200 * MS)) 3000 com.example.mail com.example.mail.MainActivity"
	echo "$((45 * S)) 1000 com.android.launcher3 com.android.launcher3.Launcher"
	echo "$((60500 * MS)) 4000 org.example.news"
} >"$s/foreground.log"

# layer FILE NAME ROWS...: a --latency snapshot, rows "START PRESENT" in
# ms (ready = start), as replay_attrib.sh writes them.
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
L="com.android.launcher3/com.android.launcher3.Launcher#1"
H="com.example.shop/com.example.shop.ui.HomeActivity#2"
C="com.example.shop/com.example.shop.ui.CartActivity#3"
M="com.example.mail/com.example.mail.MainActivity#5"
N="org.example.news/org.example.news.MainActivity#6"
layer "$((9500 * MS))-0.txt" "$L" "9000 9010"
layer "$((9500 * MS))-1.txt" "$H" "9000 9012"
layer "$((70 * S))-0.txt" "$L" "9000 9010" "10070 10085" "50060 50080"
layer "$((70 * S))-1.txt" "$H" "9000 9012" "10050 10100" "10300 10350" \
	"10360 10366" "10370 10382" "11200 11300" "30060 30090" "40060 40070" "41060 41080"
layer "$((70 * S))-2.txt" "$C" "20060 20080"
layer "$((70 * S))-3.txt" "$M" "41300 41420" "41430 41500"
layer "$((70 * S))-4.txt" "$N" "60600 60700"

q() {
	sqlite3 -batch -noheader "$work/$1.db" "$2" 2>&1
}
rows="SELECT app, coalesce(target_app, '-'), coalesce(target_activity, '-'),
	coalesce(launch_first_frame_ns, '-'), coalesce(launch_settle_ns, '-'),
	flags & 6144, first_frame_ns FROM taps ORDER BY t_up_ns"

"$TAPD" replay --session "$s" --db "$work/a.db" >"$work/a.out" 2>&1
check "replay: exit status" 0 "$?"
# 1: the shop's frames from 10.060 s: 10.350 (290 ms), its burst to
# 10.382 (322 ms); 10.050 started before t_up, 11.300 is after a gap.
# The launcher's own first frame stays 25 ms.  5: the mail's 41.420 and
# 41.500 from 41.050 s, the shop's own 41.080.  2048 is the flag launch, 4096 navigation.
check "replay: launches, a navigation, and the taps that are neither" \
	"com.android.launcher3|com.example.shop|com.example.shop.ui.HomeActivity|$((290 * MS))|$((322 * MS))|2048|$((25 * MS))
com.example.shop|com.example.shop|com.example.shop.ui.CartActivity|-|-|4096|$((30 * MS))
com.example.shop|-|-|-|-|0|$((40 * MS))
com.example.shop|-|-|-|-|0|$((20 * MS))
com.example.shop|com.example.mail|com.example.mail.MainActivity|$((370 * MS))|$((450 * MS))|2048|$((30 * MS))
com.android.launcher3|-|-|-|-|0|$((30 * MS))" \
	"$(q a "$rows")"
check "replay: the view of launches" \
	"com.android.launcher3|com.example.shop|1|1
com.example.shop|com.example.mail|1|1" \
	"$(q a "SELECT * FROM tap_launches ORDER BY app")"

"$TAPD" replay --session "$s" --db "$work/cap.db" --launch-cap-ms 11000 \
	>"$work/cap.out" 2>&1
check "--launch-cap-ms 11000: exit status" 0 "$?"
check "--launch-cap-ms 11000: the news app is tap 6's launch" \
	"org.example.news|-|$((10650 * MS))" \
	"$(q cap "SELECT target_app, coalesce(target_activity, '-'),
		launch_first_frame_ns FROM taps ORDER BY t_up_ns DESC LIMIT 1")"
"$TAPD" replay --session "$s" --db "$work/bad.db" --launch-cap-ms -1 \
	>"$work/bad.out" 2>&1
check "--launch-cap-ms -1: exit status" 2 "$?"

# The control: without the fourth field tap 2 is no navigation.
awk 'NF == 4 && $1 !~ /^#/ { NF = 3 } { print }' "$s/foreground.log" \
	>"$work/fg3.log"
"$TAPD" replay --session "$s" --foreground "log:$work/fg3.log" \
	--db "$work/ctl.db" >"$work/ctl.out" 2>&1
check "control: exit status" 0 "$?"
got=$(q ctl "SELECT flags & 6144 FROM taps ORDER BY t_up_ns LIMIT 1 OFFSET 1")
if [ "$got" = 0 ] && [ "$(q a "SELECT flags & 6144 FROM taps ORDER BY
	t_up_ns LIMIT 1 OFFSET 1")" = 4096 ]; then
	ok "control: the navigation needs the activities"
else
	ko "control: the navigation needs the activities" "got '$got'"
fi

# /v1/taps: the fields, in ms.
serve_db "$work/a.db"
body=$(curl -sf "$url/v1/taps?limit=10")
check "/v1/taps: the launch fields" \
	"com.example.shop com.example.shop.ui.HomeActivity 290 322 launch
com.example.shop com.example.shop.ui.CartActivity null null navigation
null null null null -
null null null null -
com.example.mail com.example.mail.MainActivity 370 450 launch
null null null null -" \
	"$(printf '%s' "$body" | jq -r '.taps | sort_by(.t_up_ns | tonumber) |
		.[] | "\(.target_app) \(.target_activity) " +
		"\(.launch_first_frame_ms) \(.launch_settle_ms) " +
		(([.flags[] | select(. == "launch" or . == "navigation")] |
		first) // "-")')"
# The statistics of the launch metrics: the two launches, 290 and 370 ms
# (settle 322 and 450), both of the launcher's and the shop's ok taps.
check "/v1/percentiles?metric=launch_first_frame" "2 exact 290 370" \
	"$(curl -sf "$url/v1/percentiles?metric=launch_first_frame&p=50,90" |
		jq -r '"\(.count) \(.method) \(.percentiles."50") \(.percentiles."90")"')"
check "/v1/percentiles?metric=launch_first_frame&method=histogram" \
	"histogram 2" \
	"$(curl -sf "$url/v1/percentiles?metric=launch_first_frame&method=histogram" |
		jq -r '"\(.method) \(.count)"')"
check "tapctl percentiles --metric launch_first_frame" "2" \
	"$("$build/tapctl" --url "$url" --json percentiles \
		--metric launch_first_frame | jq .count)"
check "/v1/percentiles?metric=launch_settle&app=com.example.shop" "1 450" \
	"$(curl -sf "$url/v1/percentiles?metric=launch_settle&app=com.example.shop&p=50" |
		jq -r '"\(.count) \(.percentiles."50")"')"
check "/v1/histogram?metric=launch_settle: two taps" "2" \
	"$(curl -sf "$url/v1/histogram?metric=launch_settle&buckets=4" |
		jq '[.buckets[].count] | add')"
check "/v1/apps: the launches by tapping app" \
	"com.android.launcher3 1 290
com.example.shop 1 370" \
	"$(curl -sf "$url/v1/apps" | jq -r '.apps[] | "\(.app) " +
		"\(.launch_first_frame.count) " +
		"\(.launch_first_frame.percentiles."50")"')"
check "/metrics: tapd_launch_first_frame_seconds" \
	'tapd_launch_first_frame_seconds_count{app="com.android.launcher3"} 1
tapd_launch_first_frame_seconds_count{app="com.example.shop"} 1' \
	"$(curl -sf "$url/metrics" |
		grep '^tapd_launch_first_frame_seconds_count')"
check "tapctl apps: the launch columns" \
	"LAUNCHES LAUNCH_P50_MS LAUNCH_P90_MS LAUNCH_P99_MS
1 290.0 290.0 290.0
1 370.0 370.0 370.0" \
	"$("$build/tapctl" --url "$url" apps | awk '{ print $(NF - 3), $(NF - 2),
		$(NF - 1), $NF }')"
stop_server "$pid"

finish
