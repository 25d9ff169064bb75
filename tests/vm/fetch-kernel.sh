#!/bin/sh
# Fetches what the real-kernel test boots, for one Debian architecture
# (amd64, the default, or arm64), from the machine's package mirror:
#
#   sh tests/vm/fetch-kernel.sh DIR [ARCH]
#       Debian's current kernel (the package linux-image-ARCH depends on),
#       of which only the kernel image, its config and the input drivers
#       (evdev.ko, uinput.ko and the rest of drivers/input) are kept, in
#       DIR/boot and DIR/lib/modules.
#   sh tests/vm/fetch-kernel.sh --busybox DIR ARCH
#       busybox-static:ARCH, as DIR/bin/busybox (for an architecture other
#       than the machine's, whose own busybox cannot run in the VM).
#
# Packages are downloaded with apt-get download and unpacked with dpkg-deb
# into DIR, so the machine's /boot and /lib/modules are never touched and
# no maintainer script or initramfs hook runs.  A foreign ARCH needs it
# added to dpkg (dpkg --add-architecture arm64; apt-get update).  Does
# nothing when DIR already holds what it would fetch.
set -eu
what=kernel
if [ "${1:-}" = --busybox ]; then
	what=busybox
	shift
fi
dir=${1:?usage: fetch-kernel.sh [--busybox] DIR [ARCH]}
arch=${2:-amd64}

case "$arch" in
amd64 | arm64) ;;
*)
	echo "fetch-kernel: unsupported architecture '$arch' (amd64, arm64)" >&2
	exit 1
	;;
esac

if [ "$what" = kernel ] && ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1; then
	exit 0
fi
if [ "$what" = busybox ] && [ -x "$dir/bin/busybox" ]; then
	exit 0
fi

# Package names carry the architecture, so a foreign one is asked for
# explicitly (linux-image-arm64:arm64).
native=$(dpkg --print-architecture)
q=""
[ "$arch" = "$native" ] || q=":$arch"

apt_update() {
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
}

# The name of the versioned package (linux-image-6.1.0-NN-ARCH) changes
# with each Debian kernel update, so it is resolved from the metapackage.
resolve() {
	apt-cache depends "linux-image-$arch$q" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*\)\(:[a-z0-9]*\)\{0,1\}$/\1/p' |
		head -n 1
}

if [ "$what" = kernel ]; then
	pkg=$(resolve)
	if [ -z "$pkg" ]; then
		# A fresh machine may have no package lists yet.
		apt_update
		pkg=$(resolve)
	fi
	if [ -z "$pkg" ]; then
		echo "fetch-kernel: cannot resolve the package linux-image-$arch$q depends on" >&2
		[ -n "$q" ] && echo "fetch-kernel: is $arch added (dpkg --add-architecture $arch)?" >&2
		exit 1
	fi
	pkg=$pkg$q
else
	pkg=busybox-static$q
	if ! apt-cache show "$pkg" >/dev/null 2>&1; then
		apt_update
	fi
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

if [ "$what" = busybox ]; then
	dpkg-deb -x "$deb" "$tmp/x"
	if [ ! -f "$tmp/x/bin/busybox" ]; then
		echo "fetch-kernel: no bin/busybox in '$deb'" >&2
		exit 1
	fi
	mkdir -p "$dir/bin"
	mv "$tmp/x/bin/busybox" "$dir/bin/busybox.tmp"
	chmod 755 "$dir/bin/busybox.tmp"
	mv "$dir/bin/busybox.tmp" "$dir/bin/busybox"
	echo "fetch-kernel: busybox ($arch) in $dir"
	exit 0
fi

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
