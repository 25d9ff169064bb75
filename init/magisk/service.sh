#!/system/bin/sh
# Run by Magisk in late_start service mode (non-blocking, in Magisk's
# busybox ash, as root in the u:r:magisk:s0 domain, which may read
# /dev/input, /proc and run dumpsys and perfetto).
#
# Magisk starts this script once per boot and does not watch what it
# started, so the script supervises tapd itself: `tapd run` stays in the
# foreground, and when it fails (exits non-zero or is killed) it is started
# again after a delay that doubles with each quick failure, from 1 s up to
# 5 minutes, so a daemon that cannot start never spins.  A clean exit (a
# SIGTERM: `kill $(cat /data/adb/tapd/tapd.pid)`) ends the supervision
# until the next boot.
#
# Everything tapd keeps is in /data/adb/tapd: taps.db (the database, with
# its -wal and -shm files), tapd.log (its log; kept under 4 MiB, one old
# copy as tapd.log.1), service.log (this script's restarts, and what tapd
# prints on stdout and stderr) and tapd.pid.
MODDIR=${0%/*}
# TAPD_DATA is for tests/vm/magisk.sh only; Magisk never sets it.
DATA=${TAPD_DATA:-/data/adb/tapd}
TAPD=$MODDIR/system/bin/tapd

mkdir -p $DATA
chmod 0700 $DATA

supervise() {
	delay=1
	while :; do
		if [ -f "$MODDIR/disable" ] || [ -f "$MODDIR/remove" ]; then
			break
		fi
		if [ -f $DATA/tapd.log ] &&
			[ "$(wc -c <$DATA/tapd.log)" -gt 4194304 ]; then
			mv -f $DATA/tapd.log $DATA/tapd.log.1
		fi
		started=$(date +%s)
		"$TAPD" run --db $DATA/taps.db --listen 127.0.0.1:7878 \
			--pidfile $DATA/tapd.pid --log-file $DATA/tapd.log \
			</dev/null >>$DATA/service.log 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "$(date) tapd stopped cleanly; not restarting" \
				>>$DATA/service.log
			break
		fi
		# A run that lasted a while was not a crash loop.
		if [ $(($(date +%s) - started)) -ge 60 ]; then
			delay=1
		fi
		echo "$(date) tapd exited with status $rc; restarting in ${delay}s" \
			>>$DATA/service.log
		sleep $delay
		delay=$((delay * 2))
		[ $delay -gt 300 ] && delay=300
	done
}

# Wait for the boot to finish: dumpsys, perfetto and the top-app cpuset
# are only there then.  tapd would cope (its sources report "down" and
# retry), but the first minutes of its health would be noise.
(
	resetprop -w sys.boot_completed 0 ||
		until [ "$(getprop sys.boot_completed)" = 1 ]; do sleep 2; done
	supervise
) </dev/null >/dev/null 2>&1 &
