#!/usr/bin/env bash
# Soak, part 3: the disk fills up under tapd, then space comes back.
#
# The database lives on a small tmpfs of its own, in a mount namespace of
# this script's (unshare -m, as root); a filler file takes every byte
# left (dd until ENOSPC), and is deleted to give the space back.  Without
# the namespace or the mount the part is skipped, and its row says so.
# Perfetto's traces stay off the small disk, so that only the store meets
# the full disk.  What tapd is to do on a full disk: the store's health
# is degraded with a detail naming the lack of space, every write asked
# over the API is a JSON 507, the taps finalized meanwhile wait in memory
# and are written, with the ids already announced, once space is back;
# /v1/health answers throughout.  The outage here is short (seconds, a
# few dozen taps), well within what the queue holds, so nothing may be
# lost at all.
#
#  1. `tapd run` (the fake perfetto as its frame source, no touch screen):
#     a session started before the disk fills; while it is full, a
#     session start is a 507 with a JSON error, the store degraded; once
#     the filler is gone the store is up again within RECOVER_S and a
#     session starts (201); tapd stays up all along, answers every
#     /v1/health sampled (every 50 ms), and exits 0 on SIGTERM; the file
#     passes integrity_check and holds the two sessions.
#  2. taps: the same disk under a paced replay with --listen (the taps of
#     `tapd run` come from a touch screen, which this machine has none
#     of): the disk fills a quarter of the way in and is freed halfway;
#     the replay stays up to its end, every gesture of the truth is then
#     stored (tapd-sim check: 0 missing, 0 mismatches, 0 spurious), each
#     tap announced on /v1/events is stored under the id announced, the
#     store was degraded while full and is up at the end.
#
# Its row: outages (one of each), failures, what each one showed.
set -u
build=${BUILD:-build}
TAPD=$build/tapd
SIM=$build/tapd-sim
NAME=soak_disk
here=$(dirname "$0")
. "$here/../e2e/lib/report.sh"
. "$here/../e2e/lib/server.sh"
. "$here/lib.sh"
need_bins "$TAPD" "$SIM"
need_tools sqlite3 python3 jq curl

# Into a mount namespace of our own, once: the tmpfs is seen by this
# script and the tapd it starts, and goes with them.
if [ -z "${SOAK_DISK_NS:-}" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
		unshare -m --propagation private true 2>/dev/null; then
		SOAK_DISK_NS=1 exec unshare -m --propagation private \
			bash "$0" "$@"
	fi
	skip_row "disk full" "no mount namespace (needs root and unshare -m)"
	echo "$NAME: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-soak-disk.XXXXXX") || exit 1
