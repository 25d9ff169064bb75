#!/usr/bin/env bash
# GET /v1/taps over real HTTP: a database of 25,000 taps (a real tapd
# database, made by replaying a tiny getevent log, then filled with the
# sqlite3 shell), served by `tapd serve` on a free loopback port.  Checks
# that paging with after_id returns every id exactly once and in order at
# several page sizes, every filter against the same count done by sqlite3,
# the ndjson and csv formats, and the 400s.  Run from the repository root;
# BUILD names the build directory (default build).
#
# cleanup runs from the trap:
# shellcheck disable=SC2317
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
FIXTURE=tests/fixtures/getevent/emulator-tap.getevent
NAME=api_taps
N=25000

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_tools curl jq sqlite3
need_bins "$TAPD"

work_dir api-taps

db="$work/taps.db"
if ! "$TAPD" replay --input "getevent:$FIXTURE" --db "$db" \
	>"$work/replay.log" 2>&1; then
	ko "replay of '$FIXTURE'"
	sed 's/^/    /' "$work/replay.log"
	finish
fi

# 25,000 taps of varied app, kind, status, flags and wall time, newest
# first: tap i is i * 100 s + 50 s before now, so a duration filter's
# boundary ("7d" = now - 7 days) lies 50 s from any tap and the few
# seconds between this and the request cannot move a tap across it.
# Every 50th tap has no wall time; every 10th belongs to session 1; every
# 1000th has an app name that CSV must quote.
now=$(date +%s)
if ! sqlite3 "$db" >"$work/fill.log" 2>&1 <<EOF; then
DELETE FROM tap_frames;
DELETE FROM taps;
INSERT INTO sessions (id, name, started_ns) VALUES (1, 'e2e', $now * 1000000000);
WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $N)
INSERT INTO taps (run, session, app, pid, kind, status, flags, t_down_ns,
	t_up_ns, wall_ns, x, y, first_frame_ns, settle_ns, frames, jank,
	jank_tags)
SELECT 1,
	CASE WHEN i % 10 = 0 THEN 1 END,
	CASE WHEN i % 1000 = 7 THEN 'weird,"app"'
	     ELSE 'com.example.app' || (i % 5) END,
	1000 + i % 7,
	CASE i % 4 WHEN 0 THEN 'tap' WHEN 1 THEN 'long_press'
		   WHEN 2 THEN 'swipe' ELSE 'multi' END,
	CASE i % 3 WHEN 0 THEN 'ok' WHEN 1 THEN 'no_response'
		   ELSE 'frames_unavailable' END,
	i % 16,
	1000000000000 + ($N - i) * 100000000000,
	1000000000000 + ($N - i) * 100000000000 + 80000000,
	CASE WHEN i % 50 = 0 THEN NULL
	     ELSE ($now - i * 100 - 50) * 1000000000 END,
	i % 1080, i % 2400,
	CASE WHEN i % 3 = 0 THEN 30000000 + i * 1000 END,
	CASE WHEN i % 3 = 0 THEN 200000000 + i * 1000 END,
	CASE WHEN i % 3 = 0 THEN i % 20 + 1 ELSE 0 END,
	CASE WHEN i % 3 = 0 THEN 65 ELSE 0 END,
	CASE WHEN i % 3 = 0 THEN i % 4 ELSE 0 END
FROM seq;
EOF
	ko "filling the database"
	sed 's/^/    /' "$work/fill.log"
	finish
fi
count=$(sqlite3 "$db" 'SELECT count(*) FROM taps')
check "database holds $N taps" "$N" "$count"

serve_db "$db"
server=$pid
url="$url/v1/taps"

# get QUERY: the body on stdout, the status in $work/status.
get() {
	curl -sS --max-time 20 -o "$work/body" -w '%{http_code}' \
		"$url?$1" >"$work/status" 2>"$work/curl.err"
	cat "$work/body"
}

status() {
	cat "$work/status"
}

