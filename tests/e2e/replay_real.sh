#!/usr/bin/env bash
# End to end: the real getevent recordings of ../shared/fixtures/real/getevent
# and ../shared/fixtures/getevent (SOURCES.md in each says what was done
# on the device) replayed by `tapd replay`, and the gestures it stored
# (read with the sqlite3 shell, not tapd's code) checked against what
# their file names and SOURCES.md say: kinds, and the times of every
# finger down and up as an awk pass over the file reads them.  Then the
# contacts still down at the end of a log: the summary line, the
# /v1/health counter and the /metrics counter, on the real recording
# that ends with a finger down and on two written here (0 and 2 down),
# and at the stop of a live getevent stream.
# Run from the repository root; BUILD names the build directory.  Ends
# with "replay_real: N passed, N failed[, N skipped]".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
CURL=(curl -sS --max-time 10)
real=../shared/fixtures/real/getevent
peer=../shared/fixtures/getevent
skipped=0

NAME=replay_real
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD"
need_tools sqlite3 curl jq awk

work_dir replay-real

if [ ! -d "$real" ] || [ ! -d "$peer" ]; then
	echo "skip the real recordings: '$real' or '$peer' is missing"
	echo "$NAME: $pass passed, $fail failed, 1 skipped"
	exit 0
fi

q() {
	sqlite3 -batch -noheader -separator ' ' "$1" "$2"
}

# replay LABEL FILE: replays FILE into $work/LABEL.db; the summary in
# $work/LABEL.out, the messages in $work/LABEL.err.
replay() {
	rm -f "$work/$1.db"
	"$TAPD" replay --input "getevent:$2" --db "$work/$1.db" \
		>"$work/$1.out" 2>"$work/$1.err"
}

# The finger downs and ups of a log, as "DOWN_NS UP_NS" lines, one per
# time the screen went from no contact to some and back.  Protocol A
# resends every contact in every frame (up to its SYN_REPORT), and an
# empty frame means no finger: a frame touches when it carries a
# position.  Protocol B (seen from a tracking id of -1) is followed by
# its tracking ids, one slot: a contact is down from its id to its -1.
# Labelled (-l) and hex (-t) lines alike.
touches() {
	awk '
	# As a string: awk numbers are doubles, and mawk prints %d in 32 bits.
	function ns(stamp,   p) {
		split(stamp, p, ".")
		return (p[1] + 0) p[2] "000"
	}
	{
		gsub(/[][]/, " ")
		t = ns($1); type = $2; code = $3; val = tolower($4)
		if (type == "0003") type = "EV_ABS"
		if (type == "0000") type = "EV_SYN"
		if (type == "0001") type = "EV_KEY"
		if (code == "0035") code = "ABS_MT_POSITION_X"
		if (code == "0036") code = "ABS_MT_POSITION_Y"
		if (code == "0039") code = "ABS_MT_TRACKING_ID"
		if (code == "0000" && type == "EV_SYN") code = "SYN_REPORT"
		if (code == "014a") code = "BTN_TOUCH"
		if (code == "ABS_MT_TRACKING_ID") {
			if (val == "ffffffff") { ids = 0; protob = 1 }
			else { ids = 1; any = 1 }
		} else if (code ~ /^ABS_MT_POSITION/) {
			any = 1
		} else if (code == "SYN_REPORT") {
			touching = protob ? ids : any
			if (touching && !down) { down = 1; d = t }
			else if (!touching && down) {
				down = 0; print d, t
			}
			any = 0
		}
	}' "$1"
}

# One recording: its file, the kinds its name says, in time order.
check_named() {
	local label=$1 file=$2 want=$3
	if [ ! -r "$file" ]; then
		echo "skip $label: '$file' is missing"
		skipped=$((skipped + 1))
		return
	fi
	replay "$label" "$file"
	check "$label: replay exit" 0 $?
	check "$label: kinds" "$want" \
		"$(q "$work/$label.db" 'select group_concat(kind, " ")
		   from (select kind from taps order by t_down_ns)')"
	check "$label: down and up times" "$(touches "$file")" \
		"$(q "$work/$label.db" 'select t_down_ns, t_up_ns from taps
		   order by t_down_ns')"
	check "$label: nothing cut" "" "$(grep '^cut ' "$work/$label.out")"
}

m=$real/monkeyhelper-phone
check_named three-touches "$m/phone-three-touches.txt" "tap tap tap"
check_named single-touch "$m/phone-single-touch.txt" "tap"
check_named single-drag "$m/phone-single-drag.txt" "swipe"
check_named two-finger-drag "$m/phone-two-finger-drag.txt" "multi"
check_named cartucho "$real/cartucho-hex-protocol-a.getevent" "tap"
check_named emulator "$peer/emulator-tap.getevent" "tap"

