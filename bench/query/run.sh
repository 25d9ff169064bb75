#!/usr/bin/env bash
# Percentile queries on a large database: fills a tapd database with
# 1,000,000 gestures over 30 days for 20 apps (bench/query/fill.c, through
# the store's own writer), serves it with `tapd serve`, and reports the
# median time of REQUESTS calls of /v1/percentiles (p50, p90, p99 of
# first_frame) for the busiest app over the whole range and over one day,
# and for every app over one day, next to the same percentiles computed by
# the sqlite3 shell with a plain ORDER BY ... LIMIT 1 OFFSET k query on
# the same file.  Prints both answers, which must agree (exact) or differ
# by at most the reported error (histogram).
#
#   bench/query/run.sh [GESTURES [REQUESTS]]    (default 1000000 21)
#
# BENCH_DB=FILE keeps the database there and reuses it when it exists
# (the fill takes minutes); otherwise it goes to a temporary directory.
# Run from the repository root, after make.
set -eu

build=${BUILD:-build}
taps=${1:-1000000}
reps=${2:-21}
cli_reps=5
days=30
# 2025-12-01T00:00:00Z: a fixed end, so that reruns fill the same file.
end=1764547200
app=com.bench.app00

for tool in curl jq sqlite3 cc; do
	command -v "$tool" >/dev/null || {
		echo "bench/query: '$tool' is missing: run make deps" >&2
		exit 1
	}
done
[ -x "$build/tapd" ] && [ -f "$build/libtapd.a" ] || {
	echo "bench/query: run make first" >&2
	exit 1
}

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
db=${BENCH_DB:-$tmp/bench.db}

# The filler links the daemon's own store, migrations and all.
cc -std=gnu11 -D_GNU_SOURCE -O2 -Idaemon \
	$(pkg-config --cflags sqlite3 libevdev libcjson libmicrohttpd) \
	-o "$tmp/fill" bench/query/fill.c "$build/libtapd.a" \
	$(pkg-config --libs sqlite3 libevdev libcjson libmicrohttpd) -lm -lpthread

if [ -s "$db" ]; then
	echo "reusing $db ($(sqlite3 "$db" 'SELECT count(*) FROM taps') gestures)"
	# A file of an older tapd: opening it with the writer migrates it.
	"$tmp/fill" --db "$db" --taps 0 2>/dev/null
else
	FILL_CACHE_KB=65536 "$tmp/fill" --db "$db" --taps "$taps" \
		--days "$days" --end "$end"
fi
echo "file: $(du -m "$db" | cut -f1) MiB, tap_hist rows: $(sqlite3 "$db" 'SELECT count(*) FROM tap_hist')"
# What each structure costs on disk (dbstat: the pages of each b-tree).
echo
sqlite3 -separator ' ' "$db" "SELECT name, count(*), sum(pgsize) FROM dbstat
	GROUP BY name ORDER BY sum(pgsize) DESC" |
	awk '$3 >= 65536 || $1 ~ /^tap_(counts|hist_sum)$/ {
		printf "%-24s %8.1f MiB  %7d pages\n", $1, $3 / 1048576, $2
	}'

"$build/tapd" serve --db "$db" --listen 127.0.0.1:0 >"$tmp/serve.out" \
	2>"$tmp/serve.err" &
server=$!
port=
for _ in $(seq 1 100); do
	port=$(sed -n '1s|^listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
		"$tmp/serve.out")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || {
	echo "bench/query: tapd serve did not start" >&2
	cat "$tmp/serve.err" >&2
	exit 1
}

