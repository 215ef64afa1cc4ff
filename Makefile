# attnviz: `make run` and `make test` do everything on a fresh Debian 12 machine (as root).
BUILD ?= build
JOBS ?= $(shell nproc)
SAMPLES ?= assets/sentences.txt

.PHONY: all deps configure build run test bench bench-long install deb clean tiny-model tiny-seq2seq fuzz test-sanitize test-tsan test-asan

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Opens the desktop app on the built-in sample sentences (falls back to a CLI dump when the app is not built).
run: build
	@if [ -x $(BUILD)/attnviz ]; then ./$(BUILD)/attnviz --text-file $(SAMPLES); \
	else ./$(BUILD)/attnviz-cli compute --text-file $(SAMPLES) --dump out && echo "dump written to ./out/"; fi

test: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	@bash scripts/install-deps.sh --bench
	@bash bench/run.sh $(BUILD)

# Only the trained-model rows on long inputs (n = 1024..8192; part of make bench too).
bench-long: build
	@bash bench/model/long.sh $(BUILD)

# Installs attnviz and attnviz-cli (data, desktop entry, icons, man pages, completion) into $(PREFIX).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# A .deb for other machines: its own build without -march=native, then cpack (Depends from dpkg-shlibdeps).
DEB_BUILD ?= build-deb
deb: deps
	@cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_NATIVE=OFF >/dev/null
	@cmake --build $(DEB_BUILD) -j$(JOBS)
	@cd $(DEB_BUILD) && cpack -G DEB && ls -l $(CURDIR)/$(DEB_BUILD)/attnviz_*.deb

# Retrains the bundled model assets/models/tiny (and its held-out test fixtures) from Debian-packaged text:
# python3-torch, ~12 minutes on 2 cores under load (one thread), seeded. Never part of `make test`; its outputs are committed.
tiny-model:
	@for p in python3-torch python3-numpy python3-regex fortunes fortunes-min debian-faq-ko; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update && apt-get install -y --no-install-recommends $$missing; fi
	@/usr/bin/python3 scripts/train_tiny_model.py

# Retrains the bundled encoder-decoder model assets/models/tiny-seq2seq (a Marian folder: dates written out in English
# or Korean -> ISO 8601) and its held-out fixtures from synthetic data: python3-torch and python3-sentencepiece, about
# 15 minutes on 2 cores under load (one thread), seeded. Never part of `make test`; its outputs are committed.
tiny-seq2seq:
	@for p in python3-torch python3-numpy python3-sentencepiece; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then apt-get update && apt-get install -y --no-install-recommends $$missing; fi
	@/usr/bin/python3 scripts/train_tiny_seq2seq.py

# libFuzzer on every parser (fuzz/): clang, its own build folder, each harness FUZZ_SECONDS (fuzz/run.sh); fails on
# any crash, leak, sanitizer report, hang or memory blow-up. `make fuzz FUZZ_SECONDS=600` runs them long.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 10
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_FUZZ=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) --target fuzz_harnesses -j$(JOBS)
	@bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The suite under sanitizers, each in its own build folder: everything (GUI end to end included) under
# AddressSanitizer + UndefinedBehaviorSanitizer, halting on the first report, with leaks checked except those of the
# GL driver (tests/sanitize/lsan.supp); the worker and pipeline tests under ThreadSanitizer with 2 OpenMP threads,
# built with clang and LLVM's OpenMP runtime, whose Archer tool (libarcher, loaded by libomp when the program has
# TSan) tells TSan what OpenMP's barriers order. With GCC's libgomp, which TSan cannot see into, every parallel region
# was reported as a race, and printing those reports is what stalled the sweep worker's shutdown for minutes (README,
# "Reliability"). `make test-tsan` and `make test-asan` run one part; ASAN_TARGETS and ASAN_TESTS (a ctest -R regex)
# narrow the ASan part. Both are compiled -O1 -g1 (CMakeLists.txt). CI runs both; measured times: README.
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
ASAN_TESTS ?= .
ASAN_TARGETS ?= all
TSAN_TESTS ?= SandboxSession|AblationScan|LatestWins|ModelSession|Pipeline|Sweep|ExactRows|View\.|Run\.|Seq2SeqAnalysisJobs|Seq2SeqSessionAnalysis
SANITIZER_ENV = ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:handle_abort=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1
test-sanitize: test-tsan test-asan

test-tsan: deps
	@CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_SANITIZE=thread \
	  -DATTNVIZ_OPENMP=ON >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS) --target attnviz_core_tests attnviz_maps_tests attnviz_worker_tests attnviz_sandbox_session_tests \
	  attnviz_model_tests
	@cd $(TSAN_BUILD) && $(SANITIZER_ENV) OMP_NUM_THREADS=2 ctest --output-on-failure -j$(JOBS) -R '$(TSAN_TESTS)'

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_SANITIZE=address,undefined >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS) --target $(ASAN_TARGETS)
	@cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j$(JOBS) -R '$(ASAN_TESTS)'

clean:
	rm -rf $(BUILD)
