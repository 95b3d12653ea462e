# conformance checks herd's library presets against the real libraries
# (a separate module, so herd's own dependencies stay lean).
.PHONY: conformance
conformance:
	cd conformance && go test -count=1 ./...
