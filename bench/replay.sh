#!/usr/bin/env bash
# Replay cost: generates a long simulated session (several apps, every
# gesture kind, FrameTimeline at 120 Hz) and measures the CPU time (user +
# sys) of `tapd replay` on it against that of `wc -l` over the same two
# files, side by side, each the best of three, pinned to one core.  The
# ratio is the figure to watch: CPU time is what a loaded machine does not
# blur, and `wc -l` scales it to the machine and to the bytes read.
#
#   bench/replay.sh [MINUTES]      (default 60: the 1-hour session of issue 11)
#
# BENCH_BASELINE=PATH names another tapd binary (an older build, say) to
# time in the same run, its replays alternating with the others, so that
# a before and after share the machine's state; its ratio is printed
# beside.  Nothing is asserted: the figures are printed.
set -eu
build=${BUILD:-build}
minutes=${1:-60}
core=${BENCH_CORE:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s all >/dev/null
gen_start=$(date +%s.%N)
"$build/tapd-sim" gen --scenario long --seed 7 --duration $((minutes * 60)) \
	--out "$tmp/session" >/dev/null
gen_end=$(date +%s.%N)
input="$tmp/session/input.getevent"
trace="$tmp/session/frames.pftrace"
events=$(grep -c '^\[' "$input")
trace_bytes=$(stat -c %s "$trace")
input_bytes=$(stat -c %s "$input")

# Both commands read the files from the page cache.
cat "$input" "$trace" >/dev/null

# cpu CMD...: runs CMD on one core and prints its user + sys seconds.
cpu() {
	local TIMEFORMAT='%3U %3S' t
	t=$({ time taskset -c "$core" "$@" >/dev/null 2>&1; } 2>&1)
	echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}

# min A B: the smaller of two decimals.
min() {
	if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

baseline=${BENCH_BASELINE:-}
best_replay=""
best_base=""
best_wc=""
for i in 1 2 3; do
	rm -f "$tmp/taps.db"*
	t=$(cpu "$build/tapd" replay --session "$tmp/session" --db "$tmp/taps.db")
	best_replay=$(min "$best_replay" "$t")
	if [ -n "$baseline" ]; then
		rm -f "$tmp/taps.db"*
		t=$(cpu "$baseline" replay --session "$tmp/session" \
			--db "$tmp/taps.db")
		best_base=$(min "$best_base" "$t")
	fi
	t=$(cpu wc -l "$input" "$trace")
	best_wc=$(min "$best_wc" "$t")
done

# One more run, outside the timing, for the summary.
rm -f "$tmp/taps.db"*
"$build/tapd" replay --session "$tmp/session" --db "$tmp/taps.db" \
	>"$tmp/summary" 2>&1
packets=$(sed -n "s/^frames .*: \([0-9]*\) packets.*/\1/p" "$tmp/summary")
rows=$(sed -n "s/^stored *\([0-9]*\) rows.*/\1/p" "$tmp/summary")
cat "$tmp/summary"
echo
printf 'session          tapd-sim gen --scenario long --seed 7 --duration %d (%d min, generated in %.1f s)\n' \
	$((minutes * 60)) "$minutes" "$(echo "$gen_end - $gen_start" | bc -l)"
printf 'input            %d touch events, %.1f MiB\n' "$events" \
	"$(echo "$input_bytes / 1048576" | bc -l)"
printf 'frames           %d trace packets, %.1f MiB\n' "$packets" \
	"$(echo "$trace_bytes / 1048576" | bc -l)"
printf 'stored           %d rows\n' "$rows"
printf 'tapd replay      %.3f s CPU (user+sys, best of 3, core %s)\n' "$best_replay" "$core"
printf 'wc -l            %.3f s CPU (user+sys, best of 3, core %s)\n' "$best_wc" "$core"
if [ -n "$baseline" ] && [ "$(echo "$best_wc > 0" | bc -l)" = 1 ]; then
	printf 'baseline         %.3f s CPU (%s), %.1fx the CPU time of wc -l\n' \
		"$best_base" "$baseline" "$(echo "$best_base / $best_wc" | bc -l)"
fi
if [ "$(echo "$best_wc > 0" | bc -l)" = 1 ]; then
	printf 'ratio            %.1fx the CPU time of wc -l\n' \
		"$(echo "$best_replay / $best_wc" | bc -l)"
	ratio=$(printf '%.1fx the CPU of wc -l' "$(echo "$best_replay / $best_wc" | bc -l)")
else
	printf 'ratio            wc -l took no measurable CPU time\n'
	ratio="-"
fi
# The line bench/run.sh collects into its table.
printf 'bench-row: replay: %d-min session, CPU s|%.3f s (%d rows)|wc -l %.3f s|%s\n' \
	"$minutes" "$best_replay" "$rows" "$best_wc" "$ratio"
printf 'frame packets/s  %.0f per CPU second\n' "$(echo "$packets / $best_replay" | bc -l)"
printf 'touch events/s   %.0f per CPU second\n' "$(echo "$events / $best_replay" | bc -l)"
