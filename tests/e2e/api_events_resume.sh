#!/usr/bin/env bash
# End to end: /v1/events ids are the taps' database ids, and a client
# that comes back with Last-Event-ID loses nothing and gets nothing
# twice.  (1) tapd serve over a replayed database streams, after
# Last-Event-ID 3, every stored tap above 3 in id order, each equal to its
# /v1/taps row, and follows rows another tapd appends; (2) on a live
# (paced) replay, a client that drops and comes back with the last id it
# read gets exactly the rest; (3) tapctl tail follows a daemon that is
# stopped with SIGTERM and started again on the same port and database
# with a second ingest, and prints every tap of the database exactly
# once; (4) a malformed Last-Event-ID is a JSON 400.  Run from the
# repository root; BUILD names the build directory (default build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
TAPCTL="$BUILD/tapctl"

NAME=api_events_resume
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD" "$TAPCTL"
need_tools curl jq sqlite3 awk

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-events-resume.XXXXXX") || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	stop_servers
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

# The ids of the complete tap events of a stream (an event cut by the end
# of the file is not counted), one a line.
stream_ids() {
	awk '/^id: / { id = $2; next }
	     /^event: / { ev = $2; next }
	     /^data: / { data = 1; next }
	     /^$/ { if (data && ev == "tap") print id; data = 0; ev = "" }' "$1"
}

# The data of the complete tap events of a stream, one a line.
stream_data() {
	awk '/^event: / { ev = $2; next }
	     /^data: / { d = substr($0, 7); next }
	     /^$/ { if (d != "" && ev == "tap") print d; d = ""; ev = "" }' "$1"
}

