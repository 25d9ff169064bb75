#!/usr/bin/env bash
# End to end test of tapctl against `tapd serve` on a replayed simulator
# database: every command's table output (values checked against the
# database with sqlite3, or against the same command's --json), --json
# output parsed with jq, and every exit code:
#   0 ok; 1 a local failure (a token file, the output file); 2 bad usage;
#   3 an HTTP error (a bogus metric is a 400, a session on a read-only
#   serve a 409, a missing token a 401); 4 a bad response; 5 nothing
#   listening (the port of a server that has just stopped).
# For 4 no extra server is needed: a --url that ends in "/metrics#" makes
# every request of tapctl a GET of /metrics (libcurl drops the fragment),
# whose answer is text, not JSON; "/v1/sessions#" gives JSON of the wrong
# shape.  tail is checked against a replay that goes on serving after its
# end: it stays connected, prints nothing, and stops cleanly on SIGINT.
# Run from the repository root; BUILD names the build directory (default
# build).  Ends with "tapctl: N passed, N failed", non-zero on failure.
set -u

BUILD=${BUILD:-build}
# TAPD_UNDER_TEST and TAPCTL_UNDER_TEST: other builds to check the same
# way (the Android builds' tests run them under qemu-user through these).
TAPD=${TAPD_UNDER_TEST:-$BUILD/tapd}
SIM="$BUILD/tapd-sim"
TAPCTL=${TAPCTL_UNDER_TEST:-$BUILD/tapctl}

NAME=tapctl
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM" "$TAPCTL"
need_tools jq sqlite3 timeout

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-tapctl.XXXXXX") || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	stop_servers
	rm -rf "$work"
}
trap cleanup EXIT

sql() {
	sqlite3 -readonly -batch -noheader -separator ' ' "$db" "$1"
}

# Runs tapctl against $url, bounded in time; stdout in $work/out, stderr
# in $work/err, the exit code in $rc.
run() {
	timeout 30 "$TAPCTL" --url "$url" --timeout 10 "$@" \
		>"$work/out" 2>"$work/err"
	rc=$?
}

# expect NAME CODE ARGS...: runs tapctl and checks its exit code.
expect() {
	local name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" = "$want" ]; then
		ok "$name: exit $rc"
		return 0
	fi
	ko "$name: exit $rc, want $want" "$(head -c 400 "$work/err")" \
		"$(head -c 400 "$work/out")"
	return 1
}

# What a failed holds shows: the last tapctl's stdout and stderr.
detail() {
	head -c 400 "$work/out"
	echo
	head -c 400 "$work/err"
}

# jqcheck NAME FILTER FILE: passes when FILE holds JSON for which FILTER
# is true (jq -e alone passes an empty file).
jqcheck() {
	if [ -s "$3" ] && jq -e "$2" "$3" >/dev/null 2>&1; then
		ok "$1"
	else
		ko "$1" "$(head -c 400 "$3")" "$(head -c 400 "$work/err")"
	fi
}

serve_session long 3 120
serve_url=$url
ntaps=$(sql "SELECT count(*) FROM taps")

# ---- usage: exit 2, a local failure 1, and --help ----
expect "no command" 2
expect "unknown command" 2 frobnicate
expect "unknown global option" 2 --frob health
expect "--timeout not a number" 2 --timeout soon health
expect "--url not http" 2 --url ftp://127.0.0.1/ health
expect "unreadable --token-file" 1 --token-file "$work/none" health
expect "health takes no argument" 2 health now
expect "--help" 0 --help &&
	holds "--help prints the synopsis" grep -q '^usage: tapctl' "$work/out"

# ---- health ----
if expect "health" 0 health; then
	holds "health table: status ok" grep -Eq '^status +ok$' "$work/out"
	holds "health table: database.taps = $ntaps" \
		grep -Eq "^database\.taps +$ntaps\$" "$work/out"
	holds "health table: a row per source" \
		grep -Eq '^store +up +sqlite' "$work/out"
fi
expect "health --json" 0 --json health &&
	jqcheck "health --json: database.taps = $ntaps" \
		".database.taps == $ntaps" "$work/out"
TAPD_URL=$url timeout 30 "$TAPCTL" health >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" = 0 ] && grep -Eq '^status +ok$' "$work/out"; then
	ok "TAPD_URL stands for --url"
else
	ko "TAPD_URL: exit $rc" "$(cat "$work/err")"
fi

# ---- apps ----
expect "apps" 0 apps &&
	holds "apps table has a header" grep -Eq '^APP' "$work/out"
missing=""
while read -r app; do
	grep -q "^$app " "$work/out" || missing="$missing $app"
