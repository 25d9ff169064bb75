#!/usr/bin/env bash
# Perfetto's own FrameTimeline test traces (../shared/fixtures/real/
# perfetto/, see SOURCES.md there), replayed as Perfetto's trace processor
# reads them.  They carry no ClockSnapshot, so their times are read in the
# trace's default clock with an offset of 0, said in a warning and in the
# summary, and the taps they answer are flagged clock_assumed.  A tap at
# time 0, before every frame (the traces' times are nanoseconds from 0; a
# getevent log, written here, stamps to the microsecond), must get the
# frames Perfetto's tests expect: first_frame = the present of token 1
# (47 ns), and as response frames the six actual app frames with the
# starts and presents SOURCES.md lists, Perfetto's jank tags and, from
# /v1/taps, the flags and tags by name.  The power-mode trace's one app
# frame is presented before it starts: no latency may come of it.  A
# control replays a copy of the trace with one present changed by 1 ns,
# which the checks must catch.  Last, a trace written here whose
# ClockSnapshot comes after its first frame, with a SurfaceView layer and
# AOSP's stand-in start and presents: converted, matched by layer name,
# flagged.  Run from the repository root; BUILD names the build directory
# (default build).
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
REAL=../shared/fixtures/real/perfetto
EVENTS="$REAL/frame_timeline_events.pftrace"
POWER="$REAL/frame_timeline_power_mode.pftrace"

NAME=replay_perfetto_real
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD"
need_tools python3 sqlite3 curl jq

if [ ! -f "$EVENTS" ] || [ ! -f "$POWER" ]; then
	echo "$NAME: 0 passed, 0 failed, 1 skipped (no $REAL)"
	exit 0
fi

work_dir perfetto-real

# One tap at 0 by pid 1000, the app of Perfetto's surface frames.  The
# contact is down and up in the same microsecond.
cat >"$work/tap.getevent" <<'EOF'
[       0.000000] EV_ABS       ABS_MT_TRACKING_ID   00000000
[       0.000000] EV_ABS       ABS_MT_POSITION_X    00000100
[       0.000000] EV_ABS       ABS_MT_POSITION_Y    00000200
[       0.000000] EV_SYN       SYN_REPORT           00000000
[       0.000000] EV_ABS       ABS_MT_TRACKING_ID   ffffffff
[       0.000000] EV_SYN       SYN_REPORT           00000000
EOF
printf '0 1000 com.example.perfetto\n' >"$work/foreground.log"

# replay TRACE DB: sets out (stdout and stderr) and rc.
replay() {
	rm -f "$2"
	out=$("$TAPD" replay --input "getevent:$work/tap.getevent" \
		--frames "ftl:$1" --foreground "log:$work/foreground.log" \
		--db "$2" 2>&1)
	rc=$?
}

q() {
	sqlite3 -batch -noheader -separator ' ' "$1" "$2"
}

