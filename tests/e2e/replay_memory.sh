#!/usr/bin/env bash
# The getevent reader's memory is bounded whatever the input: tapd replay
# on /dev/zero (no newline at all) must end within the time limit with an
# error that names the file, and a log with a 50 MB line before a real tap
# must store the tap and count the line as skipped; both under 32 MB of
# peak RSS.  A normal capture must replay to the same rows as before.  An
# AddressSanitizer build has a larger baseline (its shadow memory and
# quarantine), so its bound is scaled when the binary is one.  Run from the
# repository root; BUILD names the build directory (default build).
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
fixtures=tests/fixtures/getevent

NAME=replay_memory
. "$(dirname "$0")/lib/report.sh"

need_bins "$TAPD"
need_tools sqlite3 timeout
if [ ! -x /usr/bin/time ]; then
	ko "'/usr/bin/time' (GNU time) is missing"
	finish
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bound_kb=$((32 * 1024))
if grep -q __asan_init "$TAPD" 2>/dev/null; then
	bound_kb=$((bound_kb * 2))
	echo "# AddressSanitizer build: the RSS bound is $((bound_kb / 1024)) MB"
fi

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

# run LABEL ARGS...: runs tapd under a 60 s limit; sets rc, out (its
# output) and rss (its peak resident set size in kB, from GNU time).
run() {
	local label=$1
	shift
	timeout 60 /usr/bin/time -v -o "$tmp/$label.time" "$TAPD" "$@" \
		>"$tmp/$label.out" 2>&1
	rc=$?
	out=$(cat "$tmp/$label.out")
	rss=$(awk -F': *' '/Maximum resident set size/ { print $2 }' \
		"$tmp/$label.time" 2>/dev/null)
	rss=${rss:-0}
	echo "# $label: exit $rc, peak RSS $rss kB"
}

rss_within() {
	[ "$rss" -gt 0 ] && [ "$rss" -le "$bound_kb" ]
}

detail() {
	printf 'rc %s, peak RSS %s kB (bound %s kB)\n%s\n' "$rc" "$rss" \
		"$bound_kb" "$out"
}

# /dev/zero: NUL bytes and never a newline.
run zero replay --input getevent:/dev/zero --db "$tmp/zero.db"
holds "/dev/zero ends within 60 s" test "$rc" -ne 124
holds "/dev/zero fails" test "$rc" -ne 0
holds "/dev/zero peak RSS within bound" rss_within
holds "/dev/zero error names the file" \
	grep -q "cannot replay '/dev/zero': not one getevent line" \
	"$tmp/zero.out"

# A 50 MB line, then a real tap.
head -c $((50 * 1024 * 1024)) /dev/zero | tr '\0' x >"$tmp/long.getevent"
echo >>"$tmp/long.getevent"
cat "$fixtures/emulator-tap.getevent" >>"$tmp/long.getevent"
run long replay --input "getevent:$tmp/long.getevent" --db "$tmp/long.db"
check "long line replay exit" 0 "$rc"
holds "long line peak RSS within bound" rss_within
check "long line: the tap is stored" "tap|42453256000" \
	"$(q "$tmp/long.db" 'select kind, t_up_ns from taps')"
holds "long line counted as skipped" \
	grep -q "lines      10 read, 1 skipped, 9 events" "$tmp/long.out"
holds "long line warned about once" \
	test "$(grep -c "1 lines longer than 4096 bytes skipped" \
		"$tmp/long.out")" -eq 1

# The same through a pipe, which cannot be sized or rewound.
mkfifo "$tmp/fifo"
cat "$tmp/long.getevent" >"$tmp/fifo" &
run fifo replay --input "getevent:$tmp/fifo" --db "$tmp/fifo.db"
wait
check "fifo replay exit" 0 "$rc"
holds "fifo peak RSS within bound" rss_within
check "fifo: the tap is stored" "tap|42453256000" \
	"$(q "$tmp/fifo.db" 'select kind, t_up_ns from taps')"

# An endless line through a pipe: refused after 64 MiB without a line,
# and after a tap at the 1 GiB limit; memory stays bounded either way.
endless() {
	yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |
		tr -d '\n'
}
mkfifo "$tmp/endless"
endless >"$tmp/endless" 2>/dev/null &
run endless replay --input "getevent:$tmp/endless" --db "$tmp/endless.db"
wait
holds "endless line refused" test "$rc" -ne 0 -a "$rc" -ne 124
holds "endless line peak RSS within bound" rss_within
holds "endless line error names the pipe" \
	grep -q "cannot replay '$tmp/endless': not one getevent line" \
	"$tmp/endless.out"
{ cat "$fixtures/emulator-tap.getevent"; endless; } >"$tmp/endless" \
	2>/dev/null &
run endless2 replay --input "getevent:$tmp/endless" --db "$tmp/endless2.db"
wait
holds "tap then endless line refused" test "$rc" -ne 0 -a "$rc" -ne 124
holds "tap then endless line peak RSS within bound" rss_within
holds "tap then endless line: the limit is named" \
	grep -q "cannot replay '$tmp/endless': the log is larger than" \
	"$tmp/endless2.out"

# A normal capture gives the rows it always gave.
cols='kind, status, t_down_ns, t_up_ns, x, y, frames'
run two replay --input "getevent:$fixtures/two-devices.getevent" \
	--db "$tmp/two.db"
check "two-devices replay exit" 0 "$rc"
check "two-devices rows" "tap|frames_unavailable|20513100200000|20513180017000|556.0|1412.0|0" \
	"$(q "$tmp/two.db" "select $cols from taps")"
holds "two-devices summary" \
	grep -q "lines      17 read, 0 skipped, 9 events of this device, 4 of others" \
	"$tmp/two.out"
holds "two-devices peak RSS within bound" rss_within

finish
