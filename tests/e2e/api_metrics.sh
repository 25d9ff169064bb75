#!/usr/bin/env bash
# End to end test of GET /metrics: serve a replayed simulator database and
# check the exposition with promtool (Debian package prometheus) and
# against the database itself (sqlite3): the tap counters by app and
# status, the gestures by kind, every histogram bucket, count and sum.
# Then a replay that serves while it runs (--listen) must expose the same
# pipeline counters as its /v1/health.  Run from the repository root; BUILD
# names the build directory (default build).  Ends with
# "api_metrics: N passed, N failed" and exits non-zero on any failure.
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
CURL=(curl -sS --max-time 10)

NAME=api_metrics
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq sqlite3 promtool

work_dir api-metrics

sql() {
	sqlite3 -readonly -batch -noheader -separator ' ' "$db" "$1"
}

serve_session long 3 120
ok "tapd serve listens on $url"

before=$(date +%s)
code=$("${CURL[@]}" -D "$work/headers" -o "$work/metrics" -w '%{http_code}' \
	"$url/metrics")
if [ "$code" = 200 ]; then
	ok "GET /metrics is 200"
else
	ko "GET /metrics is $code" "$(head -c 300 "$work/metrics")"
	finish
fi

ctype=$(sed -n 's/^[Cc]ontent-[Tt]ype: *//p' "$work/headers" | tr -d '\r')
if [ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ]; then
	ok "content type of the text format 0.0.4"
else
	ko "content type is '$ctype'"
fi

if promtool check metrics <"$work/metrics" >"$work/promtool.out" 2>&1; then
	ok "promtool check metrics"
else
	ko "promtool check metrics" "$(head -n 20 "$work/promtool.out")"
fi

# Every family has HELP and TYPE, and every name has the tapd_ prefix.
n_type=$(grep -c '^# TYPE ' "$work/metrics")
n_help=$(grep -c '^# HELP ' "$work/metrics")
foreign=$(grep -v '^#' "$work/metrics" | grep -vc '^tapd_')
if [ "$n_type" -ge 15 ] && [ "$n_type" = "$n_help" ] && [ "$foreign" = 0 ]; then
	ok "$n_type families, each with HELP and TYPE, all tapd_"
else
	ko "families: $n_type TYPE, $n_help HELP, $foreign samples not tapd_"
fi

# The value of one sample, given its name and labels exactly.
sample() {
	awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); f = 1 }
		END { if (!f) print "missing" }' "$work/metrics"
}

# tapd_taps_total by app and status against the database: every row of a
# measured kind, apps without a name under "unknown".
sql "SELECT coalesce(app, 'unknown'), status, count(*) FROM taps
     WHERE kind IN ('tap', 'long_press') GROUP BY 1, 2 ORDER BY 1, 2" \
	>"$work/db_taps"
sed -n 's/^tapd_taps_total{app="\(.*\)",status="\([a-z_]*\)"} \([0-9]*\)$/\1 \2 \3/p' \
	"$work/metrics" | awk '$3 != 0' | sort >"$work/m_taps"
sort -o "$work/db_taps" "$work/db_taps"
if [ -s "$work/db_taps" ] && diff -u "$work/db_taps" "$work/m_taps" >"$work/diff"; then
	ok "tapd_taps_total equals the database by app and status ($(wc -l <"$work/db_taps") series)"
else
	ko "tapd_taps_total differs from the database" "$(head -n 20 "$work/diff")"
fi

# Gestures by kind, every kind shown even when zero.
all_ok=1
details=()
for kind in tap long_press swipe multi; do
	want=$(sql "SELECT count(*) FROM taps WHERE kind = '$kind'")
	got=$(sample "tapd_gestures_total{kind=\"$kind\"}")
	if [ "$want" != "$got" ]; then
		all_ok=0
		details+=("$kind: database $want, metrics $got")
	fi
done
if [ "$all_ok" = 1 ]; then
	ok "tapd_gestures_total equals the database for every kind"
else
	ko "tapd_gestures_total" "${details[@]}"
fi

# Every bucket, count and sum of both histograms, for every app: the
# database counts the ok taps at or under each bound.
# The default bounds, built from buckets.h's words: 10 ms, every
# millisecond to 60 ms, then each bound 2% above the last, floored to
# 0.1 ms (1 ms from 1 s), up to 10 s; each with its le label.
bounds=()
les=()
while read -r b le; do
	bounds+=("$b")
	les+=("$le")
