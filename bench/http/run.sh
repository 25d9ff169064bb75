#!/usr/bin/env bash
# HTTP throughput: `wrk -t2 -c64` against `tapd serve` on the 1,000,000-tap
# database of bench/query (bench/http/db.sh builds it once and caches it),
# for /v1/percentiles of the busiest app over one day, the same with a
# range that moves every request (bench/http/vary.lua: no answer comes
# from the answer cache, the figure of the queries themselves),
# /v1/health and /v1/apps; then the same four while a paced
# `tapd replay --listen` ingests a simulated session into a copy of that
# file, after which every tap of the session must be in it (the replay's "stored N rows", the
# run's rows in the file and the simulator's truth, all three the same).
# Prints requests/s and p99 per URL against the goals of issue 11, and
# one "bench-row:" line per figure for bench/run.sh.
#
#   bench/http/run.sh
#
# BENCH_SECONDS (30) is the length of each wrk run, BENCH_THREADS (2) and
# BENCH_CONNS (64) its threads and connections, BENCH_PACE (1) the
# replay's pace, BENCH_TAPS (1000000) the gestures of the database.
# Nothing is asserted but the stored taps: the script exits 1 when a tap
# of the replay is missing, or a URL does not answer 200.
set -eu

build=${BUILD:-build}
secs=${BENCH_SECONDS:-30}
threads=${BENCH_THREADS:-2}
conns=${BENCH_CONNS:-64}
pace=${BENCH_PACE:-1}
taps=${BENCH_TAPS:-1000000}
end=1764547200
app=com.bench.app00
goal_pct_rps=5000
goal_pct_p99=20
goal_health_rps=20000

for tool in wrk curl jq sqlite3 cc; do
	command -v "$tool" >/dev/null || {
		echo "bench/http: '$tool' is missing: run make deps" >&2
		exit 1
	}
done
[ -x "$build/tapd" ] && [ -x "$build/tapd-sim" ] || {
	echo "bench/http: run make first" >&2
	exit 1
}

db=$(bash bench/http/db.sh "$taps")
tmp=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# listen OUT: the port of the "listening on" line tapd prints first.
listen() {
	local port=
	for _ in $(seq 1 300); do
		port=$(sed -n '1s|^listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$1")
		[ -n "$port" ] && break
		sleep 0.1
	done
	echo "$port"
}

# to_ms VALUE: a wrk duration (850.00us, 12.34ms, 1.20s, 2.00m) in ms.
to_ms() {
	echo "$1" | awk '{
		v = $1 + 0
		if ($1 ~ /us$/) v /= 1000
		else if ($1 ~ /ms$/) v *= 1
		else if ($1 ~ /m$/) v *= 60000
		else if ($1 ~ /s$/) v *= 1000
		printf "%.2f\n", v
	}'
}

status=0
# bench NAME URL GOAL_RPS GOAL_P99_MS [LUA]: one wrk run (with the wrk
# script LUA, given the thread count), a line of the table and a
# bench-row line.  A goal of "-" is none.
bench() {
	local name=$1 url=$2 goal_rps=$3 goal_p99=$4 lua=${5:-} code rps p99
	local bad errs verdict=met goal ratio
	local script=()
	code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
	if [ "$code" != 200 ]; then
		echo "bench/http: $url answered $code" >&2
		status=1
	fi
	[ -z "$lua" ] || script=(-s "$lua")
	wrk -t"$threads" -c"$conns" -d"${secs}s" --latency "${script[@]}" \
		"$url" ${lua:+-- "$threads"} >"$tmp/wrk.out" 2>&1 || true
	rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$tmp/wrk.out")
	p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.out")")
	bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$tmp/wrk.out")
	errs=$(sed -n 's/^ *Socket errors: *//p' "$tmp/wrk.out")
	[ -n "$rps" ] || {
		cat "$tmp/wrk.out" >&2
		rps=0
	}
	if [ "$goal_rps" = - ]; then
		goal="no goal"
		ratio="-"
		verdict="-"
	else
		goal=">= $goal_rps req/s"
		[ "$goal_p99" = - ] || goal="$goal, p99 <= $goal_p99 ms"
		[ "$rps" -ge "$goal_rps" ] || verdict=missed
		if [ "$goal_p99" != - ] &&
			[ "$(echo "$p99 > $goal_p99" | bc -l)" = 1 ]; then
			verdict=missed
		fi
		ratio="$(printf '%.2f' "$(echo "$rps / $goal_rps" | bc -l)")x req/s, $verdict"
	fi
	printf '%-44s %9s %9s  %-32s %s%s%s\n' "$name" "$rps" "$p99" "$goal" \
		"$verdict" "${bad:+, $bad non-2xx}" "${errs:+, socket errors: $errs}"
	echo "bench-row: $name|$rps req/s, p99 $p99 ms${bad:+, $bad non-2xx}|$goal|$ratio"
}

