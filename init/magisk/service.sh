#!/system/bin/sh
# Run by Magisk in late_start service mode (non-blocking, in Magisk's
# busybox ash, as root in the u:r:magisk:s0 domain, which may read
# /dev/input, /proc and run dumpsys and perfetto).
#
# Magisk starts this script once per boot and does not watch what it
# started, so the script supervises tapd itself: it runs `tapd run` in the
# background and looks at it every second.  When tapd fails (exits
# non-zero or is killed) it is started again after a delay that doubles
# with each quick failure, from 1 s up to 5 minutes, so a daemon that
# cannot start never spins.  A clean exit (a SIGTERM:
# `kill $(cat /data/adb/tapd/tapd.pid)`) ends the supervision until the
# next boot.  So does switching the module off in the Magisk app (it
# creates $MODDIR/disable, or $MODDIR/remove): tapd gets a SIGTERM within
# a second or two and is not started again.  Magisk runs this script only
# at boot, so switching the module back on takes effect at the next boot.
#
# Everything tapd keeps is in /data/adb/tapd: taps.db (the database, with
# its -wal and -shm files), tapd.log (its log; kept under 4 MiB, one old
# copy as tapd.log.1), service.log (this script's restarts, and what tapd
# prints on stdout and stderr) and tapd.pid.
MODDIR=${0%/*}
# TAPD_DATA is for tests/vm/magisk.sh only; Magisk never sets it.
DATA=${TAPD_DATA:-/data/adb/tapd}
TAPD=$MODDIR/system/bin/tapd

mkdir -p "$DATA"
chmod 0700 "$DATA"

log() {
	echo "$(date) $*" >>"$DATA/service.log"
}

# Whether the module is switched off; sets $off to say how.
switched_off() {
	off=""
	if [ -f "$MODDIR/disable" ]; then
		off=disabled
	elif [ -f "$MODDIR/remove" ]; then
		off="marked for removal"
	fi
	[ -n "$off" ]
}

# Whether the child PID still runs.  kill -0 alone is not enough: it also
# succeeds for a child that has exited but that the shell has not reaped
# yet (a zombie; a shell reaps only while it waits for some command, and a
# BusyBox may run sleep without forking), so the state in /proc/PID/stat,
# after the command name in parentheses, tells the two apart.
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	st=${st##*) }
	case "$st" in
	Z* | X*) return 1 ;;
	esac
	return 0
}

# Stops the child PID: a SIGTERM, which tapd answers by finishing its
# writes and exiting, then a SIGKILL if it is still there 10 s later.
stop() {
	kill -TERM "$1" 2>/dev/null
	n=0
	while alive "$1" && [ $n -lt 10 ]; do
		sleep 1
		n=$((n + 1))
	done
	if alive "$1"; then
		kill -KILL "$1" 2>/dev/null
		log "tapd did not stop within 10 s of a SIGTERM; killed it"
	fi
	wait "$1"
}

supervise() {
	delay=1
	while :; do
		if switched_off; then
			log "module $off; not starting tapd"
			return
		fi
		if [ -f "$DATA/tapd.log" ] &&
			[ "$(wc -c <"$DATA/tapd.log")" -gt 4194304 ]; then
			mv -f "$DATA/tapd.log" "$DATA/tapd.log.1"
		fi
		started=$(date +%s)
		"$TAPD" run --db "$DATA/taps.db" --listen 127.0.0.1:7878 \
			--pidfile "$DATA/tapd.pid" --log-file "$DATA/tapd.log" \
			</dev/null >>"$DATA/service.log" 2>&1 &
		pid=$!
		while alive $pid; do
			if switched_off; then
				stop $pid
				log "module $off; tapd stopped"
				return
			fi
			sleep 1
		done
		# wait gives tapd's status even when the shell has already
		# reaped it: a shell keeps a child's status until it is waited
		# for.
		wait $pid
		rc=$?
		if [ $rc -eq 0 ]; then
			log "tapd stopped cleanly; not restarting"
			return
		fi
		# A run that lasted a while was not a crash loop.
		if [ $(($(date +%s) - started)) -ge 60 ]; then
			delay=1
		fi
		log "tapd exited with status $rc; restarting in ${delay}s"
		# The delay is slept a second at a time so that switching the
		# module off during it (it can be 5 minutes) ends the
		# supervision at once.
		n=0
		while [ $n -lt $delay ]; do
			if switched_off; then
				log "module $off; not restarting tapd"
				return
			fi
			sleep 1
			n=$((n + 1))
		done
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