median() {
	sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

# api QUERY: median ms of REQUESTS requests; the last body in $tmp/body.
api() {
	for _ in $(seq 1 "$reps"); do
		curl -sS --max-time 60 -o "$tmp/body" -w '%{time_total}\n' \
			"http://127.0.0.1:$port/v1/percentiles?$1"
	done | awk '{print $1 * 1000}' | median
}

# cli APP_WHERE: the three percentiles by the sqlite3 shell, each a plain
# ORDER BY ... LIMIT 1 OFFSET k with k from a count done beforehand (not
# timed); prints the median ms of the process and the values.
cli() {
	local where=$1 n k sql=""
	n=$(sqlite3 "$db" "SELECT count(*) FROM taps WHERE $where")
	for p in 50 90 99; do
		k=$(((n * p + 99) / 100 - 1))
		sql="$sql SELECT first_frame_ns FROM taps WHERE $where ORDER BY first_frame_ns LIMIT 1 OFFSET $k;"
	done
	for _ in $(seq 1 "$cli_reps"); do
		local t0 t1
		t0=$(date +%s%N)
		sqlite3 "$db" "$sql" >"$tmp/cli.out"
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | awk '{print $1 / 1000}' | median
	echo "$n $(awk '{printf "%.3f ", $1 / 1e6}' "$tmp/cli.out")"
}

printf '\n%-32s %7s  %-24s %-9s %6s %8s  %-24s %10s  %s\n' case taps \
	"API p50/p90/p99 ms" method "±ms" "API ms" "sqlite3 p50/p90/p99 ms" \
	"sqlite3 ms" check
run() {
	local name=$1 query=$2 where=$3 ms cli_out cli_ms vals n verdict
	ms=$(api "$query")
	vals=$(jq -r '"\(.percentiles["50"])/\(.percentiles["90"])/\(.percentiles["99"])"' "$tmp/body")
	cli_out=$(cli "$where")
	cli_ms=$(printf '%s\n' "$cli_out" | head -n 1)
	read -r n c50 c90 c99 <<<"$(printf '%s\n' "$cli_out" | tail -n 1)"
	# The API's count must be the shell's, and its values the same
	# (exact) or within the error it reports (histogram), give or take
	# the two roundings to the microsecond.
	if jq -e --argjson n "$n" --argjson c "[$c50, $c90, $c99]" '
		(.max_error_ms // 0) as $e
		| [.percentiles["50"], .percentiles["90"], .percentiles["99"]]
		  as $a
		| .count == $n
		  and ([range(3) | ($a[.] - $c[.]) | fabs <= $e + 0.0015]
		       | all)' "$tmp/body" >/dev/null; then
		verdict=$(jq -r 'if .method == "exact" then "same" else "within ±" end' "$tmp/body")
	else
		verdict=MISMATCH
		status=1
	fi
	printf '%-32s %7s  %-24s %-9s %6s %8.1f  %-24s %10.1f  %s\n' "$name" \
		"$(jq .count "$tmp/body")" "$vals" "$(jq -r .method "$tmp/body")" \
		"$(jq -r '.max_error_ms // "-"' "$tmp/body")" "$ms" \
		"$c50/$c90/$c99" "$cli_ms" "$verdict"
	rows="$rows
bench-row: query: /v1/percentiles, $name, ms|$ms ($verdict)|sqlite3 $cli_ms|$(ratio "$ms" "$cli_ms")"
}

# ratio A B: how many times A ms (tapd) is faster than B ms (the shell).
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a <= 0 || b <= 0) print "-"
		else if (b >= 10 * a) printf "%.0fx faster\n", b / a
		else if (b >= a) printf "%.1fx faster\n", b / a
		else printf "%.1fx slower\n", a / b
	}'
}
rows=
status=0
since30=$((end - days * 86400))
since1=$((end - 86400))
ok="status = 'ok'"
run "$app, 30 days" "app=$app&p=50,90,99&since=$since30&until=$end" \
	"app = '$app' AND $ok AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000"
run "$app, 30 days, exact" "app=$app&p=50,90,99&since=$since30&until=$end&method=exact" \
	"app = '$app' AND $ok AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000"
run "$app, 1 day" "app=$app&p=50,90,99&since=$since1&until=$end" \
	"app = '$app' AND $ok AND wall_ns BETWEEN ${since1}000000000 AND ${end}000000000"
run "$app, all time" "app=$app&p=50,90,99" "app = '$app' AND $ok"
run "com.bench.app19, 30 days" "app=com.bench.app19&p=50,90,99&since=$since30&until=$end" \
	"app = 'com.bench.app19' AND $ok AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000"
run "all apps, 30 days" "p=50,90,99&since=$since30&until=$end" \
	"$ok AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000"
run "all apps, 1 day" "p=50,90,99&since=$since1&until=$end" \
	"$ok AND wall_ns BETWEEN ${since1}000000000 AND ${end}000000000"
run "all apps, 1 day, exact" "p=50,90,99&since=$since1&until=$end&method=exact" \
	"$ok AND wall_ns BETWEEN ${since1}000000000 AND ${end}000000000"
echo
echo "API ms: median of $reps requests (curl time_total); sqlite3 ms: median of $cli_reps runs of the shell, three OFFSET queries"

