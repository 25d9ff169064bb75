#!/usr/bin/env bash
# Recordings whose time goes back.  A getevent log: a simulated session's
# log recorded twice into one file (`cat log log`), and the same log
# reversed.  A foreground log recorded twice, and one with a line out of
# order.  A latency/ directory holding, among the snapshots of a session,
# one of a ring seconds older (a session recorded twice into it), next to
# a copy of the previous snapshot under a later name, which is the normal
# overlap of snapshots and no error.  tapd replay must stop at the jump
# with an error that names the file and the line (or the snapshot and its
# layer) and the jump, store no tap twice (what came before the jump is
# kept, nothing after), end its run, say so in its summary and exit 1.
# Run from the repository root; BUILD names the build directory (default
# build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"

NAME=replay_backwards
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$SIM" "$TAPD"
need_tools sqlite3

work_dir backwards
dir="$work/sim"
if ! "$SIM" gen --scenario long --seed 1 --duration 30 --out "$dir" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
lines=$(wc -l <"$dir/input.getevent")
cat "$dir/input.getevent" "$dir/input.getevent" >"$dir/input.getevent.twice"
tac "$dir/input.getevent" >"$dir/input.getevent.reversed"

# replay LABEL LOG: replays LOG into $work/LABEL.db; sets out and rc.
replay() {
	out=$("$TAPD" replay --input "getevent:$2" \
		--frames "ftl:$dir/frames.pftrace" \
		--foreground "log:$dir/foreground.log" --db "$work/$1.db" 2>&1)
	rc=$?
}

q() {
	sqlite3 "$work/$1.db" "$2" 2>&1
}

# The reference: the log once.
replay once "$dir/input.getevent"
check "the log once: exit status" 0 "$rc"
once=$(q once 'SELECT count(*) FROM taps')
if [ "${once:-0}" -gt 1 ] 2>/dev/null; then
	ok "the log once: $once rows"
else
	ko "the log once: expected several rows, got '$once'" "$out"
fi

# detail: what the last replay printed, for a failed check.
detail() {
	printf '%s\n' "$out"
}

# Twice: the jump is at the first line of the second copy.
replay twice "$dir/input.getevent.twice"
check "twice: exit status" 1 "$rc"
holds "twice: the error names the file and line $((lines + 1))" \
	grep -q "error: '$dir/input.getevent.twice' line $((lines + 1)): time goes back" <<<"$out"
holds "twice: the summary says the replay stopped" \
	grep -q "^STOPPED    at line $((lines + 1)): time goes back" <<<"$out"
