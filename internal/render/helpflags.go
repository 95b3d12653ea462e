package render

import (
	"strings"

	"github.com/spf13/pflag"
)

// flagGroups lays a command's flags out in help by what they describe,
// the everyday ones first and the rare ones under their own heading. A
// flag named in no group is listed under "Other flags", so a new flag is
// never hidden.
var flagGroups = []struct {
	title string
	flags []string
}{
	{"Scenario", []string{"clients", "capacity", "policy", "base", "cap", "fixed-delay", "retries", "max-elapsed", "exponent", "config", "envoy-backoff", "policies"}},
	{"Server", []string{"server", "queue-limit", "timeout", "failure-rate", "reject-cost", "burst", "nodelay"}},
	{"Time", []string{"time", "tick", "window", "latency", "first-spread"}},
	{"Retry controls", []string{"max-attempts", "bucket", "breaker", "retry-budget", "retry-throttling", "adaptive-throttling"}},
	{"Traffic (open and closed loops)", []string{"rate", "loop", "think-time", "outage", "outage-start", "outage-capacity", "ticks", "drain", "start-cohort"}},
	{"Run", []string{"trials", "seed", "workers", "engine", "horizon", "max-memory"}},
	{"Output", []string{"format", "out", "force", "wide", "arrivals", "series", "v", "verbose"}},
	{"Rare: rounding, first sends, the machine's way and the controls' parameters", []string{
		"rounding", "first-window", "first-arrivals", "first-answers", "latency-per-flight", "stalls",
		"collapse-backlog", "recovered-backlog",
		"bucket-capacity", "bucket-cost", "bucket-deposit",
		"breaker-kind", "breaker-window", "breaker-threshold", "breaker-min-calls", "breaker-cooldown", "breaker-max-ratio",
		"budget-percent", "budget-ttl", "budget-min-retries",
		"throttling-max-tokens", "throttling-token-ratio",
		"adaptive-k", "adaptive-window"}},
}

// GroupAnnotation names a flag's help heading on a command whose flags
// mean other things than flagGroups' (herd service's --workers are
// servers); such headings come first, in the order of the flags.
const GroupAnnotation = "herd_help_group"

// GroupedFlags renders fs's flags in flagGroups' order, each group under
// its heading and in the order it lists them; a command whose flags fall
// into one group only keeps a single list.
func GroupedFlags(fs *pflag.FlagSet) string {
	var titles []string
	sets := map[string]*pflag.FlagSet{}
	add := func(title string, f *pflag.Flag) {
		if sets[title] == nil {
			titles = append(titles, title)
			sets[title] = pflag.NewFlagSet(title, pflag.ContinueOnError)
			sets[title].SortFlags = false
		}
		sets[title].AddFlag(f)
	}
	placed := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		if g := f.Annotations[GroupAnnotation]; len(g) > 0 && !f.Hidden {
			add(g[0], f)
			placed[f.Name] = true
		}
	})
	for _, g := range flagGroups {
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil && !f.Hidden && !placed[name] {
				add(g.title, f)
				placed[name] = true
			}
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && !placed[f.Name] && f.Name != "help" {
			add("Other flags", f)
		}
	})
	if h := fs.Lookup("help"); h != nil {
		add("Other flags", h)
	}
	if len(titles) < 2 {
		return "Flags:\n" + fs.FlagUsagesWrapped(helpWidth)
	}
	var b strings.Builder
	for i, t := range titles {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t + ":\n" + sets[t].FlagUsagesWrapped(helpWidth))
	}
	return b.String()
}

// helpWidth is the width help wraps flag descriptions to.
const helpWidth = 100

// FlagGroup is a heading of a command's help and the flags under it.
type FlagGroup struct {
	Title string
	Flags []string
}

// ServiceFlagGroups are herd service's headings: by what each flag sets
// (its --workers are the server's, its --arrivals a load).
var ServiceFlagGroups = []FlagGroup{
	{"Server", []string{"workers", "room", "service-time", "slope", "cancel", "reject", "pause"}},
	{"Clients and network", []string{"network", "timeout", "attempts", "policy", "base", "cap", "fixed-delay", "late-success"}},
	{"Load", []string{"load", "arrivals", "cohort", "duration", "drain"}},
	{"Recovery and counts", []string{"trigger", "recovered-backlog", "bin"}},
	{"Run", []string{"trials", "seed", "threads"}},
}

// Annotate puts each flag of groups under its heading, in the order given.
func Annotate(fs *pflag.FlagSet, groups []FlagGroup) {
	for _, g := range groups {
		for _, name := range g.Flags {
			_ = fs.SetAnnotation(name, GroupAnnotation, []string{g.Title})
		}
	}
	fs.SortFlags = false
}
