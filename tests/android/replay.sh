#!/usr/bin/env bash
# The Android builds replay exactly as the native one: the same sessions
# replayed by build/tapd and, under qemu-user, by the static tapd of each
# ABI in ANDROID_TESTS (arm64-v8a and the 32-bit armeabi-v7a) must store
# the same rows, column by column (every column of taps, and each run's
# mode, source and counters; only the runs' own start and end times are
# the wall clock of the replay), and the summary it prints.  The sessions:
# a simulated 3-minute session of several apps with FrameTimeline frames
# and every getevent capture in tests/fixtures/getevent, all given a
# clock anchor so that wall times are replayed too.
#
# Environment: BUILD (build), ANDROID_TESTS (arm64-v8a armeabi-v7a).
set -u
build=${BUILD:-build}
abis=${ANDROID_TESTS:-arm64-v8a armeabi-v7a}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../android/abi.sh"
NAME=android-replay
pass=0
fail=0
. "$here/../e2e/lib/report.sh"

for tool in sqlite3 jq; do
	command -v "$tool" >/dev/null 2>&1 || { ko "'$tool' is missing: run make deps"; finish; }
done
for bin in "$build/tapd" "$build/tapd-sim"; do
	[ -x "$bin" ] || { ko "'$bin' is missing: run make"; finish; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-android-replay.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The cases: NAME and the replay arguments.
cases=()
sess=$work/session
if "$build/tapd-sim" gen --scenario long --seed 3 --duration 180 \
	--out "$sess" >"$work/gen.log" 2>&1; then
	jq '.clock = {"realtime_ns": "1767225600000000000", "monotonic_ns": "1000000000"}' \
		"$sess/device.json" >"$work/device.json" &&
		mv "$work/device.json" "$sess/device.json"
	cases+=("sim-long|--session $sess")
else
	ko "tapd-sim gen"
	sed 's/^/    /' "$work/gen.log"
fi
echo '{"clock": {"realtime_ns": "1767225600000000000", "monotonic_ns": "1000000000"}}' \
	>"$work/clock.json"
# The real recordings of physical devices are read where the project's
# shared fixtures sit beside the checkout, when they do.
for f in tests/fixtures/getevent/*.getevent ../shared/fixtures/real/getevent/*.getevent \
	../shared/fixtures/real/getevent/*/*.txt; do
	[ -f "$f" ] || continue
	case "$f" in
	*README*) continue ;;
	esac
	cases+=("$(basename "$f" | sed 's/\.[a-z]*$//')|--input getevent:$f --device $work/clock.json")
done

# dump DB: every column of every row, in id order, then the runs.
dump() {
	sqlite3 -batch -noheader -separator '|' "$1" \
		"SELECT * FROM taps ORDER BY id;" \
		"SELECT id, mode, source, stats FROM runs ORDER BY id;" \
		"SELECT count(*) FROM taps;"
}

replay() { # OUT.db RUNNER... -- ARGS
	local db=$1
	shift
	# shellcheck disable=SC2086
	"$@" >"$db.out" 2>&1
	echo $? >"$db.rc"
}

for c in "${cases[@]}"; do
	name=${c%%|*}
	args=${c#*|}
	native=$work/$name-native.db
	# shellcheck disable=SC2086
	replay "$native" "$build/tapd" replay $args --db "$native"
	dump "$native" >"$native.rows" 2>&1 ||
		echo "(no database: $(tail -n 1 "$native.out"))" >"$native.rows"
	for abi in $abis; do
		abi_set "$abi" || { ko "unknown ABI '$abi'"; continue; }
		bin=$build/android/$abi/tapd
		if [ ! -x "$bin" ]; then
			ko "'$bin' is missing: run make android"
			continue
		fi
		db=$work/$name-$abi.db
		# shellcheck disable=SC2086
		replay "$db" "$abi_qemu" "$bin" replay $args --db "$db"
		check "$name on $abi: exit status as native" "$(cat "$native.rc")" "$(cat "$db.rc")"
		dump "$db" >"$db.rows" 2>&1 ||
			echo "(no database: $(tail -n 1 "$db.out"))" >"$db.rows"
		if cmp -s "$native.rows" "$db.rows"; then
			n=$(tail -n 1 "$db.rows")
			case "$n" in
			*[!0-9]*) n="the same refusal" ;;
			*) n="$n rows identical" ;;
			esac
			ok "$name on $abi: $n as native"
		else
			ko "$name on $abi: rows differ from native"
			diff "$native.rows" "$db.rows" | head -n 20 | sed 's/^/    /'
		fi
		# The summary tapd prints is the same too, but for the name of
		# the database.
		if diff <(sed "s|$native|DB|g" "$native.out") \
			<(sed "s|$db|DB|g" "$db.out") >"$db.diff"; then
			ok "$name on $abi: printed summary as native"
		else
			ko "$name on $abi: printed summary differs from native"
			head -n 20 "$db.diff" | sed 's/^/    /'
		fi
	done
done
# A session that stores nothing would make the comparisons above vacuous.
rows=$(tail -n 1 "$work/sim-long-native.db.rows" 2>/dev/null)
if [ "${rows:-0}" -ge 20 ]; then
	ok "the simulated session stored $rows taps"
else
	ko "the simulated session stored '${rows:-nothing}' taps (want at least 20)"
fi
finish
