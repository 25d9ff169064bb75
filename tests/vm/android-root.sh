#!/bin/sh
# The phone part of the arm64 test VM (tests/vm/run.sh with VM_ARCH=arm64),
# run by tests/vm/init.sh once the gesture part is done.  It turns the VM's
# root into an Android-shaped one and checks the Magisk module and tapd
# without root in it; what it finds goes to the serial console as
# "@@A NAME VALUE" lines and "@@BEGIN name" ... "@@END name" sections, and
# run.sh decides what passes.
#
# The Android-shaped root:
#  - /system/bin: getprop, dumpsys and perfetto, and resetprop (Magisk's,
#    in /debug_ramdisk like Magisk's tools): the simulator's fakes,
#    tapd-sim, with the properties of /etc/vmtest.props (TAPD_FAKE_PROPS,
#    set by init.sh), an arm64-v8a phone on API 34;
#  - /dev/cpuset/top-app/cgroup.procs naming a running process;
#  - /data/adb (root only, 0700), /data/local/tmp (shell's, 0771), and
#    /data/misc/perfetto-traces (root's, not writable by others);
#  - the touch screen (vmtest) at /dev/input/event*, 0660 root:input;
#  - the users root (0) and shell (2000), and the group input (1004)
#    with no members.
#
# The module (tests/vm/magisk-install.sh does Magisk's part): installed
# from /sdcard/Download/tapd-magisk.zip while the "phone" runs, then a boot
# (post-fs-data, then service with sys.boot_completed still 0, then set to
# 1); tapd from the module, its database, health, a tap, a restart after
# kill -9, an update with the same zip and another boot, switching the
# module off, and an install refused for an ABI the zip lacks.  Then tapd
# as the shell user, from /data/local/tmp, without --db.
export PATH=/system/bin:/system/xbin:/vendor/bin:/bin:/sbin
V=/vm
ZIP=/sdcard/Download/tapd-magisk.zip
MODDIR=/data/adb/modules/tapd
MODBIN=$MODDIR/system/bin/tapd
DATA=/data/adb/tapd
API=http://127.0.0.1:7878
# Magisk's tools are on the PATH of its scripts only.
RESETPROP=/debug_ramdisk/resetprop
# tapd without root, as `adb push tapd /data/local/tmp/` puts it.
NONROOT_BIN=/data/local/tmp/tapd

. $V/lib.sh

fact() {
	say "@@A $*"
}

# show NAME FILE...: the files as a section.
show() {
	n=$1
	shift
	say "@@BEGIN $n"
	cat "$@" >/dev/console 2>&1
	say "@@END $n"
}

# Milliseconds since boot (/proc/uptime has hundredths of a second).
ms_now() {
	echo $(($(sed 's/ .*//; s/\.//; s/^0*\([0-9]\)/\1/' /proc/uptime) * 10))
}

# The pids of the programs whose /proc/PID/exe is $1 (not zombies: a
# zombie has no exe).
pids_of() {
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/exe" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"
	done
}

# wait_pid EXE OLD SECONDS: waits for a program running EXE other than
# pid OLD; prints its pid, or nothing.
wait_pid() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		for p in $(pids_of "$1"); do
			if [ "$p" != "$2" ]; then
				echo "$p"
				return 0
			fi
		done
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

# health NAME [SECONDS [PID [PATTERN]]]: /v1/health as a section, once it
# answers (waiting no longer once PID has exited); with PATTERN, once the
# answer matches it (grep -E), else the last answer when time is up.
health() {
	i=0
	: >/tmp/a/$1
	while [ $i -lt $((${2:-20} * 10)) ]; do
		[ -n "$3" ] && ! alive "$3" && break
		if timeout 5 wget -q -O /tmp/a/$1 "$API/v1/health" 2>/dev/null &&
			[ -s /tmp/a/$1 ]; then
			[ -z "$4" ] && break
			grep -Eq "$4" /tmp/a/$1 && break
			i=$((i + 1))
			sleep 0.1
			continue
		fi
		: >/tmp/a/$1
		i=$((i + 1))
		sleep 0.1
	done
	say "@@BEGIN $1"
	cat /tmp/a/$1 >/dev/console
	say ""
	say "@@END $1"
}

