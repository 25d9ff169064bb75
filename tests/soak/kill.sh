#!/usr/bin/env bash
# Soak, part 1: kill -9 of tapd at random moments of a paced ingest.
#
# A simulated 240 s session (tapd-sim, scenario long) is replayed at 10
# times its speed with --pace, which commits on the live daemon's timer
# (a batch once its first row is 100 ms old), and SIGKILLed at a random
# moment 0.2 to 3 s in; then again on the same database, 100 times
# (SOAK_SCALE).  After each kill:
#
#  - `sqlite3 DB 'PRAGMA integrity_check'` must say ok, and the next
#    replay must open the file and go on (a new run);
#  - nothing is stored that the truth lacks, or twice;
#  - finalized taps lost, those final before the kill and not in the
#    run's rows: the bound is that none was final more than 1 s before
#    the kill.  Odd iterations run with --listen, which commits as soon as
#    a tap is finalized, to announce it on /v1/events; even ones without,
#    on the commit timer alone.  When is a tap final:
#    - with --listen, a client follows /v1/events and samples /v1/health
#      every 50 ms.  Every tap announced (committed) must be stored, under
#      the id announced.  And from each sample, the gestures the daemon
#      had finalized by then, by docs/DESIGN.md 1.8 applied to the
#      simulator's response windows and the daemon's own watermarks (its
#      input time is the time of the input_events-th line of the log, its
#      frames watermark that less frames_lag_ms): a swipe once the input
#      reached its t_up, a tap once the input passed its window_end and
#      the frames watermark window_end + 1 s.  A lost tap's age at the
#      kill is counted from the first sample that had it final (a lower
#      bound, to 50 ms).  The daemon's own taps_finalized counter less
#      the taps stored is printed too;
#    - without, by the pacing: the replay handles the input event at time
#      e at started + (e - first event) / 10, started being the run's
#      started_ns (REALTIME, taken just before the first event), and it
#      reads the frames ahead of the input, so a tap is final at the
#      latest at the first input event at or after window_end + 1 s, a
#      swipe at its t_up; the kill's REALTIME is known.
#
# Its row: iterations, failures, corrupt files, the most taps lost in one
# kill and how long before the kill the oldest of them was final, the
# rows stored in all.  SOAK_KEEP=1 keeps the scratch directory.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=soak_kill
here=$(dirname "$0")
. "$here/../e2e/lib/report.sh"
. "$here/../e2e/lib/server.sh"
. "$here/lib.sh"
need_bins "$TAPD" "$SIM"
need_tools sqlite3 python3
work_dir soak-kill
[ "${SOAK_KEEP:-0}" = 1 ] && trap 'stop_servers; echo "kept $work"' EXIT

KILLS=$(scaled 100)
PACE=10
db=$work/taps.db
dir=$work/sim
if ! "$SIM" gen --scenario long --seed 1 --duration 240 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(cat "$work/gen.log")"
	row "kill -9 paced ingest" 0 1 "tapd-sim gen failed" "-"
	finish
fi

corrupt=0
broken=0
for i in $(seq 1 "$KILLS"); do
	it=$work/it-$i
	mkdir -p "$it"
	rnd 0.2 3.0
	after=$REPLY
	if [ $((i % 2)) -eq 1 ]; then
		if ! start_server "$it/out" "$TAPD" replay --session "$dir" \
			--db "$db" --pace "$PACE" --listen 127.0.0.1:0; then
			ko "kill $i: the replay did not start on the killed file" \
				"$(tail -n 5 "$it/out.err")"
			broken=$((broken + 1))
			stop_server "$pid" 1
			servers=()
			continue
		fi
		py follow "$port" "$it/follow.json" --kill "$pid" "$after" \
			2>"$it/follow.err"
	else
		"$TAPD" replay --session "$dir" --db "$db" --pace "$PACE" \
			>"$it/out" 2>"$it/out.err" &
		pid=$!
		py follow - "$it/follow.json" --kill "$pid" "$after" \
			2>"$it/follow.err"
	fi
	wait "$pid"
	status=$?
	servers=()
	if [ "$status" -ne 137 ]; then
		ko "kill $i: tapd was not killed (exit $status)" \
			"$(cat "$it/follow.err")" "$(tail -n 5 "$it/out.err")"
		broken=$((broken + 1))
	fi
	integrity=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
	if [ "$integrity" != ok ]; then
		ko "kill $i: integrity_check" "$integrity"
		corrupt=$((corrupt + 1))
	fi
	sqlite3 "$db" 'SELECT max(id) FROM runs' >"$it/run"
done

py kills "$dir/truth.json" "$dir/input.getevent" "$db" "$PACE" \
	$(for i in $(seq 1 "$KILLS"); do echo "$work/it-$i"; done) \
	>"$work/kills.txt" 2>&1
summary=$(sed -n 's/^summary //p' "$work/kills.txt")
if [ -z "$summary" ]; then
	ko "the analysis failed" "$(tail -n 20 "$work/kills.txt")"
	row "kill -9 paced ingest" "$KILLS" "$KILLS" "no analysis" "-"
	finish
fi
# One line per kill, and the ones that failed again below.
sed '/^summary /d' "$work/kills.txt"
val() {
	printf '%s\n' "$summary" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
bad=$(val failures)
if [ "$bad" -eq 0 ]; then
	ok "$KILLS kills: announced taps all stored, none final 1 s before lost (by the daemon's count, at most $(val counted) finalized and not stored)"
else
	ko "$KILLS kills: $bad with lost or wrong rows" \
		"$(grep -- '; ' "$work/kills.txt")"
fi
check "$KILLS kills: corrupt files" 0 "$corrupt"
check "$KILLS kills: replays that would not start or die" 0 "$broken"
failures=$((bad + corrupt + broken))
row "kill -9 paced ingest" "$KILLS" "$failures" \
	"$corrupt corrupt; lost <= $(val lost) taps/kill, final <= $(val span) s before it; $(val stored) rows" \
	"0 corrupt; lost only final < 1 s before"
finish