done < <(sql "SELECT DISTINCT app FROM taps WHERE app IS NOT NULL
	      AND kind IN ('tap', 'long_press')")
if [ -z "$missing" ]; then
	ok "apps table: a row for each app of the database"
else
	ko "apps table lacks:$missing" "$(cat "$work/out")"
fi
cp "$work/out" "$work/apps_table"
expect "apps --json" 0 --json apps &&
	jqcheck "apps --json is an array of apps" '.apps | length > 0' \
		"$work/out"
# The OK column against the database, FIRST_P50 against the JSON.
all_ok=1
details=()
while read -r name want; do
	got=$(awk -v a="$name" '$1 == a { print $4, $6 }' "$work/apps_table")
	p50=$(jq -r --arg a "$name" \
		'.apps[] | select(.app == $a) | .first_frame.percentiles["50"]' \
		"$work/out" 2>/dev/null)
	p50=$(awk -v v="$p50" 'BEGIN { printf "%.1f", v }')
	if [ "$got" != "$want $p50" ]; then
		all_ok=0
		details+=("$name: table '$got', database ok $want, json p50 $p50")
	fi
done < <(sql "SELECT app, count(*) FROM taps WHERE status = 'ok'
	      AND kind IN ('tap', 'long_press') AND app IS NOT NULL GROUP BY app")
if [ "$all_ok" = 1 ]; then
	ok "apps table: OK = database, FIRST_P50 = --json"
else
	ko "apps table values" "${details[@]}"
fi
expect "apps --since" 0 apps --since 7d
expect "apps --since garbage" 3 apps --since yesterday-ish &&
	holds "a 400 prints the server's message" grep -q 'HTTP 400' "$work/err"

# ---- percentiles ----
app=$(sql "SELECT app FROM taps WHERE status = 'ok' AND app IS NOT NULL
	   GROUP BY app ORDER BY count(*) DESC, app LIMIT 1")
n=$(sql "SELECT count(*) FROM taps WHERE app = '$app' AND status = 'ok'
	 AND kind IN ('tap', 'long_press') AND first_frame_ns IS NOT NULL")
expect "percentiles --app $app" 0 percentiles --app "$app" \
	--metric first_frame --p 50,90,99 --method exact
cp "$work/out" "$work/pct_table"
holds "percentiles table: count $n" grep -Eq "^count +$n\$" "$work/pct_table"
run --json percentiles --app "$app" --metric first_frame --p 50,90,99 \
	--method exact
cp "$work/out" "$work/pct_json"
jqcheck "percentiles --json parses" '.percentiles | length == 3' \
	"$work/pct_json"
method=$(jq -r '.method' "$work/pct_json")
all_ok=1
details=()
for p in 50 90 99; do
	# Nearest rank, computed here from the database.
	k=$(((p * n + 99) / 100))
	want=$(sql "SELECT printf('%.3f', first_frame_ns / 1e6) FROM taps
		    WHERE app = '$app' AND status = 'ok'
		    AND kind IN ('tap', 'long_press')
		    AND first_frame_ns IS NOT NULL
		    ORDER BY first_frame_ns LIMIT 1 OFFSET $((k - 1))")
	got=$(awk -v p="p$p" '$1 == p { print $2 }' "$work/pct_table")
	json=$(jq -r ".percentiles[\"$p\"] | . * 1000 | round / 1000" \
		"$work/pct_json" 2>/dev/null)
	if [ -z "$got" ] || [ -z "$json" ] ||
		! awk -v a="$got" -v b="$json" 'BEGIN { exit !(a + 0 == b + 0) }'; then
		all_ok=0
		details+=("p$p: table $got, json $json")
	fi
	if [ "$method" != exact ] || [ "$got" != "$want" ]; then
		all_ok=0
		details+=("p$p: table $got, database $want")
	fi
done
if [ "$all_ok" = 1 ]; then
	ok "percentiles table = --json = nearest rank of the database"
else
	ko "percentiles values" "${details[@]}"
fi
expect "percentiles --histogram" 0 percentiles --app "$app" \
	--metric first_frame --histogram
sum=$(awk '/^ *FROM_MS/ { t = 1; next } t && NF >= 3 { s += $3 } END { print s + 0 }' \
	"$work/out")
if [ "$sum" = "$n" ] && grep -q '#' "$work/out"; then
	ok "percentiles --histogram: bars, counts adding up to $n"
else
	ko "percentiles --histogram: counts add up to $sum, want $n" \
		"$(cat "$work/out")"
fi
expect "percentiles --histogram --json" 0 --json percentiles --app "$app" \
	--histogram &&
	jqcheck "--histogram --json holds both answers" \
		'.percentiles.percentiles and .histogram' "$work/out"
expect "percentiles --method histogram" 0 percentiles --method histogram &&
	holds "percentiles --method histogram: says so, with its error" \
		grep -Eq '^max_error_ms +[0-9.]+$' "$work/out"
expect "percentiles --metric bogus" 3 percentiles --metric bogus &&
	holds "the 400's message is on stderr" grep -q 'HTTP 400' "$work/err"
expect "percentiles --p 0" 2 percentiles --p 0
expect "percentiles --p 101" 2 percentiles --p 50,101
expect "percentiles --p abc" 2 percentiles --p abc
expect "percentiles --app without a value" 2 percentiles --app
expect "percentiles --bogus" 2 percentiles --bogus

# ---- taps ----
expect "taps --limit 5" 0 taps --limit 5
ids=$(awk 'NR > 1 { print $1 }' "$work/out" | tr '\n' ' ')
want=$(sql "SELECT id FROM taps ORDER BY id LIMIT 5" | tr '\n' ' ')
if [ "$ids" = "$want" ] && head -n 1 "$work/out" | grep -q '^ *ID  '; then
	ok "taps table: the first five ids"
else
	ko "taps table ids '$ids', want '$want'" "$(cat "$work/out")"
fi
holds "taps: stderr tells how to page on" grep -q 'after-id' "$work/err"
first=$(sql "SELECT id, printf('%.3f', first_frame_ns / 1e6) FROM taps
	     WHERE first_frame_ns IS NOT NULL ORDER BY id LIMIT 1")
expect "taps --after-id" 0 taps --after-id $((${first% *} - 1)) --limit 1
got=$(awk 'NR == 2 { print $1, $(NF - 4) }' "$work/out")
if [ "$got" = "$first" ]; then
	ok "taps table: first_frame_ms of tap ${first% *} is the database's"
else
	ko "taps table: '$got', database '$first'" "$(cat "$work/out")"
fi
# The JANK column: the tap's jank tags by name, "-" for none.
tags=$(sql "SELECT jank_tags FROM taps WHERE id = ${first% *}")
got=$(awk 'NR == 2 { print $NF }' "$work/out")
if { [ "$tags" = 0 ] && [ "$got" = - ]; } ||
	{ [ "$tags" != 0 ] && [ "$got" != - ] && printf '%s\n' "$got" | grep -Eq '^[a-z_]+([|][a-z_]+)*$'; }; then
	ok "taps table: the jank tags of tap ${first% *} ($got)"
else
	ko "taps table: jank tags '$got', database $tags" "$(cat "$work/out")"
fi
napp=$(sql "SELECT count(*) FROM taps WHERE app = '$app'")
expect "taps --app $app" 0 taps --app "$app" --limit 10000
rows=$(($(wc -l <"$work/out") - 1))
if [ "$rows" = "$napp" ] && ! grep -q 'after-id' "$work/err"; then
	ok "taps --app: $napp rows, all of the app's"
else
	ko "taps --app: $rows rows, want $napp"
fi
expect "taps --json" 0 --json taps --limit 7 &&
	jqcheck "taps --json: 7 taps with string times" \
		'(.taps | length == 7) and (.taps[0].t_up_ns | type == "string")' \
		"$work/out"
expect "taps --format json" 0 taps --format json --limit 2 &&
	jqcheck "taps --format json is the raw JSON" '.taps | length == 2' \
		"$work/out"
expect "taps --format ndjson" 0 taps --format ndjson --limit 3
if [ "$(wc -l <"$work/out")" = 3 ] && jq -e '.id' "$work/out" >/dev/null 2>&1; then
	ok "taps --format ndjson: 3 lines of JSON"
else
	ko "taps --format ndjson" "$(cat "$work/out")"
fi
expect "taps --format csv" 0 taps --format csv --limit 3
if [ "$(wc -l <"$work/out")" = 4 ] && head -n 1 "$work/out" | grep -q '^id,app,'; then
	ok "taps --format csv: a header and 3 rows"
else
	ko "taps --format csv" "$(cat "$work/out")"
fi
expect "taps --format xml" 2 taps --format xml
expect "taps --limit 0" 2 taps --limit 0
expect "taps --limit 12abc" 2 taps --limit 12abc
# tapctl knows the server's cap: past it is bad usage, at it a page.
expect "taps --limit past the server's maximum" 2 taps --limit 10001
expect "taps --limit at the server's maximum" 0 taps --limit 10000

# ---- trace ----
expect "trace -o FILE" 0 trace -o "$work/trace.json" &&
	jqcheck "trace: the file is JSON" 'type == "object" or type == "array"' \
		"$work/trace.json" &&
	holds "trace: says how much it wrote" \
		grep -q "^wrote $(wc -c <"$work/trace.json") bytes to " "$work/out"
expect "trace -o -" 0 trace -o - --app "$app" &&
	jqcheck "trace -o -: JSON on stdout" 'type == "object" or type == "array"' \
		"$work/out"
expect "trace without -o" 2 trace
expect "trace into a missing directory" 1 trace -o "$work/no/such/dir/t.json"

# ---- sessions ----
expect "session list" 0 session list
expect "session list --json" 0 --json session list &&
	jqcheck "session list --json: an array" '.sessions | type == "array"' \
		"$work/out"
expect "session start on a read-only serve" 3 session start lunch &&
	holds "the 409's message is on stderr" grep -q 'HTTP 409' "$work/err"
expect "session stop of no session" 3 session stop 424242
expect "session stop abc" 2 session stop abc
expect "session without a subcommand" 2 session
expect "session frob" 2 session frob

# ---- tail ----
expect "tail --retry-for abc" 2 tail --retry-for abc
expect "tail --retry-for -1" 2 tail --retry-for -1
# A read-only serve streams from its database: tail stays connected,
# prints no tap stored before it started, and stops cleanly on SIGINT.
timeout -s INT --preserve-status 3 "$TAPCTL" --url "$url" tail \
	>"$work/out" 2>"$work/err"
check "tail on a read-only serve: exit 0 on SIGINT" 0 "$?"
check "tail on a read-only serve: nothing printed" "" \
	"$(cat "$work/out" "$work/err")"

# ---- exit 5: nothing listening ----
# The port of a server that has just stopped: free, and nothing on it.
if start_server "$work/gone.out" "$TAPD" serve --db "$db" \
	--listen 127.0.0.1:0; then
	stop_server "$pid"
	expect "nothing listening" 5 health &&
		holds "says it cannot connect" \
			grep -q "^tapctl: error: cannot connect to '$url'" "$work/err"
else
	ko "tapd serve for a free port did not start" \
		"$(cat "$work/gone.out.err")"
fi

# ---- exit 4: answers that are not what the API promises ----
url="$serve_url/metrics#"
expect "health answered with text" 4 health &&
	holds "says the response is bad" grep -q 'bad response' "$work/err"
expect "trace answered with text" 4 trace -o "$work/bad.json"
if [ ! -e "$work/bad.json" ] && [ -z "$(ls "$work" | grep 'bad\.json\.')" ]; then
	ok "a failed trace leaves no file behind"
else
	ko "a failed trace left $(ls "$work" | grep bad)"
fi
url="$serve_url/v1/sessions#"
expect "apps answered with another shape" 4 apps
expect "percentiles answered with another shape" 4 percentiles
url=$serve_url

# ---- a token: 401 without it ----
token="$work/token"
printf 'tapctl-e2e-%s\n' "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')" >"$token"
chmod 600 "$token"
if start_server "$work/serve2.out" "$TAPD" serve --db "$db" \
	--listen 127.0.0.1:0 --token-file "$token"; then
	expect "no token" 3 health &&
		holds "the 401 is reported" grep -q 'HTTP 401' "$work/err"
	expect "--token-file" 0 --token-file "$token" health
else
	ko "tapd serve --token-file did not start" "$(cat "$work/serve2.out.err")"
fi
url=$serve_url

# ---- tail on a live server: stays connected, stops on SIGINT ----
if start_server "$work/live.out" "$TAPD" replay --session "$dir" \
	--db "$work/live.db" --listen 127.0.0.1:0; then
	for i in $(seq 300); do
		grep -q '^replay done' "$work/live.out" && break
		sleep 0.1
	done
	timeout 30 "$TAPCTL" --url "$url" tail >"$work/tail.out" \
		2>"$work/tail.err" &
	tail_pid=$!
	pids+=("$tail_pid")
	sleep 2
	if kill -0 "$tail_pid" 2>/dev/null; then
		ok "tail stays connected"
	else
		ko "tail ended by itself" "$(cat "$work/tail.err")"
	fi
	kill -INT "$tail_pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$tail_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tail_pid" 2>/dev/null; then
		ko "tail still runs 5 s after SIGINT"
	else
		wait "$tail_pid"
		rc=$?
		if [ "$rc" = 0 ] && [ ! -s "$work/tail.err" ]; then
			ok "tail stops cleanly on SIGINT (exit 0)"
		else
			ko "tail after SIGINT: exit $rc" "$(cat "$work/tail.err")"
		fi
	fi
else
	ko "tapd replay --listen did not start" "$(tail -n 5 "$work/live.out.err")"
fi

finish
