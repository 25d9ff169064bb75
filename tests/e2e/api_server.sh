#!/usr/bin/env bash
# End to end for the HTTP server itself (not the statistics): `tapd serve`
# over a database that `tapd replay` made from a simulated session, checked
# with real requests (curl, jq, sqlite3): /v1/health against the file, the
# JSON errors (404, 405, 400, 413, 409), the refusal of a non-loopback
# address without a token and the bearer token with one, a read-only copy
# of the database, and a clean exit on SIGTERM while an event stream is
# open.  Run from the repository root; BUILD names the build directory
# (default build).  Ends with "api_server: N passed, N failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=api_server

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq sqlite3

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-api-server.XXXXXX") || exit 1
# Servers expected to refuse to start, and curl, are not start_server's.
pids=""
cleanup() {
	local p
	for p in $pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_servers
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# What a failed holds shows: the end of the last reply's body.
detail() {
	tail -c 400 "$work/body" 2>/dev/null
}

# start LABEL COMMAND...: start_server with its output in $work/LABEL.out
# (stderr in $work/LABEL.out.err), and fails unless "listening on" is the
# first line of that output: tapd says where it listens before anything
# else.
start() {
	local label=$1
	shift
	start_server "$work/$label.out" "$@" &&
		[ "$(head -n 1 "$work/$label.out")" = "listening on $url" ]
}

# Stops the server $pid with SIGTERM; fails unless it exits 0 within 2 s.
stop() {
	local label=$1
	stop_server "$pid" 2
	if [ "$status" = timeout ]; then
		ko "$label: exits within 2 s of SIGTERM"
	elif [ "$status" -eq 0 ]; then
		ok "$label: exits 0 on SIGTERM"
	else
		ko "$label: exits 0 on SIGTERM (got $status)" \
			"$(tail -n 5 "$work/$label.out.err")"
	fi
}

# req ARGS...: curl with a time limit; the body goes to $work/body, the
# headers to $work/head, and the status is printed.
req() {
	curl -s --max-time 10 -o "$work/body" -D "$work/head" \
		-w '%{http_code}' "$@"
}

# The code of the JSON error in $work/body.
err_code() {
	jq -r '.error.code // "none"' "$work/body" 2>/dev/null
}

# has_header NAME VALUE: the reply in $work/head carries it exactly.
has_header() {
	tr -d '\r' <"$work/head" | grep -qi "^$1: $2\$"
}

# expect_error LABEL STATUS CODE CURL-ARGS...
expect_error() {
	local label=$1 want=$2 code=$3 got
	shift 3
	got=$(req "$@")
	if [ "$got" = "$want" ] && [ "$(err_code)" = "$code" ] &&
		has_header Content-Type 'application/json; charset=utf-8' &&
		jq -e '.error.message | length > 0' "$work/body" >/dev/null; then
		ok "$label: $want $code"
	else
		ko "$label: expected $want $code, got $got $(err_code)" \
			"$(head -c 300 "$work/body")"
	fi
}

# A database from a small simulated session.
if ! "$SIM" gen --scenario mixed --seed 1 --out "$work/session" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(tail -n 5 "$work/gen.log")"
	finish
fi
db="$work/taps.db"
if ! "$TAPD" replay --session "$work/session" --db "$db" \
	>"$work/replay.log" 2>&1; then
	ko "tapd replay" "$(tail -n 5 "$work/replay.log")"
	finish
fi
# Replay makes no session: one stopped and one open, by hand.
sqlite3 "$db" "INSERT INTO sessions (name, started_ns, stopped_ns)
	VALUES ('e2e one', 1796103474000000000, 1796103475500000000),
	('e2e two', 1796103476000000000, NULL)" || exit 1
taps=$(sqlite3 "$db" 'SELECT count(*) FROM taps')
version=$(sqlite3 "$db" 'PRAGMA user_version')

# --- tapd serve on loopback ---------------------------------------------
if ! start serve "$TAPD" serve --db "$db" --listen 127.0.0.1:0; then
	ko "serve: prints 'listening on' first" \
		"$(tail -n 5 "$work/serve.out.err")"
	finish
fi
check "serve: prints 'listening on $url' first" "listening on $url" \
	"$(head -n 1 "$work/serve.out")"

code=$(req "$url/v1/health")
holds "health: 200" [ "$code" = 200 ]
holds "health: JSON content type" \
	has_header Content-Type 'application/json; charset=utf-8'
holds "health: no-store" has_header Cache-Control no-store
holds "health: status ok, mode serve" \
	jq -e '.status == "ok" and .mode == "serve"' "$work/body"
holds "health: version and uptime" \
	jq -e '(.version | type == "string" and length > 0) and
		(.uptime_s | type == "number" and . >= 0)' "$work/body"
holds "health: database taps = sqlite3 count ($taps)" \
	jq -e --argjson n "$taps" '.database.taps == $n' "$work/body"
holds "health: schema version = user_version ($version)" \
	jq -e --argjson v "$version" '.database.schema_version == $v' \
	"$work/body"
holds "health: database path and size" \
	jq -e --arg p "$db" --argjson s "$(stat -c %s "$db")" \
	'.database.path == $p and .database.size_bytes == $s and
	 (.database.wal_bytes | type == "number")' "$work/body"
holds "health: sources and counters are objects" \
	jq -e '(.sources | type == "object") and (.counters | type == "object")
		and .session == null' "$work/body"

code=$(req -I "$url/v1/health")
holds "HEAD health: 200" [ "$code" = 200 ]
holds "HEAD health: JSON content type" \
	has_header Content-Type 'application/json; charset=utf-8'

expect_error "unknown path" 404 not_found "$url/v1/nothing"
expect_error "unknown path under /v1/sessions" 404 not_found \
	"$url/v1/sessions/abc/stop" -X POST
expect_error "POST on a GET route" 405 method_not_allowed \
	-X POST "$url/v1/health"
holds "405: Allow header" has_header Allow 'GET, HEAD'
expect_error "DELETE on /v1/sessions" 405 method_not_allowed \
	-X DELETE "$url/v1/sessions"
holds "405: Allow header of /v1/sessions" has_header Allow 'GET, HEAD, POST'
expect_error "unknown parameter" 400 bad_request "$url/v1/health?x=1"
holds "400: names the parameter" grep -q "'x'" "$work/body"
expect_error "repeated parameter" 400 bad_request \
	"$url/v1/sessions?a=1&a=2"

head -c 102400 /dev/zero | tr '\0' 'a' >"$work/big"
expect_error "100 KB body" 413 too_large -X POST \
	-H 'Content-Type: application/json' --data-binary @"$work/big" \
	"$url/v1/sessions"
expect_error "100 KB body, chunked" 413 too_large -X POST \
	-H 'Transfer-Encoding: chunked' --data-binary @"$work/big" \
	"$url/v1/sessions"

expect_error "start a session on a read-only server" 409 conflict \
	-X POST -d '{"name": "lab"}' "$url/v1/sessions"
holds "409 says why" grep -q 'read-only' "$work/body"
expect_error "stop a session on a read-only server" 409 conflict \
	-X POST "$url/v1/sessions/1/stop"
# A read-only server streams events too, from the database it follows.
curl -s -N --max-time 2 -o "$work/body" -D "$work/head" "$url/v1/events"
holds "events on a read-only server: a stream" \
	grep -qi '^content-type: text/event-stream' "$work/head"
holds "events on a read-only server: it opens with retry" \
	grep -q '^retry: 2000$' "$work/body"
expect_error "events with a bad Last-Event-ID" 400 bad_request \
	-H 'Last-Event-ID: x1' "$url/v1/events"

code=$(req "$url/v1/sessions")
holds "sessions: 200" [ "$code" = 200 ]
holds "sessions: both, with RFC 3339 times" \
	jq -e '.sessions | length == 2 and
	 .[0].name == "e2e one" and .[0].started == "2026-12-01T05:37:54.000Z"
	 and .[0].stopped == "2026-12-01T05:37:55.500Z" and
	 .[1].name == "e2e two" and .[1].stopped == null and
	 .[1].id > .[0].id and (.[0].taps | type == "number")' "$work/body"

stop serve

# --- addresses and tokens -----------------------------------------------
# A free port for the non-loopback tests: ask a server for one first.
# exits_soon PID: whether a server that must refuse to start has exited
# within 2 s; one that still runs then has not refused.
exits_soon() {
	local i
	for i in $(seq 1 40); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	! kill -0 "$1" 2>/dev/null
}

port=
start probe "$TAPD" serve --db "$db" --listen 127.0.0.1:0
stop_server "$pid"

"$TAPD" serve --db "$db" --listen "0.0.0.0:$port" \
	>"$work/open.out" 2>"$work/open.err" &
opid=$!
pids="$pids $opid"
if ! exits_soon "$opid"; then
	ko "0.0.0.0 without a token file: refused" "it is running"
else
	wait "$opid"
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'token' "$work/open.err" &&
		[ ! -s "$work/open.out" ]; then
		ok "0.0.0.0 without a token file: refused (exit $rc)"
	else
		ko "0.0.0.0 without a token file: refused" \
			"exit $rc" "$(cat "$work/open.err")"
	fi
fi

token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$token" >"$work/token"
chmod 644 "$work/token"
"$TAPD" serve --db "$db" --listen "0.0.0.0:$port" \
	--token-file "$work/token" >/dev/null 2>"$work/lax.err" &
lpid=$!
pids="$pids $lpid"
if ! exits_soon "$lpid"; then
	ko "world-readable token file: refused" "it is running"
else
	holds "world-readable token file: refused" \
		grep -q 'chmod 600' "$work/lax.err"
fi
chmod 600 "$work/token"
if start token "$TAPD" serve --db "$db" --listen "0.0.0.0:$port" \
	--token-file "$work/token"; then
	ok "0.0.0.0 with a token file: serves"
	turl="http://127.0.0.1:$port"
	expect_error "no Authorization header" 401 unauthorized \
		"$turl/v1/health"
	holds "401: WWW-Authenticate: Bearer" \
		grep -qi '^WWW-Authenticate: Bearer' "$work/head"
	expect_error "wrong token" 401 unauthorized \
		-H "Authorization: Bearer ${token%?}x" "$turl/v1/health"
	expect_error "token prefix" 401 unauthorized \
		-H "Authorization: Bearer ${token%?}" "$turl/v1/health"
	expect_error "unknown path without a token" 401 unauthorized \
		"$turl/v1/nothing"
	code=$(req -H "Authorization: Bearer $token" "$turl/v1/health")
	holds "right token: 200" [ "$code" = 200 ]
	holds "right token: health" jq -e '.status == "ok"' "$work/body"
	stop token
else
	ko "0.0.0.0 with a token file: serves" \
		"$(tail -n 5 "$work/token.out.err")"
fi

# --- a read-only copy, as pulled off a device ---------------------------
mkdir "$work/ro"
cp "$db" "$work/ro/copy.db"
chmod 444 "$work/ro/copy.db"
chmod 555 "$work/ro"
holds "copy has no WAL files" [ ! -e "$work/ro/copy.db-wal" ]
if start ro "$TAPD" serve --db "$work/ro/copy.db" --listen 127.0.0.1:0; then
	code=$(req "$url/v1/health")
	holds "read-only copy: health 200 with every tap" \
		jq -e --argjson n "$taps" '.database.taps == $n' "$work/body"
	code=$(req "$url/v1/sessions")
	holds "read-only copy: sessions 200" [ "$code" = 200 ]
	stop ro
else
	ko "read-only copy: serves" "$(tail -n 5 "$work/ro.out.err")"
fi
# Root may write anywhere, and did just now: an unprivileged user, on a
# fresh copy, if possible.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir "$work/ro2"
	cp "$db" "$work/ro2/copy.db"
	chmod 444 "$work/ro2/copy.db"
	chmod 555 "$work/ro2"
	chmod 755 "$work"
	if start ro-nobody setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$TAPD" serve --db "$work/ro2/copy.db" \
		--listen 127.0.0.1:0; then
		code=$(req "$url/v1/health")
		holds "read-only copy as nobody: health 200 with every tap" \
			jq -e --argjson n "$taps" '.database.taps == $n' \
			"$work/body"
		code=$(req "$url/v1/sessions")
		holds "read-only copy as nobody: sessions" \
			jq -e '.sessions | length == 2' "$work/body"
		stop ro-nobody
		holds "read-only copy as nobody: nothing written beside it" \
			[ ! -e "$work/ro2/copy.db-shm" ]
	else
		ko "read-only copy as nobody: serves" \
			"$(tail -n 5 "$work/ro-nobody.out.err")"
	fi
fi

# --- SIGTERM with an event stream open ----------------------------------
# tapd replay --listen keeps serving live taps after the replay until
# stopped, with an event stream.
if start live "$TAPD" replay --session "$work/session" \
	--db "$work/live.db" --listen 127.0.0.1:0; then
	curl -s -N --max-time 20 "$url/v1/events" >"$work/events" 2>&1 &
	cpid=$!
	pids="$pids $cpid"
	for i in $(seq 1 40); do
		grep -q '^:' "$work/events" 2>/dev/null && break
		sleep 0.05
	done
	holds "live: the event stream opened" grep -q '^:' "$work/events"
	stop live
	wait "$cpid"
	crc=$?
	holds "live: the stream ended cleanly with the server (curl $crc)" \
		[ "$crc" -eq 0 ]
else
	ko "live: replay --listen serves" "$(tail -n 5 "$work/live.out.err")"
fi

finish
