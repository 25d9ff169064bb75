#!/usr/bin/env bash
# End to end test of the order of things: every option and source spec is
# checked before tapd opens the database or binds its port.  While another
# process holds the port given to --listen, a bad option must still give
# exit 2 (bad arguments, not 1 for the port) and leave no database behind,
# for run and for replay alike.  Run from the repository root; BUILD names
# the build directory (default build).  Ends with
# "options: N passed, N failed".
set -u

NAME=options
. "$(dirname "$0")/lib/report.sh"

BUILD=${BUILD:-build}
tapd="$BUILD/tapd"
sim="$BUILD/tapd-sim"

need_bins "$tapd" "$sim"
need_tools python3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapd-options.XXXXXX") || exit 1
holder=""
cleanup() {
	if [ -n "$holder" ]; then
		kill "$holder" 2>/dev/null
		wait "$holder" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# A free port, held by a listening socket for the whole test.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
time.sleep(600)
' >"$tmp/port" &
holder=$!
for _ in $(seq 100); do
	[ -s "$tmp/port" ] && break
	sleep 0.1
done
port=$(cat "$tmp/port")
if [ -z "$port" ]; then
	ko "could not hold a port"
	finish
fi
ok "port $port held by another process"
listen="127.0.0.1:$port"

mkdir -p "$tmp/empty"
printf '{"screen": {"width": ' >"$tmp/bad.json"
printf 'short\n' >"$tmp/short-token"
chmod 600 "$tmp/short-token"

# expect NAME STATUS DB ARGS...: tapd ARGS exits STATUS and DB is not made.
expect() {
	local name=$1 want=$2 db=$3 got
	shift 3
	rm -f "$db" "$db-wal" "$db-shm"
	"$tapd" "$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" = "$want" ] && [ ! -e "$db" ]; then
		ok "$name: exit $want, no database"
	elif [ "$got" != "$want" ]; then
		ko "$name: expected exit $want, got $got: $(head -n 2 "$tmp/out" | tr '\n' ' ')"
	else
		ko "$name: exit $got, but '$db' was created"
	fi
	if [ "$want" = 2 ] && [ "$(wc -l <"$tmp/out")" -lt 1 ]; then
		ko "$name: no message says what is wrong"
	fi
}

db="$tmp/x.db"
run=(run --listen "$listen" --db "$db" --sysroot "$tmp/empty"
	--perfetto-bin "$tmp/none" --dumpsys-bin "$tmp/none"
	--getprop-bin "$tmp/none" --trace-dir "$tmp/traces")

# The control case: good options, and the port is taken, so exit 1.  It
# proves the port is really held; this one may make its database.
"$tapd" "${run[@]}" --frames none --foreground none >"$tmp/out" 2>&1
check "run on the held port with good options: exit 1" 1 $?
grep -q "cannot listen on '$listen'" "$tmp/out"
check "run on the held port: says it cannot listen" 0 $?

expect "run --frames bogus" 2 "$db" "${run[@]}" --frames bogus
expect "run --frames ftl:FILE (a replay spec)" 2 "$db" "${run[@]}" \
	--frames "ftl:$tmp/trace"
expect "run --input bogus" 2 "$db" "${run[@]}" --input bogus
expect "run --input getevent:FILE (a replay spec)" 2 "$db" "${run[@]}" \
	--input "getevent:$tmp/log"
expect "run --foreground bogus" 2 "$db" "${run[@]}" --foreground bogus
expect "run --foreground app: with a bad package" 2 "$db" "${run[@]}" \
	--foreground 'app:not a package'
expect "run --foreground log:FILE (a replay spec)" 2 "$db" "${run[@]}" \
	--foreground "log:$tmp/fg.log"
expect "run --device with bad JSON" 2 "$db" "${run[@]}" \
	--device "$tmp/bad.json"
expect "run --token-file with a short token" 2 "$db" "${run[@]}" \
	--token-file "$tmp/short-token"
expect "run --token-file that does not exist" 2 "$db" "${run[@]}" \
	--token-file "$tmp/no-token"
expect "run --listen without a port" 2 "$db" run --listen 127.0.0.1 \
	--db "$db" --sysroot "$tmp/empty"