done < <(awk 'BEGIN {
	v = 10000000; print v
	while (v < 60000000) { v += 1000000; print v }
	for (;;) {
		g = v < 1000000000 ? 100000 : 1000000
		n = int((v + int(v / 50)) / g) * g
		if (n >= 10000000000) break
		v = n; print v
	}
	print 10000000000
}' | awk '{ s = sprintf("%d.%09d", int($1 / 1e9), $1 % 1e9)
	sub(/0+$/, "", s); sub(/\.$/, "", s); print $1, s }')
nb=${#bounds[@]}
if [ "$nb" = 313 ]; then
	ok "the default buckets: 313 bounds from 10 ms to 10 s"
else
	ko "the default buckets: $nb bounds, not 313"
fi
for metric in first_frame settle; do
	col=${metric}_ns
	fam=tapd_tap_${metric}_seconds
	cols=""
	for b in "${bounds[@]}"; do
		cols="$cols, sum($col <= $b)"
	done
	sql "SELECT coalesce(app, 'unknown') $cols, count(*), sum($col)
	     FROM taps WHERE status = 'ok' AND kind IN ('tap', 'long_press')
	     AND $col IS NOT NULL GROUP BY 1 ORDER BY 1" >"$work/db_hist"
	all_ok=1
	details=()
	napps=0
	while read -r app rest; do
		napps=$((napps + 1))
		read -r -a v <<<"$rest"
		for i in "${!les[@]}"; do
			got=$(sample "${fam}_bucket{app=\"$app\",le=\"${les[$i]}\"}")
			if [ "$got" != "${v[$i]}" ]; then
				all_ok=0
				details+=("$app le=${les[$i]}: database ${v[$i]}, metrics $got")
			fi
		done
		inf=$(sample "${fam}_bucket{app=\"$app\",le=\"+Inf\"}")
		count=$(sample "${fam}_count{app=\"$app\"}")
		if [ "$inf" != "${v[nb]}" ] || [ "$count" != "${v[nb]}" ]; then
			all_ok=0
			details+=("$app: database $((v[nb])) taps, +Inf $inf, _count $count")
		fi
		sum=$(sample "${fam}_sum{app=\"$app\"}")
		if ! awk -v a="$sum" -v b="${v[nb + 1]}" \
			'BEGIN { d = a - b / 1e9; exit !(d < 1e-6 && d > -1e-6) }'; then
			all_ok=0
			details+=("$app: _sum $sum, database ${v[nb + 1]} ns")
		fi
	done <"$work/db_hist"
	if [ "$all_ok" = 1 ] && [ "$napps" -gt 0 ]; then
		ok "$fam: buckets, count and sum equal the database ($napps apps)"
	else
		ko "$fam differs from the database ($napps apps)" \
			"${details[@]:0:10}"
	fi
done

version=$("$TAPD" --version | sed -n 's/^tapd //p')
got=$(sample "tapd_build_info{version=\"$version\"}")
if [ "$got" = 1 ]; then
	ok "tapd_build_info names version $version"
else
	ko "tapd_build_info{version=\"$version\"} is $got"
fi

start=$(sample tapd_start_time_seconds)
now=$(date +%s)
if awk -v s="$start" -v b="$before" -v n="$now" \
	'BEGIN { exit !(s >= b - 120 && s <= n + 1) }'; then
	ok "tapd_start_time_seconds is when serve started"
else
	ko "tapd_start_time_seconds $start, test ran from $before to $now"
fi

got=$(sample 'tapd_source_up{source="store",kind="sqlite"}')
if [ "$got" = 1 ]; then
	ok "the store is up"
else
	ko "tapd_source_up of the store is $got"
fi

# No parameter is accepted; errors are JSON.
code=$("${CURL[@]}" -o "$work/err" -w '%{http_code}' "$url/metrics?app=x")
if [ "$code" = 400 ] &&
	jq -e '.error.code == "bad_request" and (.error.message | length > 0)' \
		"$work/err" >/dev/null 2>&1; then
	ok "a parameter is a 400 with a JSON error"
else
	ko "GET /metrics?app=x is $code" "$(head -c 300 "$work/err")"
fi
code=$("${CURL[@]}" -o "$work/err" -w '%{http_code}' -X POST "$url/metrics")
if [ "$code" = 405 ] && jq -e '.error.code' "$work/err" >/dev/null 2>&1; then
	ok "POST /metrics is a 405 with a JSON error"
else
	ko "POST /metrics is $code" "$(head -c 300 "$work/err")"
fi

# Two scrapes give the same tap metrics: nothing changes a served database.
"${CURL[@]}" -o "$work/metrics2" "$url/metrics"
if diff <(grep -v -e '^tapd_start_time' -e '^#' "$work/metrics") \
	<(grep -v -e '^tapd_start_time' -e '^#' "$work/metrics2") >/dev/null; then
	ok "a second scrape gives the same samples"
else
	ko "a second scrape differs"
fi

# A replay that serves while it runs: once the input is read to its end,
# the pipeline counters of /metrics are those of /v1/health, and the tap
# counters those of its database.
live="$work/live.db"
if start_server "$work/live.out" "$TAPD" replay --session "$dir" --db "$live" \
	--listen 127.0.0.1:0; then
	# The end of the replay: its "replay done" line on stdout, or its
	# input source reported done.
	done_=""
	for i in $(seq 600); do
		if grep -q '^replay done' "$work/live.out"; then
			done_=done
			break
		fi
		if [ $((i % 10)) = 0 ]; then
			"${CURL[@]}" -o "$work/health" "$url/v1/health" 2>/dev/null
			done_=$(jq -r '.sources.input.health' "$work/health" 2>/dev/null)
			[ "$done_" = done ] && break
		fi
		sleep 0.1
	done
	sleep 0.3
	"${CURL[@]}" -o "$work/health" "$url/v1/health"
	"${CURL[@]}" -o "$work/metrics" "$url/metrics"
	if [ "$done_" = done ] && promtool check metrics <"$work/metrics" \
		>"$work/promtool.out" 2>&1; then
		ok "a live replay's /metrics passes promtool"
	else
		ko "live replay: input '$done_', promtool:" \
			"$(head -n 10 "$work/promtool.out")"
	fi
	all_ok=1
	details=()
	for pair in input_events:tapd_input_events_total \
		syn_dropped:tapd_input_syn_dropped_total \
		input_lines_skipped:tapd_input_lines_skipped_total \
		frames_read:tapd_frames_read_total \
		packets_read:tapd_frame_packets_total \
		packets_dropped:tapd_frame_packets_dropped_total \
		taps_pending:tapd_taps_pending \
		rows_stored:tapd_rows_stored_total \
		rows_lost:tapd_rows_lost_total; do
		want=$(jq -r ".counters.${pair%%:*}" "$work/health")
		got=$(sample "${pair#*:}")
		if [ "$want" != "$got" ]; then
			all_ok=0
			details+=("${pair#*:}: $got, /v1/health says $want")
		fi
	done
	if [ "$all_ok" = 1 ] &&
		[ "$(sample tapd_input_events_total)" -gt 0 ] 2>/dev/null; then
		ok "live counters equal /v1/health ($(sample tapd_input_events_total) input events)"
	else
		ko "live counters" "${details[@]}"
	fi
	got=$(grep -c '^tapd_source_up{source="input",kind="[^"]*"} 1$' "$work/metrics")
	if [ "$got" = 1 ]; then
		ok "the replayed input source is up (done)"
	else
		ko "no tapd_source_up of the input at 1" \
			"$(grep '^tapd_source_up' "$work/metrics")"
	fi
	db=$live
	sql "SELECT coalesce(app, 'unknown'), status, count(*) FROM taps
	     WHERE kind IN ('tap', 'long_press') GROUP BY 1, 2 ORDER BY 1, 2" |
		sort >"$work/db_taps"
	sed -n 's/^tapd_taps_total{app="\(.*\)",status="\([a-z_]*\)"} \([0-9]*\)$/\1 \2 \3/p' \
		"$work/metrics" | awk '$3 != 0' | sort >"$work/m_taps"
	if [ -s "$work/db_taps" ] && diff -u "$work/db_taps" "$work/m_taps" >"$work/diff"; then
		ok "live tapd_taps_total equals the database"
	else
		ko "live tapd_taps_total differs from the database" \
			"$(head -n 20 "$work/diff")"
	fi
else
	ko "tapd replay --listen did not say where it listens" \
		"$(tail -n 5 "$work/live.out.err")"
fi

finish
