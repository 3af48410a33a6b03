# Strata: `make` builds build/bin/strata, `make demo` trains on the synthetic graph,
# `make test` runs every test. Each target installs missing Debian packages first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DSTRATA_WERROR=ON
endif

.PHONY: all deps configure build demo test test-sanitize fuzz clean format

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD)/bin/strata

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (CPU-only build).
# Leak checking is off: OpenMPI's runtime keeps allocations until exit by design.
SANITIZE_BUILD ?= build-sanitize
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DSTRATA_SANITIZE=ON -DSTRATA_WITH_CUDA=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer targets for every input reader (tests/fuzz), built with clang in build-fuzz and
# run one after another for FUZZ_SECONDS each; FUZZ_TARGETS picks some (default: all).
FUZZ_SECONDS ?= 600
FUZZ_BUILD ?= build-fuzz
FUZZ_TARGETS ?=
fuzz:
	@STRATA_WITH_FUZZ=1 bash scripts/install-deps.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(FUZZ_BUILD) JOBS=$(JOBS) bash scripts/fuzz.sh $(FUZZ_TARGETS)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h' '*.cu')

clean:
	rm -rf $(BUILD)
