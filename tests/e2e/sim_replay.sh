#!/usr/bin/env bash
# End to end against the ground truth: for every scenario of tapd-sim and
# a few seeds, generate a recorded session, replay it with tapd into a
# database, and compare the database with the session's truth.json.  The
# long scenario runs once, for 60 s.  Run from the repository root; BUILD
# names the build directory (default build).  Exits non-zero on any
# failure, printing the replay log or the differences of the failed runs.
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
SEEDS="1 2 3"

NAME=sim_replay
. "$(dirname "$0")/lib/report.sh"

need_bins "$SIM" "$TAPD"

scenarios=$("$SIM" list --no-windows) || {
	ko "'$SIM list' failed"
	finish
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-sim.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

gestures=0
taps=0

# Runs one scenario and seed; extra arguments go to tapd-sim gen.
run() {
	local scenario=$1 seed=$2 dir out summary
	shift 2
	dir="$work/$scenario-$seed"
	if ! "$SIM" gen --scenario "$scenario" --seed "$seed" --out "$dir" \
		"$@" >"$work/gen.log" 2>&1; then
		ko "$scenario seed $seed: tapd-sim gen failed"
		sed 's/^/    /' "$work/gen.log"
		return
	fi
	if ! "$TAPD" replay --session "$dir" --db "$dir/taps.db" \
		>"$dir/replay.log" 2>&1; then
		ko "$scenario seed $seed: tapd replay failed"
		sed 's/^/    /' "$dir/replay.log"
		return
	fi
	out=$("$SIM" check --truth "$dir/truth.json" --db "$dir/taps.db" 2>&1)
	local rc=$?
	summary=$(printf '%s\n' "$out" | grep '^check:' | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		ko "$scenario seed $seed: ${summary:-tapd-sim check failed}"
		printf '%s\n' "$out" | grep -v '^check:' | head -n 60 |
			sed 's/^/    /'
	else
		ok "$scenario seed $seed: ${summary#check: }"
	fi
	# "check: N gestures compared (T taps, ...": add up N and T.
	local n t
	n=$(printf '%s\n' "$summary" | sed -n 's/^check: \([0-9]*\) gestures.*/\1/p')
	t=$(printf '%s\n' "$summary" | sed -n 's/.*(\([0-9]*\) taps.*/\1/p')
	gestures=$((gestures + ${n:-0}))
	taps=$((taps + ${t:-0}))
	# Keep the disk use small: a passed run is not needed any more.
	[ "$rc" -ne 0 ] || rm -rf "$dir"
}

# The simulator must be deterministic: the same scenario and seed give the
# same files, another seed gives others.
det() {
	"$SIM" gen --scenario mixed --seed "$2" --out "$work/det-$1" \
		>/dev/null 2>&1
}
if det a 5 && det b 5 && det c 6 &&
	diff -r "$work/det-a" "$work/det-b" >/dev/null &&
	! cmp -s "$work/det-a/frames.pftrace" "$work/det-c/frames.pftrace"; then
	ok "determinism: same seed, same session"
else
	ko "determinism: one seed gave two sessions, or two seeds one"
fi

# A control: the check must catch a latency off by 2 us in the database.
if "$SIM" gen --scenario idle --seed 4 --out "$work/ctl" >/dev/null 2>&1 &&
	"$TAPD" replay --session "$work/ctl" --db "$work/ctl/taps.db" \
		>/dev/null 2>&1 &&
	"$SIM" check --truth "$work/ctl/truth.json" --db "$work/ctl/taps.db" \
		>/dev/null 2>&1 &&
	command -v sqlite3 >/dev/null &&
	sqlite3 "$work/ctl/taps.db" "UPDATE taps SET first_frame_ns = \
		first_frame_ns + 2000 WHERE id = (SELECT min(id) FROM taps \
		WHERE status = 'ok')" &&
	! "$SIM" check --truth "$work/ctl/truth.json" --db "$work/ctl/taps.db" \
		>/dev/null 2>&1; then
	ok "control: a 2 us error is caught"
else
	ko "control: the check did not catch a 2 us error (or could not run)"
fi
rm -rf "$work/det-a" "$work/det-b" "$work/det-c" "$work/ctl"

for scenario in $scenarios; do
	if [ "$scenario" = long ]; then
		run long 1 --duration 60
		continue
	fi
	for seed in $SEEDS; do
		run "$scenario" "$seed"
	done
done

echo "sim_replay: $((pass + fail)) runs, $fail failed; $gestures gestures compared ($taps taps)"
finish
