#!/usr/bin/env bash
# The unit tests cross-built for Android (make android builds them for
# the ABIs in ANDROID_TESTS: arm64-v8a and armeabi-v7a) run under
# qemu-user, each binary as the static executable the phone would run.
# The 32-bit ABI is the one that catches long, size_t and time_t
# assumptions.  Every cmocka count is added up per ABI; a binary that
# crashes or prints no summary is a failure.
#
# The ABIs run side by side (one qemu each: CI has two cores), each into
# its own output, printed in order once both are done.
#
# Environment: BUILD (build), ANDROID_TESTS (arm64-v8a armeabi-v7a).
set -u
build=${BUILD:-build}
abis=${ANDROID_TESTS:-arm64-v8a armeabi-v7a}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../android/abi.sh"
pass=0
fail=0
skip=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_abi ABI: every binary of ABI; its last line is "counts P F S".
run_abi() {
	local abi=$1 out=$work/$1.one fail=0 bins src t name rc p f s
	local apass=0 afail=0 askip=0 start
	abi_set "$abi" || { echo "FAIL unknown ABI '$abi'"; echo "counts 0 1 0"; return; }
	if ! command -v "$abi_qemu" >/dev/null 2>&1; then
		echo "FAIL '$abi_qemu' is missing: run make deps (qemu-user-static)"
		echo "counts 0 1 0"
		return
	fi
	# One binary for each test source: a missing one is a failure, and a
	# stale one left by a renamed test is not run.
	bins=""
	for src in tests/unit/test_*.c; do
		t=$build/android/$abi/obj/t/$(basename "$src" .c)
		if [ -x "$t" ]; then
			bins="$bins $t"
		else
			echo "FAIL $abi: no '$t': run make android"
			fail=$((fail + 1))
		fi
	done
	bins=${bins# }
	[ -n "$bins" ] || { echo "counts 0 $fail 0"; return; }
	start=$(date +%s)
	for t in $bins; do
		name=$(basename "$t")
		TAPD_TEST_EMULATED=1 timeout -k 5 600 "$abi_qemu" "$t" >"$out" 2>&1
		rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$out" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$out" | tail -n 1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s)[.,].*/\1/p' "$out" | tail -n 1)
		if [ -z "$p" ] && [ -z "$f" ]; then
			echo "FAIL $abi $name: no summary (exit $rc)"
			sed 's/^/    /' "$out" | tail -n 20
			afail=$((afail + 1))
			continue
		fi
		apass=$((apass + ${p:-0}))
		afail=$((afail + ${f:-0}))
		askip=$((askip + ${s:-0}))
		if [ "${f:-0}" -ne 0 ] || [ "$rc" -ne 0 ]; then
			[ "${f:-0}" -ne 0 ] || afail=$((afail + 1))
			echo "FAIL $abi $name (exit $rc):"
			grep -E '^\[  (ERROR|FAILED|LINE) ' "$out" | sed 's/^/    /'
		fi
		if [ "${s:-0}" -ne 0 ]; then
			echo "$abi $name: skipped:$(sed -n 's/^\[  SKIPPED \] \(test_[A-Za-z0-9_]*\)$/ \1/p' "$out" | sort -u | tr -d "\n")"
		fi
	done
	echo "$abi: $(echo "$bins" | wc -w) binaries under $abi_qemu in $(($(date +%s) - start)) s: $apass passed, $afail failed, $askip skipped"
	echo "counts $apass $((afail + fail)) $askip"
}

pids=""
for abi in $abis; do
	run_abi "$abi" >"$work/$abi.log" 2>&1 &
	pids="$pids $!"
done
for pid in $pids; do
	wait "$pid"
done
for abi in $abis; do
	line=$(tail -n 1 "$work/$abi.log")
	case $line in
	"counts "*) sed '$d' "$work/$abi.log" ;;
	*)
		cat "$work/$abi.log"
		echo "FAIL $abi: the run ended without its counts"
		line="counts 0 1 0"
		;;
	esac
	set -- $line
	pass=$((pass + $2))
	fail=$((fail + $3))
	skip=$((skip + $4))
done
echo "android-unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
