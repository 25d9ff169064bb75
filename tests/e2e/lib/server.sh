# Sourced by the end-to-end scripts (bash): starting a tapd that serves
# the HTTP API, and stopping it.  tapd prints "listening on
# http://HOST:PORT" on its stdout once it accepts connections; tests
# always ask for port 0, so the kernel picks a free port and that line is
# the only way to learn it.
#
#   start_server OUT COMMAND...
#       Runs COMMAND in the background, its stdout in OUT and its stderr
#       in OUT.err, and waits up to 20 s for the "listening on" line.
#       Sets url (http://HOST:PORT), port and pid, and returns 0; returns
#       1 when COMMAND exits first or never says it listens.  It must run
#       in the script's own shell, not in $(...): only that shell can
#       wait for the server later.
#   stop_server PID [SECONDS]
#       SIGTERM, then waits up to SECONDS (5) for PID to exit.  Sets
#       status to its exit status, or to "timeout" (after a SIGKILL).
#   stop_servers
#       Stops every server started here that still runs.  It is the EXIT
#       trap this file installs; a script that needs its own trap calls it
#       from there.
#   work_dir LABEL
#       Makes the scratch directory work (tapd-LABEL.XXXXXX in TMPDIR) and
#       an EXIT trap that stops the servers, then removes it.  A script
#       with more to clean up writes its own trap instead.
#   serve_db DB
#       `tapd serve` (TAPD) of DB on a free loopback port, its output in
#       $work/serve.out; sets start_server's url, port and pid.  A server
#       that never says where it listens is one failure, with its stderr,
#       and the end of the script.
#   serve_session SCENARIO SEED SECONDS
#       A simulated session in $work/sim (tapd-sim gen), replayed into
#       $work/sim/taps.db (tapd replay) and served by `tapd serve` on a
#       free loopback port (serve_db); needs TAPD, SIM and work.  Sets dir
#       and db besides.  A step that fails is one
#       failure, with its output, and the end of the script: nothing after
#       it could be checked.

servers=()

start_server() {
	local out=$1 i line
	shift
	url=
	port=
	"$@" >"$out" 2>"$out.err" &
	pid=$!
	servers+=("$pid")
	for i in $(seq 1 200); do
		line=$(grep -m 1 '^listening on http://' "$out" 2>/dev/null)
		if [ -n "$line" ]; then
			url=${line#listening on }
			port=${url##*:}
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

stop_server() {
	local p=$1 i
	kill -TERM "$p" 2>/dev/null
	for i in $(seq 1 $((${2:-5} * 10))); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$p" 2>/dev/null; then
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		status=timeout
		return
	fi
	wait "$p"
	status=$?
}

stop_servers() {
	local p
	for p in "${servers[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${servers[@]}"; do
		wait "$p" 2>/dev/null
	done
}

work_dir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-$1.XXXXXX") || exit 1
	trap 'stop_servers; rm -rf "$work"' EXIT
}

serve_session() {
	dir="$work/sim"
	db="$dir/taps.db"
	if ! "$SIM" gen --scenario "$1" --seed "$2" --duration "$3" \
		--out "$dir" >"$work/gen.log" 2>&1; then
		ko "tapd-sim gen" "$(cat "$work/gen.log")"
		finish
	fi
	if ! "$TAPD" replay --session "$dir" --db "$db" \
		>"$work/replay.log" 2>&1; then
		ko "tapd replay" "$(cat "$work/replay.log")"
		finish
	fi
	serve_db "$db"
}

serve_db() {
	if ! start_server "$work/serve.out" "$TAPD" serve --db "$1" \
		--listen 127.0.0.1:0; then
		ko "tapd serve did not say where it listens" \
			"$(cat "$work/serve.out.err")"
		finish
	fi
}

trap stop_servers EXIT
