#!/usr/bin/env bash
# make soak: tapd's endurance tests, against the real binaries, child
# processes, SQLite files and sockets; not part of make check.  About 8
# minutes on a 2-core machine (at most 15); SOAK_SCALE=0.1 shortens every
# part for a quick look (iterations and durations scaled, at least one of
# each), SOAK_SEED changes the random moments, SOAK_KEEP=1 keeps the
# scratch directories, SOAK_PARTS="kill load" runs some parts only.
#
# The parts (each script's header has the details):
#
#   kill.sh      kill -9 of tapd at random moments of a paced ingest,
#                100 times on one database
#   restart.sh   kill -9 of tapd run itself, 10 times, restarted on its
#                database and pidfile
#   perfetto.sh  the perfetto child of tapd run killed 50 times
#   disk.sh      the disk full under tapd run and under a paced replay,
#                then space given back (skipped without a mount namespace)
#   load.sh      64 clients for 60 s beside 200 idle sockets and 40
#                slowloris senders, during a paced replay
#
# Each part prints its checks as it goes ("ok ..." or "FAIL ..."), then
# one row of the table printed at the end:
#
#   part        what was done to tapd
#   iterations  kills, outages, or seconds of load
#   failures    kills (kill.sh) or checks (the others) that failed
#   measured    the figures: corrupt files, the most finalized taps lost
#               in one kill and how long before the kill the oldest of
#               them was final; sessions answered and stored across kills
#               of tapd run, perfetto children left behind; frames logged
#               by the fake perfetto against frames tapd read; for the
#               full disk, the 507s, the store's health and how fast it
#               came back, gestures missing; for the load, requests,
#               errors, /v1/health's max and p99 latency, sockets held
#   bound       what the issue asks
#   result      pass, FAIL, or skipped (could not run here)
#   time        the part's wall time
#
# The last line is "soak: N passed, N failed, N skipped" (parts); the exit
# status is 0 when none failed.
set -u
here=$(dirname "$0")
parts=${SOAK_PARTS:-kill restart perfetto disk load}
rows=$(mktemp)
out=$(mktemp)
trap 'rm -f "$rows" "$out"' EXIT
start=$(date +%s)
for p in $parts; do
	echo "== $p.sh (SOAK_SCALE=${SOAK_SCALE:-1})"
	t0=$(date +%s)
	bash "$here/$p.sh" 2>&1 | tee "$out"
	t=$(($(date +%s) - t0))
	line=$(grep "^soak-row	" "$out" | tail -n 1)
	if [ -z "$line" ]; then
		line="soak-row	$p	0	1	no row: the part failed early	-	FAIL"
	fi
	printf '%s\t%d s\n' "$line" "$t" >>"$rows"
done
total=$(($(date +%s) - start))

echo
awk -F'\t' -v total="$total" '
	BEGIN {
		h[1] = "part"; h[2] = "iterations"; h[3] = "failures"
		h[4] = "measured"; h[5] = "bound"; h[6] = "result"; h[7] = "time"
		for (i = 1; i <= 7; i++) w[i] = length(h[i])
	}
	{
		n++
		for (i = 2; i <= 8; i++) {
			c[n, i - 1] = $i
			if (length($i) > w[i - 1]) w[i - 1] = length($i)
		}
	}
	function line(get,   i, s) {
		s = ""
		for (i = 1; i <= 7; i++)
			s = s sprintf("%-" w[i] "s%s", get[i], i < 7 ? " | " : "")
		print s
	}
	END {
		line(h)
		for (i = 1; i <= 7; i++) d[i] = sprintf("%" w[i] "s", "")
		for (i = 1; i <= 7; i++) gsub(/ /, "-", d[i])
		line(d)
		for (r = 1; r <= n; r++) {
			for (i = 1; i <= 7; i++) v[i] = c[r, i]
			line(v)
		}
		printf "\nwall time %d min %02d s\n", total / 60, total % 60
	}' "$rows"
passed=$(awk -F'\t' '$7 == "pass"' "$rows" | wc -l)
failed=$(awk -F'\t' '$7 == "FAIL"' "$rows" | wc -l)
skipped=$(awk -F'\t' '$7 == "skipped"' "$rows" | wc -l)
echo "soak: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
