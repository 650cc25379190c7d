# Build, test and benchmark the reactive login system.
#
#   make test             install what is missing, build (warnings are errors), run every test
#   make bench-reactive   the reactive core's benchmark, release mode, side by side with RxSwift's figures
#                         (BENCH_REACTIVE_BASELINE=<git ref>: and with that commit's build, in one run)
#   make bench-transport  round trips: raw libzmq (C), the ZeroMQ wrapper and RemoteStreams, side by side
#   make bench-json       JSON bodies: RemoteProtocol's own coder against Foundation's, ns per call
#   make bench-auth       argon2id verifications (libsodium, all cores) against logins through auth-service
#   make loadtest         auth-loadtest for 20 s against auth-service (started if not running), with the report
#   make loadtest-distributed
#                         as root: LOADTEST_GENERATORS (3) auth-loadtest generators on rig hosts, each on the
#                         same CPU quota, merged, side by side with one alone, and the ratio to N x one
#   make format           format the sources with swift-format
#   make fuzz             fuzz the RemoteProtocol codec with libFuzzer for FUZZ_SECONDS (default 60)
#   make fuzz-json        fuzz the direct JSON codings of Contracts' bodies against their Codable path for FUZZ_SECONDS
#   make fuzz-argon2      fuzz the Swift Argon2id against libsodium (raw output, PHC strings) for FUZZ_SECONDS
#   make bench-argon2     raw argon2id verifications: libsodium against each kernel of ours, 1 thread and all cores
#   make bench-catalog    hero search over 1 M generated names: the index against a scan, and through ZeroMQ;
#                         time and memory to index (BENCH_CATALOG_BASELINE=<git ref>: and that commit's, in one run)
#   make bench-gateway    keystroke to output through the whole stack (1 and 1,000 channels), memory per channel
#   make bench-abuse      one client that never reads its answers: everyone else's latency against the idle server
#   make bench-scale      as root: logins/s of 1, 2, 3 auth replicas on rig hosts sharing PostgreSQL; PostgreSQL vs SQLite
#   make run              release build, the whole stack in the background, gateway-cli in front; stops on exit
#   make up / down        start the stack (auth, validation, heroes, gateway) in the background / stop it
#   make status / logs    each service's health, pid and metrics URL / the tail of each log (LOGS_FOLLOW=1 follows)
#   make check-no-rebuild a second release build, from a terminal and from a pipe, compiles nothing
#   make pg-up / pg-down  a throwaway PostgreSQL 15 cluster in PG_DIR (unix socket only) / stop and delete it
#   make cluster-up / cluster-down / cluster-status
#                         as root: the system on network-namespace hosts, CLUSTER_AUTH_REPLICAS (3) auth
#                         replicas on a throwaway PostgreSQL / stop and delete it all / what runs where
#
# Every target works on a fresh Debian machine as root: `deps` installs what is missing first.

SHELL := /bin/bash
SWIFT_BIN ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFT := $(SWIFT_BIN)
# Every build passes the same flags, from a terminal or a pipe: SwiftPM adds -color-diagnostics to
# the compiler's command line when its output is a terminal, and a changed command line recompiles
# every module. --no-color-diagnostics keeps it out either way, so a second `make run` (or `make up`,
# `make bench-...`) after a build from the other kind of output rebuilds nothing.
STRICT := --no-color-diagnostics -Xswiftc -warnings-as-errors
# Debian packages the build and tests need: libzmq for the transport, libsodium (argon2id, tokens)
# and libsqlite3 for the auth service, python3-zmq for the tests that run a Python peer (the client
# in docs/PROTOCOL.md, a heartbeat peer).
# python3-yaml parses deploy/'s manifests in the deploy tests. libpq-dev is the PostgreSQL client
# library of auth-service's shared store; postgresql-15 runs the throwaway clusters its tests and
# bench-auth start (deploy/local/pg-cluster.sh). prometheus (with promtool) scrapes the servers in the
# metrics tests and checks deploy/prometheus/. python3-venv makes the trace tests' environment (otel-venv).
APT_PACKAGES := pkg-config libzmq3-dev libsodium-dev libsqlite3-dev python3-zmq python3-yaml libncurses-dev \
  libpq-dev postgresql-15 prometheus python3-venv
# Tests run in parallel; each has its own time limit. Override for a single test:
#   make test TEST_FILTER=MapTests
TEST_FILTER ?=

.PHONY: all deps build build-release test bench-reactive bench-transport bench-json bench-auth loadtest fuzz format lint clean
.PHONY: fuzz-argon2 fuzz-json bench-argon2
.PHONY: run up down status logs check-no-rebuild

all: build

deps:
	@if [ ! -x "$(SWIFT)" ]; then \
	  echo "error: the Swift 6 toolchain was not found (looked for 'swift' on PATH and /opt/swift/usr/bin/swift)." >&2; \
	  echo "       Install Swift 6.x from swift.org and put its usr/bin on PATH, then run make again." >&2; \
	  exit 1; \
	fi
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then echo "error: run as root (or install$$missing yourself)" >&2; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build $(STRICT)

build-release: deps
	$(SWIFT) build -c release $(STRICT)

