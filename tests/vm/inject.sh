#!/bin/sh
# The injection part of the real-kernel test (issue 13), sourced by
# tests/vm/init.sh, which calls inject_refused_off while its first tapd
# (without --allow-inject) runs and inject_phase after its own runs;
# tests/vm/inject-check.sh checks what they print on the console.
#
# inject_phase: a touch screen held by `vmtest --hold`, the sysfs of the
# VM bound into the fake sysroot (so that tapd sees the screen is a uinput
# device), and a `tapd run --allow-inject --token-file` on a database of
# its own.  Through the API (tapctl), each waiting for its tap: two taps,
# a long press, a swipe, a `tapctl run` script of three gestures and
# `tapctl tap --repeat N` (INJECT_REPEAT of /etc/vmtest.conf, 20); then a tap while vmtest holds a finger down
# (409), and one without the token (401).  It prints tapctl's outputs,
# the taps stored, the gestures as tapd wrote them (GET /v1/gestures) and
# the finger's record, between "@@BEGIN inject-NAME" and "@@END" lines,
# and "@@I NAME VALUE" facts.  Plain sh: the VM has busybox only.

inject_say_file() { # NAME FILE
	say "@@BEGIN inject-$1"
	cat "$2" >/dev/console 2>&1
	say ""
	say "@@END inject-$1"
}

# inject_refused_off PORT: the daemon on PORT runs without --allow-inject.
inject_refused_off() {
	tapctl --url "http://127.0.0.1:$1" tap 540 1200 \
		>/tmp/vm/inject-off.out 2>/tmp/vm/inject-off.err
	say "@@I off-rc $?"
	inject_say_file off-err /tmp/vm/inject-off.err
}

