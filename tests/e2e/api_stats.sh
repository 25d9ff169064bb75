#!/usr/bin/env bash
# GET /v1/percentiles, /v1/apps and /v1/histogram over real HTTP: a
# simulated session (tapd-sim, scenario long) replayed into a database and
# served by `tapd serve` on a free loopback port.  Every number is checked
# against what this script computes itself from the session's truth.json
# with jq: nearest-rank percentiles of each app and of all apps for both
# metrics and several p, the counts by app and status, the histogram's
# total; the histogram method against the exact one within the error it
# reports; and every 400 of the three endpoints.  Time ranges are left
# open: the wall times of replayed taps depend on when they were replayed.
# Run from the repository root; BUILD names the build directory (default
# build).
set -u

BUILD=${BUILD:-build}
# TAPD_UNDER_TEST: another tapd to check the same way (the Android
# builds' tests run one under qemu-user through it).
TAPD=${TAPD_UNDER_TEST:-$BUILD/tapd}
SIM="$BUILD/tapd-sim"
NAME=api_stats
PS="0.001,1,10,50,90,95,99,99.9,100"

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_tools curl jq
need_bins "$TAPD" "$SIM"

work_dir api-stats

session="$work/session"
truth="$session/truth.json"
db="$work/taps.db"
if ! "$SIM" gen --scenario long --seed 2 --duration 300 --out "$session" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen"
	sed 's/^/    /' "$work/gen.log"
	finish
fi
if ! "$TAPD" replay --session "$session" --db "$db" >"$work/replay.log" 2>&1; then
	ko "tapd replay"
	sed 's/^/    /' "$work/replay.log"
	finish
fi

serve_db "$db"
base=$url

# get PATH?QUERY: the body into $work/body, the status into $work/status.
get() {
	curl -sS --max-time 20 -o "$work/body" -w '%{http_code}' \
		"$base$1" >"$work/status" 2>"$work/curl.err" ||
		echo 000 >"$work/status"
}

# The truth's measured taps: ok, tap or long press, with the metric known.
# expect APP METRIC P_LIST prints {"count": N, "p": {"50": ms, ...}} with
# nearest ranks computed in integers (p in thousandths), and ms = ns / 1e6
# rounded to the microsecond as the API rounds it.  APP "" is every app.
expect() {
	jq -c --arg app "$1" --arg m "$2" --arg ps "$3" '
		[.gestures[] | select(.status == "ok")
			| select(.kind == "tap" or .kind == "long_press")
			| select($app == "" or .app == $app)
			| .[$m + "_ns"] | select(. != null) | tonumber] | sort
		| . as $v | length as $n
		| {count: $n, p: ([$ps | split(",")[] | . as $p
			| ($p | tonumber * 1000 | round) as $pm
			| {key: ($p | tonumber | tostring),
			   value: (if $n == 0 then null else
				$v[((($pm * $n) + 99999) / 100000 | floor) - 1]
				/ 1000 | round / 1000 end)}] | from_entries)}
	' "$truth"
}

apps=$(jq -r '[.gestures[] | select(.status == "ok") | .app] | unique | .[]' \
	"$truth")
napps=$(printf '%s\n' "$apps" | grep -c .)
if [ "$napps" -lt 3 ]; then
	ko "the session has $napps apps with measured taps, fewer than 3"
	finish
fi

# Percentiles of each app and of all apps, both metrics, against the
# truth; then the histogram method against the truth within its bound.
for app in $apps ""; do
	for metric in first_frame settle; do
		what="${app:-all apps} $metric"
		want=$(expect "$app" "$metric" "$PS")
		get "/v1/percentiles?${app:+app=$app&}metric=$metric&p=$PS"
		if [ "$(cat "$work/status")" != 200 ]; then
			ko "percentiles of $what: HTTP $(cat "$work/status")"
			continue
		fi
		got=$(jq -c '{count, p: .percentiles}' "$work/body")
		check "percentiles of $what ($(jq .count <<<"$want") taps)" \
			"$want" "$got"
		check "percentiles of $what: method" exact \
			"$(jq -r .method "$work/body")"
		check "percentiles of $what: filters echoed" \
			"${app:-null} $metric ok tap,long_press null null" \
			"$(jq -r '"\(.app) \(.metric) \(.status) \(.kind | join(",")) \(.since) \(.until)"' "$work/body")"

		get "/v1/percentiles?${app:+app=$app&}metric=$metric&p=$PS&method=histogram"
		verdict=$(jq -r --argjson want "$want" '
			if .method != "histogram" then "method \(.method)"
			elif .count != $want.count then "count \(.count)"
			elif (.max_error_ms | type) != "number" then "no max_error_ms"
			else [.percentiles | to_entries[]
				| select((.value - $want.p[.key]) | fabs
					 > $root.max_error_ms + 0.0015)
				| .key] as $bad
			| if $bad == [] then "ok"
			  else "off by more than max_error_ms at \($bad)" end
			end' --argjson root "$(cat "$work/body")" "$work/body")
		check "histogram percentiles of $what within their bound" ok \
			"$verdict"
	done
done

# Filters: kind, status, session.
want=$(jq '[.gestures[] | select(.status == "ok" and .kind == "long_press")
	| select(.first_frame_ns != null)] | length' "$truth")
get "/v1/percentiles?kind=long_press&p=50"
check "kind=long_press counts the long presses" "$want" \
	"$(jq .count "$work/body")"
get "/v1/percentiles?kind=tap,long_press,swipe&p=50"
check "kind=tap,long_press,swipe adds no measured tap" \
	"$(expect "" first_frame 50 | jq .count)" "$(jq .count "$work/body")"
get "/v1/percentiles?status=no_response&p=50,90"
check "status=no_response has no latency to rank" "0 null" \
	"$(jq -r '"\(.count) \(.percentiles["50"])"' "$work/body")"
get "/v1/percentiles?session=1&p=50"
check "session=1 (none was started) matches nothing" "200 0" \
	"$(cat "$work/status") $(jq .count "$work/body")"

# /v1/apps: counts by status of every gesture, and p50/p90/p99 of the
# measured taps, for each app.
get "/v1/apps"
check "/v1/apps answers" 200 "$(cat "$work/status")"
cp "$work/body" "$work/apps.json"
want=$(jq -c '[.gestures | group_by(.app)[] | {app: .[0].app,
	count: length,
	statuses: (reduce .[] as $g ({ok: 0, no_response: 0, truncated: 0,
		frames_unavailable: 0, not_measured: 0};
		.[$g.status] += 1))}]' "$truth")
