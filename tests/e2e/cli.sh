#!/usr/bin/env bash
# The command lines of tapd and tapctl as people use them: --help of
# every command (the commands read from each binary's own usage, so a new
# one is checked by itself) with a usage line, exit 0; one version for
# both; a usage error as one line and "try '... --help'", exit 2; an
# option word never taken as a value (tapctl session start --help starts
# no session); global options after the command; "--"; TAPD_TOKEN and
# --token-file; tapctl trace -o with the umask; the bash completion; the
# unknown app's one name and its filter on every endpoint that takes app.
# Against a replay that serves its API (it records sessions) and a tapd
# serve that requires a token.  Run from the repository root; BUILD names
# the build directory (default build).  Ends with "cli: N passed, N
# failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
TAPCTL="$BUILD/tapctl"
SIM="$BUILD/tapd-sim"

NAME=cli
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$TAPCTL" "$SIM"
need_tools jq sqlite3 curl

work_dir cli

# run BIN ARGS...: output in $work/out and $work/err, exit code in $rc.
run() {
	"$@" >"$work/out" 2>"$work/err" </dev/null
	rc=$?
}

# ---- --help of every command, and the versions ----
run "$TAPCTL" --help
check "tapctl --help: exit 0" 0 "$rc"
cmds=$(awk '/^commands:/ { c = 1; next } /^[^ ]/ { c = 0 } c && /^  [a-z]/ { print $1 }' \
	"$work/out")
holds "tapctl --help lists its commands" test "$(wc -w <<<"$cmds")" -ge 9
holds "tapctl --help gives the version" grep -q '^version: ' "$work/out"
for c in $cmds; do
	run "$TAPCTL" "$c" --help
	if [ "$rc" = 0 ] && head -n 1 "$work/out" |
		grep -q "^usage: tapctl \[GLOBAL OPTIONS\] $c\b"; then
		ok "tapctl $c --help: exit 0, a usage line"
	else
		ko "tapctl $c --help: exit $rc" "$(head -n 3 "$work/out" "$work/err")"
	fi
	run "$TAPCTL" help "$c"
	check "tapctl help $c: the same as --help" "$("$TAPCTL" "$c" --help)" \
		"$(cat "$work/out")"
