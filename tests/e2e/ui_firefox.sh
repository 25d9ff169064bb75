#!/usr/bin/env bash
# The dashboard in Debian's headless Firefox (firefox-esr), driven over
# WebDriver BiDi by tests/e2e/lib/ui_firefox.js, against `tapd serve` of a
# replayed simulated session: every app of /v1/apps with the p90 of each
# metric, the time chart's points and the histogram's bars as the API
# gives them, on a laptop's width and a phone's.  ui_browser.sh checks
# the rest in Chromium.  Screenshots go to BUILD/ui-shots/.  Run from the
# repository root; BUILD names the build directory (default build).
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=ui_firefox
SHOTS="$BUILD/ui-shots"

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools node firefox-esr

# Node 20 has WebSocket behind a flag (22 has it always); an older Node
# (Debian 12's 18) has none, and the test is counted as skipped.
ws=--experimental-websocket
has_ws='process.exit(typeof WebSocket === "function" ? 0 : 1)'
if node -e "$has_ws" 2>/dev/null; then
	ws=
elif ! node $ws -e "$has_ws" 2>/dev/null; then
	echo "skip: this Node.js ($(node --version)) has no WebSocket for WebDriver BiDi"
	echo "$NAME: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

work_dir ui-firefox
serve_session long 2 600

mkdir -p "$SHOTS"
HOME="$work" node $ws "$(dirname "$0")/lib/ui_firefox.js" "$work/browser" "$url" \
	>"$work/browser.log" 2>&1
while IFS= read -r line; do
	case $line in
	"ok   "*) ok "${line#ok   }" ;;
	"FAIL "*) ko "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <"$work/browser.log"
cp "$work/browser/shots/"*.png "$SHOTS/" 2>/dev/null
holds "the Firefox screenshots in $SHOTS" test -s "$SHOTS/firefox-laptop.png" -a -s "$SHOTS/firefox-phone.png"

finish
