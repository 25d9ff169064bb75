#!/usr/bin/env bash
# The Magisk module, off the phone.  init/magisk/pack.sh makes a zip with
# the layout Magisk's guide asks for and the static tapd and tapctl of
# every Android ABI, and refuses the builds that could not run on a phone.
# Its customize.sh, run the way Magisk's install_module runs it (sourced
# in BusyBox ash, with stand-ins for Magisk's helpers), keeps the pair for
# the device's ARCH, refuses a device it has no build for without leaving
# anything behind, and never touches tapd's data directory.  Its
# service.sh supervises tapd: restarts it after a failure with a doubling
# delay, passes it the database, log and pidfile under its data
# directory, stops supervising after a clean exit, and stops tapd when the
# module is disabled.
#
# The real builds of `make android` (build/android/<ABI>/) are packed when
# they are there; otherwise small ELF files with the right headers stand
# in for them.
set -u
build=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../init/magisk
abis="arm64-v8a armeabi-v7a x86_64 x86"
tmp=$(mktemp -d)
pass=0
fail=0

# Whether PID runs; a zombie does not (an orphan's may wait a while for
# its reaper).
alive() {
	local st
	# kill -0 0 would ask about the whole process group.
	case "$1" in
	"" | 0 | *[!0-9]*) return 1 ;;
	esac
	kill -0 "$1" 2>/dev/null || return 1
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	st=${st##*) }
	case "$st" in
	Z* | X*) return 1 ;;
	esac
}

# The stand-in tapds and the supervisors record their pids in $tmp/pids;
# whatever of them still runs when the test ends is stopped with it.
cleanup() {
	local p
	if [ -f "$tmp/pids" ]; then
		tr ' ' '\n' <"$tmp/pids" | while read -r p; do
			alive "$p" && kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $1: expected '$2', got '$3'"
	fi
}

# The number of lines in FILE, 0 when there is no FILE.
lines() {
	wc -l 2>/dev/null <"$1" || echo 0
}
# Whether FILE has at least N lines.
at_least() {
	[ "$(lines "$2")" -ge "$1" ]
}
ended() {
	! alive "$1"
}

# Waits up to SECONDS for COMMAND to succeed, polling ten times a second.
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# Magisk runs module scripts with its own BusyBox's sh, in standalone mode
# (applets before PATH); that is the shell to try them with when there is
# a busybox, and the host's sh besides.
if command -v busybox >/dev/null 2>&1; then
	ash="busybox sh"
else
	ash="sh"
fi

# --- Fabricated ELF files --------------------------------------------

# N little-endian bytes of VALUE.
bytes() {
	local n=$1 v=$2 i
	for ((i = 0; i < n; i++)); do
		# shellcheck disable=SC2059 # the format is the byte.
		printf "\\$(printf %03o $((v & 255)))"
		v=$((v >> 8))
	done
}

# A program header of TYPE for a segment at OFFSET of SIZE bytes, in the
# layout of the class in $w (the word size).
phdr() {
	if [ "$w" = 8 ]; then
		bytes 4 "$1"
		bytes 4 5
		bytes 8 "$2"
		bytes 8 0
		bytes 8 0
		bytes 8 "$3"
		bytes 8 "$3"
		bytes 8 4096
	else
		bytes 4 "$1"
		bytes 4 "$2"
		bytes 4 0
		bytes 4 0
		bytes 4 "$3"
		bytes 4 "$3"
		bytes 4 5
		bytes 4 4096
	fi
}

