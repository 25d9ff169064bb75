#!/usr/bin/env bash
# The answer cache of /v1/percentiles, /v1/apps and /v1/histogram
# (docs/DESIGN.md 7.6) over real HTTP.  A simulated session is replayed
# into a database and served by `tapd serve`; each URL is asked many
# times at once, so that every pooled connection keeps its answer, and
# every answer must be byte for byte the same.  Then a second session is
# replayed into the same file by another process while the server runs:
# each URL, asked many times at once again, must give byte for byte what
# a second `tapd serve` of the file (whose cache is empty) gives, and not
# what it gave before the write.  Run from the repository root; BUILD
# names the build directory (default build).
set -u

BUILD=${BUILD:-build}
TAPD=${TAPD_UNDER_TEST:-$BUILD/tapd}
SIM="$BUILD/tapd-sim"
NAME=api_cache
# Requests per URL, and how many of them run at once.
TIMES=24
PARALLEL=8

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_tools curl jq cmp xargs
need_bins "$TAPD" "$SIM"

work_dir api-cache

db="$work/taps.db"
for seed in 3 4; do
	if ! "$SIM" gen --scenario long --seed "$seed" --duration 120 \
		--out "$work/s$seed" >"$work/gen$seed.log" 2>&1; then
		ko "tapd-sim gen --seed $seed"
		sed 's/^/    /' "$work/gen$seed.log"
		finish
	fi
done
if ! "$TAPD" replay --session "$work/s3" --db "$db" >"$work/replay3.log" 2>&1; then
	ko "tapd replay of the first session"
	sed 's/^/    /' "$work/replay3.log"
	finish
fi

# An app with measured taps in both sessions, so that its answers change.
app=$(jq -rn --slurpfile a "$work/s3/truth.json" --slurpfile b "$work/s4/truth.json" '
	[$a[0].gestures[] | select(.status == "ok") | .app] as $x
	| [$b[0].gestures[] | select(.status == "ok") | .app] as $y
	| [$x[] | select(. as $v | $y | index($v))] | unique | .[0] // ""')
if [ -z "$app" ]; then
	ko "the two sessions share no app with measured taps"
	finish
fi

paths=(
	"/v1/percentiles?p=50,90,99"
	"/v1/percentiles?app=$app&metric=settle&p=10,50,99.9"
	"/v1/percentiles?app=$app&method=exact"
	"/v1/apps"
	"/v1/histogram?app=$app&buckets=20"
)

serve_db "$db"
base=$url

# many LABEL PATH: TIMES requests of PATH, PARALLEL at once, into
# $work/LABEL.N; prints "same" when every one is 200 and all the bodies
# are the same bytes, else what differed.
many() {
	local label=$1 path=$2 i codes
	seq 1 "$TIMES" | xargs -P "$PARALLEL" -I{} curl -sS --max-time 20 \
		-o "$work/$label.{}" -w '%{http_code}\n' "$base$path" \
		>"$work/$label.codes" 2>"$work/$label.err"
	codes=$(sort -u "$work/$label.codes" | tr '\n' ' ')
	if [ "$codes" != "200 " ]; then
		echo "HTTP $codes"
		return
	fi
	for i in $(seq 2 "$TIMES"); do
		if ! cmp -s "$work/$label.1" "$work/$label.$i"; then
			echo "answer $i differs from the first"
			return
		fi
	done
	echo same
}

for i in "${!paths[@]}"; do
	check "before the write, ${paths[$i]} answers the same $TIMES times" \
		same "$(many "before$i" "${paths[$i]}")"
done

# The writer is another process, as the live daemon is to `tapd serve`.
if ! "$TAPD" replay --session "$work/s4" --db "$db" >"$work/replay4.log" 2>&1; then
	ko "tapd replay of the second session into the served file"
	sed 's/^/    /' "$work/replay4.log"
	finish
fi

for i in "${!paths[@]}"; do
	check "after the write, ${paths[$i]} answers the same $TIMES times" \
		same "$(many "after$i" "${paths[$i]}")"
done

# A server started now has no answer kept: its answers are fresh ones.
if ! start_server "$work/fresh.out" "$TAPD" serve --db "$db" \
	--listen 127.0.0.1:0; then
	ko "the second tapd serve did not say where it listens" \
		"$(cat "$work/fresh.out.err")"
	finish
fi
fresh=$url
for i in "${!paths[@]}"; do
	curl -sS --max-time 20 -o "$work/fresh$i" "$fresh${paths[$i]}" \
		2>"$work/fresh.err"
	holds "after the write, ${paths[$i]} is what a fresh server answers" \
		cmp -s "$work/fresh$i" "$work/after$i.1"
	if cmp -s "$work/before$i.1" "$work/after$i.1"; then
		ko "${paths[$i]} gave the answer from before the write" \
			"$(head -c 300 "$work/after$i.1")"
	else
		ok "${paths[$i]} no longer gives the answer from before the write"
	fi
done

finish
