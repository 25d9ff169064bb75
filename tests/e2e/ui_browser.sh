#!/usr/bin/env bash
# The dashboard (GET /, daemon/ui.c) in Debian's headless chromium, driven
# over the DevTools protocol by tests/e2e/lib/ui_browser.js, against three
# servers: `tapd serve` of a replayed simulated session (the apps table,
# the time chart and the histogram against the API's own answers to the
# same requests, the range picker, a phone's width), the same with a
# token (asked for, then used), and a paced `tapd replay --listen` (taps
# in the live feed within 2 s, a tap's details, sessions started,
# filtered by and stopped from the page).  Besides: the page over curl
# (text/html, no outside URL, the headers of ui.h, 304, gzip, --no-ui)
# and /v1/series against /v1/percentiles minute by minute.  Screenshots
# of each view go to BUILD/ui-shots/.  Run from the repository root;
# BUILD names the build directory (default build).
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=ui_browser
SHOTS="$BUILD/ui-shots"

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq node chromium

work_dir ui

# The paced replay starts first: its session plays while the rest runs.
live="$work/live"
if ! "$SIM" gen --scenario mixed --seed 4 --duration 40 --out "$live" \
	>"$work/gen-live.log" 2>&1; then
	ko "tapd-sim gen (live)" "$(cat "$work/gen-live.log")"
	finish
fi

serve_session long 2 600
base=$url

# curl's view of the page.
curl -sS -D "$work/h" -o "$work/index.html" "$base/" 2>"$work/curl.err"
check "GET / is text/html" "text/html; charset=utf-8" \
	"$(sed -n 's/^Content-Type: //Ip' "$work/h" | tr -d '\r')"
holds "the page names no other origin (no '://' in it)" \
	bash -c "! grep -q '://' '$work/index.html'"
holds "it loads its script and style from /ui/" \
	grep -q 'src="/ui/app.js"' "$work/index.html"
csp=$(sed -n 's/^Content-Security-Policy: //Ip' "$work/h" | tr -d '\r')
csp_self() {
	[[ $csp == *"default-src 'none'"* && $csp == *"script-src 'self';"* &&
		$csp == *"style-src 'self';"* && $csp == *"connect-src 'self';"* ]]
}
holds "a Content-Security-Policy allows scripts, styles and requests from 'self' only" \
	csp_self
check "Cache-Control of the page" "no-cache" \
	"$(sed -n 's/^Cache-Control: //Ip' "$work/h" | tr -d '\r')"
for f in /ui/app.js /ui/style.css /ui/uPlot.iife.min.js /ui/uPlot.min.css; do
	curl -sS -D "$work/fh" -o "$work/f" "$base$f"
	etag=$(sed -n 's/^ETag: //Ip' "$work/fh" | tr -d '\r')
	type=$(sed -n 's/^Content-Type: //Ip' "$work/fh" | tr -d '\r')
	case $f in
	*.js) want="text/javascript; charset=utf-8" ;;
	*) want="text/css; charset=utf-8" ;;
	esac
	check "$f: its type" "$want" "$type"
	holds "$f: a strong ETag ($etag)" bash -c "[[ '$etag' == '\"'*'\"' ]]"
	check "$f: 304 for If-None-Match of its ETag" 304 \
		"$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$base$f")"
	check "$f: 200 for another ETag" 200 \
		"$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "other"' "$base$f")"
	curl -sS -H 'Accept-Encoding: gzip' -D "$work/gh" -o "$work/f.gz" "$base$f"
	holds "$f: gzip when accepted, the same bytes unpacked" \
		bash -c "grep -qi '^Content-Encoding: gzip' '$work/gh' && gzip -dc '$work/f.gz' | cmp -s - '$work/f'"
done
size=0
for f in / /ui/app.js /ui/style.css /ui/uPlot.iife.min.js /ui/uPlot.min.css; do
	n=$(curl -s -H 'Accept-Encoding: gzip' "$base$f" | wc -c)
	size=$((size + n))
done
holds "the page's files add up to $size bytes gzipped, under 64 KiB" \
	test "$size" -lt 65536
check "a file the page does not have is a 404" 404 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$base/ui/missing.js")"

# /v1/series, each minute against /v1/percentiles over the same minute.
curl -sS -o "$work/series.json" "$base/v1/series?p=50,90"
npts=$(jq '.points | length' "$work/series.json")
check "/v1/series over the whole session steps by the minute" 60 \
	"$(jq .step_s "$work/series.json")"
bad=0
for s in $(jq -r '.points[].start_s' "$work/series.json"); do
	want=$(curl -s "$base/v1/percentiles?p=50,90&since=$s&until=$((s + 59)).999999999" |
		jq -c '[.count, .percentiles]')
	got=$(jq -c --argjson s "$s" '.points[] | select(.start_s == $s) | [.count, .percentiles]' \
		"$work/series.json")
	[ "$want" = "$got" ] || { bad=$((bad + 1)); echo "    minute $s: $want vs $got"; }
done
holds "each of its $npts points is /v1/percentiles of that minute" \
	test "$bad" -eq 0 -a "$npts" -ge 5
check "a step of a minute over the taps' whole span stays within the limit" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/series?step=1m")"
check "/v1/series?step=1h has one point per hour with taps" \
	"$(jq '[.points[].start_s / 3600 | floor] | unique | length' "$work/series.json")" \
	"$(curl -s "$base/v1/series?step=1h" | jq '.points | length')"
check "a bad step is a 400" 400 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/series?step=5s")"

# The same database with a token.
printf 'ui-test-token-%s\n' "$RANDOM$RANDOM" >"$work/token"
chmod 600 "$work/token"
if ! start_server "$work/token.out" "$TAPD" serve --db "$db" \
	--listen 127.0.0.1:0 --token-file "$work/token"; then
	ko "tapd serve --token-file did not say where it listens" "$(cat "$work/token.out.err")"
	finish
fi
token_url=$url
check "with a token, the page itself needs none" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$token_url/")"
check "but the API does" 401 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$token_url/v1/apps")"

# --no-ui: no page, the API as before.
if start_server "$work/noui.out" "$TAPD" serve --db "$db" --listen 127.0.0.1:0 --no-ui; then
	check "--no-ui: GET / is a 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$url/")"
	check "--no-ui: and /ui/app.js" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$url/ui/app.js")"
	check "--no-ui: the API answers" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$url/v1/apps")"
	stop_server "$pid"
else
	ko "tapd serve --no-ui did not start" "$(cat "$work/noui.out.err")"
fi

if ! start_server "$work/live.out" "$TAPD" replay --session "$live" \
	--db "$work/live.db" --listen 127.0.0.1:0 --pace 2; then
	ko "the paced replay did not say where it listens" "$(cat "$work/live.out.err")"
	finish
fi
live_url=$url

mkdir -p "$SHOTS"
node "$(dirname "$0")/lib/ui_browser.js" "$work/browser" "$base" "$token_url" \
	"$work/token" "$live_url" >"$work/browser.log" 2>&1
while IFS= read -r line; do
	case $line in
	"ok   "*) ok "${line#ok   }" ;;
	"FAIL "*) ko "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <"$work/browser.log"
cp "$work/browser/shots/"*.png "$SHOTS/" 2>/dev/null
n=$(ls "$SHOTS"/*.png 2>/dev/null | wc -l)
holds "screenshots of each view in $SHOTS ($n)" test "$n" -ge 6

finish
