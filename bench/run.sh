#!/usr/bin/env bash
# Every benchmark in turn, then one table of their figures.
#
# The contract: each benchmark prints, beside its own output, one line per
# figure
#
#   bench-row: FIGURE|TAPD|COMPARISON|RATIO_OR_GOAL
#
# (what is measured; tapd's figure; what it is held against: wc -l, the
# sqlite3 shell or a target; their ratio, or whether the goal is met).
# This script runs each one through `make`, keeps its whole output in
# build/bench/NAME.log, shows it as it goes, and prints the rows of all of
# them at the end.  A benchmark whose make target does not exist gets a
# row "NAME: not built"; one that fails keeps its rows and gets one more
# saying so.
#
#   bench/run.sh [NAME...]     (default: replay query http live)
set -u
build=${BUILD:-build}
out=$build/bench
mkdir -p "$out"
names=${*:-replay query http live}
status=0
: >"$out/rows"
# bench-query and bench-http share the 1 M-tap file, filled once and
# cached outside the tree.
if [ -z "${BENCH_DB:-}" ] && make -s all >/dev/null && db=$(bash bench/http/db.sh); then
	export BENCH_DB=$db
fi

for name in $names; do
	target=bench-$name
	echo "== make $target"
	if ! make -n "$target" >/dev/null 2>&1; then
		echo "$name: not built (no make target $target)"
		echo "$name: not built|-|-|-" >>"$out/rows"
		continue
	fi
	make --no-print-directory "$target" 2>&1 | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	sed -n 's/^bench-row: //p' "$out/$name.log" >>"$out/rows"
	if [ "$rc" -ne 0 ]; then
		echo "$name: make $target failed (exit $rc)|-|-|-" >>"$out/rows"
		status=1
	fi
done

echo
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
awk -F'|' '
	{ for (i = 1; i <= 4; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
	END {
		h[1] = "figure"; h[2] = "tapd"; h[3] = "comparison"; h[4] = "ratio"
		for (i = 1; i <= 4; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
		printf "| %-*s | %-*s | %-*s | %-*s |\n", w[1], h[1], w[2], h[2], w[3], h[3], w[4], h[4]
		printf "|-%s-|-%s-|-%s-|-%s-|\n", dash(w[1]), dash(w[2]), dash(w[3]), dash(w[4])
		for (r = 1; r <= NR; r++)
			printf "| %-*s | %-*s | %-*s | %-*s |\n", w[1], c[r, 1], w[2], c[r, 2], w[3], c[r, 3], w[4], c[r, 4]
	}
	function dash(n,  s) { s = ""; while (n-- > 0) s = s "-"; return s }
' "$out/rows"
exit "$status"