# Tests run one at a time by default: on a 2-core machine the parallel runner lets synchronous tests
# that wait (on a semaphore, a child process) hold both of Swift's cooperative threads while
# timing-bound tests (login throttling windows, load-driver floors, group commits) run, and on a slow
# day those fail (seen 2026-11-30: 10-25 failures in parallel, none serially; 98 s serially).
# TEST_PARALLEL=1 runs them in parallel (about 45 s), for a quick local check.
TEST_PARALLEL ?=

# The OpenTelemetry protobuf definitions from PyPI, in a virtual environment of the build's own: the
# trace tests parse every span the services export with them (Tests/Python/otlp_receiver.py).
OTEL_VENV := .build/otel-venv
OTEL_PROTO_VERSION := 1.45.2

.PHONY: otel-venv

otel-venv: deps
	@if ! $(OTEL_VENV)/bin/python -c 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' 2>/dev/null; then \
	  echo "installing opentelemetry-proto $(OTEL_PROTO_VERSION) in $(OTEL_VENV)"; \
	  python3 -m venv $(OTEL_VENV) && \
	  $(OTEL_VENV)/bin/pip install -q --disable-pip-version-check opentelemetry-proto==$(OTEL_PROTO_VERSION); \
	fi

test: deps otel-venv
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build $(if $(TEST_PARALLEL),,--no-parallel) $(if $(TEST_FILTER),--filter $(TEST_FILTER),)

# The reactive core's scenarios, release mode, side by side with RxSwift 6.10.2's figures.
# BENCH_REACTIVE_BASELINE=<git ref> also builds this benchmark's source against the `Reactive` of that
# commit (in $(BENCH_REACTIVE_DIR)/<commit>, from `git archive`) and measures both builds in turn in
# the same run, old and new side by side. BENCH_REACTIVE_ARGS: [rounds] [scenario letters]
# [--passes N].
BENCH_REACTIVE_BASELINE ?=
BENCH_REACTIVE_ARGS ?=
BENCH_REACTIVE_DIR := .build/bench-reactive

bench-reactive: deps
	$(SWIFT) build -c release $(STRICT) --product ReactiveBenchmarks
	@if [ -z "$(BENCH_REACTIVE_BASELINE)" ]; then \
	  $$($(SWIFT) build -c release --show-bin-path)/ReactiveBenchmarks $(BENCH_REACTIVE_ARGS); \
	else \
	  commit=$$(git rev-parse --verify "$(BENCH_REACTIVE_BASELINE)^{commit}") || exit 1; \
	  dir=$(BENCH_REACTIVE_DIR)/$$commit; \
	  if [ ! -d $$dir/src ]; then \
	    mkdir -p $$dir/src && git archive $$commit | tar -x -C $$dir/src || { rm -rf $$dir/src; exit 1; }; \
	  fi; \
	  cp Benchmarks/ReactiveBenchmarks/main.swift $$dir/src/Benchmarks/ReactiveBenchmarks/main.swift; \
	  echo "baseline $$commit: building in $$dir/src"; \
	  (cd $$dir/src && $(SWIFT) build -c release $(STRICT) --product ReactiveBenchmarks) || exit 1; \
	  $$($(SWIFT) build -c release --show-bin-path)/ReactiveBenchmarks $(BENCH_REACTIVE_ARGS) \
	    --baseline $$(cd $$dir/src && $(SWIFT) build -c release --show-bin-path)/ReactiveBenchmarks; \
	fi

# JSON body coding, release mode: ns per encode and per decode of two bodies, Foundation's
# JSONEncoder/JSONDecoder against JSONBodyCoder's own coder, and the ratio. BENCH_JSON_ARGS sets
# --iterations and --rounds.
BENCH_JSON_ARGS ?=

bench-json: deps
	$(SWIFT) build -c release $(STRICT) --product JSONBenchmarks
	$$($(SWIFT) build -c release --show-bin-path)/JSONBenchmarks $(BENCH_JSON_ARGS)

# Transport round trips over tcp loopback in one run: (1) the C program on raw libzmq (not a SwiftPM
# target), then (2) the same through the ZeroMQ wrapper, (3) and (4) through RemoteStreams, (4m) row (4)
# with metrics on (calls counted and timed, scraped once a second); the Swift program runs (1) and prints
# the table.
# Budget (round trips per run with 1 / 64 in flight, seconds per run, rounds): BENCH_TRANSPORT_ARGS.
# BENCH_TRANSPORT_PIN="taskset -c 0" runs every thread on one CPU: steadier figures on a shared machine.
# BENCH_TRANSPORT_BASELINE=<git ref> also builds that commit's TransportBenchmarks (in
# $(BENCH_TRANSPORT_DIR)/<commit>, from `git archive`) and measures its rows (3) and (4) in turn with
# the others in the same run, old and new side by side.
BENCH_TRANSPORT_DIR := .build/bench-transport
BENCH_TRANSPORT_ARGS ?= --count1 20000 --count64 600000 --seconds 5 --rounds 5
BENCH_TRANSPORT_PIN ?=
BENCH_TRANSPORT_BASELINE ?=

