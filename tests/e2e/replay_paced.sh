#!/usr/bin/env bash
# A paced replay (--pace) without --listen commits on the live daemon's
# timer: killed with SIGKILL midway, the database holds the taps that
# were finalized up to a moment before the kill, not only whole batches
# of 256 rows.  The rows must be the first ones of a full replay of the
# same session, there must be some, and no more of them may be missing
# than one second of paced time (plus a response window) could hold.  Run
# from the repository root; BUILD names the build directory (default
# build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
PACE=20
KILL_AFTER=3
# The longest response window (--settle-cap-ms): a tap is final only
# once the frames after it are read, at most this long after its end.
CAP_S=5

NAME=replay_paced
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD"
need_tools sqlite3 awk

work_dir paced
dir="$work/sim"
if ! "$SIM" gen --scenario long --seed 1 --duration 120 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi

q() {
	sqlite3 "$work/$1.db" "$2" 2>&1
}

# The reference: the whole session, unpaced.  Its run time bounds the
# paced replay's start-up (reading the trace, opening the database),
# which takes wall time but no session time.
fstart=$(date +%s.%N)
if ! "$TAPD" replay --session "$dir" --db "$work/full.db" \
	>"$work/full.log" 2>&1; then
	ko "the full replay failed" "$(cat "$work/full.log")"
	finish
fi
fend=$(date +%s.%N)
q full 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns' >"$work/full.rows"
total=$(wc -l <"$work/full.rows")
if [ "$total" -gt 10 ]; then
	ok "the full replay: $total rows"
else
	ko "the full replay: expected more than 10 rows, got $total"
fi

# The paced replay, killed midway.
t0=$(awk -F'[][]' 'NF > 2 { print $2; exit }' "$dir/input.getevent")
start=$(date +%s.%N)
"$TAPD" replay --session "$dir" --db "$work/paced.db" --pace "$PACE" \
	>"$work/paced.log" 2>&1 &
pid=$!
sleep "$KILL_AFTER"
end=$(date +%s.%N)
kill -9 "$pid"
wait "$pid" 2>/dev/null
status=$?
check "the paced replay was killed" 137 "$status"
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')

q paced 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns' >"$work/paced.rows"
n=$(wc -l <"$work/paced.rows")
if [ "$n" -gt 0 ]; then
	ok "killed after $elapsed s: $n rows stored"
else
	ko "killed after $elapsed s: no rows stored" "$(cat "$work/paced.log")"
fi
holds "the stored rows are the first $n of the full replay" \
	cmp -s "$work/paced.rows" <(head -n "$n" "$work/full.rows")

# Session time the replay had reached 1 s before the kill, less the
# response window: every tap up to it was final and committed by then.
# And none can be stored that ended after where the replay was at the
# kill.
lo=$(awk -v t0="$t0" -v e="$elapsed" -v p="$PACE" -v c="$CAP_S" \
	-v f0="$fstart" -v f1="$fend" \
	'BEGIN { printf "%.0f", (t0 + (e - (f1 - f0) - 1) * p - c) * 1e9 }')
hi=$(awk -v t0="$t0" -v e="$elapsed" -v p="$PACE" \
	'BEGIN { printf "%.0f", (t0 + (e + 0.5) * p) * 1e9 }')
want=$(awk -v lo="$lo" -F'|' '$1 <= lo' "$work/full.rows" | wc -l)
most=$(awk -v hi="$hi" -F'|' '$1 <= hi' "$work/full.rows" | wc -l)
detail() {
	echo "stored $n, expected at least $want (t_up <= $lo) and at most" \
		"$most (t_up <= $hi) of $total"
}
holds "at least the $want taps final 1 s before the kill" \
	test "$n" -ge "$want"
holds "at most the $most taps the replay had reached" test "$n" -le "$most"
holds "the replay had not finished" test "$n" -lt "$total"
check "the run is open: the kill ended nothing" "1|0" \
	"$(q paced 'SELECT count(*), count(ended_ns) FROM runs')"

finish