# shell_ms SQL: median ms of cli_reps runs of the sqlite3 shell on SQL,
# its output in $tmp/shell.out.
shell_ms() {
	for _ in $(seq 1 "$cli_reps"); do
		local t0 t1
		t0=$(date +%s%N)
		sqlite3 "$db" "$1" >"$tmp/shell.out"
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | awk '{print $1 / 1000}' | median
}

# Before and after on the same file.  Before is what the previous
# version's statements cost, run by the sqlite3 shell: the count of every
# app's gestures by status through (app, status, wall_ns), which was most
# of /v1/apps, and the exact path's count and sort of the range up to its
# highest rank.  After is the API's answer now, whose counts must be the
# same.
echo
printf '%-40s %10s %12s  %s\n' case "before ms" "after ms" check
apps_case() {
	local name=$1 query=$2 where=$3 ms old verdict
	ms=$(for _ in $(seq 1 "$reps"); do
		curl -sS --max-time 60 -o "$tmp/apps" -w '%{time_total}\n' \
			"http://127.0.0.1:$port/v1/apps$query"
	done | awk '{print $1 * 1000}' | median)
	old=$(shell_ms "SELECT app, status, count(*) FROM taps INDEXED BY
		taps_app_status_wall WHERE $where GROUP BY app, status
		ORDER BY app, status")
	if [ "$(jq -r '.apps[] | .app as $a | .statuses | to_entries[]
		| select(.value > 0) | "\($a)|\(.key)|\(.value)"' "$tmp/apps" |
		sort)" = "$(sort "$tmp/shell.out")" ]; then
		verdict="same counts"
	else
		verdict=MISMATCH
		status=1
	fi
	printf '%-40s %10.1f %12.1f  %s\n' "$name" "$old" "$ms" "$verdict"
	rows="$rows
bench-row: query: $name, ms|$ms ($verdict)|sqlite3, old statements $old|$(ratio "$ms" "$old")"
}
apps_case "GET /v1/apps, all time" "" "1"
apps_case "GET /v1/apps, 30 days" "?since=$since30&until=$end" \
	"wall_ns BETWEEN ${since30}000000000 AND ${end}000000000"
apps_case "GET /v1/apps, 1 day" "?since=$since1&until=$end" \
	"wall_ns BETWEEN ${since1}000000000 AND ${end}000000000"
exact_case() {
	local name=$1 query=$2 where=$3 index=$4 n k ms old verdict
	n=$(sqlite3 "$db" "SELECT count(*) FROM taps WHERE $where")
	k=$(((n * 99 + 99) / 100))
	ms=$(api "$query&p=50,90,99&method=exact")
	old=$(shell_ms "SELECT count(*) FROM taps INDEXED BY $index
		WHERE $where; SELECT max(first_frame_ns) FROM (SELECT
		first_frame_ns FROM taps INDEXED BY $index WHERE $where
		ORDER BY first_frame_ns LIMIT $k)")
	verdict=$(jq -r --argjson n "$n" --argjson v "$(tail -n 1 "$tmp/shell.out")" \
		'if .count == $n and .method == "exact"
		    and (.percentiles["99"] - $v / 1e6 | fabs) < 0.0006
		 then "same p99" else "MISMATCH" end' "$tmp/body")
	[ "$verdict" = MISMATCH ] && status=1
	printf '%-40s %10.1f %12.1f  %s\n' "$name" "$old" "$ms" "$verdict"
	rows="$rows
bench-row: query: $name, ms|$ms ($verdict)|sqlite3, old statements $old|$(ratio "$ms" "$old")"
}
measured="status = 'ok' AND kind IN ('tap', 'long_press') AND first_frame_ns IS NOT NULL"
exact_case "exact p50/90/99, $app, 30 days" \
	"app=$app&since=$since30&until=$end" \
	"app = '$app' AND $measured AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000" \
	taps_app_status_wall
exact_case "exact p50/90/99, $app, all time" "app=$app" \
	"app = '$app' AND $measured" taps_app_status_wall
exact_case "exact p50/90/99, all apps, 30 days" \
	"since=$since30&until=$end" \
	"$measured AND wall_ns BETWEEN ${since30}000000000 AND ${end}000000000" \
	taps_wall
echo
echo "after: the API, median of $reps requests; before: the previous version's statements in the sqlite3 shell, median of $cli_reps runs (process start included)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# The lines bench/run.sh collects into its table.
printf '%s\n' "$rows" | sed '/^$/d'
exit "$status"
