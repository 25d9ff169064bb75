#!/usr/bin/env bash
# The real-kernel test.  Boots Debian's kernel (fetched by
# tests/vm/fetch-kernel.sh) under QEMU with software emulation and a small
# initramfs: busybox-static, tapd, the kernel's evdev and uinput modules,
# our test program vmtest (a uinput multitouch touch screen and an
# independent evdev reader), and the simulator's fakes of Android's tools
# (tapd-sim as dumpsys, getprop and resetprop: SurfaceFlinger frames that
# follow the taps vmtest writes, the properties of /etc/vmtest.props).  tests/vm/init.sh runs the test inside and prints its
# results on the serial console; this script checks them:
#
#  - every gesture vmtest played is stored once, with the kind it played,
#    with t_down and t_up exactly the kernel timestamps (CLOCK_MONOTONIC) of
#    its first finger-down and last finger-up SYN_REPORT as vmtest's own
#    reader saw them, and a t_up inside the finger-up write() (after the
#    clock read just before it, before the one just after it returned);
#  - taps and long presses are attributed to the foreground app of the
#    fake sysroot and measured from the fake frames (first frame 16 ms);
#  - the swipe and the two-finger gesture are classified;
#  - the device removed and re-created mid-run is let go and picked up
#    again within a second, and its taps are stored;
#  - the SYN_DROPPED forced by a flood while tapd was stopped is counted,
#    flags the gesture it hit, and makes no phantom gesture;
#  - tapd stops cleanly on SIGTERM;
#  - the session the first run recorded (--record) replays on the host
#    into the same rows of taps as the live run stored (record_checks).
#  - gestures injected through the API (POST /v1/gestures, with tapctl)
#    into the touch screen are each stored once, flagged injected, inside
#    tapd's own write() readings, a finger down refuses them, and so do a
#    missing token and a tapd without --allow-inject: tests/vm/inject.sh
#    in the VM, tests/vm/inject-check.sh here; the summary line then ends
#    with ", N injected".  Then a tap and a swipe through tapd's uinput
#    clone of the screen (--inject-via uinput), stored once each, flagged
#    injected, inside their writes, with /v1/health saying uinput.
#
# Two machines (VM_ARCH):
#  - x86_64 (the default): Debian's amd64 kernel under qemu-system-x86_64,
#    the machine's busybox, build/tapd and build/tapd-sim with the shared
#    libraries they need, vmtest built by cc.  Summary line "vm: ...".
#  - arm64: Debian's arm64 kernel under qemu-system-aarch64 (-M virt -cpu
#    cortex-a57), busybox-static:arm64, and static arm64 programs: tapd,
#    tapd-sim from `make android` (ANDROID_DIR, default
#    $BUILD/android/arm64-v8a), vmtest built with
#    android/toolchain.sh and android/libs.sh.  After the gestures the VM
#    becomes an Android-shaped root (tests/vm/android-root.sh) and checks
#    the Magisk module of `make magisk` (MAGISK_ZIP, default
#    $BUILD/tapd-magisk.zip)
#    installed, booted, restarted, updated and switched off the way Magisk
#    does it (tests/vm/magisk-install.sh), refused on an ABI it lacks, and
#    tapd run without root.  Summary line "vm-arm64: ...".
#
# Environment: BUILD (build), VM_ARCH (x86_64), VM_KERNEL_DIR
# (build/vm/kernel, build/vm/kernel-arm64), VM_ACCEL (tcg; kvm where it
# works, x86_64 only), VM_TIMEOUT (seconds: 200, 230 for arm64), VM_MODE
# (tapd; "alone" boots vmtest without tapd, to check the kernel side only).
# If the VM cannot be built or booted the test fails: it never skips.
set -u
build=${BUILD:-build}
arch=${VM_ARCH:-x86_64}
accel=${VM_ACCEL:-tcg}
mode=${VM_MODE:-tapd}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
pass=0
fail=0
label=vm
case "$arch" in
x86_64)
	vm=$build/vm
	kdir=${VM_KERNEL_DIR:-build/vm/kernel}
	debarch=amd64
	limit=${VM_TIMEOUT:-200}
	watchdog=150
	inject_repeat=20
	qemu="qemu-system-x86_64"
	qemu_machine=(-accel "$accel" -m 512 -smp 1)
	console_dev=ttyS0
	tapd=$build/tapd
	sim=$build/tapd-sim
	tapctl=$build/tapctl
	;;
