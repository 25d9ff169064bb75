#!/usr/bin/env bash
# End to end: the API served by a live (paced) replay. Server-sent events
# deliver every tap as it is finalized, exactly once and in order; a
# session started over HTTP tags the taps finalized while it is open; a
# SIGTERM in the middle of a replay stops it cleanly.
set -u
build=${BUILD:-build}
tapd=$build/tapd
sim=$build/tapd-sim
NAME=api_live
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$tapd" "$sim"
need_tools curl jq sqlite3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapd-api-live.XXXXXX") || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	stop_servers
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

"$sim" gen --scenario two-apps --seed 4 --out "$tmp/s" >/dev/null
db=$tmp/s/taps.db
# At 5x, a tap is finalized about two seconds after the replay starts
# (its window, then the frame source's reorder margin): time to connect.
start_server "$tmp/replay.out" "$tapd" replay --session "$tmp/s" --db "$db" \
	--listen 127.0.0.1:0 --pace 5
check "replay serves" 0 $?
rp=$pid
curl -sN --max-time 60 "$url/v1/events" >"$tmp/events.txt" 2>/dev/null &
cp=$!
pids+=("$cp")
sleep 0.3
session=$(curl -s --max-time 5 -X POST -d '{"name": "live test"}' \
	"$url/v1/sessions" | jq -r .id)
check "session started" 1 "$session"
# A second session cannot start while one is open.
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
	-d '{"name": "second"}' "$url/v1/sessions")
check "one session at a time" 409 "$code"

for i in $(seq 1 300); do
	grep -q "replay done" "$tmp/replay.out" && break
	sleep 0.1
done
check "replay finished" 0 "$(grep -q 'replay done' "$tmp/replay.out"; echo $?)"
code=$(curl -s -o "$tmp/stop.json" -w '%{http_code}' --max-time 5 \
	-X POST "$url/v1/sessions/$session/stop")
check "session stopped" 200 "$code"
check "session stop time" "true" "$(jq '.stopped != null' "$tmp/stop.json")"
sleep 0.5
kill "$cp" 2>/dev/null
wait "$cp" 2>/dev/null

# Every stored gesture came through the stream once, in order, equal to
# its row.
sed -n 's/^data: //p' "$tmp/events.txt" | grep '"t_up_ns"' >"$tmp/taps.ndjson"
stored=$(q "$db" 'select count(*) from taps')
check "events delivered = rows stored" "$stored" "$(wc -l <"$tmp/taps.ndjson")"
check "ids once, in order" "$(q "$db" 'select group_concat(id) from (select id from taps order by id)')" \
	"$(jq -r .id "$tmp/taps.ndjson" | paste -sd, -)"
check "events equal rows" \
	"$(q "$db" "select group_concat(id || ':' || status || ':' || ifnull(cast(round(first_frame_ns / 1000.0) as int), 'n'), ' ') from (select * from taps order by id)")" \
	"$(jq -r '"\(.id):\(.status):\(if .first_frame_ms == null then "n" else (.first_frame_ms * 1000 | round | tostring) end)"' \
		"$tmp/taps.ndjson" | paste -sd' ')"
check "stream has keep-alive or comment lines" 1 \
	"$(grep -c '^:' "$tmp/events.txt" | awk '{print ($1 > 0)}')"
tagged=$(q "$db" "select count(*) from taps where session = $session")
check "taps tagged with the session" 1 "$((tagged > 0))"
check "session listed" "live test" \
	"$(curl -s --max-time 5 "$url/v1/sessions" | jq -r '.sessions[0].name')"

# The paced replay keeps serving after its end, and stops on SIGTERM.
kill -TERM "$rp"
for i in $(seq 1 50); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
kill -0 "$rp" 2>/dev/null
check "server gone after SIGTERM" 1 $?
wait "$rp"
check "exit status after SIGTERM" 0 $?

# SIGTERM in the middle of a replay: a clean stop that stores what it had
# (pending taps as truncated) and ends its run.
start_server "$tmp/stop.out" "$tapd" replay --session "$tmp/s" \
	--db "$tmp/stop.db" --listen 127.0.0.1:0 --pace 1
rp=$pid
sleep 2
kill -TERM "$rp"
for i in $(seq 1 50); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
wait "$rp"
check "mid-replay SIGTERM exit" 0 $?
check "run ended cleanly" 1 "$(q "$tmp/stop.db" 'select count(*) from runs where ended_ns is not null')"
check "summary printed" 0 "$(grep -q '^stored' "$tmp/stop.out"; echo $?)"

finish
