#!/usr/bin/env bash
# The Magisk module, off the phone: init/magisk/pack.sh makes a zip with
# the layout Magisk's guide asks for; its customize.sh, run the way
# Magisk's install_module runs it (sourced, with ui_print, abort and
# set_perm), accepts a binary for the device's ARCH and refuses another;
# its service.sh supervises tapd: restarts it after a failure with a
# doubling delay, passes it the database, log and pidfile under its data
# directory, and stops supervising after a clean exit.
set -u
build=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../init/magisk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $1: expected '$2', got '$3'"
	fi
}

# Any x86-64 ELF will do as "the binary": the host's tapd.
bin=$build/tapd
[ -f "$bin" ] || bin=/bin/true
zip=$tmp/out/tapd.zip
VERSION=9.9-test sh "$src/pack.sh" "$bin" "$zip" >/dev/null 2>"$tmp/pack.err"
check "pack.sh succeeds" 0 $?
list=$(unzip -Z1 "$zip" 2>/dev/null | grep -v '/$' | sort | tr '\n' ' ')
check "zip layout" "META-INF/com/google/android/update-binary META-INF/com/google/android/updater-script customize.sh module.prop service.sh system/bin/tapd " "$list"
check "updater-script" "#MAGISK" "$(unzip -p "$zip" META-INF/com/google/android/updater-script)"
check "the binary is packed as is" "$(cksum <"$bin")" \
	"$(unzip -p "$zip" system/bin/tapd | cksum)"

# module.prop, "the strict format": six keys, LF line ends, a valid id,
# an integer versionCode; VERSION replaced the version.
prop=$(unzip -p "$zip" module.prop)
check "module.prop keys" "id name version versionCode author description" \
	"$(echo "$prop" | sed -n 's/^\([A-Za-z]*\)=.*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
check "module.prop has no CR" 0 "$(echo "$prop" | grep -c $'\r')"
check "module.prop id" 1 "$(echo "$prop" | grep -cE '^id=[a-zA-Z][a-zA-Z0-9._-]+$')"
check "module.prop versionCode" 1 "$(echo "$prop" | grep -cE '^versionCode=[0-9]+$')"
check "module.prop version" "version=9.9-test" "$(echo "$prop" | grep '^version=')"

# install_module's part: extract, then source customize.sh with Magisk's
# helpers.  chcon does not exist here; ownership and modes are checked.
install() {
	local arch=$1 mod=$tmp/mod-$1
	rm -rf "$mod"
	mkdir -p "$mod"
	(cd "$mod" && unzip -q "$zip" -x 'META-INF/*') || return 9
	# The variables are customize.sh's, which is sourced below.
	# shellcheck disable=SC2034,SC2317
	(
		MODPATH=$mod
		ARCH=$arch
		API=34
		IS64BIT=true
		ui_print() { echo "$1"; }
		abort() {
			echo "$1"
			exit 1
		}
		set_perm() {
			chown "$2:$3" "$1" && chmod "$4" "$1"
		}
		set_perm_recursive() {
			find "$1" -type d | while read -r d; do set_perm "$d" "$2" "$3" "$4"; done
			find "$1" -type f | while read -r f; do set_perm "$f" "$2" "$3" "$5"; done
		}
		# shellcheck disable=SC1090,SC1091
		. "$mod/customize.sh"
	) >"$tmp/install-$arch.out" 2>&1
}
install x64
check "customize.sh accepts an x64 binary on x64" 0 $?
check "tapd is executable after install" 755 "$(stat -c %a "$tmp/mod-x64/system/bin/tapd")"
check "service.sh is executable after install" 755 "$(stat -c %a "$tmp/mod-x64/service.sh")"
check "module.prop mode after install" 644 "$(stat -c %a "$tmp/mod-x64/module.prop")"
install arm64
check "customize.sh refuses an x64 binary on arm64" 1 $?
check "it says why" 1 "$(grep -c 'built for x64, this device is arm64' "$tmp/install-arm64.out")"

# service.sh with a stand-in tapd that fails twice, then exits cleanly.
mod=$tmp/mod-x64
data=$tmp/data
mkdir -p "$tmp/stubs"
printf '#!/bin/sh\nexit 0\n' >"$tmp/stubs/resetprop"
chmod 755 "$tmp/stubs/resetprop"
cat >"$mod/system/bin/tapd" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/runs"
n=\$(wc -l <"$tmp/runs")
[ "\$n" -ge 3 ] && exit 0
exit 3
EOF
chmod 755 "$mod/system/bin/tapd"
start=$(date +%s)
PATH=$tmp/stubs:$PATH TAPD_DATA=$data sh "$mod/service.sh"
check "service.sh returns at once" 1 $(($(date +%s) - start <= 1))
for _ in $(seq 1 100); do
	grep -q 'stopped cleanly' "$data/service.log" 2>/dev/null && break
	sleep 0.1
done
check "tapd started three times" 3 "$(wc -l <"$tmp/runs" 2>/dev/null)"
check "restart delays double" "1s 2s" \
	"$(sed -n 's/.*restarting in \([0-9]*s\)$/\1/p' "$data/service.log" | tr '\n' ' ' | sed 's/ $//')"
check "supervision ends after a clean exit" 1 "$(grep -c 'stopped cleanly' "$data/service.log")"
check "tapd's arguments" "run --db $data/taps.db --listen 127.0.0.1:7878 --pidfile $data/tapd.pid --log-file $data/tapd.log" \
	"$(head -n 1 "$tmp/runs")"
check "data directory mode" 700 "$(stat -c %a "$data")"

echo "magisk: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
