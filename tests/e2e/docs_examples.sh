#!/usr/bin/env bash
# The documentation kept true: every example command of docs/tapd.8,
# docs/tapctl.1 and README.md (tests/e2e/lib/doc_examples.py lists them)
# runs against a replayed simulator session and exits 0, as the examples
# promise; and every message they quote ("tapd: ..." or "tapctl: ...",
# "..." standing for any text) is a line one of the binaries prints in
# the runs below, each of which provokes one of them.
#
# How an example is run: in a scratch directory holding what the
# examples name (rec/ and DIR, a recorded session; touch.log, its input
# as 'getevent -lt' of /dev/input/event2; device.json; token and
# ~/.tapd-token, a token), with tapd and tapctl of the build first in
# PATH.  The examples' 127.0.0.1:7878 is a paced replay of the session
# serving its API (TAPD_URL points there too, so a bare "tapctl apps"
# reaches it), their 10.0.0.7:7878 a tapd serve of it that requires the
# token.  A command that starts a server (tapd serve, tapd replay
# --listen) listens on port 0 instead of 7878, so that nothing else on
# the machine is in its way, must say where it listens, and must exit 0
# on SIGTERM; tapctl tail must exit 0 on SIGINT.  Skipped, and counted:
# what needs a phone or another machine (adb, tapd run), the build
# itself (make: make_run.sh checks make run), and synopses ("[...]").
# Run from the repository root; BUILD names the build directory (default
# build).  Ends with "docs_examples: N passed, N failed, N skipped".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
TAPCTL="$BUILD/tapctl"
SIM="$BUILD/tapd-sim"

NAME=docs_examples
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$TAPCTL" "$SIM"
need_tools python3 curl jq timeout

skipped=0
skip() {
	skipped=$((skipped + 1))
	echo "skip $*"
}
done_() {
	echo "$NAME: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
	exit
}

root=$(pwd)
work_dir docs
ex="$work/ex"
mkdir -p "$ex/bin"
ln -s "$root/$TAPD" "$ex/bin/tapd"
ln -s "$root/$TAPCTL" "$ex/bin/tapctl"
if ! "$SIM" gen --scenario long --seed 2 --duration 60 --out "$ex/rec" \
	>"$work/gen.log" 2>&1; then
	ko "tapd-sim gen failed" "$(cat "$work/gen.log")"
	done_
fi
ln -s rec "$ex/DIR"
cp "$ex/rec/device.json" "$ex/device.json"
# The recording a README reader is handed.
tar -czf "$ex/rec.tgz" -C "$ex" rec
sed 's|^\(\[ *[0-9.]*\]\) |\1 /dev/input/event2: |' "$ex/rec/input.getevent" \
	>"$ex/touch.log"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$ex/token"
chmod 600 "$ex/token"
cp "$ex/token" "$ex/.tapd-token"

# The examples' servers.
if ! start_server "$work/main.out" "$TAPD" replay --session "$ex/rec" \
	--db "$work/main.db" --listen 127.0.0.1:0 --pace 1000; then
	ko "the replay serving the examples did not start" \
		"$(cat "$work/main.out.err")"
	done_
fi
main_url=$url
for _ in $(seq 300); do
	grep -q '^stored' "$work/main.out" && break
	sleep 0.1
done
holds "the examples' replay is done" grep -q '^stored' "$work/main.out"
if ! start_server "$work/tok.out" "$TAPD" serve --db "$work/main.db" \
	--listen 127.0.0.1:0 --token-file "$ex/token"; then
	ko "the serve with a token did not start" "$(cat "$work/tok.out.err")"
	done_
fi
tok_url=$url

