#!/usr/bin/env bash
# End to end: text from the database and from requests in the API's
# answers.  A replayed database is damaged by hand (app and session names
# that are not UTF-8), served with `tapd serve`, and every endpoint's
# answer must still be valid UTF-8 (and JSON where it is JSON), with
# U+FFFD in place of each bad byte.  Then a `tapd replay --listen` is
# asked to start sessions whose names hold NUL (\u0000), control
# characters or bytes that are not UTF-8: each is a JSON 400 naming the
# field, and none of them is stored.  Run from the repository root; BUILD
# names the build directory (default build).  Ends with
# "api_strings: N passed, N failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=api_strings

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq sqlite3 python3

work_dir api-strings

# A strict decode: exits 0 only when FILE is UTF-8 throughout (and, with
# json, one JSON document).
utf8_ok() {
	python3 -c '
import json, sys
text = open(sys.argv[1], "rb").read().decode("utf-8")
if sys.argv[2] == "json":
    json.loads(text)
' "$1" "$2"
}

# get LABEL PATH KIND: fetches PATH into $work/LABEL.out and checks that
# it is a 200 whose body is valid UTF-8 (KIND json: valid JSON too).
get() {
	local label=$1 path=$2 kind=$3 code
	code=$(curl -s --max-time 10 -o "$work/$label.out" -w '%{http_code}' \
		"$url$path")
	if [ "$code" != 200 ]; then
		ko "$path: 200 (got $code)" "$(head -c 300 "$work/$label.out")"
	elif utf8_ok "$work/$label.out" "$kind" 2>"$work/$label.err"; then
		ok "$path: valid UTF-8${kind:+ $kind}"
	else
		ko "$path: valid UTF-8${kind:+ $kind}" \
			"$(tail -n 1 "$work/$label.err")"
	fi
}

if ! "$SIM" gen --scenario two-apps --seed 4 --duration 20 \
	--out "$work/sim" >"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(tail -n 5 "$work/gen.log")"
	finish
fi
db="$work/taps.db"
if ! "$TAPD" replay --session "$work/sim" --db "$db" \
	>"$work/replay.log" 2>&1; then
	ko "tapd replay" "$(tail -n 5 "$work/replay.log")"
	finish
fi

# The app of every tap becomes "f", a stray 0xff, "o"; a session named
# "lab", a stray byte, then a truncated sequence holds them all.
if ! sqlite3 "$db" "UPDATE taps SET app = CAST(X'66ff6f' AS TEXT);
	INSERT INTO sessions (name, started_ns, stopped_ns)
	VALUES (CAST(X'6c6162ffe282' AS TEXT), 1796103474000000000,
		1796103475000000000);
	UPDATE taps SET session = last_insert_rowid();"; then
	ko "damaging the database"
	finish
fi
holds "the damage is in the database" test \
	"$(sqlite3 "$db" "SELECT hex(app) FROM taps LIMIT 1")" = 66FF6F

serve_db "$db"
get apps /v1/apps json
get sessions /v1/sessions json
get taps /v1/taps json
get ndjson "/v1/taps?format=ndjson" ""
get csv "/v1/taps?format=csv" ""
get percentiles /v1/percentiles json
get histogram /v1/histogram json
get trace /v1/trace json
get health /v1/health json
get metrics /metrics ""

check "/v1/apps: the app with U+FFFD" "f$(printf '\357\277\275')o" \
	"$(jq -r '.apps[0].app' "$work/apps.out" 2>/dev/null)"
check "/v1/sessions: the name with U+FFFD" \
	"lab$(printf '\357\277\275\357\277\275\357\277\275')" \
	"$(jq -r '.sessions[0].name' "$work/sessions.out" 2>/dev/null)"
check "/v1/taps: the app with U+FFFD" "f$(printf '\357\277\275')o" \
	"$(jq -r '.taps[0].app' "$work/taps.out" 2>/dev/null)"
stop_server "$pid"

# --- names refused by POST /v1/sessions -------------------------------
db2="$work/live.db"
if ! start_server "$work/live.out" "$TAPD" replay --session "$work/sim" \
	--db "$db2" --listen 127.0.0.1:0; then
	ko "tapd replay --listen did not say where it listens" \
		"$(cat "$work/live.out.err")"
	finish
fi

# refused LABEL BODY: POST /v1/sessions with BODY is a JSON 400
# bad_request whose message names "name".
refused() {
	local label=$1 code
	code=$(curl -s --max-time 10 -o "$work/post.out" -w '%{http_code}' \
		-X POST --data-binary "$2" "$url/v1/sessions")
	if [ "$code" = 400 ] &&
		[ "$(jq -r .error.code "$work/post.out" 2>/dev/null)" = \
			bad_request ] &&
		jq -r .error.message "$work/post.out" | grep -q '"name"'; then
		ok "$label: 400 naming \"name\""
	else
		ko "$label: expected 400 naming \"name\", got $code" \
			"$(head -c 300 "$work/post.out")"
	fi
}

refused 'name "a\u0000b"' '{"name": "a\u0000b"}'
refused 'name "\u0000"' '{"name": "\u0000"}'
refused 'key "name\u0000x"' '{"name\u0000x": "a"}'
refused 'name "a\u0001b"' '{"name": "a\u0001b"}'
refused 'name "a\tb"' '{"name": "a\tb"}'
refused 'name with a raw 0x01' "$(printf '{"name": "a\001b"}')"
refused 'name with a stray 0xff' "$(printf '{"name": "a\377b"}')"
refused 'name with an overlong "/"' "$(printf '{"name": "a\300\257b"}')"
check "no session was stored" 0 \
	"$(sqlite3 "$db2" 'SELECT count(*) FROM sessions')"

# An escaped backslash before "u0000" is no NUL: that name is fine.
code=$(curl -s --max-time 10 -o "$work/post.out" -w '%{http_code}' \
	-X POST --data-binary '{"name": "a\\u0000b"}' "$url/v1/sessions")
check 'name "a\\u0000b": 201' 201 "$code"
check 'name "a\\u0000b" kept whole' 'a\u0000b' \
	"$(jq -r .name "$work/post.out" 2>/dev/null)"
stop_server "$pid"
check "replay --listen exits 0 on SIGTERM" 0 "$status"

finish
