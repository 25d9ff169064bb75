#!/bin/sh
# Magisk's side of a module's life, for the arm64 test VM (tests/vm/run.sh
# with VM_ARCH=arm64; tests/vm/android-root.sh runs it inside the VM).
# Magisk itself cannot run there (it needs Android's init and zygote), so
# this does what its scripts and daemon do, step by step, with BusyBox:
#
#   sh magisk-install.sh install ZIP
#       install_module of Magisk's util_functions.sh, as the Magisk app or
#       `magisk --install-module ZIP` run it on a booted phone
#       (BOOTMODE=true): the module goes to /data/adb/modules_update/ID
#       and only a stub (module.prop and the `update` flag) to
#       /data/adb/modules/ID.  Prints what the installer prints; exit 1
#       after an abort.
#   sh magisk-install.sh post-fs-data
#       the module part of the post-fs-data boot stage: upgrade_modules
#       (modules_update/ID replaces modules/ID, a `disable` flag of the
#       old module is kept), collect_modules (removes `update`, handles
#       `remove`, skips `disable`), then every enabled module's
#       post-fs-data.sh, one after another.
#   sh magisk-install.sh service
#       the late_start service stage: every enabled module's service.sh,
#       started with `busybox sh` and not waited for.
#
# The steps follow install_module, set_perm, set_perm_recursive,
# set_default_perm, mktouch, grep_prop and api_level_arch_detect of
# topjohnwu/Magisk's scripts/util_functions.sh and upgrade_modules,
# collect_modules and exec_module_scripts of native/src/core (module.rs,
# scripting.cpp).  What cannot be done in the VM is left out: SELinux
# contexts (chcon, when the VM has none), mounting partitions, the magic
# mount of system/ and the legacy install.sh path.
#
# The device is what getprop says (ro.product.cpu.abi, ro.build.version.sdk).

# The variables below are for customize.sh, which is sourced.
# shellcheck disable=SC2034,SC3037
umask 022
MODULEROOT_LIVE=/data/adb/modules
MODULEROOT_UPDATE=/data/adb/modules_update
MAGISKBIN=/data/adb/magisk
TMPDIR=/dev/tmp
OUTFD=1
# install_module's preset: a running zygote means a booted phone, which
# the VM plays; recovery (false) is not modelled.
BOOTMODE=${BOOTMODE:-true}

ui_print() {
	if $BOOTMODE; then
		echo "$1"
	else
		# shellcheck disable=SC3037
		echo -e "ui_print $1\nui_print" >>/proc/self/fd/$OUTFD
	fi
}

abort() {
	ui_print "$1"
	[ -n "$MODPATH" ] && rm -rf "$MODPATH"
	rm -rf "$TMPDIR"
	exit 1
}

# chcon fails where SELinux is off: a context is then nothing to set.
set_context() {
	if [ -e /sys/fs/selinux/enforce ] && command -v chcon >/dev/null 2>&1; then
		chcon "$1" "$2"
	fi
}

set_perm() {
	chown "$2:$3" "$1" || return 1
	chmod "$4" "$1" || return 1
	CON=$5
	[ -z "$CON" ] && CON=u:object_r:system_file:s0
	set_context "$CON" "$1" || return 1
}

set_perm_recursive() {
	find "$1" -type d 2>/dev/null | while read -r dir; do
		set_perm "$dir" "$2" "$3" "$4" "$6"
	done
	find "$1" -type f -o -type l 2>/dev/null | while read -r file; do
		set_perm "$file" "$2" "$3" "$5" "$6"
	done
}

set_default_perm() {
	set_perm_recursive "$1" 0 0 0755 0644
	[ -d "$1/system/bin" ] && set_perm_recursive "$1/system/bin" 0 2000 0755 0755
	[ -d "$1/system/xbin" ] && set_perm_recursive "$1/system/xbin" 0 2000 0755 0755
	[ -d "$1/system/system_ext/bin" ] &&
		set_perm_recursive "$1/system/system_ext/bin" 0 2000 0755 0755
	[ -d "$1/system/vendor/bin" ] &&
		set_perm_recursive "$1/system/vendor/bin" 0 2000 0755 0755 u:object_r:vendor_file:s0
	return 0
}

