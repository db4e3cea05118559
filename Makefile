# pingcli: `make demo` and `make test` are all a fresh Debian machine needs.
SWIFT     ?= swift
PREFIX    ?= /usr/local
DESTDIR   ?=
# Debian packages the build and the demo need (`make release`, `make demo`; binutils' nm and readelf for
# `make symbol-order` and `make bench`), and those the tests need too (valgrind for `make bench`'s
# instruction counts and `make symbol-order`; ca-certificates for the tests that name its bundle, which apt
# no longer brings as a recommended package). TOOLCHAIN_PACKAGES: what the Swift toolchain itself needs
# on Debian 12 to build (its driver's and linker's libraries, the C library's headers and start files,
# libgcc and libstdc++ for the static Swift runtime); a minimal Debian root has none of them.
TOOLCHAIN_PACKAGES := libncurses6 libsqlite3-0 libxml2 libc6-dev libgcc-12-dev libstdc++-12-dev
BUILD_PACKAGES := libsodium-dev libcurl4-openssl-dev libssl-dev libtss2-dev libfido2-dev pkg-config curl binutils $(TOOLCHAIN_PACKAGES)
DEB_PACKAGES := $(BUILD_PACKAGES) ca-certificates openssl socat git zsh fish man-db libqrencode4 dbus gnome-keyring libsecret-1-0 \
  libsecret-tools keyutils valgrind jq oathtool libtss2-esys-3.0.2-0 libtss2-tctildr0 libtss2-tcti-swtpm0 libtss2-mu0 swtpm \
  swtpm-tools tpm2-tools awscli python3-venv libfido2-1 python3-fido2 publicsuffix
# Debian's kubectl for the kubectl test. When another package (a cloud SDK's kubectl) owns
# /usr/bin/kubectl, dpkg refuses it: it is then unpacked into $(TOOLS) instead, where the test looks.
TOOLS     := .build/tools
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# CI treats warnings as errors.
WERROR    := $(if $(CI),-Xswiftc -warnings-as-errors,)
# A target that imports another it does not declare in Package.swift fails the build: the layers'
# order (docs/architecture.md) is then the compiler's, not only in a clean build.
IMPORT_CHECK := --explicit-target-dependency-import-check error
# The Swift runtime uses a handful of C++ runtime symbols; loading libstdc++.so and libgcc_s.so for them
# cost about 0.7 ms of every start (docs/performance.md). A linker script named libstdc++.so in
# .build-link, searched first, hands the linker the static archives instead. Skipped where the static
# archives are not installed (the binary then links them dynamically, as before).
LIBSTDCXX_A := $(shell clang -print-file-name=libstdc++.a 2>/dev/null)
LIBGCC_EH_A := $(shell clang -print-file-name=libgcc_eh.a 2>/dev/null)
STATIC_CXX   := $(if $(and $(wildcard $(LIBSTDCXX_A)),$(wildcard $(LIBGCC_EH_A))),$(CURDIR)/.build-link/libstdc++.so)
# libsodium the same way (loading libsodium.so cost about 0.13 ms a start): libsodium-dev ships the static
# archive. pkg-config's -L for the system directory would come before .build-link on the link line, so
# the release build reads a libsodium.pc from .build-link (PKG_CONFIG_PATH) that names .build-link.
SODIUM_PC     := $(shell pkg-config --variable=pcfiledir libsodium 2>/dev/null)/libsodium.pc
SODIUM_A      := $(shell pkg-config --variable=libdir libsodium 2>/dev/null)/libsodium.a
STATIC_SODIUM := $(if $(and $(wildcard $(SODIUM_PC)),$(wildcard $(SODIUM_A))),$(CURDIR)/.build-link/libsodium.pc)
STATIC_LIBS   := $(STATIC_CXX) $(STATIC_SODIUM)
# No $ORIGIN run path: the binary loads no library of its own, so nothing is looked for beside it.
# Generic type metadata through accessor functions rather than mangled names that the runtime demangles
# on first use (about 0.1 ms of every start, docs/performance.md).
NO_MANGLED_ACCESSORS := -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# Linked by lld (in the toolchain; gold, the toolchain's default, cannot) with packed relative relocations
# (DT_RELR, read by glibc 2.36): the dynamic loader applies the 21,000 relative relocations of the
# position-independent image from a 4 KB bitmap instead of a 500 KB table. And no symbol of pingcli's own
# exported (`--export-dynamic` came with the static standard library's link arguments): glibc's dladdr,
# which the runtime calls at start-up, walks every exported symbol. Together 0.19 M instructions of every
# start (docs/performance.md); PIE and ASLR stay, and lld adds a RELRO segment GNU ld was not asked for.
# The functions a `token --raw` executes are placed together (SYMBOL_ORDER, `make symbol-order`): the
# kernel maps 64 KB around each page fault of the binary, and scattered over 6 MB of text they made the
# peak RSS 7 MB instead of under 5.
SYMBOL_ORDER  := $(CURDIR)/Sources/pingcli/symbol-order.txt
RELEASE_LINK  := -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xlinker --symbol-ordering-file=$(SYMBOL_ORDER) -Xlinker --no-warn-symbol-ordering
# The layers are separate modules: cross-module optimisation lets the optimiser inline and specialise
# across them as it did within the one module they were (docs/performance.md).
CMO           := -Xswiftc -cross-module-optimization
# Each function of pingcli's modules in a section of its own, so that SYMBOL_ORDER places the functions a
# `token --raw` runs, not the whole file each is in, together (docs/performance.md, issue 29).
FUNCTION_SECTIONS := -Xswiftc -Xfrontend -Xswiftc -function-sections
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath $(NO_MANGLED_ACCESSORS) $(CMO) $(FUNCTION_SECTIONS) $(RELEASE_LINK) \
  $(if $(strip $(STATIC_LIBS)),-Xswiftc -L$(CURDIR)/.build-link)