# A control: the same three touches held 41, 71 and 100 ms, with a
# long-press timeout of 30 ms, are long presses; the kinds above come
# from the classifier, not from the file alone.
if [ -r "$m/phone-three-touches.txt" ]; then
	rm -f "$work/control.db"
	"$TAPD" replay --input "getevent:$m/phone-three-touches.txt" \
		--long-press-ms 30 --db "$work/control.db" >/dev/null 2>&1
	check "control: a 30 ms timeout makes them long presses" \
		"long_press long_press long_press" \
		"$(q "$work/control.db" 'select group_concat(kind, " ")
		   from (select kind from taps order by t_down_ns)')"
fi

# The two fingers of the two-finger drag were down together.
if [ -r "$m/phone-two-finger-drag.txt" ]; then
	check "two-finger-drag: two contacts, one gesture" \
		"touch      2 contacts" \
		"$(grep -o '^touch *[0-9]* contacts' "$work/two-finger-drag.out")"
fi

# The real app sessions (calendar, paint, a game): one finger at a time,
# every contact a gesture but those cut by the end of the log, and what
# each app is used with: the calendar opened and an event added with
# taps, pictures painted with strokes, the game's slingshot pulled.
for f in phone-openCalender:tap phone-CalenderaddEvent:tap \
	galaxys-paint:swipe galaxy-paint-new:swipe \
	phone-playAngryBirdsLevel1:swipe; do
	label=${f%%:*}
	kind=${f#*:}
	file=$m/$label.txt
	if [ ! -r "$file" ]; then
		echo "skip $label: '$file' is missing"
		skipped=$((skipped + 1))
		continue
	fi
	replay "$label" "$file"
	check "$label: replay exit" 0 $?
	db=$work/$label.db
	contacts=$(sed -n 's/^touch *\([0-9]*\) contacts\{0,1\},.*/\1/p' \
		"$work/$label.out")
	cut=$(sed -n 's/^cut *\([0-9]*\) contact.*/\1/p' "$work/$label.out")
	check "$label: every contact a gesture or cut" "${contacts:-?}" \
		"$(($(q "$db" 'select count(*) from taps') + ${cut:-0}))"
	check "$label: no multi-finger gesture" 0 \
		"$(q "$db" "select count(*) from taps where kind = 'multi'")"
	holds "$label: has a $kind" test \
		"$(q "$db" "select count(*) from taps where kind = '$kind'")" -gt 0
	check "$label: down and up times" "$(touches "$file")" \
		"$(q "$db" 'select t_down_ns, t_up_ns from taps
		   order by t_down_ns')"
done

# A finger landing, never lifted, and a log without timestamps, which
# cannot be replayed at all (SOURCES.md).
if [ -r "$peer/phone-touch-down.getevent" ]; then
	replay touch-down "$peer/phone-touch-down.getevent"
	check "touch-down: replay exit" 0 $?
	check "touch-down: no gesture" 0 \
		"$(q "$work/touch-down.db" 'select count(*) from taps')"
	check "touch-down: cut" \
		"cut        1 contact still down at the end of the log (its gesture was not stored)" \
		"$(grep '^cut ' "$work/touch-down.out")"
fi
if [ -r "$peer/phone-no-timestamps.getevent" ]; then
	replay no-timestamps "$peer/phone-no-timestamps.getevent"
	check "no-timestamps: refused" 2 $?
fi

# ---- Contacts still down at the end, served ----

# served LABEL FILE: replays FILE with the API up; once it is done, its
# /v1/health in $work/LABEL.health and /metrics in $work/LABEL.metrics.
served() {
	local i
	rm -f "$work/$1.sdb"
	if ! start_server "$work/$1.sout" "$TAPD" replay \
		--input "getevent:$2" --db "$work/$1.sdb" \
		--listen 127.0.0.1:0; then
		ko "$1: tapd replay --listen did not say where it listens" \
			"$(tail -n 5 "$work/$1.sout.err")"
		return 1
	fi
	for i in $(seq 300); do
		grep -q '^replay done' "$work/$1.sout" && break
		sleep 0.1
	done
	"${CURL[@]}" -o "$work/$1.health" "$url/v1/health"
	"${CURL[@]}" -o "$work/$1.metrics" "$url/metrics"
	stop_server "$pid"
	check "$1: served replay stops cleanly" 0 "$status"
}

# cut_case LABEL FILE N: N contacts still down at the end of FILE.
cut_case() {
	local label=$1 file=$2 n=$3 line
	served "$label" "$file" || return
	case $n in
	0) line= ;;
	1) line="cut        1 contact still down at the end of the log (its gesture was not stored)" ;;
	*) line="cut        $n contacts still down at the end of the log (their gesture was not stored)" ;;
	esac
	check "$label: summary" "$line" "$(grep '^cut ' "$work/$label.sout")"
	check "$label: /v1/health contacts_cut" "$n" \
		"$(jq -r '.counters.contacts_cut' "$work/$label.health")"
	check "$label: /metrics tapd_input_contacts_cut_total" "$n" \
		"$(sed -n 's/^tapd_input_contacts_cut_total \([0-9]*\)$/\1/p' \
			"$work/$label.metrics")"
	if [ "$n" -gt 0 ]; then
		holds "$label: warned" grep -q \
			"^tapd: warning: $n contacts\{0,1\} still down at the end of the input" \
			"$work/$label.sout.err"
	fi
}