# The processes a module's scripts started (the shells running its
# service.sh) and what runs from its files: what a reboot ends.
module_pids() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = $$ ] && continue
		case "$(readlink "$d/exe" 2>/dev/null)" in
		/data/adb/modules/*) echo "$p" ;;
		*)
			tr '\0' ' ' 2>/dev/null <"$d/cmdline" |
				grep -q '/data/adb/modules/' && echo "$p"
			;;
		esac
	done
}

# A shutdown, as far as the module is concerned: SIGTERM to all of it,
# SIGKILL to what is left 10 s later.
shutdown() {
	pids=$(module_pids)
	[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
	i=0
	while [ -n "$(module_pids)" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	left=$(module_pids)
	fact "$1-shutdown-killed $(echo $left | wc -w)"
	[ -n "$left" ] && kill -KILL $left 2>/dev/null
	sleep 0.2
}

# mod_install NAME [PROPS]: the zip installed as the Magisk app does, with the
# properties PROPS (default /etc/vmtest.props).
mod_install() {
	TAPD_FAKE_PROPS=${2:-/etc/vmtest.props} sh $V/magisk-install.sh install $ZIP \
		>/tmp/a/$1.out 2>/tmp/a/$1.err
	fact "$1-rc $?"
	show "$1-out" /tmp/a/$1.out
	show "$1-err" /tmp/a/$1.err
}

boot() {
	$RESETPROP sys.boot_completed 0
	sh $V/magisk-install.sh post-fs-data >/tmp/a/$1-pfd.out 2>&1
	fact "$1-post-fs-data-rc $?"
	show "$1-post-fs-data" /tmp/a/$1-pfd.out
	fact "$1-update-flag $([ -e $MODDIR/update ] && echo present || echo absent)"
	fact "$1-modules-update $([ -e /data/adb/modules_update ] && echo present || echo absent)"
	if [ -f $DATA/taps.db ]; then
		fact "$1-db-sum-before-service $(cat $DATA/taps.db* | sha256sum | cut -c1-16)"
	else
		fact "$1-db-sum-before-service none"
	fi
	sh $V/magisk-install.sh service >/tmp/a/$1-svc.out 2>&1
	fact "$1-service-rc $?"
	show "$1-service" /tmp/a/$1-svc.out
}

mkdir -p /tmp/a

# --- the Android-shaped root --------------------------------------------
mkdir -p /system/bin /system/xbin /vendor/bin /debug_ramdisk \
	/data/adb /data/local/tmp /data/misc/perfetto-traces \
	/sdcard/Download /dev/cpuset/top-app
for t in getprop dumpsys perfetto; do
	ln -s /bin/tapd-sim /system/bin/$t
done
ln -s /bin/tapd-sim /debug_ramdisk/resetprop
cp $V/tapd-magisk.zip $ZIP
cat >/etc/vmtest.props <<EOF
ro.product.cpu.abi=arm64-v8a
ro.product.cpu.abilist=arm64-v8a,armeabi-v7a,armeabi
ro.product.cpu.abilist64=arm64-v8a
ro.product.cpu.abilist32=armeabi-v7a,armeabi
ro.build.version.sdk=34
ro.build.version.release=14
ro.product.manufacturer=QEMU
ro.product.model=tapd test VM
ro.hardware=virt
sys.boot_completed=0
EOF
chmod 0644 /etc/vmtest.props
sed 's/^ro.product.cpu.abi=.*/ro.product.cpu.abi=riscv64/;
	s/^ro.product.cpu.abilist.*=.*$//' /etc/vmtest.props >/tmp/a/riscv64.props
echo "shell:x:2000:2000:shell:/data/local/tmp:/bin/sh" >>/etc/passwd
printf 'shell:x:2000:\ninput:x:1004:\n' >>/etc/group
chmod 0771 /data
chmod 0700 /data/adb
chown 2000:2000 /data/local/tmp
chmod 0771 /data/local/tmp
chmod 0755 /data/misc/perfetto-traces
# A foreground app for the top-app cpuset: any running process will do.
sleep 100000 &
echo $! >/dev/cpuset/top-app/cgroup.procs
chmod 0644 /dev/cpuset/top-app/cgroup.procs
fact "props $(getprop ro.product.cpu.abi) $(getprop ro.build.version.sdk)"

# --- the module: install, boot ------------------------------------------
say "@@PHASE magisk $(cut -d' ' -f1 /proc/uptime)"
mod_install install1
fact "install1-modpath $([ -d /data/adb/modules_update/tapd ] && echo present || echo absent)"
fact "install1-stub-update $([ -e $MODDIR/update ] && echo present || echo absent)"
fact "install1-customize $([ -e /data/adb/modules_update/tapd/customize.sh ] && echo present || echo absent)"
fact "install1-abi-dir $([ -e /data/adb/modules_update/tapd/abi ] && echo present || echo absent)"
fact "install1-tapd-mode $(stat -c '%a %u:%g' /data/adb/modules_update/tapd/system/bin/tapd 2>&1)"

boot boot1
# service.sh waits for the boot to complete: no tapd yet.
sleep 3
fact "boot1-tapd-before-boot-completed $(pids_of $MODBIN | wc -w)"
$RESETPROP sys.boot_completed 1
pid1=$(wait_pid $MODBIN "" 30)
fact "boot1-tapd-pid ${pid1:-none}"
if [ -n "$pid1" ]; then
	fact "boot1-exe $(readlink /proc/$pid1/exe)"
	fact "boot1-uid $(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$pid1/status)"
