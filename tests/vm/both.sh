#!/usr/bin/env bash
# The two real-kernel tests side by side: tests/vm/arm64.sh and
# tests/vm/run.sh (x86_64) each boot one single-CPU qemu under software
# emulation, so on a machine of two cores they take the time of the
# longer one instead of the sum.  They share nothing on disk (build/vm
# and build/vm/arm64).  Each one's output is printed whole, the arm64
# one first, then one closing line adding up both:
# "vm-both: N passed, N failed, N injected".  Either failing, or ending
# without its summary line, fails this one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$here/arm64.sh" >"$work/arm64" 2>&1 &
arm_pid=$!
bash "$here/run.sh" >"$work/x86_64" 2>&1
x86_rc=$?
wait "$arm_pid"
arm_rc=$?

pass=0
fail=0
injected=0
for arch in arm64 x86_64; do
	cat "$work/$arch"
	line=$(sed -n 's/^vm[a-z0-9-]*: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) injected\)\{0,1\}$/\1 \2 \4/p' \
		"$work/$arch" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL the $arch VM test printed no summary line"
		fail=$((fail + 1))
		continue
	fi
	set -- $line
	pass=$((pass + $1))
	fail=$((fail + $2))
	injected=$((injected + ${3:-0}))
done
[ "$arm_rc" -eq 0 ] || { [ "$fail" -gt 0 ] || fail=$((fail + 1)); }
[ "$x86_rc" -eq 0 ] || { [ "$fail" -gt 0 ] || fail=$((fail + 1)); }
echo "vm-both: $pass passed, $fail failed, $injected injected"
[ "$fail" -eq 0 ]
