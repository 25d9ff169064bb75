# The host's checks of the injection part of the real-kernel test (issue
# 13): sourced by tests/vm/run.sh, which calls inject_checks after the
# gestures' checks, on x86_64 and arm64 alike; what it checks was printed
# by tests/vm/inject.sh inside the VM.  Sets injected, the number of
# gestures injected through the API and found read back, for the summary
# line.
#
#  - every gesture tapd wrote (GET /v1/gestures) was read back and is
#    stored exactly once, with its kind, flagged injected (and not
#    virtual_device), with t_down inside its first write() and t_up inside
#    its final write() (after the clock reading just before the call, cut
#    to microseconds as the event's time is, and before the one just
#    after it returned): at least 10 of them;
#  - every answer of ?wait=1 (tapctl --json) is the record /v1/taps has;
#  - `tapctl tap --repeat N` printed N lines and a percentile table (N
#    is 20 on x86_64, 5 on the slower arm64 machine: inject_repeat);
#  - a tap while vmtest holds a finger down is refused (409), the
#    finger's own gesture is stored once, as virtual_device (vmtest's
#    screen is a uinput device), not injected;
#  - no token: 401; a daemon without --allow-inject: 403.
#
# inject_uinput_checks, of the phase through the clone, forced with
# --inject-via uinput and by itself (auto) on a node of mode 0400 with
# tapd run without CAP_DAC_OVERRIDE (its open() for writing fails with
# EACCES, reading works): in each, the tap and the swipe
# were read back and are stored once each (two taps in all), with their
# kind, flagged injected and not virtual_device, inside their writes, and
# /v1/health says mode uinput with the clone's node, not the screen's
# (which it knows to be a uinput device: the clone's gestures are still
# not virtual_device), and why the clone is used.

injected=0

inject_fact() {
	sed -n "s/^@@I $1 //p" "$txt" | head -n 1 | sed 's/[[:space:]]*$//'
}

# inject_gesture_checks PREFIX SUFFIX: each gesture of $gest (the VM's
# /v1/gestures) read back, stored once in $taps with its kind and t_down,
# flagged injected and not virtual_device, its t_down and t_up inside its
# first and final write(); each t_up inside counts in $injected.  The
# checks are named "PREFIXgesture ID (KIND)SUFFIX".
inject_gesture_checks() {
	local n i g id kind name up down fb fa lb la match t
	n=$(echo "$gest" | jq '.gestures | length')
	for i in $(seq 0 $((n - 1))); do
		g=$(echo "$gest" | jq -c ".gestures[$i]")
		id=$(echo "$g" | jq -r .id)
		kind=$(echo "$g" | jq -r .kind)
		name="${1}gesture $id ($kind)$2"
		check "$name: read back" read_back "$(echo "$g" | jq -r .state)"
		up=$(echo "$g" | jq -r .t_up_ns)
		down=$(echo "$g" | jq -r .t_down_ns)
		fb=$(echo "$g" | jq -r .first_write_before_ns)
		fa=$(echo "$g" | jq -r .first_write_after_ns)
		lb=$(echo "$g" | jq -r .final_write_before_ns)
		la=$(echo "$g" | jq -r .final_write_after_ns)
		match=$(echo "$taps" | jq -c --arg up "$up" '[.[] | select(.t_up_ns == $up)]')
		if [ "$(echo "$match" | jq length)" != 1 ]; then
			bad "$name: $(echo "$match" | jq length) stored taps with t_up_ns $up (want 1)"
			continue
		fi
		t=$(echo "$match" | jq -c '.[0]')
		check "$name: kind" "$kind" "$(echo "$t" | jq -r .kind)"
		check "$name: t_down_ns" "$down" "$(echo "$t" | jq -r .t_down_ns)"
		check "$name: flagged injected, not virtual_device" true \
			"$(echo "$t" | jq '(.flags | index("injected")) != null and (.flags | index("virtual_device")) == null')"
		if in_bracket "$up" "$lb" "$la"; then
			ok
			injected=$((injected + 1))
		else
			bad "$name: t_up $up is outside its final write() [$lb, $la]"
		fi
		if in_bracket "$down" "$fb" "$fa"; then
			ok
		else
			bad "$name: t_down $down is outside its first write() [$fb, $fa]"
		fi
	done
}