done
run "$TAPD" --help
check "tapd --help: exit 0" 0 "$rc"
dcmds=$(awk '/^commands:/ { c = 1; next } /^[^ ]/ { c = 0 }
	c && /^  tapd/ { w = $2; gsub(/[][]/, "", w); print w }' "$work/out")
holds "tapd --help lists its commands" test "$(wc -w <<<"$dcmds")" -ge 4
for c in $dcmds; do
	run "$TAPD" "$c" --help
	if [ "$rc" = 0 ] && head -n 1 "$work/out" | grep -Eq "^usage: tapd (\[)?$c\b"; then
		ok "tapd $c --help: exit 0, a usage line"
	else
		ko "tapd $c --help: exit $rc" "$(head -n 3 "$work/out" "$work/err")"
	fi
done
v1=$("$TAPCTL" --version | sed -n 's/^tapctl //p')
v2=$("$TAPD" --version | sed -n 's/^tapd //p')
if [ -n "$v1" ] && [ "$v1" = "$v2" ]; then
	ok "tapctl --version = tapd --version ($v1)"
else
	ko "versions differ: tapctl '$v1', tapd '$v2'"
fi
check "tapd replay --version: the same" "tapd $v2" "$("$TAPD" replay --version)"

# ---- usage errors: one line, a hint, exit 2 ----
usage_error() {
	local name=$1 hint=$2
	shift 2
	run "$@"
	if [ "$rc" = 2 ] && [ "$(wc -l <"$work/err")" = 2 ] &&
		head -n 1 "$work/err" | grep -Eq '^(tapd|tapctl): error: ' &&
		[ "$(sed -n 2p "$work/err")" = "try '$hint'" ]; then
		ok "$name: exit 2, one line and \"try '$hint'\""
	else
		ko "$name: exit $rc" "$(cat "$work/err")"
	fi
}
usage_error "tapd version" "tapd --help" "$TAPD" version
usage_error "tapd -V" "tapd run --help" "$TAPD" -V
usage_error "tapd replay --bogus" "tapd replay --help" "$TAPD" replay --bogus
usage_error "tapd replay --db --pace 2" "tapd replay --help" \
	"$TAPD" replay --db --pace 2
usage_error "tapd serve without --db" "tapd serve --help" "$TAPD" serve
usage_error "tapctl apps --bogus" "tapctl apps --help" "$TAPCTL" apps --bogus
usage_error "tapctl taps --app --json" "tapctl taps --help" \
	"$TAPCTL" taps --app --json
usage_error "tapctl frob" "tapctl --help" "$TAPCTL" frob
usage_error "tapctl completion fish" "tapctl completion --help" \
	"$TAPCTL" completion fish
run "$TAPD" replay --input getevent:"$work/nope/input.getevent" --db "$work/x.db"
check "a missing input: exit 1" 1 "$rc"
check "a missing input: the line starts with tapd: error:" \
	"tapd: error: cannot open '$work/nope/input.getevent': No such file or directory" \
	"$(cat "$work/err")"

# ---- against a server ----
if ! "$SIM" gen --scenario long --seed 5 --duration 40 --out "$work/sim" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	finish
fi
run "$TAPD" replay --db "$work/nope/x.db" --session "$work/sim"
check "a database that cannot be opened: named, no SQLite internals" \
	"tapd: error: cannot open database '$work/nope/x.db': unable to open database file" \
	"$(cat "$work/err")"
db="$work/rec.db"
if ! start_server "$work/rep.out" "$TAPD" replay --session "$work/sim" \
	--db "$db" --listen 127.0.0.1:0; then
	ko "the replay did not start" "$(cat "$work/rep.out.err")"
	finish
fi
rurl=$url
for _ in $(seq 300); do
	grep -q '^stored' "$work/rep.out" && break
	sleep 0.1
done
export TAPD_URL=$rurl
run "$TAPCTL" session start --help
check "session start --help: exit 0" 0 "$rc"
holds "session start --help: the help of session" \
	grep -q '^usage: tapctl \[GLOBAL OPTIONS\] session' "$work/out"
run "$TAPCTL" --json session list
check "session start --help started no session" 0 "$(jq '.sessions | length' "$work/out")"
run "$TAPCTL" session start -- --warm
check "session start -- --warm: exit 0" 0 "$rc"
run "$TAPCTL" session list --json
check "a global option after the command; '--' let the name start with '-'" \
	"--warm" "$(jq -r '.sessions[0].name' "$work/out")"
run "$TAPCTL" apps --json
check "tapctl apps --json: JSON" ms "$(jq -r .unit "$work/out" 2>/dev/null)"
run "$TAPCTL" apps
holds "tapctl apps: units in the header" \
	grep -q '^APP .*FIRST_P50_MS .*SETTLE_P99_MS' "$work/out"
# The replay summary: the same columns.
holds "the replay summary has the columns of tapctl apps" \
	grep -Eq "^APP +$(head -n 1 "$work/out" | awk '{ $1 = ""; print }' |
		sed 's/^ //; s/ \+/ +/g')\$" "$work/rep.out"

# trace -o: the mode any new file gets, under two umasks.
for mask in 022 077; do
	(umask "$mask" && "$TAPCTL" trace -o "$work/t$mask.json" >/dev/null 2>&1)
	check "trace -o under umask $mask: mode $(printf '%o' $((0666 & ~8#$mask)))" \
		"$(printf '%o' $((0666 & ~8#$mask)))" "$(stat -c %a "$work/t$mask.json")"
done

# The bash completion, from the table: commands, then a command's words.
comp() {
	bash -c 'source <("$0" completion bash) || exit 9
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tapctl
		printf "%s\n" "${COMPREPLY[@]}"' "$TAPCTL" "$@"
}
check "complete -p tapctl" "complete -F _tapctl tapctl" \
	"$(bash -c 'source <("$0" completion bash); complete -p tapctl' "$TAPCTL")"
check "completion: 'tapctl pe'" "percentiles" "$(comp tapctl pe)"
check "completion: 'tapctl --json session '" "list start stop" \
	"$(comp tapctl --json session "" | grep -v -- '^-' | sort | tr '\n' ' ' | sed 's/ $//')"
