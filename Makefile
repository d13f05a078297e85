# gobpm — run `make help` for the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/gobpm-web
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.Version=$(VERSION)
ADDR ?= 127.0.0.1:8080
DB ?= ./data/gobpm.db
# The cockpit's npm packages, copied from node_modules into the embedded folder (and the modeler's
# palette font, bpmn-font/, as a folder: its stylesheet finds the font files beside it).
VENDOR := web/static/vendor
VENDOR_FILES := node_modules/htmx.org/dist/htmx.min.js \
	node_modules/bpmn-js/dist/bpmn-navigated-viewer.production.min.js \
	node_modules/bpmn-js/dist/assets/diagram-js.css \
	node_modules/bpmn-js/dist/assets/bpmn-js.css \
	node_modules/bpmn-js/dist/bpmn-modeler.production.min.js \
	node_modules/@bpmn-io/form-js-viewer/dist/assets/form-js.css \
	node_modules/dmn-js/dist/assets/dmn-js-shared.css \
	node_modules/dmn-js/dist/assets/dmn-js-drd.css \
	node_modules/dmn-js/dist/assets/dmn-js-decision-table.css \
	node_modules/dmn-js/dist/assets/dmn-js-literal-expression.css \
	node_modules/dmn-js/dist/assets/dmn-js-boxed-expression.css
# The cockpit's npm ES modules, bundled by esbuild into one classic script each: entry:output.
VENDOR_BUNDLES := web/bundle/autolayout.js:bpmn-auto-layout.min.js web/bundle/formviewer.js:form-js-viewer.min.js \
	web/bundle/dmnviewer.js:dmn-navigated-viewer.min.js
TEMPL_VERSION = $(shell $(GO) list -m -f '{{.Version}}' github.com/a-h/templ)

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@grep -hE '^[a-zA-Z/_-]+:.*?## ' $(MAKEFILE_LIST) | sed -e 's|$$(ADDR)|$(ADDR)|g' -e 's|$$(DB)|$(DB)|g' | \
		awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'
	@echo "Override a setting on the command line, e.g. make run ADDR=127.0.0.1:9090 DB=/tmp/gobpm.db"

.PHONY: build
build: vendor ## Build the server and the gobpm CLI (pure Go, CGO_ENABLED=0) into bin/.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gobpm-web
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/gobpm ./cmd/gobpm

.PHONY: run
run: build ## Build and start the server on $(ADDR) with the SQLite file $(DB).
	./$(BIN) --addr $(ADDR) --db $(DB)

# PG_CTL is PostgreSQL's pg_ctl, on PATH or where Debian's postgresql package puts it ("" when missing).
PG_CTL := $(or $(shell command -v pg_ctl 2>/dev/null),$(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin/pg_ctl))))

.PHONY: test
test: lint vendor deps ## Run every test (vet and format checks first), the runtime, API and client suites on PostgreSQL too; says what is missing, and skips only what needs it (except with CI=true).
	$(GO) test -count=1 ./...
	@set -e; if [ -n "$(PG_CTL)" ] || [ "$${CI:-}" = true ]; then \
		echo "GOBPM_TEST_DB=postgres $(GO) test -count=1 ./internal/runtime/ ./internal/api/ ./internal/camunda8/ ./client/"; \
		GOBPM_TEST_DB=postgres $(GO) test -count=1 ./internal/runtime/ ./internal/api/ ./internal/camunda8/ ./client/; \
		echo "GOBPM_CLUSTER_INSTANCES=10000 $(GO) test -count=1 -run TestClusterOfThreeNodes ./cmd/gobpm-web/"; \
		GOBPM_CLUSTER_INSTANCES=10000 $(GO) test -count=1 -run TestClusterOfThreeNodes ./cmd/gobpm-web/; \
	fi

.PHONY: test/postgres
test/postgres: ## Run the store, runtime, API, client and server suites on PostgreSQL only (needs pg_ctl; starts a throwaway server).
	$(GO) test -count=1 ./internal/pgtest/ ./internal/store/postgres/ ./cmd/gobpm-web/
	GOBPM_TEST_DB=postgres $(GO) test -count=1 ./internal/runtime/ ./internal/api/ ./internal/camunda8/ ./client/

.PHONY: test/race
test/race: vendor ## Run every test with the race detector (slower by 5-10×: the property tests alone take about 10 minutes, hence the longer timeout).
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 45m ./...