inject_checks() {
	local gest taps n i g id kind up down fb fa lb la match t want got
	local waits repeat lines
	if ! grep -q '^@@PHASE inject-done' "$txt"; then
		bad "injection: the phase did not run to its end"
		return
	fi
	check "injection: every tapctl call succeeded" " 0 0 0 0 0 0" \
		"$(sed -n 's/^@@I tapctl-rcs//p' "$txt" | head -n 1)"
	check "injection: tapd stops cleanly" 0 "$(inject_fact tapd-exit)"
	gest=$(section inject-gestures | grep '^{' | head -n 1)
	taps=$(section inject-taps | grep '^{' | head -n 1 | jq -c '.taps' 2>/dev/null)
	if [ -z "$taps" ] || ! echo "$gest" | jq -e '.gestures' >/dev/null 2>&1; then
		bad "injection: no /v1/taps or /v1/gestures from the VM"
		return
	fi
	n=$(echo "$gest" | jq '.gestures | length')
	check "injection: gestures written (4 + 3 in the script + $inject_repeat)" \
		$((7 + inject_repeat)) "$n"
	inject_gesture_checks "injected " ""
	echo "$label: injection: final write() bracket (after - before) at most $(echo "$gest" |
		jq '[.gestures[] | (.final_write_after_ns | tonumber) - (.final_write_before_ns | tonumber)] | max') ns"

	# ?wait=1 answers with the record /v1/taps has.
	waits=$( (section inject-wait; section inject-run) | grep '^{' | jq -c 'select(.t_up_ns)')
	check "injection: ?wait=1 answers (4 + 3 in the script)" 7 \
		"$(echo "$waits" | grep -c '^{')"
	echo "$waits" | while read -r w; do
		[ -n "$w" ] || continue
		id=$(echo "$w" | jq -r .id)
		want=$(echo "$taps" | jq -S -c --argjson id "$id" '.[] | select(.id == $id)')
		got=$(echo "$w" | jq -S -c .)
		if [ "$want" = "$got" ]; then
			echo ok
		else
			echo "bad tap $id: ?wait=1 gave $got, /v1/taps has $want"
		fi
	done >"$vm/inject-waits.txt"
	check "injection: every ?wait=1 answer is its /v1/taps record" 7 \
		"$(grep -c '^ok$' "$vm/inject-waits.txt")"
	grep '^bad' "$vm/inject-waits.txt" | head -n 3
	check "injection: tapctl run opened and stopped the session" vm-script \
		"$(section inject-run | grep '^{' | jq -r 'select(.name) | .name' | head -n 1)"

	repeat=$(section inject-repeat)
	lines=$(echo "$repeat" | grep -c '^tap ')
	check "injection: tapctl tap --repeat $inject_repeat prints $inject_repeat lines" \
		"$inject_repeat" "$lines"
	check "injection: and a percentile table" "metric n p50 p90 p99" \
		"$(echo "$repeat" | grep '^metric' | tr -s ' ')"
	# Each row counts the lines that have the measurement.
	check "injection: the table's first_frame_ms row counts its lines" \
		"$(echo "$repeat" | grep -c '^tap .* first_frame [0-9]')" \
		"$(echo "$repeat" | sed -n 's/^first_frame_ms  *\([0-9]*\) .*/\1/p')"
	check "injection: the table's settle_ms row counts its lines" \
		"$(echo "$repeat" | grep -c '^tap .* settle [0-9]')" \
		"$(echo "$repeat" | sed -n 's/^settle_ms  *\([0-9]*\) .*/\1/p')"
	echo "$label: tapctl tap --repeat $inject_repeat:"
	echo "$repeat" | grep -v '^tap \|^$' | sed "s/^/$label:   /"

	check "injection: a finger down gets 409 (tapctl exit 3)" 3 "$(inject_fact busy-rc)"
	check "injection: the 409 is said" 1 "$(section inject-busy-err | grep -c '409')"
	up=$(section inject-hold | grep '"phase":"up"' | jq -r .t_up_ns 2>/dev/null)
	check "injection: the held finger is stored once, virtual_device, not injected" \
		'["virtual_device"]' \
		"$(echo "$taps" | jq -c --arg up "$up" '[.[] | select(.t_up_ns == $up) | .flags]' |
			jq -c 'if length == 1 then .[0] | map(select(. == "virtual_device" or . == "injected")) else . end')"
	check "injection: stored = injected + the finger" $((n + 1)) "$(echo "$taps" | jq length)"
	check "injection: no token gets 401 (tapctl exit 3)" 3 "$(inject_fact notoken-rc)"
	check "injection: the 401 is said" 1 "$(section inject-notoken-err | grep -c '401')"
	check "injection: a daemon without --allow-inject gets 403 (tapctl exit 3)" 3 \
		"$(inject_fact off-rc)"
	check "injection: the 403 is said" 1 "$(section inject-off-err | grep -c '403')"
	check "injection: /v1/health says the touch screen is written" evdev \
		"$(section inject-health | grep '^{' | jq -r .inject.mode)"
}

