# gobpm — run `make help` for the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/gobpm-web
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.Version=$(VERSION)
ADDR ?= 127.0.0.1:8080
DB ?= ./data/gobpm.db

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@grep -hE '^[a-zA-Z/_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build the server binary (pure Go, CGO_ENABLED=0) into bin/.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gobpm-web

.PHONY: run
run: build ## Build and start the server on $(ADDR) with the SQLite file $(DB).
	./$(BIN) --addr $(ADDR) --db $(DB)

.PHONY: test
test: lint ## Run every test (vet and format checks first).
	$(GO) test -count=1 ./...

.PHONY: test/race
test/race: ## Run every test with the race detector.
	CGO_ENABLED=1 $(GO) test -race -count=1 ./...

.PHONY: lint
lint: ## gofmt and go vet.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "not gofmt-clean:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

.PHONY: fuzz
fuzz: ## Fuzz the BPMN and FEEL parsers for 30 s each.
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/bpmn/
	$(GO) test -run '^$$' -fuzz FuzzCompile -fuzztime 30s ./internal/feel/

.PHONY: bench
bench: ## Run the benchmarks.
	$(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: clean
clean: ## Remove build output.
	rm -rf bin
