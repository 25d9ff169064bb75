#!/usr/bin/env bash
# Every fuzz target (make fuzz-bins) run once over each of its seeds, no
# fuzzing: so that a target that no longer builds, or a seed that makes it
# crash, is seen by make check rather than at the next long run.  Run from
# the repository root; BUILD names the build directory (default build).
# Ends with "fuzz_seeds: N passed, N failed".
set -u

NAME=fuzz_seeds
. "$(dirname "$0")/lib/report.sh"

BUILD=${BUILD:-build}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin="$BUILD/fuzz/$name"
	seeds="tests/fuzz/seeds-${name#fuzz_}"
	if [ ! -x "$bin" ]; then
		ko "$name: '$bin' is missing: run make fuzz-bins"
		continue
	fi
	if [ ! -d "$seeds" ] || [ -z "$(ls "$seeds")" ]; then
		ko "$name: no seeds in $seeds"
		continue
	fi
	# Files given one by one are each run once, nothing is written.
	if "$bin" "$seeds"/* >"$out" 2>&1; then
		ok "$name: $(ls "$seeds" | wc -l) seeds"
	else
		ko "$name: a seed fails" "$(tail -n 30 "$out")"
	fi
done
finish
