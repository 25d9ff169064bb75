# tapd: one GNU Makefile, no recursion but for the sanitizer variant.
#
#   make deps       install missing Debian packages (a no-op when all are present)
#   make            build tapd and the test tools into build/
#   make run        replay the bundled sessions and print the summary
#   make check      build and run every test; ends with "N passed, N failed"
#   make asan       the same tests under AddressSanitizer and UBSan
#   make fuzz-NAME  run tests/fuzz/fuzz_NAME.c under libFuzzer (FUZZ_SECONDS=60)
#   make fuzz       every fuzz target in turn (FUZZ_SECONDS=120), then a table
#   make soak       the endurance tests (tests/soak/), not part of check
#   make bench      every benchmark (bench-replay, -query, -http, -live), one table
#   make format-check   clang-format over the tree, changing nothing
#   make install    PREFIX=/usr/local DESTDIR=
#   make android    static tapd and tapctl for every Android ABI
#   make magisk     the Magisk module zip with all of them

CC ?= cc
CLANG ?= clang
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BUILD ?= build
FUZZ_SECONDS ?= 60
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wcast-qual -Wformat=2 -Wvla -Werror
PKGS := sqlite3 libevdev libcjson libmicrohttpd
PKG_CONFIG ?= pkg-config
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
# Set by the Android build (-DTAPD_ANDROID=1: the phone's defaults).
DEFS ?=

# Objects name their sources relative to the tree, wherever it was built.
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(DEFS) $(WARN) -MMD -MP -Idaemon \
	-I$(BUILD) -ffile-prefix-map=$(CURDIR)=. $(PKG_CFLAGS) $(CMOCKA_CFLAGS) \
	$(CFLAGS) $(SAN)
ALL_LDFLAGS = $(LDFLAGS) $(SAN)
LIBS = $(PKG_LIBS) -lm -lpthread

# Debian packages the build, the tests and the tools need.
DEB_PKGS := build-essential pkg-config clang libclang-rt-14-dev clang-format \
	libsqlite3-dev sqlite3 libevdev-dev libcjson-dev libmicrohttpd-dev \
	libcmocka-dev libcurl4-openssl-dev protobuf-compiler bc curl jq \
	prometheus zip unzip qemu-system-x86 busybox-static cpio time wrk \
	chromium firefox-esr
# The Android build: clang and lld against Debian's musl for each
# architecture (multiarch), the kernel headers and the gcc runtime helpers
# of each, the tools that build the libraries from their source packages,
# and qemu to run the results.
ANDROID_ARCHS := arm64 armhf i386
DEB_PKGS += lld llvm dpkg-dev tcl python3 file musl-dev \
	musl-dev:arm64 musl-dev:armhf musl-dev:i386 \
	linux-libc-dev:arm64 linux-libc-dev:armhf linux-libc-dev:i386 \
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-i686-linux-gnu \
	qemu-user-static qemu-system-arm
# node and npm for the tests that run npm packages (tests/npm); NodeSource's
# nodejs package carries its own npm, which Debian's npm would conflict with.
DEB_PKGS += nodejs $(if $(shell command -v npm 2>/dev/null),,npm)

# The dashboard (daemon/ui.c): the files of daemon/ui/ and uPlot, the
# charting library, from the npm registry at a pinned version whose
# tarball must match the registry's integrity below.  It is fetched once
# into ~/.cache/tapd/npm (daemon/ui/npm-package.sh, npm pack); with it
# there, the build needs no network.  npm comes with Node.js: Debian's
# nodejs and npm when the machine has no npm of its own.
UPLOT_VERSION := 1.6.32
UPLOT_INTEGRITY := sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==
UI_DIR := daemon/ui
UI_FILES := $(UI_DIR)/index.html $(UI_DIR)/app.js $(UI_DIR)/style.css
NODE_PKGS := nodejs npm

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n'
endif

