#!/usr/bin/env bash
# Attribution by window against the ground truth: for every scenario of
# tapd-sim with window lists (a keyboard, the notification shade, split
# screen, a rotated display, another app's dialog) and seeds 1 2 3,
# generate a session, replay it with tapd and compare the database with
# truth.json, exactly.  Two controls alter the session (an owner swapped
# in processes.log, a window's frame moved in windows.log) and must be
# caught.
#
# The generator is checked on its own first, with a reader of this
# script: windows.log must parse (every block a time, a viewport, windows
# with names, frames and regions), and for every tap the truth's window
# must exist, its frame and touchable region must hold the tap's display
# point, and no visible, touchable window above it but a spy may hold it.
#
# Run from the repository root; BUILD names the build directory (default
# build).
set -u

BUILD=${BUILD:-build}
SIM="$BUILD/tapd-sim"
TAPD="$BUILD/tapd"
SEEDS="1 2 3"

NAME=sim_attrib
. "$(dirname "$0")/lib/report.sh"

need_bins "$SIM" "$TAPD"
need_tools jq awk sed

skip=0
skipped() {
	skip=$((skip + 1))
	echo "skip $*"
}

scenarios=$("$SIM" list --windows) || {
	ko "'$SIM list --windows' failed"
	finish
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-sim-attrib.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The taps of a truth that name a window: "T_DOWN_NS X Y NAME".
taps_of() {
	jq -r '.gestures[] | select(.window != null) |
		"\(.t_down_ns) \(.x) \(.y) \(.window)"' "$1"
}

# The touch panel and display of a truth: "XMIN XMAX YMIN YMAX W H".
device_of() {
	jq -r '.device | "\(.touch.x.min) \(.touch.x.max) \(.touch.y.min) " +
		"\(.touch.y.max) \(.screen.width) \(.screen.height)"' "$1"
}

# selfcheck TAPS WINDOWS_LOG XMIN XMAX YMIN YMAX W H [ORIENTATION]: the
# reader of windows.log and the hit-test described above; ORIENTATION
# overrides the viewports' (for a control).  Prints what is wrong; exits
# 0 when nothing is.
selfcheck() {
	awk -v xmin="$3" -v xmax="$4" -v ymin="$5" -v ymax="$6" \
		-v W="$7" -v H="$8" -v force="${9:-}" '
	function rect_has(s, x, y,   a) {
		if (s !~ /^\[-?[0-9]+,-?[0-9]+\]\[-?[0-9]+,-?[0-9]+\]$/)
			return 0
		gsub(/[][]/, " ", s)
		gsub(/,/, " ", s)
		split(s, a, " ")
		return x >= a[1] + 0 && x < a[3] + 0 && y >= a[2] + 0 &&
			y < a[4] + 0
	}
	function region_has(s, x, y,   parts, n, i) {
		if (s == "<empty>")
			return 0
		n = split(s, parts, "|")
		for (i = 1; i <= n; i++)
			if (rect_has(parts[i], x, y))
				return 1
		return 0
	}
	function field(line, key, stop,   i, j, rest) {
		i = index(line, key)
		if (i == 0)
			return ""
		rest = substr(line, i + length(key))
		j = index(rest, stop)
		return j == 0 ? "" : substr(rest, 1, j - 1)
	}
	FNR == NR {
		nt++
		td[nt] = $1; tx[nt] = $2; ty[nt] = $3
		name = $0
		sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
		tn[nt] = name
		next
	}
	/^@ [0-9]+$/ {
		nb++
		bt[nb] = $2 + 0
		if (nb > 1 && bt[nb] < bt[nb - 1]) {
			print "block " nb ": time goes back"
			bad++
		}
		nw[nb] = 0
		next
	}
	nb == 0 { next }
	/^ *Viewport INTERNAL: displayId=0,/ {
		o = field($0, "orientation=", ",")
		if (o !~ /^[0-3]$/) {
			print "block " nb ": bad viewport: " $0
			bad++
		}
		orient[nb] = o + 0
		seen_vp[nb] = 1
		next
	}
	/^Input Dispatcher State:$/ { seen_disp[nb] = 1; next }
	/^      [0-9]+: name=/ {
		i = nw[nb]++
		line = $0
		if (index(line, ": name=") == 0 ||
		    match(line, /, id=[0-9]+, displayId=/) == 0) {
			print "block " nb ": window without a name: " line
			bad++
			next
		}
		nm = substr(line, index(line, "name=") + 5)
		nm = substr(nm, 1, match(nm, /, id=[0-9]+, displayId=/) - 1)
		wn[nb, i] = nm
		wc[nb, i] = field(line, "inputConfig=", ", alpha=")
		wf[nb, i] = field(line, ", frame=", ", globalScale=")
		wr[nb, i] = field(line, ", touchableRegion=", ", ownerPid=")
		if (wf[nb, i] !~ /^\[-?[0-9]+,-?[0-9]+\]\[-?[0-9]+,-?[0-9]+\]$/ ||
		    wr[nb, i] == "" || wc[nb, i] == "") {
			print "block " nb ": window \"" nm "\" lacks a field"
			bad++
		}
		next
	}
	END {
		for (b = 1; b <= nb; b++)
			if (!seen_vp[b] || !seen_disp[b] || nw[b] == 0) {
				print "block " b ": no viewport, dispatcher " \
					"or window"
				bad++
			}
		if (nb == 0) {
			print "no block at all"
			bad++
		}
		sx = W / (xmax - xmin + 1)
		sy = H / (ymax - ymin + 1)
		for (k = 1; k <= nt; k++) {
			b = 0
			for (j = 1; j <= nb; j++)
				if (bt[j] <= td[k] + 0)
					b = j
			if (b == 0) {
				print "tap " k ": before every block"
				bad++
				continue
			}
			if (force != "")
				orient[b] = force + 0
			rx = xmin + int(tx[k] / sx + 0.5)
			ry = ymin + int(ty[k] / sy + 0.5)
			if (orient[b] == 1) {
				x = (ry - ymin) * sy
				y = (xmax - rx) * sx
			} else {
				x = (rx - xmin) * sx
				y = (ry - ymin) * sy
			}
			x = int(x)
			y = int(y)
			hit = -1
			for (i = 0; i < nw[b]; i++)
				if (wn[b, i] == tn[k]) {
					hit = i
					break
				}
			if (hit < 0) {
				print "tap " k ": no window \"" tn[k] "\""
				bad++
				continue
			}
			if (!rect_has(wf[b, hit], x, y) ||
			    !region_has(wr[b, hit], x, y)) {
				print "tap " k " at " x "," y ": outside \"" \
					tn[k] "\" " wf[b, hit]
				bad++
			}
			for (i = 0; i < hit; i++) {
				c = wc[b, i]
				if (c ~ /NOT_VISIBLE|NOT_TOUCHABLE|SPY/)
					continue
				if (region_has(wr[b, i], x, y)) {
					print "tap " k " at " x "," y ": \"" \
						wn[b, i] "\" is above \"" \
						tn[k] "\""
					bad++
				}
			}
		}
		if (nt == 0) {
			print "no tap names a window"
			bad++
		}
		exit bad > 0
	}' "$1" "$2"
}

# Replays a session and checks it: prints pass or fail, with the
# differences on fail.
replay_check() {
	local dir=$1 out
	if ! "$TAPD" replay --session "$dir" --db "$dir/taps.db" \
		>"$dir/replay.log" 2>&1; then
		echo "fail: tapd replay failed"
		sed 's/^/    /' "$dir/replay.log" | head -n 20
		return
	fi
	if out=$("$SIM" check --truth "$dir/truth.json" --db "$dir/taps.db" \
		2>&1); then
		echo "pass: $(printf '%s\n' "$out" | grep '^check:' | tail -n 1)"
	else
		echo "fail: $(printf '%s\n' "$out" | grep '^check:' | tail -n 1)"
		printf '%s\n' "$out" | grep -v '^check:' | head -n 40 |
			sed 's/^/    /'
	fi
}

for scenario in $scenarios; do
	for seed in $SEEDS; do
		dir="$work/$scenario-$seed"
		what="$scenario seed $seed"
		if ! "$SIM" gen --scenario "$scenario" --seed "$seed" \
			--out "$dir" >"$work/gen.log" 2>&1; then
			ko "$what: tapd-sim gen failed" "$(cat "$work/gen.log")"
			continue
		fi
		taps_of "$dir/truth.json" >"$dir/taps.txt"
		# shellcheck disable=SC2046
		if out=$(selfcheck "$dir/taps.txt" "$dir/windows.log" \
			$(device_of "$dir/truth.json")); then
			ok "$what: generator: $(wc -l <"$dir/taps.txt") taps" \
				"on their windows, $(grep -c '^@ ' \
				"$dir/windows.log") window lists"
		else
			ko "$what: generator: the truth disagrees with" \
				"windows.log" "$out"
		fi
		res=$(replay_check "$dir")
		case $res in
		pass*) ok "$what: ${res#pass: }" ;;
		*) ko "$what: ${res#fail: }" ;;
		esac
	done