bench-transport: deps
	@mkdir -p $(BENCH_TRANSPORT_DIR)
	$(CC) -O2 -Wall -Wextra -Werror -o $(BENCH_TRANSPORT_DIR)/raw_roundtrip \
	  Benchmarks/TransportBenchmarks/raw/raw_roundtrip.c -lzmq -lpthread
	$(SWIFT) build -c release $(STRICT) --product TransportBenchmarks
	@baseline=""; if [ -n "$(BENCH_TRANSPORT_BASELINE)" ]; then \
	  commit=$$(git rev-parse --verify "$(BENCH_TRANSPORT_BASELINE)^{commit}") || exit 1; \
	  dir=$(BENCH_TRANSPORT_DIR)/$$commit; \
	  if [ ! -d $$dir/src ]; then \
	    mkdir -p $$dir/src && git archive $$commit | tar -x -C $$dir/src || { rm -rf $$dir/src; exit 1; }; \
	  fi; \
	  echo "baseline $$commit: building in $$dir/src"; \
	  (cd $$dir/src && $(SWIFT) build -c release --product TransportBenchmarks) || exit 1; \
	  baseline="--baseline $$(cd $$dir/src && $(SWIFT) build -c release --show-bin-path)/TransportBenchmarks"; \
	fi; \
	$(BENCH_TRANSPORT_PIN) $$($(SWIFT) build -c release --show-bin-path)/TransportBenchmarks \
	  --raw $(BENCH_TRANSPORT_DIR)/raw_roundtrip $(BENCH_TRANSPORT_ARGS) $$baseline

# Auth in one run: (1) raw argon2id verifications on every core, (2) logins through auth-service and
# the ratio (2)/(1), (3) auth.exists, (4) durable registrations in SQLite, (5) the same in PostgreSQL on
# a throwaway cluster the benchmark starts (deploy/local/pg-cluster.sh) and removes. The benchmark
# starts each auth-service itself (temp state directory, --curve off, ipc://) and stops it by pid.
# Options: BENCH_AUTH_ARGS (--seconds S per measured run, --only 1,2,3,4,5, --users N,
# --loops N for the service's shards; default: the service's own; --argon2 swift). Its
# client connects to every shard of the service.
# BENCH_AUTH_BASELINE=<git ref> also builds that commit's auth-service (in $(BENCH_AUTH_DIR)/<commit>,
# from `git archive`) and runs it in row (2) with --argon2 swift, in turn with the others in the same
# run: logins per second, CPU, kernel time and page faults per login, old and new side by side.
BENCH_AUTH_DIR := .build/bench-auth
BENCH_AUTH_ARGS ?=
BENCH_AUTH_BASELINE ?=

bench-auth: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product AuthBenchmarks
	@baseline=""; if [ -n "$(BENCH_AUTH_BASELINE)" ]; then \
	  commit=$$(git rev-parse --verify "$(BENCH_AUTH_BASELINE)^{commit}") || exit 1; \
	  dir=$(BENCH_AUTH_DIR)/$$commit; \
	  if [ ! -d $$dir/src ]; then \
	    mkdir -p $$dir/src && git archive $$commit | tar -x -C $$dir/src || { rm -rf $$dir/src; exit 1; }; \
	  fi; \
	  echo "baseline $$commit: building in $$dir/src"; \
	  (cd $$dir/src && $(SWIFT) build -c release --product auth-service) || exit 1; \
	  baseline="--baseline $$(cd $$dir/src && $(SWIFT) build -c release --show-bin-path)/auth-service"; \
	fi; \
	$$($(SWIFT) build -c release --show-bin-path)/AuthBenchmarks \
	  --service $$($(SWIFT) build -c release --show-bin-path)/auth-service $(BENCH_AUTH_ARGS) $$baseline

# auth-loadtest (docs/LOADTEST.md), release mode, against the auth-service at LOADTEST_ENDPOINT:
# (1) the local stack's (`make up`, `make run`) when it answers there with the keys in
# $(STACK_DIR)/auth: CURVE with that directory's server key and auth's own client key (always
# admitted), the stack's hash cost, and the load test's users stay in its database; else (2) one
# answering with --curve off; else (3) one started here (state in LOADTEST_STATE, --curve off, the
# cheap hash profile unless LOADTEST_HASH_COST=owasp) and stopped by its pid afterwards. When that one
# cannot start (another process holds the port), the end of its log says why. LOADTEST_ARGS is the
# scenario.
LOADTEST_ENDPOINT ?= tcp://127.0.0.1:5562
LOADTEST_STATE ?= .build/loadtest/state
LOADTEST_LOG := .build/loadtest/auth-service.log
LOADTEST_HASH_COST ?= test
LOADTEST_ARGS ?= --scenario mix:login=80,exists=15,register=5 --rate 1000 --duration 20s --warmup 3s \
  --users 1000 --json .build/loadtest/last.json --svg .build/loadtest/last.svg