DAEMON_SRCS := $(filter-out daemon/main.c,$(wildcard daemon/*.c))
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/sql_migrations.o \
	$(BUILD)/version.o $(BUILD)/ui_assets.o
LIBTAPD := $(BUILD)/libtapd.a
TAPD := $(BUILD)/tapd
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/t/%)
CLIENT_SRCS := $(wildcard client/*.c)
TAPCTL := $(if $(CLIENT_SRCS),$(BUILD)/tapctl)
CLIENT_LIBS = $(shell $(PKG_CONFIG) --libs libcurl libcjson 2>/dev/null)
SIM_SRCS := $(wildcard tests/sim/*.c)
SIM := $(if $(SIM_SRCS),$(BUILD)/tapd-sim)
SQL := $(sort $(wildcard sql/[0-9][0-9][0-9]-*.sql))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FORMAT_SRCS = $(shell git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null)

.PHONY: FORCE all deps vm-deps npm-deps run check asan clean install format format-check unit e2e \
	bench-replay bench-query bench-http bench-live bench magisk android android-bins fuzz fuzz-bins soak
.DEFAULT_GOAL := all
# Objects are kept between runs even when only a test binary needed them.
.SECONDARY:

all: $(TAPD) $(TAPCTL) $(SIM)

deps:
	@# Foreign architectures for the Android build's multiarch packages,
	@# and the deb-src entries its libraries come from.
	@sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; added=""; \
	for a in $(ANDROID_ARCHS); do \
		dpkg --print-foreign-architectures | grep -qx $$a || \
			{ $$sudo dpkg --add-architecture $$a && added=1; }; \
	done; \
	[ -z "$$added" ] || $$sudo apt-get update -qq
	@sh android/deb-src.sh
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' \
			|| missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends $$missing; \
	fi
	@command -v npm >/dev/null 2>&1 || { \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		echo "installing: $(NODE_PKGS)"; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends $(NODE_PKGS); }
	@sh $(UI_DIR)/npm-package.sh uplot $(UPLOT_VERSION) $(UPLOT_INTEGRITY) >/dev/null

# The real-kernel tests boot Debian's kernels (amd64 and arm64) and the
# arm64 busybox, unpacked into build/ (the machine's own /boot is never
# touched).  Only the tests need them: make run does not fetch them.
vm-deps: deps
	@sh tests/vm/fetch-kernel.sh build/vm/kernel
	@sh tests/vm/fetch-kernel.sh build/vm/kernel-arm64 arm64
	@sh tests/vm/fetch-kernel.sh --busybox build/vm/busybox-arm64 arm64

# The npm packages of tests/npm, pinned by its package-lock.json, into
# ~/.cache/tapd/npm-HASH (nothing to do, and no network, once there).
npm-deps: deps
	@sh tests/npm/install.sh >/dev/null

$(BUILD)/%.o: %.c
	$(quiet) CC $<
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The migrations are embedded as C strings so the binary needs no file at
# run time.  Each becomes a NUL-terminated byte array, in file-name order.
$(BUILD)/sql_migrations.c: $(SQL) Makefile
	$(quiet) GEN $@
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from sql/ by the Makefile: do not edit. */'; \
	  echo '#include <stddef.h>'; i=0; \
	  for f in $(SQL); do \
	    echo "static const char m$$i[] = {"; \
	    od -An -v -tx1 $$f | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1, /g'; \
	    echo '0x00 };'; i=$$((i+1)); \
	  done; \
	  echo 'const char *const store_migration_sql[] = {'; i=0; \
	  for f in $(SQL); do echo "m$$i,"; i=$$((i+1)); done; \
	  echo 'NULL };'; \
	  echo 'const char *const store_migration_name[] = {'; \
	  for f in $(SQL); do echo "\"$$(basename $$f)\","; done; \
	  echo 'NULL };'; \
	} > $@.tmp && mv $@.tmp $@

# The dashboard's files as C arrays (ui.c serves them): daemon/ui/ and
# uPlot's script, style and licence from its checked tarball.
$(BUILD)/ui/uplot/.unpacked: Makefile $(UI_DIR)/npm-package.sh
	$(quiet) GET uplot@$(UPLOT_VERSION)
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	$(Q)tgz=$$(sh $(UI_DIR)/npm-package.sh uplot $(UPLOT_VERSION) \
		$(UPLOT_INTEGRITY)) && tar -xzf "$$tgz" -C $(dir $@) \
		package/dist/uPlot.iife.min.js package/dist/uPlot.min.css \
		package/LICENSE && touch $@

$(BUILD)/ui_assets.c: $(UI_FILES) $(BUILD)/ui/uplot/.unpacked \
		$(UI_DIR)/embed.sh Makefile
	$(quiet) GEN $@
	$(Q)u=$(BUILD)/ui/uplot/package; sh $(UI_DIR)/embed.sh $@ $(BUILD)/ui/gz \
		/ $(UI_DIR)/index.html 'text/html; charset=utf-8' \
		/ui/app.js $(UI_DIR)/app.js 'text/javascript; charset=utf-8' \
		/ui/style.css $(UI_DIR)/style.css 'text/css; charset=utf-8' \
		/ui/uPlot.iife.min.js $$u/dist/uPlot.iife.min.js \
			'text/javascript; charset=utf-8' \
		/ui/uPlot.min.css $$u/dist/uPlot.min.css 'text/css; charset=utf-8' \
		/ui/uPlot.LICENSE.txt $$u/LICENSE 'text/plain; charset=utf-8'

$(BUILD)/ui_assets.o: $(BUILD)/ui_assets.c
	$(quiet) CC $<
	$(Q)$(CC) $(filter-out -MMD -MP -Wmissing-prototypes,$(ALL_CFLAGS)) -c -o $@ $<

# The version lives in one generated file, rewritten only when it changes,
# so that every object and binary of a build names the same one.
$(BUILD)/version.c: FORCE
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile: do not edit. */\n#include "version.h"\nconst char tapd_version[] = "%s";\n' \
		'$(VERSION)' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/version.o: $(BUILD)/version.c
	$(quiet) CC $<
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -c -o $@ $<

$(BUILD)/sql_migrations.o: $(BUILD)/sql_migrations.c
	$(quiet) CC $<
	$(Q)$(CC) $(filter-out -MMD -MP -Wmissing-prototypes,$(ALL_CFLAGS)) -c -o $@ $<

$(LIBTAPD): $(DAEMON_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(TAPD): $(BUILD)/daemon/main.o $(LIBTAPD)
	$(quiet) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Every test links the fixture its folder shares (tests/unit/fixture.c),
# which is no test of its own.
$(BUILD)/t/test_%: $(BUILD)/tests/unit/test_%.o $(BUILD)/tests/unit/fixture.o \
		$(LIBTAPD)
	$(quiet) LD $@
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(CMOCKA_LIBS)

# The client talks to tapd only over HTTP, so it shares no code with it
# but the build's version string, which both binaries print.
$(TAPCTL): $(CLIENT_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/version.o
	@mkdir -p $(dir $@)
	$(quiet) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CLIENT_LIBS) -lm -lpthread

# The simulator writes its formats with code of its own, not the daemon's:
# a ground truth that shared the parsers' bugs would prove nothing.  It
# links SQLite and cJSON only to compare a database with its truth file.
$(BUILD)/tapd-sim: $(SIM_SRCS:%.c=$(BUILD)/%.o)
	@mkdir -p $(dir $@)
	$(quiet) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

unit: $(UNIT_BINS)
e2e: $(TAPD) $(SIM)

# The Android builds and their tests (qemu-user, the arm64 VM, the Magisk
# install) belong to the normal check; the sanitizer build checks the
# native code only, as no sanitizer runtime exists for the static builds.
# The two real-kernel VMs run side by side (tests/vm/both.sh).
CHECK_ANDROID = $(if $(SAN),,$(sort $(wildcard tests/android/*.sh)))
CHECK_VM = $(if $(SAN),tests/vm/run.sh,tests/vm/both.sh)

check: vm-deps npm-deps
	$(Q)$(MAKE) --no-print-directory all unit fuzz-bins $(if $(SAN),,magisk)
	$(Q)BUILD=$(BUILD) sh tests/run.sh $(UNIT_BINS) $(sort $(wildcard tests/e2e/*.sh)) \
		tests/vm/magisk.sh $(CHECK_VM) $(CHECK_ANDROID)

# Sanitizer builds go to their own directory so they never mix with the
# normal objects.
asan: vm-deps
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		CFLAGS="-O1 -g" check

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/run-demo.sh $(TAPD) $(BUILD)

# libFuzzer targets: tests/fuzz/fuzz_NAME.c linked with the daemon sources,
# all compiled by clang with the fuzzer and sanitizers.  The daemon's
# objects are compiled once into their own directory and shared by every
# target, so that make check can afford to build them all.
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_NAMES := $(sort $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%))
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_FLAGS := -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	-std=gnu11 -D_GNU_SOURCE -Idaemon -I$(BUILD)
FUZZ_OBJS := $(DAEMON_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) \
	$(FUZZ_DIR)/obj/sql_migrations.o $(FUZZ_DIR)/obj/version.o \
	$(FUZZ_DIR)/obj/ui_assets.o
# make fuzz runs every target for 120 s unless FUZZ_SECONDS is given.
FUZZ_ALL_SECONDS = $(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),120)

$(FUZZ_DIR)/obj/%.o: %.c
	$(quiet) FUZZCC $<
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_WARN) \
		$(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/obj/sql_migrations.o: $(BUILD)/sql_migrations.c
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/obj/version.o: $(BUILD)/version.c
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/obj/ui_assets.o: $(BUILD)/ui_assets.c
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libtapd-fuzz.a: $(FUZZ_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# The targets themselves are held to the daemon's warnings.
$(FUZZ_DIR)/obj/tests/fuzz/%.o: FUZZ_WARN = $(WARN)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/libtapd-fuzz.a
	$(quiet) FUZZ $@
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $(filter %.o %.a,$^) $(LIBS)

# Every target, built (make check runs each over its seeds).
fuzz-bins: $(FUZZ_BINS)

fuzz-%: deps $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus-$*
	@seeds=""; [ -d tests/fuzz/seeds-$* ] && seeds=tests/fuzz/seeds-$*; \
	$(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/crash-$*- \
		$(FUZZ_DIR)/corpus-$* $$seeds

# Every target one after the other, then a table of what each did.
fuzz: deps $(FUZZ_BINS)
	$(Q)sh tests/fuzz/run-all.sh $(FUZZ_DIR) $(FUZZ_ALL_SECONDS) $(FUZZ_NAMES)

# Android: for each ABI, the libraries (android/libs.sh: built once from
# Debian's source packages, cached outside the tree) and then this
# Makefile again with that ABI's compiler, into build/android/ABI/obj.
# The stripped binaries land in build/android/ABI/; the unit tests stay
# in obj/t/ for the qemu-user runs of make check.
ANDROID_ABIS ?= arm64-v8a armeabi-v7a x86_64 x86
ANDROID_TESTS ?= arm64-v8a armeabi-v7a
ANDROID_CFLAGS ?= -O2 -g -ffunction-sections -fdata-sections

android: $(ANDROID_ABIS:%=$(BUILD)/android/%/tapd)

# Objects built with another toolchain or libraries are thrown away.
$(BUILD)/android/%/tapd: FORCE
	$(Q)prefix=$$(sh android/libs.sh $*) && obj=$(BUILD)/android/$*/obj && \
	if [ "$$(cat $$obj/.prefix 2>/dev/null)" != "$$prefix" ]; then \
		rm -rf $$obj && mkdir -p $$obj && echo "$$prefix" >$$obj/.prefix; \
	fi && \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/android/$*/obj \
		CC=$$prefix/toolchain/bin/cc \
		PKG_CONFIG="env PKG_CONFIG_LIBDIR=$$prefix/lib/pkgconfig pkg-config --static" \
		CFLAGS="$(ANDROID_CFLAGS)" \
		LDFLAGS="-Wl,--gc-sections -Wno-unused-command-line-argument" \
		DEFS=-DTAPD_ANDROID=1 SAN= STRIP=$$prefix/toolchain/bin/strip \
		ANDROID_OUT=$(BUILD)/android/$* \
		ANDROID_UNIT=$(if $(filter $*,$(ANDROID_TESTS)),1) android-bins

# Run by the rule above, inside the ABI's build.
android-bins: $(TAPD) $(TAPCTL) $(SIM) $(if $(ANDROID_UNIT),$(UNIT_BINS))
	@mkdir -p $(ANDROID_OUT)
	$(quiet) STRIP $(ANDROID_OUT)
	$(Q)for b in tapd tapctl tapd-sim; do \
		$(STRIP) -o $(ANDROID_OUT)/$$b.tmp $(BUILD)/$$b && \
		mv $(ANDROID_OUT)/$$b.tmp $(ANDROID_OUT)/$$b || exit 1; \
	done

# The Magisk module with every ABI's binaries.
magisk: android
	VERSION=$(VERSION) sh init/magisk/pack.sh $(BUILD)/android $(BUILD)/tapd-magisk.zip

# Endurance: kill -9 of tapd, its perfetto killed, a full disk, the API
# under load; a table at the end (tests/soak/run.sh; SOAK_SCALE=0.1 for a
# short run).  Minutes long, so not part of check.
soak: all
	$(Q)BUILD=$(BUILD) bash tests/soak/run.sh

# Benchmarks: figures printed, nothing asserted.
bench-replay: all
	bash bench/replay.sh

bench-query: all
	bash bench/query/run.sh

# wrk against tapd serve on the 1 M-tap file (cached outside the tree by
# bench/http/db.sh), then against a paced replay into a copy of it.
bench-http: deps all
	BUILD=$(BUILD) bash bench/http/run.sh

# Every bench-* target there is, then one table of their bench-row lines.
bench: deps all
	BUILD=$(BUILD) bash bench/run.sh
# tapd run's own cost, live, for 3 minutes (BENCH_LIVE_SECONDS=120 of taps,
# then BENCH_LIVE_IDLE_SECONDS=60 idle; bench/live/run.sh explains it), of
# this build and, side by side, of the static Android x86_64 one, the
# binary a phone runs, when it can be built here (its libraries are
# cached; an x86_64 machine runs it).
bench-live: all
	$(Q)android=$(BUILD)/android/x86_64/tapd; \
	if [ "$$(uname -m)" != x86_64 ] || ! $(MAKE) --no-print-directory \
		android ANDROID_ABIS=x86_64 >$(BUILD)/bench-live-android.log 2>&1; then \
		echo "bench-live: no static Android x86_64 build (see $(BUILD)/bench-live-android.log)"; \
		android=; \
	fi; \
	BUILD=$(BUILD) BENCH_LIVE_ANDROID=$$android bash bench/live/run.sh

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	clang-format --dry-run -Werror $(FORMAT_SRCS)

install: $(TAPD) $(TAPCTL)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(TAPD) $(DESTDIR)$(BINDIR)/tapd
	install -m 755 $(TAPCTL) $(DESTDIR)$(BINDIR)/tapctl
	install -m 644 docs/tapd.8 $(DESTDIR)$(MANDIR)/man8/tapd.8
	install -m 644 docs/tapctl.1 $(DESTDIR)$(MANDIR)/man1/tapctl.1

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
