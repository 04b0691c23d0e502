# Tributary: `make run` serves the app, `make test` checks everything. Both install what a
# fresh Debian machine lacks (PostgreSQL, Chromium, the Playwright driver, npm packages).
SHELL := /bin/bash
export GOTOOLCHAIN := local
export GOFLAGS := -buildvcs=false

ROOT        := $(CURDIR)
CACHE       := $(ROOT)/.cache
# Downloading the module first makes this work on a cold module cache too.
PW_VERSION   = $(shell sed -n 's/^const playwrightCliVersion = "\(.*\)"/\1/p' "$$(go mod download -json github.com/playwright-community/playwright-go | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/run.go")
PW_DRIVER   := $(CACHE)/playwright-driver
CHROMIUM    ?= /usr/bin/chromium
VENDOR_JS   := static/js/vendor/htmx.min.js static/js/vendor/sse.min.js
BIN         := $(CACHE)/bin/tributary
APT_UPDATED := $(CACHE)/.apt-updated

export PLAYWRIGHT_DRIVER_PATH := $(PW_DRIVER)
export TRIBUTARY_CHROMIUM := $(CHROMIUM)

.PHONY: compat deps-pgbouncer deps-topology topology topology-stop topology-roll backup restore restore-drill soak screenshots run stop test test-go test-e2e vet generate check-generated bench bench-live bench-quick deps deps-postgres deps-browser build fuzz clean

run: deps-postgres $(VENDOR_JS) ## Start the app on http://localhost:8080 (private PostgreSQL unless DATABASE_URL is set)
	go run ./cmd/tributary serve --demo

stop: ## Stop this checkout's private PostgreSQL cluster
	go run ./cmd/tributary cluster stop

build: $(VENDOR_JS)
	go build -o $(BIN) ./cmd/tributary

test: deps-postgres deps-pgbouncer deps-browser $(VENDOR_JS) vet check-generated test-go ## Everything CI runs

vet:
	go vet ./...

# Unit, integration (real PostgreSQL) and browser tests (e2e/, Chromium via playwright-go;
# run after the others, not beside them: on 2 cores the feed and web packages' load starved
# the browsers' pages), with short fuzz runs of every parser of outside input (URLs, cursors, forms, query
# parameters, event batches, search queries). Fuzzing is bounded by executions, not time: a
# -fuzztime duration races Go 1.26's fuzz coordinator and fails now and then with a bare
# "context deadline exceeded" (go.dev/issue/75804, fixed in Go 1.27).
test-go:
	go test -race -count=1 -timeout 30m $$(go list ./... | grep -v /e2e$$)
	go test -race -count=1 -timeout 30m ./e2e
	go test -run '^$$' -fuzz '^FuzzCanonicalize$$' -fuzztime 100000x .
	go test -run '^$$' -fuzz '^FuzzForms$$' -fuzztime 70000x .
	go test -run '^$$' -fuzz '^FuzzCursor$$' -fuzztime 100000x ./feed
	go test -run '^$$' -fuzz '^FuzzSeenReport$$' -fuzztime 10000x ./web
	go test -run '^$$' -fuzz '^FuzzRequestQuery$$' -fuzztime 1500x ./web
	go test -run '^$$' -fuzz '^FuzzSessionCodec$$' -fuzztime 20000x ./db
	go test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 200000x ./search

generate: ## Regenerate templ and sqlc output
	go tool templ generate -log-level warn
	CGO_ENABLED=0 go tool -modfile=tools.mod sqlc generate

# Generated code is committed; fail when it differs from what the generators produce now.
check-generated: generate
	@if [ -n "$$(git status --porcelain -- views db/internal/dbq)" ]; then \
		echo "generated code is stale: run 'make generate' and commit the result:"; \
		git status --porcelain -- views db/internal/dbq; exit 1; fi

# Benchmarks, not part of CI: `tributary bench` seeds the bench dataset once into a private
# cluster of its own (<cluster dir>-bench; reused afterwards), drives the real server over
# loopback and writes BENCHMARKS.md, BENCHMARKS.json, bench/latency.svg and bench/explain/;
# then the plan test checks the snapshot queries' indexes on that database.
# BENCH_FLAGS=--quick: a small dataset in about three minutes, written to bench/out/quick.
# SCALE=40k or SCALE=4m: a tenth or ten times the dataset (its own database), written to
# bench/out/<scale>.
bench: deps-topology build
	$(BIN) bench $(if $(SCALE),--scale $(SCALE)) $(BENCH_FLAGS)
	BENCH_DATABASE_URL="$$($(BIN) bench --print-dsn $(if $(SCALE),--scale $(SCALE)) $(BENCH_FLAGS))" go test -count=1 -run '^TestBenchPlans$$' -v ./bench

# Soak, not part of CI: two instances on the bench dataset, 64 clients of mixed traffic for
# 10 minutes, PostgreSQL restarted in the middle; writes SOAK.md. SOAK_FLAGS=--quick uses the
# small dataset; SOAK_FLAGS=--topology soaks the topology (started if not running) with faults.
soak_topology = $(findstring --topology,$(SOAK_FLAGS))
soak: deps-postgres build
	$(if $(soak_topology),$(MAKE) deps-topology && ulimit -n $$(ulimit -Hn) &&) \
	$(BIN) soak $(SOAK_FLAGS) $(if $(soak_topology),--topology-dir $(CACHE)/topology)

