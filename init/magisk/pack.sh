#!/bin/sh
# Packs the Magisk module zip around a tapd binary built for the phone
# (an Android NDK build: arm64 for most phones).
#
#   sh init/magisk/pack.sh BINARY OUT.zip
#
# The zip holds what Magisk's guide asks of a module: module.prop,
# service.sh and customize.sh at the top, the binary as system/bin/tapd
# (Magisk mounts the module's system/ over /system, so `tapd` is also on
# the PATH of a root shell), and META-INF/com/google/android/update-binary
# and updater-script ("#MAGISK").  VERSION in the environment, when set,
# replaces module.prop's version.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: pack.sh BINARY OUT.zip" >&2
	exit 1
fi
bin=$1
out=$2
src=$(cd "$(dirname "$0")" && pwd)

if [ ! -f "$bin" ]; then
	echo "pack.sh: cannot read '$bin'" >&2
	exit 1
fi
if ! command -v zip >/dev/null 2>&1; then
	echo "pack.sh: 'zip' is missing (Debian package zip)" >&2
	exit 1
fi
# A binary linked for a glibc system cannot run on a phone: say so, but
# still pack it (the packaging can be tried with any binary).
if command -v readelf >/dev/null 2>&1; then
	interp=$(readelf -l "$bin" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \([^]]*\)].*/\1/p')
	case "$interp" in
	"" | /system/bin/linker | /system/bin/linker64) ;;
	*) echo "pack.sh: warning: '$bin' needs $interp: it will not run on Android" >&2 ;;
	esac
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod=$tmp/tapd
mkdir -p "$mod/system/bin" "$mod/META-INF/com/google/android"
if [ -n "${VERSION:-}" ]; then
	sed "s/^version=.*/version=$VERSION/" "$src/module.prop" >"$mod/module.prop"
else
	cp "$src/module.prop" "$mod/module.prop"
fi
cp "$src/service.sh" "$src/customize.sh" "$mod/"
cp "$src/META-INF/com/google/android/update-binary" \
	"$src/META-INF/com/google/android/updater-script" \
	"$mod/META-INF/com/google/android/"
cp "$bin" "$mod/system/bin/tapd"
chmod 755 "$mod/service.sh" "$mod/system/bin/tapd" \
	"$mod/META-INF/com/google/android/update-binary"
chmod 644 "$mod/module.prop" "$mod/customize.sh" \
	"$mod/META-INF/com/google/android/updater-script"

case "$out" in
/*) abs=$out ;;
*) abs=$(pwd)/$out ;;
esac
mkdir -p "$(dirname "$abs")"
rm -f "$abs"
(cd "$mod" && zip -q -r -X "$abs" META-INF module.prop service.sh \
	customize.sh system)
echo "pack.sh: $out"