fi
fact "boot1-elf $(od -An -v -tx1 -N20 $MODBIN 2>/dev/null | tr -d ' \n' | cut -c1-12,37-40)"
i=0
while [ ! -f $DATA/taps.db ] && [ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
fact "boot1-db $([ -f $DATA/taps.db ] && echo present || echo absent)"
health health1

# A tap for the database to keep across the update.
vmtest --one-tap --tapd-pid "${pid1:-1}" --api-port 7878 \
	--frames /tmp/a/frames >/tmp/a/tap.records 2>/tmp/a/tap.err
fact "tap-rc $?"
show tap-records /tmp/a/tap.records /tmp/a/tap.err
# Stored once its response window has closed (at most 5 s).
i=0
while [ $i -lt 100 ]; do
	timeout 5 wget -q -O /tmp/a/taps1 "$API/v1/taps?limit=100" 2>/dev/null
	grep -q '"t_up_ns"' /tmp/a/taps1 2>/dev/null && break
	i=$((i + 1))
	sleep 0.1
done
say "@@BEGIN taps1"
cat /tmp/a/taps1 >/dev/console 2>&1
say ""
say "@@END taps1"

# --- a crash: the service starts tapd again -----------------------------
if [ -n "$pid1" ]; then
	kill -KILL "$pid1"
	t0=$(ms_now)
	pid2=$(wait_pid $MODBIN "$pid1" 30)
	fact "restart-pid ${pid2:-none}"
	fact "restart-ms $(($(ms_now) - t0))"
	fact "restart-old-alive $(alive "$pid1" && echo yes || echo no)"
else
	fact "restart-pid none"
fi
health health2

# --- an update with the same zip, and a reboot --------------------------
mod_install install2
fact "install2-modpath $([ -d /data/adb/modules_update/tapd ] && echo present || echo absent)"
fact "install2-stub-update $([ -e $MODDIR/update ] && echo present || echo absent)"
shutdown reboot2
if [ -f $DATA/taps.db ]; then
	fact "reboot2-db-sum $(cat $DATA/taps.db* | sha256sum | cut -c1-16)"
else
	fact "reboot2-db-sum none"
fi
boot boot2
$RESETPROP sys.boot_completed 1
pid3=$(wait_pid $MODBIN "" 30)
fact "boot2-tapd-pid ${pid3:-none}"
[ -n "$pid3" ] && fact "boot2-exe $(readlink /proc/$pid3/exe)"
health health3
say "@@BEGIN taps3"
timeout 10 wget -q -O - "$API/v1/taps?limit=100" >/dev/console 2>&1
say ""
say "@@END taps3"

# --- switched off in the Magisk app -------------------------------------
if [ -n "$pid3" ]; then
	touch $MODDIR/disable
	t0=$(ms_now)
	if gone "$pid3"; then
		fact "disable-exit-ms $(($(ms_now) - t0))"
	else
		fact "disable-exit-ms never"
	fi
	sleep 5
	fact "disable-tapd-after $(pids_of $MODBIN | wc -w)"
fi
show service-log $DATA/service.log

# --- an ABI the zip lacks ----------------------------------------------
rm -rf /data/adb/modules_update
mod_install install3 /tmp/a/riscv64.props
fact "install3-modpath $([ -e /data/adb/modules_update/tapd ] && echo present || echo absent)"
fact "install3-stub-update $([ -e $MODDIR/update ] && echo present || echo absent)"
shutdown final

# --- tapd without root --------------------------------------------------
say "@@PHASE nonroot $(cut -d' ' -f1 /proc/uptime)"
vmtest --hold 120 >/tmp/a/hold.records 2>/tmp/a/hold.err &
hold=$!
i=0
while ! grep -q '"event":"device"' /tmp/a/hold.records 2>/dev/null &&
	[ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
for n in /dev/input/event*; do
	chown 0:1004 "$n"
	chmod 0660 "$n"
done
n=0
for e in /dev/input/event*; do
	[ -c "$e" ] && n=$((n + 1))
done
fact "nonroot-input-nodes $n"
fact "nonroot-input-modes $(stat -c '%a:%u:%g' /dev/input/event* | sort -u | tr '\n' ' ')"
cp /bin/tapd $NONROOT_BIN
chown 2000:2000 $NONROOT_BIN
chmod 0755 $NONROOT_BIN
su -s /bin/sh shell -c "cd /data/local/tmp &&
	exec $NONROOT_BIN run --listen 127.0.0.1:7878" \
	</dev/null >/tmp/a/nonroot.out 2>&1 &
np=$!
# The frame source tells its first attempt with the loop's first turn,
# which may come after the API's first answer: wait for it to say anything.
health nonroot-health 30 $np '"frames":\{[^}]*"detail":"[^"]'
fact "nonroot-exe $(readlink /proc/$np/exe)"
fact "nonroot-ids $(sed -n 's/^\(Uid\|Gid\|Groups\):[[:space:]]*//p' /proc/$np/status 2>/dev/null | tr -s '\t\n' '  ')"
stop $np
fact "nonroot-exit $stopped"
show nonroot-out /tmp/a/nonroot.out
kill -TERM $hold 2>/dev/null
wait $hold
say "@@PHASE end $(cut -d' ' -f1 /proc/uptime)"
exit 0