done

# The reader's control: a window moved away from its taps is caught.
dir="$work/ime-1"
first=$(head -n 1 "$dir/taps.txt" | cut -d' ' -f4-)
awk -v name="$first" '
	index($0, "name=" name ", id=") {
		sub(/frame=\[[-0-9]+,[-0-9]+\]\[[-0-9]+,[-0-9]+\]/,
			"frame=[0,0][1,1]")
	}
	{ print }' "$dir/windows.log" >"$work/moved.log"
# shellcheck disable=SC2046
if ! cmp -s "$dir/windows.log" "$work/moved.log" &&
	! selfcheck "$dir/taps.txt" "$work/moved.log" \
		$(device_of "$dir/truth.json") >/dev/null; then
	ok "control: the generator check catches a window moved off its taps"
else
	ko "control: the generator check missed a moved window"
fi

# The rotated display matters: read as unturned, its taps miss.
dir="$work/rotated-1"
# shellcheck disable=SC2046
if ! selfcheck "$dir/taps.txt" "$dir/windows.log" \
	$(device_of "$dir/truth.json") 0 >/dev/null; then
	ok "control: the rotated taps miss their windows on an unturned display"
else
	ko "control: the rotation changes no tap's window"
fi

# The same scenario and seed give the same files.
same=1
"$SIM" gen --scenario ime --seed 1 --out "$work/det" >/dev/null 2>&1 || same=0
for f in input.getevent frames.pftrace foreground.log device.json \
	truth.json windows.log processes.log; do
	cmp "$work/ime-1/$f" "$work/det/$f" >>"$work/cmp.log" 2>&1 || same=0
