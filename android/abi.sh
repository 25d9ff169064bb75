# The Android ABIs tapd is built for, and how each is reached from a
# Debian machine: a clang target, the musl that Debian ships for that
# architecture through multiarch (musl-dev:ARCH), the kernel headers of
# linux-libc-dev:ARCH, and the compiler runtime of Debian's gcc cross
# compiler for it (clang's own is not packaged for these targets; musl's
# printf needs its 128-bit long double helpers on arm64, and the 32-bit
# targets need the 64-bit division helpers).
#
# Sourced: abi_set ABI sets abi_target, abi_musl, abi_gnu, abi_debarch,
# abi_bits, abi_qemu, abi_cflags, abi_ldflags, abi_libgcc_cc and abi_ndk
# (the NDK's target triple, for builds against bionic); it returns 1 for
# an ABI it does not know.

ABI_ALL="arm64-v8a armeabi-v7a x86_64 x86"

abi_set() {
	abi_cflags=""
	abi_ldflags=""
	case "$1" in
	arm64-v8a)
		abi_target=aarch64-linux-musl
		abi_musl=aarch64-linux-musl
		abi_gnu=aarch64-linux-gnu
		abi_debarch=arm64
		abi_bits=64
		abi_qemu=qemu-aarch64-static
		abi_libgcc_cc=aarch64-linux-gnu-gcc
		abi_ndk=aarch64-linux-android
		# No calls into libgcc for atomics: every arm64 phone has
		# the v8.0 exclusives, and the helpers would need a runtime
		# probe of the CPU.
		abi_cflags="-mno-outline-atomics"
		;;
	armeabi-v7a)
		abi_target=armv7-linux-musleabihf
		abi_musl=arm-linux-musleabihf
		abi_gnu=arm-linux-gnueabihf
		abi_debarch=armhf
		abi_bits=32
		abi_qemu=qemu-arm-static
		abi_libgcc_cc=arm-linux-gnueabihf-gcc
		abi_ndk=armv7a-linux-androideabi
		# The floor of the armeabi-v7a ABI: ARMv7-A with VFPv3-D16.
		# A static binary calls nothing outside itself, so the
		# hard-float calling convention inside it is free to use.
		abi_cflags="-march=armv7-a -mfpu=vfpv3-d16 -mthumb"
		;;
	x86_64)
		abi_target=x86_64-linux-musl
		abi_musl=x86_64-linux-musl
		abi_gnu=x86_64-linux-gnu
		abi_debarch=amd64
		abi_bits=64
		abi_qemu=qemu-x86_64-static
		abi_libgcc_cc=gcc
		abi_ndk=x86_64-linux-android
		;;
	x86)
		abi_target=i686-linux-musl
		abi_musl=i386-linux-musl
		abi_gnu=i386-linux-gnu
		abi_debarch=i386
		abi_bits=32
		abi_qemu=qemu-i386-static
		abi_libgcc_cc=i686-linux-gnu-gcc
		abi_ndk=i686-linux-android
		# Android's x86 ABI: i686 with SSSE3.
		abi_cflags="-march=i686 -mssse3 -mfpmath=sse"
		;;
	*)
		return 1
		;;
	esac
	# 16 KiB pages (Android 15+ devices) need every LOAD segment
	# aligned to 16 KiB; a 64-bit binary so linked also runs on 4 KiB
	# pages.
	if [ "$abi_bits" = 64 ]; then
		abi_ldflags="-Wl,-z,max-page-size=16384"
	fi
	return 0
}
