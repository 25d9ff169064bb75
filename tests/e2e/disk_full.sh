#!/usr/bin/env bash
# End to end: a full disk, on a real file system that fills (a small
# tmpfs, mounted in a mount namespace of its own so nothing leaks).  The
# store's health turns degraded naming ENOSPC and back to up once there is
# room; a session request is a JSON 507; a served, paced replay holds its
# taps through the full period and stores every one of them, once, with
# the ids of a replay that had room; a batch replay that fills the disk
# exits 1 saying "disk full", with no "cannot rollback", its run ended;
# started on a full disk, run and replay say "disk full" and serve still
# answers.  Needs root (mount); without it the checks are skipped, and
# counted as skipped.  Run from the repository root; BUILD names the build
# directory (default build); KEEP=1 keeps the scratch directory.
set -u

BUILD=${BUILD:-build}
TAPD=$BUILD/tapd
SIM=$BUILD/tapd-sim
NAME=disk_full

# Into a mount namespace of our own first: the tmpfs goes with it.
if [ -z "${TAPD_DISK_FULL_NS:-}" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
		unshare -m true 2>/dev/null; then
		TAPD_DISK_FULL_NS=1 exec unshare -m bash "$0" "$@"
	fi
	echo "skip the disk-full checks: they need root and unshare -m"
	echo "$NAME: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$TAPD" "$SIM"
need_tools sqlite3 jq curl fallocate

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-disk-full.XXXXXX") || exit 1
mnt=$work/mnt
trap 'stop_servers; umount "$mnt" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=2048k tmpfs "$mnt" 2>"$work/mount.err"; then
	echo "skip the disk-full checks: cannot mount a tmpfs:" \
		"$(cat "$work/mount.err")"
	echo "$NAME: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

q() {
	sqlite3 -batch -noheader "$1" "$2" 2>&1
}

# fill: no room left at all; fill_but KB: about KB KiB left; room: all
# of it back.
fill() {
	dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1
	sync
}

fill_but() {
	local avail
	rm -f "$mnt/filler"
	avail=$(df -k --output=avail "$mnt" | tail -n 1)
	fallocate -l $(((avail - $1) * 1024)) "$mnt/filler"
}

room() {
	rm -f "$mnt/filler"
}

health() {
	curl -s --max-time 5 "$url/v1/health"
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
wait_for() {
	local i n=$(($1 * 10))
	shift
	for i in $(seq 1 "$n"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

store_health_is() {
	[ "$(health | jq -r .sources.store.health)" = "$1" ]
}

taps_in() {
	[ "$(q "$1" 'SELECT count(*) FROM taps')" -ge "$2" ]
}

dir=$work/sim
if ! "$SIM" gen --scenario two-apps --seed 4 --duration 20 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen" "$(cat "$work/gen.log")"
	finish
fi
# The reference: the same session, on a disk with room.
if ! "$TAPD" replay --session "$dir" --db "$work/ref.db" \
	>"$work/ref.log" 2>&1; then
	ko "the reference replay" "$(cat "$work/ref.log")"
	finish
fi
q "$work/ref.db" 'SELECT id, t_up_ns, status FROM taps ORDER BY id' \
	>"$work/ref.rows"
total=$(wc -l <"$work/ref.rows")

# 1. A served, paced replay across a full period.
if ! start_server "$work/live.out" "$TAPD" replay --session "$dir" \
	--db "$mnt/live.db" --listen 127.0.0.1:0 --pace 1; then
	ko "the paced replay serves" "$(cat "$work/live.out.err")"
	finish
fi
live=$pid
# The event stream, from the start: each tap once, with its stored id.
curl -s -N --max-time 90 "$url/v1/events" >"$work/events.txt" 2>/dev/null &
events=$!
holds "health: the store is up before the disk fills" \
	store_health_is up
holds "a first tap is stored" wait_for 20 taps_in "$mnt/live.db" 1
fill
before=$(q "$mnt/live.db" 'SELECT count(*) FROM taps')
holds "health: the store turns degraded on the full disk" \
	wait_for 15 store_health_is degraded
health >"$work/h1.json"
check "health: degraded overall" degraded "$(jq -r .status "$work/h1.json")"
holds "health: the store's detail names ENOSPC" \
	grep -q 'disk full (ENOSPC)' <(jq -r .sources.store.detail "$work/h1.json")
code=$(curl -s -o "$work/post.json" -w '%{http_code}' --max-time 5 \
	-X POST -d '{"name": "full"}' "$url/v1/sessions")
check "POST /v1/sessions on a full disk: 507" 507 "$code"
check "the 507 is JSON with its code" insufficient_storage \
	"$(jq -r .error.code "$work/post.json" 2>&1)"
holds "the 507 says the disk is full" \
	grep -q 'disk is full' <(jq -r .error.message "$work/post.json")
held() {
	health | jq -r .sources.store.detail |
		grep -q "\([${1:-1}-9]\|[1-9][0-9]\+\) taps held"
}
holds "taps are held in memory while the disk is full" wait_for 15 held 2
during=$(q "$mnt/live.db" 'SELECT count(*) FROM taps')
check "nothing is written while the disk is full" "$before" "$during"
room
holds "health: the store is up again once there is room" \
	wait_for 10 store_health_is up
holds "the replay ends" wait_for 60 grep -q 'replay done' "$work/live.out"
q "$mnt/live.db" 'SELECT id, t_up_ns, status FROM taps ORDER BY id' \
	>"$work/live.rows"
holds "every tap stored once, with the reference's ids" \
	cmp -s "$work/ref.rows" "$work/live.rows"
check "no tap stored twice" "$total" \
	"$(q "$mnt/live.db" 'SELECT count(DISTINCT t_up_ns) FROM taps')"
holds "the summary counts every tap stored" \
	grep -q "^stored     $total rows" "$work/live.out"
event_ids() {
	sed -n 's/^data: //p' "$work/events.txt" | jq -r .id | sort -n
}
q "$mnt/live.db" 'SELECT id FROM taps ORDER BY id' >"$work/live.ids"
all_announced() {
	[ "$(event_ids | wc -l)" -ge "$total" ]
}
wait_for 5 all_announced
event_ids >"$work/events.ids"
holds "the event stream announced every tap once, with its stored id" \
	cmp -s "$work/live.ids" "$work/events.ids"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
	-X POST -d '{"name": "room"}' "$url/v1/sessions")
check "POST /v1/sessions with room again: 201" 201 "$code"
stop_server "$live"
check "the paced replay stops: exit 0" 0 "$status"
wait "$events" 2>/dev/null
check "its run is ended" "1|1" \
	"$(q "$mnt/live.db" 'SELECT count(*), count(ended_ns) FROM runs')"
holds "no cannot rollback" \
	test "$(grep -c 'cannot rollback' "$work/live.out.err")" -eq 0

# 2. SIGTERM while the disk is still full: taps held are lost, said, and
# the exit status is not 0.
rm -f "$mnt"/live.db*
if ! start_server "$work/term.out" "$TAPD" replay --session "$dir" \
	--db "$mnt/term.db" --listen 127.0.0.1:0 --pace 1; then
	ko "the second paced replay serves" "$(cat "$work/term.out.err")"
	finish
fi
holds "a first tap is stored" wait_for 20 taps_in "$mnt/term.db" 1
fill
holds "taps are held" wait_for 15 held
stop_server "$pid" 10
check "SIGTERM on a full disk: exit 1" 1 "$status"
holds "the warning says what is lost" \
	grep -q "lost [0-9]* taps held in memory: '$mnt/term.db' is still full (ENOSPC)" \
	"$work/term.out.err"
holds "the error says disk full" \
	grep -q "error: stopped without storing every tap in '$mnt/term.db': disk full (ENOSPC)" \
	"$work/term.out.err"
holds "no cannot rollback" \
	test "$(grep -c 'cannot rollback' "$work/term.out.err")" -eq 0
ended=$(q "$mnt/term.db" 'SELECT count(ended_ns) FROM runs')
if [ "$ended" = 1 ] || grep -q 'cannot record the end of run' \
	"$work/term.out.err"; then
	ok "the run is ended, or the warning says it could not be"
else
	ko "the run is neither ended nor said to be open" \
		"$(cat "$work/term.out.err")"
fi
room
rm -f "$mnt"/term.db*

# 3. A batch replay that fills the disk: its database has room to open but
# not for the taps.
"$TAPD" replay --session "$dir" --db "$mnt/batch.db" >"$work/b0.log" 2>&1
check "a first batch replay with room" 0 $?
fill_but 48
"$TAPD" replay --session "$dir" --db "$mnt/batch.db" >"$work/b1.log" 2>&1
check "the batch replay that fills the disk: exit 1" 1 $?
holds "its error names the database and disk full" \
	grep -q "error: cannot store the replay in '$mnt/batch.db': disk full (ENOSPC)" \
	"$work/b1.log"
holds "no cannot rollback" \
	test "$(grep -c 'cannot rollback' "$work/b1.log")" -eq 0
room
stored=$(sed -n 's/.*(ENOSPC): \([0-9]*\) of [0-9]* taps stored.*/\1/p' \
	"$work/b1.log")
check "what it says it stored is there" "$((total + ${stored:-x}))" \
	"$(q "$mnt/batch.db" 'SELECT count(*) FROM taps')"
check "both runs are ended" "2|2" \
	"$(q "$mnt/batch.db" 'SELECT count(*), count(ended_ns) FROM runs')"

# 4. Started on a full disk.
fill
"$TAPD" replay --session "$dir" --db "$mnt/batch.db" >"$work/s1.log" 2>&1
check "replay on a full disk: exit 1" 1 $?
holds "replay says disk full, naming the database" \
	grep -q "error: cannot open the database '$mnt/batch.db': disk full (ENOSPC)" \
	"$work/s1.log"
mkdir -p "$work/empty"
"$TAPD" run --db "$mnt/batch.db" --listen 127.0.0.1:0 \
	--sysroot "$work/empty" --frames none --foreground none \
	>"$work/s2.log" 2>&1 </dev/null
check "run on a full disk it cannot open: exit 1" 1 $?
holds "run says disk full, naming the database" \
	grep -q "error: cannot open the database '$mnt/batch.db': disk full (ENOSPC)" \
	"$work/s2.log"
if start_server "$work/serve.out" "$TAPD" serve --db "$mnt/batch.db" \
	--listen 127.0.0.1:0; then
	ok "serve starts on a full disk"
	check "serve answers reads" "$total" \
		"$(curl -s --max-time 5 "$url/v1/taps?limit=1000" |
			jq '.taps | length')"
	holds "serve's warning says disk full" \
		grep -q "'$mnt/batch.db': disk full (ENOSPC)" \
		"$work/serve.out.err"
	stop_server "$pid"
	check "serve stops: exit 0" 0 "$status"
else
	ko "serve starts on a full disk" "$(cat "$work/serve.out.err")"
fi
room

# 5. run on a database it can open but not write: another reader keeps
# its -shm, so the open needs no room, the run's row does.  It starts,
# degraded, and records its run once there is room.
if ! start_server "$work/reader.out" "$TAPD" serve --db "$mnt/batch.db" \
	--listen 127.0.0.1:0; then
	ko "a reader of the database" "$(cat "$work/reader.out.err")"
	finish
fi
reader=$pid
fill
if start_server "$work/run.out" "$TAPD" run --db "$mnt/batch.db" \
	--listen 127.0.0.1:0 --sysroot "$work/empty" --frames none \
	--foreground none </dev/null; then
	ok "run starts on a database it cannot write"
	holds "run's warning says disk full" \
		grep -q "running without a run recorded in '$mnt/batch.db': disk full (ENOSPC)" \
		"$work/run.out.err"
	holds "health: run's store is degraded" \
		wait_for 5 store_health_is degraded
	room
	holds "health: run's store is up once there is room" \
		wait_for 10 store_health_is up
	live_runs() {
		[ "$(q "$mnt/batch.db" "SELECT count(*) FROM runs WHERE mode = 'live'")" = 1 ]
	}
	holds "the live run is recorded once there is room" wait_for 5 live_runs
	stop_server "$pid"
	check "run stops: exit 0" 0 "$status"
	check "the live run is ended" 1 \
		"$(q "$mnt/batch.db" "SELECT count(ended_ns) FROM runs WHERE mode = 'live'")"
else
	ko "run starts on a database it cannot write" \
		"$(cat "$work/run.out.err")"
fi
stop_server "$reader"
room

finish
