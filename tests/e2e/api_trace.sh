#!/usr/bin/env bash
# GET /v1/trace over real HTTP, on simulated sessions replayed by tapd
# (mixed, and 2 minutes of long for several apps) plus rows made to be
# awkward: taps whose slices overlap, overlapping frames, more frames and
# more taps than one export holds.  Checks that the trace is Trace Event
# Format JSON that a viewer accepts: every X event has ph, ts, dur, pid,
# tid; X events nest properly on each track; metadata names every process
# and track; each gesture appears once and each measured tap is one slice;
# and the filters, limits and 400s.  Run from the repository root; BUILD
# names the build directory (default build).
#
# The jq programs are single-quoted on purpose, and cleanup runs from the
# trap:
# shellcheck disable=SC2016,SC2317
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=api_trace

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_tools curl jq sqlite3
need_bins "$TAPD" "$SIM"

work_dir api-trace

# session NAME SCENARIO [ARGS...]: generates and replays a session into
# $work/NAME/taps.db.
session() {
	local dir="$work/$1" scenario=$2
	shift 2
	if ! "$SIM" gen --scenario "$scenario" --seed 1 --out "$dir" "$@" \
		>"$work/gen.log" 2>&1 ||
		! "$TAPD" replay --session "$dir" --db "$dir/taps.db" \
			>"$work/replay.log" 2>&1; then
		ko "session $scenario: gen or replay failed"
		sed 's/^/    /' "$work/gen.log" "$work/replay.log"
		finish
	fi
}

# serve DB: starts tapd serve on a free port; sets $url.
serve() {
	local out="$work/serve.$RANDOM"
	if ! start_server "$out" "$TAPD" serve --db "$1" --listen 127.0.0.1:0; then
		ko "tapd serve '$1' did not say where it listens"
		sed 's/^/    /' "$out.err"
		finish
	fi
	url="$url/v1/trace"
}

# get QUERY FILE: the body into FILE; prints the HTTP status.
get() {
	curl -sS --max-time 60 -o "$2" -w '%{http_code}' "$url?$1" \
		2>"$work/curl.err"
}

# The structural rules of the Trace Event Format, as jq programs over a
# trace.  Each prints a number that must be 0.
#
# X events: ph, name, numeric ts, dur >= 0, pid, tid.
jq_bad_x='[.traceEvents[] | select(.ph == "X") |
	select((.name | type) != "string" or (.ts | type) != "number" or
	       (.dur | type) != "number" or .dur < 0 or
	       (.pid | type) != "number" or (.tid | type) != "number")] | length'
# Instants: ts, pid, tid and the thread scope.
jq_bad_i='[.traceEvents[] | select(.ph == "i") |
	select((.ts | type) != "number" or (.pid | type) != "number" or
	       (.tid | type) != "number" or .s != "t")] | length'
# Nesting: on each (pid, tid), sorted by ts (longer first on ties), every
# X event either ends before the next starts or contains it: a stack of
# open ends, popped of those that ended by the event's start, must have
# on top an end no earlier than the event's own.
jq_bad_nest='[.traceEvents[] | select(.ph == "X")] | group_by([.pid, .tid]) |
	map(sort_by([.ts, -.dur]) |
	    reduce .[] as $e ({s: [], bad: 0};
		.s |= map(select(. > $e.ts)) |
		(if (.s | length) > 0 and $e.ts + $e.dur > .s[-1]
		 then .bad += 1 else . end) |
		.s += [$e.ts + $e.dur]) | .bad) | add // 0'
# Every pid of an event has a process_name, every (pid, tid) a
# thread_name.
jq_unnamed='([.traceEvents[] | select(.ph == "M" and .name == "process_name")
	     | .pid] | unique) as $procs |
	([.traceEvents[] | select(.ph == "M" and .name == "thread_name")
	     | [.pid, .tid]] | unique) as $threads |
	[.traceEvents[] | select(.ph != "M") |
	 select((.pid as $p | $procs | index($p)) == null or
		([.pid, .tid] as $t | $threads | index([$t])) == null)] | length'
# Each tap's slice lasts its settle time (to the microsecond, both ends
# rounded), its first-frame slice its first_frame time.
jq_bad_dur='[.traceEvents[] | select(.ph == "X" and .cat == "tap") |
	select((.dur - .args.settle_ms * 1000) | fabs > 1)] | length'

# structure NAME FILE: the rules above on one trace.
structure() {
	local name=$1 f=$2
	if ! jq -e '(.traceEvents | type) == "array" and
		.displayTimeUnit == "ms" and (.otherData | type) == "object"' \
		"$f" >/dev/null 2>&1; then
		ko "$name: not a trace object"
		return
	fi
	ok "$name: JSON trace object"
	check "$name: X events have ph, ts, dur, pid, tid" 0 \
		"$(jq "$jq_bad_x" "$f")"
	check "$name: instants have ts, pid, tid, s" 0 "$(jq "$jq_bad_i" "$f")"
	check "$name: X events nest on each track" 0 "$(jq "$jq_bad_nest" "$f")"
	check "$name: every process and track named" 0 \
		"$(jq "$jq_unnamed" "$f")"
	check "$name: tap slices last their settle time" 0 \
		"$(jq "$jq_bad_dur" "$f")"
}