loadtest: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product auth-loadtest
	@mkdir -p $(LOADTEST_STATE) $(dir $(LOADTEST_LOG)); bin=$$($(SWIFT) build -c release --show-bin-path); \
	stack_auth="$(STACK_DIR)/auth"; \
	if [ -r "$$stack_auth/curve.pub" ] && $$bin/auth-service --check --state-dir "$$stack_auth" \
	  --endpoint $(LOADTEST_ENDPOINT) >/dev/null 2>&1; then \
	  echo "load-testing the stack's auth-service at $(LOADTEST_ENDPOINT): CURVE with the keys in $$stack_auth," \
	    "its own hash cost; the load test's users stay in its database"; \
	  exec $$bin/auth-loadtest --endpoint $(LOADTEST_ENDPOINT) --state-dir "$$stack_auth" $(LOADTEST_ARGS); \
	fi; \
	check() { $$bin/auth-service --check --curve off --state-dir $(LOADTEST_STATE) \
	  --endpoint $(LOADTEST_ENDPOINT) >/dev/null 2>&1; }; \
	if check; then echo "auth-service already answers at $(LOADTEST_ENDPOINT) (--curve off)"; else \
	  echo "starting auth-service at $(LOADTEST_ENDPOINT) (--hash-cost $(LOADTEST_HASH_COST), --curve off)"; \
	  : >$(LOADTEST_LOG); \
	  $$bin/auth-service --state-dir $(LOADTEST_STATE) --endpoint $(LOADTEST_ENDPOINT) --curve off \
	    --hash-cost $(LOADTEST_HASH_COST) --log-level warning 2>>$(LOADTEST_LOG) & \
	  started=$$!; trap 'kill -TERM '$$started' 2>/dev/null; wait '$$started'' EXIT; \
	  for i in $$(seq 1 100); do check && break; kill -0 $$started 2>/dev/null || break; sleep 0.1; done; \
	  check || { echo "auth-service did not start at $(LOADTEST_ENDPOINT); the end of $(LOADTEST_LOG):" >&2; \
	    tail -n 5 $(LOADTEST_LOG) >&2; \
	    echo "(another process holds the port? LOADTEST_ENDPOINT=tcp://127.0.0.1:PORT picks another;" \
	      "a stack with another STACK_DIR: make loadtest STACK_DIR=...)" >&2; exit 1; }; \
	fi; \
	$$bin/auth-loadtest --endpoint $(LOADTEST_ENDPOINT) --curve off $(LOADTEST_ARGS)

# Many auth-loadtest generators at once, merged, against one generator alone (deploy/local/loadtest-distributed.sh;
# docs/LOADTEST.md, "Many machines"). As root: the script makes hosts of its own (deploy/local/hosts.sh
# with HOSTS_PREFIX rld- and 10.88.0.0/24, apart from cluster-up's, bench-scale's and the tests'), a stub
# per generator on host 1 and LOADTEST_GENERATORS generators on hosts of their own with the same CPU quota
# (LOADTEST_CPU, 0.2; all on CPU 0, the stubs on the other cores), closed model, each with --shard I/N
# and --json; merges them with
# `auth-loadtest merge`, runs one generator alone on the same quota, in LOADTEST_ROUNDS (5) rounds, prints
# the medians side by side and the ratio to N x one, and removes the hosts at the end, also on failure.
# LOADTEST_SERVER=stack loads the local stack's auth-service instead (make up
# STACK_AUTH_ENDPOINT=tcp://0.0.0.0:5562); the script's header lists the rest (LOADTEST_CONCURRENCY,
# LOADTEST_DURATION, LOADTEST_WORKLOAD, LOADTEST_RESULTS, ...).
LOADTEST_GENERATORS ?= 3

.PHONY: loadtest-distributed

loadtest-distributed: deps
	$(SWIFT) build -c release $(STRICT) --product auth-loadtest
	@LOADTEST_GENERATORS="$(LOADTEST_GENERATORS)" BIN_DIR="$(if $(BIN_DIR),$(BIN_DIR),$$($(SWIFT) build -c release --show-bin-path))" \
	  deploy/local/loadtest-distributed.sh

# The codec's libFuzzer target: Tests/Fuzz/RemoteProtocolFuzz.swift compiled with the RemoteProtocol
# sources into one binary (not a SwiftPM target: SwiftPM cannot link libFuzzer's main). The seed
# corpus is the golden vectors, written in the fuzzer's input format (a part count, then u16 lengths);
# new inputs accumulate in $(FUZZ_DIR)/corpus and a crashing input is saved in $(FUZZ_DIR).
FUZZ_SECONDS ?= 60
FUZZ_DIR := .build/fuzz
SWIFTC := $(dir $(SWIFT))swiftc

