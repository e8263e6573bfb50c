# The README's two commands: `go install ./cmd/chatls && chatls demo` and `make test`.
GO ?= go

.PHONY: test test-go test-clients build bench fuzz vet

# Everything: Go unit, fuzz-seed and end-to-end tests, then the real-editor tests.
test: vet test-go test-clients

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

test-go:
	$(GO) test -count=1 ./...

test-clients:
	bash clients/test.sh

build:
	$(GO) build -o bin/chatls ./cmd/chatls

# Benchmarks quoted in docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./chatdoc/ ./approval/ ./tools/ ./server/... ./e2e/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./chatdoc/
	$(GO) test -run '^$$' -fuzz FuzzIncremental -fuzztime 60s ./chatdoc/
