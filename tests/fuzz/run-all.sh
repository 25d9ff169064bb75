#!/bin/sh
# Runs every fuzz target named, one after the other and one process each
# (the machine is shared), for SECONDS each, over its corpus and seeds, and
# prints a table: target, executions, exec/s, corpus size, crashes.  A
# crash stops only its own target; its input is left as
# DIR/crash-NAME-*, for a regression seed.  Exits 1 when any target
# crashed.
#
#   sh tests/fuzz/run-all.sh DIR SECONDS NAME...
set -u

dir=$1
secs=$2
shift 2
table=$(mktemp)
trap 'rm -f "$table"' EXIT
bad=0
for name in "$@"; do
	bin="$dir/fuzz_$name"
	corpus="$dir/corpus-$name"
	seeds=""
	[ -d "tests/fuzz/seeds-$name" ] && seeds="tests/fuzz/seeds-$name"
	mkdir -p "$corpus"
	log="$dir/fuzz-$name.log"
	before=$(ls "$dir" | grep -c "^crash-$name-")
	echo "fuzz_$name: $secs s, log in $log"
	"$bin" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$dir/crash-$name-" "$corpus" $seeds \
		>"$log" 2>&1
	rc=$?
	after=$(ls "$dir" | grep -c "^crash-$name-")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	# A crash prints no final stats: the last status line has the count.
	if [ -z "$execs" ]; then
		execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
		rate=$(sed -n 's/.* exec\/s: \([0-9][0-9]*\).*/\1/p' "$log" |
			tail -n 1)
	fi
	crashes=$((after - before))
	[ "$rc" -eq 0 ] || [ "$crashes" -gt 0 ] || crashes=1
	[ "$crashes" -eq 0 ] || bad=1
	printf '%-12s %12s %8s %8s %8s\n' "$name" "${execs:-?}" "${rate:-?}" \
		"$(ls "$corpus" | wc -l)" "$crashes" >>"$table"
done
printf '%-12s %12s %8s %8s %8s\n' target executions exec/s corpus crashes
cat "$table"
exit "$bad"
