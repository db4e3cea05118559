# pingcli: `make demo` and `make test` are all a fresh Debian machine needs.
SWIFT     ?= swift
PREFIX    ?= /usr/local
DESTDIR   ?=
# Debian packages the build, the tests and the demo need.
DEB_PACKAGES := libsodium-dev libcurl4-openssl-dev pkg-config curl
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# CI treats warnings as errors.
WERROR    := $(if $(CI),-Xswiftc -warnings-as-errors,)
RELEASE_FLAGS := -c release --static-swift-stdlib

.PHONY: all deps build release test demo bench install uninstall lint format clean help

all: build

help:
	@echo "make deps | build | release | test | demo | bench | install PREFIX=… | lint | format | clean"

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

## demo: the login lifecycle against the emulator, in a throw-away HOME
demo: release
	@bash Tests/Support/demo.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

## bench: start-up and `token --raw` cost, measured with hyperfine
bench: release
	@command -v hyperfine >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq hyperfine; }
	@bash Tests/Support/bench.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

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
