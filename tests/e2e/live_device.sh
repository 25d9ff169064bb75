#!/usr/bin/env bash
# The live daemon's device identity: with a getprop that answers (the
# simulator's fake over a properties file), /metrics carries
# tapd_device_info with every property and tapd_display_info with
# device.json's display, /v1/health its "device" object, /v1/taps with=device
# the same on every line, and the run's row of run_devices holds it after
# the stop; with a dumpsys display too (the simulator's fake dumpsys over a
# sample of tests/fixtures/display, an Android 12 phone turned to
# landscape), the display is dumpsys's, its natural size, and its density
# wins over ro.sf.lcd_density, while device.json's values win over it;
# a dumpsys that fails leaves getprop's density; without getprop and
# device.json, the health's device is null and neither info metric is
# shown.  The sysroot is empty: no touch screen, no frames.  Run from the repository root; BUILD names the build
# directory.  Ends with "live_device: N passed, N failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"

NAME=live_device
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools curl jq sqlite3

work_dir live-device
mkdir -p "$work/empty" "$work/bin" "$work/dumpsys" "$work/nodisplay"
ln -s "$PWD/$SIM" "$work/bin/getprop"
ln -s "$PWD/$SIM" "$work/bin/dumpsys"
cp tests/fixtures/display/android12-rotated.txt "$work/dumpsys/display.out"
echo 1 >"$work/nodisplay/display.exit"
dumpsys_bin=$work/none
cat >"$work/props" <<'EOF2'
ro.serialno=LIVE0042
ro.product.manufacturer=Acme
ro.product.model=Acme "Phone" 7
ro.build.fingerprint=acme/phone7/phone7:15/AP3A/42:user/release-keys
ro.build.version.sdk=35
ro.product.cpu.abi=arm64-v8a
ro.sf.lcd_density=480
EOF2
cat >"$work/device.json" <<'EOF2'
{"screen": {"width": 1080, "height": 2400}, "refresh_hz": 120}
EOF2

# live TAG EXTRA...: tapd run on the empty sysroot, serving on a free port.
live() {
	local tag=$1
	shift
	if ! start_server "$work/$tag.out" "$TAPD" run --db "$work/$tag.db" \
		--listen 127.0.0.1:0 --sysroot "$work/empty" \
		--perfetto-bin "$work/none" --dumpsys-bin "$dumpsys_bin" \
		--trace-dir "$work/traces" "$@"; then
		ko "$tag: tapd run serves" "$(cat "$work/$tag.out.err")"
		finish
	fi
}

TAPD_FAKE_PROPS="$work/props" live props --getprop-bin "$work/bin/getprop" \
	--device "$work/device.json"
curl -s "$url/metrics" >"$work/metrics"
check "tapd_device_info from getprop" \
	'tapd_device_info{serial="LIVE0042",manufacturer="Acme",model="Acme \"Phone\" 7",fingerprint="acme/phone7/phone7:15/AP3A/42:user/release-keys",sdk="35",abi="arm64-v8a"} 1' \
	"$(grep '^tapd_device_info' "$work/metrics")"
check "tapd_display_info: device.json's display, getprop's density" \
	'tapd_display_info{refresh_hz="120",width="1080",height="2400",density_dpi="480"} 1' \
	"$(grep '^tapd_display_info' "$work/metrics")"
curl -s "$url/v1/health" >"$work/health.json"
check "health: device" \
	'{"serial":"LIVE0042","manufacturer":"Acme","model":"Acme \"Phone\" 7","fingerprint":"acme/phone7/phone7:15/AP3A/42:user/release-keys","sdk":35,"abi":"arm64-v8a","display":{"refresh_hz":120,"width":1080,"height":2400,"density_dpi":480}}' \
	"$(jq -c .device "$work/health.json")"
code=$(curl -s -o "$work/taps" -w '%{http_code}' \
	"$url/v1/taps?format=ndjson&with=device")
