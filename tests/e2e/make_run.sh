#!/usr/bin/env bash
# make run is the demo of a fresh checkout: it builds and replays, and
# never fetches what only the tests need (the VM tests' Debian kernels
# and busybox, tests/vm/fetch-kernel.sh, which make check and the VM
# targets run).  make -n prints every command make run would run,
# recursive makes included, and runs none of them.  Run from the
# repository root.  Ends with "make_run: N passed, N failed".
set -u

NAME=make_run
. "$(dirname "$0")/lib/report.sh"

need_tools make

out=$(make -n run BUILD="${BUILD:-build}" 2>&1)
check "make -n run: exit 0" 0 $?
holds "make -n run replays the demo" grep -q 'tests/run-demo.sh' <<<"$out"
# The check above would catch a make -n that printed nothing; these
# would catch a kernel download, by its script or by its target.
check "make -n run: no kernel fetch" "" \
	"$(grep -E 'fetch-kernel|vmlinuz|linux-image|build/vm/' <<<"$out")"
check "make -n run: the vm-deps target is not made" "" \
	"$(grep -E 'vm-deps' <<<"$out")"
# And the same for make check, which must fetch it: the test can fail.
holds "make -n check fetches the kernel" grep -q 'fetch-kernel' \
	<<<"$(make -n check BUILD="${BUILD:-build}" 2>&1 | head -n 400)"
finish