# The real paint session: 14 contacts, of which the last is still down
# when the log ends, so 13 gestures.  The count expected is read from the
# file: tracking ids that start a contact less those that end one (one
# slot, protocol B).
f=$m/galaxy-paint-new.txt
if [ -r "$f" ]; then
	ends=$(grep -ci 'ABS_MT_TRACKING_ID *ffffffff' "$f")
	starts=$(($(grep -c 'ABS_MT_TRACKING_ID' "$f") - ends))
	check "galaxy-paint-new: 14 contacts, 13 ended" "14 13" "$starts $ends"
	cut_case galaxy-paint-new "$f" $((starts - ends))
	check "galaxy-paint-new: 13 gestures stored" 13 \
		"$(q "$work/galaxy-paint-new.sdb" 'select count(*) from taps')"
fi

# Written here: two fingers of protocol B that go down; in the first log
# both are lifted, in the second the log ends before.
two_down() {
	cat <<'EOF'
[     100.000000] EV_ABS       ABS_MT_SLOT          00000000            
[     100.000000] EV_ABS       ABS_MT_TRACKING_ID   00000010            
[     100.000000] EV_ABS       ABS_MT_POSITION_X    00000100            
[     100.000000] EV_ABS       ABS_MT_POSITION_Y    00000200            
[     100.000000] EV_ABS       ABS_MT_SLOT          00000001            
[     100.000000] EV_ABS       ABS_MT_TRACKING_ID   00000011            
[     100.000000] EV_ABS       ABS_MT_POSITION_X    00000300            
[     100.000000] EV_ABS       ABS_MT_POSITION_Y    00000400            
[     100.000000] EV_KEY       BTN_TOUCH            DOWN                
[     100.000000] EV_SYN       SYN_REPORT           00000000            
[     100.050000] EV_ABS       ABS_MT_SLOT          00000000            
[     100.050000] EV_ABS       ABS_MT_POSITION_X    00000101            
[     100.050000] EV_SYN       SYN_REPORT           00000000            
EOF
}
two_down >"$work/two-lifted.getevent"
cat >>"$work/two-lifted.getevent" <<'EOF'
[     100.080000] EV_ABS       ABS_MT_TRACKING_ID   ffffffff            
[     100.080000] EV_ABS       ABS_MT_SLOT          00000001            
[     100.080000] EV_ABS       ABS_MT_TRACKING_ID   ffffffff            
[     100.080000] EV_KEY       BTN_TOUCH            UP                  
[     100.080000] EV_SYN       SYN_REPORT           00000000            
EOF
two_down >"$work/two-down.getevent"
cut_case two-lifted "$work/two-lifted.getevent" 0
check "two-lifted: one multi gesture" "multi 100000000000 100080000000" \
	"$(q "$work/two-lifted.sdb" 'select kind, t_down_ns, t_up_ns from taps')"
cut_case two-down "$work/two-down.getevent" 2
check "two-down: nothing stored" 0 \
	"$(q "$work/two-down.sdb" 'select count(*) from taps')"

# A live getevent stream has no end of file (tapd holds the FIFO open for
# writing too): its input ends when the daemon stops, and the two
# fingers still down then are counted and warned about.  While they are
# down nothing is cut.
fifo=$work/touch.fifo
mkfifo "$fifo"
exec 7<>"$fifo"
if start_server "$work/live.out" "$TAPD" run --db "$work/live.db" \
	--listen 127.0.0.1:0 --input "getevent:$fifo" --frames none \
	--foreground none; then
	two_down >&7
	events=
	for i in $(seq 100); do
		events=$("${CURL[@]}" "$url/v1/health" 2>/dev/null |
			jq -r '.counters.input_events')
		[ "$events" = 13 ] && break
		sleep 0.1
	done
	check "live stream: every event read" 13 "$events"
	check "live stream: nothing cut while the fingers are down" 0 \
		"$("${CURL[@]}" "$url/v1/health" | jq -r '.counters.contacts_cut')"
	stop_server "$pid"
	check "live stream: stops cleanly" 0 "$status"
	holds "live stream: warned at the stop" grep -q \
		"^tapd: warning: 2 contacts still down at the end of the input" \
		"$work/live.out.err"
	check "live stream: nothing stored" 0 \
		"$(q "$work/live.db" 'select count(*) from taps')"
else
	ko "tapd run did not say where it listens" \
		"$(tail -n 5 "$work/live.out.err")"
fi
exec 7>&-

if [ "$skipped" -gt 0 ]; then
	echo "$NAME: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
	exit
fi
finish