# elf FILE CLASS MACHINE [INTERP]: a little-endian ELF executable header
# of CLASS (1 for 32-bit, 2 for 64-bit) and e_machine MACHINE, with a
# PT_LOAD program header and, when INTERP is given, a PT_INTERP naming it
# (what makes a program dynamically linked).  The file ends with its own
# name, so that no two are alike.
elf() {
	local file=$1 class=$2 machine=$3 interp=${4:-} w ehsize phsize
	local phnum=1 at
	mkdir -p "$(dirname "$file")"
	if [ "$class" = 2 ]; then
		w=8 ehsize=64 phsize=56
	else
		w=4 ehsize=52 phsize=32
	fi
	[ -n "$interp" ] && phnum=2
	at=$((ehsize + phnum * phsize))
	{
		printf '\177ELF'
		bytes 1 "$class"
		bytes 1 1
		bytes 1 1
		bytes 9 0
		bytes 2 2
		bytes 2 "$machine"
		bytes 4 1
		bytes "$w" 0
		bytes "$w" "$ehsize"
		bytes "$w" 0
		bytes 4 0
		bytes 2 "$ehsize"
		bytes 2 "$phsize"
		bytes 2 "$phnum"
		bytes 2 $((w == 8 ? 64 : 40))
		bytes 2 0
		bytes 2 0
		phdr 1 0 "$at"
		if [ -n "$interp" ]; then
			phdr 3 "$at" $((${#interp} + 1))
			printf '%s\0' "$interp"
		fi
		printf '%s\n' "$file"
	} >"$file"
	chmod 755 "$file"
}

# The ELF class and e_machine of each ABI's programs.
abi_class() {
	case "$1" in
	arm64-v8a | x86_64) echo 2 ;;
	*) echo 1 ;;
	esac
}
abi_machine() {
	case "$1" in
	arm64-v8a) echo 183 ;;
	armeabi-v7a) echo 40 ;;
	x86_64) echo 62 ;;
	x86) echo 3 ;;
	esac
}

# fake DIR ABI...: stand-in builds of tapd and tapctl in DIR/ABI/.
fake() {
	local dir=$1 abi prog
	shift
	for abi in "$@"; do
		for prog in tapd tapctl; do
			elf "$dir/$abi/$prog" "$(abi_class "$abi")" "$(abi_machine "$abi")"
		done
	done
}

# --- pack.sh ---------------------------------------------------------

android=$tmp/android
real=""
for abi in $abis; do
	if [ -f "$build/android/$abi/tapd" ]; then
		mkdir -p "$android/$abi"
		cp "$build/android/$abi/tapd" "$build/android/$abi/tapctl" \
			"$android/$abi/"
		real="$real $abi"
	else
		fake "$android" "$abi"
	fi
done
[ -z "$real" ] || echo "magisk: packing the builds in $build/android for:$real"

zip=$tmp/out/tapd.zip
VERSION=9.9-test sh "$src/pack.sh" "$android" "$zip" >/dev/null 2>"$tmp/pack.err"
check "pack.sh succeeds" 0 $?
check "pack.sh has nothing to warn about" "" "$(cat "$tmp/pack.err")"
expected="META-INF/com/google/android/update-binary
META-INF/com/google/android/updater-script
module.prop
service.sh
customize.sh"
for abi in $abis; do
	expected="$expected
abi/$abi/tapd
abi/$abi/tapctl"
done
check "zip entries, in order" "$expected" "$(unzip -Z1 "$zip" 2>/dev/null)"
check "updater-script" "#MAGISK" "$(unzip -p "$zip" META-INF/com/google/android/updater-script)"
for abi in $abis; do
	check "the $abi programs are packed as they are" \
		"$(cksum <"$android/$abi/tapd") $(cksum <"$android/$abi/tapctl")" \
		"$(unzip -p "$zip" "abi/$abi/tapd" | cksum) $(unzip -p "$zip" "abi/$abi/tapctl" | cksum)"
done
modes="META-INF/com/google/android/update-binary -rwxr-xr-x
META-INF/com/google/android/updater-script -rw-r--r--
module.prop -rw-r--r--
service.sh -rwxr-xr-x
customize.sh -rw-r--r--"
for abi in $abis; do
	modes="$modes
abi/$abi/tapd -rwxr-xr-x
abi/$abi/tapctl -rwxr-xr-x"
done
check "file modes in the zip" "$modes" \
	"$(unzip -Z "$zip" | awk '$1 ~ /^-/ { print $NF, $1 }')"

