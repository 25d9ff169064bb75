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

for bin in "$TAPD" "$SIM"; do
	if [ ! -x "$bin" ]; then
		echo "$NAME: '$bin' is missing: run make first" >&2
		echo "$NAME: 0 passed, 1 failed"
		exit 1
	fi
done
for tool in curl jq sqlite3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$NAME: '$tool' is missing: run make deps" >&2
		echo "$NAME: 0 passed, 1 failed"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-api-server.XXXXXX") || exit 1
pids=""
cleanup() {
	local p
	for p in $pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
ok() {
	passed=$((passed + 1))
	echo "ok   $1"
}
bad() {
	failed=$((failed + 1))
	echo "FAIL $1"
	shift
	local line
	for line in "$@"; do
		printf '    %s\n' "$line"
	done
}
# check NAME CONDITION...: runs the condition (a command) and records it.
check() {
	local name=$1
	shift
	if "$@" >/dev/null; then
		ok "$name"
	else
		bad "$name" "$(tail -c 400 "$work/body" 2>/dev/null)"
	fi
}

# Starts a server in the background: $1 a label, the rest its arguments.
# Sets url and pid from the first line of its stdout, "listening on URL",
# or returns 1 (its stderr is in $work/$1.err).
start() {
	local label=$1 i line=""
	shift
	"$@" >"$work/$label.out" 2>"$work/$label.err" &
	pid=$!
	pids="$pids $pid"
	for i in $(seq 1 100); do
		line=$(head -n 1 "$work/$label.out" 2>/dev/null)
		case "$line" in
		"listening on http://"*)
			url=${line#listening on }
			return 0
			;;
		esac
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# Stops the server $pid with SIGTERM; fails unless it exits 0 within 2 s.
stop() {
	local label=$1 i
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		bad "$label: exits within 2 s of SIGTERM"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	wait "$pid"
	local rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$label: exits 0 on SIGTERM"
	else
		bad "$label: exits 0 on SIGTERM (got $rc)" \
			"$(tail -n 5 "$work/$label.err")"
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
		bad "$label: expected $want $code, got $got $(err_code)" \
			"$(head -c 300 "$work/body")"
	fi
}

# A database from a small simulated session.
if ! "$SIM" gen --scenario mixed --seed 1 --out "$work/session" \
	>"$work/gen.log" 2>&1; then
	bad "tapd-sim gen" "$(tail -n 5 "$work/gen.log")"
	echo "$NAME: $passed passed, $failed failed"
	exit 1
fi
db="$work/taps.db"
if ! "$TAPD" replay --session "$work/session" --db "$db" \
	>"$work/replay.log" 2>&1; then
	bad "tapd replay" "$(tail -n 5 "$work/replay.log")"
	echo "$NAME: $passed passed, $failed failed"
	exit 1
fi
# Replay makes no session: one stopped and one open, by hand.
sqlite3 "$db" "INSERT INTO sessions (name, started_ns, stopped_ns)
	VALUES ('e2e one', 1796103474000000000, 1796103475500000000),
	('e2e two', 1796103476000000000, NULL)" || exit 1
taps=$(sqlite3 "$db" 'SELECT count(*) FROM taps')
version=$(sqlite3 "$db" 'PRAGMA user_version')

# --- tapd serve on loopback ---------------------------------------------
if ! start serve "$TAPD" serve --db "$db" --listen 127.0.0.1:0; then
	bad "serve: prints 'listening on' first" "$(tail -n 5 "$work/serve.err")"
	echo "$NAME: $passed passed, $failed failed"
	exit 1
fi
ok "serve: prints 'listening on $url' first"

code=$(req "$url/v1/health")
check "health: 200" [ "$code" = 200 ]
check "health: JSON content type" \
	has_header Content-Type 'application/json; charset=utf-8'
check "health: no-store" has_header Cache-Control no-store
check "health: status ok, mode serve" \
	jq -e '.status == "ok" and .mode == "serve"' "$work/body"
check "health: version and uptime" \
	jq -e '(.version | type == "string" and length > 0) and
		(.uptime_s | type == "number" and . >= 0)' "$work/body"
check "health: database taps = sqlite3 count ($taps)" \
	jq -e --argjson n "$taps" '.database.taps == $n' "$work/body"
check "health: schema version = user_version ($version)" \
	jq -e --argjson v "$version" '.database.schema_version == $v' \
	"$work/body"
check "health: database path and size" \
	jq -e --arg p "$db" --argjson s "$(stat -c %s "$db")" \
	'.database.path == $p and .database.size_bytes == $s and
	 (.database.wal_bytes | type == "number")' "$work/body"
check "health: sources and counters are objects" \
	jq -e '(.sources | type == "object") and (.counters | type == "object")
		and .session == null' "$work/body"

code=$(req -I "$url/v1/health")
check "HEAD health: 200" [ "$code" = 200 ]
check "HEAD health: JSON content type" \
	has_header Content-Type 'application/json; charset=utf-8'

expect_error "unknown path" 404 not_found "$url/v1/nothing"
expect_error "unknown path under /v1/sessions" 404 not_found \
	"$url/v1/sessions/abc/stop" -X POST
expect_error "POST on a GET route" 405 method_not_allowed \
	-X POST "$url/v1/health"
check "405: Allow header" has_header Allow 'GET, HEAD'
expect_error "DELETE on /v1/sessions" 405 method_not_allowed \
	-X DELETE "$url/v1/sessions"
check "405: Allow header of /v1/sessions" has_header Allow 'GET, HEAD, POST'
expect_error "unknown parameter" 400 bad_request "$url/v1/health?x=1"
check "400: names the parameter" grep -q "'x'" "$work/body"
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
check "409 says why" grep -q 'read-only' "$work/body"
expect_error "stop a session on a read-only server" 409 conflict \
	-X POST "$url/v1/sessions/1/stop"
expect_error "events on a read-only server" 409 conflict "$url/v1/events"

code=$(req "$url/v1/sessions")
check "sessions: 200" [ "$code" = 200 ]
check "sessions: both, with RFC 3339 times" \
	jq -e '.sessions | length == 2 and
	 .[0].name == "e2e one" and .[0].started == "2026-12-01T05:37:54.000Z"
	 and .[0].stopped == "2026-12-01T05:37:55.500Z" and
	 .[1].name == "e2e two" and .[1].stopped == null and
	 .[1].id > .[0].id and (.[0].taps | type == "number")' "$work/body"

stop serve

# --- addresses and tokens -----------------------------------------------
# A free port for the non-loopback tests: ask a server for one first.
port=
if start probe "$TAPD" serve --db "$db" --listen 127.0.0.1:0; then
	port=${url##*:}
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

"$TAPD" serve --db "$db" --listen "0.0.0.0:$port" \
	>"$work/open.out" 2>"$work/open.err" &
opid=$!
pids="$pids $opid"
for i in $(seq 1 40); do
	kill -0 "$opid" 2>/dev/null || break
	sleep 0.05
done
if kill -0 "$opid" 2>/dev/null; then
	bad "0.0.0.0 without a token file: refused" "it is running"
else
	wait "$opid"
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'token' "$work/open.err" &&
		[ ! -s "$work/open.out" ]; then
		ok "0.0.0.0 without a token file: refused (exit $rc)"
	else
		bad "0.0.0.0 without a token file: refused" \
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
for i in $(seq 1 40); do
	kill -0 "$lpid" 2>/dev/null || break
	sleep 0.05
done
if kill -0 "$lpid" 2>/dev/null; then
	bad "world-readable token file: refused" "it is running"
else
	check "world-readable token file: refused" \
		grep -q 'chmod 600' "$work/lax.err"
fi
chmod 600 "$work/token"
if start token "$TAPD" serve --db "$db" --listen "0.0.0.0:$port" \
	--token-file "$work/token"; then
	ok "0.0.0.0 with a token file: serves"
	turl="http://127.0.0.1:$port"
	expect_error "no Authorization header" 401 unauthorized \
		"$turl/v1/health"
	check "401: WWW-Authenticate: Bearer" \
		grep -qi '^WWW-Authenticate: Bearer' "$work/head"
	expect_error "wrong token" 401 unauthorized \
		-H "Authorization: Bearer ${token%?}x" "$turl/v1/health"
	expect_error "token prefix" 401 unauthorized \
		-H "Authorization: Bearer ${token%?}" "$turl/v1/health"
	expect_error "unknown path without a token" 401 unauthorized \
		"$turl/v1/nothing"
	code=$(req -H "Authorization: Bearer $token" "$turl/v1/health")
	check "right token: 200" [ "$code" = 200 ]
	check "right token: health" jq -e '.status == "ok"' "$work/body"
	stop token
else
	bad "0.0.0.0 with a token file: serves" \
		"$(tail -n 5 "$work/token.err")"
fi

# --- a read-only copy, as pulled off a device ---------------------------
mkdir "$work/ro"
cp "$db" "$work/ro/copy.db"
chmod 444 "$work/ro/copy.db"
chmod 555 "$work/ro"
check "copy has no WAL files" [ ! -e "$work/ro/copy.db-wal" ]
if start ro "$TAPD" serve --db "$work/ro/copy.db" --listen 127.0.0.1:0; then
	code=$(req "$url/v1/health")
	check "read-only copy: health 200 with every tap" \
		jq -e --argjson n "$taps" '.database.taps == $n' "$work/body"
	code=$(req "$url/v1/sessions")
	check "read-only copy: sessions 200" [ "$code" = 200 ]
	stop ro
else
	bad "read-only copy: serves" "$(tail -n 5 "$work/ro.err")"
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
		check "read-only copy as nobody: health 200 with every tap" \
			jq -e --argjson n "$taps" '.database.taps == $n' \
			"$work/body"
		code=$(req "$url/v1/sessions")
		check "read-only copy as nobody: sessions" \
			jq -e '.sessions | length == 2' "$work/body"
		stop ro-nobody
		check "read-only copy as nobody: nothing written beside it" \
			[ ! -e "$work/ro2/copy.db-shm" ]
	else
		bad "read-only copy as nobody: serves" \
			"$(tail -n 5 "$work/ro-nobody.err")"
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
	check "live: the event stream opened" grep -q '^:' "$work/events"
	stop live
	wait "$cpid"
	crc=$?
	check "live: the stream ended cleanly with the server (curl $crc)" \
		[ "$crc" -eq 0 ]
else
	bad "live: replay --listen serves" "$(tail -n 5 "$work/live.err")"
fi

echo "$NAME: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
