#!/usr/bin/env bash
# The live daemon's own cost (issue 11): `tapd run` on this machine with
# the simulator's fakes, measured from /proc while it works and while the
# screen is idle.  bench/live/bench.py drives it and prints the figures;
# this script adds the rows for `make bench` and the closing line.
#
#   BENCH_LIVE_SECONDS=120       the active phase: one tap a second
#   BENCH_LIVE_IDLE_SECONDS=60   then no frames and no touches
#
# The touch input is the live input path: uinput where the machine has
# it is the VM tests' (tests/vm/), so here the taps reach tapd as a live
# getevent stream on a FIFO (`--input getevent:FIFO`), written with
# CLOCK_MONOTONIC stamps as they happen.  Nothing is asserted: the
# figures are printed beside their goals.
#
# Beside the Debian build (BUILD/tapd, linked against Debian's shared
# libraries) it measures, at the same time and with its own fakes, the
# static Android x86_64 build, the binary a phone runs, which runs natively
# here: BENCH_LIVE_ANDROID names it (default BUILD/android/x86_64/tapd,
# which `make bench-live` builds when it can; empty: the Debian build
# alone).  Each build gets its own report and its own line,
#
#   bench-live: [android x86_64, static musl] cpu_pct=X rss_mb=Y ...
#   bench-live: cpu_pct=X rss_mb=Y ...
#
# the Debian build's last, in the format issue 11 gives.
#
#   BENCH_LIVE_DB=FILE           start from a copy of that database (and
#                                keep all of it: --retain-days 0)
set -eu
build=${BUILD:-build}
active=${BENCH_LIVE_SECONDS:-120}
idle=${BENCH_LIVE_IDLE_SECONDS:-60}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-live.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ -e /dev/uinput ]; then
	echo "bench-live: /dev/uinput exists; the taps still go through a getevent stream (the VM tests drive uinput)"
fi
here=$(dirname "$0")
android=${BENCH_LIVE_ANDROID-$build/android/x86_64/tapd}
if [ -n "$android" ] && ! { [ -x "$android" ] && "$android" --version >/dev/null 2>&1; }; then
	echo "bench-live: no static Android x86_64 build that runs here ('$android'): the Debian build alone"
	android=
fi
mkdir -p "$tmp/debian"
if [ -n "$android" ]; then
	mkdir -p "$tmp/android"
	python3 "$here/bench.py" "$build" "$tmp/android" "$active" "$idle" \
		"$android" "android x86_64, static musl" >"$tmp/android.out" 2>&1 &
	apid=$!
fi
rc=0
python3 "$here/bench.py" "$build" "$tmp/debian" "$active" "$idle" \
	"$build/tapd" "debian, shared libraries" || rc=$?
arc=0
if [ -n "$android" ]; then
	wait "$apid" || arc=$?
	echo
	cat "$tmp/android.out"
fi
[ "$rc" -eq 0 ] || exit "$rc"
if [ "$arc" -ne 0 ]; then
	echo "bench-live: the Android build's run failed (exit $arc): the Debian build alone"
	android=
fi

# goal VALUE LIMIT: "met" or "not met".
# A delay below 0 is a result before its nominal finalization point (an
# idle-screen tap finalized at its quiet deadline): within the goal.  A
# figure that is not a number (no such tap) is not.
goal() {
	awk -v v="$1" -v l="$2" 'BEGIN { print (v ~ /^-?[0-9.]+$/ && v <= l) ? "met" : "not met" }'
}

# figures RESULT LABEL ROWLABEL: the rows and the bench-live line of one build.
figures() {
	r=$1
	cpu=$(jq -r '.cpu_pct' "$r" | awk '{ printf "%.2f", $1 }')
	rss=$(jq -r '.rss_mb' "$r" | awk '{ printf "%.1f", $1 }')
	libs=$(jq -r '.rss_libs_mb' "$r" | awk '{ printf "%.1f", $1 }')
	own=$(awk -v a="$rss" -v b="$libs" 'BEGIN { printf "%.1f", a - b }')
	wk=$(jq -r '.wakeups_per_s' "$r" | awk '{ printf "%.1f", $1 }')
	iwk=$(jq -r '.idle_wakeups_per_s' "$r" | awk '{ printf "%.1f", $1 }')
	pwk=$(jq -r '.perfetto_idle_wakeups_per_s' "$r" | awk '{ printf "%.1f", $1 }')
	p99=$(jq -r '.result_p99_ms' "$r" | awk '{ printf "%.0f", $1 }')
	p99a=$(jq -r '.result_p99_active_ms' "$r" | awk '{ printf "%.0f", $1 }')
	last=$(jq -r '.result_idle_tap_ms // "none"' "$r" | awk '$1 == "none" { print; next } { printf "%.0f", $1 }')
	if [ "$(jq -r '.idle_tap_before_stop' "$r")" = true ]; then
		lastwhy="on the stream"
	elif [ "$(jq -r '.idle_tap_on_stream' "$r")" = true ]; then
		lastwhy="on the stream only at the stop"
	else
		lastwhy="never on the stream: finalized at the stop"
	fi
	trace=$(jq -r '.trace_mb_per_h' "$r" | awk '{ printf "%.1f", $1 }')
	db=$(jq -r '.db_mb_per_h' "$r" | awk '{ printf "%.1f", $1 }')
	beyond=$(awk -v a="$iwk" -v b="$pwk" 'BEGIN { printf "%.1f", a - b }')
	n=$3
	echo "bench-row: live$n cpu %|$cpu|goal 0.5|$(goal "$cpu" 0.5)"
	echo "bench-row: live$n peak rss MB|$rss|goal 8 (shared libraries $libs, the rest $own)|$(goal "$rss" 8)"
	echo "bench-row: live$n wake-ups/s|$wk|active, 240 frames/s and 1 tap/s|-"
	echo "bench-row: live$n idle wake-ups/s beyond perfetto's|$beyond|goal 1 (perfetto $pwk)|$(goal "$beyond" 1)"
	echo "bench-row: live$n result p99 ms|$p99|goal 1000 (active taps $p99a; idle-screen tap $last, $lastwhy)|$(goal "$p99" 1000)"
	echo "bench-row: live$n idle-screen tap result ms|$last|goal 1000|$(goal "$last" 1000)"
	echo "bench-row: live$n trace MB/h|$trace|two apps at 120 Hz, fake perfetto|-"
	echo "bench-row: live$n db MB/h|$db|1 tap/s|-"
	line="cpu_pct=$cpu rss_mb=$rss wakeups_per_s=$wk idle_wakeups_per_s=$iwk result_p99_ms=$p99 trace_mb_per_h=$trace db_mb_per_h=$db"
	echo "bench-live: $2: peak rss $rss MB, of which $libs MB shared libraries (at the end) and $own MB the rest"
}

echo
if [ -n "$android" ]; then
	figures "$tmp/android/result.json" "android x86_64, static musl" " (phone build)"
	aline=$line
fi
figures "$tmp/debian/result.json" "debian, shared libraries" ""
[ -z "$android" ] || echo "bench-live: [android x86_64, static musl] $aline"
echo "bench-live: $line"