disk=$work/disk
cleanup() {
	stop_servers
	umount "$disk" 2>/dev/null
	if [ "${SOAK_KEEP:-0}" = 1 ]; then
		echo "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
mkdir -p "$disk"
if ! mount -t tmpfs -o size=8m tmpfs "$disk" 2>"$work/mount.err"; then
	skip_row "disk full" "cannot mount a tmpfs: $(head -n 1 "$work/mount.err")"
	echo "$NAME: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

RECOVER_S=15
# fill / unfill: the filler takes every free byte, then goes.
fill() {
	dd if=/dev/zero of="$disk/filler" bs=4k >/dev/null 2>&1
	[ "$(df --output=avail "$disk" | tail -n 1 | tr -d ' ')" -eq 0 ]
}
unfill() {
	rm -f "$disk/filler"
}

# post_session NAME: the status of POST /v1/sessions, its body in
# $work/post.json.
post_session() {
	curl -s --max-time 5 -o "$work/post.json" -w '%{http_code}' \
		-H 'Content-Type: application/json' \
		-d "{\"name\": \"$1\"}" "$url/v1/sessions"
}

# store_health: the store's health and detail, one line.
store_health() {
	curl -s --max-time 2 "$url/v1/health" |
		jq -r '.sources.store.health + " " + .sources.store.detail'
}

# wait_store STATE SECONDS: until the store's health is STATE; sets
# waited to the seconds it took.
wait_store() {
	local t0 t1
	t0=$(date +%s.%N)
	while :; do
		[ "$(store_health | cut -d' ' -f1)" = "$1" ] && break
		t1=$(date +%s.%N)
		if awk -v a="$t0" -v b="$t1" -v s="$2" 'BEGIN { exit !(b - a > s) }'; then
			waited="more than $2"
			return 1
		fi
		sleep 0.1
	done
	waited=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# health_summary FILE: of a follow record's /v1/health samples, the
# count, those not answered 200, the slowest (ms) and those that saw the
# store degraded.
health_summary() {
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["samples"]
bad = [x for x in s if x["http"] != 200]
slow = max((x["took"] for x in s), default=0)
full = [x for x in s if x.get("store") == "degraded"]
print(len(s), len(bad), "%.0f" % (slow * 1000), len(full))
PY
}

# 1. tapd run.
mkdir -p "$work/bin" "$work/traces" "$work/empty"
ln -s "$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")" \
	"$work/bin/perfetto"
run_fig="did not start"
if start_server "$work/run.out" env TAPD_FAKE_PERFETTO_MAX_MS=3600000 \
	"$TAPD" run --db "$disk/taps.db" --listen 127.0.0.1:0 \
	--sysroot "$work/empty" --frames ftl --foreground none \
	--perfetto-bin "$work/bin/perfetto" --trace-dir "$work/traces"; then
	run_pid=$pid
	code=$(post_session before)
	check "run: a session before the disk fills: 201" 201 "$code"
	code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' \
		-X POST "$url/v1/sessions/1/stop")
	check "run: and its stop: 200" 200 "$code"
	py follow "$port" "$work/run-follow.json" --until "$work/run.stop" \
		--seconds 120 2>"$work/run-follow.err" &
	follower=$!
	sleep 1
	holds "run: the filler takes the whole disk" fill
	refused=0
	code=$(post_session during)
	check "run: a session on a full disk: 507" 507 "$code"
	[ "$code" = 507 ] && refused=$((refused + 1))
	ecode=$(jq -r '.error.code // empty' "$work/post.json" 2>/dev/null)
	holds "run: the answer is a JSON error ('$ecode')" test -n "$ecode"
	sleep 1
	sh=$(store_health)
	holds "run: store degraded, naming the lack of space ('$sh')" \
		grep -qi '^degraded .*\(space\|ENOSPC\|full\)' <<<"$sh"
	sleep "$(scaled_s 5)"
	code=$(post_session during-again)
	check "run: still 507 a while later" 507 "$code"
	[ "$code" = 507 ] && refused=$((refused + 1))
	holds "run: tapd still up on a full disk" kill -0 "$run_pid"
	unfill
	if wait_store up "$RECOVER_S"; then
		ok "run: store up again $waited s after the space came back"
	else
		ko "run: store not up again within $RECOVER_S s" "$(store_health)"
	fi
	run_recover="up again in $waited s"
	code=$(post_session after)
	check "run: a session once space is back: 201" 201 "$code"
	id=$(jq -r '.id // empty' "$work/post.json" 2>/dev/null)
	code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' \
		-X POST "$url/v1/sessions/${id:-0}/stop")
	check "run: and its stop: 200" 200 "$code"
	touch "$work/run.stop"
	wait "$follower"
	read -r n bad slow degraded < <(health_summary "$work/run-follow.json")
	n=${n:-0} bad=${bad:-no record} slow=${slow:-?} degraded=${degraded:-0}
	check "run: /v1/health answered all $n samples" 0 "$bad"
	stop_server "$run_pid" 10
	servers=()
	check "run: SIGTERM, exit 0" 0 "$status"
	integrity=$(sqlite3 "$disk/taps.db" 'PRAGMA integrity_check' 2>&1)
	check "run: integrity_check" ok "$integrity"
	names=$(sqlite3 "$disk/taps.db" 'SELECT group_concat(name) FROM sessions' 2>&1)
	check "run: the sessions stored" "before,after" "$names"
	if [ "$degraded" -gt 0 ]; then
		run_store="store degraded in $degraded/$n samples, $run_recover"
	else
		run_store="store never degraded"
	fi
	run_fig="run: 507 $refused/2, $run_store, health max $slow ms"
else
	ko "run: tapd run serves" "$(tail -n 5 "$work/run.out.err")"
fi

# 2. Taps: a paced replay on the small disk.
rm -f "$disk"/taps.db*
dir=$work/sim
D=$(awk -v s="$SOAK_SCALE" 'BEGIN { d = int(240 * s); print (d < 60 ? 60 : d) }')
PACE=10
replay_fig="did not start"
if ! "$SIM" gen --scenario long --seed 2 --duration "$D" --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(cat "$work/gen.log")"
elif start_server "$work/replay.out" "$TAPD" replay --session "$dir" \
	--db "$disk/taps.db" --pace "$PACE" --listen 127.0.0.1:0; then
	rp=$pid
	py follow "$port" "$work/replay-follow.json" --until "$work/replay.stop" \
		--seconds 600 2>"$work/replay-follow.err" &
	follower=$!
	wall=$((D / PACE))
	sleep "$(awk -v w="$wall" 'BEGIN { print w / 4 }')"
	holds "replay: the filler takes the whole disk" fill
	sleep "$(awk -v w="$wall" 'BEGIN { print w / 4 }')"
	sh=$(store_health)
	holds "replay: store degraded on the full disk ('$sh')" \
		grep -qi '^degraded' <<<"$sh"
	unfill
	# To the end of the input, and the store up again.
	for i in $(seq 1 $((wall * 10 + 300))); do
		kill -0 "$rp" 2>/dev/null || break
		[ "$(curl -s --max-time 2 "$url/v1/health" |
			jq -r '.sources.input.health + .sources.store.health')" = doneup ] && break
		sleep 0.1
	done
	holds "replay: still up at the end of its input" kill -0 "$rp"
	sleep 0.5
	touch "$work/replay.stop"
	wait "$follower"
	stop_server "$rp" 10
	servers=()
	check "replay: SIGTERM, exit 0" 0 "$status"
	"$SIM" check --truth "$dir/truth.json" --db "$disk/taps.db" \
		>"$work/check.out" 2>&1
	crc=$?
	summary=$(grep '^check:' "$work/check.out" | tail -n 1)
	check "replay: every gesture stored, as the truth has it (${summary#check: })" 0 "$crc"
	python3 - "$work/replay-follow.json" "$disk/taps.db" >"$work/ids.out" <<'PY'
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
rows = dict(db.execute("SELECT t_up_ns, id FROM taps").fetchall())
bad = [e for e in r["events"] if rows.get(int(e[2])) != e[1]]
full = sum(1 for s in r["samples"] if s.get("store") == "degraded")
fails = sum(1 for s in r["samples"] if s["http"] != 200)
print(len(r["events"]), len(bad), full, len(r["samples"]), fails)
PY
	read -r announced moved degraded samples hfail <"$work/ids.out"
	check "replay: $announced announced taps stored under their ids" 0 "${moved:-x}"
	check "replay: /v1/health answered all ${samples:-0} samples" 0 "${hfail:-x}"
	holds "replay: the store was seen degraded (${degraded:-0} samples)" \
		test "${degraded:-0}" -gt 0
	missing=$(sed -n 's/.* \([0-9]*\) missing.*/\1/p' <<<"$summary")
	replay_fig="replay: ${missing:-?}/$(jq '.gestures | length' "$dir/truth.json") missing, ${moved:-?} ids moved"
else
	ko "replay: tapd replay serves" "$(tail -n 5 "$work/replay.out.err")"
fi

# Failures: the checks above that failed.
row "disk full" 2 "$fail" "$run_fig; $replay_fig" \
	"up, 507, 0 lost, back <= ${RECOVER_S} s"
finish

