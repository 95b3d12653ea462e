GO ?= go

.PHONY: all build test race vet bench bench-vs-seed fuzz docs plots plots

all: vet test build

build:
	$(GO) build -buildvcs=auto -o bin/herd ./cmd/herd

test:
	$(GO) test ./...

race:
	$(GO) test -race ./montecarlo ./analysis

vet:
	$(GO) vet ./...

# Both Monte Carlo engines (calls/s, allocations, cost versus N), the
# count engine's samplers, and the sweep runner (points/s, trials/s).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./montecarlo
	$(GO) test -run '^$$' -bench Sweep -benchmem ./analysis

bench-vs-seed:
	scripts/bench-vs-seed.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzPolicy -fuzztime 30s ./model

# The CLI reference and man pages, generated from the command tree.
docs:
	$(GO) run ./cmd/herd gen-docs --markdown docs/cli --man docs/man

# conformance checks herd's library presets against the real libraries
# (a separate module, so herd's own dependencies stay lean).
.PHONY: conformance
conformance:
	cd conformance && go test -count=1 ./...

# Every figure (SVG, PNG and PDF) with fixed seeds: a second run writes
# byte-identical files. See `herd plots --list`.
plots: build
	./bin/herd plots --out paper/figures
