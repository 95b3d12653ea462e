GO ?= go

.PHONY: all build test test-short test-long race vet bench bench-vs-seed fuzz docs plots plots

all: vet test build

# The revision every output's cite line names. go build stamps it itself in
# a clone; STAMP gives it where go build cannot (a git worktree, or
# GOFLAGS=-buildvcs=false), and the binary prefers go build's own stamp.
STAMP = -X github.com/herdlab/herd/internal/buildinfo.stampRevision=$(shell git rev-parse HEAD 2>/dev/null) \
	-X github.com/herdlab/herd/internal/buildinfo.stampModified=$(shell test -z "$$(git status --porcelain 2>/dev/null)" && echo false || echo true)

build:
	$(GO) build -buildvcs=auto -ldflags "$(STAMP)" -o bin/herd ./cmd/herd

# The default run (about a minute on 2 cores); -short skips the slowest
# exact checks; test-long adds the long statistical suites (*_long_test.go:
# every claim's verdict, verdicts across seeds, the mean field at 10^5
# clients, the paper data's full reproducibility), several CPU-minutes.
test:
	$(GO) test ./...

test-short:
	$(GO) test -short ./...

test-long:
	$(GO) test -tags long -timeout 60m ./...

# The default suite and the long suites under the race detector, but the
# long tests that only repeat, at a larger size or another seed, concurrent
# code that others run under it (RACE_LEFT_OUT; .ci/run says why and runs
# them without the detector).
RACE_LEFT_OUT = ^(TestCostlySectionsReproducible|TestMeanFieldKnifeEdgeAtScale|TestCommittedScalingAtScale|TestClaimVerdictsStableAcrossSeeds)$$
race:
	$(GO) test -race -tags long -timeout 80m -skip '$(RACE_LEFT_OUT)' ./...

vet:
	$(GO) vet ./...

# Both Monte Carlo engines (calls/s, allocations, cost versus N), the
# count engine's samplers, and the sweep runner (points/s, trials/s).
# Where the time goes, one core each: calls/s per engine (per second of wall
# clock and of CPU) at the issue's reference scenario, events/s of the OCC
# engine on the blog's grid and its queue alone, the two operations a
# per-client call is made of (a random draw, a bucket write) and an OCC hop;
# then the sweep, and the side-by-side ratios against the seed article's
# numpy code and the AWS blog's simulator (each skips when absent).
bench: bench-engines bench-vs-seed bench-vs-aws
	$(GO) test -run '^$$' -bench Sweep -benchmem ./sweep

# How long herd claims and make plots take after the build (medians of
# RUNS=3 runs, wall and CPU seconds, the load, the ratio against the
# numbers before the run cache), and a --no-cache run that must give the
# same bytes (CHECK=0 skips it). Targets on an idle 2-core machine:
# claims ≤ 10 s, plots ≤ 15 s.
.PHONY: bench-claims bench-plots
bench-claims: build
	scripts/bench-runs.sh claims
bench-plots: build
	scripts/bench-runs.sh plots

.PHONY: bench-engines
bench-engines:
	GOMAXPROCS=1 $(GO) test -run '^$$' -cpu 1 -benchmem \
		-bench 'ClientEngine|CountEngine|OCCEngine|OCCGrid|OCCQueue|RandomDraw|BucketWrite|Hop$$' ./montecarlo

# The continuous-time engine against the per-client tick engine on one
# service, one core, side by side: the median calls/s of -count COUNT=5 and
# their ratio, which must stay ≤ 1.5 (docs/models.md, "The window engine").
.PHONY: bench-continuous
bench-continuous:
	scripts/bench-continuous.sh

# The measurements behind the engine-cost figure: BenchmarkCostVersusN's
# raw output (with its goos/goarch/cpu header), which package plots embeds;
# run it on a quiet machine (about a minute), then make plots redraws.
.PHONY: bench-cost
bench-cost:
	$(GO) test -run '^$$' -bench BenchmarkCostVersusN -benchtime 1s -count 5 ./montecarlo > plots/data/engine-cost.txt.tmp
	mv plots/data/engine-cost.txt.tmp plots/data/engine-cost.txt

# Per-client engine against the seed article's numpy code, one core each,
# side by side (skips when ../shared/seeds is absent; SHARED moves it).
bench-vs-seed:
	scripts/bench-vs-seed.sh

# herd reproduce aws against the AWS blog's own simulator (pyenv's Python
# 2.7.18), one core each, per trial (skips when ../shared/anchors is absent).
.PHONY: bench-vs-aws
bench-vs-aws:
	scripts/bench-vs-aws.sh

# deploy/slurm on a real one-node Slurm cluster on localhost: as root it
# installs slurm-wlm and munge, runs the array, the merge and two requeues,
# compares with an unsharded sweep, and stops every daemon (a few minutes).
.PHONY: slurm-check
slurm-check:
	deploy/slurm/check.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzPolicy -fuzztime 30s ./model

# Hostile input against the binary (scripts/hostile-cases.sh): each case
# refused by flag or file within its bounds, run correctly, or stopped by
# Ctrl-C within a second; a few minutes on 2 cores.
.PHONY: hostile
hostile: build
	scripts/hostile-cases.sh bin/herd

# The CLI reference and man pages, generated from the command tree.
docs:
	$(GO) run ./cmd/herd gen-docs --markdown docs/cli --man docs/man

# conformance checks herd's library presets against the real libraries
# (a separate module, so herd's own dependencies stay lean).
.PHONY: conformance
conformance:
	cd conformance && go test -count=1 ./...

