# Sourced by the soak parts (tests/soak/[0-9]*.sh), after
# tests/e2e/lib/report.sh and tests/e2e/lib/server.sh.
#
#   SOAK_SCALE (1)       iterations and durations are scaled by it (0.1
#                        for a quick look); never below one iteration
#   scaled N             N * SOAK_SCALE, rounded, at least 1
#   scaled_s SECONDS     SECONDS * SOAK_SCALE, at least 1, with decimals
#   row PART ITER FAIL FIGURES BOUND
#                        the part's row of the table (a line the runner
#                        reads); its result is "pass" when FAIL is 0
#   skip_row PART WHY    the part could not run here: counted as skipped
#   py MODE ARGS...      tests/soak/soak.py
#   rnd LO HI            sets REPLY to a uniform random number in [LO,
#                        HI), from a generator seeded by SOAK_SEED (not
#                        in $(...): the state lives in this shell)
SOAK_SCALE=${SOAK_SCALE:-1}
SOAK_SEED=${SOAK_SEED:-1}
soak_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

scaled() {
	awk -v n="$1" -v s="$SOAK_SCALE" \
		'BEGIN { v = int(n * s + 0.5); print (v < 1 ? 1 : v) }'
}

scaled_s() {
	awk -v n="$1" -v s="$SOAK_SCALE" \
		'BEGIN { v = n * s; printf "%.1f\n", (v < 1 ? 1 : v) }'
}

row() {
	local result=pass
	[ "$3" -eq 0 ] || result=FAIL
	printf 'soak-row\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" \
		"$result"
}

skip_row() {
	printf 'soak-row\t%s\t0\t0\t%s\t-\tskipped\n' "$1" "$2"
}

py() {
	python3 "$soak_dir/soak.py" "$@"
}

# A generator of our own, so that a run can be repeated with SOAK_SEED.
rnd_state=$SOAK_SEED
rnd() {
	rnd_state=$(((rnd_state * 1103515245 + 12345) % 2147483648))
	REPLY=$(awk -v lo="$1" -v hi="$2" -v r="$rnd_state" \
		'BEGIN { printf "%.3f\n", lo + (hi - lo) * r / 2147483648 }')
}
