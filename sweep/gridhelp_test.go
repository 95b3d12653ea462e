package sweep

import (
	"strings"
	"testing"
)

// Every field a sweep varies says what its values are in --help.
func TestEveryGridFieldHasHelp(t *testing.T) {
	for _, f := range GridFields {
		if u := GridUsage(f); strings.HasPrefix(u, ":") {
			t.Errorf("--%s has no help: %q", f, u)
		}
	}
}