expect "run --listen 0.0.0.0 without a token file" 2 "$db" run \
	--listen 0.0.0.0:0 --db "$db" --sysroot "$tmp/empty"
expect "run --retain-days -1" 2 "$db" "${run[@]}" --retain-days -1
expect "run --slop-px with --slop-dp" 2 "$db" "${run[@]}" --slop-px 4 \
	--slop-dp 4

# No pidfile either: it is taken after the options are checked.
rm -f "$tmp/tapd.pid"
"$tapd" "${run[@]}" --frames bogus --pidfile "$tmp/tapd.pid" >"$tmp/out" 2>&1
check "run --frames bogus --pidfile: exit 2" 2 $?
check "run --frames bogus --pidfile: no pidfile" no \
	"$([ -e "$tmp/tapd.pid" ] && echo yes || echo no)"

# Replay: the same, with a real session to read.
if ! "$sim" gen --scenario mixed --seed 1 --out "$tmp/s" >"$tmp/gen.log" 2>&1; then
	ko "tapd-sim gen: $(tail -n 3 "$tmp/gen.log")"
	finish
fi
replay=(replay --session "$tmp/s" --listen "$listen" --db "$db")

"$tapd" "${replay[@]}" >"$tmp/out" 2>&1
check "replay on the held port with good options: exit 1" 1 $?

expect "replay --frames bogus" 2 "$db" "${replay[@]}" --frames bogus
expect "replay --frames auto (a live spec)" 2 "$db" "${replay[@]}" \
	--frames auto
expect "replay --frames ftl: without a file" 2 "$db" "${replay[@]}" \
	--frames ftl:
expect "replay --input bogus" 2 "$db" "${replay[@]}" --input bogus
expect "replay --input evdev (a live spec)" 2 "$db" "${replay[@]}" \
	--input evdev
expect "replay --foreground bogus" 2 "$db" "${replay[@]}" --foreground bogus
expect "replay --foreground none (a live spec)" 2 "$db" "${replay[@]}" \
	--foreground none
expect "replay --foreground app: with a bad package" 2 "$db" \
	"${replay[@]}" --foreground 'app:not a package'
expect "replay --device with bad JSON" 2 "$db" "${replay[@]}" \
	--device "$tmp/bad.json"
expect "replay --token-file with a short token" 2 "$db" "${replay[@]}" \
	--token-file "$tmp/short-token"
expect "replay --listen 0.0.0.0 without a token file" 2 "$db" replay \
	--session "$tmp/s" --listen 0.0.0.0:0 --db "$db"
expect "replay --listen without a port" 2 "$db" replay --session "$tmp/s" \
	--listen localhost --db "$db"
expect "replay --pace 0" 2 "$db" "${replay[@]}" --pace 0
expect "replay without --input or --session" 2 "$db" replay --db "$db" \
	--listen "$listen"
# A recording that is not there is a failure to read, not a bad option,
# but it too is found before the database is made.
expect "replay of a missing input log" 1 "$db" "${replay[@]}" \
	--input "getevent:$tmp/missing.log"
expect "replay of a missing trace" 1 "$db" "${replay[@]}" \
	--frames "ftl:$tmp/missing.pftrace"

# Each command's --help lists every kind of the table that it takes.
"$tapd" replay --help >"$tmp/help-replay" 2>&1
check "replay --help: exit 0" 0 $?
"$tapd" run --help >"$tmp/help-run" 2>&1
check "run --help: exit 0" 0 $?
for line in 'replay --input getevent:FILE[@/dev/input/eventN]' \
	'replay --frames ftl:FILE|latency:DIR|none' \
	'replay --foreground log:FILE|app:PACKAGE' \
	'run --input evdev[:/dev/input/eventN]|getevent:FIFO  the touch screen' \
	'run --frames auto|ftl|latency|none      FrameTimeline' \
	'run --foreground auto|app:PACKAGE|none  top-app'; do
	grep -qF -- "  ${line#* }" "$tmp/help-${line%% *}"
	check "${line%% *} --help lists '${line#* }'" 0 $?
done

# Serve: a bad address or token is refused before the database is read.
expect "serve --listen 0.0.0.0 without a token file" 2 "$db" serve \
	--db "$db" --listen 0.0.0.0:0

finish