.PHONY: vendor
vendor: ## Fetch the cockpit's npm packages (htmx, bpmn-js) with npm ci into web/static/vendor/ when missing or stale.
	@if [ ! -f $(VENDOR)/.stamp ] || [ package-lock.json -nt $(VENDOR)/.stamp ] || \
		! ls $(addprefix $(VENDOR)/,$(notdir $(VENDOR_FILES)) $(foreach b,$(VENDOR_BUNDLES),$(lastword $(subst :, ,$(b))))) >/dev/null 2>&1; then \
		if command -v npm >/dev/null; then \
			echo "npm ci (cockpit assets)"; \
			npm ci --no-audit --no-fund && cp $(VENDOR_FILES) $(VENDOR)/ && \
			rm -rf $(VENDOR)/bpmn-font && cp -r node_modules/bpmn-js/dist/assets/bpmn-font $(VENDOR)/ && \
			for b in $(VENDOR_BUNDLES); do \
				node_modules/.bin/esbuild "$${b%%:*}" --bundle --minify --format=iife --log-level=warning --outfile="$(VENDOR)/$${b##*:}" || exit 1; \
			done && touch $(VENDOR)/.stamp; \
		else \
			echo "warning: npm is not installed (Debian: apt-get install nodejs npm); the cockpit runs without its diagram and live refresh until 'make vendor' succeeds"; \
		fi; \
	fi

.PHONY: generate
generate: ## Regenerate the templ components (*_templ.go, committed).
	$(GO) run github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION) generate -path web/templates

.PHONY: deps
deps: ## Say which optional test dependencies are missing (nothing is installed; .ci/run installs them in CI).
	@command -v chromium >/dev/null || echo "note: chromium is not installed (Debian: apt-get install chromium); the cockpit's browser tests are skipped$${CI:+ — with CI=true they fail}"
	@[ -n "$(PG_CTL)" ] || echo "note: PostgreSQL is not installed (Debian: apt-get install postgresql); the PostgreSQL store's tests are skipped$${CI:+ — with CI=true they fail}"
	@command -v npm >/dev/null || echo "note: npm is not installed (Debian: apt-get install nodejs npm); the cockpit's assets are missing$${CI:+ — with CI=true the asset tests fail}"

.PHONY: lint
lint: ## gofmt, go vet and staticcheck (every check; staticcheck.conf).
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "not gofmt-clean:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

.PHONY: fuzz
fuzz: ## Fuzz the BPMN, FEEL and JUEL parsers, the instance-state decoder and the store's packed form for 30 s each.
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/bpmn/
	$(GO) test -run '^$$' -fuzz FuzzCompile -fuzztime 30s ./internal/feel/
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 30s ./internal/engine/
	$(GO) test -run '^$$' -fuzz FuzzCompileEval -fuzztime 30s ./internal/juel/
	$(GO) test -run '^$$' -fuzz FuzzPack -fuzztime 30s ./internal/store/sqlite/

.PHONY: tck
tck: ## Run the DMN TCK on a checkout's test cases: make tck TCK=path/to/tck/TestCases/compliance-level-3 (TCK_FLAGS='-v -o results.csv').
	@if [ -z "$(TCK)" ]; then echo "usage: make tck TCK=path (e.g. a dmn-tck/tck checkout's TestCases/compliance-level-3)"; exit 2; fi
	$(GO) run ./cmd/gobpm-tck $(TCK_FLAGS) $(TCK)

.PHONY: bench
bench: ## Run the benchmarks.
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Knobs of make loadtest (see cmd/gobpm-load -h): measurement window per throughput phase,
# starting clients, instances stored for the list timings (1000000 for the full run),
# iterations of the big multi-instance, extra flags (e.g. LOAD_FLAGS='-json' or '-rate 1200').
LOAD_SCENARIO ?= all
LOAD_DURATION ?= 20s
LOAD_CONCURRENCY ?= 32
LOAD_STORED ?= 100000
LOAD_MI_SIZE ?= 10000
LOAD_FLAGS ?=

.PHONY: loadtest
loadtest: build ## Drive the real server over REST (spawned on a free loopback port, fresh DB, synchronous=FULL) and print PI/s, p50/p99, bytes/instance and list latencies; knobs LOAD_SCENARIO (job|straight|mi|bytes|list|all), LOAD_DURATION, LOAD_CONCURRENCY, LOAD_STORED, LOAD_MI_SIZE, LOAD_FLAGS.
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/gobpm-load ./cmd/gobpm-load
	./bin/gobpm-load -spawn -server $(BIN) -sync FULL -scenario $(LOAD_SCENARIO) -duration $(LOAD_DURATION) \
		-concurrency $(LOAD_CONCURRENCY) -stored $(LOAD_STORED) -mi-size $(LOAD_MI_SIZE) $(LOAD_FLAGS)

.PHONY: loadtest-nodes
loadtest-nodes: build ## PI/s of start → job → end with 1, 2 and 3 nodes on one throwaway PostgreSQL, and on SQLite (needs the postgresql package); knobs LOAD_DURATION, LOAD_CONCURRENCY.
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/gobpm-load ./cmd/gobpm-load
	DURATION=$(LOAD_DURATION) CONCURRENCY=$(LOAD_CONCURRENCY) ./cmd/gobpm-load/bench-nodes.sh $(BIN) bin/gobpm-load

.PHONY: clean
clean: ## Remove build output and the fetched npm packages.
	rm -rf bin node_modules $(VENDOR)/.stamp
	find $(VENDOR) -type f ! -name README.md -delete