check "taps?with=device: 200 (no taps yet)" "200 0" "$code $(wc -l <"$work/taps")"
stop_server "$pid"
check "props: clean stop" 0 "$status"
check "run_devices: the run's device" \
	'1|LIVE0042|Acme|Acme "Phone" 7|35|arm64-v8a|120|1080|2400|480' \
	"$(sqlite3 "$work/props.db" 'SELECT run_id, serial, manufacturer, model, sdk, abi, refresh_hz, width, height, density_dpi FROM run_devices')"

# wait_display: until /metrics's display has a width (the read of dumpsys
# display is not waited for at start), at most 10 s; prints its line.
wait_display() {
	local i line
	for i in $(seq 1 100); do
		line=$(curl -s "$url/metrics" | grep '^tapd_display_info')
		case $line in *'width="'[0-9]*) break ;; esac
		sleep 0.1
	done
	echo "$line"
}

dumpsys_bin=$work/bin/dumpsys
TAPD_FAKE_PROPS="$work/props" TAPD_FAKE_DUMPSYS_DIR="$work/dumpsys" \
	live display --getprop-bin "$work/bin/getprop"
check "tapd_display_info: dumpsys display's, natural size, its density" \
	'tapd_display_info{refresh_hz="90",width="1080",height="2400",density_dpi="420"} 1' \
	"$(wait_display)"
check "health: device.display from dumpsys display" \
	'{"refresh_hz":90,"width":1080,"height":2400,"density_dpi":420}' \
	"$(curl -s "$url/v1/health" | jq -c .device.display)"
check "health: getprop's identity stays" "LIVE0042 35" \
	"$(curl -s "$url/v1/health" | jq -r '"\(.device.serial) \(.device.sdk)"')"
check "dumpsys display: read once at start" "display" \
	"$(cat "$work/dumpsys/display.calls")"
stop_server "$pid"
check "display: clean stop" 0 "$status"
check "run_devices: the display read" '1|LIVE0042|90|1080|2400|420' \
	"$(sqlite3 "$work/display.db" 'SELECT run_id, serial, refresh_hz, width, height, density_dpi FROM run_devices')"

cat >"$work/device60.json" <<'EOF2'
{"refresh_hz": 60, "density_dpi": 400}
EOF2
rm -f "$work/dumpsys/display.calls"
TAPD_FAKE_PROPS="$work/props" TAPD_FAKE_DUMPSYS_DIR="$work/dumpsys" \
	live devwins --getprop-bin "$work/bin/getprop" \
	--device "$work/device60.json"
check "tapd_display_info: device.json's values win over dumpsys's" \
	'tapd_display_info{refresh_hz="60",width="1080",height="2400",density_dpi="400"} 1' \
	"$(wait_display)"
stop_server "$pid"
check "devwins: clean stop" 0 "$status"

# A dumpsys display that fails: getprop's density, no size or rate.
TAPD_FAKE_PROPS="$work/props" TAPD_FAKE_DUMPSYS_DIR="$work/nodisplay" \
	live nodisplay --getprop-bin "$work/bin/getprop" -v
for i in $(seq 1 100); do
	grep -q 'dumpsys display described no display' "$work/nodisplay.out.err" &&
		break
	sleep 0.1
done
check "failing dumpsys display: said once" 1 \
	"$(grep -c 'dumpsys display described no display' "$work/nodisplay.out.err")"
check "failing dumpsys display: getprop's density alone" \
	'tapd_display_info{refresh_hz="",width="",height="",density_dpi="480"} 1' \
	"$(curl -s "$url/metrics" | grep '^tapd_display_info')"
stop_server "$pid"
check "nodisplay: clean stop" 0 "$status"

dumpsys_bin=$work/none
live none --getprop-bin "$work/none"
check "no getprop, no device.json: health's device is null" null \
	"$(curl -s "$url/v1/health" | jq -c .device)"
check "no getprop: no info metrics" 0 \
	"$(curl -s "$url/metrics" | grep -c '^tapd_device_info\|^tapd_display_info')"
stop_server "$pid"
check "none: clean stop" 0 "$status"
check "none: no run_devices row" 0 \
	"$(sqlite3 "$work/none.db" 'SELECT count(*) FROM run_devices')"
finish
