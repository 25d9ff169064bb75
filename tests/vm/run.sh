#!/usr/bin/env bash
# The real-kernel test.  Boots Debian's kernel (linux-image-amd64, fetched
# by tests/vm/fetch-kernel.sh) under qemu-system-x86_64 with software
# emulation and a small initramfs: busybox-static, build/tapd with the
# shared libraries it needs, the kernel's evdev and uinput modules, and our
# test programs vmtest (a uinput multitouch touch screen and an independent
# evdev reader) and fakedumpsys (SurfaceFlinger frames that follow the
# taps).  tests/vm/init.sh runs the test inside and prints its results on
# the serial console; this script checks them:
#
#  - every gesture vmtest played is stored once, with the kind it played,
#    with t_down and t_up exactly the kernel timestamps (CLOCK_MONOTONIC) of
#    its first finger-down and last finger-up SYN_REPORT as vmtest's own
#    reader saw them, and a t_up within 1 ms before the moment the
#    finger-up write returned;
#  - taps and long presses are attributed to the foreground app of the
#    fake sysroot and measured from the fake frames (first frame 16 ms);
#  - the swipe and the two-finger gesture are classified;
#  - the device removed and re-created mid-run is let go and picked up
#    again within a second, and its taps are stored;
#  - the SYN_DROPPED forced by a flood while tapd was stopped is counted,
#    flags the gesture it hit, and makes no phantom gesture;
#  - tapd stops cleanly on SIGTERM.
#
# Environment: BUILD (build), VM_KERNEL_DIR (build/vm/kernel), VM_ACCEL
# (tcg; kvm where it works), VM_TIMEOUT (seconds, 150), VM_MODE (tapd;
# "alone" boots vmtest without tapd, to check the kernel side only).
# If the VM cannot be built or booted the test fails: it never skips.
set -u
build=${BUILD:-build}
vm=$build/vm
kdir=${VM_KERNEL_DIR:-build/vm/kernel}
accel=${VM_ACCEL:-tcg}
limit=${VM_TIMEOUT:-150}
mode=${VM_MODE:-tapd}
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok
	else
		bad "$1: expected '$2', got '$3'"
	fi
}