# against_db NAME FILE DB WHERE: the trace against the database, for the
# taps WHERE selects (with a wall time).
against_db() {
	local name=$1 f=$2 db=$3 where="wall_ns IS NOT NULL AND ($4)"
	check "$name: tap slices = measured taps" \
		"$(sqlite3 "$db" "SELECT count(*) FROM taps WHERE $where AND
			kind IN ('tap', 'long_press') AND settle_ns IS NOT NULL")" \
		"$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "tap")] |
			length' "$f")"
	check "$name: every gesture once" \
		"$(sqlite3 "$db" "SELECT id FROM taps WHERE $where ORDER BY id" |
			tr '\n' ' ')" \
		"$(jq -r '[.traceEvents[] | select(.cat == "tap" or
			.cat == "gesture") | .args.id] | sort | map(tostring) |
			join(" ") + " "' "$f")"
	check "$name: every frame once" \
		"$(sqlite3 "$db" "SELECT count(*) FROM tap_frames WHERE tap_id IN
			(SELECT id FROM taps WHERE $where)")" \
		"$(jq '[.traceEvents[] | select(.cat == "frame")] | length' "$f")"
	check "$name: otherData.taps" \
		"$(sqlite3 "$db" "SELECT count(*) FROM taps WHERE $where")" \
		"$(jq '.otherData.taps' "$f")"
	check "$name: one process per app" \
		"$(sqlite3 "$db" "SELECT count(DISTINCT coalesce(app, ''))
			FROM taps WHERE $where")" \
		"$(jq '[.traceEvents[] | select(.name == "process_name")] |
			length' "$f")"
}

session mixed mixed
session long long --duration 120
mixed="$work/mixed/taps.db"
long="$work/long/taps.db"

# Awkward rows in the mixed database, app com.test.overlap, session 1:
# three long_presses 0.5 s apart whose slices last 2 s each, so each
# needs a track of its own, with 5 frames each that overlap one another.
base=$(sqlite3 "$mixed" 'SELECT max(wall_ns) FROM taps')
sqlite3 "$mixed" >"$work/fill.log" 2>&1 <<EOF || ko "filling '$mixed'"
INSERT INTO sessions (id, name, started_ns) VALUES (1, 'e2e', $base);
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 2)
INSERT INTO taps (run, session, app, pid, kind, status, flags, t_down_ns,
	t_up_ns, wall_ns, x, y, first_frame_ns, settle_ns, frames, jank)
SELECT 1, 1, 'com.test.overlap', 77, 'long_press', 'ok', 4,
	900000000000 + i * 500000000, 900500000000 + i * 500000000,
	$base + 10000000000 + i * 500000000, 10, 20, 40000000, 2000000000, 5, 1
FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 4)
INSERT INTO tap_frames (tap_id, seq, start_ns, present_ns, jank, in_burst)
SELECT t.id, k.i, t.t_up_ns + 10000000 * k.i,
	t.t_up_ns + 10000000 * k.i + 30000000 +
		CASE WHEN k.i = 4 THEN 1970000000 - 70000000 ELSE 0 END,
	CASE WHEN k.i = 2 THEN 64 ELSE 1 END, 1
FROM taps t, k WHERE t.app = 'com.test.overlap';
EOF

serve "$mixed"
status=$(get "" "$work/mixed.json")
check "mixed: HTTP 200" 200 "$status"
check "mixed: application/json" application/json "$(curl -sS --max-time 30 \
	-o /dev/null -w '%{content_type}' "$url" | cut -d';' -f1)"
structure mixed "$work/mixed.json"
against_db mixed "$work/mixed.json" "$mixed" 1
check "mixed: overlapping taps on 3 tracks" "1 2 3" \
	"$(jq -r '[.traceEvents[] | select(.cat == "tap" and .ph == "X" and
		.args.app == "com.test.overlap") | .tid] | unique | map(tostring)
		| join(" ")' "$work/mixed.json")"
check "mixed: overlapping frames on several tracks" true \
	"$(jq '[.traceEvents[] | select(.cat == "frame" and .ph == "X" and
		.args.tap != null) | .tid] | unique | length > 1' \
		"$work/mixed.json")"
check "mixed: first-frame slices inside their taps" \
	"$(jq '[.traceEvents[] | select(.cat == "tap" and .ph == "X" and
		.args.first_frame_ms != null)] | length' "$work/mixed.json")" \
	"$(jq '[.traceEvents[] | select(.cat == "first_frame")] | length' \
		"$work/mixed.json")"
check "mixed: not truncated" "false|null|0" \
	"$(jq -r '.otherData | [.truncated, .next_since, .overlaps] |
		map(tostring) | join("|")' "$work/mixed.json")"