inject_phase() {
	say "@@PHASE inject-start $(cut -d' ' -f1 /proc/uptime)"
	d=/tmp/vm/inject
	mkdir -p $d $root/sys
	mount -o bind /sys $root/sys
	tok=$d/token
	(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >$tok)
	vmtest --hold 110 >$d/hold.out 2>>/tmp/vm/vmtest.err &
	hold_pid=$!
	i=0
	while ! grep -q '"event":"device"' $d/hold.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.05
	done
	port=7880
	# A live tap is final once no switch of the foreground can make it a
	# launch any more: 10 s after it by default, as no touch-down follows
	# a tapctl gesture that waits for its own result.  One second keeps
	# the 30 or so gestures here within the watchdog.
	api=http://127.0.0.1:$port
	TAPD_FAKE_TAPS=/tmp/vm/frames \
		TAPD_FAKE_TAPS_LAYER="$app/$app.MainActivity#0" \
		TAPD_FAKE_DUMPSYS_DIR=/tmp/vm/dumpsys \
		/bin/tapd run --input evdev --frames latency \
		--dumpsys-bin /bin/dumpsys --getprop-bin /bin/getprop \
		--sysroot $root --db $d/taps.db --listen 127.0.0.1:$port \
		--token-file $tok --allow-inject --log-file $d/tapd.log \
		--settle-cap-ms 300 --launch-cap-ms 1000 -v >$d/tapd.out 2>&1 &
	ipid=$!
	listening $d/tapd.out
	tc="tapctl --url $api --token-file $tok --timeout 20"
	# Until the touch screen is open: the injector writes the node the
	# input reads.
	i=0
	while [ "$($tc --json health 2>/dev/null | grep -o '"mode":"evdev"')" = "" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.1
	done
	: >$d/wait.out
	rcs=
	$tc --json tap 300 400 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	$tc --json tap 700 900 --hold 120 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	$tc --json press 540 1200 --hold 700 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	$tc --json swipe 540 1800 540 600 --duration 200 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	printf '%s\n' '{"kind":"tap","x":200,"y":300}' '{"sleep_ms":100}' \
		'{"kind":"long_press","x":800,"y":2000,"hold_ms":600}' \
		'{"kind":"swipe","from":[100,1000],"to":[900,1000],"duration_ms":150}' \
		>$d/script.jsonl
	$tc --json run $d/script.jsonl --session vm-script >$d/run.out 2>>$d/tapctl.err; rcs="$rcs $?"
	$tc tap 540 1200 --repeat "${INJECT_REPEAT:-20}" >$d/repeat.out 2>>$d/tapctl.err; rcs="$rcs $?"
	say "@@I tapctl-rcs$rcs"
	# A finger down: refused.
	kill -USR1 $hold_pid
	i=0
	while ! grep -q '"phase":"down"' $d/hold.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.05
	done
	sleep 0.2
	$tc tap 540 1200 >/dev/null 2>$d/busy.err
	say "@@I busy-rc $?"
	kill -USR2 $hold_pid
	i=0
	while ! grep -q '"phase":"up"' $d/hold.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.05
	done
	# No token: refused, on loopback too.
	tapctl --url $api tap 540 1200 >/dev/null 2>$d/notoken.err
	say "@@I notoken-rc $?"
	# The finger's gesture is stored once its window closes.
	i=0
	while [ "$(wget -q -O - --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/taps?limit=100" 2>/dev/null | grep -o '"t_up_ns"' | wc -l)" \
		-lt $((8 + ${INJECT_REPEAT:-20})) ]; do
		i=$((i + 1))
		[ $i -gt 50 ] && break
		sleep 0.1
	done
	wget -q -O $d/taps.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/taps?limit=100"
	wget -q -O $d/gestures.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/gestures"
	wget -q -O $d/health.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/health"
	stop $ipid
	say "@@I tapd-exit $stopped"
	kill -TERM $hold_pid
	wait $hold_pid
	umount $root/sys
	for f in wait run repeat busy notoken; do
		[ -f $d/$f.out ] && inject_say_file $f $d/$f.out
		[ -f $d/$f.err ] && inject_say_file $f-err $d/$f.err
	done
	inject_say_file tapctl-err $d/tapctl.err
	inject_say_file hold $d/hold.out
	inject_say_file taps $d/taps.json
	inject_say_file gestures $d/gestures.json
	inject_say_file health $d/health.json
	say "@@BEGIN inject-log"
	cat $d/tapd.out >/dev/console 2>&1
	tail -n 80 $d/tapd.log >/dev/console 2>&1
	say "@@END inject-log"
	say "@@PHASE inject-done $(cut -d' ' -f1 /proc/uptime)"
}

# inject_uinput_phase: the fallback (issue 13), twice on one touch screen
# held by `vmtest --hold`: "u", forced with --inject-via uinput; then "r",
# auto, with the screen's node made mode 0400 and tapd run without
# CAP_DAC_OVERRIDE (vmtest --no-dac-override), so that opening the node
# for writing fails (EACCES) while reading it works, and tapd falls back
# to the clone by itself.  Each run writes a tap and a swipe into tapd's
# uinput clone of the screen and reads them back from there.  It prints
# the taps, the gestures and the health between "@@BEGIN inject-TAG-NAME"
# and "@@END" lines, and "@@I TAG-NAME VALUE" facts.
inject_uinput_run() { # TAG PORT WRAP ARGS...
	tag=$1
	port=$2
	wrap=$3
	shift 3
	d=/tmp/vm/inject-$tag
	mkdir -p $d
	tok=$d/token
	(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >$tok)
	api=http://127.0.0.1:$port
	TAPD_FAKE_TAPS=/tmp/vm/frames \
		TAPD_FAKE_TAPS_LAYER="$app/$app.MainActivity#0" \
		TAPD_FAKE_DUMPSYS_DIR=/tmp/vm/dumpsys \
		$wrap /bin/tapd run --input evdev --frames latency \
		--dumpsys-bin /bin/dumpsys --getprop-bin /bin/getprop \
		--sysroot $root --db $d/taps.db --listen 127.0.0.1:$port \
		--token-file $tok --allow-inject "$@" \
		--log-file $d/tapd.log --settle-cap-ms 300 \
		--launch-cap-ms 1000 -v >$d/tapd.out 2>&1 &
	ipid=$!
	listening $d/tapd.out
	tc="tapctl --url $api --token-file $tok --timeout 20"
	i=0
	while [ "$($tc --json health 2>/dev/null | grep -o '"screen":"/')" = "" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.1
	done
	: >$d/wait.out
	rcs=
	$tc --json tap 300 400 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	$tc --json swipe 540 1800 540 600 --duration 200 >>$d/wait.out 2>>$d/tapctl.err; rcs="$rcs $?"
	say "@@I $tag-tapctl-rcs$rcs"
	i=0
	while [ "$(wget -q -O - --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/taps?limit=100" 2>/dev/null | grep -o '"t_up_ns"' | wc -l)" \
		-lt 2 ]; do
		i=$((i + 1))
		[ $i -gt 30 ] && break
		sleep 0.1
	done
	# A moment more: a second copy of a gesture would be stored by now.
	sleep 0.3
	wget -q -O $d/taps.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/taps?limit=100"
	wget -q -O $d/gestures.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/gestures"
	wget -q -O $d/health.json --header "Authorization: Bearer $(cat $tok)" \
		"$api/v1/health"
	stop $ipid
	say "@@I $tag-tapd-exit $stopped"
	inject_say_file $tag-wait $d/wait.out
	[ -f $d/tapctl.err ] && inject_say_file $tag-tapctl-err $d/tapctl.err
	inject_say_file $tag-taps $d/taps.json
	inject_say_file $tag-gestures $d/gestures.json
	inject_say_file $tag-health $d/health.json
	say "@@BEGIN inject-$tag-log"
	cat $d/tapd.out >/dev/console 2>&1
	tail -n 40 $d/tapd.log >/dev/console 2>&1
	say "@@END inject-$tag-log"
}

inject_uinput_phase() {
	say "@@PHASE inject-u-start $(cut -d' ' -f1 /proc/uptime)"
	h=/tmp/vm/inject-hold-u.out
	# As in inject_phase: the screen is seen to be a uinput device, whose
	# gestures are virtual_device unless they are tapd's own.
	mount -o bind /sys $root/sys
	vmtest --hold 40 >$h 2>>/tmp/vm/vmtest.err &
	hold_pid=$!
	i=0
	while ! grep -q '"event":"device"' $h 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.05
	done
	node=$(grep -o '"node":"[^"]*"' $h | head -n 1 | cut -d'"' -f4)
	inject_uinput_run u 7881 "" --inject-via uinput
	# The node readable, not writable, by a root bound by its mode.
	mode=$(stat -c %a "$root$node")
	chmod 0400 "$root$node"
	ro=no
	vmtest --no-dac-override sh -c ": 2>/dev/null >>'$root$node'" || ro=yes
	say "@@I r-node-ro $ro"
	inject_uinput_run r 7882 "vmtest --no-dac-override"
	chmod "$mode" "$root$node"
	kill -TERM $hold_pid
	wait $hold_pid
	umount $root/sys
	say "@@PHASE inject-u-done $(cut -d' ' -f1 /proc/uptime)"
}
