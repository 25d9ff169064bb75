#!/usr/bin/env bash
# End to end: `tapd replay` on the real captures, checked in the database
# it writes (with the sqlite3 shell, not tapd's own code).
set -u
build=${BUILD:-build}
tapd=$build/tapd
fixtures=tests/fixtures/getevent
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NAME=replay_fixtures
. "$(dirname "$0")/lib/report.sh"

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

# The emulator capture: one whole tap.
db=$tmp/emu.db
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" --db "$db" \
	>"$tmp/emu.out" 2>&1
check "emulator replay exit" 0 $?
check "emulator rows" 1 "$(q "$db" 'select count(*) from taps')"
check "emulator kind/status" "tap|frames_unavailable" \
	"$(q "$db" 'select kind, status from taps')"
check "emulator t_up" 42453256000 "$(q "$db" 'select t_up_ns from taps')"
check "emulator duration" 45448000 \
	"$(q "$db" 'select t_up_ns - t_down_ns from taps')"
check "emulator raw position" "17033.0|30552.0" \
	"$(q "$db" 'select x, y from taps')"
check "emulator latencies unmeasured" "||0" \
	"$(q "$db" 'select first_frame_ns, settle_ns, frames from taps')"
grep -q "raw units" "$tmp/emu.out"
check "summary says raw units" 0 $?

# The same capture mapped through device.json onto the emulator's
# 0..32767 axes: 17033 * 1080 / 32768 = 561.39 px.
cat >"$tmp/device.json" <<JSON
{"screen": {"width": 1080, "height": 2400}, "density_dpi": 420,
 "touch": {"x": {"min": 0, "max": 32767}, "y": {"min": 0, "max": 32767}}}
JSON
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" \
	--device "$tmp/device.json" --foreground app:com.android.settings \
	--db "$tmp/mapped.db" >"$tmp/mapped.out" 2>&1
check "mapped replay exit" 0 $?
check "mapped position" "561.39|2237.7|com.android.settings" \
	"$(q "$tmp/mapped.db" 'select round(x, 2), round(y, 2), app from taps')"

# A second replay into the same file appends a new run.
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" --db "$db" \
	>/dev/null 2>&1
check "second run appended" "2|2" \
	"$(q "$db" 'select count(*), count(distinct run) from taps')"

# A finger that lands and is never lifted is not a gesture.
"$tapd" replay --input "getevent:$fixtures/phone-touch-down.getevent" \
	--db "$tmp/down.db" >"$tmp/down.out" 2>&1
check "touch-down replay exit" 0 $?
check "touch-down rows" 0 "$(q "$tmp/down.db" 'select count(*) from taps')"

# A log without timestamps is refused, saying how to record one.
"$tapd" replay --input "getevent:$fixtures/phone-no-timestamps.getevent" \
	--db "$tmp/nots.db" >"$tmp/nots.out" 2>&1
check "no-timestamps exit" 2 $?
grep -q "getevent -lt" "$tmp/nots.out"
check "no-timestamps message" 0 $?

# Bad arguments and unreadable files: one line, non-zero exit.
"$tapd" replay --input "getevent:$tmp/missing.getevent" --db "$tmp/m.db" \
	>"$tmp/missing.out" 2>&1
rc=$?
check "missing file fails" 1 $((rc != 0))
check "missing file one line" 1 "$(wc -l <"$tmp/missing.out")"
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" \
	--long-press-ms abc --db "$tmp/m.db" >"$tmp/bad.out" 2>&1
check "bad number exit" 2 $?
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" \
	>"$tmp/nodb.out" 2>&1
check "missing --db exit" 2 $?
echo "not a database" >"$tmp/foreign.db"
"$tapd" replay --input "getevent:$fixtures/emulator-tap.getevent" \
	--db "$tmp/foreign.db" >"$tmp/foreign.out" 2>&1
check "foreign file refused" 1 $(($? != 0))
check "foreign file untouched" "not a database" "$(cat "$tmp/foreign.db")"

finish
