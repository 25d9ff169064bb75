#!/bin/sh
# make run: replays the real captures bundled in tests/fixtures/getevent/
# and a few minutes of a simulated device session with several apps,
# prints tapd's summary of each, then serves the session's database on
# 127.0.0.1:7878 (LISTEN overrides) until Ctrl-C.
set -eu
tapd=${1:-build/tapd}
build=${2:-build}
sim=$build/tapd-sim
out=$build/demo
rm -rf "$out"
mkdir -p "$out"

for f in tests/fixtures/getevent/*.getevent; do
	name=$(basename "$f" .getevent)
	echo "== $f"
	# A capture that cannot be replayed (no timestamps) says why; the
	# demo goes on with the next one.
	"$tapd" replay --input "getevent:$f" --db "$out/$name.db" || true
	echo
done

listen=${LISTEN:-127.0.0.1:7878}
url=http://$listen
tapctl=$build/tapctl
echo "== simulated session: 3 minutes, several apps ($out/session)"
"$sim" gen --scenario long --seed 1 --duration 180 --out "$out/session"
cat <<EOT
Once the replay below is done, the API answers on $url; try:
  curl -s $url/v1/health
  curl -s '$url/v1/percentiles?app=com.example.shop&p=50,90,99'
  curl -s '$url/v1/taps?limit=5&format=ndjson'
  curl -s $url/metrics | head -30
  $tapctl --url $url apps
  $tapctl --url $url percentiles --app com.example.mail --histogram
  $tapctl --url $url taps --limit 10
  $tapctl --url $url trace -o trace.json    (open it in ui.perfetto.dev)
Ctrl-C stops the server.

EOT
exec "$tapd" replay --session "$out/session" --db "$out/session.db" \
	--listen "$listen"