arm64)
	label="vm-arm64"
	vm=$build/vm/arm64
	kdir=${VM_KERNEL_DIR:-build/vm/kernel-arm64}
	bbdir=${VM_BUSYBOX_DIR:-build/vm/busybox-arm64}
	debarch=arm64
	limit=${VM_TIMEOUT:-230}
	watchdog=$((limit - 10))
	inject_repeat=5
	qemu="qemu-system-aarch64"
	qemu_machine=(-M virt -cpu cortex-a57 -accel "$accel" -m 512 -smp 1)
	console_dev=ttyAMA0
	adir=${ANDROID_DIR:-$build/android/arm64-v8a}
	tapd=$adir/tapd
	sim=$adir/tapd-sim
	tapctl=$adir/tapctl
	zip=${MAGISK_ZIP:-$build/tapd-magisk.zip}
	;;
esac

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
	echo "$label: $pass passed, $fail failed${injected:+, $injected injected}"
	[ "$fail" -eq 0 ]
	exit
}

# The VM could not be built or booted: a failure, loudly, never a skip.
die() {
	bad "$*"
	summary
}

[ -n "${qemu:-}" ] || die "VM_ARCH '$arch' is not x86_64 or arm64"
if [ "$arch" = x86_64 ]; then
	tools="qemu-system-x86_64 busybox cpio gzip jq cc pkg-config ldd sqlite3 base64"
	pkgs="qemu-system-x86 busybox-static cpio sqlite3"
else
	tools="qemu-system-aarch64 cpio gzip jq clang readelf od cmp unzip sqlite3 base64"
	pkgs="qemu-system-arm cpio clang lld unzip sqlite3"
fi
for tool in $tools; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is missing: run make deps ($pkgs)"
done

sh "$here/fetch-kernel.sh" "$kdir" "$debarch" ||
	die "cannot fetch the $debarch kernel into '$kdir'"
if [ "$arch" = x86_64 ]; then
	busybox=$(command -v busybox)
else
	sh "$here/fetch-kernel.sh" --busybox "$bbdir" arm64 ||
		die "cannot fetch busybox-static:arm64 into '$bbdir'"
	busybox=$bbdir/bin/busybox
