#!/usr/bin/env bash
# End to end: POST /v1/gestures on a machine without uinput (issue 13).
# The touch screen tapd would write is stood in for by a regular file
# (--inject-device), whose bytes are decoded as struct input_event and
# checked, and the fingers tapd reads come from a live getevent stream on
# a FIFO, so that a finger can be held down.  Nothing written to the file
# comes back as input, so ?wait=1 must end in its timeout.  Checked:
#  - --allow-inject without --token-file is refused at the start;
#  - --inject-via: a value not auto, evdev or uinput, the option without
#    --allow-inject, and uinput with --inject-device are refused at the
#    start; the daemon's /v1/health names the choice (via auto, mode
#    file for the stand-in);
#  - a daemon without --allow-inject answers 403, JSON;
#  - without the token, or with a wrong one, 401 on loopback, JSON;
#  - a tap is written as one protocol B down frame (slot, the tracking id
#    GET /v1/gestures names, position, SYN_REPORT) and one up frame;
#  - ?wait=1 with nothing read back: 504 "timeout" after timeout_ms;
#  - a finger down: 409; with queue=1 the gestures wait, are written once
#    the finger lifts, in the order they came (a tap, then a swipe);
#  - past --inject-rate in one second: 429;
#  - bad bodies: 400.
set -u
build=${BUILD:-build}
tapd=$build/tapd
NAME=inject
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
need_bins "$tapd"
need_tools curl jq python3
work_dir inject
tmp=$work

# A check that cannot be decided on a machine this slow: counted, shown.
skipped=0
skip() {
	skipped=$((skipped + 1))
	echo "skip $*"
}
finish() {
	echo "$NAME: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
	exit
}