summary() {
	echo "vm: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

# The VM could not be built or booted: a failure, loudly, never a skip.
die() {
	bad "$*"
	summary
}

for tool in qemu-system-x86_64 busybox cpio gzip jq cc pkg-config ldd; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is missing: run make deps (qemu-system-x86 busybox-static cpio)"
done
busybox=$(command -v busybox)

sh "$here/fetch-kernel.sh" "$kdir" || die "cannot fetch the kernel into '$kdir'"
kernel=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
config=$(ls "$kdir"/boot/config-* 2>/dev/null | head -n 1)
moddir=$(ls -d "$kdir"/lib/modules/* 2>/dev/null | head -n 1)
[ -n "$kernel" ] && [ -n "$config" ] && [ -n "$moddir" ] ||
	die "no kernel, config or modules in '$kdir'"

tapd=$build/tapd
if [ "$mode" = tapd ]; then
	[ -x "$tapd" ] || die "'$tapd' is missing: run make"
	"$tapd" run --help >/dev/null 2>&1 || die "'$tapd run --help' fails"
fi

rm -rf "$vm/root"
mkdir -p "$vm/root"
root=$vm/root

# The test programs, with the project's warnings.
cflags="-std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Wshadow
	-Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wcast-qual
	-Wformat=2 -Wvla -Werror"
# shellcheck disable=SC2086,SC2046
cc $cflags $(pkg-config --cflags libevdev) -o "$vm/vmtest" \
	"$here/vmtest.c" $(pkg-config --libs libevdev) ||
	die "cannot build vmtest"
# shellcheck disable=SC2086
cc $cflags -o "$vm/fakedumpsys" "$here/fakedumpsys.c" ||
	die "cannot build fakedumpsys"

mkdir -p "$root"/{bin,etc,proc,sys,dev,tmp,run,lib/modules}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
cp "$vm/vmtest" "$root/bin/vmtest"
cp "$vm/fakedumpsys" "$root/bin/dumpsys"
ln -s dumpsys "$root/bin/getprop"
bins=("$busybox" "$vm/vmtest" "$vm/fakedumpsys")
if [ "$mode" = tapd ]; then
	cp "$tapd" "$root/bin/tapd"
	bins+=("$tapd")
fi
echo "MODE=$mode" >"$root/etc/vmtest.conf"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "127.0.0.1 localhost" >"$root/etc/hosts"

# Shared libraries and the dynamic loader, at the paths ldd names.
for b in "${bins[@]}"; do
	out=$(ldd "$b" 2>&1)
	if echo "$out" | grep -q 'not a dynamic executable'; then
		continue
	fi
	if echo "$out" | grep -q 'not found'; then
		die "'$b' needs libraries that are missing: $out"
	fi
	for lib in $(echo "$out" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib" || die "cannot copy '$lib'"
	done
done

# The input modules, unless built in, after the modules they depend on.
modorder=()
find_module() {
	find "$moddir" -name "$1.ko" -o -name "$1.ko.xz" -o -name "$1.ko.zst" |
		head -n 1
}
add_module() {
	local name=$1 file deps d m
	for m in "${modorder[@]}"; do
		[ "$m" = "$name.ko" ] && return 0
	done
	file=$(find_module "$name")
	[ -n "$file" ] || die "no module '$name' in '$moddir'"
	case "$file" in
	*.xz) xz -dc "$file" >"$root/lib/modules/$name.ko" ;;
	*.zst) zstd -qdc "$file" >"$root/lib/modules/$name.ko" ;;
	*) cp "$file" "$root/lib/modules/$name.ko" ;;
	esac || die "cannot unpack '$file'"
	deps=$(tr '\0' '\n' <"$root/lib/modules/$name.ko" |
		sed -n 's/^depends=//p' | tr ',' ' ')
	for d in $deps; do
		add_module "$d"
	done
	modorder+=("$name.ko")
}
for opt in EVDEV:evdev UINPUT:uinput; do
	case "$(grep "^CONFIG_INPUT_${opt%%:*}=" "$config")" in
	*=y) ;;
	*=m) add_module "${opt#*:}" ;;
	*) die "the kernel has no CONFIG_INPUT_${opt%%:*}" ;;
	esac
done
printf '%s\n' "${modorder[@]}" >"$root/lib/modules/vmtest.order"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$vm/initramfs.gz" || die "cannot pack the initramfs"

console=$vm/console.log
txt=$vm/console.txt
rm -f "$console" "$txt"
start=$(date +%s)
timeout -k 5 "$limit" qemu-system-x86_64 -accel "$accel" -m 512 -smp 1 \
	-nodefaults -no-user-config -display none -net none -no-reboot \
	-serial "file:$console" -kernel "$kernel" -initrd "$vm/initramfs.gz" \
	-append "console=ttyS0 quiet panic=-1" </dev/null >"$vm/qemu.out" 2>&1
qrc=$?
secs=$(($(date +%s) - start))
if [ -f "$console" ]; then
	tr -d '\r' <"$console" >"$txt"
else
	: >"$txt"
fi

section() {
	sed -n "/^@@BEGIN $1\$/,/^@@END $1\$/p" "$txt" | sed '1d;$d'
}

show_logs() {
	echo "--- console (last 60 lines) ---"
	tail -n 60 "$txt"
	echo "--- qemu ---"
	cat "$vm/qemu.out"
}

if ! grep -q '^@@BEGIN kernel$' "$txt"; then
	show_logs
	die "the VM did not boot (qemu exit $qrc after ${secs}s, accel $accel)"
fi
echo "vm: booted $(section kernel | head -n 1) with $accel, ran ${secs}s (qemu exit $qrc)"
check "vm ends by itself" 0 "$qrc"
if grep -q '^@@TIMEOUT' "$txt"; then
	bad "the VM's watchdog fired"
fi
grep '^@@ERROR' "$txt" | while read -r line; do echo "vm: $line"; done
if grep -q '^@@ERROR' "$txt"; then
	bad "the VM reported errors"
fi

records=$vm/records.jsonl
section vmtest | grep '^{' >"$records"
check "vmtest ran its whole script" "@@VMTEST-EXIT 0" \
	"$(grep '^@@VMTEST-EXIT' "$txt")"
section vmtest-stderr
if ! jq -e . "$records" >/dev/null 2>&1; then
	show_logs
	die "vmtest printed no valid records"
fi
gestures=$(jq -s '[.[] | select(.seq)]' "$records")
ngest=$(echo "$gestures" | jq length)
check "gestures played" 10 "$ngest"
check "vmtest's own reader lost nothing" 0 \
	"$(jq -s '[.[] | select(.event == "done")][0].reader_syn_dropped' "$records")"

if [ "$mode" != tapd ]; then
	# Without tapd only the kernel side is checked: every record has a
	# finger-up time no later than the injection and within 1 ms of it.
	check "kernel timestamps within 1 ms of the injection" 0 \
		"$(echo "$gestures" | jq '[.[] | ((.inject_ns | tonumber) -
			(.t_up_ns | tonumber)) | select(. < 0 or . >= 1000000)] | length')"
	summary
fi

taps=$(section taps | grep '^{' | head -n 1)
health=$(section health | grep '^{' | head -n 1)
if ! echo "$taps" | jq -e '.taps' >/dev/null 2>&1; then
	show_logs
	die "no answer from /v1/taps inside the VM"
fi
stored=$(echo "$taps" | jq '.taps')
check "tapd stops cleanly on SIGTERM" "@@TAPD-EXIT 0" \
	"$(grep '^@@TAPD-EXIT' "$txt")"
check "tapd removes its pidfile when it stops" "@@PIDFILE removed" \
	"$(grep '^@@PIDFILE' "$txt")"

# Every gesture played is stored once, exactly where the kernel put it.
# The JSON keeps int64 ns as decimal strings: compare them as strings.
for i in $(seq 0 $((ngest - 1))); do
	g=$(echo "$gestures" | jq -c ".[$i]")
	seq=$(echo "$g" | jq -r .seq)
	kind=$(echo "$g" | jq -r .kind)
	up=$(echo "$g" | jq -r .t_up_ns)
	down=$(echo "$g" | jq -r .t_down_ns)
	inject=$(echo "$g" | jq -r .inject_ns)
	name="gesture $seq ($kind, device $(echo "$g" | jq -r .gen))"
	match=$(echo "$stored" | jq -c --arg up "$up" '[.[] | select(.t_up_ns == $up)]')
	n=$(echo "$match" | jq length)
	if [ "$n" != 1 ]; then
		bad "$name: $n stored taps with t_up_ns $up (want 1)"
		continue
	fi
	ok
	t=$(echo "$match" | jq -c '.[0]')
	check "$name: kind" "$kind" "$(echo "$t" | jq -r .kind)"
	check "$name: t_down_ns" "$down" "$(echo "$t" | jq -r .t_down_ns)"
	d=$((inject - up))
	if [ "$d" -ge 0 ] && [ "$d" -lt 1000000 ]; then
		ok
	else
		bad "$name: t_up $up is ${d} ns before the injection at $inject (want 0 to 1 ms)"
	fi
	# No other flag: the bursts end long before the next touch and the
	# cap, and nothing is presented in the 100 ms before a tap.
	if [ "$(echo "$g" | jq -r .dropped)" = true ]; then
		want='["input_dropped"]'
	else
		want='[]'
	fi
	check "$name: flags" "$want" "$(echo "$t" | jq -c .flags)"
	case "$kind" in
	tap | long_press)
		check "$name: app" com.vmtest.app "$(echo "$t" | jq -r .app)"
		check "$name: status" ok "$(echo "$t" | jq -r .status)"
		check "$name: first_frame_ms" 16 "$(echo "$t" | jq -r .first_frame_ms)"
		check "$name: settle_ms" 99.333 "$(echo "$t" | jq -r .settle_ms)"
		check "$name: frames" 6 "$(echo "$t" | jq -r .frames)"
		;;
	esac
done

check "no phantom gesture: stored = played" "$ngest" "$(echo "$stored" | jq length)"
check "the swipe is classified" 1 \
	"$(echo "$stored" | jq '[.[] | select(.kind == "swipe")] | length')"
check "the two-finger gesture is classified" 1 \
	"$(echo "$stored" | jq '[.[] | select(.kind == "multi")] | length')"

# The unplug: let go, and the new device picked up within a second.
for gen in 1 2; do
	ms=$(jq -s "[.[] | select(.event == \"pickup\" and .gen == $gen)][0].ms" "$records")
	if [ "$ms" != null ] && [ "$ms" -ge 0 ] && [ "$ms" -lt 1000 ]; then
		ok
	else
		bad "device $gen picked up after $ms ms (want under 1000)"
	fi
done
ms=$(jq -s '[.[] | select(.event == "release")][0].ms' "$records")
if [ "$ms" != null ] && [ "$ms" -ge 0 ] && [ "$ms" -lt 1000 ]; then
	ok
else
	bad "the removed device was let go after $ms ms (want under 1000)"
fi
want=$(echo "$gestures" | jq '[.[] | select(.gen == 2)] | length')
got=$(echo "$gestures" | jq --argjson s "$stored" \
	'[.[] | select(.gen == 2) | .t_up_ns as $u |
	  select([$s[] | select(.t_up_ns == $u)] | length == 1)] | length')
check "the re-created device's gestures are stored" "$want" "$got"

check "the forced SYN_DROPPED is counted" true \
	"$(echo "$health" | jq '.counters.syn_dropped >= 1')"

# A SIGTERM while a tap waits for its window: the tap is kept, truncated.
pending=$(section pending | grep '"seq":' | head -n 1)
ptaps=$(section pending-taps | grep '^{' | head -n 1)
check "the one-tap run played its tap" "@@VMTEST2-EXIT 0" \
	"$(grep '^@@VMTEST2-EXIT' "$txt")"
check "tapd stops cleanly with a tap pending" "@@TAPD2-EXIT 0" \
	"$(grep '^@@TAPD2-EXIT' "$txt")"
pup=$(echo "$pending" | jq -r .t_up_ns 2>/dev/null)
check "the pending tap is stored once, as truncated" 1 \
	"$(echo "$ptaps" | jq --arg u "$pup" \
		'[.taps[] | select(.t_up_ns == $u and .kind == "tap")] | length' \
		2>/dev/null)"
check "the pending tap keeps its app" com.vmtest.app \
	"$(echo "$ptaps" | jq -r --arg u "$pup" \
		'.taps[] | select(.t_up_ns == $u) | .app' 2>/dev/null)"

if [ "$fail" -ne 0 ]; then
	echo "--- records ---"
	cat "$records"
	echo "--- /v1/taps ---"
	echo "$taps" | jq -c '.taps[]' 2>/dev/null
	echo "--- /v1/health ---"
	echo "$health"
	echo "--- tapd log ---"
	section tapd-log | tail -n 150
	echo "--- pending: record, stored truncated taps, second run's log ---"
	echo "$pending"
	echo "$ptaps"
	section tapd2-log | tail -n 60
fi
summary
