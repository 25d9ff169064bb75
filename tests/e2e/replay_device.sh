#!/usr/bin/env bash
# End to end: `tapd replay --session` of a tiny session (one tap of the
# emulator capture) with hostile device.json files.  Each must be refused
# with the exit status of the replay's other bad input (2) and a message
# naming the file and what is wrong in it, never undefined behaviour: with
# BUILD=build/asan the sanitizers must stay silent.
set -u
build=${BUILD:-build}
tapd=$build/tapd
fixtures=tests/fixtures/getevent
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NAME=replay_device
. "$(dirname "$0")/lib/report.sh"

need_bins "$tapd"
need_tools sqlite3

session=$tmp/session
mkdir "$session"
cp "$fixtures/emulator-tap.getevent" "$session/input.getevent"

# replay LABEL: replays the session into a new database, its output in
# $tmp/LABEL.out; sets rc to the exit status.
replay() {
	"$tapd" replay --session "$session" --db "$tmp/$1.db" \
		>"$tmp/$1.out" 2>&1
	rc=$?
}

# sanitizers LABEL: passes when the output has no sanitizer report.
sanitizers() {
	if grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' \
		"$tmp/$1.out"; then
		ko "$1: no sanitizer report" "$(cat "$tmp/$1.out")"
	else
		ok "$1: no sanitizer report"
	fi
}

# refused LABEL PATTERN: exit 2, PATTERN (grep -F) in the output, nothing
# stored, no sanitizer report.
refused() {
	replay "$1"
	check "$1: exit status" 2 "$rc"
	if grep -qF -- "$2" "$tmp/$1.out"; then
		ok "$1: message"
	else
		ko "$1: message has '$2'" "$(cat "$tmp/$1.out")"
	fi
	if grep -q 'negative wall time' "$tmp/$1.out"; then
		ko "$1: no blame on a tap's wall time" "$(cat "$tmp/$1.out")"
	else
		ok "$1: no blame on a tap's wall time"
	fi
	sanitizers "$1"
}

# A sound anchor: the tap at t_up 42.453256 s gets its wall time from it.
printf '%s\n' '{"clock": {"realtime_ns": "1764567474000000000",' \
	'"monotonic_ns": "42000000000"}}' >"$session/device.json"
replay good
check "good: exit status" 0 "$rc"
check "good: wall time" 1764567474453256000 \
	"$(sqlite3 -batch -noheader "$tmp/good.db" 'select wall_ns from taps' \
		2>&1)"
sanitizers good

# The largest int64 as the anchor's REALTIME: a wall time of 2262 on, and
# an overflow in every tap after it.
printf '%s\n' '{"clock": {"realtime_ns": "9223372036854775807",' \
	'"monotonic_ns": "0"}}' >"$session/device.json"
refused realtime-max \
	"cannot read '$session/device.json': \"clock.realtime_ns\" is 9223372036854775807, out of range"

# The same for MONOTONIC.
printf '%s\n' '{"clock": {"realtime_ns": "0",' \
	'"monotonic_ns": "9223372036854775807"}}' >"$session/device.json"
refused monotonic-max \
	"cannot read '$session/device.json': \"clock.monotonic_ns\" is 9223372036854775807, out of range"

# Beyond int64 altogether.
printf '%s\n' '{"clock": {"realtime_ns": "99999999999999999999",' \
	'"monotonic_ns": "0"}}' >"$session/device.json"
refused realtime-beyond \
	"cannot read '$session/device.json': \"clock.realtime_ns\" is 99999999999999999999, out of range"

# Each value within range, but together they put the tap before 1970: the
# error names the anchor, not the tap.
printf '%s\n' '{"clock": {"realtime_ns": "1000",' \
	'"monotonic_ns": "4000000000000000000"}}' >"$session/device.json"
refused anchor-before-1970 "the clock anchor of device.json"

# A key given twice, at the top and deeper down.
printf '%s\n' '{"density_dpi": 420, "density_dpi": 160}' \
	>"$session/device.json"
refused duplicate-top \
	"cannot read '$session/device.json': \"density_dpi\" appears twice"
printf '%s\n' '{"clock": {"realtime_ns": "1764567474000000000",' \
	'"monotonic_ns": "42000000000", "realtime_ns": "5"}}' \
	>"$session/device.json"
refused duplicate-nested \
	"cannot read '$session/device.json': \"clock.realtime_ns\" appears twice"

# A UTF-8 byte order mark.
printf '\357\273\277{"density_dpi": 420}\n' >"$session/device.json"
refused bom \
	"cannot read '$session/device.json': starts with a UTF-8 byte order mark"

# Anything after the JSON value, after a NUL or not.
printf '{"density_dpi": 420}\n\000{"density_dpi": 1}\n' \
	>"$session/device.json"
refused after-nul \
	"cannot read '$session/device.json': a NUL byte at offset 21"
printf '{"density_dpi": 420} {"density_dpi": 1}\n' >"$session/device.json"
refused after-value \
	"cannot read '$session/device.json': something after the JSON value at offset 21"

finish
