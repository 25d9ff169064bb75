#!/usr/bin/env bash
# A farm of four phones under a real Prometheus.  Four simulated devices
# (tapd-sim's long scenario, an hour each, two models, a serial each in
# device.json) are replayed into four databases and served by four
# `tapd serve` on free loopback ports; Debian's Prometheus, with its own
# data directory, scrapes them every second with no relabelling.  Over
# Prometheus's HTTP API, histogram_quantile() gives p50, p90 and p99 of
# first frame and settle per app and device, per app over the farm, per
# device and per model (joined through tapd_device_info), and over the
# farm; each is compared with the exact nearest rank over the four
# databases merged in sqlite3.  The table is printed; p50 and p90 of
# every group of at least 100 taps must be within 2% (or 1 ms).  A
# control, one database served again with tapd's former buckets in a job
# of its own, must be caught off by more than that.  One device's
# database holds injected taps (INJECTED below): tapd_taps_injected_total
# and tapd_gestures_injected_total, summed through Prometheus, must equal
# the rows flagged injected in the databases, by app and status and by
# kind, with series only for the app that had them.  Then every query of
# the Grafana dashboard (init/grafana/tapd.json) must answer with at least
# one series; the panels over series tapd does not expose yet (PENDING
# below) are counted as skipped, by name, until it does.  Run from the
# repository root; BUILD names the build directory.
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
DASHBOARD=init/grafana/tapd.json
MIN_TAPS=100

NAME=prometheus_farm
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq sqlite3 prometheus

skipped=0
skip() {
	skipped=$((skipped + 1))
	echo "skip $*"
}
done_() {
	echo "$NAME: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
	exit
}

prom_pid=
work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-farm.XXXXXX") || exit 1
cleanup() {
	stop_servers
	if [ -n "$prom_pid" ] && kill -0 "$prom_pid" 2>/dev/null; then
		kill -TERM "$prom_pid"
		wait "$prom_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# Four devices: seed, serial, manufacturer, model.
devices=(
	"1 FARM0001 Simco Sim-A"
	"2 FARM0002 Simco Sim-A"
	"3 FARM0003 Othercorp Sim-B"
	"4 FARM0004 Othercorp Sim-B"
)
# The device whose database gets injected taps.
INJECTED=FARM0003
targets=""
for d in "${devices[@]}"; do
	read -r seed serial maker model <<<"$d"
	dir="$work/$serial"
	if ! "$SIM" gen --scenario long --seed "$seed" --duration 3600 \
		--out "$dir" >"$work/gen.log" 2>&1; then
		ko "tapd-sim gen of $serial" "$(tail -n 5 "$work/gen.log")"
		done_
	fi
	jq --arg s "$serial" --arg m "$maker" --arg o "$model" \
		'. + {serial: $s, manufacturer: $m, model: $o,
		      fingerprint: ($m + "/" + $o + "/sim:14/FARM/1:user/release-keys")}' \
		"$dir/device.json" >"$dir/device.json.new" &&
		mv "$dir/device.json.new" "$dir/device.json"
	if ! "$TAPD" replay --session "$dir" --db "$dir/taps.db" \
		>"$dir/replay.log" 2>&1; then
		ko "tapd replay of $serial" "$(tail -n 5 "$dir/replay.log")"
		done_
	fi
	# tapd-sim cannot inject, and a real injection needs a touch screen
	# that gives back what tapd writes into it.  So every third tap, long
	# press and swipe of the device's busiest app gets the flag injected
	# (512, store.h) that the pipeline sets on a gesture it wrote and read
	# back: the metrics know an injected tap by that flag alone, read by
	# the same scan whether the row came from `tapd run --allow-inject`
	# or from here, and no summary of the store depends on it (tap_counts
	# is kept by app, status and wall time, never by flags).
	if [ "$serial" = "$INJECTED" ] && ! sqlite3 "$dir/taps.db" "
		UPDATE taps SET flags = flags | 512
		WHERE id % 3 = 0 AND kind IN ('tap', 'long_press', 'swipe')
		AND app = (SELECT app FROM taps WHERE app IS NOT NULL
			   GROUP BY app ORDER BY count(*) DESC, app LIMIT 1)"; then
		ko "injected taps written into $serial's database"
		done_
	fi
	if ! start_server "$dir/serve.out" "$TAPD" serve --db "$dir/taps.db" \
		--listen 127.0.0.1:0; then
		ko "tapd serve of $serial" "$(cat "$dir/serve.out.err")"
		done_
	fi
	targets="$targets${targets:+, }'127.0.0.1:$port'"
	check "$serial: /metrics names its model" 1 \
		"$(curl -s "$url/metrics" | grep -c "^tapd_device_info{serial=\"$serial\",manufacturer=\"$maker\",model=\"$model\",")"