# module.prop, "the strict format": six keys, LF line ends, a valid id,
# an integer versionCode; VERSION replaced the version.
prop=$(unzip -p "$zip" module.prop)
check "module.prop keys" "id name version versionCode author description" \
	"$(echo "$prop" | sed -n 's/^\([A-Za-z]*\)=.*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
check "module.prop has no CR" 0 "$(echo "$prop" | grep -c $'\r')"
check "module.prop id" 1 "$(echo "$prop" | grep -cE '^id=[a-zA-Z][a-zA-Z0-9._-]+$')"
check "module.prop versionCode" 1 "$(echo "$prop" | grep -cE '^versionCode=[0-9]+$')"
check "module.prop version" "version=9.9-test" "$(echo "$prop" | grep '^version=')"

# Each refusal: status 1, one line on stderr that starts with
# "pack.sh: error: " and says PATTERN, and no zip.
refuse() {
	local name=$1 dir=$2 pattern=$3 out=$tmp/refused.zip
	rm -f "$out"
	sh "$src/pack.sh" "$dir" "$out" >/dev/null 2>"$tmp/refuse.err"
	check "pack.sh refuses $name" 1 $?
	check "pack.sh says why it refuses $name" "1 1" \
		"$(wc -l <"$tmp/refuse.err") $(grep -c "^pack\.sh: error: .*$pattern" "$tmp/refuse.err")"
	check "pack.sh writes no zip for $name" no "$([ -e "$out" ] && echo yes || echo no)"
}
sh "$src/pack.sh" "$android" >/dev/null 2>&1
check "pack.sh needs two arguments" 1 $?

refuse "a missing directory" "$tmp/nowhere" "cannot read directory '$tmp/nowhere'"

mkdir -p "$tmp/none/armeabi"
refuse "a directory without any ABI" "$tmp/none" "no build of tapd in '$tmp/none'"

fake "$tmp/notapctl" arm64-v8a x86
rm "$tmp/notapctl/x86/tapctl"
refuse "an ABI without tapctl" "$tmp/notapctl" "cannot find '$tmp/notapctl/x86/tapctl'"

fake "$tmp/wrong" arm64-v8a armeabi-v7a
cp "$tmp/wrong/arm64-v8a/tapd" "$tmp/wrong/armeabi-v7a/tapd"
refuse "a program of another ABI" "$tmp/wrong" \
	"wrong machine in '$tmp/wrong/armeabi-v7a/tapd': it is built for arm64-v8a, not armeabi-v7a"

fake "$tmp/class" x86_64
elf "$tmp/class/x86_64/tapctl" 1 62
refuse "a 32-bit program in a 64-bit ABI" "$tmp/class" \
	"wrong machine in '$tmp/class/x86_64/tapctl'"

fake "$tmp/dynamic" arm64-v8a
elf "$tmp/dynamic/arm64-v8a/tapctl" 2 183 /system/bin/linker64
refuse "a dynamically linked program" "$tmp/dynamic" \
	"dynamically linked '$tmp/dynamic/arm64-v8a/tapctl' (it needs /system/bin/linker64)"

# A real dynamic program of the host, when readelf says it is an x86-64
# one: the headers a linker writes, not only the ones above.
host=$(type -P true)
host=$(readlink -f "${host:-/bin/true}")
fake "$tmp/hostdyn" x86_64
if readelf -hl "$host" 2>/dev/null | grep -q 'Machine: *Advanced Micro Devices X86-64' &&
	readelf -l "$host" 2>/dev/null | grep -q 'program interpreter: /lib'; then
	cp "$host" "$tmp/hostdyn/x86_64/tapd"
else
	elf "$tmp/hostdyn/x86_64/tapd" 2 62 /lib64/ld-linux-x86-64.so.2
fi
refuse "a dynamically linked program of the host" "$tmp/hostdyn" \
	"dynamically linked '$tmp/hostdyn/x86_64/tapd' (it needs /lib"

