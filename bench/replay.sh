#!/usr/bin/env bash
# Replay throughput: generates a long simulated session (several apps,
# every gesture kind, FrameTimeline at 120 Hz) and times `tapd replay` on
# it, single-threaded, reporting frame packets and touch events per second.
#
#   bench/replay.sh [MINUTES]      (default 30)
set -eu
build=${BUILD:-build}
minutes=${1:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s all >/dev/null
"$build/tapd-sim" gen --scenario long --seed 7 --duration $((minutes * 60)) \
	--out "$tmp/session" >/dev/null
events=$(grep -c '^\[' "$tmp/session/input.getevent")
trace_bytes=$(stat -c %s "$tmp/session/frames.pftrace")

# Best of three, each into a fresh database.
best=""
for i in 1 2 3; do
	rm -f "$tmp/taps.db"*
	start=$(date +%s.%N)
	taskset -c 0 "$build/tapd" replay --session "$tmp/session" \
		--db "$tmp/taps.db" >"$tmp/summary" 2>&1
	end=$(date +%s.%N)
	t=$(echo "$end - $start" | bc -l)
	if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then
		best=$t
	fi
done
packets=$(sed -n "s/^frames .*: \([0-9]*\) packets.*/\1/p" "$tmp/summary")
rows=$(sed -n "s/^stored *\([0-9]*\) rows.*/\1/p" "$tmp/summary")
cat "$tmp/summary"
echo
printf 'session          %d min simulated, %d touch events, %d trace packets (%.1f MiB), %d rows stored\n' \
	"$minutes" "$events" "$packets" "$(echo "$trace_bytes / 1048576" | bc -l)" "$rows"
printf 'replay time      %.3f s (best of 3, one core)\n' "$best"
printf 'frame packets/s  %.0f\n' "$(echo "$packets / $best" | bc -l)"
printf 'touch events/s   %.0f\n' "$(echo "$events / $best" | bc -l)"