tok=$tmp/token
(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tok")
auth="Authorization: Bearer $(cat "$tok")"

# post URL BODY [CURL_ARGS...]: the status, then the body, on one line each.
post() {
	local u=$1 b=$2
	shift 2
	curl -s --max-time 20 -w '\n%{http_code}' "$@" -d "$b" "$u" |
		tac | tr '\n' ' '
}
code_of() { echo "$1" | cut -d' ' -f1; }
json_of() { echo "$1" | cut -d' ' -f2-; }

# decode FILE: one line per event, "type code value", of struct input_event.
decode() {
	python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
size = struct.calcsize("llHHi")
if len(data) % size:
    print("partial %d" % len(data))
for i in range(0, len(data) - len(data) % size, size):
    sec, usec, typ, code, value = struct.unpack_from("llHHi", data, i)
    print(typ, code, value)
PY
}

# finger FIFO down|up: a finger at (100, 100) in the getevent stream.
finger() {
	python3 - "$1" "$2" <<'PY'
import os, sys, time
t = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
def line(typ, code, value):
    return "[%8d.%06d] %-12s %-20s %s\n" % (t // 1000000, t % 1000000, typ, code, value)
fd = os.open(sys.argv[1], os.O_WRONLY)
if sys.argv[2] == "down":
    os.write(fd, (line("EV_ABS", "ABS_MT_TRACKING_ID", "00000005") +
                  line("EV_ABS", "ABS_MT_POSITION_X", "00000064") +
                  line("EV_ABS", "ABS_MT_POSITION_Y", "00000064") +
                  line("EV_KEY", "BTN_TOUCH", "DOWN") +
                  line("EV_SYN", "SYN_REPORT", "00000000")).encode())
else:
    os.write(fd, (line("EV_ABS", "ABS_MT_TRACKING_ID", "ffffffff") +
                  line("EV_KEY", "BTN_TOUCH", "UP") +
                  line("EV_SYN", "SYN_REPORT", "00000000")).encode())
os.close(fd)
PY
}

# wait_for URL JQ WANT: polls (with the token) until JQ of URL gives WANT.
wait_for() {
	local i
	for i in $(seq 1 100); do
		[ "$(curl -s --max-time 5 -H "$auth" "$1" | jq -r "$2" 2>/dev/null)" = "$3" ] &&
			return 0
		sleep 0.05
	done
	return 1
}

# --allow-inject needs the token.
mkfifo "$tmp/refused.fifo"
"$tapd" run --db "$tmp/refused.db" --listen 127.0.0.1:0 --input "getevent:$tmp/refused.fifo" \
	--frames none --foreground none --allow-inject >"$tmp/refused.out" 2>&1
check "--allow-inject without --token-file: exit 2" 2 "$?"
check "--allow-inject without --token-file: says why" 1 \
	"$(grep -c 'allow-inject needs --token-file' "$tmp/refused.out")"
check "--allow-inject without --token-file: no database made" no \
	"$([ -e "$tmp/refused.db" ] && echo yes || echo no)"

# --inject-via: auto, evdev or uinput, only with --allow-inject, and no
# clone of a stand-in file.
"$tapd" run --db "$tmp/via.db" --listen 127.0.0.1:0 --input "getevent:$tmp/refused.fifo" \
	--frames none --foreground none --token-file "$tok" --allow-inject \
	--inject-via usb >"$tmp/via-bad.out" 2>&1
check "--inject-via usb: exit 2" 2 "$?"
check "--inject-via usb: says why" 1 \
	"$(grep -c "invalid --inject-via 'usb': expected auto, evdev or uinput" "$tmp/via-bad.out")"
"$tapd" run --db "$tmp/via.db" --listen 127.0.0.1:0 --input "getevent:$tmp/refused.fifo" \
	--frames none --foreground none --inject-via uinput >"$tmp/via-off.out" 2>&1
check "--inject-via without --allow-inject: exit 2" 2 "$?"
check "--inject-via without --allow-inject: says why" 1 \
	"$(grep -c 'inject-via go with --allow-inject' "$tmp/via-off.out")"
"$tapd" run --db "$tmp/via.db" --listen 127.0.0.1:0 --input "getevent:$tmp/refused.fifo" \
	--frames none --foreground none --token-file "$tok" --allow-inject \
	--inject-via uinput --inject-device "$tmp/via.dev" >"$tmp/via-dev.out" 2>&1
check "--inject-via uinput with --inject-device: exit 2" 2 "$?"
check "--inject-via uinput with --inject-device: says why" 1 \
	"$(grep -c 'inject-via uinput clones the touch screen' "$tmp/via-dev.out")"
check "--inject-via refused: no database made" no \
	"$([ -e "$tmp/via.db" ] && echo yes || echo no)"

# A daemon without --allow-inject: 403.
fifo0=$tmp/off.fifo
mkfifo "$fifo0"
exec 8<>"$fifo0"
if ! start_server "$tmp/off.out" "$tapd" run --db "$tmp/off.db" --listen 127.0.0.1:0 \
	--input "getevent:$fifo0" --frames none --foreground none; then
	ko "a daemon without --allow-inject starts" "$(cat "$tmp/off.out.err")"
	finish
fi
r=$(post "$url/v1/gestures" '{"kind":"tap","x":1,"y":2}')
check "without --allow-inject: 403" 403 "$(code_of "$r")"
check "without --allow-inject: JSON error forbidden" forbidden \
	"$(json_of "$r" | jq -r .error.code)"
check "without --allow-inject: GET is 403 too" 403 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$url/v1/gestures")"
check "without --allow-inject: /v1/health says inject null" null \
	"$(curl -s "$url/v1/health" | jq -c .inject)"
stop_server "$pid"
exec 8>&-

# The injecting daemon.
fifo=$tmp/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
dev=$tmp/event9
: >"$dev"
if ! start_server "$tmp/out" "$tapd" run --db "$tmp/taps.db" --listen 127.0.0.1:0 \
	--input "getevent:$fifo" --frames none --foreground none \
	--token-file "$tok" --allow-inject --inject-device "$dev" --inject-rate 1000; then
	ko "the injecting daemon starts" "$(cat "$tmp/out.err")"
	finish
fi
g=$url/v1/gestures
check "/v1/health: via auto, mode file, the stand-in written" "auto file $dev null" \
	"$(curl -s -H "$auth" "$url/v1/health" | jq -r '.inject | "\(.via) \(.mode) \(.device) \(.uinput_reason)"')"

r=$(post "$g" '{"kind":"tap","x":1,"y":2}')
check "no token: 401" 401 "$(code_of "$r")"
check "no token: JSON error unauthorized" unauthorized "$(json_of "$r" | jq -r .error.code)"
r=$(post "$g" '{"kind":"tap","x":1,"y":2}' -H "Authorization: Bearer not-the-token-at-all")
check "a wrong token: 401" 401 "$(code_of "$r")"
check "nothing written without the token" 0 "$(stat -c %s "$dev")"

for body in '{"kind":"poke","x":1,"y":2}' '{"kind":"tap","x":1}' \
	'{"kind":"tap","x":1,"y":2,"hold_ms":0}' '{"kind":"tap","x":1,"y":2,"z":3}' \
	'{"kind":"swipe","from":[1,2]}' '[1,2]' '{"kind":"tap","x":-5,"y":2}'; do
	r=$(post "$g" "$body" -H "$auth")
	check "bad body $body: 400 bad_request" "400 bad_request" \
		"$(code_of "$r") $(json_of "$r" | jq -r .error.code)"
done
check "nothing written for bad bodies" 0 "$(stat -c %s "$dev")"

# A tap: the frames written.
r=$(post "$g" '{"kind":"tap","x":540,"y":1200,"hold_ms":30}' -H "$auth")
check "a tap: 202" 202 "$(code_of "$r")"
id1=$(json_of "$r" | jq -r .id)
check "a tap: its id" 1 "$id1"
if wait_for "$g" ".gestures[] | select(.id == $id1) | .state" written; then
	ok "a tap: written"
else
	ko "a tap: written" "$(curl -s -H "$auth" "$g")"
fi
tid=$(curl -s -H "$auth" "$g" | jq -r ".gestures[] | select(.id == $id1) | .tracking_id")
slot=$(curl -s -H "$auth" "$g" | jq -r ".gestures[] | select(.id == $id1) | .slot")
# EV_SYN 0, EV_KEY 1, EV_ABS 3; ABS_MT_SLOT 47, _POSITION_X 53, _Y 54,
# _TRACKING_ID 57.
want="3 47 $slot|3 57 $tid|3 53 540|3 54 1200|0 0 0|3 47 $slot|3 57 -1|0 0 0"
check "a tap: slot 0" 0 "$slot"
check "a tap: the events written" "$want" "$(decode "$dev" | paste -sd'|')"
check "a tap: GET /v1/gestures has its write readings" true \
	"$(curl -s -H "$auth" "$g" | jq ".gestures[0] | (.final_write_before_ns | tonumber) >= (.first_write_after_ns | tonumber) and (.final_write_after_ns | tonumber) >= (.final_write_before_ns | tonumber)")"
check "a tap: never read back" null \
	"$(curl -s -H "$auth" "$g" | jq -c '.gestures[0].t_up_ns')"

# ?wait=1: nothing comes back from a file, so the cap ends it.
t0=$(date +%s%N)
r=$(post "$g?wait=1&timeout_ms=400" '{"kind":"tap","x":10,"y":20,"hold_ms":10}' -H "$auth")
t1=$(date +%s%N)
check "?wait=1 with nothing read back: 504" 504 "$(code_of "$r")"
check "?wait=1: JSON error timeout" timeout "$(json_of "$r" | jq -r .error.code)"
check "?wait=1: not before its timeout_ms" true "$([ $(((t1 - t0) / 1000000)) -ge 400 ] && echo true)"
check "?wait=1: the gesture itself was written" written \
	"$(curl -s -H "$auth" "$g" | jq -r '.gestures[1].state')"

# A finger down: 409, or queued with queue=1.
finger "$fifo" down
if wait_for "$url/v1/health" .inject.fingers_down 1; then
	ok "the finger is seen down"
else
	ko "the finger is seen down" "$(curl -s -H "$auth" "$url/v1/health" | jq -c .inject)"
fi
size=$(stat -c %s "$dev")
r=$(post "$g" '{"kind":"tap","x":1,"y":2}' -H "$auth")
check "a finger down: 409" 409 "$(code_of "$r")"
check "a finger down: JSON error conflict" conflict "$(json_of "$r" | jq -r .error.code)"
r=$(post "$g?queue=1" '{"kind":"tap","x":7,"y":8,"hold_ms":10}' -H "$auth")
check "queue=1: 202" 202 "$(code_of "$r")"
qa=$(json_of "$r" | jq -r .id)
r=$(post "$g?queue=1" '{"kind":"swipe","from":[10,10],"to":[50,90],"duration_ms":20}' -H "$auth")
check "queue=1, a second: 202" 202 "$(code_of "$r")"
qb=$(json_of "$r" | jq -r .id)
check "queued ids follow each other" $((qa + 1)) "$qb"
sleep 0.5
check "queued: nothing written while the finger is down" "$size" "$(stat -c %s "$dev")"
check "queued: both still queued" "queued queued" \
	"$(curl -s -H "$auth" "$g" | jq -r "[.gestures[] | select(.id >= $qa) | .state] | join(\" \")")"
finger "$fifo" up
if wait_for "$g" ".gestures[] | select(.id == $qb) | .state" written; then
	ok "queued: written once the finger lifts"
else
	ko "queued: written once the finger lifts" "$(curl -s -H "$auth" "$g")"
fi
# The tap's 8 events, then the swipe's: down, 2 moves, up.
decode "$dev" | tail -n +$((size / 24 + 1)) >"$tmp/queued.txt"
check "queued: the tap first (its down at 7, 8)" "3 53 7|3 54 8" \
	"$(sed -n '3,4p' "$tmp/queued.txt" | paste -sd'|')"
check "queued: then the swipe (its down at 10, 10)" "3 53 10|3 54 10" \
	"$(sed -n '11,12p' "$tmp/queued.txt" | paste -sd'|')"
check "queued: the swipe ends at 50, 90 before its up" "3 53 50|3 54 90" \
	"$(tail -n 7 "$tmp/queued.txt" | sed -n '2,3p' | paste -sd'|')"
check "queued: events written (8 + 5 + 2 x 4 + 3)" 24 "$(wc -l <"$tmp/queued.txt")"
stop_server "$pid"
check "SIGTERM: exit 0" 0 "$status"
exec 7>&-

# The rate limit: 3 a second, 8 asked for at once.
fifo2=$tmp/rate.fifo
mkfifo "$fifo2"
exec 9<>"$fifo2"
: >"$tmp/rate.dev"
if ! start_server "$tmp/rate.out" "$tapd" run --db "$tmp/rate.db" --listen 127.0.0.1:0 \
	--input "getevent:$fifo2" --frames none --foreground none \
	--token-file "$tok" --allow-inject --inject-device "$tmp/rate.dev" --inject-rate 3; then
	ko "the rate-limited daemon starts" "$(cat "$tmp/rate.out.err")"
	finish
fi
urls=()
for i in 1 2 3 4 5 6 7 8; do urls+=("$url/v1/gestures"); done
t0=$(date +%s%N)
curl -s --max-time 20 -H "$auth" -d '{"kind":"tap","x":1,"y":2,"hold_ms":1}' \
	-o /dev/null -w '%{http_code}\n' "${urls[@]}" >"$tmp/codes.txt"
t1=$(date +%s%N)
check "rate: every answer is 202 or 429" 8 "$(grep -c '^\(202\|429\)$' "$tmp/codes.txt")"
if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then
	check "rate: 3 accepted within the second" 3 "$(grep -c '^202$' "$tmp/codes.txt")"
	check "rate: the rest 429" 5 "$(grep -c '^429$' "$tmp/codes.txt")"
else
	skip "rate: the 8 requests took $(((t1 - t0) / 1000000)) ms, past the second"
	skip "rate: the rest 429"
fi
r=$(post "$url/v1/gestures" '{"kind":"tap","x":1,"y":2}' -H "$auth")
if [ "$(code_of "$r")" = 429 ]; then
	check "rate: JSON error too_many_requests" too_many_requests "$(json_of "$r" | jq -r .error.code)"
else
	check "rate: a ninth at once is 429 or past the second" true \
		"$([ $((($(date +%s%N) - t0) / 1000000)) -ge 1000 ] && echo true)"
fi
check "rate: /v1/health counts the refusals" true \
	"$(curl -s -H "$auth" "$url/v1/health" | jq '.inject.rate_limited >= 5')"
stop_server "$pid"
exec 9>&-
finish
