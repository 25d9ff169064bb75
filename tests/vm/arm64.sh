#!/usr/bin/env bash
# The real-kernel test on arm64: tests/vm/run.sh with VM_ARCH=arm64 (see
# there).  Debian's arm64 kernel under qemu-system-aarch64 with software
# emulation, the static arm64 builds of `make android`, the gestures of the
# x86_64 run, then the Magisk module of `make magisk` installed, booted and
# updated in an Android-shaped root, and tapd without root.  Its summary
# line is "vm-arm64: N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
VM_ARCH=arm64 exec bash "$here/run.sh" "$@"
