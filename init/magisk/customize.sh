# Sourced by Magisk's module installer (install_module in its
# util_functions.sh), in Magisk's BusyBox ash, after it has extracted the
# zip into $MODPATH and set the default permissions.  It may use ui_print,
# abort, set_perm and set_perm_recursive, and the variables MODPATH, ARCH
# (arm64, arm, x64, x86, riscv64), ABI, IS64BIT, API and BOOTMODE.
#
# The zip holds static builds of tapd and tapctl for several Android ABIs,
# as abi/<ABI>/tapd and tapctl.  The phone's own pair becomes
# system/bin/tapd and tapctl (Magisk mounts the module's system/ over
# /system, so both are on the PATH of a root shell) and abi/ is deleted.
#
# A refusal goes through abort, which prints the line, deletes $MODPATH and
# exits, so nothing is left half installed; exit itself must not be called
# here.  This file runs inside install_module, so its own variables have a
# tapd_ prefix to leave the installer's alone.
#
# tapd's data (/data/adb/tapd: the database and logs) is not in $MODPATH
# and nothing here touches it, so it survives updates and reinstalls.

ui_print "- tapd: tap response time daemon"

# Magisk's ARCH names the phone's primary ABI; the ELF class, byte order
# and e_machine (little-endian) that its binaries must have come with it.
case "${ARCH:-}" in
arm64) tapd_abi=arm64-v8a tapd_elf=0201b700 ;;
arm) tapd_abi=armeabi-v7a tapd_elf=01012800 ;;
x64) tapd_abi=x86_64 tapd_elf=02013e00 ;;
x86) tapd_abi=x86 tapd_elf=01010300 ;;
*) tapd_abi="" tapd_elf="" ;;
esac

if [ -z "$tapd_abi" ] || [ ! -f "$MODPATH/abi/$tapd_abi/tapd" ] ||
	[ ! -f "$MODPATH/abi/$tapd_abi/tapctl" ]; then
	tapd_have=""
	for tapd_a in arm64-v8a armeabi-v7a x86_64 x86; do
		if [ -f "$MODPATH/abi/$tapd_a/tapd" ]; then
			tapd_have="$tapd_have $tapd_a"
		fi
	done
	abort "! tapd has no build for this device (${ARCH:-unknown}); this zip has:${tapd_have:- nothing}"
fi

# A zip packed by pack.sh has the right programs in each directory; this
# catches a zip damaged or put together by hand, at install rather than
# at the first boot.  od reads the ELF magic, class and byte order
# (offsets 0 to 5) and e_machine (offset 18).
for tapd_f in tapd tapctl; do
	tapd_h=$(od -An -v -tx1 -N20 "$MODPATH/abi/$tapd_abi/$tapd_f" 2>/dev/null |
		tr -d ' \n')
	tapd_h="$(echo "$tapd_h" | cut -c1-12)$(echo "$tapd_h" | cut -c37-40)"
	if [ "$tapd_h" != "7f454c46$tapd_elf" ]; then
		abort "! abi/$tapd_abi/$tapd_f in this zip is not a program for $tapd_abi: the zip is damaged"
	fi
done

mkdir -p "$MODPATH/system/bin" ||
	abort "! cannot create '$MODPATH/system/bin'"
mv -f "$MODPATH/abi/$tapd_abi/tapd" "$MODPATH/abi/$tapd_abi/tapctl" \
	"$MODPATH/system/bin/" ||
	abort "! cannot move tapd and tapctl into '$MODPATH/system/bin'"
rm -rf "$MODPATH/abi"

# What Magisk's set_default_perm does, now that system/bin exists: root's
# files, and system/bin owned by group shell (2000) like /system/bin.
set_perm_recursive "$MODPATH" 0 0 0755 0644
set_perm_recursive "$MODPATH/system/bin" 0 2000 0755 0755
set_perm "$MODPATH/service.sh" 0 0 0755

ui_print "- installed tapd and tapctl for $tapd_abi (Android API ${API:-?})"
ui_print "- tapd starts after the next reboot"
ui_print "- its data in /data/adb/tapd (database, logs) is kept:"
ui_print "  module updates and reinstalls leave it alone"
ui_print "- on your computer: adb forward tcp:7878 tcp:7878"
ui_print "  then: curl http://127.0.0.1:7878/v1/health"
unset tapd_abi tapd_elf tapd_f tapd_h