# Waits up to $2 seconds for the last tap id of stream file $1 to be $3.
wait_last_id() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		[ "$(stream_ids "$1" | tail -n 1)" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# Waits up to $2 seconds for "replay done" in $1.
wait_done() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		grep -q 'replay done' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

gen() {
	if ! "$SIM" gen --scenario two-apps --seed "$1" --duration 20 \
		--out "$work/$2" >"$work/gen-$2.log" 2>&1; then
		ko "tapd-sim gen --seed $1" "$(cat "$work/gen-$2.log")"
		finish
	fi
}

gen 4 s4
gen 5 s5
gen 6 s6

# ---- (1) tapd serve: Last-Event-ID 3 replays every id above 3 ----
db=$work/serve.db
if ! "$TAPD" replay --session "$work/s4" --db "$db" >"$work/replay.log" 2>&1; then
	ko "tapd replay" "$(cat "$work/replay.log")"
	finish
fi
serve_db "$db"
serve_pid=$pid
serve_url=$url
curl -sN --max-time 4 -H 'Last-Event-ID: 3' "$serve_url/v1/events" \
	>"$work/serve.sse" 2>/dev/null
stream_ids "$work/serve.sse" >"$work/serve.ids"
q "$db" 'SELECT id FROM taps WHERE id > 3 ORDER BY id' >"$work/db.ids"
holds "serve: the database has taps above 3" \
	[ "$(wc -l <"$work/db.ids")" -gt 5 ]
check "serve: the stream starts at id 4" 4 "$(head -n 1 "$work/serve.ids")"
check "serve: every id above 3, once, in order" \
	"$(paste -sd, "$work/db.ids")" "$(paste -sd, "$work/serve.ids")"
check "serve: the stream opens with retry: 2000" "retry: 2000" \
	"$(grep -m 1 '^retry:' "$work/serve.sse")"
curl -s --max-time 10 "$serve_url/v1/taps?after_id=3&limit=10000&format=ndjson" \
	>"$work/serve.rows"
if cmp -s "$work/serve.rows" <(stream_data "$work/serve.sse"); then
	ok "serve: each event's data is its /v1/taps row"
else
	ko "serve: events differ from /v1/taps rows" \
		"$(diff <(stream_data "$work/serve.sse") "$work/serve.rows" | head -n 6)"
fi
check "serve: nothing is called missed" 0 \
	"$(grep -c '^event: missed' "$work/serve.sse")"

# Another tapd appends to the file: a stream without Last-Event-ID gets
# exactly the new rows, found by polling.
before=$(q "$db" 'SELECT max(id) FROM taps')
curl -sN --max-time 60 "$serve_url/v1/events" >"$work/follow.sse" 2>/dev/null &
follow=$!
pids+=("$follow")
for i in $(seq 1 50); do
	grep -q '^retry:' "$work/follow.sse" 2>/dev/null && break
	sleep 0.1
done
if ! "$TAPD" replay --session "$work/s5" --db "$db" >"$work/replay2.log" 2>&1; then
	ko "tapd replay (append)" "$(cat "$work/replay2.log")"
	finish
fi
after=$(q "$db" 'SELECT max(id) FROM taps')
wait_last_id "$work/follow.sse" 10 "$after"
kill "$follow" 2>/dev/null
wait "$follow" 2>/dev/null
check "serve: the appended rows follow, once, in order" \
	"$(q "$db" "SELECT group_concat(id) FROM (SELECT id FROM taps WHERE id > $before ORDER BY id)")" \
	"$(stream_ids "$work/follow.sse" | paste -sd,)"

# ---- (4) a malformed Last-Event-ID is a JSON 400 ----
for bad in abc -1 +3 1.5 9223372036854775808 '3 4'; do
	code=$(curl -s -o "$work/bad.json" -w '%{http_code}' --max-time 5 \
		-H "Last-Event-ID: $bad" "$serve_url/v1/events")
	if [ "$code" = 400 ] &&
		jq -e '.error.code == "bad_request" and
			(.error.message | test("Last-Event-ID"))' \
			"$work/bad.json" >/dev/null 2>&1; then
		ok "Last-Event-ID '$bad': 400 bad_request"
	else
		ko "Last-Event-ID '$bad': HTTP $code" "$(cat "$work/bad.json")"
	fi
done
stop_server "$serve_pid"

# ---- (2) a live daemon: drop and come back, no gap, no repeat ----
live=$work/live.db
if ! start_server "$work/live.out" "$TAPD" replay --session "$work/s4" \
	--db "$live" --listen 127.0.0.1:0 --pace 5; then
	ko "tapd replay --listen did not start" "$(cat "$work/live.out.err")"
	finish
fi
live_pid=$pid
curl -sN --max-time 60 "$url/v1/events" >"$work/first.sse" 2>/dev/null &
first=$!
pids+=("$first")
for i in $(seq 1 200); do
	[ "$(stream_ids "$work/first.sse" | wc -l)" -ge 3 ] && break
	sleep 0.1
done
kill "$first" 2>/dev/null
wait "$first" 2>/dev/null
last=$(stream_ids "$work/first.sse" | tail -n 1)
holds "live: the first client read some taps" [ -n "$last" ]
# Taps go on being stored meanwhile: the second client reads them from
# the database, then follows the ring.
sleep 2
curl -sN --max-time 90 -H "Last-Event-ID: ${last:-0}" "$url/v1/events" \
	>"$work/second.sse" 2>/dev/null &
second=$!
pids+=("$second")
wait_done "$work/live.out" 60
total=$(q "$live" 'SELECT max(id) FROM taps')
wait_last_id "$work/second.sse" 10 "$total"
kill "$second" 2>/dev/null
wait "$second" 2>/dev/null
check "live: the first client's ids start at 1 and go up by one" \
	"$(seq -s, 1 "${last:-0}")" "$(stream_ids "$work/first.sse" | paste -sd,)"
check "live: both clients together, every id once, in order" \
	"$(q "$live" 'SELECT group_concat(id) FROM (SELECT id FROM taps ORDER BY id)')" \
	"$(cat <(stream_ids "$work/first.sse") <(stream_ids "$work/second.sse") | paste -sd,)"
curl -s --max-time 10 "$url/v1/taps?limit=10000&format=ndjson" >"$work/live.rows"
if cmp -s "$work/live.rows" \
	<(cat <(stream_data "$work/first.sse") <(stream_data "$work/second.sse")); then
	ok "live: each event's data is its /v1/taps row"
else
	ko "live: events differ from /v1/taps rows"
fi
stop_server "$live_pid"

# ---- (3) tapctl tail across a daemon restart ----
rdb=$work/restart.db
if ! start_server "$work/r1.out" "$TAPD" replay --session "$work/s5" \
	--db "$rdb" --listen 127.0.0.1:0 --pace 5; then
	ko "the first daemon did not start" "$(cat "$work/r1.out.err")"
	finish
fi
r1=$pid
rport=$port
"$TAPCTL" --url "$url" --json tail >"$work/tail.out" 2>"$work/tail.err" &
tail_pid=$!
pids+=("$tail_pid")
for i in $(seq 1 200); do
	[ "$(wc -l <"$work/tail.out")" -ge 3 ] && break
	sleep 0.1
done
holds "restart: tail printed taps from the first daemon" \
	[ "$(wc -l <"$work/tail.out")" -ge 3 ]
# Stopped midway: what it still held is stored at the stop.
stop_server "$r1"
check "restart: the first daemon stopped cleanly" 0 "$status"
if ! start_server "$work/r2.out" "$TAPD" replay --session "$work/s6" \
	--db "$rdb" --listen "127.0.0.1:$rport" --pace 5; then
	ko "the second daemon did not start on port $rport" \
		"$(cat "$work/r2.out.err")"
	finish
fi
r2=$pid
wait_done "$work/r2.out" 60
total=$(q "$rdb" 'SELECT max(id) FROM taps')
for i in $(seq 1 300); do
	[ "$(jq -r .id "$work/tail.out" 2>/dev/null | tail -n 1)" = "$total" ] &&
		break
	sleep 0.1
done
kill -INT "$tail_pid"
wait "$tail_pid"
check "restart: tail exits 0 on SIGINT" 0 $?
holds "restart: the database holds taps of both runs" \
	[ "$(q "$rdb" 'SELECT count(DISTINCT run) FROM taps')" = 2 ]
check "restart: tail printed every tap of the database once, in order" \
	"$(q "$rdb" 'SELECT group_concat(id) FROM (SELECT id FROM taps ORDER BY id)')" \
	"$(jq -r .id "$work/tail.out" | paste -sd,)"
holds "restart: tail said it reconnected" \
	grep -q '^tapctl: warning: .*reconnecting' "$work/tail.err"
check "restart: nothing else on stderr" 0 \
	"$(grep -vc '^tapctl: warning: ' "$work/tail.err")"
stop_server "$r2"

finish
