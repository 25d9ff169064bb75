#!/usr/bin/env bash
# End to end: `tapd run`, the live daemon, on this machine: without a touch
# screen or Android tools it starts, says in /v1/health which sources are
# missing, and stops cleanly on SIGTERM; its pidfile keeps a second one
# out; SIGHUP reopens its log; retention deletes old taps; the foreground
# of a fake Android tree (--sysroot, a fake dumpsys) is tracked.  Touch
# input on a real kernel is the VM test's (tests/vm/run.sh).
set -u
build=${BUILD:-build}
tapd=$build/tapd
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
NAME=live
pass=0
fail=0
. "$(dirname "$0")/lib/report.sh"

wait_url() {
	local i url
	for i in $(seq 1 100); do
		url=$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$1" | head -n 1)
		if [ -n "$url" ]; then
			echo "$url"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# Waits for pid to exit, at most 5 s; sets $status to its exit status.
# (Not in a $(...) subshell: only this shell can wait for its children.)
wait_exit() {
	local i
	for i in $(seq 1 50); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		status=timeout
		return
	fi
	wait "$1"
	status=$?
}

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

# 1. Nothing to read: up and degraded, sources named, clean stop.
# The sysroot is empty, so no /dev/input, no top-app; no Android tools.
mkdir -p "$tmp/empty"
"$tapd" run --db "$tmp/a.db" --listen 127.0.0.1:0 --sysroot "$tmp/empty" \
	--pidfile "$tmp/tapd.pid" --perfetto-bin "$tmp/no-perfetto" \
	--dumpsys-bin "$tmp/no-dumpsys" --getprop-bin "$tmp/no-getprop" \
	>"$tmp/a.out" 2>"$tmp/a.err" &
pid=$!
pids+=("$pid")
url=$(wait_url "$tmp/a.out")
check "run serves" 0 $?
curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
check "health degraded" degraded "$(jq -r .status "$tmp/health.json")"
check "mode" live "$(jq -r .mode "$tmp/health.json")"
check "input down" down "$(jq -r .sources.input.health "$tmp/health.json")"
check "input says why" 1 \
	"$(jq -r .sources.input.detail "$tmp/health.json" | grep -c 'no touch screen')"
check "frames down" down "$(jq -r .sources.frames.health "$tmp/health.json")"
check "foreground down" down \
	"$(jq -r .sources.foreground.health "$tmp/health.json")"
check "store up" up "$(jq -r .sources.store.health "$tmp/health.json")"
check "pidfile holds the pid" "$pid" "$(cat "$tmp/tapd.pid")"

# A second daemon on the same pidfile refuses.
"$tapd" run --db "$tmp/b.db" --listen 127.0.0.1:0 --sysroot "$tmp/empty" \
	--pidfile "$tmp/tapd.pid" --frames none >"$tmp/b.out" 2>&1
check "second daemon refused" 1 $?
check "refusal names the pid" 1 "$(grep -c "already running (pid $pid)" "$tmp/b.out")"

kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM: exit 0" 0 "$status"
check "pidfile removed" 1 "$(test -e "$tmp/tapd.pid"; echo $?)"
check "run ended" 1 "$(q "$tmp/a.db" "select count(*) from runs where mode = 'live' and ended_ns is not null")"

# 2. SIGHUP reopens the log file (log rotation).
"$tapd" run -v --db "$tmp/c.db" --listen 127.0.0.1:0 --sysroot "$tmp/empty" \
	--frames none --foreground none --log-file "$tmp/tapd.log" \
	>"$tmp/c.out" 2>&1 &
pid=$!
pids+=("$pid")
wait_url "$tmp/c.out" >/dev/null
mv "$tmp/tapd.log" "$tmp/tapd.log.1"
kill -HUP "$pid"
for i in $(seq 1 30); do [ -s "$tmp/tapd.log" ] && break; sleep 0.1; done
check "log reopened after SIGHUP" 1 "$(grep -c 'log file reopened' "$tmp/tapd.log" 2>/dev/null)"
check "old log kept its lines" 1 "$(grep -c 'running' "$tmp/tapd.log.1" | awk '{print ($1 > 0)}')"
kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM after SIGHUP: exit 0" 0 "$status"

# 3. Retention: taps older than --retain-days go at start.
now=$(date +%s)
q "$tmp/c.db" "insert into taps (kind, status, t_down_ns, t_up_ns, wall_ns)
	values ('tap', 'ok', 1, 2, ($now - 40 * 86400) * 1000000000),
	       ('tap', 'ok', 3, 4, ($now - 35 * 86400) * 1000000000),
	       ('tap', 'ok', 5, 6, ($now - 2 * 86400) * 1000000000)"
"$tapd" run --db "$tmp/c.db" --listen 127.0.0.1:0 --sysroot "$tmp/empty" \
	--frames none --foreground none --retain-days 30 >"$tmp/d.out" 2>&1 &
pid=$!
pids+=("$pid")
wait_url "$tmp/d.out" >/dev/null
for i in $(seq 1 30); do
	[ "$(q "$tmp/c.db" 'select count(*) from taps')" = 1 ] && break
	sleep 0.1
done
check "retention kept the recent tap" 1 "$(q "$tmp/c.db" 'select count(*) from taps')"
kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM after retention: exit 0" 0 "$status"

# 4. The foreground of a fake Android: two apps and SystemUI in top-app,
# resolved by (the fake) dumpsys window.
root=$tmp/root
mkdir -p "$root/dev/cpuset/top-app" "$tmp/dumpsys"
printf '%s\n' 2001 2002 1500 >"$root/dev/cpuset/top-app/cgroup.procs"
mkproc() {
	mkdir -p "$root/proc/$1"
	printf '%s\0' "$2" >"$root/proc/$1/cmdline"
	echo "$1 ($3) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 $4 0 0" \
		>"$root/proc/$1/stat"
	printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\n' "$3" "$5" "$5" "$5" "$5" \
		>"$root/proc/$1/status"
}
mkproc 2001 com.example.shop shop 1000 10123
mkproc 2002 com.google.android.apps.nexuslauncher launcher 900 10050
mkproc 1500 com.android.systemui systemui 500 10020
cp tests/fixtures/foreground/window-a14.txt "$tmp/dumpsys/window.out"
TAPD_FAKE_DUMPSYS_DIR=$tmp/dumpsys "$tapd" run --db "$tmp/e.db" \
	--listen 127.0.0.1:0 --sysroot "$root" --frames none \
	--dumpsys-bin "$PWD/tests/fakes/dumpsys" >"$tmp/e.out" 2>&1 &
pid=$!
pids+=("$pid")
url=$(wait_url "$tmp/e.out")
sleep 0.3
curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
check "foreground up" up "$(jq -r .sources.foreground.health "$tmp/health.json")"
check "foreground names the app" 1 \
	"$(jq -r .sources.foreground.detail "$tmp/health.json" | grep -c com.example.shop)"
check "dumpsys window was asked" 1 "$(grep -c '^window' "$tmp/dumpsys/window.calls" | awk '{print ($1 > 0)}')"
kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM with foreground: exit 0" 0 "$status"

# 5. Frames from a (fake) perfetto: auto picks FrameTimeline on Android
# 13 (a fake getprop), tapd runs the session, tails its trace, deletes the
# files it has read, and stops it with itself.
sim=$build/tapd-sim
mkdir -p "$tmp/bin" "$tmp/traces"
ln -s "$PWD/$sim" "$tmp/bin/perfetto"
ln -s "$PWD/$sim" "$tmp/bin/getprop"
TAPD_FAKE_SDK=33 "$tapd" run --db "$tmp/g.db" --listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --foreground none \
	--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop" \
	--trace-dir "$tmp/traces" >"$tmp/g.out" 2>&1 &
pid=$!
pids+=("$pid")
url=$(wait_url "$tmp/g.out")
for i in $(seq 1 50); do
	curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
	[ "$(jq '.counters.frames_read > 0' "$tmp/health.json")" = true ] && break
	sleep 0.1
done
check "frames: FrameTimeline picked" ftl "$(jq -r .sources.frames.kind "$tmp/health.json")"
check "frames: source up" up "$(jq -r .sources.frames.health "$tmp/health.json")"
check "frames: frames read" true "$(jq '.counters.frames_read > 0' "$tmp/health.json")"
check "frames: trace packets read" true "$(jq '.counters.packets_read > 0' "$tmp/health.json")"
kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM with perfetto running: exit 0" 0 "$status"
check "trace files deleted once read" 0 "$(find "$tmp/traces" -type f | wc -l)"
check "no perfetto left running" 0 "$(pgrep -f "$tmp/bin/perfetto" | wc -l)"

# On Android 11 (sdk 30) auto takes dumpsys --latency instead.
TAPD_FAKE_SDK=30 "$tapd" run --db "$tmp/h.db" --listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --foreground none \
	--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop" \
	--dumpsys-bin "$tmp/bin/no-dumpsys" --trace-dir "$tmp/traces" \
	>"$tmp/h.out" 2>&1 &
pid=$!
pids+=("$pid")
url=$(wait_url "$tmp/h.out")
curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
check "sdk 30: dumpsys --latency picked" latency \
	"$(jq -r .sources.frames.kind "$tmp/health.json")"
kill -TERM "$pid"
wait_exit "$pid"
check "SIGTERM, latency source: exit 0" 0 "$status"

# Bad arguments: a one-line error, exit 2.
"$tapd" run --db "$tmp/f.db" --frames bogus --sysroot "$tmp/empty" >"$tmp/f.out" 2>&1
check "unknown frame source: exit 2" 2 $?
"$tapd" run --db "$tmp/f.db" --retain-days -1 >"$tmp/f.out" 2>&1
check "bad --retain-days: exit 2" 2 $?
"$tapd" run >"$tmp/f.out" 2>&1
check "run without --db: exit 2" 2 $?

finish
