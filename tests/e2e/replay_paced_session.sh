#!/usr/bin/env bash
# A session opened and closed during a paced replay (--pace 10 --listen)
# holds taps of its own time span: a tap's wall time is when it was
# replayed, a recorded second every 1/pace s from the start, so no tap of
# the session can have a wall time after the session stopped (a tap is
# stored only after its finger went up, and the session stops after its
# last tap is stored).  Unscaled, the wall times ran ahead of the clock by
# (pace - 1) times the time replayed, past the stop.  The paced taps also
# keep the recorded order and spacing divided by the pace.  Run from the
# repository root; BUILD names the build directory (default build).  Ends
# with "replay_paced_session: N passed, N failed".
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
TAPCTL="$BUILD/tapctl"
PACE=10

NAME=replay_paced_session
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD" "$TAPCTL"
need_tools sqlite3 jq

work_dir paced-session
if ! "$SIM" gen --scenario long --seed 3 --duration 60 --out "$work/sim" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
db="$work/paced.db"
if ! start_server "$work/replay.out" "$TAPD" replay --session "$work/sim" \
	--db "$db" --listen 127.0.0.1:0 --pace "$PACE"; then
	ko "the paced replay did not start" "$(cat "$work/replay.out.err")"
	finish
fi
ok "paced replay at $PACE listening on $url"

# A session over 3 s of the replay, 30 s of the recording.
"$TAPCTL" --url "$url" --json session start paced >"$work/start.json" 2>&1
sid=$(jq -r '.id' "$work/start.json" 2>/dev/null)
sleep 3
"$TAPCTL" --url "$url" --json session stop "$sid" >"$work/stop.json" 2>&1
check "session stopped" "$sid" "$(jq -r '.id' "$work/stop.json" 2>/dev/null)"
stop_server "$pid" 30
check "replay ends cleanly on SIGTERM" 0 "$status"

q() {
	sqlite3 "$db" "$1" 2>&1
}
n=$(q "SELECT count(*) FROM taps WHERE session = $sid")
if [ "${n:-0}" -gt 0 ]; then
	ok "the session holds $n taps"
else
	ko "the session holds no taps: '$n'"
fi
check "no tap of the session has a wall time after its stop" 0 \
	"$(q "SELECT count(*) FROM taps t JOIN sessions s ON s.id = t.session
	      WHERE s.id = $sid AND t.wall_ns > s.stopped_ns")"
# Every tap: wall time = first wall time + (t_up - first t_up) / pace,
# to the rounding of one division.
check "wall times are the recorded times divided by the pace" 0 \
	"$(q "WITH f AS (SELECT t_up_ns AS t0, wall_ns AS w0 FROM taps
	               WHERE wall_ns IS NOT NULL ORDER BY t_up_ns LIMIT 1)
	      SELECT count(*) FROM taps, f WHERE wall_ns IS NOT NULL AND
	      abs((wall_ns - w0) - (t_up_ns - t0) / $PACE) > 2")"
finish