# live-check runs real retry libraries (cenkalti/backoff, retry-go,
# go-retryablehttp, a hand-written Full Jitter) against a loopback window
# server and compares what they do with herd's continuous-time prediction
# (a separate module; see live/doc.go). The grid of 32 cases,
# measured one at a time (about 16 minutes on the idle 2-core machine).
# LIVEFLAGS are the harness's flags, e.g. LIVEFLAGS="-reps 8 -trace t.csv".
LIVEFLAGS ?=
.PHONY: live-check
live-check:
	cd live && go test -count=1 ./... && go run . $(LIVEFLAGS)

# virtual-check runs real retry libraries' own loops in testing/synctest
# bubbles (virtual time, one bubble per trial) against herd's window server
# in process, and compares calls, completion, give-ups and the law of
# completion with herd's continuous-time prediction (a separate module; see
# docs/virtual.md): every library x N in {1,000, 10,000} x window in {1 ms,
# 100 ms}. The last line is "A of M agree"; it fails when one disagrees.
# VIRTUALFLAGS are the check's flags, e.g. VIRTUALFLAGS="-only retry-go-v4", or
# "-only retry-go-v4 -clients 2000 -windows 100ms" for one service of your own;
# VIRTUALTAGS=plantjitter builds herd with every preset's jitter 1.1 times
# as wide, which the check must find.
VIRTUALFLAGS ?=
VIRTUALTAGS ?=
.PHONY: virtual-check
virtual-check:
	cd virtual && go test -count=1 -tags '$(VIRTUALTAGS)' -skip '^TestVirtualCheck$$' . && \
		go test -c -tags '$(VIRTUALTAGS)' -o ../bin/virtual.test . && \
		../bin/virtual.test -test.run '^TestVirtualCheck$$' -test.timeout 0 -full $(VIRTUALFLAGS)

# live-nginx runs the same libraries against a real nginx's limit_req on
# 127.0.0.1 (Debian's nginx-light, installed when missing) and compares
# them with herd's gcra server: 3 libraries × 2 settings (docs/limiters.md).
.PHONY: live-nginx
live-nginx:
	scripts/live-nginx.sh $(LIVEFLAGS)

# Every figure (SVG, PNG and PDF) with fixed seeds: a second run writes
# byte-identical files. See `herd plots --list`.
plots: build
	./bin/herd plots --cite=false --out paper/figures

# The notebooks, executed headless in place with Debian's Python (python3 on
# PATH may be another one without pandas): they call bin/herd with
# --format json, and fixed seeds make re-execution change no number.
NOTEBOOK_PYTHON ?= /usr/bin/python3
NOTEBOOKS = $(sort $(wildcard notebooks/*.ipynb))
.PHONY: notebooks
notebooks: build
	@$(NOTEBOOK_PYTHON) -c 'import pandas, matplotlib, nbconvert, ipykernel' 2>/dev/null || { \
		echo "notebooks need Debian's python3-pandas python3-matplotlib jupyter-nbconvert python3-ipykernel (for $(NOTEBOOK_PYTHON))"; exit 1; }
	HERD=$(CURDIR)/bin/herd PYDEVD_DISABLE_FILE_VALIDATION=1 \
		$(NOTEBOOK_PYTHON) -m nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=600 \
		--ExecutePreprocessor.record_timing=False $(NOTEBOOKS)

# The paper: paper/generated (every number and table, `herd paper-data`),
# the figures (make plots), then paper/herd.pdf with latexmk. Needs Debian's
# latexmk texlive-latex-recommended texlive-latex-extra
# texlive-fonts-recommended (see README).
.PHONY: paper paper-data
paper-data: build
	./bin/herd paper-data --out paper/generated

# The paper draws its own figures into paper/build (not committed), each
# with the cite line in its small print, and puts the revision on the title
# page and in the PDF's metadata: paper/figures (make plots) stay free of
# revisions, so that they are byte-identical for the same tree.
paper: paper-data build
	./bin/herd plots --out paper/build/figures
	./bin/herd version | sed -n 's/^revision \(.*\)$$/\\newcommand{\\herdrevision}{\1}/p' > paper/build/revision.tex
	cd paper && latexmk -pdf -interaction=nonstopmode -halt-on-error herd.tex

# Every number, verdict and name that a corpus of commands prints in JSON
# (scripts/behaviour-corpus.sh), at BASE and at the work tree: a change of
# shape must leave them identical. make behaviour BASE=6371d3b
BASE ?= HEAD
.PHONY: behaviour
behaviour:
	@tmp=$$(mktemp -d) && git worktree add -q --detach "$$tmp/base" $(BASE) && \
	(cd "$$tmp/base" && $(GO) build -o "$$tmp/herd-base" ./cmd/herd) && \
	git worktree remove --force "$$tmp/base" && \
	$(GO) build -o "$$tmp/herd-head" ./cmd/herd && \
	scripts/behaviour-corpus.sh "$$tmp/herd-base" "$$tmp/base-out" >/dev/null && \
	scripts/behaviour-corpus.sh "$$tmp/herd-head" "$$tmp/head-out" && \
	diff -r -x '*.err' "$$tmp/base-out" "$$tmp/head-out" && echo "behaviour kept: every output identical to $(BASE)'s"; \
	rc=$$?; rm -rf "$$tmp"; exit $$rc

# Every flag of every command with hostile values, generated from the command
# tree (cmd/herd/flagfuzz_test.go, build tag fuzzcli); each kind of failure
# is its own subtest (TestFlagFuzz/signal, …/names-no-flag). FUZZ_ARGS
# passes the test's flags, e.g. FUZZ_ARGS='-fuzz.only "^delays "'.
.PHONY: fuzz-cli
fuzz-cli: build
	HERD=$(CURDIR)/bin/herd $(GO) test -count=1 -tags fuzzcli -run TestFlagFuzz -timeout 15m ./cmd/herd -args $(FUZZ_ARGS)