fake "$tmp/script" x86
printf '#!/bin/sh\nexit 0\n' >"$tmp/script/x86/tapd"
refuse "a script" "$tmp/script" "not an ELF file: '$tmp/script/x86/tapd'"

# Some ABIs only: a warning, and a zip with just those.
fake "$tmp/partial" arm64-v8a x86_64
partial=$tmp/partial.zip
sh "$src/pack.sh" "$tmp/partial" "$partial" >/dev/null 2>"$tmp/partial.err"
check "pack.sh packs some ABIs only" 0 $?
check "pack.sh warns about the missing ones" \
	"pack.sh: warning: no build for armeabi-v7a x86 in '$tmp/partial': the zip will not install on such phones" \
	"$(cat "$tmp/partial.err")"
check "the zip has the ABIs there are" \
	"abi/arm64-v8a/tapd abi/arm64-v8a/tapctl abi/x86_64/tapd abi/x86_64/tapctl" \
	"$(unzip -Z1 "$partial" 'abi/*' | tr '\n' ' ' | sed 's/ $//')"

# --- customize.sh ----------------------------------------------------

# install_module's part, as util_functions.sh does it on a booted phone
# (BOOTMODE), minus what needs a phone (chcon, mounts, the stub in
# /data/adb/modules): extract the zip into $MODPATH, set the default
# permissions, source customize.sh with Magisk's ui_print, abort, set_perm
# and set_perm_recursive (the same code, without chcon), then delete it.
#
# Every absolute path under /data that a file command is given is moved
# into the test's ROOT, where tapd's data directory is made beforehand:
# a customize.sh that removed or changed /data/adb/tapd would do it there.
# The owners set_perm gives are written to ROOT/owners too, to be read
# where the test cannot chown.
cat >"$tmp/install_module.sh" <<'EOF'
ZIPFILE=$1
ROOT=$2
ARCH=$3
case "$ARCH" in
arm64) ABI=arm64-v8a IS64BIT=true ;;
arm) ABI=armeabi-v7a IS64BIT=false ;;
x64) ABI=x86_64 IS64BIT=true ;;
x86) ABI=x86 IS64BIT=false ;;
*) ABI=$ARCH IS64BIT=true ;;
esac
API=34
BOOTMODE=true
MODID=tapd
TMPDIR=$ROOT/dev/tmp
MODPATH=$ROOT/data/adb/modules_update/$MODID

