# The two commands of the README: `make run` and `make test`. Both set the machine up first
# (scripts/setup is idempotent and quick when everything is there).
BUILD ?= build
# ccache hits across clones in different directories (CI builds a fresh clone).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all setup configure build run test bench clean

all: build

setup:
	@./scripts/setup

# The benchmarks are built by `make build` (and `make run`), not by `make test`: no test runs them.
MINK_BENCH ?= ON

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DMINK_BUILD_BENCH=$(MINK_BENCH) >/dev/null

build: configure
	@ninja -C $(BUILD) -j $(JOBS)

# Starts a node on the embedded default: SQLite metadata and file:// objects under ./data.
run: build
	./$(BUILD)/bin/mink serve $(ARGS)

# Every test, with PostgreSQL and an S3 server started for the run and stopped after it.
test: MINK_BENCH = OFF
test: build
	./scripts/with-test-services ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) \
		--timeout 600

clean:
	rm -rf $(BUILD)