fuzz: deps
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
	$(SWIFTC) -sanitize=fuzzer,address -use-ld=lld -parse-as-library -swift-version 6 \
	  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
	  -warnings-as-errors -O -g -module-name RemoteProtocolFuzz \
	  Sources/RemoteProtocol/*.swift Sources/RemoteProtocol/JSON/*.swift Tests/Fuzz/RemoteProtocolFuzz.swift -o $(FUZZ_DIR)/RemoteProtocolFuzz
	@grep -v '^#' Tests/Fuzz/golden-vectors.txt | while read -r name header body; do \
	  if [ -n "$$body" ]; then hex=$$(printf '02%04x%s%s' $$(( $${#header} / 2 )) "$$header" "$$body"); \
	  else hex="01$$header"; fi; \
	  printf "$$(sed 's/../\\x&/g' <<< "$$hex")" > $(FUZZ_DIR)/seeds/$$name; \
	done
	$(FUZZ_DIR)/RemoteProtocolFuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds

# The differential JSON fuzzer: Tests/Fuzz/JSONBodyFuzz.swift decodes each input as one Contracts
# body (picked by the first byte) with the direct coding and with the Codable path and crashes on
# any difference (values, re-encoded bytes, errors). RemoteProtocol and Contracts are compiled as
# static libraries with the fuzzer's instrumentation, then linked with the fuzz file. The seeds are
# valid bodies; new inputs accumulate in $(FUZZ_JSON_DIR)/corpus, a failing input is saved in
# $(FUZZ_JSON_DIR).
FUZZ_JSON_DIR := $(FUZZ_DIR)/json

fuzz-json: deps
	@mkdir -p $(FUZZ_JSON_DIR)/corpus $(FUZZ_JSON_DIR)/seeds $(FUZZ_JSON_DIR)/modules
	cd $(FUZZ_JSON_DIR)/modules && $(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address \
	  -module-name RemoteProtocol -emit-module -emit-library -static \
	  $(CURDIR)/Sources/RemoteProtocol/*.swift $(CURDIR)/Sources/RemoteProtocol/JSON/*.swift
	cd $(FUZZ_JSON_DIR)/modules && $(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address -I . \
	  -module-name Contracts -emit-module -emit-library -static $(CURDIR)/Sources/Contracts/*.swift
	$(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address -use-ld=lld -module-name JSONBodyFuzz \
	  -I $(FUZZ_JSON_DIR)/modules -L $(FUZZ_JSON_DIR)/modules -lContracts -lRemoteProtocol \
	  Tests/Fuzz/JSONBodyFuzz.swift -o $(FUZZ_JSON_DIR)/JSONBodyFuzz
	@printf '\000{"username":"alice","password":"pw","client":"c","device_token":"d"}' > $(FUZZ_JSON_DIR)/seeds/login
	@printf '\001{"status_code":200,"message":"login.ok","user":{"name":"a","user_token":"t"},"retry_after":3}' \
	  > $(FUZZ_JSON_DIR)/seeds/login-response
	@printf '\002{"output":"heroes","heroes":[{"id":1,"name":"n","intro":"i"}],"query":"q","page":0,"total":1,"page_size":50,"trace":{"trace_id":"t","hops":[]}}' \
	  > $(FUZZ_JSON_DIR)/seeds/flow-output
	@printf '\003{"total":1,"items":[{"id":1,"name":{"en":"a"},"intro":{"en":"b"},"icon":"i.png"}]}' > $(FUZZ_JSON_DIR)/seeds/heroes
	@printf '\004{"service":"auth","version":"1","uptime_seconds":5,"counters":{"a":{"b":1,"c":-2}}}' > $(FUZZ_JSON_DIR)/seeds/stats
	@printf '\005{"state":"failed","code":"username.short","params":{"n":"6"}}' > $(FUZZ_JSON_DIR)/seeds/validation
	@printf '\006{"trace_id":"t","hops":[{"service":"s","shard":1,"method":"m","start_us":-1,"duration_us":2,"outcome":"ok","depth":1}]}' \
	  > $(FUZZ_JSON_DIR)/seeds/trace
	@printf '\007{"username_purpose":"signin","client":"c"}' > $(FUZZ_JSON_DIR)/seeds/fields
	@printf '\010{"username":"a\\u00e9\\n","password":"p","request_id":"r"}' > $(FUZZ_JSON_DIR)/seeds/register
	@printf '\011{"locale":"en","token":"t","device_tokens":{"a":"b"}}' > $(FUZZ_JSON_DIR)/seeds/flow-parameters
	@printf '\012{"service":"a","version":"1","status":"ready","ready":true,"reasons":["x"]}' > $(FUZZ_JSON_DIR)/seeds/health
	@printf '\013{"kind":"logged_in","username":"u","at":1}' > $(FUZZ_JSON_DIR)/seeds/event
	$(FUZZ_JSON_DIR)/JSONBodyFuzz -max_total_time=$(FUZZ_SECONDS) -max_len=2048 -timeout=10 \
	  -artifact_prefix=$(FUZZ_JSON_DIR)/ $(FUZZ_JSON_DIR)/corpus $(FUZZ_JSON_DIR)/seeds

# The differential Argon2id fuzzer: Tests/Fuzz/Argon2Fuzz.swift against libsodium (its header gives
# the input format). Not a SwiftPM target (libFuzzer brings its own main): the two kernel modules,
# Argon2 and Sodium are compiled as static libraries with the flags Package.swift gives them, then
# linked with the fuzz file. The seeds are valid PHC strings (m=8..64 KiB) and raw inputs; new inputs
# accumulate in $(FUZZ_ARGON2_DIR)/corpus, a failing input is saved in $(FUZZ_ARGON2_DIR).
FUZZ_ARGON2_DIR := $(FUZZ_DIR)/argon2
FUZZ_SWIFT_FLAGS := -parse-as-library -swift-version 6 -enable-upcoming-feature ExistentialAny \
  -enable-upcoming-feature InternalImportsByDefault -warnings-as-errors -O -g -package-name ReactiveLogin

fuzz-argon2: deps
	@mkdir -p $(FUZZ_ARGON2_DIR)/corpus $(FUZZ_ARGON2_DIR)/seeds $(FUZZ_ARGON2_DIR)/modules
	cd $(FUZZ_ARGON2_DIR)/modules && for level in AVX2:x86-64-v3 AVX512:x86-64-v4; do \
	  $(SWIFTC) $(FUZZ_SWIFT_FLAGS) -enable-experimental-feature BuiltinModule -Xcc -march=$${level#*:} \
	    -module-name Argon2Kernel$${level%%:*} -emit-module -emit-library -static \
	    $(CURDIR)/Sources/Argon2KernelAVX2/BlockKernel.swift || exit 1; \
	done
	cd $(FUZZ_ARGON2_DIR)/modules && $(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address -I . \
	  -module-name Argon2 -emit-module -emit-library -static $(CURDIR)/Sources/Argon2/*.swift
	cd $(FUZZ_ARGON2_DIR)/modules && $(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address \
	  -I $(CURDIR)/Sources/CSodium -module-name Sodium -emit-module -emit-library -static $(CURDIR)/Sources/Sodium/*.swift
	$(SWIFTC) $(FUZZ_SWIFT_FLAGS) -sanitize=fuzzer,address -use-ld=lld -module-name Argon2Fuzz \
	  -I $(FUZZ_ARGON2_DIR)/modules -I Sources/CSodium -L $(FUZZ_ARGON2_DIR)/modules \
	  -lArgon2 -lArgon2KernelAVX2 -lArgon2KernelAVX512 -lSodium -lsodium \
	  Tests/Fuzz/Argon2Fuzz.swift -o $(FUZZ_ARGON2_DIR)/Argon2Fuzz
	@printf '\001$$argon2id$$v=19$$m=8,t=1,p=1$$c29tZXNhbHRzb21lc2FsdA$$BbbKj4A4toOIetSRZTOFi0nLUgQBJsE09Mbp2HEbjAk' \
	  > $(FUZZ_ARGON2_DIR)/seeds/string-m8
	@printf '\001$$argon2id$$v=19$$m=256,t=2,p=1$$c29tZXNhbHQ$$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4' \
	  > $(FUZZ_ARGON2_DIR)/seeds/string-m256
	@printf '\000\001\070\020somesaltsomesaltpassword' > $(FUZZ_ARGON2_DIR)/seeds/raw-password
	$(FUZZ_ARGON2_DIR)/Argon2Fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=256 -timeout=20 \
	  -artifact_prefix=$(FUZZ_ARGON2_DIR)/ $(FUZZ_ARGON2_DIR)/corpus $(FUZZ_ARGON2_DIR)/seeds

# auth-service replicas on the multi-host rig in one run (docs/BENCHMARKS.md, Scale): logins per second
# of 1, 2 and 3 replicas (production hash cost), each on a rig host of its own with the same CPU quota,
# sharing a throwaway PostgreSQL on the rig's bridge, and the ratio to N × one replica; one replica on
# PostgreSQL against one on SQLite; durable registrations per second on each, with commits per
# registration. Needs root: the benchmark makes its own hosts (deploy/local/hosts.sh with HOSTS_PREFIX
# rlb- and 10.79.0.0/24, apart from cluster-up's and the tests'), starts everything itself and removes
# it at the end. BENCH_SCALE_ARGS: --cpu F (quota per replica, default 0.5), --seconds S, --rounds N,
# --in-flight N, --only login,register, --loops N (every replica's shards; its client reaches them all).
BENCH_SCALE_ARGS ?=

.PHONY: bench-scale

bench-scale: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product ScaleBenchmarks
	$$($(SWIFT) build -c release --show-bin-path)/ScaleBenchmarks \
	  --bin $$($(SWIFT) build -c release --show-bin-path) $(BENCH_SCALE_ARGS)

# Raw argon2id verifications at m=19 MiB, t=2 in one run (docs/BENCHMARKS.md, Argon2id): libsodium's
# crypto_pwhash_str_verify against the Argon2 module with each kernel this CPU runs (one reused
# workspace per thread), on 1 thread and on every core, with user and kernel CPU time and minor page
# faults per verification. BENCH_ARGON2_ARGS: --seconds S, --rounds N, --threads 1,2,
# --only libsodium,avx2,...
BENCH_ARGON2_ARGS ?=

bench-argon2: deps
	$(SWIFT) build -c release $(STRICT) --product Argon2Benchmarks
	$$($(SWIFT) build -c release --show-bin-path)/Argon2Benchmarks $(BENCH_ARGON2_ARGS)

# Hero search in one run: 1,000,000 generated heroes (a Latin and a Chinese name each), the time and
# memory to index them and p50/p99 per query length (1, 2, 5 characters) in the core's index against a
# plain scan (each build's core in a child process of its own), then through ZeroMQ: the benchmark
# starts auth-service (to log in once) and hero-catalog-service on the generated catalog (temp
# directory, --curve off, ipc://), measures how long it takes to be ready and its resident memory, and
# stops both by pid. Options: BENCH_CATALOG_ARGS (--count N, --queries Q, --scan-queries S,
# --wire-queries W; 0 skips the ZeroMQ part; --rounds R, default 3: medians of R measurements).
# BENCH_CATALOG_BASELINE=<git ref> also builds that commit's HeroCatalogCore and hero-catalog-service
# (in $(BENCH_CATALOG_DIR)/<commit>, from `git archive`, with this benchmark's source) and measures
# its core and its service in turn with these in the same run, old and new side by side with ratios.
BENCH_CATALOG_DIR := .build/bench-catalog
BENCH_CATALOG_ARGS ?=
BENCH_CATALOG_BASELINE ?=

.PHONY: bench-catalog

bench-catalog: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product hero-catalog-service
	$(SWIFT) build -c release $(STRICT) --product CatalogBenchmarks
	@baseline=""; if [ -n "$(BENCH_CATALOG_BASELINE)" ]; then \
	  commit=$$(git rev-parse --verify "$(BENCH_CATALOG_BASELINE)^{commit}") || exit 1; \
	  dir=$(BENCH_CATALOG_DIR)/$$commit; \
	  if [ ! -d $$dir/src ]; then \
	    mkdir -p $$dir/src && git archive $$commit | tar -x -C $$dir/src || { rm -rf $$dir/src; exit 1; }; \
	  fi; \
	  cp Benchmarks/CatalogBenchmarks/*.swift $$dir/src/Benchmarks/CatalogBenchmarks/; \
	  echo "baseline $$commit: building in $$dir/src"; \
	  (cd $$dir/src && $(SWIFT) build -c release --product hero-catalog-service \
	    && $(SWIFT) build -c release --product CatalogBenchmarks) || exit 1; \
	  baseline="--baseline $$(cd $$dir/src && $(SWIFT) build -c release --show-bin-path)"; \
	fi; \
	$$($(SWIFT) build -c release --show-bin-path)/CatalogBenchmarks \
	  --bin $$($(SWIFT) build -c release --show-bin-path) $(BENCH_CATALOG_ARGS) $$baseline

# The gateway through the whole stack in one run (docs/BENCHMARKS.md, Gateway): auth-service,
# validation-service, hero-catalog-service and the gateway started from the release build with CURVE on,
# keys exchanged in a temp directory, tcp on 127.0.0.1 free ports, stopped by pid at the end. Rows: a
# validate.phone round trip straight to validation-service (the reference), a phone keystroke on
# flow.login with 1 and 1,000 channels, a username keystroke on flow.register, and the resident memory
# per idle flow.login channel in the gateway and validation-service. Options: BENCH_GATEWAY_ARGS
# (--seconds S, --warmup W, --keystrokes N, --channels C, --clients K, --idle 1000,5000,
# --pace MS, --cycles N, --only idle,reference,login1,loginN,paced,register, --keep, --gateway-arg A,
# --loops N for every process's shards; the end clients connect to every shard of the gateway).
BENCH_GATEWAY_ARGS ?=

# One client that sends requests and never reads the answers (docs/BENCHMARKS.md, Abuse):
# auth-service and validation-service from the release build, sys.health latencies of another client
# idle, during the flood and once the silent client is cut off, with memory and the time a closed
# connection's stream lives on. BENCH_ABUSE_ARGS sets --calls and --flood.
BENCH_ABUSE_ARGS ?=

.PHONY: bench-abuse

bench-abuse: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product validation-service
	$(SWIFT) build -c release $(STRICT) --product AbuseBenchmarks
	$$($(SWIFT) build -c release --show-bin-path)/AbuseBenchmarks \
	  --bin $$($(SWIFT) build -c release --show-bin-path) $(BENCH_ABUSE_ARGS)

# The gateway through the whole stack (Benchmarks/GatewayBenchmarks/main.swift lists its rows and
# options). BENCH_GATEWAY_ARGS="--metrics" measures the keystroke rows with metrics off and on (every
# server with --metrics-listen, scraped once a second) side by side, "--trace-sample R" with tracing
# off and on at ratio R (spans written to trace files); BENCH_BASELINE=DIR against the
# binaries of another build.
.PHONY: bench-gateway

bench-gateway: deps
	$(SWIFT) build -c release $(STRICT) --product auth-service
	$(SWIFT) build -c release $(STRICT) --product validation-service
	$(SWIFT) build -c release $(STRICT) --product hero-catalog-service
	$(SWIFT) build -c release $(STRICT) --product gateway
	$(SWIFT) build -c release $(STRICT) --product GatewayBenchmarks
	$$($(SWIFT) build -c release --show-bin-path)/GatewayBenchmarks \
	  --bin $$($(SWIFT) build -c release --show-bin-path) $(if $(BENCH_BASELINE),--baseline $(BENCH_BASELINE)) $(BENCH_GATEWAY_ARGS)

# The local stack (deploy/local/stack.sh; deploy/README.md): every process's state directory and log
# under STACK_DIR, CURVE between them with keys exchanged by `up`, and each server's /metrics, /healthz
# and /readyz on 127.0.0.1:9560 (gateway), :9561 (validation), :9562 (auth), :9563 (heroes)
# (STACK_<S>_METRICS moves one, `off` turns it off; docs/operations.md). BIN_DIR picks other executables
# (then nothing is built), STACK_SERVICES a subset ("auth validation heroes gateway"); the script's
# header lists the rest (STACK_<S>_ENDPOINT, STACK_<S>_ARGS, STACK_WAIT_SECONDS, STACK_STOP_SECONDS).
STACK := deploy/local/stack.sh
STACK_DIR ?= $(or $(XDG_STATE_HOME),$(HOME)/.local/state)/reactive-login/stack
STACK_SERVICES ?= auth validation heroes gateway
BIN_DIR ?=
STACK_BUILD := $(if $(BIN_DIR),deps,build-release)
STACK_ENV = STACK_DIR="$(STACK_DIR)" STACK_SERVICES="$(STACK_SERVICES)" \
  BIN_DIR="$(if $(BIN_DIR),$(BIN_DIR),$$($(SWIFT) build -c release --show-bin-path))"

run: $(STACK_BUILD)
	@$(STACK_ENV) $(STACK) run

up: $(STACK_BUILD)
	@$(STACK_ENV) $(STACK) up

down:
	@$(STACK_ENV) $(STACK) down

# `make status` alone exits 1 when a service is down, without make's own error line: the script
# runs while the Makefile is read, its table is printed, and a failed check puts make in question
# mode (-q), whose "not up to date" exit is silent. With other goals (`make up status`) it runs as
# an ordinary recipe. `deploy/local/stack.sh status` itself exits 3.
ifeq ($(MAKECMDGOALS),status)
# $(shell) does not see make's command-line variables: pass the stack's (STACK_AUTH_ENDPOINT=...).
STATUS_VARIABLES := $(foreach v,$(filter STACK_%,$(.VARIABLES)),$(if $(filter command line,$(origin $(v))),$(v)='$($(v))'))
STATUS_FILE := $(shell mktemp)
STATUS_CODE := $(shell $(STATUS_VARIABLES) $(STACK_ENV) $(STACK) status >$(STATUS_FILE); echo $$?)
$(info $(file <$(STATUS_FILE)))
$(shell rm -f $(STATUS_FILE))
ifneq ($(STATUS_CODE),0)
MAKEFLAGS += -q
endif
status:
	@:
else
status:
	@$(STACK_ENV) $(STACK) status
endif

logs:
	@$(STACK_ENV) LOGS_FOLLOW="$(LOGS_FOLLOW)" $(STACK) logs

# A second build compiles nothing, from a terminal (script(1) gives SwiftPM one) or from a pipe: after
# build-release, the same build once each way must neither compile nor link anything.
.PHONY: check-no-rebuild

check-no-rebuild: build-release
	@for how in terminal pipe; do \
	  if [ $$how = terminal ]; then out=$$(script -qc '$(SWIFT) build -c release $(STRICT)' /dev/null); \
	  else out=$$($(SWIFT) build -c release $(STRICT) 2>&1 | cat); fi; \
	  if printf '%s\n' "$$out" | grep -Eq 'Compiling|Linking'; then \
	    echo "check-no-rebuild: the build from a $$how did work again:" >&2; \
	    printf '%s\n' "$$out" | tr '\r' '\n' | grep -E 'Compiling|Linking' | head -n 5 >&2; exit 1; \
	  fi; \
	  echo "check-no-rebuild: a second build from a $$how compiled nothing"; \
	done

# A throwaway PostgreSQL 15 cluster for development (deploy/local/pg-cluster.sh): `make pg-up` prints
# the URL to pass as `auth-service --database`; `make pg-down` stops it and deletes PG_DIR.
PG_DIR ?= $(or $(XDG_STATE_HOME),$(HOME)/.local/state)/reactive-login/postgres

.PHONY: pg-up pg-down

pg-up: deps
	@deploy/local/pg-cluster.sh start "$(PG_DIR)"

pg-down:
	@deploy/local/pg-cluster.sh remove "$(PG_DIR)"

# The system on several hosts of this machine (deploy/local/cluster.sh over deploy/local/hosts.sh;
# deploy/README.md, "Replicas on one machine"): network namespaces on a bridge, a throwaway PostgreSQL on
# the bridge, CLUSTER_AUTH_REPLICAS auth replicas sharing it, validation, heroes and the gateway on a
# host each. Needs root. CLUSTER_DIR keeps keys, state and logs; BIN_DIR picks other executables
# (then nothing is built); the script's header lists the rest (CLUSTER_AUTH_ARGS, CLUSTER_CPU, ...).
CLUSTER := deploy/local/cluster.sh
CLUSTER_DIR ?= $(or $(XDG_STATE_HOME),$(HOME)/.local/state)/reactive-login/cluster
CLUSTER_AUTH_REPLICAS ?= 3
CLUSTER_ENV = CLUSTER_DIR="$(CLUSTER_DIR)" CLUSTER_AUTH_REPLICAS="$(CLUSTER_AUTH_REPLICAS)" \
  BIN_DIR="$(if $(BIN_DIR),$(BIN_DIR),$$($(SWIFT) build -c release --show-bin-path))"

.PHONY: cluster-up cluster-down cluster-status

cluster-up: $(STACK_BUILD)
	@$(CLUSTER_ENV) $(CLUSTER) up

cluster-down:
	@$(CLUSTER_ENV) $(CLUSTER) down

cluster-status:
	@$(CLUSTER_ENV) $(CLUSTER) status

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks Package.swift

lint:
	$(SWIFT) format lint --recursive --configuration .swift-format Sources Tests Benchmarks Package.swift

clean:
	$(SWIFT) package clean