check "completion: 'tapctl taps --li'" "--limit" "$(comp tapctl taps --li)"
check "completion: every command" "$(echo $cmds | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"$(comp tapctl "" | grep -v -- '^-' | sort | tr '\n' ' ')"
holds "completion: zsh script defines _tapctl" grep -q '^compdef _tapctl tapctl' \
	<<<"$("$TAPCTL" completion zsh)"

# A token: --token-file, else TAPD_TOKEN; without, a 401 (exit 3).
printf 'sekrit-%s\n' "$RANDOM$RANDOM" >"$work/token"
chmod 600 "$work/token"
if start_server "$work/tok.out" "$TAPD" serve --db "$db" --listen 127.0.0.1:0 \
	--token-file "$work/token"; then
	run env -u TAPD_TOKEN "$TAPCTL" --url "$url" health
	check "no token: exit 3 (401)" 3 "$rc"
	run env TAPD_TOKEN="$(head -n 1 "$work/token")" "$TAPCTL" --url "$url" health
	check "TAPD_TOKEN: exit 0" 0 "$rc"
	run env -u TAPD_TOKEN "$TAPCTL" health --token-file "$work/token" --url "$url"
	check "--token-file after the command: exit 0" 0 "$rc"
	run env TAPD_TOKEN=wrong "$TAPCTL" --url "$url" --token-file "$work/token" health
	check "--token-file wins over TAPD_TOKEN" 0 "$rc"
fi

# ---- the unknown app: one name, and its filter ----
stop_server "$pid"
stop_servers
# Some of the taps lose their app, as taps nobody could attribute.
sqlite3 "$db" "UPDATE taps SET app = NULL WHERE id % 3 = 0" || ko "sqlite3 update"
if ! start_server "$work/serve.out" "$TAPD" serve --db "$db" --listen 127.0.0.1:0; then
	ko "tapd serve did not start" "$(cat "$work/serve.out.err")"
	finish
fi
q() { sqlite3 "$db" "$1"; }
g() { curl -sS --max-time 20 "$url$1"; }
n_unknown=$(q "SELECT count(*) FROM taps WHERE app IS NULL")
holds "some taps of no known app ($n_unknown)" test "$n_unknown" -gt 0
check "/v1/taps?app=unknown: those taps" "$n_unknown" \
	"$(g '/v1/taps?app=unknown&limit=10000' | jq '[.taps[] | select(.app == "unknown")] | length')"
check "/v1/taps?app=unknown: no other" "$n_unknown" \
	"$(g '/v1/taps?app=unknown&limit=10000' | jq '.taps | length')"
n_ok=$(q "SELECT count(*) FROM taps WHERE app IS NULL AND status = 'ok'
	AND kind IN ('tap', 'long_press')")
check "/v1/percentiles?app=unknown: their ok taps" "$n_ok unknown ms" \
	"$(g '/v1/percentiles?app=unknown&p=50' | jq -r '"\(.count) \(.app) \(.unit)"')"
check "/v1/histogram?app=unknown: their ok taps" "$n_ok unknown ms" \
	"$(g '/v1/histogram?app=unknown' | jq -r '"\([.buckets[].count] | add // 0) \(.app) \(.unit)"')"
check "/v1/series?app=unknown: their ok taps, the app named" "$n_ok unknown" \
	"$(g '/v1/series?app=unknown&p=50&step=1d&since=30d' | jq -r '"\([.points[].count] | add // 0) \(.app)"')"
check "/v1/apps?app=unknown: one entry of them all" "unknown $n_unknown" \
	"$(g '/v1/apps?app=unknown' | jq -r '.apps[] | "\(.app) \(.count)"')"
check "/v1/apps: the same entry among the others" "unknown $n_unknown" \
	"$(g '/v1/apps' | jq -r '.apps[] | select(.app == "unknown") | "\(.app) \(.count)"')"
check "/v1/taps CSV: unknown" "$n_unknown" \
	"$(g '/v1/taps?app=unknown&limit=10000&format=csv' | awk -F, 'NR > 1 && $2 == "unknown"' | wc -l)"
holds "/metrics: app=\"unknown\"" grep -q 'app="unknown"' <<<"$(g /metrics)"
run "$TAPCTL" --url "$url" apps
holds "tapctl apps: a row 'unknown'" grep -Eq "^unknown +$n_unknown " "$work/out"
finish