check "twice: no duplicate t_up_ns" 0 \
	"$(q twice 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "twice: the rows of the log once, no more" \
	"$(q once 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns')" \
	"$(q twice 'SELECT t_up_ns, status FROM taps ORDER BY t_up_ns')"
check "twice: the run is ended" "1|1" \
	"$(q twice 'SELECT count(*), count(ended_ns) FROM runs')"
holds "twice: no out-of-order error" \
	bash -c '! grep -q "out of order" <<<"$1"' _ "$out"

# Reversed: time goes back on the second event line already.
replay reversed "$dir/input.getevent.reversed"
check "reversed: exit status" 1 "$rc"
holds "reversed: the error names the file and a line" \
	grep -Eq "error: '$dir/input.getevent.reversed' line [0-9]+: time goes back [0-9]+\.[0-9]{6} s \(from [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6}\)" <<<"$out"
holds "reversed: no out-of-order error" \
	bash -c '! grep -q "out of order" <<<"$1"' _ "$out"
check "reversed: no duplicate t_up_ns" 0 \
	"$(q reversed 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "reversed: no rows" 0 "$(q reversed 'SELECT count(*) FROM taps')"
check "reversed: the run is ended" "1|1" \
	"$(q reversed 'SELECT count(*), count(ended_ns) FROM runs')"

# ---- the foreground log ----

fgdir="$work/fg"
if ! "$SIM" gen --scenario two-apps --seed 4 --duration 20 --out "$fgdir" \
	>"$work/gen-fg.log" 2>&1; then
	ko "tapd-sim gen two-apps failed" "$(cat "$work/gen-fg.log")"
	finish
fi
fglines=$(wc -l <"$fgdir/foreground.log")
cat "$fgdir/foreground.log" "$fgdir/foreground.log" >"$fgdir/fg.twice"
# The last switch, where a log recorded twice goes back and stops.
last_sw=$(tail -n 1 "$fgdir/foreground.log" | cut -d' ' -f1)

# replay_fg LABEL LOG: the two-apps session with foreground LOG.
replay_fg() {
	out=$("$TAPD" replay --session "$fgdir" --foreground "log:$2" \
		--db "$work/$1.db" 2>&1)
	rc=$?
}

replay_fg fg_once "$fgdir/foreground.log"
check "foreground once: exit status" 0 "$rc"
check "foreground once: taps of both apps" 2 \
	"$(q fg_once 'SELECT count(DISTINCT app) FROM taps')"

replay_fg fg_twice "$fgdir/fg.twice"
check "foreground twice: exit status" 1 "$rc"
holds "foreground twice: the error names the file, line $((fglines + 1)) and the jump" \
	grep -Eq "error: '$fgdir/fg.twice' line $((fglines + 1)): time goes back [0-9]+\.[0-9]{6} s \(from [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6}\)" <<<"$out"
holds "foreground twice: the summary says the replay stopped" \
	grep -q "^STOPPED    at line $((fglines + 1)) of '$fgdir/fg.twice': time goes back" <<<"$out"
check "foreground twice: no duplicate t_up_ns" 0 \
	"$(q fg_twice 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "foreground twice: no tap after the last switch before the jump" 0 \
	"$(q fg_twice "SELECT count(*) FROM taps WHERE t_up_ns > $last_sw")"
check "foreground twice: the taps before it, with their apps" \
	"$(q fg_once "SELECT t_up_ns, app FROM taps WHERE t_up_ns <= $last_sw ORDER BY t_up_ns")" \
	"$(q fg_twice 'SELECT t_up_ns, app FROM taps ORDER BY t_up_ns')"
check "foreground twice: the run is ended" "1|1" \
	"$(q fg_twice 'SELECT count(*), count(ended_ns) FROM runs')"

# One line out of order: a switch to mail 5 s before the one above it.
first_sw=$(head -n 1 "$fgdir/foreground.log" | cut -d' ' -f1)
{
	head -n 1 "$fgdir/foreground.log"
	echo "$((first_sw + 20000000000)) 4100 com.example.shop"
	echo "$((first_sw + 15000000000)) 3209 com.example.mail"
	tail -n +2 "$fgdir/foreground.log"
} >"$fgdir/fg.swapped"
replay_fg fg_swapped "$fgdir/fg.swapped"
check "foreground out of order: exit status" 1 "$rc"
holds "foreground out of order: the error names line 3 and the jump of 5 s" \
	grep -q "error: '$fgdir/fg.swapped' line 3: time goes back 5.000000 s" <<<"$out"
check "foreground out of order: the run is ended" "1|1" \
	"$(q fg_swapped 'SELECT count(*), count(ended_ns) FROM runs')"
check "foreground out of order: nothing after the switch before it" 0 \
	"$(q fg_swapped "SELECT count(*) FROM taps WHERE t_up_ns > $((first_sw + 20000000000))")"

# ---- latency/ snapshots ----

# gen_latency DIR FIRST_S LAST_S: what a latency-mode recorder writes for
# the two-apps session: every 0.5 s a snapshot of each app's window,
# drawing continuously at 60 Hz, presented 25 ms after it was queued.
gen_latency() {
	mkdir -p "$1"
	awk -v dir="$1" -v first="$2" -v last="$3" 'BEGIN {
		period = 16666666; lat = 25000000; ready = 8000000
		pending = "9223372036854775807"
		layer[1] = "com.example.mail/com.example.mail.MainActivity#0"
		layer[2] = "com.example.shop/com.example.shop.MainActivity#1"
		for (c = first * 1e9; c <= last * 1e9; c += 5e8) {
			for (l = 1; l <= 2; l++) {
				f = sprintf("%s/%.0f-%d.txt", dir, c, l - 1)
				printf "# layer: %s\n%d\n", layer[l], period > f
				base = 1e12 + (l - 1) * 4e6
				newest = int((c - base) / period)
				for (k = newest - 126; k <= newest; k++) {
					d = base + k * period
					a = d + lat <= c ? sprintf("%.0f", d + lat) : pending
					r = d + ready <= c ? sprintf("%.0f", d + ready) : pending
					printf "%.0f\t%s\t%s\n", d, a, r > f
				}
				printf "\n" > f
				close(f)
			}
		}
	}'
}

