package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// Every command's help lists each of its visible flags exactly once, under
// a heading; simulate's come in the groups' order, the everyday groups
// before the rare one.
func TestHelpGroupsEveryFlagOnce(t *testing.T) {
	f := testFactory(nil)
	root := newRootCmd(f)
	flagLine := regexp.MustCompile(`^(?:  -\w, |      )--([a-z0-9-]+)`)
	for _, c := range root.Commands() {
		out := &bytes.Buffer{}
		f.IO.Out = out
		if code := execute(context.Background(), newRootCmd(f), []string{c.Name(), "--help"}, &bytes.Buffer{}); code != exitOK {
			t.Fatalf("%s --help: exit %d", c.Name(), code)
		}
		seen := map[string]int{}
		var headings []string
		_, usage, _ := strings.Cut(out.String(), "\nUsage:")
		for _, line := range strings.Split(usage, "\n") {
			if m := flagLine.FindStringSubmatch(line); m != nil {
				seen[m[1]]++
			} else if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
				headings = append(headings, strings.TrimSuffix(line, ":"))
			}
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if !fl.Hidden && seen[fl.Name] != 1 {
				t.Errorf("%s --help lists --%s %d times, want once", c.Name(), fl.Name, seen[fl.Name])
			}
		})
		if c.Name() == "simulate" {
			want := "Scenario Server Time Retry controls"
			if got := strings.Join(headings, " "); !strings.Contains(got, want) || !strings.Contains(got, "Rare") || strings.Index(got, "Rare") < strings.Index(got, "Output") {
				t.Errorf("simulate --help headings %q: want %q first and the rare flags after Output", got, want)
			}
		}
	}
}

// herd service's flags are listed by what they set: its --workers under
// the server, its --arrivals under the load, not simulate's headings.
func TestServiceHelpGroups(t *testing.T) {
	f := testFactory(nil)
	out := &bytes.Buffer{}
	f.IO.Out = out
	if code := execute(context.Background(), newRootCmd(f), []string{"service", "--help"}, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("service --help: exit %d", code)
	}
	heading := ""
	under := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			heading = strings.TrimSuffix(line, ":")
		} else if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--"); ok {
			under[strings.Fields(name)[0]] = heading
		}
	}
	for flag, want := range map[string]string{"workers": "Server", "timeout": "Clients and network", "arrivals": "Load", "trigger": "Recovery and counts", "threads": "Run", "format": "Output"} {
		if under[flag] != want {
			t.Errorf("--%s under %q, want %q", flag, under[flag], want)
		}
	}
}
