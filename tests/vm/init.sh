#!/bin/sh
# PID 1 of the real-kernel test VM (tests/vm/run.sh builds the initramfs
# and checks what this prints on the serial console).
#
# It loads the kernel's evdev and uinput modules, builds a fake Android
# sysroot for tapd's foreground tracking (/fakeroot: a top-app cpuset
# holding one app process, its /proc entries, and the real /dev/input bound
# in), starts `tapd run` with the simulator's fake dumpsys as its frame
# source (the taps model: frames answer the taps vmtest writes), lets
# vmtest play its gestures on a uinput touch screen, then asks tapd's API
# for what it stored and prints everything between "@@BEGIN name" and
# "@@END name" lines.  Then the injection part (tests/vm/inject.sh).
# Last, it stops tapd with SIGTERM and powers off.
#
# /etc/vmtest.conf (written by run.sh) sets MODE: "tapd" for the test,
# "alone" to run vmtest without tapd (to check the kernel side only);
# WATCHDOG, the seconds after which the VM gives up; and ANDROID=1 for the
# phone part that follows (tests/vm/android-root.sh, arm64 only).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
# The properties of the fake getprop and resetprop (tapd-sim), for every
# program the VM runs.
export TAPD_FAKE_PROPS=/etc/vmtest.props
/bin/busybox --install -s /bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /tmp /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
ifconfig lo 127.0.0.1 up

MODE=tapd
WATCHDOG=100
ANDROID=0
INJECT_REPEAT=20
[ -f /etc/vmtest.conf ] && . /etc/vmtest.conf

. /vm/lib.sh
. /vm/inject.sh

finish() {
	say "@@EXIT $1"
	sync
	poweroff -f
	sleep 10
}

# A watchdog: whatever hangs, the VM ends and the host sees why.
(sleep "$WATCHDOG" && say "@@TIMEOUT" && poweroff -f) &

say "@@BEGIN kernel"
say "$(uname -r) $(cat /proc/uptime)"
say "@@END kernel"

for m in $(cat /lib/modules/vmtest.order); do
	if ! insmod "/lib/modules/$m" 2>/dev/console; then
		say "@@ERROR cannot insmod $m"
		finish 1
	fi
done
if [ ! -c /dev/uinput ]; then
	say "@@ERROR no /dev/uinput after loading the modules"
	finish 1
fi

# The foreground app: pid 4242, alone in the top-app cpuset.  Its /proc
# entries are what Android's would be for an app process (the package as
# its cmdline, NUL-terminated; a stat line whose field 22 is the start
# time in clock ticks).
root=/fakeroot
app=com.vmtest.app
pid=4242
mkdir -p $root/dev/cpuset/top-app $root/dev/input $root/proc/$pid
echo $pid >$root/dev/cpuset/top-app/cgroup.procs
printf '%s\0' $app >$root/proc/$pid/cmdline
echo "${app#com.}" >$root/proc/$pid/comm
echo "$pid (${app#com.}) S 600 600 0 0 -1 1077952832 10000 0 0 0 500 200 0 0 10 -10 40 0 12345 4000000000 30000 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0" \
	>$root/proc/$pid/stat
printf 'Name:\t%s\nTgid:\t%s\nPid:\t%s\nPPid:\t600\nUid:\t10123\t10123\t10123\t10123\nGid:\t10123\t10123\t10123\t10123\n' \
	"${app#com.}" $pid $pid >$root/proc/$pid/status
echo 0 >$root/proc/$pid/oom_score_adj
# tapd opens /dev paths under the sysroot: the touch screens must be there.
mount -o bind /dev/input $root/dev/input

mkdir -p /tmp/vm/dumpsys /tmp/tapd
: >/tmp/vm/frames
# What dumpsys window says: the same app is in front.
printf '%s\n' "WINDOW MANAGER WINDOWS (dumpsys window windows)" \
	"  mCurrentFocus=Window{5d2c0e1 u0 $app/$app.MainActivity}" \
	"  mFocusedApp=ActivityRecord{8a1b3f2 u0 $app/.MainActivity t42}" \
	>/tmp/vm/dumpsys/window.out

# tapd_start LOG STDOUT SETTLE_MS [OPTION...]: tapd in the background,
# with the options after the third, its pid in tapd_pid.  Its dumpsys
# answers the taps of /tmp/vm/frames with frames of the app's layer; the phone part's tapd (android-root.sh) has no taps
# model, so the variables go to this one only.
tapd_start() {
	tlog=$1 tout=$2 tsettle=$3
	shift 3
	TAPD_FAKE_TAPS=/tmp/vm/frames \
		TAPD_FAKE_TAPS_LAYER="$app/$app.MainActivity#0" \
		TAPD_FAKE_DUMPSYS_DIR=/tmp/vm/dumpsys \
		/bin/tapd run --input evdev --frames latency \
		--dumpsys-bin /bin/dumpsys --getprop-bin /bin/getprop \
		--sysroot $root --db /tmp/tapd/taps.db \
		--listen 127.0.0.1:7878 --pidfile /run/tapd.pid \
		--log-file "$tlog" --settle-cap-ms "$tsettle" -v "$@" \
		>"$tout" 2>&1 &
	tapd_pid=$!
}

# listening OUT: waits up to 10 s for a server's "listening on" line in
# OUT.  What it then answers, or not, is what the host checks.
listening() {
	i=0
	while ! grep -q '^listening on' "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 200 ] && break
		sleep 0.05
	done
}

