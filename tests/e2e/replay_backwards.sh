#!/usr/bin/env bash
# A getevent log whose time goes back: a simulated session's log recorded
# twice into one file (`cat log log`), and the same log reversed.  tapd
# replay must stop at the jump with an error that names the file and the
# line, store no tap twice (what came before the jump is kept, nothing
# after), end its run and exit 1.  Run from the repository root; BUILD
# names the build directory (default build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"

NAME=replay_backwards
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD"
need_tools sqlite3

work_dir backwards
dir="$work/sim"
if ! "$SIM" gen --scenario long --seed 1 --duration 30 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
lines=$(wc -l <"$dir/input.getevent")
cat "$dir/input.getevent" "$dir/input.getevent" >"$dir/input.getevent.twice"
tac "$dir/input.getevent" >"$dir/input.getevent.reversed"

# replay LABEL LOG: replays LOG into $work/LABEL.db; sets out and rc.
replay() {
	out=$("$TAPD" replay --input "getevent:$2" \
		--frames "ftl:$dir/frames.pftrace" \
		--foreground "log:$dir/foreground.log" --db "$work/$1.db" 2>&1)
	rc=$?
}

q() {
	sqlite3 "$work/$1.db" "$2" 2>&1
}

# The reference: the log once.
replay once "$dir/input.getevent"
check "the log once: exit status" 0 "$rc"
once=$(q once 'SELECT count(*) FROM taps')
if [ "${once:-0}" -gt 1 ] 2>/dev/null; then
	ok "the log once: $once rows"
else
	ko "the log once: expected several rows, got '$once'" "$out"
fi

# detail: what the last replay printed, for a failed check.
detail() {
	printf '%s\n' "$out"
}

# Twice: the jump is at the first line of the second copy.
replay twice "$dir/input.getevent.twice"
check "twice: exit status" 1 "$rc"
holds "twice: the error names the file and line $((lines + 1))" \
	grep -q "error: '$dir/input.getevent.twice' line $((lines + 1)): time goes back" <<<"$out"
holds "twice: the summary says the replay stopped" \
	grep -q "^STOPPED    at line $((lines + 1)): time goes back" <<<"$out"
check "twice: no duplicate t_up_ns" 0 \
	"$(q twice 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "twice: the rows of the log once, no more" \
	"$(q once 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns')" \
	"$(q twice 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns')"
check "twice: the run is ended" "1|1" \
	"$(q twice 'SELECT count(*), count(ended_ns) FROM runs')"
holds "twice: no out-of-order error" \
	bash -c '! grep -q "out of order" <<<"$1"' _ "$out"

# Reversed: time goes back on the second event line already.
replay reversed "$dir/input.getevent.reversed"
check "reversed: exit status" 1 "$rc"
holds "reversed: the error names the file and a line" \
	grep -Eq "error: '$dir/input.getevent.reversed' line [0-9]+: time goes back [0-9]+\.[0-9]{6} s \(from [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6}\)" <<<"$out"
holds "reversed: no out-of-order error" \
	bash -c '! grep -q "out of order" <<<"$1"' _ "$out"
check "reversed: no duplicate t_up_ns" 0 \
	"$(q reversed 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "reversed: no rows" 0 "$(q reversed 'SELECT count(*) FROM taps')"
check "reversed: the run is ended" "1|1" \
	"$(q reversed 'SELECT count(*), count(ended_ns) FROM runs')"

finish