# The session's input runs from about $first_s to $last_s.
first_s=$(head -n 1 "$fgdir/input.getevent" | sed 's/^\[ *\([0-9]*\)\..*/\1/')
last_s=$(tail -n 1 "$fgdir/input.getevent" | sed 's/^\[ *\([0-9]*\)\..*/\1/')
latdir="$work/latency"
gen_latency "$latdir/ok" $((first_s - 5)) $((last_s + 10))
# The previous snapshot again under a later name: overlap, no error.
mid=$(((first_s + last_s) / 2))
cp -r "$latdir/ok" "$latdir/copy"
cp "$latdir/ok/$((mid * 1000000000 - 500000000))-0.txt" \
	"$latdir/copy/$((mid * 1000000000 + 1))-0.txt"
# The ring of 10 s earlier at the same place: a second recording.
cp -r "$latdir/ok" "$latdir/back"
bad="$latdir/back/$((mid * 1000000000 + 1))-0.txt"
cp "$latdir/ok/$(((mid - 10) * 1000000000))-0.txt" "$bad"

# replay_lat LABEL DIR: the two-apps session with the snapshots of DIR.
replay_lat() {
	out=$("$TAPD" replay --session "$fgdir" --frames "latency:$2" \
		--db "$work/$1.db" 2>&1)
	rc=$?
}

replay_lat lat_ok "$latdir/ok"
check "latency: exit status" 0 "$rc"
check "latency: every tap measured" 0 \
	"$(q lat_ok "SELECT count(*) FROM taps WHERE kind = 'tap' AND status != 'ok'")"

replay_lat lat_copy "$latdir/copy"
check "latency, a snapshot copied under a later name: exit status" 0 "$rc"
check "latency, a snapshot copied under a later name: the same rows" \
	"$(q lat_ok 'SELECT t_up_ns, status, first_frame_ns, settle_ns FROM taps ORDER BY t_up_ns')" \
	"$(q lat_copy 'SELECT t_up_ns, status, first_frame_ns, settle_ns FROM taps ORDER BY t_up_ns')"

replay_lat lat_back "$latdir/back"
check "latency, an older ring: exit status" 1 "$rc"
holds "latency, an older ring: the error names the file, the layer and the jump" \
	grep -Eq "error: '$bad' layer 'com\.example\.mail/com\.example\.mail\.MainActivity#0': time goes back [0-9]+\.[0-9]{6} s \(a frame presented at [0-9]+\.[0-9]{6} after frames up to [0-9]+\.[0-9]{6}\)" <<<"$out"
holds "latency, an older ring: the summary says the replay stopped" \
	grep -q "^STOPPED    at '$bad': layer 'com.example.mail/" <<<"$out"
holds "latency, an older ring: no out-of-order error" \
	bash -c '! grep -q "out of order" <<<"$1"' _ "$out"
check "latency, an older ring: no duplicate t_up_ns" 0 \
	"$(q lat_back 'SELECT count(*) - count(DISTINCT t_up_ns) FROM taps')"
check "latency, an older ring: no tap after the jump" 0 \
	"$(q lat_back "SELECT count(*) FROM taps WHERE t_up_ns > $mid * 1000000000")"
check "latency, an older ring: the taps well before it, as measured once" \
	"$(q lat_ok "SELECT t_up_ns, status, first_frame_ns FROM taps WHERE t_up_ns < ($mid - 6) * 1000000000 ORDER BY t_up_ns")" \
	"$(q lat_back "SELECT t_up_ns, status, first_frame_ns FROM taps WHERE t_up_ns < ($mid - 6) * 1000000000 ORDER BY t_up_ns")"
check "latency, an older ring: the run is ended" "1|1" \
	"$(q lat_back 'SELECT count(*), count(ended_ns) FROM runs')"

finish
