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
sim=$build/tapd-sim
NAME=live
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$tapd" "$sim"
need_tools curl jq sqlite3
work_dir live
tmp=$work

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

# 1. Nothing to read: up and degraded, sources named, clean stop.
# The sysroot is empty, so no /dev/input, no top-app; no Android tools.
mkdir -p "$tmp/empty"
start_server "$tmp/a.out" "$tapd" run --db "$tmp/a.db" --listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --pidfile "$tmp/tapd.pid" \
	--perfetto-bin "$tmp/no-perfetto" --dumpsys-bin "$tmp/no-dumpsys" \
	--getprop-bin "$tmp/no-getprop"
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

stop_server "$pid"
check "SIGTERM: exit 0" 0 "$status"
check "pidfile removed" 1 "$(test -e "$tmp/tapd.pid"; echo $?)"
check "run ended" 1 "$(q "$tmp/a.db" "select count(*) from runs where mode = 'live' and ended_ns is not null")"

# 2. SIGHUP reopens the log file (log rotation).
start_server "$tmp/c.out" "$tapd" run -v --db "$tmp/c.db" --listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --frames none --foreground none \
	--log-file "$tmp/tapd.log"
mv "$tmp/tapd.log" "$tmp/tapd.log.1"
kill -HUP "$pid"
for i in $(seq 1 30); do [ -s "$tmp/tapd.log" ] && break; sleep 0.1; done
check "log reopened after SIGHUP" 1 "$(grep -c 'log file reopened' "$tmp/tapd.log" 2>/dev/null)"
check "old log kept its lines" 1 "$(grep -c 'running' "$tmp/tapd.log.1" | awk '{print ($1 > 0)}')"
stop_server "$pid"
check "SIGTERM after SIGHUP: exit 0" 0 "$status"

# 3. Retention: taps older than --retain-days go at start.
now=$(date +%s)
q "$tmp/c.db" "insert into taps (kind, status, t_down_ns, t_up_ns, wall_ns)
	values ('tap', 'ok', 1, 2, ($now - 40 * 86400) * 1000000000),
	       ('tap', 'ok', 3, 4, ($now - 35 * 86400) * 1000000000),
	       ('tap', 'ok', 5, 6, ($now - 2 * 86400) * 1000000000)"
start_server "$tmp/d.out" "$tapd" run --db "$tmp/c.db" --listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --frames none --foreground none --retain-days 30
for i in $(seq 1 30); do
	[ "$(q "$tmp/c.db" 'select count(*) from taps')" = 1 ] && break
	sleep 0.1
done
check "retention kept the recent tap" 1 "$(q "$tmp/c.db" 'select count(*) from taps')"
stop_server "$pid"
check "SIGTERM after retention: exit 0" 0 "$status"

# 4. The foreground of a fake Android: two apps and SystemUI in top-app,
# resolved by (the fake) dumpsys window: the simulator, run by that name,
# prints $tmp/dumpsys/window.out.
root=$tmp/root
mkdir -p "$root/dev/cpuset/top-app" "$tmp/dumpsys" "$tmp/bin"
ln -s "$PWD/$sim" "$tmp/bin/dumpsys"
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
start_server "$tmp/e.out" env TAPD_FAKE_DUMPSYS_DIR="$tmp/dumpsys" \
	"$tapd" run --db "$tmp/e.db" --listen 127.0.0.1:0 --sysroot "$root" \
	--frames none --dumpsys-bin "$tmp/bin/dumpsys"
sleep 0.3
curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
check "foreground up" up "$(jq -r .sources.foreground.health "$tmp/health.json")"
check "foreground names the app" 1 \
	"$(jq -r .sources.foreground.detail "$tmp/health.json" | grep -c com.example.shop)"
check "dumpsys window was asked" 1 "$(grep -c '^window' "$tmp/dumpsys/window.calls" | awk '{print ($1 > 0)}')"
stop_server "$pid"
check "SIGTERM with foreground: exit 0" 0 "$status"

# 5. Frames from a (fake) perfetto: auto picks FrameTimeline on Android
# 13 (a fake getprop), tapd runs the session, tails its trace, deletes the
# files it has read, and stops it with itself.
mkdir -p "$tmp/bin" "$tmp/traces"
ln -s "$PWD/$sim" "$tmp/bin/perfetto"
ln -s "$PWD/$sim" "$tmp/bin/getprop"
start_server "$tmp/g.out" env TAPD_FAKE_SDK=33 "$tapd" run --db "$tmp/g.db" \
	--listen 127.0.0.1:0 \
	--sysroot "$tmp/empty" --foreground none \
	--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop" \
	--trace-dir "$tmp/traces"
for i in $(seq 1 50); do
	curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
	[ "$(jq '.counters.frames_read > 0' "$tmp/health.json")" = true ] && break
	sleep 0.1
done
check "frames: FrameTimeline picked" ftl "$(jq -r .sources.frames.kind "$tmp/health.json")"
check "frames: source up" up "$(jq -r .sources.frames.health "$tmp/health.json")"
check "frames: frames read" true "$(jq '.counters.frames_read > 0' "$tmp/health.json")"
check "frames: trace packets read" true "$(jq '.counters.packets_read > 0' "$tmp/health.json")"
stop_server "$pid"
check "SIGTERM with perfetto running: exit 0" 0 "$status"
check "trace files deleted once read" 0 "$(find "$tmp/traces" -type f | wc -l)"
check "no perfetto left running" 0 "$(pgrep -f "$tmp/bin/perfetto" | wc -l)"

# On Android 11 (sdk 30) auto takes dumpsys --latency instead.
start_server "$tmp/h.out" env TAPD_FAKE_SDK=30 "$tapd" run --db "$tmp/h.db" \
	--listen 127.0.0.1:0 --sysroot "$tmp/empty" --foreground none \
	--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop" \
	--dumpsys-bin "$tmp/bin/no-dumpsys" --trace-dir "$tmp/traces"
curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
check "sdk 30: dumpsys --latency picked" latency \
	"$(jq -r .sources.frames.kind "$tmp/health.json")"
stop_server "$pid"
check "SIGTERM, latency source: exit 0" 0 "$status"

# Bad arguments: a one-line error, exit 2.
"$tapd" run --db "$tmp/f.db" --frames bogus --sysroot "$tmp/empty" >"$tmp/f.out" 2>&1
check "unknown frame source: exit 2" 2 $?
"$tapd" run --db "$tmp/f.db" --retain-days -1 >"$tmp/f.out" 2>&1
check "bad --retain-days: exit 2" 2 $?
"$tapd" run >"$tmp/f.out" 2>&1
check "run without --db: exit 2" 2 $?

finish
