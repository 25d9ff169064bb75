#!/bin/sh
# Packs the Magisk module zip around the static builds of tapd and tapctl
# for the Android ABIs (`make android`):
#
#   sh init/magisk/pack.sh ANDROID_DIR OUT.zip
#
# ANDROID_DIR holds one directory per ABI (arm64-v8a, armeabi-v7a, x86_64,
# x86), each with tapd and tapctl.  The zip holds what Magisk's guide asks
# of a module: module.prop, service.sh and customize.sh at the top, and
# META-INF/com/google/android/update-binary and updater-script ("#MAGISK");
# beside them every ABI found, as abi/<ABI>/tapd and abi/<ABI>/tapctl.  At
# install, customize.sh keeps the phone's own pair as system/bin/tapd and
# tapctl and deletes the rest.  VERSION in the environment, when set,
# replaces module.prop's version.
#
# It refuses a zip that would fail on a phone: no ABI at all, an ABI
# without both programs, a program built for another machine than its
# directory says, or one linked dynamically (the phone has no C library
# of ours to load).  A missing ABI is only a warning: the zip still
# installs on the others.
set -eu
abis="arm64-v8a armeabi-v7a x86_64 x86"

die() {
	echo "pack.sh: error: $*" >&2
	exit 1
}

if [ $# -ne 2 ]; then
	echo "usage: pack.sh ANDROID_DIR OUT.zip" >&2
	exit 1
fi
dir=$1
out=$2
src=$(cd "$(dirname "$0")" && pwd)

if ! command -v zip >/dev/null 2>&1; then
	die "cannot find 'zip' (Debian package zip)"
fi
[ -d "$dir" ] || die "cannot read directory '$dir' (run make android)"

# The unsigned little-endian integer of SIZE bytes at OFFSET in FILE, or
# nothing when the file is shorter.  od reads single bytes so that the
# host's byte order does not matter.
le() {
	od -An -v -tu1 -j"$2" -N"$3" "$1" 2>/dev/null |
		awk -v size="$3" '
			{ for (i = 1; i <= NF; i++) b[n++] = $i }
			END {
				if (n < size)
					exit
				v = 0
				for (i = size - 1; i >= 0; i--)
					v = v * 256 + b[i]
				printf "%.0f\n", v
			}'
}

# Checks that FILE is an ELF executable for ABI, linked statically: the
# ELF class and e_machine of the header must be the ABI's, and no program
# header may be a PT_INTERP (the dynamic loader a dynamic program names).
# This reads the headers itself rather than with readelf, so that it works
# the same where binutils are not installed.
check_elf() {
	f=$1
	abi=$2
	[ "$(od -An -tx1 -N4 "$f" 2>/dev/null | tr -d ' \n')" = 7f454c46 ] ||
		die "not an ELF file: '$f'"
	class=$(le "$f" 4 1)
	order=$(le "$f" 5 1)
	machine=$(le "$f" 18 2)
	case "$order:$class:$machine" in
	1:2:183) built=arm64-v8a ;;
	1:1:40) built=armeabi-v7a ;;
	1:2:62) built=x86_64 ;;
	1:1:3) built=x86 ;;
	*) built="e_machine ${machine:-?}, ELF class ${class:-?}" ;;
	esac
	[ "$built" = "$abi" ] ||
		die "wrong machine in '$f': it is built for $built, not $abi"
	if [ "$class" = 2 ]; then
		phoff=$(le "$f" 32 8)
		phentsize=$(le "$f" 54 2)
		phnum=$(le "$f" 56 2)
	else
		phoff=$(le "$f" 28 4)
		phentsize=$(le "$f" 42 2)
		phnum=$(le "$f" 44 2)
	fi
	# An offset of more than 12 digits is past the end of any real
	# program, and would overflow the shell's arithmetic below.
	if [ -z "$phoff" ] || [ "${#phoff}" -gt 12 ] || [ -z "$phnum" ] ||
		[ -z "$phentsize" ]; then
		die "truncated ELF header in '$f'"
	fi
	[ "$phnum" -eq 0 ] && return 0
	[ "$phentsize" -ge 8 ] || die "bad program header size in '$f'"
	# p_type is the first word of every program header.
	i=0
	while [ "$i" -lt "$phnum" ]; do
		type=$(le "$f" $((phoff + i * phentsize)) 4)
		[ -n "$type" ] || die "truncated program headers in '$f'"
		if [ "$type" = 3 ]; then
			# The loader's name, from p_offset, for the message.
			if [ "$class" = 2 ]; then
				at=$(le "$f" $((phoff + i * phentsize + 8)) 8)
			else
				at=$(le "$f" $((phoff + i * phentsize + 4)) 4)
			fi
			interp=$(dd if="$f" bs=1 skip="${at:-0}" count=256 2>/dev/null |
				tr '\000' '\n' | head -n 1 | tr -cd '[:graph:]')
			die "dynamically linked '$f' (it needs ${interp:-a loader}): Android needs a static build"
		fi
		i=$((i + 1))
	done
}

found=""
missing=""
for abi in $abis; do
	if [ ! -d "$dir/$abi" ]; then
		missing="$missing $abi"
		continue
	fi
	for prog in tapd tapctl; do
		[ -f "$dir/$abi/$prog" ] ||
			die "cannot find '$dir/$abi/$prog' (every ABI needs tapd and tapctl)"
		check_elf "$dir/$abi/$prog" "$abi"
	done
	found="$found $abi"
done
[ -n "$found" ] ||
	die "no build of tapd in '$dir' (looked for $abis: run make android)"
if [ -n "$missing" ]; then
	echo "pack.sh: warning: no build for${missing} in '$dir': the zip will not install on such phones" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod=$tmp/tapd
mkdir -p "$mod/META-INF/com/google/android"
if [ -n "${VERSION:-}" ]; then
	awk -v v="$VERSION" '/^version=/ { print "version=" v; next } { print }' \
		"$src/module.prop" >"$mod/module.prop"
else
	cp "$src/module.prop" "$mod/module.prop"
fi
cp "$src/service.sh" "$src/customize.sh" "$mod/"
cp "$src/META-INF/com/google/android/update-binary" \
	"$src/META-INF/com/google/android/updater-script" \
	"$mod/META-INF/com/google/android/"
chmod 755 "$mod/service.sh" "$mod/META-INF/com/google/android/update-binary"
chmod 644 "$mod/module.prop" "$mod/customize.sh" \
	"$mod/META-INF/com/google/android/updater-script"
# The zip's entries are named one by one, in a fixed order, rather than
# found by zip -r in whatever order the file system lists them: the same
# builds then give the same zip.
files="META-INF/com/google/android/update-binary
META-INF/com/google/android/updater-script module.prop service.sh customize.sh"
for abi in $found; do
	mkdir -p "$mod/abi/$abi"
	for prog in tapd tapctl; do
		cp "$dir/$abi/$prog" "$mod/abi/$abi/$prog"
		chmod 755 "$mod/abi/$abi/$prog"
		files="$files abi/$abi/$prog"
	done
done

case "$out" in
/*) abs=$out ;;
*) abs=$(pwd)/$out ;;
esac
mkdir -p "$(dirname "$abs")"
rm -f "$abs"
# shellcheck disable=SC2086 # $files is a list of names without spaces.
(cd "$mod" && zip -q -X "$abs" $files)
echo "pack.sh: $out"
