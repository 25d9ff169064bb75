#!/usr/bin/env bash
# End to end: the Android build of `tapd run` without root, on a fake
# Android tree (--sysroot): /data/adb is root's, /data/local/tmp open to
# all, and only root may open the touch screen node, write perfetto's
# trace directory or read the /proc of the app in front.  As an
# unprivileged user tapd starts without --db, keeps its database under
# /data/local/tmp/tapd-data, says in /v1/health what it cannot use
# (/dev/input, perfetto, /data/adb, the app's /proc), keeps serving and
# exits 0 on SIGTERM.  As root, on the same tree, the database goes to
# /data/adb/tapd and the store is up.
#
# The binary is the Android x86_64 build, a static x86_64 executable that
# runs here (make android), or TAPD_BIN: any build compiled with
# -DTAPD_ANDROID=1.  Run as root, the unprivileged part uses setpriv
# (util-linux) to become nobody; run as another user, that user is the
# unprivileged one and the root part is skipped.
set -u
build=${BUILD:-build}
bin_src=${TAPD_BIN:-$build/android/x86_64/tapd}
NAME=android_noroot
pass=0
fail=0
. "$(dirname "$0")/../e2e/lib/report.sh"

if [ ! -x "$bin_src" ]; then
	ko "'$bin_src' is not an executable (make android builds it; or set TAPD_BIN)"
	finish
fi

. "$(dirname "$0")/../e2e/lib/server.sh"
tmp=$(mktemp -d)
cleanup() {
	stop_servers
	rm -rf "$tmp"
}
trap cleanup EXIT
# The unprivileged user must reach the tree, the fakes and the binary.
chmod 755 "$tmp"

if [ "$(id -u)" -eq 0 ]; then
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	user_uid=65534
	# What only root may use, as on a phone.
	root_dir=700
	root_file=600
else
	as_user=()
	user_uid=$(id -u)
	# Not root: closed to the owner as well, which is what is tested.
	root_dir=000
	root_file=000
fi

# contains NAME NEEDLE TEXT
contains() {
	case "$3" in
	*"$2"*) ok "$1" ;;
	*) ko "$1: '$2' not in '$3'" ;;
	esac
}

# No sanitizer report and no crash in a stderr file.
clean_stderr() {
	if grep -Eq 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Segmentation fault' "$2"; then
		ko "$1: $(grep -Em 1 'Sanitizer|runtime error:|Segmentation' "$2")"
	else
		ok "$1"
	fi
}

q() {
	sqlite3 -batch -noheader "$1" "$2"
}

tapd=$tmp/bin/tapd
mkdir -p "$tmp/bin"
cp "$bin_src" "$tapd"
chmod 755 "$tapd"
# The default database is an option of run: its own --help names it.
help=$("$tapd" run --help)
if ! echo "$help" | grep -q /data/adb/tapd/taps.db; then
	ko "'$bin_src' is not an Android build: its --help names no /data/adb/tapd (build it with -DTAPD_ANDROID=1)"
	finish
fi
contains "help names the default database" /data/adb/tapd/taps.db "$help"
contains "help names the fallback" /data/local/tmp/tapd-data/taps.db "$help"

# The fake Android tree.
root=$tmp/root
mkdir -p "$root/data/adb" "$root/data/local/tmp" \
	"$root/data/misc/perfetto-traces" "$root/dev/input"
chmod "$root_dir" "$root/data/adb" "$root/data/misc/perfetto-traces"
chmod 1777 "$root/data/local/tmp"
# The touch screen: a character device where the system allows making
# one, else a file; either way only root may open it.
mknod "$root/dev/input/event0" c 1 3 2>/dev/null || : >"$root/dev/input/event0"
chmod "$root_file" "$root/dev/input/event0"
# The app in front, whose /proc only root may read (hidepid, as for
# another app's).
mkdir -p "$root/dev/cpuset/top-app" "$root/proc/2001"
echo 2001 >"$root/dev/cpuset/top-app/cgroup.procs"
printf 'com.example.shop\0' >"$root/proc/2001/cmdline"
echo "2001 (shop) S 1 1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1000 0 0" \
	>"$root/proc/2001/stat"
printf 'Name:\tshop\nUid:\t10123\t10123\t10123\t10123\n' \
	>"$root/proc/2001/status"
chmod "$root_dir" "$root/proc/2001"
# getprop says Android 13, so that auto picks perfetto; perfetto refuses
# (it is reached only where the trace directory can be written).
cat >"$tmp/bin/getprop" <<'EOF'
#!/bin/sh
echo 33
EOF
cat >"$tmp/bin/perfetto" <<'EOF'
#!/bin/sh
cat >/dev/null
echo "perfetto: cannot connect to traced: Permission denied" >&2
exit 1
EOF
chmod 755 "$tmp/bin/getprop" "$tmp/bin/perfetto"
fakes=(--perfetto-bin "$tmp/bin/perfetto" --getprop-bin "$tmp/bin/getprop"
	--dumpsys-bin "$tmp/bin/no-dumpsys"
	--trace-dir "$root/data/misc/perfetto-traces")

# health_until TEXT: /v1/health in $tmp/health.json, asked again for up to
# 3 s until the frame source's detail has TEXT.  The checks after it say
# what passes: this only waits for the first attempt to be told.
health_until() {
	local i
	for i in $(seq 1 30); do
		curl -s --max-time 5 "$url/v1/health" >"$tmp/health.json"
		jq -r .sources.frames.detail "$tmp/health.json" 2>/dev/null |
			grep -q "$1" && return 0
		sleep 0.1
	done
}

