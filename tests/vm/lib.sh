#!/bin/sh
# What the scripts inside the test VM share (tests/vm/init.sh and
# tests/vm/android-root.sh source it; tests/vm/run.sh packs it as
# /vm/lib.sh).  Plain sh: the VM has busybox only.

say() {
	echo "$@" >/dev/console
}

# Whether PID runs.  A zombie does not: nobody reaps it until wait, and
# its /proc entry stays until then.
alive() {
	s=$(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# gone PID: waits up to 10 s for PID to end; false if it still runs.
gone() {
	i=0
	while alive "$1" && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	! alive "$1"
}

# stop PID: a SIGTERM, then up to 10 s for the child PID to end.  Sets
# stopped to its exit status, or to "hung" when it had to be killed; a
# variable, not output, because only this shell can wait for its child.
stop() {
	kill -TERM "$1" 2>/dev/null
	if gone "$1"; then
		wait "$1"
		stopped=$?
	else
		stopped=hung
		kill -KILL "$1"
	fi
}
