#!/usr/bin/env bash
# Soak, part 2: the perfetto child of `tapd run` killed with SIGKILL, 50
# times (SOAK_SCALE).
#
# `tapd run --frames ftl` runs the simulator's fake perfetto (tapd-sim
# through a link named perfetto), which writes a FrameTimeline trace as
# traced would and logs every app frame it put in the file
# (TAPD_FAKE_FRAMES_LOG: "pid start_ns present_ns layer").  Each time the
# frame source is up again (tapd restarts the session after its backoff,
# daemon/frames_perfetto.c) the fake is killed at a random moment 0 to 1.5
# s later, mid-write or not.  Then tapd is stopped (SIGTERM: the last
# session writes its tail) and the frames it fed its pipeline (the run's
# "frames" counter) are compared with the frames the fakes logged, each
# counted once (the same frame logged twice, by two sessions that
# overlapped, is one frame): none lost, none duplicated.  Frames SurfaceFlinger
# drew while no session was recording were never in any file, and are no
# loss of tapd's.  The comparison is by count: tapd keeps no list of the
# frames it read outside the taps they answer, and there is no touch
# screen here.  Also: every session's trace file is deleted once read, no
# perfetto is left running, tapd exits 0.
#
# Its row: kills, failures, frames logged, read, lost, duplicated.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=soak_perfetto
here=$(dirname "$0")
. "$here/../e2e/lib/report.sh"
. "$here/../e2e/lib/server.sh"
. "$here/lib.sh"
need_bins "$TAPD" "$SIM"
need_tools sqlite3 python3 jq curl pgrep
work_dir soak-perfetto
[ "${SOAK_KEEP:-0}" = 1 ] && trap 'stop_servers; echo "kept $work"' EXIT

KILLS=$(scaled 50)
mkdir -p "$work/bin" "$work/traces" "$work/empty"
ln -s "$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")" \
	"$work/bin/perfetto"
log=$work/frames.log

if ! start_server "$work/out" env TAPD_FAKE_FRAMES_LOG="$log" \
	TAPD_FAKE_PERFETTO_MAX_MS=3600000 \
	"$TAPD" run --db "$work/taps.db" --listen 127.0.0.1:0 \
	--sysroot "$work/empty" --frames ftl --foreground none \
	--perfetto-bin "$work/bin/perfetto" --trace-dir "$work/traces"; then
	ko "tapd run serves" "$(tail -n 5 "$work/out.err")"
	row "kill -9 perfetto" 0 1 "tapd run did not start" "-"
	finish
fi

# The fake perfetto tapd runs now, once the frame source is up with it,
# other than the one given: its pid, or nothing after 20 s.
session_up() {
	local i child
	for i in $(seq 1 200); do
		child=$(pgrep -P "$pid" -x perfetto | head -n 1)
		if [ -n "$child" ] && [ "$child" != "$1" ] &&
			[ "$(curl -s --max-time 2 "$url/v1/health" |
				jq -r .sources.frames.health)" = up ]; then
			echo "$child"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

failures=0
killed=0
last=
for i in $(seq 1 "$KILLS"); do
	if ! child=$(session_up "$last"); then
		ko "kill $i: no perfetto session up again within 20 s" \
			"$(curl -s --max-time 2 "$url/v1/health" | jq -c .sources.frames)"
		failures=$((failures + 1))
		break
	fi
	rnd 0 1.5
	sleep "$REPLY"
	if kill -KILL "$child" 2>/dev/null; then
		killed=$((killed + 1))
	fi
	last=$child
done
if ! session_up "$last" >/dev/null; then
	ko "the last perfetto session did not come up"
	failures=$((failures + 1))
fi
sleep 1.5
read_live=$(curl -s --max-time 2 "$url/v1/health" | jq .counters.frames_read)
stop_server "$pid" 10
servers=()
check "tapd run: SIGTERM, exit 0" 0 "$status"
[ "$status" = 0 ] || failures=$((failures + 1))

logged=$(sort -u "$log" | wc -l)
lines=$(wc -l <"$log")
read=$(sqlite3 "$work/taps.db" \
	"SELECT json_extract(stats, '$.frames') FROM runs ORDER BY id DESC LIMIT 1")
lost=$((logged > read ? logged - read : 0))
dup=$((read > logged ? read - logged : 0))
if [ "$lost" -eq 0 ] && [ "$dup" -eq 0 ] && [ "$logged" -gt 0 ]; then
	ok "$killed kills: $read frames read, as the fakes logged"
else
	ko "$killed kills: $read frames read, the fakes logged $logged" \
		"($lines lines; $read_live read before the stop)"
	failures=$((failures + 1))
fi
check "$killed perfetto killed" "$KILLS" "$killed"
[ "$killed" -eq "$KILLS" ] || failures=$((failures + 1))
left=$(find "$work/traces" -type f | wc -l)
check "trace files deleted once read" 0 "$left"
[ "$left" -eq 0 ] || failures=$((failures + 1))
running=$(pgrep -f "$work/bin/perfetto" | wc -l)
check "no perfetto left running" 0 "$running"
[ "$running" -eq 0 ] || failures=$((failures + 1))
row "kill -9 perfetto" "$killed" "$failures" \
	"frames logged $logged, read $read: lost $lost, duplicated $dup" \
	"0 lost, 0 duplicated"
finish