# The measurements of the one tap, and its response frames in present
# order as start:present:jank.
measured() {
	first=$(q "$1" 'SELECT coalesce(first_frame_ns, "none") FROM taps')
	frames=$(q "$1" 'SELECT start_ns || ":" || present_ns || ":" || jank
		FROM tap_frames ORDER BY seq' | tr '\n' ' ')
	frames=${frames% }
}

# Perfetto's test_actual_frame_timeline_events, app rows of pid 1000:
# tokens 1, 5, 7, 14 (Layer1 and Layer2) and 16 in present order.
WANT_FRAMES="21:47:1 41:88:64 90:112:2 150:176:1 150:176:1 80:206:256"

db="$work/events.db"
replay "$EVENTS" "$db"
check "the events trace replays" 0 "$rc"
holds "a warning says the clock is assumed" \
	grep -q "warning: frame timeline trace: no clock snapshot" <<<"$out"
holds "the summary counts the events read without a snapshot" \
	grep -q "clocks: 58 events waited for a later clock snapshot, 58 read without one" <<<"$out"
holds "no timestamp is unconvertible any more" \
	bash -c '! grep -q "[1-9][0-9]* unconvertible clocks" <<<"$1"' _ "$out"
measured "$db"
check "first_frame is the present of token 1" 47 "$first"
check "the response frames are Perfetto's, in present order" \
	"$WANT_FRAMES" "$frames"
check "the tap's jank bits are the union of its frames'" 323 \
	"$(q "$db" 'SELECT jank FROM taps')"
# Tokens 5 and 16: Self Jank; token 7: Other Jank; 1 and 14: No Jank.
check "the tap's jank tags: self and other jank" 3 \
	"$(q "$db" 'SELECT jank_tags FROM taps')"
check "the tap is flagged clock_assumed only" 64 \
	"$(q "$db" 'SELECT flags FROM taps')"

serve_db "$db"
json=$(curl -s "$url/v1/taps")
check "/v1/taps: the flags by name" '["clock_assumed"]' \
	"$(jq -c '.taps[0].flags' <<<"$json")"
check "/v1/taps: the jank tags by name" '["self_jank","other_jank"]' \
	"$(jq -c '.taps[0].jank_tags' <<<"$json")"
check "/v1/taps: perceivable jank" true \
	"$(jq -c '.taps[0].jank_perceivable' <<<"$json")"
stop_server "$pid"

# The control: the present of display frame 4 (the FrameEnd of cookie 4,
# at 47) moved to 48 in a copy.  The checks above must see it.
python3 - "$EVENTS" "$work/control.pftrace" <<'PY'
import sys

data = bytearray(open(sys.argv[1], "rb").read())
# The TracePacket "timestamp: 47" (40 2f) holding frame_end { cookie: 4 }
# (field 76, e2 04, of 4 bytes: 2a 02 08 04).
needle = bytes([0x40, 0x2F, 0xE2, 0x04, 0x04, 0x2A, 0x02, 0x08, 0x04])
hits = [i for i in range(len(data)) if data[i:i + len(needle)] == needle]
if len(hits) != 1:
    sys.exit("expected one FrameEnd of cookie 4 at 47, found %d" % len(hits))
data[hits[0] + 1] = 0x30
open(sys.argv[2], "wb").write(bytes(data))
PY
if [ $? -ne 0 ]; then
	ko "the control trace could be written"
else
	replay "$work/control.pftrace" "$work/control.db"
	check "the control trace replays" 0 "$rc"
	measured "$work/control.db"
	if [ "$first" != 47 ] && [ "$frames" != "$WANT_FRAMES" ]; then
		ok "the control's changed present is caught ($first ns)"
	else
		ko "the control's changed present is caught" \
			"first_frame $first, frames $frames"
	fi
fi

# The power-mode trace: its app frame (token 2) starts at 120 and is
# presented at 110, before it started.  No latency may come of it.
db="$work/power.db"
replay "$POWER" "$db"
check "the power-mode trace replays" 0 "$rc"
check "the frame presented before its start measures nothing" "none 0" \
	"$(q "$db" 'SELECT coalesce(first_frame_ns, "none"), frames FROM taps')"
check "and is no response frame" 0 "$(q "$db" 'SELECT count(*) FROM tap_frames')"

# Not Perfetto's, written here: a trace whose ClockSnapshot comes after
# its first frame, an app on a SurfaceView layer, and AOSP's stand-ins.
# Its first frame, before the snapshot, is a SurfaceView's whose
# prediction expired, presented with the fallback for an invalid fence;
# its second, after it, is presented at its display frame's start + 4 ms.
# The foreground is app:com.foo (no pid), so only the layer names say
# whose the frames are.
python3 - >"$work/late.pftrace" <<'PY'
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def fint(f, v):
    return varint(f << 3) + varint(v)


def fbytes(f, b):
    return varint(f << 3 | 2) + varint(len(b)) + b


def event(ts, kind, body):
    # timestamp (8), timestamp_clock_id (58) BOOTTIME, sequence (10),
    # frame_timeline_event (76) holding member kind.
    pkt = fint(8, ts) + fint(58, 6) + fint(10, 1) + fbytes(76, fbytes(kind, body))
    return fbytes(1, pkt)


def display(ts, cookie, token, jank):
    return event(ts, 2, fint(1, cookie) + fint(2, token) + fint(3, 666) +
                 fint(4, 1) + fint(7, jank))


def surface(ts, cookie, token, dtoken, layer, present, jank, prediction):
    return event(ts, 4, fint(1, cookie) + fint(2, token) + fint(3, dtoken) +
                 fint(4, 1000) + fbytes(5, layer) + fint(6, present) +
                 fint(9, jank) + fint(10, prediction))


def end(ts, cookie):
    return event(ts, 5, fint(1, cookie))


def snapshot(boot, mono):
    c1 = fint(1, 6) + fint(2, boot)
    c2 = fint(1, 3) + fint(2, mono)
    return fbytes(1, fbytes(6, fbytes(1, c1) + fbytes(1, c2)))


ms = 1000000
out = b""
# Before the snapshot: a SurfaceView frame whose prediction expired
# (start = ready - 2 ms), presented by a display frame whose fence was
# invalid (jank UNKNOWN | DISPLAY_HAL, the composition's end for present).
out += display(100 * ms, 1, 10, 0x108) + end(103 * ms, 1)
out += surface(90 * ms, 2, 1, 10,
               b"TX - SurfaceView[com.foo/com.foo.Main](BLAST)#13", 5, 0x100, 2)
out += end(92 * ms, 2)
# The snapshot: BOOTTIME 0 is MONOTONIC 5 s.
out += snapshot(0, 5000 * ms)
# After it: a present written as start + 4 ms, Buffer Stuffing.
out += display(300 * ms, 3, 20, 0x1) + end(304 * ms, 3)
out += surface(290 * ms, 4, 2, 20, b"TX - com.foo/com.foo.Main#0", 1, 0x80, 1)
out += end(299 * ms, 4)
sys.stdout.buffer.write(out)
PY
cat >"$work/late.getevent" <<'EOF'
[       5.088000] EV_ABS       ABS_MT_TRACKING_ID   00000000
[       5.088000] EV_SYN       SYN_REPORT           00000000
[       5.090000] EV_ABS       ABS_MT_TRACKING_ID   ffffffff
[       5.090000] EV_SYN       SYN_REPORT           00000000
[       5.245000] EV_ABS       ABS_MT_TRACKING_ID   00000001
[       5.245000] EV_SYN       SYN_REPORT           00000000
[       5.250000] EV_ABS       ABS_MT_TRACKING_ID   ffffffff
[       5.250000] EV_SYN       SYN_REPORT           00000000
EOF
db="$work/late.db"
out=$("$TAPD" replay --input "getevent:$work/late.getevent" \
	--frames "ftl:$work/late.pftrace" --foreground app:com.foo \
	--db "$db" 2>&1)
check "the late-snapshot trace replays" 0 "$?"
holds "the events before the snapshot waited for it, none was assumed" \
	grep -q "clocks: 4 events waited for a later clock snapshot, 0 read without one" <<<"$out"
# first_frame; start_estimated and present_estimated (128 and 256); tags.
check "the SurfaceView frame answers the first tap, both times estimated" \
	"13000000 384 1" \
	"$(q "$db" 'SELECT first_frame_ns, flags & 448, jank_tags FROM taps ORDER BY id LIMIT 1')"
check "the second tap: converted by the snapshot, present estimated, Buffer Stuffing" \
	"54000000 256 8" \
	"$(q "$db" 'SELECT first_frame_ns, flags & 448, jank_tags FROM taps ORDER BY id LIMIT 1 OFFSET 1')"

finish