done
if [ "$same" -eq 1 ]; then
	ok "determinism: ime seed 1 twice, the same session"
else
	ko "determinism: ime seed 1 gave two sessions" "$(cat "$work/cmp.log")"
fi

# tapd-sim check on its own: a database written from the truth itself,
# with the window and attribution columns, matches; with one window
# renamed it does not; without the columns it is refused with a clear
# message, unless the truth has no windows either.
truth_db() {
	jq -r '.gestures | to_entries[] | .key as $i | .value |
		def q: if . == null then "NULL" else
			"\u0027" + (tostring | gsub("\u0027"; "\u0027\u0027")) +
			"\u0027" end;
		def n: if . == null then "NULL" else tostring end;
		([.flags[] | {"busy_before": 1, "settle_capped": 2,
			"interrupted": 4, "input_dropped": 8}[.]] | add // 0)
			as $f |
		"INSERT INTO taps VALUES (\($i + 1), \(.app | q), \(.pid), " +
		"\(.kind | q), \(.status | q), \($f), \(.t_down_ns | n), " +
		"\(.t_up_ns | n), \(.first_frame_ns | n), " +
		"\(.settle_ns | n), \(.frames), \(.jank), " +
		"\(.window | q), \(.attribution | q));"' "$1"
}
dir="$work/split-2"
db="$work/truth.db"
if ! command -v sqlite3 >/dev/null 2>&1; then
	skipped "check: sqlite3 is missing"
elif { echo "CREATE TABLE taps (id INTEGER PRIMARY KEY, app TEXT, pid" \
	"INTEGER, kind TEXT, status TEXT, flags INTEGER, t_down_ns INTEGER," \
	"t_up_ns INTEGER, first_frame_ns INTEGER, settle_ns INTEGER," \
	"frames INTEGER, jank INTEGER, window TEXT, attribution TEXT);"
	truth_db "$dir/truth.json"; } | sqlite3 "$db"; then
	holds "check: a database written from the truth matches" \
		"$SIM" check --truth "$dir/truth.json" --db "$db"
	sqlite3 "$db" "UPDATE taps SET window = window || 'x' WHERE id = 2"
	out=$("$SIM" check --truth "$dir/truth.json" --db "$db" 2>&1)
	if [ $? -eq 1 ] && printf '%s\n' "$out" | grep -q '^    window '; then
		ok "check: one window renamed is a mismatch"
	else
		ko "check: one window renamed is not caught" "$out"
	fi
	sqlite3 "$db" "ALTER TABLE taps DROP COLUMN window"
	out=$("$SIM" check --truth "$dir/truth.json" --db "$db" 2>&1)
	if [ $? -eq 2 ] && printf '%s\n' "$out" | grep -q "no column 'window'"; then
		ok "check: a database without the window column is refused"
	else
		ko "check: a database without the window column is not refused" \
			"$out"
	fi
	jq 'del(.gestures[].window, .gestures[].attribution)' \
		"$dir/truth.json" >"$work/plain.json"
	holds "check: a truth without windows needs no window column" \
		"$SIM" check --truth "$work/plain.json" --db "$db"
	# With the columns, a truth without windows wants the foreground's.
	jq '.gestures[].attribution = "foreground"' "$work/plain.json" \
		>"$work/fg.json"
	db="$work/fg.db"
	{ echo "CREATE TABLE taps (id INTEGER PRIMARY KEY, app TEXT, pid" \
		"INTEGER, kind TEXT, status TEXT, flags INTEGER, t_down_ns" \
		"INTEGER, t_up_ns INTEGER, first_frame_ns INTEGER, settle_ns" \
		"INTEGER, frames INTEGER, jank INTEGER, window TEXT," \
		"attribution TEXT);"
		truth_db "$work/fg.json"; } | sqlite3 "$db"
	holds "check: a foreground attribution matches a truth without windows" \
		"$SIM" check --truth "$work/plain.json" --db "$db"
	sqlite3 "$db" "UPDATE taps SET attribution = 'window' WHERE id = 1"
	out=$("$SIM" check --truth "$work/plain.json" --db "$db" 2>&1)
	if [ $? -eq 1 ] && printf '%s\n' "$out" | grep -q '^    attribution '; then
		ok "check: a window attribution is a mismatch without windows"
	else
		ko "check: a window attribution is not caught without windows" \
			"$out"
	fi
else
	ko "check: cannot write a database from the truth"
fi

# The replay's controls: an owner swapped, a window's frame moved.
control() {
	local what=$1 dir=$2 res
	res=$(replay_check "$dir")
	case $res in
	fail*) ok "control: $what is caught" ;;
	*) ko "control: $what is not caught" ;;
	esac
}