done

# A control: FARM0002's database served with the buckets tapd had before
# (8, 16, 25, 33, 50, 75, 100, 150, 200, 300, 500, 750 ms, 1, 2, 5 s),
# in a job of its own, which the comparison must find too coarse.
old_buckets=0.008,0.016,0.025,0.033,0.05,0.075,0.1,0.15,0.2,0.3,0.5,0.75,1,2,5
if ! start_server "$work/control.out" "$TAPD" serve \
	--db "$work/FARM0002/taps.db" --listen 127.0.0.1:0 \
	--buckets "$old_buckets"; then
	ko "tapd serve of the control" "$(cat "$work/control.out.err")"
	done_
fi
control=127.0.0.1:$port
control_pid=$pid

mkdir -p "$work/prom"
cat >"$work/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tapd
    static_configs:
      - targets: [$targets]
  - job_name: control
    static_configs:
      - targets: ['$control']
EOF
prometheus --config.file="$work/prom/prometheus.yml" \
	--storage.tsdb.path="$work/prom/data" \
	--web.listen-address=127.0.0.1:0 >"$work/prom/log" 2>&1 &
prom_pid=$!
# Prometheus logs the port it bound: "Listening on" address=HOST:PORT.
prom=
for i in $(seq 1 200); do
	prom=$(sed -n 's/.*msg="Listening on" address=\(127\.0\.0\.1:[0-9]*\).*/\1/p' \
		"$work/prom/log" | head -n 1)
	[ -n "$prom" ] && break
	kill -0 "$prom_pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$prom" ]; then
	ko "prometheus started" "$(tail -n 10 "$work/prom/log")"
	done_
fi
ok "prometheus listens on $prom"

# query EXPR: the result vector of an instant query, as JSON.
query() {
	curl -s --get "http://$prom/api/v1/query" --data-urlencode "query=$1" |
		jq -c '.data.result'
}

# Every target up, with its device info scraped at least twice.
up=0
for i in $(seq 1 300); do
	up=$(query 'sum(up) and count(count_over_time(tapd_device_info[1m]) >= 2) == 5' |
		jq -r '.[0].value[1] // 0')
	[ "$up" = 5 ] && break
	sleep 0.1
done
check "the five targets are up and scraped twice" 5 "$up"

# The exact nearest ranks from the databases, merged.
merged="$work/merged.db"
for d in "${devices[@]}"; do
	read -r seed serial maker model <<<"$d"
	db="$work/$serial/taps.db"
	sqlite3 "$merged" "ATTACH '$db' AS d;
		CREATE TABLE IF NOT EXISTS t (serial, model, app, first, settle);
		INSERT INTO t SELECT (SELECT serial FROM d.run_devices
				      ORDER BY run_id DESC LIMIT 1),
			(SELECT model FROM d.run_devices
			 ORDER BY run_id DESC LIMIT 1),
			coalesce(app, 'unknown'), first_frame_ns, settle_ns
		FROM d.taps WHERE status = 'ok'
		AND kind IN ('tap', 'long_press');
		CREATE TABLE IF NOT EXISTS g (app, kind, status, flags);
		INSERT INTO g SELECT coalesce(app, 'unknown'), kind, status, flags
		FROM d.taps;"