# run_example WHERE COMMAND: runs one example as the header says.
n=0
run_example() {
	local where=$1 cmd=$2 out rc
	n=$((n + 1))
	out="$work/ex$n"
	case $cmd in
	adb\ * | *\ adb\ * | *'(adb '*) skip "$where: needs a phone: $cmd"; return ;;
	tapctl\ *\ tap\ * | 'tapctl tap '* | tapctl\ *swipe\ * | tapctl\ *press\ * | tapctl\ *\ run\ *)
		skip "$where: injects into a phone's touch screen: $cmd"
		return
		;;
	'tapctl devices'* | 'tapctl --all'* | 'tapctl --serial'*)
		skip "$where: needs adb and a phone: $cmd"
		return
		;;
	make\ *) skip "$where: the build itself: $cmd"; return ;;
	*' ['*) skip "$where: a synopsis: $cmd"; return ;;
	tapd\ run* | *'/data/'*) skip "$where: needs a phone: $cmd"; return ;;
	esac
	cmd=${cmd//http:\/\/127.0.0.1:7878/$main_url}
	cmd=${cmd//http:\/\/10.0.0.7:7878/$tok_url}
	case $cmd in
	'tapd serve '* | 'tapd replay '*--listen*)
		cmd=${cmd//:7878/:0}
		case $cmd in *--listen*) ;; *) cmd="$cmd --listen 127.0.0.1:0" ;; esac
		# start_server must run in this shell to wait for the server.
		cd "$ex" || return
		HOME=$ex PATH="$ex/bin:$PATH" start_server "$out" bash -c "exec $cmd"
		rc=$?
		cd "$root" || return
		if [ "$rc" != 0 ]; then
			ko "$where: '$2' did not listen" "$(head -c 600 "$out.err")"
			return
		fi
		stop_server "$pid" 30
		check "$where: '$2' listens, exits 0 on SIGTERM" 0 "$status"
		return
		;;
	'tapctl tail'*)
		(cd "$ex" && HOME=$ex TAPD_URL=$main_url PATH="$ex/bin:$PATH" \
			timeout -s INT --preserve-status 2 bash -c "$cmd") \
			>"$out" 2>"$out.err"
		check "$where: '$2' exits 0 on SIGINT" 0 "$?"
		return
		;;
	esac
	(cd "$ex" && HOME=$ex TAPD_URL=$main_url PATH="$ex/bin:$PATH" \
		timeout 120 bash -c "set -o pipefail; $cmd") >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" = 0 ]; then
		ok "$where: '$2': exit 0"
	else
		ko "$where: '$2': exit $rc, want 0" "$(head -c 600 "$out.err")"
	fi
}

python3 "$(dirname "$0")/lib/doc_examples.py" docs/tapd.8 docs/tapctl.1 \
	README.md >"$work/items" || ko "doc_examples.py failed"
ncmd=$(awk -F'\t' '$2 == "cmd"' "$work/items" | wc -l)
nmsg=$(awk -F'\t' '$2 == "msg"' "$work/items" | wc -l)
# Too few would mean the extraction broke, not that the docs are right.
if [ "$ncmd" -ge 20 ] && [ "$nmsg" -ge 2 ]; then
	ok "$ncmd example commands and $nmsg quoted messages found"
else
	ko "only $ncmd example commands and $nmsg quoted messages found"
fi
while IFS=$'\t' read -r where kind text; do
	[ "$kind" = cmd ] && run_example "$where" "$text" </dev/null
done <"$work/items"

# ---- messages: what the binaries print, provoked ----
corpus="$work/corpus"
: >"$corpus"
provoke() {
	(cd "$ex" && HOME=$ex TAPD_URL=$main_url PATH="$ex/bin:$PATH" \
		timeout 30 "$@") >/dev/null 2>>"$corpus"
}
if start_server "$work/gone.out" "$TAPD" serve --db "$work/main.db" \
	--listen 127.0.0.1:0; then
	gone=$url
	stop_server "$pid"
	provoke tapctl --url "$gone" health
fi
provoke tapctl percentiles --metric bogus
provoke tapctl --url "$tok_url" apps
provoke tapctl apps --bogus
provoke tapctl session
provoke tapctl trace -o /nonexistent/dir/t.json
provoke tapd replay --input getevent:/nonexistent/input.getevent --db x.db
provoke tapd replay --session rec --db /nonexistent/x.db
provoke tapd replay --bogus
provoke tapd version
provoke tapd serve --db "$work/main.db" --listen "${main_url#http://}"
# A URL's port is the run's: any port matches.
sed -E 's|127\.0\.0\.1:[0-9]+|127.0.0.1:PORT|g' "$corpus" \
	>"$corpus.norm"
while IFS=$'\t' read -r where kind text; do
	[ "$kind" = msg ] || continue
	want=$(sed -E 's|127\.0\.0\.1:[0-9]+|127.0.0.1:PORT|g' <<<"$text")
	if python3 - "$want" "$corpus.norm" <<'PY'; then
import re, sys
want, path = sys.argv[1], sys.argv[2]
pat = "^" + ".*".join(re.escape(p) for p in want.split("...")) + "$"
lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
sys.exit(0 if any(re.match(pat, l) for l in lines) else 1)
PY
		ok "$where: '$text' is printed"
	else
		ko "$where: '$text' is printed by none of the runs" \
			"$(cat "$corpus")"
	fi
done <"$work/items"
done_
