package render

import (
	"regexp"
	"testing"

	"github.com/spf13/pflag"
)

// A flag that no group names is not hidden: it is listed under "Other
// flags".
func TestHelpListsUngroupedFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Int("clients", 1, "number of clients")
	fs.Bool("brand-new", false, "a flag no group names")
	got := GroupedFlags(fs)
	if !regexp.MustCompile(`(?s)Scenario:\n.*--clients.*\nOther flags:\n.*--brand-new`).MatchString(got) {
		t.Errorf("grouped help:\n%s\nwant --clients under Scenario and --brand-new under Other flags", got)
	}
}
