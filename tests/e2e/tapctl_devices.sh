#!/usr/bin/env bash
# Many phones from one host: tapctl devices, --serial and --all against a
# fake adb on PATH with three devices, each a real `tapd serve` of its own
# replayed session (its own serial and model in device.json) on a free
# loopback port.  The fake answers `adb devices`, `adb -s S forward tcp:0
# tcp:7878` (printing that device's port, as adb prints the local port it
# picked) and `adb -s S forward --remove tcp:P`, and keeps the forwards in
# a file: none may be left behind.  Then a device in the unauthorized
# state and one where nothing listens.  Run from the repository root;
# BUILD names the build directory.  Ends with "tapctl_devices: N passed,
# N failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
TAPCTL="$BUILD/tapctl"

NAME=tapctl_devices
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM" "$TAPCTL"
need_tools jq

work_dir devices
mkdir -p "$work/bin"
export FAKE_ADB_DEVICES="$work/devices" FAKE_ADB_FORWARDS="$work/forwards"
export FAKE_ADB_LOG="$work/adb.log"
: >"$FAKE_ADB_DEVICES"
: >"$FAKE_ADB_FORWARDS"
cat >"$work/bin/adb" <<'ADB'
#!/usr/bin/env bash
# A fake adb: devices, and forwards to the port of each fake device.
echo "$*" >>"$FAKE_ADB_LOG"
if [ "$1" = devices ]; then
	echo "List of devices attached"
	while read -r s state port; do
		printf '%s\t%s\n' "$s" "$state"
	done <"$FAKE_ADB_DEVICES"
	echo
	exit 0
fi
[ "$1" = -s ] || { echo "fake adb: $*" >&2; exit 1; }
serial=$2
line=$(awk -v s="$serial" '$1 == s' "$FAKE_ADB_DEVICES")
[ -n "$line" ] || { echo "error: device '$serial' not found" >&2; exit 1; }
read -r s state port <<<"$line"
[ "$state" = device ] || { echo "error: device $state" >&2; exit 1; }
case "$3 $4 $5" in
"forward tcp:0 tcp:7878")
	echo "$serial $port" >>"$FAKE_ADB_FORWARDS"
	echo "$port"
	;;
"forward --remove tcp:"*)
	p=${5#tcp:}
	grep -qx "$serial $p" "$FAKE_ADB_FORWARDS" ||
		{ echo "error: listener 'tcp:$p' not found" >&2; exit 1; }
	grep -vx "$serial $p" "$FAKE_ADB_FORWARDS" >"$FAKE_ADB_FORWARDS.new"
	mv "$FAKE_ADB_FORWARDS.new" "$FAKE_ADB_FORWARDS"
	;;
*)
	echo "fake adb: $*" >&2
	exit 1
	;;
esac
ADB
chmod +x "$work/bin/adb"
export PATH="$work/bin:$PATH"

version=$("$TAPD" --version | awk '{ print $2 }')
declare -A url_of model_of
for d in "1 PHONE-A Alpha" "2 PHONE-B Beta" "3 PHONE-C Beta"; do
	read -r seed serial model <<<"$d"
	dir="$work/$serial"
	if ! "$SIM" gen --scenario two-apps --seed "$seed" --out "$dir" \
		>"$work/gen.log" 2>&1; then
		ko "tapd-sim gen of $serial" "$(cat "$work/gen.log")"
		finish
	fi
	jq --arg s "$serial" --arg m "$model" '. + {serial: $s, model: $m}' \
		"$dir/device.json" >"$dir/d.json" && mv "$dir/d.json" "$dir/device.json"
	if ! "$TAPD" replay --session "$dir" --db "$dir/taps.db" \
		>"$dir/replay.log" 2>&1 ||
		! start_server "$dir/serve.out" "$TAPD" serve --db "$dir/taps.db" \
			--listen 127.0.0.1:0; then
		ko "replay and serve of $serial" "$(cat "$dir/replay.log" "$dir/serve.out.err" 2>/dev/null)"
		finish
	fi
	url_of[$serial]=$url
	model_of[$serial]=$model
	echo "$serial device $port" >>"$FAKE_ADB_DEVICES"
done

no_forwards() {
	check "$1: no forward left" "" "$(cat "$FAKE_ADB_FORWARDS")"
}

# tapctl devices: one row per device, tapd answering, its version and model.
out=$("$TAPCTL" devices 2>&1)
rc=$?
check "devices: exit 0" 0 "$rc"
check "devices: header" "SERIAL STATE TAPD VERSION MODEL" \
	"$(printf '%s\n' "$out" | head -n 1 | tr -s ' ')"
