# The README's two commands: `CGO_ENABLED=0 go install ./cmd/chatls && chatls demo` and `make test`.
GO ?= go

.PHONY: test test-go test-loaded test-race test-clients build bench fuzz fuzz-ci vet

# Everything: Go unit, fuzz-seed and end-to-end tests, then the real-editor tests.
# On CI (CI=true) every fuzz target also fuzzes briefly, so a new crasher in a
# parser shows up on the change that introduced it.
test: vet test-go test-race test-clients $(if $(filter true,$(CI)),fuzz-ci)

# A short pass of every fuzz target; `make fuzz FUZZTIME=10m` for a long one.
fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=8s

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

test-go:
	$(GO) test -count=1 -timeout 30m ./...

# The Go suite while two busy loops per core run (started and always killed
# by .ci/loaded): every time bound in a test must hold on a busy machine.
# `make test-loaded PKGS=./approval/...` runs some packages only, RUN='TestA|TestB'
# some tests only.
PKGS ?= ./...
test-loaded:
	GO=$(GO) bash .ci/loaded $(if $(RUN),-run '$(RUN)') $(PKGS)

# The tests whose point is concurrent reads of shared state (snapshots read
# by several requests, the registry while a source replaces its tools, the
# parse and validation on two cores) under the race detector, which is what
# makes them fail when that sharing breaks.
RACE_TESTS = TestLineIndexFirstUseFromManyGoroutines|TestTextConcurrent|TestMovedChunksReadConcurrently|TestParallelParseEqualsSequential|TestValidateWhileASourceReplacesItsTools|TestToolDiagnosticsParallelEqualsSequential
test-race:
	$(GO) test -race -count=1 -run '^($(RACE_TESTS))$$' ./chatdoc/ ./tools/ ./surface/

test-clients:
	bash clients/test.sh

build:
	CGO_ENABLED=0 $(GO) build -o bin/chatls ./cmd/chatls

# Benchmarks quoted in docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./chatdoc/ ./approval/ ./tools/ ./tools/builtin/ ./internal/procsup/ ./server/... ./session/ ./surface/ ./e2e/

# Every fuzz target for FUZZTIME each (go test -fuzz takes one target per run).
FUZZTIME ?= 60s
FUZZ_TARGETS = \
	./chatdoc/:FuzzParse ./chatdoc/:FuzzIncremental ./internal/jsonfast/:FuzzMembers ./internal/jsonfast/:FuzzValid \
	./frontmatter/:FuzzLuaPatterns ./frontmatter/:FuzzLuaFrontmatter \
	./approval/:FuzzShellAnalysis ./server/framing/:FuzzStreamResync ./surface/:FuzzSurface \
	./tools/:FuzzQuickSchemaNeverAcceptsWhatValidateRejects ./tools/:FuzzQuickSoundSchemasCompile \
	./tools/plugin/:FuzzDispatch ./internal/procsup/:FuzzDecodeRequest

fuzz:
	@GO=$(GO) bash internal/fuzz/run.sh $(FUZZTIME) $(FUZZ_TARGETS)