inject_uinput_run_checks() { # TAG WHAT VIA REASON
	local tag=$1 what=$2 via=$3 reason=$4
	local gest taps n i g id kind up down fb fa lb la match t health dev screen
	check "injection $what: both tapctl calls succeeded" " 0 0" \
		"$(sed -n "s/^@@I $tag-tapctl-rcs//p" "$txt" | head -n 1)"
	check "injection $what: tapd stops cleanly" 0 "$(inject_fact $tag-tapd-exit)"
	gest=$(section inject-$tag-gestures | grep '^{' | head -n 1)
	taps=$(section inject-$tag-taps | grep '^{' | head -n 1 | jq -c '.taps' 2>/dev/null)
	if [ -z "$taps" ] || ! echo "$gest" | jq -e '.gestures' >/dev/null 2>&1; then
		bad "injection $what: no /v1/taps or /v1/gestures from the VM"
		return
	fi
	n=$(echo "$gest" | jq '.gestures | length')
	check "injection $what: gestures written (a tap, a swipe)" 2 "$n"
	check "injection $what: stored taps, once each" 2 "$(echo "$taps" | jq length)"
	inject_gesture_checks "" " $what"
	health=$(section inject-$tag-health | grep '^{' | jq -c .inject)
	check "injection $what: /v1/health says uinput" uinput \
		"$(echo "$health" | jq -r .mode)"
	check "injection $what: /v1/health says --inject-via $via" "$via" \
		"$(echo "$health" | jq -r .via)"
	check "injection $what: /v1/health says why the clone" 1 \
		"$(echo "$health" | jq -r .uinput_reason | grep -c -- "$reason")"
	check "injection $what: /v1/health says the screen is a uinput device" true \
		"$(echo "$health" | jq -r .virtual_device)"
	dev=$(echo "$health" | jq -r .device)
	screen=$(echo "$health" | jq -r .screen)
	case "$dev" in
	/dev/input/event[0-9]*) ok ;;
	*) bad "injection $what: /v1/health device '$dev' is no evdev node" ;;
	esac
	if [ "${dev##*/}" != "${screen##*/}" ]; then
		ok
	else
		bad "injection $what: /v1/health writes the screen '$screen' itself"
	fi
}

inject_uinput_checks() {
	if ! grep -q '^@@PHASE inject-u-done' "$txt"; then
		bad "injection via uinput: the phase did not run to its end"
		return
	fi
	inject_uinput_run_checks u "via uinput" uinput "^--inject-via uinput$"
	check "injection on a read-only node: the node refuses writing" yes \
		"$(inject_fact r-node-ro)"
	inject_uinput_run_checks r "on a read-only node" auto \
		"cannot open '.*/dev/input/event[0-9]*': Permission denied"
}
