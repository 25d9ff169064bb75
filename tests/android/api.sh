#!/usr/bin/env bash
# The arm64 tapd answers the API as the native one does: the whole of
# tests/e2e/api_stats.sh (a simulated session replayed, then `tapd serve`
# over real HTTP: every percentile, count and histogram of every app
# checked against the nearest ranks computed from the session's truth)
# run with the static arm64-v8a tapd under qemu-aarch64 as the tapd under
# test, for both the replay and the server.
#
# Environment: BUILD (build), ANDROID_API_ABI (arm64-v8a).
set -u
build=${BUILD:-build}
abi=${ANDROID_API_ABI:-arm64-v8a}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../android/abi.sh"
name=android-api-$abi
if ! abi_set "$abi"; then
	echo "$name: unknown ABI '$abi'"
	echo "$name: 0 passed, 1 failed"
	exit 1
fi
bin=$(cd "$(dirname "$build/android/$abi/tapd")" 2>/dev/null && pwd)/tapd
if [ ! -x "$bin" ] || ! command -v "$abi_qemu" >/dev/null 2>&1; then
	echo "$name: '$build/android/$abi/tapd' or '$abi_qemu' is missing: run make deps android"
	echo "$name: 0 passed, 1 failed"
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tapd-android-api.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# The runner must be one executable: a two-line script around qemu.
printf '#!/bin/sh\nexec %s %s "$@"\n' "$abi_qemu" "$bin" >"$work/tapd"
chmod 755 "$work/tapd"
TAPD_UNDER_TEST=$work/tapd BUILD=$build bash "$here/../e2e/api_stats.sh" >"$work/out" 2>&1
rc=$?
# Its closing line, renamed, is this script's.
sed "s/^api_stats: \([0-9]* passed, [0-9]* failed\)$/$name: \1/" "$work/out"
exit $rc
