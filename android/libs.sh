#!/bin/sh
# Builds, once, the static libraries tapd links on Android for one ABI,
# from Debian's source packages, and prints the prefix that holds them
# (include/, lib/*.a, lib/pkgconfig/*.pc): SQLite, libevdev, cJSON and
# libmicrohttpd for tapd, libcurl for tapctl, cmocka for the unit tests.
#
# What it builds does not change with tapd's code, so it is kept outside
# the clone, in $TAPD_CACHE (default ~/.cache/tapd), under a key made of
# these scripts, the compiler, musl and the source versions: a change of
# any of them builds anew, and a missing cache is rebuilt.  The sources
# are fetched with android/fetch-src.sh into $TAPD_CACHE/src.
#
#   sh android/libs.sh ABI        prints the prefix on stdout
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/abi.sh"
if [ $# -ne 1 ] || ! abi_set "$1"; then
	echo "usage: libs.sh {$(echo $ABI_ALL | tr ' ' '|')}" >&2
	exit 2
fi
abi=$1
cache=${TAPD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/tapd}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
pkgs="sqlite3 libevdev cjson libmicrohttpd curl cmocka"
src=$cache/src

mkdir -p "$cache" "$src" || {
	echo "libs.sh: error: cannot create the cache '$cache' (set TAPD_CACHE)" >&2
	exit 1
}
# Sources: one fetch at a time, whoever asks.
(
	flock 9
	for p in $pkgs; do
		sh "$here/fetch-src.sh" "$src" "$p" >&2
	done
) 9>"$src/.lock"

key=$({
	cat "$here/abi.sh" "$here/toolchain.sh" "$here/libs.sh" "$here/fetch-src.sh"
	clang --version | head -n 1
	if [ -n "${ANDROID_NDK_HOME:-}" ]; then
		echo "ndk $ANDROID_NDK_HOME api ${ANDROID_API:-24}"
		cat "$ANDROID_NDK_HOME/source.properties" 2>/dev/null
	fi
	dpkg-query -W -f='${Version}\n' "musl-dev:$abi_debarch" 2>/dev/null
	for p in $pkgs; do cat "$src/$p.version"; done
} | sha256sum | cut -c1-12)
prefix=$cache/android-$key/$abi
if [ -f "$prefix/.done" ]; then
	echo "$prefix"
	exit 0
fi

exec 9>"$cache/.lock-$abi"
flock 9
if [ -f "$prefix/.done" ]; then
	echo "$prefix"
	exit 0
fi
start=$(date +%s)
echo "libs.sh: building the $abi libraries into $prefix" >&2
rm -rf "$prefix"
work=$prefix/.build
mkdir -p "$work" "$prefix/include" "$prefix/lib/pkgconfig"
sh "$here/toolchain.sh" "$abi" "$prefix/toolchain"
cc=$prefix/toolchain/bin/cc
tc=$prefix/toolchain/bin
export CC="$cc" AR="$tc/ar" RANLIB="$tc/ranlib" STRIP="$tc/strip" NM="$tc/nm"
export CFLAGS="-O2 -g0 -fPIE -ffunction-sections -fdata-sections"
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
unset PKG_CONFIG_PATH LDFLAGS LIBS CPPFLAGS || true
log=$work/log
fail() {
	echo "libs.sh: error: $* (for $abi; the last lines of '$log':)" >&2
	tail -n 30 "$log" >&2
	exit 1
}
copy() {
	rm -rf "$work/$1"
	cp -a "$src/$1" "$work/$1"
}
pc() { # name version libs cflags
	cat >"$prefix/lib/pkgconfig/$1.pc" <<PC
prefix=$prefix
Name: $1
Description: $1 (static, for tapd on $abi)
Version: $2
Cflags: -I\${prefix}/include$4
Libs: -L\${prefix}/lib $3
PC
}
version_of() { sed 's/ .*//' "$src/$1.version"; }

# SQLite: Debian's source is the full tree, so the amalgamation is made
# once on this machine (it needs tclsh and a native compiler for the
# generators), then compiled for each ABI.  Temporary files stay in memory
# (a phone may have no writable /tmp), and extensions are never loaded.
amal=$src/sqlite3-amalgamation
(
	flock 8
	if [ ! -f "$amal/sqlite3.c" ]; then
		command -v tclsh >/dev/null 2>&1 || {
			echo "libs.sh: error: 'tclsh' is missing (package tcl): SQLite's amalgamation needs it" >&2
			exit 1
		}
		rm -rf "$amal.tmp"
		cp -a "$src/sqlite3" "$amal.tmp"
		(cd "$amal.tmp" && env -u CC -u CFLAGS -u AR -u RANLIB -u STRIP -u NM \
			./configure --disable-tcl >/dev/null && \
			env -u CC -u CFLAGS make sqlite3.c >/dev/null) \
			>"$src/sqlite3-amalgamation.log" 2>&1 || {
			echo "libs.sh: error: cannot make SQLite's amalgamation (see '$src/sqlite3-amalgamation.log')" >&2
			exit 1
		}
		mkdir -p "$amal"
		cp "$amal.tmp/sqlite3.c" "$amal.tmp/sqlite3.h" "$amal/"
		rm -rf "$amal.tmp"
	fi
) 8>"$src/.lock-sqlite3"
"$cc" $CFLAGS -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION \
	-DSQLITE_TEMP_STORE=2 -DSQLITE_DEFAULT_MEMSTATUS=0 \
	-DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB \
	-DSQLITE_MAX_VARIABLE_NUMBER=250000 -DHAVE_USLEEP=1 -DHAVE_FDATASYNC=1 \
	-c -o "$work/sqlite3.o" "$amal/sqlite3.c" >"$log" 2>&1 ||
	fail "cannot compile SQLite"
"$AR" rcs "$prefix/lib/libsqlite3.a" "$work/sqlite3.o"
cp "$amal/sqlite3.h" "$prefix/include/"
pc sqlite3 "$(version_of sqlite3)" "-lsqlite3" ""

# cJSON: one file.
"$cc" $CFLAGS -std=c89 -c -o "$work/cJSON.o" "$src/cjson/cJSON.c" \
	>"$log" 2>&1 || fail "cannot compile cJSON"
"$AR" rcs "$prefix/lib/libcjson.a" "$work/cJSON.o"
mkdir -p "$prefix/include/cjson"
cp "$src/cjson/cJSON.h" "$prefix/include/cjson/"
pc libcjson "$(version_of cjson)" "-lcjson" " -I\${prefix}/include/cjson"

# cmocka: one file; its CMake configuration reduced to what musl has.
# Its header guesses uintptr_t from glibc's __WORDSIZE unless told that
# <stdint.h> has it, so its users get that in their Cflags too.
mkdir -p "$work/cmocka"
{
	for h in ASSERT_H INTTYPES_H MALLOC_H MEMORY_H SETJMP_H SIGNAL_H \
		STDARG_H STDDEF_H STDINT_H STDIO_H STDLIB_H STRINGS_H STRING_H \
		SYS_STAT_H SYS_TYPES_H TIME_H UNISTD_H STRUCT_TIMESPEC CALLOC \
		EXIT FPRINTF SNPRINTF VSNPRINTF FREE LONGJMP SIGLONGJMP MALLOC \
		MEMCPY MEMSET PRINTF SETJMP SIGNAL STRCMP STRCPY STRSIGNAL \
		CLOCK_GETTIME GCC_THREAD_LOCAL_STORAGE CLOCK_REALTIME; do
		echo "#define HAVE_$h 1"
	done
	echo "#define WORDS_SIZEOF_VOID_P $((abi_bits / 8))"
} >"$work/cmocka/config.h"
"$cc" $CFLAGS -DHAVE_CONFIG_H -D_UINTPTR_T_DEFINED -I"$work/cmocka" -I"$src/cmocka/include" \
	-c -o "$work/cmocka/cmocka.o" "$src/cmocka/src/cmocka.c" >"$log" 2>&1 ||
	fail "cannot compile cmocka"
"$AR" rcs "$prefix/lib/libcmocka.a" "$work/cmocka/cmocka.o"
cp "$src/cmocka/include/cmocka.h" "$src/cmocka/include/cmocka_pbc.h" \
	"$prefix/include/"
pc cmocka "$(version_of cmocka)" "-lcmocka" " -D_UINTPTR_T_DEFINED"

# The autotools libraries, cross-configured with the wrapper as CC.
host=$abi_target
[ -z "${ANDROID_NDK_HOME:-}" ] || host=$abi_ndk
configure() { # dir args...
	d=$1
	shift
	(cd "$work/$d" && ./configure --host="$host" --build="$(uname -m)-linux-gnu" \
		--prefix="$prefix" --disable-shared --enable-static "$@") \
		>"$log" 2>&1 || fail "cannot configure $d"
}

copy libevdev
configure libevdev --disable-gcov
(cd "$work/libevdev" && make -j"$jobs" -C libevdev &&
	make -C libevdev install-libLTLIBRARIES install-libevdevincludeHEADERS &&
	make install-pkgconfigDATA) >"$log" 2>&1 || fail "cannot build libevdev"

copy libmicrohttpd
configure libmicrohttpd --disable-https --without-gnutls --disable-curl \
	--disable-doc --disable-examples --disable-tools --disable-nls
(cd "$work/libmicrohttpd" && make -j"$jobs" -C src/microhttpd &&
	make -C src/microhttpd install && make -C src/include install &&
	make install-pkgconfigDATA) >"$log" 2>&1 || fail "cannot build libmicrohttpd"

# libcurl for tapctl, which speaks plain HTTP to 127.0.0.1: no TLS, no
# other protocol, no compression, no resolver thread.
copy curl
configure curl --without-ssl --without-zlib --without-brotli --without-zstd \
	--without-libpsl --without-libidn2 --without-nghttp2 --without-ngtcp2 \
	--without-nghttp3 --without-librtmp --without-libssh2 --without-libssh \
	--without-gssapi --without-ca-bundle --without-ca-path \
	--disable-ldap --disable-ldaps --disable-rtsp --disable-dict \
	--disable-telnet --disable-tftp --disable-pop3 --disable-imap \
	--disable-smb --disable-smtp --disable-gopher --disable-mqtt \
	--disable-manual --disable-ntlm --disable-threaded-resolver \
	--disable-alt-svc --disable-hsts --disable-cookies
(cd "$work/curl" && make -j"$jobs" -C lib && make -C lib install &&
	make -C include install && make install-pkgconfigDATA) >"$log" 2>&1 ||
	fail "cannot build libcurl"

for p in $pkgs; do
	echo "$p $(cat "$src/$p.version")"
done >"$prefix/VERSIONS"
rm -rf "$work"
touch "$prefix/.done"
echo "libs.sh: $abi libraries built in $(($(date +%s) - start)) s" >&2
echo "$prefix"
