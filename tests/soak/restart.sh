#!/usr/bin/env bash
# Soak, part 1b: kill -9 of `tapd run` itself, 10 times (SOAK_SCALE),
# restarted each time on the same database and pidfile.
#
# This machine has no touch screen, so the live daemon stores no taps
# (part 1 kills a paced replay for those); what it writes are its runs
# and the sessions of the API.  Each time: `tapd run --pidfile` with the
# simulator's fake perfetto as its frame source; once the frame source is
# up, a client starts and stops sessions in a loop (POST /v1/sessions,
# POST /v1/sessions/ID/stop) and tapd is SIGKILLed at a random moment 0.3
# to 2 s later.  Then:
#
#  - its perfetto child dies with it (PR_SET_PDEATHSIG), within 2 s;
#  - `sqlite3 DB 'PRAGMA integrity_check'` says ok;
#  - every session whose start was answered 201 is stored under the id
#    answered, and every stop answered 200 is stored (durable once
#    answered);
#  - the next start takes the pidfile the killed one left (its lock went
#    with it) and deletes the trace files it left.
#
# At the end one more start, stopped with SIGTERM: exit 0, the trace
# directory empty, one run per start.  Its row: kills, failures, sessions
# answered and stored, orphaned children.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=soak_restart
here=$(dirname "$0")
. "$here/../e2e/lib/report.sh"
. "$here/../e2e/lib/server.sh"
. "$here/lib.sh"
need_bins "$TAPD" "$SIM"
need_tools sqlite3 jq curl pgrep
work_dir soak-restart
[ "${SOAK_KEEP:-0}" = 1 ] && trap 'stop_servers; echo "kept $work"' EXIT

KILLS=$(scaled 10)
mkdir -p "$work/bin" "$work/traces" "$work/empty"
ln -s "$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")" \
	"$work/bin/perfetto"
db=$work/taps.db
answers=$work/answers

start_tapd() {
	start_server "$work/out" env TAPD_FAKE_PERFETTO_MAX_MS=3600000 \
		"$TAPD" run --db "$db" --pidfile "$work/tapd.pid" \
		--listen 127.0.0.1:0 --sysroot "$work/empty" --frames ftl \
		--foreground none --perfetto-bin "$work/bin/perfetto" \
		--trace-dir "$work/traces"
}

frames_up() {
	local i
	for i in $(seq 1 100); do
		[ "$(curl -s --max-time 2 "$url/v1/health" |
			jq -r .sources.frames.health)" = up ] && return 0
		sleep 0.1
	done
	return 1
}

# Starts and stops sessions until killed, each answer a line of
# $answers: "start NAME CODE ID" or "stop ID CODE".
sessions() {
	local n=0 code id
	while :; do
		n=$((n + 1))
		code=$(curl -s --max-time 5 -o "$work/s.json" -w '%{http_code}' \
			-H 'Content-Type: application/json' \
			-d "{\"name\": \"k$1-$n\"}" "$url/v1/sessions")
		id=$(jq -r '.id // 0' "$work/s.json" 2>/dev/null)
		echo "start k$1-$n $code ${id:-0}" >>"$answers"
		[ "$code" = 201 ] || continue
		code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' \
			-X POST "$url/v1/sessions/$id/stop")
		echo "stop $id $code" >>"$answers"
	done
}

failures=0
orphans=0
for i in $(seq 1 "$KILLS"); do
	if ! start_tapd; then
		ko "kill $i: tapd run did not start again" \
			"$(tail -n 3 "$work/out.err")"
		failures=$((failures + 1))
		break
	fi
	if ! frames_up; then
		ko "kill $i: the frame source did not come up"
		failures=$((failures + 1))
	fi
	sessions "$i" 2>/dev/null &
	client=$!
	rnd 0.3 2.0
	sleep "$REPLY"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	kill "$client" 2>/dev/null
	wait "$client" 2>/dev/null
	servers=()
	for k in $(seq 1 20); do
		[ "$(pgrep -f "$work/bin/perfetto" | wc -l)" -eq 0 ] && break
		sleep 0.1
	done
	if [ "$(pgrep -f "$work/bin/perfetto" | wc -l)" -ne 0 ]; then
		ko "kill $i: perfetto outlived tapd by 2 s"
		orphans=$((orphans + 1))
		failures=$((failures + 1))
	fi
	integrity=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
	if [ "$integrity" != ok ]; then
		ko "kill $i: integrity_check" "$integrity"
		failures=$((failures + 1))
	fi
done

# What was answered is what is stored.
sqlite3 -separator ' ' "$db" \
	'SELECT name, id, stopped_ns IS NOT NULL FROM sessions' >"$work/stored"
started=$(awk '$1 == "start" && $3 == 201' "$answers" | wc -l)
stopped=$(awk '$1 == "stop" && $3 == 200' "$answers" | wc -l)
lost=$(awk 'NR == FNR { s[$1] = $2; st[$2] = $3; next }
	$1 == "start" && $3 == 201 && s[$2] != $4 { n++ }
	$1 == "stop" && $3 == 200 && st[$2] != 1 { n++ }
	END { print n + 0 }' "$work/stored" "$answers")
check "$started sessions started and $stopped stopped as answered" 0 "$lost"
[ "$lost" -eq 0 ] || failures=$((failures + 1))

if start_tapd; then
	frames_up
	left=$(find "$work/traces" -type f | wc -l)
	holds "the killed ones' trace files deleted at the next start ($left left)" \
		test "$left" -le 1
	[ "$left" -le 1 ] || failures=$((failures + 1))
	stop_server "$pid" 10
	servers=()
	check "the last start stops on SIGTERM: exit 0" 0 "$status"
	[ "$status" = 0 ] || failures=$((failures + 1))
else
	ko "tapd run did not start after the kills" "$(tail -n 3 "$work/out.err")"
	failures=$((failures + 1))
fi
left=$(find "$work/traces" -type f | wc -l)
check "no trace file left" 0 "$left"
[ "$left" -eq 0 ] || failures=$((failures + 1))
runs=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
check "a run per start" $((KILLS + 1)) "$runs"
[ "$runs" = $((KILLS + 1)) ] || failures=$((failures + 1))
row "kill -9 tapd run" "$KILLS" "$failures" \
	"$started sessions started, $stopped stopped, $lost not stored; $orphans orphaned perfetto" \
	"all answered stored, no orphan"
finish