header() {
	printf '\n%-44s %9s %9s  %-32s %s\n' "$1" "req/s" "p99 ms" goal verdict
}

urls() {
	local base=$1 label=$2
	bench "$label /v1/percentiles ($app, 1 day)" \
		"$base/v1/percentiles?app=$app&since=$((end - 86400))&until=$end" \
		"$goal_pct_rps" "$goal_pct_p99"
	bench "$label /v1/percentiles uncached (range moved)" \
		"$base/v1/percentiles?app=$app&since=$((end - 86400))&until=$end" \
		"$goal_pct_rps" "$goal_pct_p99" bench/http/vary.lua
	bench "$label /v1/health" "$base/v1/health" "$goal_health_rps" -
	bench "$label /v1/apps" "$base/v1/apps" - -
}

echo "database: $db ($(sqlite3 "$db" 'SELECT count(*) FROM taps') gestures, $(du -m "$db" | cut -f1) MiB)"
echo "wrk -t$threads -c$conns -d${secs}s --latency; load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

"$build/tapd" serve --db "$db" --listen 127.0.0.1:0 >"$tmp/serve.out" \
	2>"$tmp/serve.err" &
server=$!
port=$(listen "$tmp/serve.out")
[ -n "$port" ] || {
	echo "bench/http: tapd serve did not start" >&2
	cat "$tmp/serve.err" >&2
	exit 1
}
header "tapd serve"
urls "http://127.0.0.1:$port" "http:"
kill "$server"
wait "$server" 2>/dev/null || true
server=

# The live half: a simulated session long enough for the four runs,
# replayed at its recorded pace into a copy of the same file.
duration=$(((4 * secs + 30) * pace))
"$build/tapd-sim" gen --scenario long --seed 11 --duration "$duration" \
	--out "$tmp/session" >/dev/null
want=$(jq '.gestures | length' "$tmp/session/truth.json")
cp "$db" "$tmp/live.db"
"$build/tapd" replay --session "$tmp/session" --db "$tmp/live.db" \
	--listen 127.0.0.1:0 --pace "$pace" >"$tmp/replay.out" \
	2>"$tmp/replay.err" &
server=$!
port=$(listen "$tmp/replay.out")
[ -n "$port" ] || {
	echo "bench/http: tapd replay did not start" >&2
	cat "$tmp/replay.err" >&2
	exit 1
}
header "tapd replay --pace $pace (${duration} s session, $want gestures)"
urls "http://127.0.0.1:$port" "http+replay:"
done_before=no
grep -q '^replay done' "$tmp/replay.out" && done_before=yes
for _ in $(seq 1 $((duration * 10 + 600))); do
	grep -q '^replay done' "$tmp/replay.out" && break
	sleep 0.1
done
kill -INT "$server"
wait "$server" 2>/dev/null || true
server=
stored=$(sed -n 's/^stored *\([0-9]*\) rows.*/\1/p' "$tmp/replay.out")
in_db=$(sqlite3 "$tmp/live.db" 'SELECT count(*) FROM taps WHERE run = (SELECT max(id) FROM runs)')
if [ "${stored:-x}" = "$want" ] && [ "$in_db" = "$want" ]; then
	verdict="all stored"
else
	verdict=MISSING
	status=1
fi
echo
echo "replay: stored ${stored:-?} rows, $in_db of its run in the file, $want in the simulator's truth: $verdict (replay ended during the runs: $done_before)"
echo "bench-row: http+replay: taps stored|$in_db|simulator truth $want|$verdict"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
exit "$status"