mktouch() {
	mkdir -p "${1%/*}" 2>/dev/null
	if [ -z "$2" ]; then
		touch "$1"
	else
		echo "$2" >"$1"
	fi
	chmod 644 "$1"
}

grep_prop() {
	REGEX="s/^$1=//p"
	shift
	FILES=$*
	[ -z "$FILES" ] && FILES='/system/build.prop'
	# shellcheck disable=SC2086
	cat $FILES 2>/dev/null | dos2unix | sed -n "$REGEX" | head -n 1
}

# Magisk reads build.prop first, then getprop; here the properties are
# getprop's alone.
grep_get_prop() {
	getprop "$1"
}

# shellcheck disable=SC2034
api_level_arch_detect() {
	API=$(grep_get_prop ro.build.version.sdk)
	ABI=$(grep_get_prop ro.product.cpu.abi)
	if [ "$ABI" = "x86" ]; then
		ARCH=x86
		ABI32=x86
		IS64BIT=false
	elif [ "$ABI" = "arm64-v8a" ]; then
		ARCH=arm64
		ABI32=armeabi-v7a
		IS64BIT=true
	elif [ "$ABI" = "x86_64" ]; then
		ARCH=x64
		ABI32=x86
		IS64BIT=true
	elif [ "$ABI" = "riscv64" ]; then
		ARCH=riscv64
		ABI32=""
		IS64BIT=true
	else
		ABI=armeabi-v7a
		ARCH=arm
		ABI32=armeabi-v7a
		IS64BIT=false
	fi
}

install_module() {
	rm -rf "$TMPDIR"
	mkdir -p "$TMPDIR"
	set_context u:object_r:system_file:s0 "$TMPDIR"
	cd "$TMPDIR" || abort "! Cannot enter $TMPDIR"
	api_level_arch_detect

	# Extract prop file
	unzip -o "$ZIPFILE" module.prop -d "$TMPDIR" >&2
	[ ! -f "$TMPDIR/module.prop" ] && abort "! This zip is not a Magisk module!"

	MODDIRNAME=modules
	$BOOTMODE && MODDIRNAME=modules_update
	MODULEROOT=/data/adb/$MODDIRNAME
	MODID=$(grep_prop id "$TMPDIR/module.prop")
	MODNAME=$(grep_prop name "$TMPDIR/module.prop")
	MODAUTH=$(grep_prop author "$TMPDIR/module.prop")
	# The Magisk app refuses a module without a valid id (guides.md: the
	# id must match this); util_functions.sh would use it as a path.
	if ! echo "$MODID" | grep -qE '^[a-zA-Z][a-zA-Z0-9._-]+$'; then
		MODPATH=""
		abort "! Invalid module id '$MODID' in module.prop"
	fi
	MODPATH=$MODULEROOT/$MODID

	# Create mod paths
	rm -rf "$MODPATH"
	mkdir -p "$MODPATH"
	set_context u:object_r:system_file:s0 "$MODPATH"

	ui_print "- Installing $MODNAME by $MODAUTH"
	if unzip -l "$ZIPFILE" 2>/dev/null | grep -q ' install\.sh$'; then
		abort "! The legacy install.sh path is not modelled"
	fi
	unzip -o "$ZIPFILE" customize.sh -d "$MODPATH" >&2
	if ! grep -q '^SKIPUNZIP=1$' "$MODPATH/customize.sh" 2>/dev/null; then
		ui_print "- Extracting module files"
		unzip -o "$ZIPFILE" -x 'META-INF/*' -d "$MODPATH" >&2
		# Default permissions
		set_default_perm "$MODPATH"
	fi
	# Load customization script: sourced, with every variable above.
	# shellcheck disable=SC1090,SC1091
	[ -f "$MODPATH/customize.sh" ] && . "$MODPATH/customize.sh"

	# Handle replace folders
	for TARGET in $REPLACE; do
		ui_print "- Replace target: $TARGET"
		mktouch "$MODPATH$TARGET/.replace"
	done

	if $BOOTMODE; then
		# Update info for Magisk app
		mktouch "$MODULEROOT_LIVE/$MODID/update"
		rm -rf "$MODULEROOT_LIVE/$MODID/remove" 2>/dev/null
		rm -rf "$MODULEROOT_LIVE/$MODID/disable" 2>/dev/null
		cp -af "$MODPATH/module.prop" "$MODULEROOT_LIVE/$MODID/module.prop"
	fi

	# Handle remove files
	for TARGET in $REMOVE; do
		ui_print "- Remove target: $TARGET"
		mkdir -p "$(dirname "$MODPATH$TARGET")"
		mknod "$MODPATH$TARGET" c 0 0
	done

	# Remove stuff that doesn't belong to modules and clean up any empty
	# directories
	rm -rf "$MODPATH/system/placeholder" "$MODPATH/customize.sh" \
		"$MODPATH/README.md" "$MODPATH"/.git*
	rmdir -p "$MODPATH" 2>/dev/null

	cd / || exit 1
	rm -rf "$TMPDIR"
	ui_print "- Done"
}

