// Package usage decides and words the refusals of herd's command line:
// which errors refuse the user's input (exit status 2) rather than fail a
// run, and an input a command needs that was not given, which is named
// with the flags that were, so that every refusal answers what the user
// typed.
package usage

import (
	"errors"
	"strconv"
	"strings"

	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/solve"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Missing is an input a command needs that was not given: Need says what
// it is in the command line's words ("--method closed|markov", "the shard
// files"). Command and Given are filled where the command line is known
// (see Explain).
type Missing struct {
	Need    string
	Command string // the command's path without the program, "model"
	Given   string // the flags given, as Given writes them
}

func (e *Missing) Error() string {
	s := e.Command + " needs " + e.Need
	if e.Command == "" {
		s = "needs " + e.Need
	}
	if e.Given != "" {
		s += " (given: " + e.Given + ")"
	}
	return s
}

// Need is a Missing for need.
func Need(need string) error { return &Missing{Need: need} }

// Explain returns err, or when err holds a Missing, that Missing with
// what it lacks filled in: the command (its path without the program's
// name) and the flags of fs that were given. (A wrapper's message was
// written before, so the Missing says it all.)
func Explain(err error, path string, fs *pflag.FlagSet) error {
	var miss *Missing
	if !errors.As(err, &miss) {
		return err
	}
	miss.Command = path
	if fs != nil {
		miss.Given = Given(fs)
	}
	return miss
}

// Given writes the flags of fs that were given as the user could type
// them again: --name=value, the value Go-quoted when it is empty or holds
// a space, a quote, a | or a control character, in the order pflag sorts
// them.
func Given(fs *pflag.FlagSet) string {
	var s []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed {
			return
		}
		v := f.Value.String()
		if q := strconv.Quote(v); v == "" || strings.ContainsAny(v, " \"'|") || q[1:len(q)-1] != v {
			v = q
		}
		s = append(s, "--"+f.Name+"="+v)
	})
	return strings.Join(s, " ")
}

// Refused reports whether err refuses the user's input (exit status 2)
// rather than a failure of the run: a field out of range or a setting
// without the one it belongs to, a scenario an engine refuses or a model
// cannot take or bound, a file herd will not read, an output path herd
// will not write, an input not given.
func Refused(err error) bool {
	var (
		fe   *model.FieldError
		mu   *model.UsageError
		le   *montecarlo.LimitError
		me   *solve.Unsupported
		ie   *infile.Error
		oe   *outfile.RefusedError
		miss *Missing
	)
	return errors.As(err, &fe) || errors.As(err, &mu) || errors.As(err, &le) || errors.As(err, &me) || errors.As(err, &ie) || errors.As(err, &oe) || errors.As(err, &miss)
}

// Args refuses fewer than n arguments as the Missing need, where cobra's
// own check would say only how many it received.
func Args(n int, need string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return Need(need)
		}
		return nil
	}
}
