#!/usr/bin/env bash
# End to end: a tap whose response ends on an idle screen (docs/DESIGN.md
# 1.8).  `tapd run` with FrameTimeline from the fake perfetto in its idle
# mode (nothing drawn reaches the trace, as the last frame before the
# screen goes idle never does) and the fake dumpsys's taps model (the
# app's burst after each finger-up, in --latency rows).  One tap comes
# through the live input path as a getevent stream on a FIFO (`--input
# getevent:FIFO`, stamped with CLOCK_MONOTONIC as it is written); it must
# be finalized within the documented bound after its quiet deadline:
#
#   - with dumpsys, ok and end_from_latency, first_frame and settle those
#     of the fake's model (16 ms, 99.333 ms);
#   - with dumpsys failing, no_response and end_unconfirmed.
#
# The same logic runs in tests/unit/test_correlate_idle.c against the same
# fakes, and taps through a real touch screen in the VM test.
set -u
build=${BUILD:-build}
tapd=$build/tapd
sim=$build/tapd-sim
NAME=live_idle
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/tap.sh"
need_bins "$tapd" "$sim"
need_tools curl jq python3
work_dir live_idle
tmp=$work
mkdir -p "$tmp/bin"
for t in perfetto dumpsys getprop; do
	ln -s "$PWD/$sim" "$tmp/bin/$t"
done
app=com.example.taps

# CLOCK_MONOTONIC in ns, read the way the daemon reads it.
mono_ns() {
	python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'
}

# run_one TAG CAP_MS [ENV...]: one daemon, one tap; sets tap (its JSON),
# t_up (the finger-up as the stream stamped it) and seen (when the API
# first had it).
run_one() {
	local tag=$1 cap=$2 i fifo=$tmp/$1/touch.fifo
	shift 2
	mkdir -p "$tmp/$tag/traces"
	: >"$tmp/$tag/frames"
	mkfifo "$fifo"
	# Held open for writing, so that tapd's open does not wait and the
	# tap's writer closing is not the end of the stream.
	exec 7<>"$fifo"
	start_server "$tmp/$tag/out" env TAPD_FAKE_SDK=33 \
		TAPD_FAKE_PERFETTO_IDLE=1 TAPD_FAKE_TAPS="$tmp/$tag/frames" "$@" \
		"$tapd" run --db "$tmp/$tag/taps.db" --listen 127.0.0.1:0 \
		--input "getevent:$fifo" \
		--foreground "app:$app" --settle-cap-ms "$cap" \
		--perfetto-bin "$tmp/bin/perfetto" \
		--dumpsys-bin "$tmp/bin/dumpsys" \
		--getprop-bin "$tmp/bin/getprop" --trace-dir "$tmp/$tag/traces"
	# The frame source's first session, before the tap.
	for i in $(seq 1 100); do
		[ "$(curl -s --max-time 5 "$url/v1/health" |
			jq -r '.sources.frames.health // empty')" = up ] && break
		sleep 0.05
	done
	t_up=$(play_tap "$fifo" "$tmp/$tag/frames")
	tap=
	seen=
	for i in $(seq 1 200); do
		tap=$(curl -s --max-time 5 "$url/v1/taps?kind=tap" |
			jq -c '.taps[0] // empty')
		if [ -n "$tap" ]; then
			seen=$(mono_ns)
			break
		fi
		sleep 0.05
	done
	stop_server "$pid"
	exec 7>&-
}

# 1. dumpsys answers: the burst completed from its rows.
run_one latency 5000
check "latency: tap played" true "$([ -n "$t_up" ] && echo true)"
check "latency: finalized before the stop" true "$([ -n "$tap" ] && echo true)"
check "latency: status" ok "$(jq -r .status <<<"$tap")"
check "latency: flagged end_from_latency" true \
	"$(jq '.flags | index("end_from_latency") != null' <<<"$tap")"
check "latency: first_frame as the fake presented it" 16 \
	"$(jq .first_frame_ms <<<"$tap")"
check "latency: settle as the fake presented it" 99.333 \
	"$(jq .settle_ms <<<"$tap")"
# The quiet deadline: the burst's last present plus 300 ms.  The bound:
# the stall (1.25 s) plus a poll (500 ms) after it, with a second to spare.
if [ -n "$t_up" ] && [ -n "$seen" ]; then
	late=$(((seen - t_up - 99333335 - 300000000) / 1000000))
	echo "     finalized ${late} ms after the quiet deadline"
	holds "latency: within the bound (${late} ms <= 2750 ms)" \
		test "$late" -le 2750
fi

# 2. dumpsys fails: given up on 1 s after the quiet deadline, which with
# no response frame seen is the window's end (a 1 s cap here).
run_one unconfirmed 1000 TAPD_FAKE_DUMPSYS_MODE=error
check "unconfirmed: finalized before the stop" true \
	"$([ -n "$tap" ] && echo true)"
check "unconfirmed: status" no_response "$(jq -r .status <<<"$tap")"
check "unconfirmed: flagged end_unconfirmed" '["end_unconfirmed"]' \
	"$(jq -c .flags <<<"$tap")"
if [ -n "$t_up" ] && [ -n "$seen" ]; then
	late=$(((seen - t_up - 1000000000) / 1000000))
	echo "     finalized ${late} ms after the quiet deadline"
	holds "unconfirmed: not before deadline + 1 s (${late} ms)" \
		test "$late" -ge 1000
	holds "unconfirmed: within the bound (${late} ms <= 4000 ms)" \
		test "$late" -le 4000
fi
finish