# upgrade_modules (module.rs): each module in modules_update replaces its
# old directory; "If the old module is disabled, we need to also disable
# the new one".
upgrade_modules() {
	[ -d "$MODULEROOT_UPDATE" ] || return 0
	mkdir -p "$MODULEROOT_LIVE"
	for dir in "$MODULEROOT_UPDATE"/*; do
		[ -d "$dir" ] || continue
		id=${dir##*/}
		disabled=false
		[ -e "$MODULEROOT_LIVE/$id/disable" ] && disabled=true
		echo "- Upgrade / New module: $id"
		rm -rf "${MODULEROOT_LIVE:?}/$id"
		mv "$dir" "$MODULEROOT_LIVE/$id" || echo "! cannot move $dir into place"
		$disabled && touch "$MODULEROOT_LIVE/$id/disable"
	done
	rm -rf "$MODULEROOT_UPDATE"
}

# collect_modules (module.rs): prints the ids of the enabled modules, after
# removing the ones marked for removal and the `update` flags.
collect_modules() {
	for dir in "$MODULEROOT_LIVE"/*; do
		[ -d "$dir" ] || continue
		if [ -e "$dir/remove" ]; then
			[ -f "$dir/uninstall.sh" ] && (cd / && sh "$dir/uninstall.sh")
			rm -rf "$dir"
			continue
		fi
		rm -f "$dir/update"
		[ -e "$dir/disable" ] && continue
		echo "${dir##*/}"
	done
}

# The scripts' environment (set_script_env): Magisk's busybox in
# standalone mode, and Magisk's tools (resetprop) on the PATH.
script_env() {
	export ASH_STANDALONE=1
	export PATH="${PATH:-/system/bin}:${MAGISKTMP:-/debug_ramdisk}"
}

case "${1:-}" in
install)
	[ $# -eq 2 ] || {
		echo "usage: magisk-install.sh install ZIP" >&2
		exit 2
	}
	if [ "$(id -u)" != 0 ]; then
		echo "Run this command with root" >&2
		exit 1
	fi
	case "$2" in
	/*) ZIPFILE=$2 ;;
	*) ZIPFILE=$(pwd)/$2 ;;
	esac
	MODPATH=""
	install_module
	exit 0
	;;
post-fs-data)
	upgrade_modules
	script_env
	for id in $(collect_modules); do
		s=$MODULEROOT_LIVE/$id/post-fs-data.sh
		[ -f "$s" ] || continue
		echo "- $id: post-fs-data.sh"
		(cd / && busybox sh "$s")
	done
	;;
service)
	script_env
	for id in $(collect_modules); do
		s=$MODULEROOT_LIVE/$id/service.sh
		[ -f "$s" ] || continue
		echo "- $id: service.sh"
		# Not waited for (fork_dont_care): a grandchild of ours, so
		# nobody here holds it, with Magisk's daemon stdio.
		(cd / && busybox sh "$s" </dev/null >/dev/null 2>&1 &)
	done
	;;
*)
	echo "usage: magisk-install.sh install ZIP | post-fs-data | service" >&2
	exit 2
	;;
esac