done

# exact GROUPCOLS METRIC Q100: "key<TAB>n<TAB>ns" per group, the key the
# group's values joined by '/' ('*' for the farm).
exact() {
	local cols=$1 col=$2 q=$3 key
	key=${cols:+$(echo "$cols" | sed "s/,/ || '\/' || /g")}
	sqlite3 -separator $'\t' "$merged" "
		WITH r AS (SELECT ${key:-'*'} AS k, $col AS v,
			row_number() OVER (PARTITION BY ${cols:-1}
					   ORDER BY $col) AS rn,
			count(*) OVER (PARTITION BY ${cols:-1}) AS n
			FROM t WHERE $col IS NOT NULL)
		SELECT k, n, v FROM r WHERE rn = max(1, (n * $q + 99) / 100)
		ORDER BY k"
}

# promq BY METRIC Q [JOB]: "key<TAB>seconds" per group, of the farm's
# job (or JOB).
promq() {
	local by=$1 metric=$2 q=$3 job=${4:-tapd} inner expr
	inner="${metric}_bucket{job=\"$job\"}"
	case ",$by," in
	*,serial,* | *,model,*)
		inner="$inner * on (instance) group_left (serial, model) tapd_device_info{job=\"$job\"}"
		;;
	esac
	expr="histogram_quantile($q, sum by (${by:+$by, }le) ($inner))"
	query "$expr" | jq -r --arg by "$by" '
		.[] | [(if $by == "" then "*" else
			 [($by | split(",")[]) as $l | .metric[$l]] | join("/")
		 end), .value[1]] | @tsv' | sort
}

printf '\n%-11s %-10s %-52s %-4s %6s %10s %10s %7s\n' metric scope group q taps \
	exact_ms prom_ms diff