# Pages through QUERY with limit LIMIT, writing every id to FILE; prints
# the number of pages.  Fails when a page is not a 200, holds more than
# LIMIT taps or a count other than its length, or names a next_after_id
# other than its last id or after a short page.  Whether a page that says
# it is the last really is, the comparison of FILE with the database
# tells.
page_through() {
	local query=$1 limit=$2 file=$3 after=0 pages=0 meta n count next last
	: >"$file"
	while :; do
		get "${query:+$query&}limit=$limit&after_id=$after" >/dev/null
		if [ "$(status)" != 200 ]; then
			echo "page after $after: HTTP $(status)" >&2
			return 1
		fi
		# The page's ids, then one line "n count next last".
		jq -r '(.taps[].id | tostring),
			"\(.taps | length) \(.count) \(.next_after_id) \(.taps[-1].id)"' \
			"$work/body" >"$work/page" || return 1
		head -n -1 "$work/page" >>"$file"
		meta=$(tail -n 1 "$work/page")
		read -r n count next last <<<"$meta"
		pages=$((pages + 1))
		if [ "$count" != "$n" ] || [ "$n" -gt "$limit" ]; then
			echo "page after $after: $n taps, count $count" >&2
			return 1
		fi
		[ "$next" = null ] && break
		if [ "$next" != "$last" ] || [ "$n" -ne "$limit" ]; then
			echo "page after $after: next_after_id $next after" \
				"$n taps ending with $last" >&2
			return 1
		fi
		after=$next
		[ "$pages" -le 100000 ] || return 1
	done
	echo "$pages"
}

sqlite3 "$db" 'SELECT id FROM taps ORDER BY id' >"$work/all.ids"
for limit in 1000 10000; do
	if pages=$(page_through "" "$limit" "$work/got.ids"); then
		if cmp -s "$work/all.ids" "$work/got.ids"; then
			ok "limit=$limit: $N ids exactly once, in order," \
				"$pages pages"
		else
			ko "limit=$limit: ids differ from the database" \
				"($(wc -l <"$work/got.ids") returned)"
		fi
		check "limit=$limit: page count" $(((N + limit - 1) / limit)) \
			"$pages"
	else
		ko "limit=$limit: paging failed"
	fi
done
# limit=7 over a filtered subset (~420 taps, ~60 pages).
sqlite3 "$db" "SELECT id FROM taps WHERE app = 'com.example.app3' AND
	kind = 'tap' AND status = 'ok' ORDER BY id" >"$work/sub.ids"
if pages=$(page_through "app=com.example.app3&kind=tap&status=ok" 7 \
	"$work/got.ids"); then
	if cmp -s "$work/sub.ids" "$work/got.ids"; then
		ok "limit=7 app+kind+status: $(wc -l <"$work/sub.ids") ids" \
			"exactly once, in order, $pages pages"
	else
		ko "limit=7 app+kind+status: ids differ from the database"
	fi
else
	ko "limit=7 app+kind+status: paging failed"
fi

# The default page is 100, and the first page of all says where to go on.
get "" >/dev/null
check "default limit: 100 taps" 100 "$(jq '.taps | length' "$work/body")"
check "default limit: next_after_id" "$(sed -n 100p "$work/all.ids")" \
	"$(jq '.next_after_id' "$work/body")"
check "json content type" "application/json" "$(curl -sS --max-time 10 \
	-o /dev/null -w '%{content_type}' "$url" | cut -d';' -f1)"

# count QUERY: how many taps the API returns for a filter (one page).
count() {
	get "$1&limit=10000" >/dev/null
	if [ "$(status)" != 200 ]; then
		echo "HTTP $(status)"
		return
	fi
	jq '.count' "$work/body"
}

# sql WHERE: how many taps sqlite3 counts for the same filter.
sql() {
	sqlite3 "$db" "SELECT count(*) FROM taps WHERE $1"
}

check "app filter" "$(sql "app = 'com.example.app1'")" \
	"$(count app=com.example.app1)"
