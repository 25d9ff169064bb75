#!/usr/bin/env bash
# The arm64 tapd and tapctl answer as the native ones do: the whole of
# tests/e2e/api_stats.sh (a simulated session replayed, then `tapd serve`
# over real HTTP: every percentile, count and histogram of every app
# checked against the nearest ranks computed from the session's truth)
# and of tests/e2e/tapctl.sh (every tapctl command's tables, JSON and exit
# codes), run with the static arm64-v8a binaries under qemu-aarch64 as
# the tapd and tapctl under test.
#
# Environment: BUILD (build), ANDROID_API_ABI (arm64-v8a).
set -u
build=${BUILD:-build}
abi=${ANDROID_API_ABI:-arm64-v8a}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../android/abi.sh"
NAME=android-api-$abi
pass=0
fail=0
. "$here/../e2e/lib/report.sh"
abi_set "$abi" || { ko "unknown ABI '$abi'"; finish; }
command -v "$abi_qemu" >/dev/null 2>&1 ||
	{ ko "'$abi_qemu' is missing: run make deps"; finish; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-android-api.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# Each runner must be one executable: a two-line script around qemu.
for b in tapd tapctl; do
	bin=$build/android/$abi/$b
	[ -x "$bin" ] || { ko "'$bin' is missing: run make android"; finish; }
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$abi_qemu" "$(cd "$(dirname "$bin")" && pwd)/$b" \
		>"$work/$b"
	chmod 755 "$work/$b"
done
check "the tapctl under test is the $abi build" "tapctl" \
	"$("$work/tapctl" --version 2>&1 | cut -d' ' -f1)"

# Each script's closing line gives its counts, which are added to these.
for t in api_stats tapctl; do
	TAPD_UNDER_TEST=$work/tapd TAPCTL_UNDER_TEST=$work/tapctl BUILD=$build \
		bash "$here/../e2e/$t.sh" >"$work/$t.out" 2>&1
	rc=$?
	sed 's/^/  /' "$work/$t.out"
	line=$(sed -n "s/^$t: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$work/$t.out" | tail -n 1)
	if [ -z "$line" ]; then
		ko "$t.sh with the $abi binaries printed no summary (exit $rc)"
		continue
	fi
	pass=$((pass + ${line% *}))
	fail=$((fail + ${line#* }))
	[ "$rc" -eq 0 ] || [ "${line#* }" -ne 0 ] || ko "$t.sh exited $rc"
done
finish