# The session the first run recorded beside measuring (--record), and its
# database, for the host to replay and compare row for row (run.sh,
# record_checks): a gzipped tar, in base64.
record_export() {
	say "@@BEGIN recording"
	(cd /tmp && tar -cz rec tapd/taps.db*) | base64 >/dev/console
	say "@@END recording"
}

tapd_pid=
if [ "$MODE" = tapd ]; then
	tapd_start /tmp/tapd/tapd.log /tmp/tapd/stdout 1000 --record /tmp/rec
	i=0
	while ! grep -q '^listening on http://127.0.0.1:7878' /tmp/tapd/stdout \
		/tmp/tapd/tapd.log 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! alive $tapd_pid; then
			say "@@ERROR tapd did not start"
			say "@@BEGIN tapd-log"
			cat /tmp/tapd/stdout /tmp/tapd/tapd.log >/dev/console 2>&1
			say "@@END tapd-log"
			finish 1
		fi
		sleep 0.05
	done
	i=0
	while [ "$(cat /run/tapd.pid 2>/dev/null)" != "$tapd_pid" ]; do
		i=$((i + 1))
		if [ $i -gt 40 ]; then
			say "@@ERROR the pidfile does not hold tapd's pid $tapd_pid"
			break
		fi
		sleep 0.05
	done
	vmtest --tapd-pid $tapd_pid --api-port 7878 --frames /tmp/vm/frames \
		>/tmp/vm/records 2>/tmp/vm/vmtest.err
	vrc=$?
	inject_refused_off 7878
else
	vmtest --frames /tmp/vm/frames >/tmp/vm/records 2>/tmp/vm/vmtest.err
	vrc=$?
fi
say "@@BEGIN vmtest"
cat /tmp/vm/records >/dev/console
say "@@END vmtest"
say "@@VMTEST-EXIT $vrc"
if [ -s /tmp/vm/vmtest.err ]; then
	say "@@BEGIN vmtest-stderr"
	cat /tmp/vm/vmtest.err >/dev/console
	say "@@END vmtest-stderr"
fi

if [ "$MODE" = tapd ]; then
	api=http://127.0.0.1:7878
	# Every gesture is stored once its response window has closed and the
	# frame source has passed it: wait for as many as vmtest played.
	want=$(grep -c '"seq":' /tmp/vm/records)
	i=0
	while :; do
		got=$(wget -q -O - "$api/v1/taps?limit=100" 2>/dev/null |
			grep -o '"t_up_ns"' | wc -l)
		[ "$got" -ge "$want" ] && break
		i=$((i + 1))
		[ $i -gt 150 ] && break
		sleep 0.1
	done
	# A moment more, so a phantom gesture finalized late is caught too.
	sleep 1
	say "@@BEGIN taps"
	wget -q -O - "$api/v1/taps?limit=100" >/dev/console 2>&1
	say ""
	say "@@END taps"
	say "@@BEGIN health"
	wget -q -O - "$api/v1/health" >/dev/console 2>&1
	say ""
	say "@@END health"
	stop $tapd_pid
	say "@@TAPD-EXIT $stopped"
	if [ -e /run/tapd.pid ]; then
		say "@@PIDFILE left"
	else
		say "@@PIDFILE removed"
	fi
	say "@@BEGIN tapd-log"
	cat /tmp/tapd/stdout >/dev/console 2>&1
	tail -n 400 /tmp/tapd/tapd.log >/dev/console 2>&1
	say "@@END tapd-log"
	record_export

	# A SIGTERM while a tap still waits for its response window: a new
	# run on the same database, one tap, stopped at once.  The tap must be
	# stored, as truncated; a read-only `tapd serve` shows what was kept.
	tapd_start /tmp/tapd/tapd2.log /tmp/tapd/stdout2 5000
	listening /tmp/tapd/stdout2
	vmtest --one-tap --tapd-pid $tapd_pid --api-port 7878 \
		--frames /tmp/vm/frames >/tmp/vm/records2 2>>/tmp/vm/vmtest.err
	say "@@VMTEST2-EXIT $?"
	stop $tapd_pid
	say "@@TAPD2-EXIT $stopped"
	say "@@BEGIN pending"
	cat /tmp/vm/records2 >/dev/console
	say "@@END pending"
	/bin/tapd serve --db /tmp/tapd/taps.db --listen 127.0.0.1:7879 \
		>/tmp/tapd/serve.out 2>&1 &
	serve_pid=$!
	listening /tmp/tapd/serve.out
	say "@@BEGIN pending-taps"
	wget -q -O - "http://127.0.0.1:7879/v1/taps?status=truncated" \
		>/dev/console 2>&1
	say ""
	say "@@END pending-taps"
	kill -TERM $serve_pid
	wait $serve_pid
	say "@@BEGIN tapd2-log"
	cat /tmp/tapd/stdout2 >/dev/console 2>&1
	tail -n 100 /tmp/tapd/tapd2.log >/dev/console 2>&1
	say "@@END tapd2-log"
	say "@@PHASE gestures-done $(cut -d' ' -f1 /proc/uptime)"
	inject_phase
	inject_uinput_phase
	if [ "$ANDROID" = 1 ]; then
		sh /vm/android-root.sh
		say "@@ANDROID-EXIT $?"
	fi
fi
finish 0