gated=0
bad=()
for metric in first_frame settle; do
	case $metric in
	first_frame) col=first fam=tapd_tap_first_frame_seconds ;;
	settle) col=settle fam=tapd_tap_settle_seconds ;;
	esac
	for scope in "serial,app:device+app" "app:farm+app" "serial:device" \
		"model:model" "model,app:model+app" ":farm"; do
		by=${scope%%:*}
		label=${scope#*:}
		for q in 50 90 99; do
			promq "$by" "$fam" "0.$q" >"$work/prom.tsv"
			exact "$by" "$col" "$q" >"$work/exact.tsv"
			while IFS=$'\t' read -r key n ns; do
				got=$(awk -F'\t' -v k="$key" '$1 == k { print $2 }' \
					"$work/prom.tsv")
				line=$(awk -v e="$ns" -v g="${got:-nan}" -v q="$q" \
					-v n="$n" -v min="$MIN_TAPS" '
					BEGIN {
						if (g == "nan" || g == "NaN" || g == "") {
							printf "%10.3f %10s %7s %s", e / 1e6, "-", "-", "missing"
							exit
						}
						d = g * 1e9 - e; if (d < 0) d = -d
						tol = e * 0.02; if (tol < 1e6) tol = 1e6
						v = (q == 99 || n < min) ? "" : (d <= tol ? "ok" : "OVER")
						printf "%10.3f %10.3f %6.2f%% %s", e / 1e6, g * 1e3, d * 100 / e, v
					}')
				printf '%-11s %-10s %-52s p%-3s %6d %s\n' "$metric" \
					"$label" "${key:0:52}" "$q" "$n" "$line"
				case $line in
				*OVER | *missing)
					if [ "$q" != 99 ] && [ "$n" -ge "$MIN_TAPS" ]; then
						bad+=("$metric $label $key p$q: $line")
					fi
					;;
				esac
				if [ "$q" != 99 ] && [ "$n" -ge "$MIN_TAPS" ]; then
					gated=$((gated + 1))
				fi
			done <"$work/exact.tsv"
		done
	done
done
echo
if [ "$gated" -gt 0 ] && [ ${#bad[@]} -eq 0 ]; then
	ok "histogram_quantile within 2% (or 1 ms) of the nearest rank:" \
		"$gated p50/p90 of groups of $MIN_TAPS taps or more"
else
	ko "histogram_quantile off the nearest rank ($gated compared)" "${bad[@]}"
fi

# The control: with the old buckets, some p50 or p90 of FARM0002's apps
# is off by more than the tolerance, which shows the comparison can fail.
worst=$(for q in 50 90; do
	promq app tapd_tap_first_frame_seconds "0.$q" control >"$work/c.tsv"
	sqlite3 -separator $'\t' "$merged" "
		WITH r AS (SELECT app, first AS v,
			row_number() OVER (PARTITION BY app ORDER BY first) AS rn,
			count(*) OVER (PARTITION BY app) AS n
			FROM t WHERE serial = 'FARM0002' AND first IS NOT NULL)
		SELECT app, v FROM r WHERE rn = max(1, (n * $q + 99) / 100)
		AND n >= $MIN_TAPS" | while IFS=$'\t' read -r app ns; do
		awk -F'\t' -v a="$app" -v e="$ns" -v q="$q" '$1 == a {
			d = $2 * 1e9 - e; if (d < 0) d = -d
			tol = e * 0.02; if (tol < 1e6) tol = 1e6
			printf "%.2f p%s %s exact %.3f ms, old buckets %.3f ms\n", d / tol, q, a, e / 1e6, $2 * 1e3
		}' "$work/c.tsv"
	done
done | sort -rn | head -n 1)
if awk -v w="${worst%% *}" 'BEGIN { exit !(w + 0 > 1) }'; then
	ok "control: the old buckets miss by ${worst%% *} times the tolerance (${worst#* })"
else
	ko "control: the old buckets were not caught" "${worst:-no answer}"
fi

# The control goes away before the dashboard's queries, which span every
# job: its failed scrape marks its series stale at once.
stop_server "$control_pid"
n=0
for i in $(seq 1 300); do
	n=$(query 'count(tapd_device_info)' | jq -r '.[0].value[1] // 0')
	[ "$n" = 4 ] && break
	sleep 0.1
done
check "the control's series gone stale" 4 "$n"

# Injected taps: through Prometheus as in the databases (flags & 512).
# vsum EXPR: the value of a one-sample instant query, "none" without one.
vsum() {
	query "$1" | jq -r 'if length == 1 then .[0].value[1] else "none" end'
}
inj_taps=$(sqlite3 "$merged" "SELECT count(*) FROM g WHERE flags & 512 != 0
	AND kind IN ('tap', 'long_press')")
all_taps=$(sqlite3 "$merged" "SELECT count(*) FROM g
	WHERE kind IN ('tap', 'long_press')")
if [ "${inj_taps:-0}" -gt 0 ]; then
	ok "the databases hold $inj_taps injected taps of $all_taps"
else
	ko "no injected taps in the databases"
fi
check "sum(tapd_taps_injected_total) is the databases' count, $inj_taps" "$inj_taps" \
	"$(vsum 'sum(tapd_taps_injected_total{job="tapd"})')"
sqlite3 -separator $'\t' "$merged" "SELECT app, status, count(*) FROM g
	WHERE flags & 512 != 0 AND kind IN ('tap', 'long_press')
	GROUP BY app, status ORDER BY app, status" >"$work/inj_db.tsv"
query 'sum by (app, status) (tapd_taps_injected_total{job="tapd"}) > 0' |
	jq -r '.[] | [.metric.app, .metric.status, .value[1]] | @tsv' |
	LC_ALL=C sort >"$work/inj_prom.tsv"
LC_ALL=C sort -o "$work/inj_db.tsv" "$work/inj_db.tsv"
if [ -s "$work/inj_db.tsv" ] && diff "$work/inj_db.tsv" "$work/inj_prom.tsv" \
	>"$work/inj.diff"; then
	ok "tapd_taps_injected_total by app and status as in the databases" \
		"($(wc -l <"$work/inj_db.tsv") series)"
else
	ko "tapd_taps_injected_total by app and status" "$(cat "$work/inj.diff")"
fi
check "tapd_taps_injected_total: series only for the one app, on $INJECTED" \
	"1 $INJECTED" \
	"$(vsum 'count(count by (instance, app) (tapd_taps_injected_total{job="tapd"}))') $(query 'count by (serial) (tapd_taps_injected_total{job="tapd"} * on (instance) group_left (serial) tapd_device_info)' | jq -r '[.[].metric.serial] | join(",")')"
sqlite3 -separator $'\t' "$merged" "SELECT kind, count(*) FROM g
	WHERE flags & 512 != 0 GROUP BY kind ORDER BY kind" >"$work/ginj_db.tsv"
query 'sum by (kind) (tapd_gestures_injected_total{job="tapd"}) > 0' |
	jq -r '.[] | [.metric.kind, .value[1]] | @tsv' | LC_ALL=C sort \
	>"$work/ginj_prom.tsv"
LC_ALL=C sort -o "$work/ginj_db.tsv" "$work/ginj_db.tsv"
if [ -s "$work/ginj_db.tsv" ] && diff "$work/ginj_db.tsv" \
	"$work/ginj_prom.tsv" >"$work/ginj.diff"; then
	ok "tapd_gestures_injected_total by kind as in the databases:" \
		"$(tr '\t' '=' <"$work/ginj_db.tsv" | paste -sd ' ')"
else
	ko "tapd_gestures_injected_total by kind" "$(cat "$work/ginj.diff")"
fi
# The dashboard's panel, its two queries: injected, and physical as the
# rest.
inj_panel=$(jq -r '.panels[] | select(.title == "Injected vs physical taps") |
	.targets[] | [.legendFormat, .expr] | @tsv' "$DASHBOARD")
check "the panel's injected query is the databases' count, $inj_taps" "$inj_taps" \
	"$(vsum "$(echo "$inj_panel" | awk -F'\t' '$1 == "injected" { print $2 }')")"
check "the panel's physical query is the rest, $((all_taps - inj_taps))" \
	"$((all_taps - inj_taps))" \
	"$(vsum "$(echo "$inj_panel" | awk -F'\t' '$1 == "physical" { print $2 }')")"

# Series the dashboard shows that tapd does not expose yet: a query over
# them is skipped, by name, while no target has them, and must answer once
# one does.
pending_launch='count(tapd_launch_first_frame_seconds_bucket)'
npanels=0
while IFS=$'\t' read -r title expr; do
	npanels=$((npanels + 1))
	n=$(query "$expr" | jq 'length')
	if [ "${n:-0}" -gt 0 ]; then
		ok "panel '$title': $n series for $expr"
		continue
	fi
	pending=
	case $expr in
	*tapd_launch_first_frame_seconds*)
		[ "$(query "$pending_launch" | jq 'length')" = 0 ] &&
			pending="tapd_launch_first_frame_seconds (launch metrics)"
		;;
	esac
	if [ -n "$pending" ]; then
		skip "panel '$title': no target exposes $pending yet: $expr"
	else
		ko "panel '$title': no series for $expr"
	fi
done < <(jq -r '.panels[] | .title as $t | .targets[] | [$t, .expr] | @tsv' \
	"$DASHBOARD")
if [ "$npanels" -gt 0 ]; then
	ok "the dashboard has $npanels queries"
else
	ko "no queries read from $DASHBOARD"
fi
done_