for s in PHONE-A PHONE-B PHONE-C; do
	check "devices: $s" "$s device yes $version ${model_of[$s]}" \
		"$(printf '%s\n' "$out" | awk -v s="$s" '$1 == s' | tr -s ' ')"
done
check "devices: three rows" 4 "$(printf '%s\n' "$out" | wc -l)"
no_forwards devices
json=$("$TAPCTL" --json devices)
check "devices --json: three answering" 3 \
	"$(printf '%s' "$json" | jq '[.[] | select(.tapd)] | length')"

# --serial: the same answer as the device's own URL, through a forward.
: >"$FAKE_ADB_LOG"
for s in PHONE-A PHONE-C; do
	want=$("$TAPCTL" --url "${url_of[$s]}" apps)
	got=$("$TAPCTL" --serial "$s" apps)
	check "--serial $s apps: as --url gives it" "$want" "$got"
done
check "--serial: one forward and one removal each" "2 2" \
	"$(grep -c 'forward tcp:0 tcp:7878' "$FAKE_ADB_LOG") $(grep -c 'forward --remove' "$FAKE_ADB_LOG")" 2>/dev/null
no_forwards "--serial"
"$TAPCTL" --serial NOPE health >/dev/null 2>"$work/err"
check "--serial of an unknown device: exit 5" 5 "$?"
"$TAPCTL" --serial PHONE-A --url http://127.0.0.1:1 health >/dev/null 2>&1
check "--serial with --url: exit 2 (usage)" 2 "$?"

# --all apps: one table, the device first, every device's rows as its own.
: >"$FAKE_ADB_LOG"
out=$("$TAPCTL" --all apps 2>"$work/err")
rc=$?
check "--all apps: exit 0" 0 "$rc"
hdr=$(printf '%s\n' "$out" | head -n 1 | tr -s ' ')
own_hdr=$("$TAPCTL" --url "${url_of[PHONE-A]}" apps | head -n 1 | tr -s ' ')
check "--all apps: the header with DEVICE first" "DEVICE $own_hdr" "$hdr"
for s in PHONE-A PHONE-B PHONE-C; do
	want=$("$TAPCTL" --url "${url_of[$s]}" apps | tail -n +2 | tr -s ' ' |
		grep -v '^~')
	got=$(printf '%s\n' "$out" | awk -v s="$s" '$1 == s' | tr -s ' ' |
		cut -d' ' -f2-)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "--all apps: $s's $(printf '%s\n' "$want" | wc -l) rows as its own"
	else
		ko "--all apps: $s's rows" "want:" "$want" "got:" "$got"
	fi
done
check "--all: three forwards and three removals" "3 3" \
	"$(grep -c 'forward tcp:0' "$FAKE_ADB_LOG") $(grep -c 'forward --remove' "$FAKE_ADB_LOG")"
no_forwards "--all"
"$TAPCTL" --all session list >/dev/null 2>&1
check "--all of a command that is not a read: exit 2 (usage)" 2 "$?"
"$TAPCTL" --all --json apps >/dev/null 2>&1
check "--all with --json: exit 2 (usage)" 2 "$?"

# A device not authorized and one where nothing listens.
echo "PHONE-D unauthorized 1" >>"$FAKE_ADB_DEVICES"
echo "PHONE-E device 1" >>"$FAKE_ADB_DEVICES"
out=$("$TAPCTL" devices 2>&1)
check "devices: the unauthorized one" "PHONE-D unauthorized no - -" \
	"$(printf '%s\n' "$out" | awk '$1 == "PHONE-D"' | tr -s ' ')"
check "devices: the one without tapd" "PHONE-E device no - -" \
	"$(printf '%s\n' "$out" | awk '$1 == "PHONE-E"' | tr -s ' ')"
no_forwards "devices with a dead one"
"$TAPCTL" --all health >"$work/all_health" 2>"$work/err"
check "--all with a dead device: its exit code (5, cannot connect)" 5 "$?"
check "--all with a dead device: the others answer" 3 \
	"$(awk '$1 ~ /^PHONE-[ABC]$/ && $2 == "status" && $3 == "ok" { n++ } END { print n + 0 }' "$work/all_health")"
check "--all health: each device names its model" "PHONE-A Alpha PHONE-B Beta PHONE-C Beta" \
	"$(awk '$2 == "device.model" { printf "%s%s %s", sep, $1, $3; sep = " " }' "$work/all_health")"
no_forwards "--all with a dead one"
finish