jail() {
	cmd=$1
	shift
	n=$#
	while [ "$n" -gt 0 ]; do
		a=$1
		shift
		case "$a" in
		/data/*) a=$ROOT$a ;;
		esac
		set -- "$@" "$a"
		n=$((n - 1))
	done
	command "$cmd" "$@"
}
rm() { jail rm "$@"; }
rmdir() { jail rmdir "$@"; }
mv() { jail mv "$@"; }
cp() { jail cp "$@"; }
ln() { jail ln "$@"; }
mkdir() { jail mkdir "$@"; }
touch() { jail touch "$@"; }
chmod() { jail chmod "$@"; }
chown() {
	echo "$1 $2" >>"$ROOT/owners"
	[ "$(id -u)" = 0 ] || return 0
	jail chown "$@"
}

ui_print() {
	if $BOOTMODE; then
		echo "$1"
	fi
}
abort() {
	ui_print "$1"
	[ ! -z $MODPATH ] && rm -rf $MODPATH
	rm -rf $TMPDIR
	exit 1
}
set_perm() {
	chown $2:$3 $1 || return 1
	chmod $4 $1 || return 1
}
set_perm_recursive() {
	find $1 -type d 2>/dev/null | while read dir; do
		set_perm $dir $2 $3 $4 $6
	done
	find $1 -type f -o -type l 2>/dev/null | while read file; do
		set_perm $file $2 $3 $5 $6
	done
}
set_default_perm() {
	set_perm_recursive $1 0 0 0755 0644
	set_perm_recursive $1/system/bin 0 2000 0755 0755
	set_perm_recursive $1/system/xbin 0 2000 0755 0755
	set_perm_recursive $1/system/system_ext/bin 0 2000 0755 0755
	set_perm_recursive $1/system/vendor/bin 0 2000 0755 0755
}

rm -rf $TMPDIR
mkdir -p $TMPDIR
rm -rf $MODPATH
mkdir -p $MODPATH
unzip -o "$ZIPFILE" customize.sh -d $MODPATH >&2
ui_print "- Extracting module files"
unzip -o "$ZIPFILE" -x 'META-INF/*' -d $MODPATH >&2
set_default_perm $MODPATH
[ -f $MODPATH/customize.sh ] && . $MODPATH/customize.sh
rm -f $MODPATH/customize.sh
rm -rf $TMPDIR
ui_print "- Done"
EOF

# A tapd data directory from before: a database and a log.
make_data() {
	mkdir -p "$1/data/adb/tapd"
	echo "an older database" >"$1/data/adb/tapd/taps.db"
	echo "an older log" >"$1/data/adb/tapd/tapd.log"
	chmod 700 "$1/data/adb/tapd"
}
data_state() {
	(cd "$1/data/adb/tapd" && ls -ld --time-style=full-iso . &&
		ls -lA --time-style=full-iso && cat taps.db tapd.log) 2>&1
}

# install ZIP ARCH: installs into $tmp/root-ARCH; the output is in
# $tmp/install-ARCH.out.
install() {
	local zip=$1 arch=$2 root=$tmp/root-$2
	rm -rf "$root"
	make_data "$root"
	data_state "$root" >"$root.data"
	ASH_STANDALONE=1 $ash "$tmp/install_module.sh" "$zip" "$root" "$arch" \
		>"$tmp/install-$arch.out" 2>"$tmp/install-$arch.err"
}
# The owner that set_perm gave PATH last.
owner() {
	if [ "$(id -u)" = 0 ]; then
		stat -c %u:%g "$2"
	else
		awk -v p="$2" '$2 == p { o = $1 } END { print o }' "$1/owners"
	fi
}

for arch in arm64 arm x64 x86; do
	case "$arch" in
	arm64) abi=arm64-v8a ;;
	arm) abi=armeabi-v7a ;;
	x64) abi=x86_64 ;;
	x86) abi=x86 ;;
	esac
	install "$zip" "$arch"
	check "customize.sh installs on $arch" 0 $?
	root=$tmp/root-$arch
	mod=$root/data/adb/modules_update/tapd
	check "$arch gets the $abi tapd" "$(cksum <"$android/$abi/tapd")" \
		"$(cksum <"$mod/system/bin/tapd" 2>&1)"
	check "$arch gets the $abi tapctl" "$(cksum <"$android/$abi/tapctl")" \
		"$(cksum <"$mod/system/bin/tapctl" 2>&1)"
	check "no abi/ is left on $arch" no "$([ -e "$mod/abi" ] && echo yes || echo no)"
	check "the module's files on $arch" \
		"module.prop service.sh system/bin/tapctl system/bin/tapd" \
		"$(cd "$mod" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')"
	check "modes on $arch (tapd tapctl service.sh system/bin system module.prop)" \
		"755 755 755 755 755 644" \
		"$(cd "$mod" && stat -c %a system/bin/tapd system/bin/tapctl service.sh \
			system/bin system module.prop | tr '\n' ' ' | sed 's/ $//')"
	check "owners on $arch (system/bin, tapd, service.sh)" "0:2000 0:2000 0:0" \
		"$(owner "$root" "$mod/system/bin") $(owner "$root" "$mod/system/bin/tapd") $(owner "$root" "$mod/service.sh")"
	check "the data directory is untouched on $arch" "$(cat "$root.data")" \
		"$(data_state "$root")"
done
check "the install says the data directory is kept" 1 \
	"$(grep -c '^- its data in /data/adb/tapd .* is kept' "$tmp/install-arm64.out")"
check "the install says how to reach tapd" 1 \
	"$(grep -c 'adb forward tcp:7878 tcp:7878' "$tmp/install-arm64.out")"

# A device there is no build for: one line of reason, and nothing left.
install "$zip" riscv64
check "customize.sh refuses riscv64" 1 $?
check "it prints one line of reason" 1 "$(grep -c '^!' "$tmp/install-riscv64.out")"
check "the reason" \
	"! tapd has no build for this device (riscv64); this zip has: arm64-v8a armeabi-v7a x86_64 x86" \
	"$(grep '^!' "$tmp/install-riscv64.out")"
check "nothing is left of the module on riscv64" no \
	"$([ -e "$tmp/root-riscv64/data/adb/modules_update/tapd" ] && echo yes || echo no)"
check "the data directory is untouched on riscv64" "$(cat "$tmp/root-riscv64.data")" \
	"$(data_state "$tmp/root-riscv64")"

# refused ZIP ARCH WHAT SAYS REASON: customize.sh refuses ZIP on ARCH (the
# check "customize.sh refuses WHAT"), with the "!" line REASON (the check
# SAYS), and leaves nothing of the module.
refused() {
	install "$1" "$2"
	check "customize.sh refuses $3" 1 $?
	check "$4" "$5" "$(grep '^!' "$tmp/install-$2.out")"
	check "nothing is left of the module then" no \
		"$([ -e "$tmp/root-$2/data/adb/modules_update/tapd" ] && echo yes || echo no)"
}

# A zip without the device's ABI.
refused "$partial" x86 "an ABI the zip lacks" "it says which ABIs the zip has" \
	"! tapd has no build for this device (x86); this zip has: arm64-v8a x86_64"

# A damaged zip: the x86 tapctl is an arm program.
cp "$zip" "$tmp/damaged.zip"
elf "$tmp/damaged/abi/x86/tapctl" 1 40
(cd "$tmp/damaged" && zip -q "$tmp/damaged.zip" abi/x86/tapctl)
refused "$tmp/damaged.zip" x86 "a program for another machine" \
	"it names the program" \
	"! abi/x86/tapctl in this zip is not a program for x86: the zip is damaged"

for f in customize.sh service.sh; do
	sh -n "$src/$f" 2>/dev/null
	check "$f parses in sh" 0 $?
	if command -v busybox >/dev/null 2>&1; then
		busybox sh -n "$src/$f" 2>/dev/null
		check "$f parses in busybox sh" 0 $?
	fi
done

# --- service.sh ------------------------------------------------------

mkdir -p "$tmp/stubs"
printf '#!/bin/sh\nexit 0\n' >"$tmp/stubs/resetprop"
chmod 755 "$tmp/stubs/resetprop"

# A module directory as Magisk leaves it at boot, with tapd the stand-in
# script given on stdin.
module() {
	rm -rf "$1"
	mkdir -p "$1/system/bin"
	cp "$src/service.sh" "$1/service.sh"
	cat >"$1/system/bin/tapd"
	chmod 755 "$1/system/bin/tapd"
}

# Restarts: a stand-in tapd that fails three times, then exits cleanly;
# its third run takes "61 s", by a date stand-in whose clock the run
# moves, so the delay starts from 1 s again after it.  This runs in the
# host's sh: BusyBox's date would come before the stand-in.
mod=$tmp/mod-restarts
data=$tmp/data-restarts
real_date=$(command -v date)
mkdir -p "$tmp/clock-stubs"
cat >"$tmp/clock-stubs/date" <<EOF
#!/bin/sh
if [ "\$*" = +%s ]; then
	echo \$((\$($real_date +%s) + \$(cat "$tmp/clock" 2>/dev/null || echo 0)))
else
	exec $real_date "\$@"
fi
EOF
chmod 755 "$tmp/clock-stubs/date"
module "$mod" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/runs"
n=\$(wc -l <"$tmp/runs")
[ "\$n" -eq 3 ] && echo 61 >"$tmp/clock"
[ "\$n" -ge 4 ] && exit 0
exit 3
EOF
# An old log just over 4 MiB, to be rotated before the first start.
mkdir -p "$data"
head -c 4194305 /dev/zero >"$data/tapd.log"
start=$(date +%s)
PATH=$tmp/clock-stubs:$tmp/stubs:$PATH TAPD_DATA=$data sh "$mod/service.sh"
check "service.sh returns at once" 1 $(($(date +%s) - start <= 1))
wait_for 20 grep -q 'stopped cleanly' "$data/service.log" 2>/dev/null
check "tapd started four times" 4 "$(lines "$tmp/runs")"
check "restart delays double, and start again after a long run" "1s 2s 1s" \
	"$(sed -n 's/.*restarting in \([0-9]*s\)$/\1/p' "$data/service.log" | tr '\n' ' ' | sed 's/ $//')"
check "each failure's status is logged" 3 "$(grep -c 'exited with status 3;' "$data/service.log")"
check "supervision ends after a clean exit" 1 "$(grep -c 'stopped cleanly' "$data/service.log")"
check "tapd's arguments" "run --db $data/taps.db --listen 127.0.0.1:7878 --pidfile $data/tapd.pid --log-file $data/tapd.log" \
	"$(head -n 1 "$tmp/runs")"
check "data directory mode" 700 "$(stat -c %a "$data")"
check "an oversized tapd.log is rotated" 4194305 "$(stat -c %s "$data/tapd.log.1" 2>&1)"

# Signals, in each shell: a stand-in tapd that runs until it is signalled
# and logs its pid and its parent's (the supervisor) when it is ready.  A
# SIGTERM makes it exit 143, not 0, so that only the disable file can end
# the supervision.
shells="sh"
[ "$ash" = sh ] || shells="sh|$ash"
IFS='|' read -r -a shell_list <<<"$shells"
for shell in "${shell_list[@]}"; do
	name=${shell// /-}
	mod=$tmp/mod-$name
	data=$tmp/data-$name
	starts=$tmp/starts-$name
	module "$mod" <<EOF
#!/bin/sh
trap 'echo "\$\$" >>"$tmp/terms-$name"; exit 143' TERM
echo "\$\$ \$PPID" >>"$starts"
echo "\$\$ \$PPID" >>"$tmp/pids"
while :; do sleep 0.1; done
EOF
	ASH_STANDALONE=1 PATH=$tmp/stubs:$PATH TAPD_DATA=$data $shell "$mod/service.sh"
	wait_for 5 grep -q . "$starts" 2>/dev/null
	first=$(sed -n '1s/ .*//p' "$starts" 2>/dev/null)
	alive "$first" && kill -9 "$first"
	wait_for 5 at_least 2 "$starts"
	check "$shell: a killed tapd is started again" 2 "$(lines "$starts")"
	check "$shell: its status is logged" 1 \
		"$(grep -c 'tapd exited with status 137; restarting in 1s' "$data/service.log" 2>&1)"
	second=$(sed -n '2s/ .*//p' "$starts" 2>/dev/null)
	supervisor=$(sed -n '2s/.* //p' "$starts" 2>/dev/null)
	touch "$mod/disable"
	wait_for 3 grep -qx "${second:-none}" "$tmp/terms-$name" 2>/dev/null
	check "$shell: disabling the module sends tapd a SIGTERM within 3 s" \
		"${second:-none}" "$(cat "$tmp/terms-$name" 2>&1)"
	wait_for 3 ended "$supervisor"
	check "$shell: the supervisor then ends" ended \
		"$(alive "$supervisor" && echo running || echo ended)"
	check "$shell: tapd is not started again" 2 "$(lines "$starts")"
	check "$shell: service.log says why" 1 \
		"$(grep -c 'module disabled; tapd stopped' "$data/service.log" 2>&1)"
done

echo "magisk: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
