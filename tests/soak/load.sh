#!/usr/bin/env bash
# Soak, part 4: the API under load during a paced replay.
#
# A simulated session (tapd-sim, scenario long, 240 s) is replayed with
# --pace so that it lasts the 60 s of the load (SOAK_SCALE shortens
# both), with --listen.  Meanwhile, all from 127.0.0.1 as adb forward
# clients are:
#
#  - 200 idle sockets and 40 slowloris senders (a byte of a request head
#    every second), each reopened as soon as the server closes it (the
#    idle timeout, a request-head deadline), so that 240 stay held;
#  - 64 clients (4 processes of 16 threads), each on a keep-alive
#    connection, asking a mix of /v1/health, /v1/taps (JSON and CSV),
#    /v1/apps, /v1/percentiles, /v1/histogram, /v1/trace, /v1/sessions
#    and /metrics with 50 to 250 ms between requests;
#  - a prober asking /v1/health every 20 ms on a new connection each.
#
# Every request timed with the monotonic clock around the request and the
# whole answer.  Bounds: 0 errors (no failed connection, no status but
# 200, no answer slower than 5 s; a request that finds its kept-alive
# connection already closed by the server is asked again once on a new
# one, as curl would, and counted), every /v1/health answer (the
# clients' and the prober's) within 100 ms, and at the end every gesture
# of the replay stored as the truth has it (tapd-sim check).
#
# Its row: seconds of load, failures, requests and errors, /v1/health's
# count, max and p99 (nearest rank), how many answers took over 100 ms
# and how many of those came within 2 s of the server closing held
# sockets (the idle timeout closes the 200 idle ones together, as they
# were opened together), the fewest sockets held, the reconnections, the
# check.  On a machine shared with other work the latency bound is the
# first to go: the row says how far.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=soak_load
here=$(dirname "$0")
. "$here/../e2e/lib/report.sh"
. "$here/../e2e/lib/server.sh"
. "$here/lib.sh"
need_bins "$TAPD" "$SIM"
need_tools python3 jq curl
work_dir soak-load
[ "${SOAK_KEEP:-0}" = 1 ] && trap 'stop_servers; echo "kept $work"' EXIT

SECONDS_LOAD=$(scaled 60)
[ "$SECONDS_LOAD" -ge 6 ] || SECONDS_LOAD=6
D=$(scaled 240)
[ "$D" -ge 40 ] || D=40
PACE=$(awk -v d="$D" -v s="$SECONDS_LOAD" 'BEGIN { printf "%.3f", d / s }')
IDLE=200
SLOW=40
CLIENTS=64
PROCS=4

dir=$work/sim
if ! "$SIM" gen --scenario long --seed 3 --duration "$D" --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(cat "$work/gen.log")"
	row "API load" 0 1 "tapd-sim gen failed" "-"
	finish
fi
if ! start_server "$work/out" "$TAPD" replay --session "$dir" \
	--db "$work/taps.db" --pace "$PACE" --listen 127.0.0.1:0; then
	ko "tapd replay --listen serves" "$(tail -n 5 "$work/out.err")"
	row "API load" 0 1 "tapd did not start" "-"
	finish
fi
rp=$pid

py hold "$port" "$((SECONDS_LOAD + 2))" "$IDLE" "$SLOW" "$work/hold.json" \
	2>"$work/hold.err" &
helpers=($!)
sleep 1
for k in $(seq 1 "$PROCS"); do
	py clients "$port" "$SECONDS_LOAD" $((CLIENTS / PROCS)) "$k" \
		"$work/clients-$k.json" 2>"$work/clients-$k.err" &
	helpers+=($!)
done
py probe "$port" "$SECONDS_LOAD" "$work/probe.json" 2>"$work/probe.err" &
helpers+=($!)
for h in "${helpers[@]}"; do
	wait "$h"
done
py load "$work/load.json" "$work"/clients-*.json "$work/probe.json" \
	"$work/hold.json" 2>"$work/load.err"
if [ ! -s "$work/load.json" ]; then
	ko "the load's records" "$(tail -n 5 "$work"/*.err)"
	row "API load" 0 1 "no records" "-"
	finish
fi
j() {
	jq -r "$1" "$work/load.json"
}

# The replay to the end of its input, then stopped.
for i in $(seq 1 600); do
	[ "$(curl -s --max-time 2 "$url/v1/health" |
		jq -r .sources.input.health)" = done ] && break
	kill -0 "$rp" 2>/dev/null || break
	sleep 0.1
done
stop_server "$rp" 10
servers=()
check "the replay stops cleanly" 0 "$status"
"$SIM" check --truth "$dir/truth.json" --db "$work/taps.db" \
	>"$work/check.out" 2>&1
crc=$?
summary=$(grep '^check:' "$work/check.out" | tail -n 1)
summary=${summary#check: }
check "every gesture of the paced replay stored ($summary)" 0 "$crc"

requests=$(j .requests)
errors=$(j .errors)
check "$requests requests by $(j .clients) clients and the prober ($(j .retried) asked again on a new connection): errors" 0 "$errors"
[ "$errors" = 0 ] || j '.why | to_entries[] | "    \(.value) \(.key)"'
over=$(j .health_over_100ms)
near=$(j .health_over_100ms_near_closes)
check "/v1/health: $(j .health_n) answers, max $(j .health_max_ms) ms, p99 $(j .health_p99_ms) ms: over 100 ms ($near within 2 s of the server closing held sockets)" 0 "$over"
held=$(j '.hold.min_open')
holds "sockets held: at least $held of $((IDLE + SLOW)) ($(j .hold.closed_by_server) closed by the server and reopened, $(j .hold.open_failures) could not open)" \
	test "${held:-0}" -ge $((IDLE + SLOW - 10))
missing=$(sed -n 's/.* \([0-9]*\) missing.*/\1/p' <<<"$summary")
row "API load" "${SECONDS_LOAD} s" "$fail" \
	"$requests requests, $errors errors ($(j .retried) retried); /v1/health n $(j .health_n), max $(j .health_max_ms) ms, p99 $(j .health_p99_ms) ms, $over > 100 ms ($near near closes); $held held, $(j .hold.closed_by_server) reopened; ${missing:-?} missing" \
	"0 errors, health <= 100 ms, 0 missing"
finish