src="$work/ime-1"
dir="$work/ctl-owner"
cp -r "$src" "$dir" && rm -f "$dir/taps.db"
awk '
	$4 == "com.google.android.inputmethod.latin" { $4 = "com.example.mail"; print; next }
	$4 == "com.example.mail" { $4 = "com.google.android.inputmethod.latin"; print; next }
	{ print }' "$src/processes.log" >"$dir/processes.log"
if cmp -s "$src/processes.log" "$dir/processes.log"; then
	ko "control: no owner to swap in processes.log"
else
	control "the keyboard's and the app's owners swapped" "$dir"
fi

src="$work/dialog-1"
dir="$work/ctl-frame"
cp -r "$src" "$dir" && rm -f "$dir/taps.db"
awk '
	index($0, "GrantPermissionsActivity, id=") {
		sub(/frame=\[[-0-9]+,[-0-9]+\]\[[-0-9]+,[-0-9]+\]/,
			"frame=[0,0][1,1]")
		sub(/touchableRegion=\[[-0-9]+,[-0-9]+\]\[[-0-9]+,[-0-9]+\]/,
			"touchableRegion=[0,0][1,1]")
	}
	{ print }' "$src/windows.log" >"$dir/windows.log"
if cmp -s "$src/windows.log" "$dir/windows.log" ||
	! grep -q '"app":	"com.google.android.permissioncontroller"' \
		"$src/truth.json"; then
	ko "control: no dialog tap to move the dialog away from"
else
	control "a dialog moved away from its taps" "$dir"
fi

echo "$NAME: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
