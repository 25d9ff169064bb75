#!/bin/sh
# Fetches Debian's current kernel (the package linux-image-amd64 depends on)
# and extracts only what the real-kernel test boots: the kernel image, its
# config, and the input drivers (evdev.ko, uinput.ko).  The package is
# downloaded with apt-get and unpacked with dpkg-deb into DIR, so the
# machine's /boot and /lib/modules are never touched and no initramfs hook
# runs.  Does nothing when DIR already holds a kernel.
#
#   sh tests/vm/fetch-kernel.sh DIR
set -eu
dir=${1:?usage: fetch-kernel.sh DIR}

if ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1; then
	exit 0
fi

# The name of the versioned package (linux-image-6.1.0-NN-amd64) changes
# with each Debian kernel update, so it is resolved from the metapackage.
resolve() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
}
pkg=$(resolve)
if [ -z "$pkg" ]; then
	# A fresh machine may have no package lists yet.
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
	echo "fetch-kernel: cannot resolve the package linux-image-amd64 depends on" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-kernel: downloading $pkg"
# apt-get download writes into the current directory; _apt may not be
# able to enter a private mktemp directory, which only costs a warning.
(cd "$tmp" && apt-get download -qq "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	echo "fetch-kernel: cannot download '$pkg'" >&2
	exit 1
fi
mkdir -p "$tmp/x"
dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*' './boot/config-*' \
		'./lib/modules/*/kernel/drivers/input/*' \
		'./lib/modules/*/modules.builtin' \
		'./lib/modules/*/modules.order'
if ! ls "$tmp"/x/boot/vmlinuz-* >/dev/null 2>&1; then
	echo "fetch-kernel: no kernel image in '$deb'" >&2
	exit 1
fi
mkdir -p "$dir"
rm -rf "${dir:?}/boot" "${dir:?}/lib"
mv "$tmp/x/boot" "$tmp/x/lib" "$dir/"
echo "fetch-kernel: $(basename "$dir"/boot/vmlinuz-*) in $dir"