check "kind filter" "$(sql "kind = 'long_press'")" "$(count kind=long_press)"
check "status filter" "$(sql "status = 'ok'")" "$(count status=ok)"
check "session filter" "$(sql "session = 1")" "$(count session=1)"
check "app+kind+status filter" \
	"$(sql "app = 'com.example.app2' AND kind = 'tap' AND status = 'ok'")" \
	"$(count 'app=com.example.app2&kind=tap&status=ok')"
check "unknown app: nothing" 0 "$(count app=no.such.app)"

# Time filters: since <= wall_ns <= until; taps without wall time never
# match one.  Taps 1000..1999 lie in [now - 200000 s, now - 100000 s].
s=$((now - 200000))
u=$((now - 100000))
s3339=$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%SZ)
u3339=$(date -u -d "@$u" +%Y-%m-%dT%H:%M:%SZ)
expect=$(sql "wall_ns >= $s * 1000000000 AND wall_ns <= $u * 1000000000")
check "since/until, unix seconds" "$expect" "$(count "since=$s&until=$u")"
check "since/until, RFC 3339" "$expect" \
	"$(count "since=$s3339&until=$u3339")"
check "since/until, RFC 3339 with offset" "$expect" \
	"$(count "since=$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%S)%2B00:00&until=$u3339")"
check "since 7d" "$(sql "wall_ns >= ($now - 7 * 86400) * 1000000000")" \
	"$(count since=7d)"
check "until 7d + kind" \
	"$(sql "wall_ns <= ($now - 7 * 86400) * 1000000000 AND kind = 'tap'")" \
	"$(count 'until=7d&kind=tap')"
check "until 7d: no tap without wall time" 0 \
	"$(jq '[.taps[] | select(.wall_time == null)] | length' "$work/body")"
check "since 7d + app + status" \
	"$(sql "wall_ns >= ($now - 7 * 86400) * 1000000000 AND app = 'com.example.app4' AND status = 'no_response'")" \
	"$(count 'since=7d&app=com.example.app4&status=no_response')"
check "since = until: empty" 0 "$(count "since=$s&until=$s")"
check "since = until = a tap's wall time: both ends included" 1 \
	"$(count "since=$((now - 150))&until=$((now - 150))")"

# The tap objects: the fields of docs/DESIGN.md 7.6, the way tapjson.h writes them.
# Tap i = 30 of the fill: app 30 % 5, pid 1000 + 30 % 7, kind 30 % 4,
# status 30 % 3, flags 30 % 16 = 14, session 1, jank 65 = none |
# app_deadline_missed, jank tags 30 % 4 = 2: other_jank.
id=$(sed -n 30p "$work/all.ids")
get "after_id=$(sed -n 29p "$work/all.ids")&limit=1" >/dev/null
check "tap object" \
	"{\"id\":$id,\"app\":\"com.example.app0\",\"pid\":1002,\"kind\":\"swipe\",\"status\":\"ok\",\"flags\":[\"settle_capped\",\"interrupted\",\"input_dropped\"],\"t_down_ns\":\"2498000000000000\",\"t_up_ns\":\"2498000080000000\",\"x\":30,\"y\":30,\"first_frame_ms\":30.03,\"settle_ms\":200.03,\"frames\":11,\"jank\":[\"app_deadline_missed\"],\"jank_tags\":[\"other_jank\"],\"jank_perceivable\":true,\"session\":1,\"window\":null,\"attribution\":\"foreground\",\"target_app\":null,\"target_activity\":null,\"launch_first_frame_ms\":null,\"launch_settle_ms\":null}" \
	"$(jq -c '.taps[0] | del(.wall_time)' "$work/body")"
check "tap object: members in order" \
	"id app pid kind status flags t_down_ns t_up_ns wall_time x y first_frame_ms settle_ms frames jank jank_tags jank_perceivable session window attribution target_app target_activity launch_first_frame_ms launch_settle_ms" \
	"$(jq -r '.taps[0] | keys_unsorted | join(" ")' "$work/body")"
