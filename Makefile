# HaloDesk: one-word entry points. `make run` and `make test` set up a fresh machine themselves.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
APP_ID := io.github.halodesk.HaloDesk
SWIFT_BUILD_FLAGS ?=

.PHONY: all setup build release run test test-postgres check stress fuzz mutate format lint validate bench install uninstall clean

all: build

## setup: install the Debian packages the build, app, tests and benchmarks need (only missing ones)
setup:
	@bash scripts/setup.sh

## build: debug build of every product and test
build: setup
	swift build --build-tests $(SWIFT_BUILD_FLAGS)

## release: optimized build of the three executables (Swift runtime linked statically)
release: setup
	bash scripts/swift-release.sh --product halo-desk $(SWIFT_BUILD_FLAGS)
	bash scripts/swift-release.sh --product halo-server $(SWIFT_BUILD_FLAGS)
	bash scripts/swift-release.sh --product halo $(SWIFT_BUILD_FLAGS)

## run: build and start HaloDesk on its embedded default (the local workspace)
run: setup
	swift build --product halo-desk $(SWIFT_BUILD_FLAGS)
	./.build/debug/halo-desk --local-workspace

## validate: desktop file, AppStream metainfo and GtkBuilder files
validate: setup
	@bash scripts/validate-data.sh

## test: build, validate the data files, then every test (GUI ones under Xvfb with D-Bus, keyring, AT-SPI),
## then the server suite and the SDK's flow tests again on PostgreSQL: three halo-server processes on one
## database behind nginx (`make test-postgres`)
test: build validate
	bash scripts/run-tests.sh

## test-postgres: only that second pass. HALO_TEST_BACKEND=postgres runs it on one process instead.
HALO_TEST_BACKEND ?= postgres-cluster
test-postgres: build
	HALO_TEST_BACKEND=$(HALO_TEST_BACKEND) bash scripts/run-tests.sh --postgres-only

## check: the fast loop, under a minute after a one-line change. Library and server tests (HaloContentStore,
## HaloServer, HaloServices) without the GUI and without the slow ones (kill -9 of a child process, stream
## robustness, syncs of thousands of instances), with cheap password hashes (HALO_PASSWORD_HASH_ROUNDS=1000:
## half of their CPU was PBKDF2 of test accounts; `make test` keeps the real cost). Prints wall and CPU time of
## the build and of the tests. Builds like `make build`: one `swift build --build-tests` relinks the single
## test bundle (all test targets) and the executables the tests start; building only the test targets
## (`--target`) leaves the bundle stale, and `--product` builds recompile what `make build` compiled.
CHECK_TESTS := ^(HaloContentStoreTests|HaloServerTests|HaloServicesTests)\.
CHECK_SKIP := CrashTests|StreamRobustnessTests|ServerFuzzTests|SyncTests/test(SyncProcessKilledWithSIGKILL|FirstSyncSmallerThanTheCache|CancelledSync|ConnectionDroppedMidAnswer|ConcurrentSyncs)
TIMES := %1Rs wall, %1Us user + %1Ss system CPU
check: setup
	@TIMEFORMAT='make check, build: $(TIMES)'; time swift build --build-tests $(SWIFT_BUILD_FLAGS)
	@TIMEFORMAT='make check, tests: $(TIMES)'; time HALO_PASSWORD_HASH_ROUNDS=1000 swift test --skip-build --parallel \
		--filter '$(CHECK_TESTS)' --skip '$(CHECK_SKIP)'

## stress: the sync across server processes 100 times in a row (three writers on one PostgreSQL, a
## syncing client; `make test` runs it 3 times). HALO_STRESS_RUNS sets the count.
HALO_STRESS_RUNS ?= 100
stress: setup
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	@TIMEFORMAT='make stress: $(TIMES)'; time HALO_STRESS_RUNS=$(HALO_STRESS_RUNS) swift test --skip-build \
		--filter 'HaloServerTests.SyncAcrossProcessesTests'

## format: rewrite the Swift sources in place with the toolchain's swift-format (.swift-format)
SWIFT_FORMAT_PATHS := Sources Tests Benchmarks Package.swift
format:
	swift format format --in-place --recursive --parallel $(SWIFT_FORMAT_PATHS)

## lint: fail on any difference from what `make format` would write (run by .ci/run before the tests)
lint:
	swift format lint --strict --recursive --parallel $(SWIFT_FORMAT_PATHS)

## fuzz: the server fuzz test alone for longer (HALO_FUZZ_SECONDS, default 120; HALO_FUZZ_SEED, default random);
## new failing inputs land in Tests/FuzzCorpus (no GUI needed)
fuzz: build
	HALO_FUZZ_SECONDS=$${HALO_FUZZ_SECONDS:-120} HALO_FUZZ_SEED=$${HALO_FUZZ_SEED:-random} \
		swift test --skip-build --disable-swift-testing --filter HaloServerTests.ServerFuzzTests

## mutate: the mutation catalog (Tests/Mutations/catalog.tsv): each entry's bug put into a scratch copy
## (.build-mutate, its own .build), rebuilt, its named tests run; fails naming every survivor and every entry
## whose text is gone. MUTATE_ONLY=id,id runs some; MUTATE_SAMPLE=8 MUTATE_SEED=<hash> a deterministic sample
mutate: setup
	@python3 scripts/mutate.py

## bench: the speed figures the issues ask for, each against its floor (see README)
bench: setup
	@bash scripts/bench.sh

## install: binaries, desktop file, metainfo, icon and Resources under $(PREFIX)
install: release
	install -Dm755 -s .build-release/release/halo-desk $(DESTDIR)$(PREFIX)/bin/halo-desk
	install -Dm755 -s .build-release/release/halo-server $(DESTDIR)$(PREFIX)/bin/halo-server
	install -Dm755 -s .build-release/release/halo $(DESTDIR)$(PREFIX)/bin/halo
	install -Dm644 data/halo-desk.desktop $(DESTDIR)$(PREFIX)/share/applications/$(APP_ID).desktop
	install -Dm644 data/$(APP_ID).metainfo.xml $(DESTDIR)$(PREFIX)/share/metainfo/$(APP_ID).metainfo.xml
	cd data/icons && find hicolor \( -name '$(APP_ID).*' -o -name 'halodesk-*' \) -exec install -Dm644 {} $(DESTDIR)$(PREFIX)/share/icons/{} \;
	mkdir -p $(DESTDIR)$(PREFIX)/share/halo-desk
	cp -r Resources/. $(DESTDIR)$(PREFIX)/share/halo-desk/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/halo-desk $(DESTDIR)$(PREFIX)/bin/halo-server $(DESTDIR)$(PREFIX)/bin/halo
	rm -f $(DESTDIR)$(PREFIX)/share/applications/$(APP_ID).desktop $(DESTDIR)$(PREFIX)/share/metainfo/$(APP_ID).metainfo.xml
	rm -f $(DESTDIR)$(PREFIX)/share/icons/hicolor/*/apps/$(APP_ID).* $(DESTDIR)$(PREFIX)/share/icons/hicolor/*/status/halodesk-*
	rm -rf $(DESTDIR)$(PREFIX)/share/halo-desk

clean:
	rm -rf .build .build-release test-artifacts bench-artifacts
