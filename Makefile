# Kith — build, run and test.
#
#   make run     install missing Debian packages, build, serve on ./data
#   make test    the same set-up, then every test
#   make bench   release build, then the benchmark table (needs wrk)
#
# Debian packages Kith builds against. tzdata: time zones for tally resets.
DEB_PACKAGES := libsqlite3-dev libssl-dev libcmark-dev tzdata
# Only the benchmark needs these; `make bench` installs them the same way.
BENCH_PACKAGES := wrk

SWIFT ?= swift
SWIFT_FLAGS ?=
ARGS ?=

.PHONY: all deps build release run test bench bench-deps clean map

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
	$(SWIFT) build -c release $(SWIFT_FLAGS)

run: build
	$(SWIFT) run $(SWIFT_FLAGS) kith serve $(ARGS)

test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

bench-deps:
	$(call ensure_packages,$(BENCH_PACKAGES))

bench: release bench-deps
	$(SWIFT) build -c release --product kith-bench $(SWIFT_FLAGS)
	Scripts/bench.sh

clean:
	rm -rf .build
