# Sourced by Magisk's module installer (META-INF/com/google/android/
# update-binary) after it has extracted the module into $MODPATH.  It may
# use ui_print, abort, set_perm and set_perm_recursive, and the variables
# MODPATH, ARCH (arm, arm64, x86, x64), IS64BIT and API.

ui_print "- tapd: tap response time daemon"

# The binary must match the phone: read e_machine from its ELF header
# (offset 18, little-endian) instead of finding out at the first boot.
machine=$(od -An -tx1 -j18 -N2 "$MODPATH/system/bin/tapd" 2>/dev/null |
	tr -d ' \n')
case "$machine" in
b700) built=arm64 ;;
2800) built=arm ;;
3e00) built=x64 ;;
0300) built=x86 ;;
*) built=unknown ;;
esac
if [ "$built" != "$ARCH" ]; then
	abort "! tapd in this zip is built for $built, this device is $ARCH"
fi

set_perm_recursive "$MODPATH" 0 0 0755 0644
set_perm "$MODPATH/system/bin/tapd" 0 0 0755
set_perm "$MODPATH/service.sh" 0 0 0755

ui_print "- installed for $ARCH, Android API $API"
ui_print "- tapd starts after the next reboot and keeps its"
ui_print "  database and log in /data/adb/tapd"
ui_print "- on your computer: adb forward tcp:7878 tcp:7878"
ui_print "  then: curl http://127.0.0.1:7878/v1/health"
