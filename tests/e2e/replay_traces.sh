#!/usr/bin/env bash
# Hostile FrameTimeline traces: a recorded session of tapd-sim, replayed
# with its frames.pftrace replaced by a broken copy.  A trace nothing can
# be read from must be an error naming the file; a trace cut short must
# say so; a trace with flipped bits must either give the original frame
# count or say what it skipped, never a silent difference; the health
# endpoint of a replay describes a cut trace.  Run from the
# repository root; BUILD names the build directory (default build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"

NAME=replay_traces
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD"
need_tools python3 curl jq

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-traces.XXXXXX") || exit 1
trap 'stop_servers; rm -rf "$work"' EXIT

dir="$work/session"
if ! "$SIM" gen --scenario long --seed 1 --duration 20 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
trace="$dir/frames.pftrace"

# replay TRACE: runs tapd on the session with TRACE as its frames; sets
# out (stdout and stderr) and rc.
replay() {
	rm -f "$work/taps.db"
	out=$("$TAPD" replay --session "$dir" --frames "ftl:$1" \
		--db "$work/taps.db" 2>&1)
	rc=$?
}

# The number of app frames the summary reports, or "none".
frames_of() {
	printf '%s\n' "$1" | sed -n 's/.* \([0-9][0-9]*\) app frames presented.*/\1/p' |
		head -n 1 | grep . || echo none
}

replay "$trace"
check "the original trace replays" 0 "$rc"
orig=$(frames_of "$out")
if [ "$orig" = none ] || [ "$orig" -eq 0 ]; then
	ko "the original trace gives frames" "$out"
	finish
fi
if printf '%s\n' "$out" | grep -q 'problems:\|malformed\|truncated'; then
	ko "the original trace reports no problem" "$out"
else
	ok "the original trace reports no problem"
fi

# A first record whose length varint says 2^62: nothing can be framed.
python3 - "$trace" "$work/huge.pftrace" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
n, v = 1 << 62, bytearray()
while True:
    b = n & 0x7f
    n >>= 7
    if n:
        v.append(b | 0x80)
    else:
        v.append(b)
        break
open(sys.argv[2], "wb").write(b"\x0a" + bytes(v) + data)
PY
replay "$work/huge.pftrace"
if [ "$rc" -eq 1 ] &&
	printf '%s\n' "$out" | grep -q "error: .*'$work/huge.pftrace'"; then
	ok "a first length of 2^62 is an error naming the file"
else
	ko "a first length of 2^62 is an error naming the file (exit $rc)" "$out"
fi
if printf '%s\n' "$out" | grep -q 'first length 4611686018427387904'; then
	ok "the error gives the length"
else
	ko "the error gives the length" "$out"
fi

# An empty trace is no error: there is nothing to read.
: >"$work/empty.pftrace"
replay "$work/empty.pftrace"
check "an empty trace replays" 0 "$rc"

# The trace cut in the middle of a packet past its first quarter.
python3 - "$trace" "$work/cut.pftrace" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
# Walk the records (0x0a <varint length> <packet>) to one past a quarter.
off = 0
while off < len(data) // 4:
    off += 1
    n = shift = 0
    while True:
        b = data[off]
        off += 1
        n |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            break
    off += n
start = off
off += 1
n = shift = 0
while True:
    b = data[off]
    off += 1
    n |= (b & 0x7f) << shift
    shift += 7
    if not b & 0x80:
        break
open(sys.argv[2], "wb").write(data[:off + n // 2])

PY
replay "$work/cut.pftrace"
check "a truncated trace replays" 0 "$rc"
if printf '%s\n' "$out" | grep -q 'truncated: the last packet at byte [0-9]* is cut off'; then
	ok "a truncated trace says so"
else
	ko "a truncated trace says so" "$out"
fi

# The health endpoint of a replay of it describes the cut too.
rm -f "$work/taps.db"
if start_server "$work/serve.out" "$TAPD" replay --session "$dir" \
	--frames "ftl:$work/cut.pftrace" --db "$work/taps.db" \
	--listen 127.0.0.1:0; then
	for i in $(seq 1 50); do
		grep -q 'replay done' "$work/serve.out" && break
		sleep 0.1
	done
	health=$(curl -s "$url/v1/health" | jq -r '.sources.frames.detail')
	case $health in
	*"packets read"*"malformed packets skipped"*"bytes not framed"*"truncated at byte"*)
		ok "health: the frames detail counts the truncation" ;;
	*) ko "health: the frames detail counts the truncation" "$health" ;;
	esac
	stop_server "$pid" 5
else
	ko "replay --listen of the truncated trace starts" \
		"$(cat "$work/serve.out" "$work/serve.out.err")"
fi

# 30 traces with one bit flipped each, at positions fixed by their seed.
silent=0
for seed in $(seq 1 30); do
	f="$work/flip-$seed.pftrace"
	python3 - "$trace" "$f" "$seed" <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
rng = random.Random(int(sys.argv[3]))
bit = rng.randrange(len(data) * 8)
data[bit // 8] ^= 1 << (bit % 8)
open(sys.argv[2], "wb").write(data)
PY
	replay "$f"
	n=$(frames_of "$out")
	if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -q "error: .*'$f'"; then
		ok "bit flip $seed: an error naming the file"
	elif [ "$rc" -ne 0 ]; then
		ko "bit flip $seed: exit $rc without naming the file" "$out"
	elif [ "$n" = "$orig" ]; then
		ok "bit flip $seed: $n frames, as the original"
	elif printf '%s\n' "$out" | grep -q 'problems:\|malformed\|skipped\|truncated'; then
		ok "bit flip $seed: $n frames, and the summary says why"
	else
		silent=$((silent + 1))
		ko "bit flip $seed: $n frames instead of $orig, silently" "$out"
	fi
done

# One flip that hides a FrameEnd: its packet's frame_timeline_event key
# (field 76, e2 04) becomes an unknown field (e2 14), so the frame it ends
# never comes and nothing in the packet is malformed.
python3 - "$trace" "$work/hidden.pftrace" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
# The fourth such key past the middle ends an app frame (the earlier
# ones end display frames, whose loss is counted otherwise).
at = len(data) // 2
for _ in range(4):
    at = data.find(b"\xe2\x04\x05\x2a", at + 1)
data[at + 1] ^= 0x10
open(sys.argv[2], "wb").write(data)
PY
replay "$work/hidden.pftrace"
n=$(frames_of "$out")
if [ "$n" = "$orig" ]; then
	ok "a hidden FrameEnd: $n frames, as the original"
elif printf '%s\n' "$out" | grep -q '1 starts never ended'; then
	ok "a hidden FrameEnd: $n frames, and the summary says a start never ended"
else
	ko "a hidden FrameEnd: $n frames instead of $orig, silently" "$out"
fi

finish