RELEASE_SWIFT := $(if $(STATIC_SODIUM),PKG_CONFIG_PATH=$(CURDIR)/.build-link) $(SWIFT)

# The front (Sources/pingcli-front; docs/performance.md, "The front"): what PREFIX/bin/pingcli is once
# installed. It answers `pingcli token --raw` on a plain cache hit without the Swift runtime (Embedded Swift,
# whole-module, a static PIE with libsodium's archive linked in) and runs the full binary, installed as
# PREFIX/libexec/pingcli/pingcli, for everything else. swiftc beside the swift that builds the rest.
SWIFTC        ?= $(or $(wildcard $(dir $(shell command -v $(SWIFT) 2>/dev/null))swiftc),swiftc)
FRONT         := $(CURDIR)/.build/front/pingcli
FRONT_DIR     := Sources/pingcli-front
FRONT_SOURCES := $(wildcard $(FRONT_DIR)/*.swift) $(FRONT_DIR)/CFront/front.h $(FRONT_DIR)/CFront/module.modulemap
FRONT_FLAGS   := -target $(shell uname -m)-unknown-linux-gnu -enable-experimental-feature Embedded -wmo -Osize -parse-as-library \
  -use-ld=lld -Xclang-linker -static-pie

.PHONY: screenshots all deps build-deps install-packages deps-kubectl deps-moto build release release-binaries front front-binary emulator build-release test test-sanitize fuzz demo bench bench-base bench-refresh dist-files install uninstall deb lint format clean help symbol-order

# make fuzz: seconds per target, and the targets (see Sources/pingcli-fuzz/main.swift).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := loopback-request jwt cache-file json gate git-credential journey sts webauthn
FUZZ_FLAGS := -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPINGCLI_FUZZING \
  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --scratch-path .build-fuzz

all: build

help:
	@echo "make deps | build | release | emulator | test | demo | bench | bench-refresh | symbol-order | install PREFIX=… | deb | screenshots | lint | format | clean"

## deps: install the Debian packages the build and the tests need that are missing (apt-get, as root or
## with sudo, without recommended packages), Debian's kubectl for the kubectl test, and moto (PyPI) in
## .build/tools for the AWS CLI test
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_PACKAGES)" \
	  WHY="to build pingcli and run its tests (shells, git, man, a keyring, valgrind, the AWS CLI)"
	@$(MAKE) --no-print-directory deps-kubectl
	@$(MAKE) --no-print-directory deps-moto

## build-deps: only what building pingcli and running the demo need (no test tools such as kubectl)
build-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES)" WHY="to build pingcli"

# Only the packages named, never their recommended ones (apt would otherwise add systemd, GTK and gdb).
install-packages:
	@missing=""; for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages$(if $(WHY), $(WHY)):$$missing (apt-get, without recommended packages)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-kubectl:
	@if ! dpkg-query -W -f='$${Status}' kubernetes-client 2>/dev/null | grep -q "install ok installed" \
	    && [ ! -x $(TOOLS)/kubernetes-client/usr/bin/kubectl ]; then \
	  owner=$$(dpkg-query -S /usr/bin/kubectl 2>/dev/null | cut -d: -f1); \
	  if [ -z "$$owner" ]; then \
	    echo "installing Debian packages for the kubectl test: kubernetes-client (apt-get, without recommended packages)"; \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends kubernetes-client; \
	  else \
	    echo "/usr/bin/kubectl belongs to $$owner: unpacking Debian's kubernetes-client into $(TOOLS)"; \
	    mkdir -p $(TOOLS)/download && cd $(TOOLS)/download && apt-get download -qq kubernetes-client 2>/dev/null \
	      && dpkg-deb -x kubernetes-client_*.deb ../kubernetes-client; \
	  fi; \
	fi

# moto's STS server (PyPI) for the AWS CLI tests (Tests/EndToEndTests/AWSCLITests.swift), in the tests'
# own virtual environment under $(TOOLS), with Debian's python3; nothing is installed system-wide.
MOTO_VENV := $(TOOLS)/moto-venv
MOTO_VERSION ?= 5.2.6
deps-moto:
	@if [ ! -x $(MOTO_VENV)/bin/moto_server ]; then \
	  echo "installing moto $(MOTO_VERSION) (PyPI) into $(MOTO_VENV) for the AWS CLI tests"; \
	  /usr/bin/python3 -m venv $(MOTO_VENV) && $(MOTO_VENV)/bin/pip install -q "moto[server]==$(MOTO_VERSION)"; \
	fi

## build: debug build of everything
build: deps
	$(SWIFT) build $(IMPORT_CHECK) $(WERROR)

## release: the optimised pingcli, with the Swift runtime linked in statically (pingcli alone: the demo and
## the benchmarks build the emulator they need, `make emulator`)
# The pkg-config and clang probes above are read when make reads this file: on a fresh machine that is
# before build-deps has installed libsodium-dev, so the build itself runs in a second make, which probes
# again once the packages are there (and links libsodium's static archive, as the README says).
release: build-deps
	@$(MAKE) --no-print-directory release-binaries

release-binaries: $(STATIC_LIBS) front-binary
	$(RELEASE_SWIFT) build $(RELEASE_FLAGS) --product pingcli
	@echo "built $$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/pingcli and its front $(FRONT)"

## front: the front alone (.build/front/pingcli), which `make test`, `install` and `bench` build first
front: build-deps
	@$(MAKE) --no-print-directory front-binary

front-binary: $(FRONT)

$(FRONT): $(FRONT_SOURCES)
	@[ -n "$(SODIUM_A)" ] && [ -f "$(SODIUM_A)" ] || { echo "the front links libsodium's static archive: install libsodium-dev (make deps)" >&2; exit 2; }
	@mkdir -p $(dir $@)
	@rm -f $@
	$(SWIFTC) $(FRONT_FLAGS) -I $(FRONT_DIR)/CFront $(filter %.swift,$^) -o $@ -Xlinker $(SODIUM_A) 2>$@.log || { cat $@.log >&2; exit 1; }
	@grep -v "argument unused during compilation: '-pie'" $@.log >&2 || true

## emulator: the optimised ping-emulator (Sources/Emulator/README.md), for the demo and the benchmarks
emulator: build-deps $(STATIC_LIBS)
	$(RELEASE_SWIFT) build $(RELEASE_FLAGS) --product ping-emulator

## build-release: the optimised pingcli alone, without checking Debian packages (install and deb use it)
build-release: $(STATIC_LIBS)
	$(RELEASE_SWIFT) build $(RELEASE_FLAGS) --product pingcli

## test: unit, emulator, integration and end-to-end tests (in CI also the format check)
test: deps $(if $(CI),lint)
	@$(MAKE) --no-print-directory front-binary
	$(SWIFT) build --build-tests $(IMPORT_CHECK) $(WERROR)
	$(SWIFT) test --skip-build

## test-sanitize: the test suite under AddressSanitizer, then ThreadSanitizer (separate build folders)
test-sanitize: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Support/lsan-suppressions.txt \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan

## fuzz: each libFuzzer target for FUZZ_SECONDS, seeded from Tests/Fuzz/corpus; crashes land in .build-fuzz/artifacts
fuzz: deps
	$(SWIFT) build $(FUZZ_FLAGS) --product pingcli-fuzz
	@mkdir -p .build-fuzz/artifacts
	@set -e; for target in $(FUZZ_TARGETS); do \
	  mkdir -p .build-fuzz/corpus/$$target; \
	  echo "== fuzzing $$target for $(FUZZ_SECONDS) s"; \
	  PINGCLI_FUZZ_TARGET=$$target "$$($(SWIFT) build $(FUZZ_FLAGS) --show-bin-path)/pingcli-fuzz" \
	    -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=.build-fuzz/artifacts/$$target- \
	    .build-fuzz/corpus/$$target Tests/Fuzz/corpus/$$target 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|Done)" || true; \
	done
	@if ls .build-fuzz/artifacts/* >/dev/null 2>&1; then echo "crashes:"; ls .build-fuzz/artifacts; exit 1; fi

$(CURDIR)/.build-link/libstdc++.so:
	@mkdir -p $(dir $@)
	@printf 'INPUT(%s %s)\n' "$(LIBSTDCXX_A)" "$(LIBGCC_EH_A)" > $@

$(CURDIR)/.build-link/libsodium.pc:
	@mkdir -p $(dir $@)
	@printf 'INPUT(%s)\n' "$(SODIUM_A)" > $(dir $@)libsodium.so
	@sed 's|^Libs:.*|Libs: -L$(CURDIR)/.build-link -lsodium|' "$(SODIUM_PC)" > $@

## demo: the login lifecycle against the emulator, in a throw-away HOME
demo: release emulator
	@bash Tests/Support/demo.sh "$$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

# What `make bench` compares pingcli with, and measures with.
BENCH_PACKAGES := hyperfine oidc-agent-cli gh time libc6-dev valgrind strace

## bench: `token --raw` beside the C floor, cat, oidc-token and gh auth token (one hyperfine run),
## status/profiles with 1, 100 and 1,000 profiles, and status --all on 1,000 profiles beside token --raw
## (the goal: at most 20 times); with BASE=REV (a commit) also REV's release build, in the same run
## (built once in a clone under .build/bench-base/REV)
BASE ?=
BASE_DIR = $(CURDIR)/.build/bench-base/$(BASE)
bench: release emulator $(if $(BASE),bench-base)
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BENCH_PACKAGES)"
	@BENCH_FRONT="$(FRONT)" BENCH_BASE_NAME="$(BASE)" bash Tests/Support/bench.sh "$$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" $(if $(BASE),"$(BASE_DIR)/src/.build/release")

bench-base:
	@git rev-parse -q --verify "$(BASE)^{commit}" >/dev/null || { echo "BASE=$(BASE) is not a commit of this repository" >&2; exit 2; }
	@[ -d "$(BASE_DIR)/src" ] || { git clone -q --no-checkout . "$(BASE_DIR)/src" && git -C "$(BASE_DIR)/src" checkout -q --detach "$(BASE)"; }
	$(MAKE) --no-print-directory -C "$(BASE_DIR)/src" release-binaries SWIFT="$(SWIFT)"

## symbol-order: rewrite Sources/pingcli/symbol-order.txt from a callgrind run of the release build
# (SwiftPM does not know the file is a link input: the binary is removed so that the next build relinks.)
symbol-order: release emulator
	@bash Tests/Support/symbol-order.sh "$$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" "$(SYMBOL_ORDER)"
	rm -f "$$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/pingcli"

## bench-refresh: 50 and 200 parallel `token --raw` needing a refresh: healthy, slow, 503 and hanging server
bench-refresh: release emulator
	@bash Tests/Support/bench-refresh.sh "$$($(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

# What install and deb package: the release build, or PINGCLI_BIN (the test suite passes its debug build,
# so the recipes are tested without a release build inside the tests).
PINGCLI_BIN ?=
BIN        = $(or $(PINGCLI_BIN),$(shell $(RELEASE_SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/pingcli)
BUILD_BIN  = $(if $(PINGCLI_BIN),,build-release)
VERSION   := $(shell sed -n 's/.*current = "\(.*\)"/\1/p' Sources/PingBase/Version.swift)
DEB_ARCH  := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
# Generated files (man page, completions) and the package are made here.
DIST      ?= .build/dist
DEB_DIR   ?= .build/deb
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
MAN_DIR   ?= $(PREFIX)/share/man/man1

## dist-files: the man page and the completion scripts, generated by pingcli itself from its command table
dist-files: $(BUILD_BIN)
	@mkdir -p "$(DIST)"
	"$(BIN)" --help-man | gzip -9n > "$(DIST)/pingcli.1.gz"
	"$(BIN)" completion bash > "$(DIST)/pingcli.bash"
	"$(BIN)" completion zsh > "$(DIST)/_pingcli"
	"$(BIN)" completion fish > "$(DIST)/pingcli.fish"

## install: the front as PREFIX/bin/pingcli and the full binary as PREFIX/libexec/pingcli/pingcli (both
## stripped; the full binary's debug symbols kept in $(DIST)/pingcli.debug, which it names with a GNU debug
## link, for gdb and crash analysis), the man page and the completions under PREFIX (and DESTDIR); never runs
## apt-get. The build's own binaries keep their symbols (make bench, make symbol-order).
LIBEXEC_DIR = $(PREFIX)/libexec/pingcli
install: dist-files front-binary
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(LIBEXEC_DIR)" "$(DESTDIR)$(MAN_DIR)" "$(DESTDIR)$(BASH_COMPLETION_DIR)" \
	  "$(DESTDIR)$(ZSH_COMPLETION_DIR)" "$(DESTDIR)$(FISH_COMPLETION_DIR)"
	objcopy --only-keep-debug "$(BIN)" "$(DIST)/pingcli.debug"
	objcopy --strip-all --add-gnu-debuglink="$(DIST)/pingcli.debug" "$(BIN)" "$(DIST)/pingcli"
	objcopy --strip-all "$(FRONT)" "$(DIST)/pingcli-front"
	install -m 0755 "$(DIST)/pingcli" "$(DESTDIR)$(LIBEXEC_DIR)/pingcli"
	install -m 0755 "$(DIST)/pingcli-front" "$(DESTDIR)$(PREFIX)/bin/pingcli"
	install -m 0644 "$(DIST)/pingcli.1.gz" "$(DESTDIR)$(MAN_DIR)/pingcli.1.gz"
	install -m 0644 "$(DIST)/pingcli.bash" "$(DESTDIR)$(BASH_COMPLETION_DIR)/pingcli"
	install -m 0644 "$(DIST)/_pingcli" "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_pingcli"
	install -m 0644 "$(DIST)/pingcli.fish" "$(DESTDIR)$(FISH_COMPLETION_DIR)/pingcli.fish"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/pingcli" "$(DESTDIR)$(LIBEXEC_DIR)/pingcli" "$(DESTDIR)$(MAN_DIR)/pingcli.1.gz" \
	  "$(DESTDIR)$(BASH_COMPLETION_DIR)/pingcli" "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_pingcli" "$(DESTDIR)$(FISH_COMPLETION_DIR)/pingcli.fish"
	rmdir "$(DESTDIR)$(LIBEXEC_DIR)" 2>/dev/null || true

# The package's maintainer: DEBFULLNAME and DEBEMAIL, as Debian's own tools read them; without DEBEMAIL,
# git's user.email unless it is on a reserved example domain (RFC 2606: .example, .invalid, .test,
# .localhost), then user@host (what dch falls back to). The project has no address of its own to put here.
DEBFULLNAME ?= pingcli maintainers
GIT_EMAIL   := $(shell git config user.email 2>/dev/null | grep -Ev '\.(example|invalid|test|localhost)$$')
DEBEMAIL    ?= $(or $(GIT_EMAIL),$(shell echo "$$(id -un)@$$(hostname -f 2>/dev/null || hostname)"))
MAINTAINER  := $(DEBFULLNAME) <$(DEBEMAIL)>
DOC_DIR      = $(DEB_DIR)/root/usr/share/doc/pingcli

## deb: $(DEB_DIR)/pingcli_VERSION_ARCH.deb with dpkg-deb (the release binary links the Swift runtime and
## libsodium in), and its debug symbols in pingcli-dbgsym_VERSION_ARCH.deb, as Debian ships them: the file
## /usr/lib/debug/usr/libexec/pingcli/pingcli.debug, the name the full binary's debug link gives, where gdb looks for it. Depends is read from the binary
## itself: libsodium23 only when it loads libsodium.so.23 (a build without the static archive); libcurl4 and
## libssl3 (libcrypto, RSA and ECDSA signatures) always, both loaded with dlopen. Recommends: libqrencode4
## (the device flow's QR code), libsecret-1-0 (the desktop keyring's key store) and tpm2-tss's
## libtss2-esys-3.0.2-0, libtss2-mu0 and libtss2-tctildr0 (device keys in the TPM) and libfido2-1 (a
## security key in a WebAuthn step), each loaded with dlopen when present; Suggests: gnome-keyring, a Secret Service for libsecret to talk to.
## /usr/share/doc/pingcli holds the machine-readable copyright file (LICENSE's text) and changelog.gz.
deb: dist-files
	rm -rf "$(DEB_DIR)/root"
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR="$(DEB_DIR)/root" PINGCLI_BIN="$(BIN)" DIST="$(DIST)"
	rm -rf "$(DEB_DIR)/dbgsym" "$(DEB_DIR)"/pingcli_*.debug
	install -d "$(DEB_DIR)/dbgsym/DEBIAN" "$(DEB_DIR)/dbgsym/usr/lib/debug/usr/libexec/pingcli" "$(DEB_DIR)/dbgsym/usr/share/doc"
	install -m 0644 "$(DIST)/pingcli.debug" "$(DEB_DIR)/dbgsym/usr/lib/debug/usr/libexec/pingcli/$$(objcopy --dump-section .gnu_debuglink=/dev/stdout "$(DEB_DIR)/root/usr/libexec/pingcli/pingcli" | head -z -n 1 | tr -d '\000')"
	ln -s pingcli "$(DEB_DIR)/dbgsym/usr/share/doc/pingcli-dbgsym"
	printf '%s\n' "Package: pingcli-dbgsym" "Version: $(VERSION)" "Architecture: $(DEB_ARCH)" "Maintainer: $(MAINTAINER)" \
	  "Depends: pingcli (= $(VERSION))" "Section: debug" "Priority: optional" "Description: debug symbols for pingcli" \
	  " For gdb and crash analysis of /usr/libexec/pingcli/pingcli, which names this file in its debug link." > "$(DEB_DIR)/dbgsym/DEBIAN/control"
	chmod 0644 "$(DEB_DIR)/dbgsym/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$(DEB_DIR)/dbgsym" "$(DEB_DIR)/pingcli-dbgsym_$(VERSION)_$(DEB_ARCH).deb"
	install -d "$(DEB_DIR)/root/DEBIAN" "$(DOC_DIR)"
	{ printf '%s\n' "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "Upstream-Name: pingcli" \
	    "" "Files: *" "Copyright: 2026 pingcli maintainers" "License: Apache-2.0" "" "License: Apache-2.0"; \
	  sed -e 's/^[[:space:]]*$$/./' -e 's/^/ /' LICENSE; } > "$(DOC_DIR)/copyright"
	gzip -9n < CHANGELOG.md > "$(DOC_DIR)/changelog.gz"
	chmod 0644 "$(DOC_DIR)/copyright" "$(DOC_DIR)/changelog.gz"
	depends="libcurl4, libssl3"; if objdump -p "$(BIN)" | grep -q 'NEEDED *libsodium\.so\.23'; then depends="libsodium23, $$depends"; fi; \
	printf '%s\n' "Package: pingcli" "Version: $(VERSION)" "Architecture: $(DEB_ARCH)" \
	  "Maintainer: $(MAINTAINER)" "Depends: $$depends" "Recommends: libqrencode4, libsecret-1-0, libtss2-esys-3.0.2-0, libtss2-mu0, libtss2-tctildr0, libfido2-1" "Suggests: gnome-keyring" \
	  "Section: utils" "Priority: optional" \
	  "Description: sign in to PingOne, PingFederate or any OpenID provider, and hand tokens to scripts" \
	  " Signs in with the system browser (RFC 8252, PKCE), keeps the tokens encrypted, and hands fresh" \
	  " tokens to scripts, kubectl (ExecCredential) and git (credential helper)." \
	  > "$(DEB_DIR)/root/DEBIAN/control"
	chmod 0644 "$(DEB_DIR)/root/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$(DEB_DIR)/root" "$(DEB_DIR)/pingcli_$(VERSION)_$(DEB_ARCH).deb"

## screenshots: the sign-in pages (success, failure) as the tests received them, light and dark, by headless Chromium
SCREENSHOTS ?= .build/screenshots
CHROMIUM  := chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,520
screenshots: deps
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }
	$(SWIFT) build --build-tests
	rm -rf "$(SCREENSHOTS)" && mkdir -p "$(SCREENSHOTS)"
	PINGCLI_PAGES_DIR="$(abspath $(SCREENSHOTS))" $(SWIFT) test --skip-build --filter PagesTests
	@for page in success failure; do \
	  $(CHROMIUM) --screenshot="$(abspath $(SCREENSHOTS))/$$page-light.png" "file://$(abspath $(SCREENSHOTS))/$$page.html" 2>/dev/null; \
	  $(CHROMIUM) --force-dark-mode --blink-settings=preferredColorScheme=0 \
	    --screenshot="$(abspath $(SCREENSHOTS))/$$page-dark.png" "file://$(abspath $(SCREENSHOTS))/$$page.html" 2>/dev/null; \
	done
	@ls -1 "$(SCREENSHOTS)"/*.png

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive --parallel Package.swift Sources Tests

clean:
	rm -rf .build .build-link