fi
kernel=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
config=$(ls "$kdir"/boot/config-* 2>/dev/null | head -n 1)
moddir=$(ls -d "$kdir"/lib/modules/* 2>/dev/null | head -n 1)
[ -n "$kernel" ] && [ -n "$config" ] && [ -n "$moddir" ] ||
	die "no kernel, config or modules in '$kdir'"

# An arm64 program must be a static aarch64 ELF: the VM has no C library.
# The ELF magic, class (64-bit), byte order (little) and e_machine (0xb7).
arm64_static() {
	[ "$(od -An -v -tx1 -N20 "$1" 2>/dev/null | tr -d ' \n' | cut -c1-12,37-40)" = 7f454c460201b700 ] ||
		die "'$1' is not an aarch64 ELF"
	if readelf -lW "$1" 2>/dev/null | grep -q 'Requesting program interpreter'; then
		die "'$1' is linked dynamically: the VM has no shared libraries for it"
	fi
}

if [ "$mode" = tapd ]; then
	if [ "$arch" = x86_64 ]; then
		for f in "$tapd" "$sim" "$tapctl"; do
			[ -x "$f" ] || die "'$f' is missing: run make"
		done
		"$tapd" run --help >/dev/null 2>&1 || die "'$tapd run --help' fails"
	else
		for f in "$tapd" "$sim" "$tapctl"; do
			[ -f "$f" ] || die "'$f' is missing: run make android"
			arm64_static "$f"
		done
		[ -f "$zip" ] || die "'$zip' is missing: run make magisk"
	fi
fi
[ "$arch" = arm64 ] && arm64_static "$busybox"

rm -rf "$vm/root"
mkdir -p "$vm/root"
root=$vm/root

# The test programs, with the project's warnings.
cflags="-std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Wshadow
	-Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wcast-qual
	-Wformat=2 -Wvla -Werror"
if [ "$arch" = x86_64 ]; then
	# shellcheck disable=SC2086,SC2046
	cc $cflags $(pkg-config --cflags libevdev) -o "$vm/vmtest" \
		"$here/vmtest.c" $(pkg-config --libs libevdev) ||
		die "cannot build vmtest"
else
	# Static, with the project's Android toolchain and its libevdev.
	mkdir -p "$vm"
	sh "$top/android/toolchain.sh" arm64-v8a "$vm/tc" >"$vm/toolchain.log" 2>&1 ||
		{ cat "$vm/toolchain.log"; die "cannot write the arm64 toolchain"; }
	prefix=$(sh "$top/android/libs.sh" arm64-v8a 2>"$vm/libs.log") ||
		{ tail -n 30 "$vm/libs.log"; die "cannot build the arm64 libraries (android/libs.sh)"; }
	[ -f "$prefix/lib/libevdev.a" ] || die "no libevdev.a in '$prefix/lib'"
	# shellcheck disable=SC2086
	"$vm/tc/bin/cc" $cflags -static -I"$prefix/include/libevdev-1.0" \
		-o "$vm/vmtest" "$here/vmtest.c" "$prefix/lib/libevdev.a" ||
		die "cannot build vmtest for arm64"
	arm64_static "$vm/vmtest"
fi

mkdir -p "$root"/{bin,etc,proc,sys,dev,tmp,run,lib/modules}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
mkdir -p "$root/vm"
cp "$here/lib.sh" "$root/vm/lib.sh"
cp "$here/inject.sh" "$root/vm/inject.sh"
cp "$vm/vmtest" "$root/bin/vmtest"
bins=("$busybox" "$vm/vmtest")
# The properties the fake getprop and resetprop read until the phone part
# writes its own: API 29, as a phone that has just booted would say.
echo ro.build.version.sdk=29 >"$root/etc/vmtest.props"
if [ "$mode" = tapd ]; then
	cp "$tapd" "$root/bin/tapd"
	cp "$sim" "$root/bin/tapd-sim"
	cp "$tapctl" "$root/bin/tapctl"
	for t in dumpsys getprop resetprop; do
		ln -s tapd-sim "$root/bin/$t"
	done
	bins+=("$tapd" "$sim" "$tapctl")
fi
android=0
if [ "$mode" = tapd ] && [ "$arch" = arm64 ]; then
	android=1
	cp "$zip" "$root/vm/tapd-magisk.zip"
	cp "$here/magisk-install.sh" "$here/android-root.sh" "$root/vm/"
fi
printf 'MODE=%s\nWATCHDOG=%s\nANDROID=%s\nINJECT_REPEAT=%s\n' "$mode" \
	"$watchdog" "$android" "$inject_repeat" \
	>"$root/etc/vmtest.conf"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "127.0.0.1 localhost" >"$root/etc/hosts"

# Shared libraries and the dynamic loader, at the paths ldd names (the
# arm64 programs are static).
[ "$arch" = x86_64 ] || bins=()
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
timeout -k 5 "$limit" "$qemu" "${qemu_machine[@]}" \
	-nodefaults -no-user-config -display none -net none -no-reboot \
	-serial "file:$console" -kernel "$kernel" -initrd "$vm/initramfs.gz" \
	-append "console=$console_dev quiet panic=-1" </dev/null >"$vm/qemu.out" 2>&1
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
echo "$label: booted $(section kernel | head -n 1) with $accel, ran ${secs}s (qemu exit $qrc)"
grep '^@@PHASE' "$txt" | while read -r _ phase at; do
	echo "$label: $phase at ${at}s of uptime"
done
check "vm ends by itself" 0 "$qrc"
if grep -q '^@@TIMEOUT' "$txt"; then
	bad "the VM's watchdog fired"
fi
grep '^@@ERROR' "$txt" | while read -r line; do echo "$label: $line"; done
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

# The kernel stamps the finger-up inside vmtest's write(): t_up lies
# between the clock read just before the call and the one just after it
# returned.  The event carries microseconds (the kernel's nanoseconds cut
# down), so the lower bound is the "before" reading cut down the same way.
echo "$label: injection bracket (after - before) at most $(echo "$gestures" |
	jq '[.[] | (.inject_after_ns | tonumber) - (.inject_before_ns | tonumber)] | max') ns"
in_bracket() { # UP BEFORE AFTER
	[ "$1" -ge $(($2 / 1000 * 1000)) ] && [ "$1" -le "$3" ]
}
if [ "$mode" != tapd ]; then
	# Without tapd only the kernel side is checked.
	for i in $(seq 0 $((ngest - 1))); do
		g=$(echo "$gestures" | jq -c ".[$i]")
		up=$(echo "$g" | jq -r .t_up_ns)
		before=$(echo "$g" | jq -r .inject_before_ns)
		after=$(echo "$g" | jq -r .inject_after_ns)
		if in_bracket "$up" "$before" "$after"; then
			ok
		else
			bad "gesture $(echo "$g" | jq -r .seq): t_up $up is outside its write() [$before, $after]"
		fi
	done
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
	before=$(echo "$g" | jq -r .inject_before_ns)
	after=$(echo "$g" | jq -r .inject_after_ns)
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
	if in_bracket "$up" "$before" "$after"; then
		ok
	else
		bad "$name: t_up $up is outside its write() [$before, $after]"
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

# tapd run --record: the first run wrote a session while it measured
# (init.sh's record_export prints it with that run's database).  A
# replay of it on this machine given nothing but the recording (the
# live run's --settle-cap-ms 1000 comes from its device.json) must
# store the same rows, in t_up order: every
# column of taps but two.  wall_ns: the live daemon takes it from
# REALTIME - MONOTONIC read every 10 s, the replay from the one pair of
# device.json, apart by the time between two clock reads.  id: the order
# rows were stored in, which is the order taps were finalized in; live, a
# swipe is stored at once while an earlier long press waits for its
# frames' next poll, in a replay the frames are all there already.
record_checks() {
	local rdir=$vm/recording host_tapd=$build/tapd cols q live replayed
	rm -rf "$rdir"
	mkdir -p "$rdir"
	if ! section recording | base64 -d 2>/dev/null | tar -C "$rdir" -xz 2>/dev/null; then
		bad "record: no recording came out of the VM"
		return
	fi
	for f in input.getevent foreground.log device.json latency windows.log processes.log; do
		if [ -e "$rdir/rec/$f" ]; then
			ok
		else
			bad "record: no $f in the recording"
		fi
	done
	check "record: device.json has the clock anchor" true \
		"$(jq '(.clock.realtime_ns | tonumber) > 0 and (.clock.monotonic_ns | tonumber) > 0' \
			"$rdir/rec/device.json" 2>/dev/null)"
	[ -x "$host_tapd" ] || { bad "record: '$host_tapd' is missing: run make"; return; }
	check "record: device.json has the thresholds the run measured with" 1000 \
		"$(jq '.measure.settle_cap_ms' "$rdir/rec/device.json" 2>/dev/null)"
	"$host_tapd" replay --session "$rdir/rec" --db "$rdir/replay.db" \
		>"$rdir/replay.out" 2>&1
	check "record: the replay of the recording exits 0" 0 "$?"
	check "record: the replay took the recorded settle cap" 1 \
		"$(grep -c '^thresholds recorded: .*settle_cap_ms 1000' "$rdir/replay.out")"
	cols=$(sqlite3 -batch -noheader "$rdir/tapd/taps.db" \
		"SELECT group_concat(name, ', ') FROM pragma_table_info('taps') WHERE name NOT IN ('id', 'wall_ns')")
	q="SELECT $cols FROM taps ORDER BY t_up_ns"
	live=$(sqlite3 -batch -noheader "$rdir/tapd/taps.db" "$q" 2>&1)
	replayed=$(sqlite3 -batch -noheader "$rdir/replay.db" "$q" 2>&1)
	check "record: the live run stored every gesture" "$ngest" \
		"$(printf '%s\n' "$live" | grep -c .)"
	if [ "$live" = "$replayed" ]; then
		ok
		echo "$label: record: $(printf '%s\n' "$live" | grep -c .) rows replayed as stored live ($cols)"
	else
		bad "record: the replay's taps differ from the live run's"
		diff <(echo "$live") <(echo "$replayed") | head -n 20
		tail -n 20 "$rdir/replay.out"
	fi
}
record_checks

# The gestures injected through the API (tests/vm/inject-check.sh).
. "$here/inject-check.sh"
before_inject=$fail
inject_checks
inject_uinput_checks
inject_fail=$((fail - before_inject))

gesture_fail=$before_inject

# The phone part (arm64): the Magisk module and tapd without root, from
# what tests/vm/android-root.sh printed ("@@A NAME VALUE" lines and
# sections).
fact() {
	sed -n "s/^@@A $1 //p" "$txt" | head -n 1 | sed 's/[[:space:]]*$//'
}
is_num() {
	case "$1" in
	'' | *[!0-9]*) return 1 ;;
	esac
}
json_section() {
	section "$1" | grep '^{' | head -n 1
}
# check_json NAME JSON FILTER EXPECTED: jq -r FILTER of JSON.
check_json() {
	check "$1" "$4" "$(echo "$2" | jq -r "$3" 2>/dev/null)"
}
# The lines of an install's output that start with "!" (Magisk's abort
# and every refusal of customize.sh).
bang_lines() {
	section "$1-out" | grep -c '^!'
}
# What an install printed on stderr besides unzip's listing: a shell error
# in the installer or in customize.sh.
stray_stderr() {
	section "$1-err" | grep -v '^Archive: \|^ *inflating: \|^ *extracting: ' | head -n 3
}

android_checks() {
	local p1 p2 p3 h tap_up n ms needle
	modbin=/data/adb/modules/tapd/system/bin/tapd
	if ! grep -q '^@@A props ' "$txt"; then
		bad "the phone part did not run"
		return
	fi
	check "the VM's ABI and API, as getprop says" "arm64-v8a 34" "$(fact props)"
	check "the phone part ran to its end" "@@ANDROID-EXIT 0" \
		"$(grep '^@@ANDROID-EXIT' "$txt")"
	if unzip -p "$zip" abi/arm64-v8a/tapd 2>/dev/null | cmp -s - "$tapd"; then
		ok
	else
		bad "abi/arm64-v8a/tapd in '$zip' is not '$tapd': run make magisk"
	fi

	# The install, on the running "phone": into modules_update, a stub
	# with the update flag in modules, customize.sh and abi/ gone.
	check "install: exit status" 0 "$(fact install1-rc)"
	check "install: no stray stderr" "" "$(stray_stderr install1)"
	check "install: no '!' line" 0 "$(bang_lines install1)"
	check "install: ends with '- Done'" "- Done" "$(section install1-out | tail -n 1)"
	check "install: the module in modules_update" present "$(fact install1-modpath)"
	check "install: the update flag in modules/tapd" present "$(fact install1-stub-update)"
	check "install: customize.sh deleted" absent "$(fact install1-customize)"
	check "install: abi/ deleted" absent "$(fact install1-abi-dir)"
	check "install: system/bin/tapd mode and owner" "755 0:2000" "$(fact install1-tapd-mode)"

	# The boot: upgrade_modules, then service.sh, which waits for
	# sys.boot_completed before it starts tapd.
	check "boot: post-fs-data" 0 "$(fact boot1-post-fs-data-rc)"
	check "boot: the update flag removed" absent "$(fact boot1-update-flag)"
	check "boot: modules_update removed" absent "$(fact boot1-modules-update)"
	check "boot: service stage" 0 "$(fact boot1-service-rc)"
	check "boot: no tapd before sys.boot_completed=1" 0 \
		"$(fact boot1-tapd-before-boot-completed)"
	p1=$(fact boot1-tapd-pid)
	if is_num "$p1"; then ok; else bad "boot: no tapd runs from $modbin"; fi
	check "boot: tapd runs from the module (/proc/PID/exe)" "$modbin" "$(fact boot1-exe)"
	check "boot: tapd runs as root" 0 "$(fact boot1-uid)"
	check "boot: the module's tapd is a 64-bit little-endian aarch64 ELF" \
		7f454c460201b700 "$(fact boot1-elf)"
	check "boot: /data/adb/tapd/taps.db created" present "$(fact boot1-db)"
	h=$(json_section health1)
	check_json "boot: /v1/health answers" "$h" '.status | type' string
	check_json "boot: /v1/health names the database" "$h" '.database.path' /data/adb/tapd/taps.db

	# A tap, stored before the update.
	check "tap: vmtest played it" 0 "$(fact tap-rc)"
	tap_up=$(section tap-records | grep '"seq":' | head -n 1 | jq -r .t_up_ns 2>/dev/null)
	check "tap: stored by the module's tapd" 1 \
		"$(json_section taps1 | jq --arg u "$tap_up" '[.taps[] | select(.t_up_ns == $u)] | length' 2>/dev/null)"

	# kill -9: the service starts a new tapd.
	p2=$(fact restart-pid)
	if is_num "$p2" && [ "$p2" != "$p1" ]; then
		ok
		echo "$label: tapd restarted $(fact restart-ms) ms after kill -9"
	else
		bad "restart: no new tapd after kill -9 of $p1 (got '$p2')"
	fi
	check "restart: the killed tapd is gone" no "$(fact restart-old-alive)"
	h=$(json_section health2)
	check_json "restart: /v1/health answers again" "$h" '.database.path' /data/adb/tapd/taps.db

	# An update with the same zip, and the next boot: the data stays.
	check "update: exit status" 0 "$(fact install2-rc)"
	check "update: no stray stderr" "" "$(stray_stderr install2)"
	check "update: no '!' line" 0 "$(bang_lines install2)"
	check "update: the new module in modules_update" present "$(fact install2-modpath)"
	check "update: the update flag in modules/tapd" present "$(fact install2-stub-update)"
	check "update: tapd and its service stop on SIGTERM (none needed SIGKILL)" 0 \
		"$(fact reboot2-shutdown-killed)"
	check "update: boot: post-fs-data" 0 "$(fact boot2-post-fs-data-rc)"
	check "update: boot: the update flag removed" absent "$(fact boot2-update-flag)"
	check "update: boot: modules_update removed" absent "$(fact boot2-modules-update)"
	n=$(fact reboot2-db-sum)
	if [ -n "$n" ] && [ "$n" != none ]; then ok; else bad "update: no /data/adb/tapd/taps.db after the update"; fi
	check "update: the upgrade leaves taps.db as it was" "$n" "$(fact boot2-db-sum-before-service)"
	check "update: boot: service stage" 0 "$(fact boot2-service-rc)"
	p3=$(fact boot2-tapd-pid)
	if is_num "$p3"; then ok; else bad "update: no tapd after the boot"; fi
	check "update: tapd runs from the upgraded module" "$modbin" "$(fact boot2-exe)"
	h=$(json_section health3)
	check_json "update: /v1/health answers" "$h" '.database.path' /data/adb/tapd/taps.db
	check "update: the tap stored before is still there" 1 \
		"$(json_section taps3 | jq --arg u "$tap_up" '[.taps[] | select(.t_up_ns == $u)] | length' 2>/dev/null)"

	# Switched off: tapd stops within 5 s and stays stopped.
	ms=$(fact disable-exit-ms)
	if is_num "$ms" && [ "$ms" -lt 5000 ]; then
		ok
		echo "$label: tapd stopped $ms ms after the disable flag"
	else
		bad "disable: tapd did not stop within 5 s (got '$ms')"
	fi
	check "disable: tapd is not started again" 0 "$(fact disable-tapd-after)"

	# An ABI the zip has no build for: one '!' line, nothing left.
	check "riscv64: the install fails" 1 "$(fact install3-rc)"
	check "riscv64: no stray stderr" "" "$(stray_stderr install3)"
	check "riscv64: one '!' line" 1 "$(bang_lines install3)"
	check "riscv64: no modules_update/tapd left" absent "$(fact install3-modpath)"
	check "riscv64: no update flag left" absent "$(fact install3-stub-update)"

	# tapd without root: uid 2000, /data/adb, /dev/input and perfetto's
	# trace directory out of its reach.
	n=$(fact nonroot-input-nodes)
	if is_num "$n" && [ "$n" -ge 1 ]; then ok; else bad "no root: no touch screen node (got '$n')"; fi
	check "no root: the touch screen is 0660 root:input" 660:0:1004 "$(fact nonroot-input-modes)"
	check "no root: tapd runs from /data/local/tmp" /data/local/tmp/tapd "$(fact nonroot-exe)"
	check "no root: tapd runs as uid and gid 2000, no other group" \
		"2000 2000 2000 2000 2000 2000 2000 2000 2000" "$(fact nonroot-ids)"
	h=$(json_section nonroot-health)
	check_json "no root: /v1/health answers" "$h" '.status | type' string
	check_json "no root: the database falls back to /data/local/tmp/tapd-data" "$h" \
		'.database.path' /data/local/tmp/tapd-data/taps.db
	# What could not be opened is named by a source that is not up, or
	# by a field of its own (anything outside sources and database).
	for needle in /dev/input perfetto /data/adb; do
		n=$(echo "$h" | jq --arg n "$needle" '
			[(.sources // {} | .[] | select(.health != "up") | .detail),
			 (del(.sources, .database) | .. | strings)]
			| map(select(type == "string" and contains($n))) | length' 2>/dev/null)
		if is_num "$n" && [ "$n" -ge 1 ]; then
			ok
		else
			bad "no root: /v1/health does not say '$needle' could not be used"
		fi
	done
	check "no root: tapd exits 0 on SIGTERM" 0 "$(fact nonroot-exit)"
}

android_fail=0
if [ "$arch" = arm64 ]; then
	before_android=$fail
	android_checks
	android_fail=$((fail - before_android))
fi

if [ "$android_fail" -ne 0 ]; then
	echo "--- the phone part ---"
	sed -n '/^@@PHASE magisk/,$p' "$txt" | grep -v '^ *inflating: \|^Archive: '
fi
if [ "$inject_fail" -ne 0 ]; then
	echo "--- injection: tapctl's errors, tapd's log ---"
	section inject-tapctl-err | tail -n 20
	section inject-log | tail -n 100
fi
if [ "$gesture_fail" -ne 0 ]; then
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