# The previous commit's binary on this commit's schema, as during a rolling deploy:
# COMPAT_BASE (default HEAD~1) is built in a temporary worktree and drives a database this
# checkout migrated and seeded (TestPreviousBinaryOnNewSchema). Not in `make test`: a build.
COMPAT_BASE ?= HEAD~1
compat: deps-postgres $(VENDOR_JS)
	@set -e; tmp=$$(mktemp -d); \
	trap 'git worktree remove --force '$$tmp/src' >/dev/null 2>&1; rm -rf '$$tmp'' EXIT; \
	git worktree add --detach --quiet $$tmp/src $(COMPAT_BASE); \
	cp -r static/js/vendor $$tmp/src/static/js/; \
	echo "compat: building $$(git rev-parse --short $(COMPAT_BASE)) in $$tmp/src"; \
	(cd $$tmp/src && go build -o $$tmp/tributary ./cmd/tributary); \
	TRIBUTARY_COMPAT_BINARY=$$tmp/tributary go test -count=1 -v -run '^TestPreviousBinaryOnNewSchema$$' ./cmd/tributary

# A production-shaped site on this machine (docs/operations.md): haproxy on :8088 -> 3
# instances -> PgBouncer (transaction mode) -> the primary, plus a streaming replica for feed
# reads; everything under .cache/topology. topology-roll replaces the instances one at a
# time with a fresh build. File-descriptor limits are raised for many live streams.
topology = $(BIN) topology $(1) --dir $(CACHE)/topology $(TOPOLOGY_FLAGS)

topology: deps-topology build
	ulimit -n $$(ulimit -Hn) && $(call topology,start)

topology-roll: build
	ulimit -n $$(ulimit -Hn) && $(call topology,roll)

topology-stop:
	@if [ -x $(BIN) ]; then $(call topology,stop); fi

# Backups (docs/operations.md): of DATABASE_URL's database (DATABASE_DIRECT_URL's when
# behind a pooler), or the private cluster's, to .cache/backups/; `make restore
# BACKUP=file DATABASE_URL=...` loads one into an empty database.
backup: build
	$(BIN) backup --out $(CACHE)/backups/tributary-$$(date -u +%Y%m%dT%H%M%SZ).dump

restore: build
	@if [ -z "$(BACKUP)" ]; then echo "say which: make restore BACKUP=.cache/backups/<file>.dump DATABASE_URL=<an empty database>"; exit 1; fi
	$(BIN) restore $(BACKUP)

# The restore drill as a test: a seeded site backed up, restored into a fresh cluster, compared.
restore-drill: deps-postgres
	go test -count=1 -run '^TestBackupRestoreDrill$$' ./cmd/tributary

# 10,000 open live streams on two instances behind haproxy (issue 48), with the descriptors
# they need: 1,000 of them the sharing author's followers', then (the worst case) all of them.
bench-live: deps-topology build
	ulimit -n $$(ulimit -Hn) && \
	$(BIN) bench --only '^live_notice$$' --live-streams 10000 --live-followers 1000 --out bench/out/live10k && \
	$(BIN) bench --only '^live_notice$$' --live-streams 10000 --out bench/out/live10k-all

bench-quick:
	$(MAKE) bench BENCH_FLAGS=--quick

deps: deps-postgres deps-pgbouncer deps-browser $(VENDOR_JS)

# A Debian package's program, installed when missing and running as root: $(call apt,program,package).
apt = @if ! command -v $(1) >/dev/null && [ ! -x /usr/sbin/$(1) ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing $(2) (apt-get install $(2))"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; \
		else \
			echo "$(1) is missing: run 'sudo apt-get install $(2)'"; exit 1; \
		fi; fi

# PgBouncer: the store's test through a pooler in transaction mode, and the topology.
deps-pgbouncer:
	$(call apt,pgbouncer,pgbouncer)

deps-topology: deps-postgres deps-pgbouncer
	$(call apt,haproxy,haproxy)

# PostgreSQL server binaries: installed from Debian when missing and running as root.
deps-postgres:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing PostgreSQL server (apt-get install postgresql)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
		else \
			echo "PostgreSQL server binaries are missing: run 'sudo apt-get install postgresql' or set DATABASE_URL"; exit 1; \
		fi; fi

# Chromium from Debian and the Playwright driver (playwright-core from npm at exactly the
# version playwright-go pins), never a browser download.
deps-browser: $(PW_DRIVER)/package/cli.js
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing Chromium (apt-get install chromium)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "Chromium is missing: run 'sudo apt-get install chromium'"; exit 1; \
		fi; fi

$(PW_DRIVER)/package/cli.js: go.mod
	@command -v node >/dev/null || { echo "node is required for the Playwright driver (apt-get install nodejs)"; exit 1; }
	rm -rf $(PW_DRIVER) && mkdir -p $(PW_DRIVER)
	cd $(PW_DRIVER) && npm pack --silent playwright-core@$(PW_VERSION) >/dev/null && tar xzf playwright-core-$(PW_VERSION).tgz && rm playwright-core-$(PW_VERSION).tgz
	ln -sf $$(command -v node) $(PW_DRIVER)/node
	touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

static/js/vendor/htmx.min.js: node_modules/.package-lock.json
	mkdir -p static/js/vendor && cp node_modules/htmx.org/dist/htmx.min.js $@

static/js/vendor/sse.min.js: node_modules/.package-lock.json
	mkdir -p static/js/vendor && cp node_modules/htmx-ext-sse/dist/sse.min.js $@

# Pictures of the product for the README: the real binary on the demo data in Chromium,
# written to docs/. Rerun whenever the UI changes, and commit the PNGs.
screenshots: deps-postgres deps-browser $(VENDOR_JS)
	TRIBUTARY_SCREENSHOTS=$(ROOT)/docs go test -count=1 -run '^TestScreenshots$$' -v -timeout 10m ./e2e

clean:
	rm -rf $(CACHE) node_modules static/js/vendor