# Filters: app, session, since/until (the middle of the mixed session).
status=$(get "app=com.test.overlap" "$work/app.json")
check "app filter: HTTP 200" 200 "$status"
structure "app filter" "$work/app.json"
against_db "app filter" "$work/app.json" "$mixed" "app = 'com.test.overlap'"
status=$(get "session=1" "$work/session.json")
against_db "session filter" "$work/session.json" "$mixed" "session = 1"
lo=$(sqlite3 "$mixed" "SELECT wall_ns FROM taps WHERE wall_ns IS NOT NULL
	ORDER BY wall_ns LIMIT 1 OFFSET 4")
hi=$(sqlite3 "$mixed" "SELECT wall_ns FROM taps WHERE wall_ns IS NOT NULL
	ORDER BY wall_ns LIMIT 1 OFFSET 14")
since=$(date -u -d "@$((lo / 1000000000))" +%Y-%m-%dT%H:%M:%S).$(printf '%09d' $((lo % 1000000000)))Z
status=$(get "since=$since&until=$((hi / 1000000000)).$(printf '%09d' $((hi % 1000000000)))" \
	"$work/range.json")
check "since/until: HTTP 200" 200 "$status"
structure "since/until" "$work/range.json"
against_db "since/until" "$work/range.json" "$mixed" \
	"wall_ns >= $lo AND wall_ns <= $hi"
check "since/until, both ends included: 11 taps" 11 "$(jq '.otherData.taps' "$work/range.json")"
status=$(get "app=no.such.app" "$work/empty.json")
check "no taps: an empty trace" "200 0 0" \
	"$status $(jq '.traceEvents | length' "$work/empty.json") $(jq \
		'.otherData.taps' "$work/empty.json")"

# 400s.
for q in foo=1 "since=$((hi / 1000000000))&until=$((lo / 1000000000 - 1))" \
	since=yesterday session=0 session=abc app= "app=a%2Cb" \
	"app=a&app=b"; do
	status=$(get "$q" "$work/err.json")
	check "400 for $q" "400 bad_request" \
		"$status $(jq -r '.error.code' "$work/err.json" 2>/dev/null)"
done

# Several apps and a longer session.
serve "$long"
status=$(get "" "$work/long.json")
check "long: HTTP 200" 200 "$status"
structure long "$work/long.json"
against_db long "$work/long.json" "$long" 1

# The limits.  300 taps that claim 1,000 frames each cost 2,002 events
# apiece, so 199 fit in 400,000; the 200th is where the next export
# starts.  100,005 swipes cost 2 each, so the 100,000-tap limit cuts
# first.  Both in a database of their own, made from the long one.
big="$work/big.db"
sqlite3 "$long" ".backup '$big'"
wall0=$(sqlite3 "$big" 'SELECT max(wall_ns) FROM taps')
sqlite3 "$big" >"$work/fill.log" 2>&1 <<EOF || ko "filling '$big'"
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 299)
INSERT INTO taps (run, app, kind, status, t_down_ns, t_up_ns, wall_ns,
	first_frame_ns, settle_ns, frames)
SELECT 1, 'com.test.big', 'tap', 'ok', 1000000000 * i, 1000000000 * i + 1,
	$wall0 + 1000000000 * (i + 1), 10000000, 20000000, 1000 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 100004)
INSERT INTO taps (run, app, kind, status, t_down_ns, t_up_ns, wall_ns)
SELECT 1, 'com.test.many', 'swipe', 'not_measured', 1000000 * i,
	1000000 * i + 1, $wall0 + 1000000 * (i + 1) FROM k;
EOF
serve "$big"
status=$(get "app=com.test.big" "$work/big.json")
check "event limit: HTTP 200" 200 "$status"
check "event limit: 199 taps, truncated, next_since = the 200th tap" \
	"199|true|$(sqlite3 "$big" "SELECT strftime('%Y-%m-%dT%H:%M:%S',
		wall_ns / 1000000000, 'unixepoch') ||
		printf('.%03dZ', wall_ns / 1000000 % 1000) FROM taps WHERE
		app = 'com.test.big' ORDER BY wall_ns LIMIT 1 OFFSET 199")" \
	"$(jq -r '.otherData | [.taps, .truncated, .next_since] |
		map(tostring) | join("|")' "$work/big.json")"
structure "event limit" "$work/big.json"
# Only the closing otherData is read: the 100,000 taps make ~40 MB.
status=$(get "app=com.test.many" "$work/many.json")
check "tap limit: HTTP 200" 200 "$status"
check "tap limit: 100000 taps, truncated" "100000|true" \
	"$(tail -c 2000 "$work/many.json" | sed 's/.*"otherData"://;s/}$//' |
		jq -r '[.taps, .truncated] | map(tostring) | join("|")')"
check "tap limit: as many instants as taps" 100000 \
	"$(grep -o '"cat":"gesture"' "$work/many.json" | wc -l)"

for pid in "${servers[@]}"; do
	kill -0 "$pid" 2>/dev/null || ko "a server died"
done
finish
