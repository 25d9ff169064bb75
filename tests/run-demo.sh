#!/bin/sh
# make run: replays the real captures bundled in tests/fixtures/getevent/
# and a few minutes of a simulated device session with several apps, and
# prints tapd's summary of each.
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

if [ -x "$sim" ]; then
	echo "== simulated session: 3 minutes, several apps ($out/session)"
	"$sim" gen --scenario long --seed 1 --duration 180 --out "$out/session"
	"$tapd" replay --session "$out/session" --db "$out/session.db"
fi