got=$(jq -c '[.apps[] | {app, count, statuses}]' "$work/apps.json")
check "/v1/apps counts by app and status" "$want" "$got"
for app in $apps; do
	for metric in first_frame settle; do
		want=$(expect "$app" "$metric" "50,90,99")
		got=$(jq -c --arg app "$app" --arg m "$metric" \
			'.apps[] | select(.app == $app) | .[$m]
			| {count, p: .percentiles}' "$work/apps.json")
		check "/v1/apps $app $metric p50/p90/p99" "$want" "$got"
	done
done
check "/v1/apps echoes open ranges" "null null null" \
	"$(jq -r '"\(.since) \(.until) \(.session)"' "$work/apps.json")"
check "/v1/apps gives the unit of its latencies" ms \
	"$(jq -r .unit "$work/apps.json")"
# ?app= keeps the entry of one app, the same as in the whole list.
for app in $apps; do
	get "/v1/apps?app=$app"
	check "/v1/apps?app=$app: its entry only" \
		"$(jq -c --arg app "$app" '[.apps[] | select(.app == $app)]' \
			"$work/apps.json")" "$(jq -c '.apps' "$work/body")"
done
get "/v1/apps?app=com.example.none"
check "/v1/apps?app= of no such app: none" "[]" "$(jq -c '.apps' "$work/body")"

# /v1/histogram: the buckets hold every measured tap, once, in at most the
# buckets asked for, edge to edge.
for app in $apps ""; do
	for metric in first_frame settle; do
		for n in 1 7 40; do
			what="${app:-all apps} $metric buckets=$n"
			want=$(expect "$app" "$metric" 50 | jq .count)
			get "/v1/histogram?${app:+app=$app&}metric=$metric&buckets=$n"
			verdict=$(jq -r --argjson want "$want" --argjson n "$n" '
				.buckets as $b
				| if .count != $want then "count \(.count)"
				elif ([$b[].count] | add) != $want then "sum \([$b[].count] | add)"
				elif ($b | length) > $n then "\($b | length) buckets"
				elif [range(1; $b | length) | select($b[.].lo_ms != $b[. - 1].hi_ms)] != []
				then "gaps between buckets"
				elif [$b[] | select(.lo_ms >= .hi_ms)] != [] then "empty edges"
				else "ok" end' "$work/body")
			check "histogram of $what" ok "$verdict"
		done
	done
done
get "/v1/histogram?app=com.nothing.here"
check "histogram of an app without taps" "200 0 0" \
	"$(cat "$work/status") $(jq -r '"\(.count) \(.buckets | length)"' "$work/body")"

# Every 400, each with the JSON error body.
bad() {
	get "$1"
	check "400 for $1" "400 bad_request" \
		"$(cat "$work/status") $(jq -r .error.code "$work/body" 2>/dev/null)"
}
for ep in percentiles apps histogram; do
	bad "/v1/$ep?foo=1"
	bad "/v1/$ep?since=2000000000&until=1000000000"
	bad "/v1/$ep?session=abc"
	bad "/v1/$ep?session=0"
	bad "/v1/$ep?since=yesterday"
	bad "/v1/$ep?until=2300-01-01T00:00:00Z"
	bad "/v1/$ep?since=1h&since=2h"
done
for ep in percentiles histogram; do
	bad "/v1/$ep?metric=latency"
	bad "/v1/$ep?metric="
	bad "/v1/$ep?app=com.example%2Fmail"
	bad "/v1/$ep?app="
done
bad "/v1/apps?app=com.example%2Fmail"
bad "/v1/apps?metric=settle"
bad "/v1/percentiles?p=0"
bad "/v1/percentiles?p=101"
bad "/v1/percentiles?p=abc"
bad "/v1/percentiles?p=50,,90"
bad "/v1/percentiles?p=-5"
bad "/v1/percentiles?p=nan"
bad "/v1/percentiles?p=$(seq -s, 1 33)"
bad "/v1/percentiles?kind=touch"
bad "/v1/percentiles?kind=tap,"
bad "/v1/percentiles?status=OK"
bad "/v1/percentiles?method=fast"
bad "/v1/percentiles?buckets=10"
bad "/v1/histogram?buckets=0"
bad "/v1/histogram?buckets=1001"
bad "/v1/histogram?buckets=abc"
bad "/v1/histogram?p=50"

# And the same endpoints still answer after all that.
get "/v1/percentiles"
check "defaults: first_frame, p 50 90 95 99" "200 first_frame 50,90,95,99" \
	"$(cat "$work/status") $(jq -r '"\(.metric) \(.percentiles | keys_unsorted | join(","))"' "$work/body")"

finish