# 1. Without root and without --db.
start_server "$tmp/a.out" "${as_user[@]}" "$tapd" run --listen 127.0.0.1:0 \
	--sysroot "$root" "${fakes[@]}"
check "no root: serves" 0 $?
# The first perfetto attempt comes with the loop's first turn.
health_until 'trace directory'
echo "health without root:"
jq . "$tmp/health.json"
fallback=$root/data/local/tmp/tapd-data
check "no root: health degraded" degraded "$(jq -r .status "$tmp/health.json")"
check "no root: store degraded" degraded \
	"$(jq -r .sources.store.health "$tmp/health.json")"
detail=$(jq -r .sources.store.detail "$tmp/health.json")
contains "no root: store names the database used" "using '$fallback/taps.db'" "$detail"
contains "no root: store names /data/adb" \
	"cannot use '$root/data/adb/tapd': Permission denied" "$detail"
check "no root: database path" "$fallback/taps.db" \
	"$(jq -r .database.path "$tmp/health.json")"
check "no root: database schema read" true \
	"$(jq '.database.schema_version > 0' "$tmp/health.json")"
check "no root: database made" 1 "$(test -f "$fallback/taps.db" && echo 1)"
check "no root: its directory is 0700, the user's" "700 $user_uid" \
	"$(stat -c '%a %u' "$fallback")"
check "no root: nothing made under /data/adb" 0 \
	"$(find "$root/data/adb" -mindepth 1 2>/dev/null | wc -l)"
check "no root: input down" down "$(jq -r .sources.input.health "$tmp/health.json")"
detail=$(jq -r .sources.input.detail "$tmp/health.json")
contains "no root: input names /dev/input" /dev/input "$detail"
contains "no root: input names the node it cannot open" \
	"cannot open '$root/dev/input/event0': Permission denied" "$detail"
check "no root: frames not up" 1 \
	"$(jq -r .sources.frames.health "$tmp/health.json" | grep -vc '^up$')"
detail=$(jq -r .sources.frames.detail "$tmp/health.json")
contains "no root: frames names perfetto" perfetto "$detail"
contains "no root: frames names the trace directory" \
	"cannot write to trace directory '$root/data/misc/perfetto-traces'" "$detail"
check "no root: foreground degraded" degraded \
	"$(jq -r .sources.foreground.health "$tmp/health.json")"
contains "no root: foreground names the process it cannot read" \
	"cannot read '/proc/2001': Permission denied" \
	"$(jq -r .sources.foreground.detail "$tmp/health.json")"
check "no root: warned about the fallback" 1 \
	"$(grep -c "using '$fallback/taps.db' instead" "$tmp/a.out.err")"
# Past the input source's retries and a few perfetto restarts: still up.
sleep 2.5
check "no root: still serving" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/v1/health")"
stop_server "$pid"
check "no root: SIGTERM, exit 0" 0 "$status"
clean_stderr "no root: no crash or sanitizer report" "$tmp/a.out.err"
check "no root: run ended in the database" 1 \
	"$(q "$fallback/taps.db" "select count(*) from runs where mode = 'live' and ended_ns is not null")"

# 2. Without root, and neither directory usable: a one-line error, exit 1.
empty=$tmp/empty
mkdir -p "$empty/data/local/tmp"
chmod "$root_dir" "$empty/data/local/tmp"
"${as_user[@]}" "$tapd" run --listen 127.0.0.1:0 --sysroot "$empty" \
	--frames none --foreground none >"$tmp/b.out" 2>"$tmp/b.err"
check "nowhere to write: exit 1" 1 $?
contains "nowhere to write: says so" "give --db PATH" "$(cat "$tmp/b.err")"

# 3. As root, the same tree: Magisk's directory, and a healthy store.
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: the root part needs root"
	echo "$NAME: $pass passed, $fail failed, 1 skipped"
	[ "$fail" -eq 0 ]
	exit
fi
start_server "$tmp/c.out" "$tapd" run --listen 127.0.0.1:0 --sysroot "$root" \
	"${fakes[@]}"
check "root: serves" 0 $?
health_until refused
primary=$root/data/adb/tapd
check "root: store up" up "$(jq -r .sources.store.health "$tmp/health.json")"
check "root: store detail" "'$primary/taps.db'" \
	"$(jq -r .sources.store.detail "$tmp/health.json")"
check "root: database path" "$primary/taps.db" \
	"$(jq -r .database.path "$tmp/health.json")"
check "root: its directory is 0700" 700 "$(stat -c %a "$primary")"
check "root: foreground up" "up com.example.shop (pid 2001)" \
	"$(jq -r '.sources.foreground | "\(.health) \(.detail)"' "$tmp/health.json")"
contains "root: frames names perfetto" "perfetto refused" \
	"$(jq -r .sources.frames.detail "$tmp/health.json")"
stop_server "$pid"
check "root: SIGTERM, exit 0" 0 "$status"
clean_stderr "root: no crash or sanitizer report" "$tmp/c.out.err"
check "root: no warning about the database" 0 \
	"$(grep -c 'instead' "$tmp/c.out.err")"

finish
