# herd's developer targets. `make bench` prints the Go benchmarks of both
# Monte Carlo engines (calls/s, allocations, cost versus N), the samplers
# the count engine draws from, and the sweep runner.
GO ?= go
BENCHTIME ?= 1s

.PHONY: bench
bench:
	$(GO) test -run '^$$' -bench 'ClientEngine|CostVersusN|EngineCost|Samplers' -benchmem -benchtime $(BENCHTIME) ./montecarlo
	$(GO) test -run '^$$' -bench 'Sweep' -benchmem -benchtime $(BENCHTIME) ./analysis
