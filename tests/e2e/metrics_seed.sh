#!/usr/bin/env bash
# End to end test of the metrics' seed: every command that serves the API
# starts its counters from what the database already holds.  Two replays
# into one database, then a third with --listen: its /metrics must count
# the taps of all three, by status and by app, as the database does (the
# sqlite3 shell), and so must `tapd serve` over the same file afterwards.
# Run from the repository root; BUILD names the build directory (default
# build).  Ends with "metrics_seed: N passed, N failed".
set -u

NAME=metrics_seed
. "$(dirname "$0")/lib/report.sh"

BUILD=${BUILD:-build}
tapd="$BUILD/tapd"
sim="$BUILD/tapd-sim"
CURL=(curl -sS --max-time 10)

need_bins "$tapd" "$sim"
need_tools curl sqlite3

. "$(dirname "$0")/lib/server.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapd-metrics-seed.XXXXXX") || exit 1
cleanup() {
	stop_servers
	rm -rf "$tmp"
}
trap cleanup EXIT

# Waits up to 60 s for a line matching $2 in file $1, while pid $3 lives.
wait_line() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "$2" "$1" 2>/dev/null
}

# The taps by status, then by app and status, as the database has them.
db_counts() {
	sqlite3 -readonly -batch -noheader -separator ' ' "$db" \
		"SELECT status, count(*) FROM taps
		 WHERE kind IN ('tap', 'long_press') GROUP BY 1 ORDER BY 1"
}
db_counts_by_app() {
	sqlite3 -readonly -batch -noheader -separator ' ' "$db" \
		"SELECT coalesce(app, 'unknown'), status, count(*) FROM taps
		 WHERE kind IN ('tap', 'long_press') GROUP BY 1, 2" | sort
}

# The same from a /metrics exposition in file $1.
m_counts_by_app() {
	sed -n 's/^tapd_taps_total{app="\(.*\)",status="\([a-z_]*\)"} \([0-9]*\)$/\1 \2 \3/p' \
		"$1" | awk '$3 != 0' | sort
}
m_counts() {
	m_counts_by_app "$1" |
		awk '{ n[$2] += $3 } END { for (s in n) print s, n[s] }' | sort
}

for seed in 1 2 3; do
	if ! "$sim" gen --scenario mixed --seed "$seed" --out "$tmp/s$seed" \
		>"$tmp/gen$seed.log" 2>&1; then
		ko "tapd-sim gen --seed $seed: $(tail -n 3 "$tmp/gen$seed.log")"
		finish
	fi
done

db="$tmp/taps.db"
# The first without frames, so that the database holds frames_unavailable
# taps the third replay never makes itself.
"$tapd" replay --session "$tmp/s1" --frames none --db "$db" \
	>"$tmp/r1.out" 2>&1
check "first replay (--frames none): exit 0" 0 $?
"$tapd" replay --session "$tmp/s2" --db "$db" >"$tmp/r2.out" 2>&1
check "second replay: exit 0" 0 $?

if ! start_server "$tmp/r3.out" "$tapd" replay --session "$tmp/s3" --db "$db" \
	--listen 127.0.0.1:0 ||
	! wait_line "$tmp/r3.out" '^replay done; serving' "$pid"; then
	ko "replay --listen did not finish: $(tail -n 3 "$tmp/r3.out.err")"
	finish
fi
ok "third replay serves on $url"

"${CURL[@]}" -o "$tmp/m3" "$url/metrics"
check "GET /metrics of replay --listen" 0 $?
db_counts >"$tmp/db"
m_counts "$tmp/m3" >"$tmp/m"
if grep -q '^frames_unavailable ' "$tmp/db" && [ "$(wc -l <"$tmp/db")" -ge 2 ]; then
	ok "the database holds $(wc -l <"$tmp/db") statuses, frames_unavailable among them"
else
	ko "the database lacks the statuses the test needs: $(tr '\n' ';' <"$tmp/db")"
fi
check "replay --listen: taps by status as in the database" \
	"$(cat "$tmp/db")" "$(cat "$tmp/m")"
check "replay --listen: taps by app and status as in the database" \
	"$(db_counts_by_app)" "$(m_counts_by_app "$tmp/m3")"
check "replay --listen: tapd_gestures_total{kind=\"tap\"} as in the database" \
	"$(sqlite3 -readonly "$db" "SELECT count(*) FROM taps WHERE kind = 'tap'")" \
	"$(sed -n 's/^tapd_gestures_total{kind="tap"} //p' "$tmp/m3")"
stop_server "$pid"
check "replay --listen: SIGTERM ends it with exit 0" 0 "$status"

# tapd serve over the same database says the same.
if ! start_server "$tmp/serve.out" "$tapd" serve --db "$db" --listen 127.0.0.1:0; then
	ko "tapd serve did not listen: $(tail -n 3 "$tmp/serve.out.err")"
	finish
fi
"${CURL[@]}" -o "$tmp/ms" "$url/metrics"
check "GET /metrics of tapd serve" 0 $?
check "tapd serve: taps by status as in the database" \
	"$(cat "$tmp/db")" "$(m_counts "$tmp/ms")"
check "tapd serve and replay --listen agree by app and status" \
	"$(m_counts_by_app "$tmp/m3")" "$(m_counts_by_app "$tmp/ms")"
kill -TERM "$pid"
wait "$pid"
check "tapd serve: SIGTERM ends it with exit 0" 0 $?

finish
