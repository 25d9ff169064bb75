#!/usr/bin/env bash
# Launches and navigations against the ground truth (docs/DESIGN.md
# 1.5.1): tapd-sim's launch scenario, seeds 1 2 3, replayed by tapd and
# compared with truth.json exactly: target_app, target_activity,
# launch_first_frame_ns and launch_settle_ns to the nanosecond, and the
# launch and navigation flags, besides everything sim_replay compares.
#
# The generator is checked first, with a reader of this script that does
# not use the simulator's code: every "launch" tap's foreground.log has a
# change to another package after t_up, within 10 s and before the next
# touch-down; every "navigate" tap's a change to another activity of the
# same package; a "late-launch" tap's change comes after 10 s, a
# "slow-launch" tap's after the next touch-down, and a "control" tap has
# none in its window.  The truth must call the first two a launch and a
# navigation and the others neither.
#
# Controls that must be caught: one launch value off by 1 ns in the
# database; the activities taken out of foreground.log (the navigations
# vanish); a replay with --launch-cap-ms 0.
#
# Run from the repository root; BUILD names the build directory (default
# build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
SEEDS="1 2 3"

NAME=sim_launch
. "$(dirname "$0")/lib/report.sh"

need_bins "$SIM" "$TAPD"
need_tools jq awk sqlite3

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-sim-launch.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The gestures of a truth: "T_DOWN T_UP NOTE FLAG" (FLAG launch,
# navigation or -), in order.
gestures_of() {
	jq -r '.gestures[] | "\(.t_down_ns) \(.t_up_ns) \(.note) " +
		(([.flags[] | select(. == "launch" or . == "navigation")] |
		first) // "-")' "$1"
}

# selfcheck GESTURES FOREGROUND_LOG: the reader described above.  Prints
# what is wrong and how many of each case it saw; exits 0 when nothing
# is wrong.
selfcheck() {
	awk '
	FNR == NR {
		n++
		td[n] = $1; tu[n] = $2; note[n] = $3; flag[n] = $4
		next
	}
	/^[0-9]/ {
		m++
		ft[m] = $1; fp[m] = $3; fa[m] = NF >= 4 ? $4 : ""
	}
	# The first change after t_up: "KIND TIME" (KIND app or activity).
	function change(k,   i, b) {
		b = 0
		for (i = 1; i <= m; i++)
			if (ft[i] + 0 <= tu[k] + 0)
				b = i
		if (b == 0)
			return "none"
		for (i = b + 1; i <= m; i++) {
			if (fp[i] != fp[b])
				return "app " ft[i]
			if (fa[i] != "" && fa[b] != "" && fa[i] != fa[b])
				return "activity " ft[i]
		}
		return "none"
	}
	END {
		for (k = 1; k <= n; k++) {
			next_down = k < n ? td[k + 1] + 0 : 9e18
			c = change(k)
			split(c, p, " ")
			t = p[2] + 0
			inside = c != "none" && t < tu[k] + 10e9 && t < next_down
			want = "-"
			if (note[k] == "launch") {
				if (!(inside && p[1] == "app"))
					bad = bad "launch tap " k " has no " \
						"switch to another app in " \
						"its window\n"
				want = "launch"
			} else if (note[k] == "navigate") {
				if (!(inside && p[1] == "activity"))
					bad = bad "navigate tap " k " has no " \
						"switch of activity in its " \
						"window\n"
				want = "navigation"
			} else if (note[k] == "late-launch") {
				if (!(c != "none" && t > tu[k] + 10e9 &&
				      t < next_down))
					bad = bad "late-launch tap " k \
						" has no switch after the " \
						"cap\n"
			} else if (note[k] == "slow-launch") {
				if (!(c != "none" && t > next_down &&
				      t < tu[k] + 10e9))
					bad = bad "slow-launch tap " k \
						" has no switch after the " \
						"next touch-down\n"
			} else if (note[k] == "control") {
				if (inside)
					bad = bad "control tap " k \
						" switches\n"
			} else {
				continue
			}
			seen[note[k]]++
			if (flag[k] != want)
				bad = bad "tap " k " (" note[k] "): the " \
					"truth says " flag[k] ", not " want "\n"
		}
		printf "%s", bad
		printf "%d launch, %d navigate, %d control, %d slow-launch, " \
			"%d late-launch\n", seen["launch"], seen["navigate"],
			seen["control"], seen["slow-launch"],
			seen["late-launch"]
		exit bad != ""
	}' "$1" "$2"
}

# replay_check DIR [TAPD OPTION...]: replays and checks; prints pass or
# fail with the check's last line, and the differences on fail.
replay_check() {
	local dir=$1 out
	shift
	rm -f "$dir/taps.db"
	if ! "$TAPD" replay --session "$dir" --db "$dir/taps.db" "$@" \
		>"$dir/replay.log" 2>&1; then
		echo "fail: tapd replay failed"
		sed 's/^/    /' "$dir/replay.log" | head -n 20
		return
	fi
	check_db "$dir"
}

check_db() {
	local dir=$1 out
	if out=$("$SIM" check --truth "$dir/truth.json" --db "$dir/taps.db" \
		2>&1); then
		echo "pass: $(printf '%s\n' "$out" | grep '^check:' | tail -n 1)"
	else
		echo "fail: $(printf '%s\n' "$out" | grep '^check:' | tail -n 1)"
		printf '%s\n' "$out" | grep -v '^check:' | head -n 40 |
			sed 's/^/    /'
	fi
}

total_launch=0
total_nav=0
for seed in $SEEDS; do
	dir="$work/launch-$seed"
	what="launch seed $seed"
	if ! "$SIM" gen --scenario launch --seed "$seed" --out "$dir" \
		>"$work/gen.log" 2>&1; then
		ko "$what: tapd-sim gen failed" "$(cat "$work/gen.log")"
		continue
	fi
	gestures_of "$dir/truth.json" >"$dir/gestures.txt"
	if out=$(selfcheck "$dir/gestures.txt" "$dir/foreground.log"); then
		ok "$what: generator: $out"
	else
		ko "$what: generator: the truth disagrees with foreground.log" \
			"$out"
	fi
	res=$(replay_check "$dir")
	case $res in
	pass*) ok "$what: ${res#pass: }" ;;
	*) ko "$what: ${res#fail: }" ;;
	esac
	n=$(sqlite3 "$dir/taps.db" "SELECT count(*) FROM taps WHERE
		flags & 2048 AND launch_first_frame_ns IS NOT NULL")
	total_launch=$((total_launch + n))
	n=$(sqlite3 "$dir/taps.db" "SELECT count(*) FROM taps WHERE
		flags & 4096 AND target_activity IS NOT NULL")
	total_nav=$((total_nav + n))
done
if [ "$total_launch" -gt 0 ] && [ "$total_nav" -gt 0 ]; then
	ok "stored: $total_launch measured launches, $total_nav navigations"
else
	ko "stored: $total_launch measured launches, $total_nav navigations"
fi

# Controls.  One launch value off by a nanosecond in the database.
src="$work/launch-1"
dir="$work/ctl-ns"
cp -r "$src" "$dir"
sqlite3 "$dir/taps.db" "UPDATE taps SET launch_first_frame_ns =
	launch_first_frame_ns + 1 WHERE id = (SELECT min(id) FROM taps
	WHERE launch_first_frame_ns IS NOT NULL)"
res=$(check_db "$dir")
case $res in
fail*) if printf '%s\n' "$res" | grep -q '^ *launch_first  *truth '; then
		ok "control: a launch_first_frame 1 ns off is caught"
	else
		ko "control: a launch value 1 ns off is caught, but not by name" \
			"$res"
	fi ;;
*) ko "control: a launch value 1 ns off is not caught" ;;
esac

# The activities taken out of foreground.log: navigations vanish.
dir="$work/ctl-activity"
cp -r "$src" "$dir"
awk 'NF == 4 { NF = 3 } { print }' "$src/foreground.log" \
	>"$dir/foreground.log"
res=$(replay_check "$dir")
case $res in
fail*) ok "control: foreground.log without activities is caught" ;;
*) ko "control: foreground.log without activities is not caught" ;;
esac

# Launch detection off.
dir="$work/ctl-off"
cp -r "$src" "$dir"
res=$(replay_check "$dir" --launch-cap-ms 0)
case $res in
fail*) ok "control: --launch-cap-ms 0 is caught" ;;
*) ko "control: --launch-cap-ms 0 is not caught" ;;
esac
if [ -f "$dir/taps.db" ] && [ "$(sqlite3 "$dir/taps.db" "SELECT count(*)
	FROM taps WHERE target_app IS NOT NULL OR flags & 6144")" = 0 ]; then
	ok "--launch-cap-ms 0: no tap is a launch or a navigation"
else
	ko "--launch-cap-ms 0: some tap is still a launch or a navigation"
fi

finish
