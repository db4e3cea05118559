# pingcli: `make demo` and `make test` are all a fresh Debian machine needs.
SWIFT     ?= swift
PREFIX    ?= /usr/local
DESTDIR   ?=
# Debian packages the build, the tests and the demo need.
DEB_PACKAGES := libsodium-dev libcurl4-openssl-dev pkg-config curl openssl socat libqrencode4
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# CI treats warnings as errors.
WERROR    := $(if $(CI),-Xswiftc -warnings-as-errors,)
RELEASE_FLAGS := -c release --static-swift-stdlib

.PHONY: all deps build release test test-sanitize fuzz demo bench bench-refresh install uninstall lint format clean help

# make fuzz: seconds per target, and the targets (see Sources/pingcli-fuzz/main.swift).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := loopback-request jwt cache-file json gate
FUZZ_FLAGS := -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPINGCLI_FUZZING \
  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --scratch-path .build-fuzz

all: build

help:
	@echo "make deps | build | release | test | demo | bench | bench-refresh | install PREFIX=… | lint | format | clean"

## deps: install the Debian packages that are missing (apt-get, as root or with sudo)
deps:
	@missing=""; for package in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## build: debug build of everything
build: deps
	$(SWIFT) build $(WERROR)

## release: optimised binaries with the Swift runtime linked in statically
release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product pingcli
	$(SWIFT) build $(RELEASE_FLAGS) --product ping-emulator
	@echo "built $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/pingcli"

## test: unit, emulator, integration and end-to-end tests (in CI also the format check)
test: deps $(if $(CI),lint)
	$(SWIFT) build --build-tests $(WERROR)
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

## demo: the login lifecycle against the emulator, in a throw-away HOME
demo: release
	@bash Tests/Support/demo.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

## bench: start-up and `token --raw` cost, measured with hyperfine
bench: release
	@command -v hyperfine >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq hyperfine; }
	@bash Tests/Support/bench.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

## bench-refresh: 50 and 200 parallel `token --raw` needing a refresh: healthy, slow, 503 and hanging server
bench-refresh: release
	@bash Tests/Support/bench-refresh.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/pingcli" "$(DESTDIR)$(PREFIX)/bin/pingcli"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/pingcli"

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive --parallel Package.swift Sources Tests

clean:
	rm -rf .build