check "wall_time is RFC 3339 UTC with ms" \
	"$(date -u -d "@$((now - 30 * 100 - 50))" +%Y-%m-%dT%H:%M:%S).000Z" \
	"$(jq -r '.taps[0].wall_time' "$work/body")"
# Tap 50: no wall time, not measured, no jank; tap 1: no session.
get "after_id=$(sed -n 49p "$work/all.ids")&limit=1" >/dev/null
check "nulls of a tap without wall time or latency" "null|null|null|[]" \
	"$(jq -r '.taps[0] | [.wall_time, .first_frame_ms, .settle_ms, .jank] | map(tojson) | join("|")' "$work/body")"
get "limit=1" >/dev/null
check "session null" "null" "$(jq -c '.taps[0].session' "$work/body")"

# ndjson: one object per line, each parsing on its own.
curl -sS --max-time 20 -D "$work/headers" -o "$work/nd" \
	"$url?format=ndjson&limit=500&kind=tap" 2>/dev/null
check "ndjson content type" application/x-ndjson \
	"$(sed -n 's/^[Cc]ontent-[Tt]ype: *\([^;[:space:]]*\).*/\1/p' "$work/headers" | tr -d '\r')"
check "ndjson lines" 500 "$(wc -l <"$work/nd")"
# jq -R reads each line as a string, which fromjson parses on its own.
check "ndjson: every line a tap object" 500 \
	"$(jq -R 'fromjson | select(.id > 0 and .kind == "tap")' "$work/nd" \
		2>/dev/null | jq -s length)"
check "ndjson ids = json ids" \
	"$(get 'format=json&limit=500&kind=tap' | jq -c '[.taps[].id]')" \
	"$(jq -sc '[.[].id]' "$work/nd")"

# csv: the header, one row per tap, CRLF ends, the odd app quoted.
curl -sS --max-time 20 -D "$work/headers" -o "$work/csv" \
	"$url?format=csv&limit=10000&after_id=0" 2>/dev/null
check "csv content type" text/csv \
	"$(sed -n 's/^[Cc]ontent-[Tt]ype: *\([^;[:space:]]*\).*/\1/p' "$work/headers" | tr -d '\r')"
check "csv header" \
	"id,app,pid,kind,status,flags,t_down_ns,t_up_ns,wall_time,x,y,first_frame_ms,settle_ms,frames,jank,jank_tags,jank_perceivable,session,window,attribution,target_app,target_activity,launch_first_frame_ms,launch_settle_ms" \
	"$(head -n 1 "$work/csv" | tr -d '\r')"
check "csv rows" 10001 "$(wc -l <"$work/csv")"
check "csv: every line ends with CRLF" 10001 "$(grep -c $'\r$' "$work/csv")"
check "csv: 24 fields a row (quoted app aside)" 0 \
	"$(grep -v '"' "$work/csv" | awk -F, 'NF != 24' | wc -l)"
check "csv: the app with a comma and quotes" \
	"$(sed -n 7p "$work/all.ids"),\"weird,\"\"app\"\"\",1000,multi,no_response" \
	"$(grep -m 1 'weird' "$work/csv" | cut -d, -f1-6)"
check "csv: ids as json" "$(sed -n '1,10000p' "$work/all.ids" | md5sum)" \
	"$(tail -n +2 "$work/csv" | cut -d, -f1 | md5sum)"

# 400s: every bad parameter, with the JSON error body.
for q in limit=0 limit=10001 limit=-5 limit=abc after_id=-1 after_id=abc \
	after_id=1.5 kind=bogus status=bogus format=xml foo=1 \
	"since=$u&until=$s" since=yesterday until=2026-13-01T00:00:00Z \
	session=0 session=x app= "app=a%20b" "limit=10&limit=20"; do
	body=$(get "$q")
	code=$(jq -r '.error.code' <<<"$body" 2>/dev/null)
	check "400 for $q" "400 bad_request" "$(status) $code"
done

if kill -0 "$server" 2>/dev/null; then
	ok "server still up"
else
	ko "server died"
fi
finish
