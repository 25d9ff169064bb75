#!/usr/bin/env bash
# docs/openapi.yaml against the real API.  The document must be valid
# OpenAPI 3.1 (@seriousme/openapi-schema-validator, pinned in tests/npm);
# every route of daemon/api.c's table, with each method it allows, must be
# described, and nothing else; and real answers of every endpoint, over
# HTTP from `tapd replay --listen` on a simulated session and from `tapd
# serve` with a token, successes and errors, must be responses the
# document gives, their bodies valid against its schemas (ajv, JSON Schema
# 2020-12).  The checks themselves are tests/e2e/lib/openapi_check.js.
# Not exercised: 503 and 507 (too many streams, a full disk; other tests
# make them) and 500.  Run from the repository root; BUILD names the build
# directory (default build).
set -u
BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=openapi
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/npm.sh"
need_tools curl
need_bins "$TAPD" "$SIM"
need_npm
work_dir openapi

dir=$work/mixed
if ! "$SIM" gen --scenario mixed --seed 3 --out "$dir" >"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
start_server "$work/replay" "$TAPD" replay --session "$dir" --db "$work/taps.db" \
	--listen 127.0.0.1:0 || { ko "tapd replay --listen did not start"; finish; }
replay_pid=$pid
replay_url=$url
# The replay is done once its summary is out; the server stays.
for _ in $(seq 100); do
	grep -q '^stored' "$work/replay" && break
	sleep 0.1
done

samples=$work/samples.jsonl
: >"$samples"
n=0
# sample METHOD PATH [CURL ARGS...]: one request to the replay's server
# (URL: $base), its answer kept for the checker.
base=$replay_url
sample() {
	local method=$1 p=$2 out head code ctype
	shift 2
	n=$((n + 1))
	out=$work/body.$n
	head=$(curl -sS -X "$method" -o "$out" -w '%{http_code} %{content_type}' \
		"$@" "$base$p" 2>"$work/curl.err")
	code=${head%% *}
	ctype=${head#* }
	printf '{"method":"%s","path":"%s","status":%s,"ctype":"%s","body":"%s"}\n' \
		"$method" "${p%%\?*}" "${code:-0}" "$ctype" "$out" >>"$samples"
}

sample GET /v1/health
sample GET "/v1/taps"
sample GET "/v1/taps?limit=2"
sample GET "/v1/taps?kind=tap&status=ok&since=1d"
sample GET "/v1/taps?format=ndjson"
sample GET "/v1/taps?format=csv"
sample GET "/v1/taps?limit=0"
sample GET "/v1/taps?bogus=1"
sample GET "/v1/percentiles?app=com.example.mail"
sample GET "/v1/percentiles?metric=settle&p=50,99.9&kind=tap&method=histogram"
sample GET "/v1/percentiles?metric=nope"
sample GET /v1/apps
sample GET "/v1/apps?since=2h&until=0s"
sample GET "/v1/apps?since=2h&until=3h"
sample GET "/v1/histogram?app=com.example.mail&buckets=4"
sample GET "/v1/histogram?buckets=0"
sample GET /v1/trace
sample GET "/v1/trace?app=com.example.mail&since=1d"
sample GET "/v1/trace?session=x"
# The stream from the first tap: its stored taps, then it waits (cut).
sample GET /v1/events -H 'Last-Event-ID: 0' --max-time 1
sample GET /v1/events -H 'Last-Event-ID: x'
sample GET /v1/sessions
sample POST /v1/sessions -H 'Content-Type: application/json' -d '{"name":"api"}'
sample POST /v1/sessions -H 'Content-Type: application/json' -d '{"name":"again"}'
sample POST /v1/sessions/1/stop
sample POST /v1/sessions/1/stop
sample POST /v1/sessions/99/stop
sample POST /v1/sessions -H 'Content-Type: application/json' -d 'not json'
sample GET /v1/sessions
sample GET /metrics
sample GET "/metrics?x=1"
sample GET "/v1/taps?app=$(printf 'a%.0s' $(seq 9000))"
stop_server "$replay_pid"

# tapd serve with a token: the 401, and a read-only database's 409.
(umask 077 && printf 'tapd-openapi-token-0123\n' >"$work/token")
start_server "$work/serve" "$TAPD" serve --db "$work/taps.db" --listen 127.0.0.1:0 \
	--token-file "$work/token" || { ko "tapd serve did not start" "$(cat "$work/serve.err")"; finish; }
base=$url
sample GET /v1/health
sample GET /v1/taps -H 'Authorization: Bearer wrong'
sample GET /v1/health -H 'Authorization: Bearer tapd-openapi-token-0123'
sample POST /v1/sessions -H 'Authorization: Bearer tapd-openapi-token-0123' -d '{"name":"ro"}'
stop_server "$pid"

check "every request was answered" 0 "$(grep -c '"status":0,' "$samples")"
# The statuses the samples were meant to give, so that a sample is what
# it says (a 400 that became a 200 would still validate).
check "statuses" "200 200 200 200 200 200 400 400 200 200 400 200 200 400 200 400 200 200 400 200 400 200 201 409 200 409 404 400 200 200 400 414 401 401 200 409" \
	"$(sed 's/.*"status":\([0-9]*\).*/\1/' "$samples" | tr '\n' ' ' | sed 's/ $//')"

node "$(dirname "$0")/lib/openapi_check.js" docs/openapi.yaml daemon/api.c \
	"$samples" >"$work/check.out" 2>&1
while IFS= read -r line; do
	case "$line" in
	"ok   "*) ok "${line#ok   }" ;;
	"FAIL "*) ko "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <"$work/check.out"
holds "the checker ran to its end" grep -q 'a real response validated' "$work/check.out"
finish
