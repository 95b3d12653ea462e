package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gopkg.in/yaml.v3"
)

// PolicyEntry is one policy of a comparison: its label, if given, and its
// fields in the order given, spelled as the scenario flags.
type PolicyEntry struct {
	Label  string
	Fields [][2]string
	// Configured, when its Kind is set, is a policy read from a retry
	// configuration, played in place of Fields (model.Spec.WithConfigured).
	Configured policy.Policy
}

// MaxPolicies is the most policies one comparison takes: beyond a dozen
// or so its figure and table can no longer be read.
const MaxPolicies = 24

// MaxPoliciesFile is the most bytes a policies file may hold.
const MaxPoliciesFile = 1 << 20

// ReadPolicies reads a policies file: a list under "policies:" of
// policies, each a map of its fields (model.PolicyFields) and an optional label.
// A field given twice, a label that would break a table (a newline or
// another control character) and more than MaxPolicies policies are
// refused.
func ReadPolicies(path string) ([]PolicyEntry, error) {
	b, err := infile.Read("policies", path, MaxPoliciesFile)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Policies []yaml.Node `yaml:"policies"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		// The decoder would name the Go type it reads into.
		if te := (*yaml.TypeError)(nil); errors.As(err, &te) && len(te.Errors) > 0 {
			line, _, _ := strings.Cut(te.Errors[0], ":")
			return nil, model.Usagef("--policies %s: %s: want a list of policies under \"policies:\"", path, line)
		}
		return nil, model.Usagef("--policies %s: %w", path, err)
	}
	if len(doc.Policies) > MaxPolicies {
		return nil, model.Usagef("--policies %s: %d policies listed; a comparison takes at most %d", path, len(doc.Policies), MaxPolicies)
	}
	var out []PolicyEntry
	for i, n := range doc.Policies {
		if n.Kind != yaml.MappingNode {
			return nil, model.Usagef("--policies %s: policy %d must be a map of fields (policy, base, cap, fixed-delay, retries, max-elapsed, label)", path, i+1)
		}
		var e PolicyEntry
		seen := map[string]bool{}
		for j := 0; j+1 < len(n.Content); j += 2 {
			key, val := n.Content[j].Value, n.Content[j+1].Value
			if seen[key] {
				return nil, model.Usagef("--policies %s: line %d: policy %d gives %q twice", path, n.Content[j].Line, i+1, key)
			}
			seen[key] = true
			switch {
			case key == "label":
				if strings.ContainsFunc(val, unicode.IsControl) {
					return nil, model.Usagef("--policies %s: line %d: policy %d's label holds a newline or another control character; give it on one line", path, n.Content[j].Line, i+1)
				}
				e.Label = val
			case slices.Contains(model.PolicyFields, key):
				e.Fields = append(e.Fields, [2]string{key, val})
			default:
				return nil, model.Usagef("--policies %s: policy %d: %q is not a policy field (fields: %s, label)", path, i+1, key, strings.Join(model.PolicyFields, ", "))
			}
		}
		out = append(out, e)
	}
	if len(out) < 2 {
		return nil, model.Usagef("--policies %s: %d policies listed; a comparison needs two or more (a list under \"policies:\")", path, len(out))
	}
	return out, nil
}

// ComparedScenarios is the service of spec under each policy of entries,
// with each policy's label: the one given, or its name and the fields it
// sets. A delay given as a duration (base: 20ms) is converted to ticks of
// the spec's tick. A comparison needs two or more policies with distinct
// labels, on a server with ticks or windows. Every policy, textbook or
// preset, runs on one tick: the spec's, its window in continuous time, or
// policy.DefaultTick when it gives none.
func ComparedScenarios(spec model.Spec, entries []PolicyEntry) ([]string, []model.Scenario, error) {
	if len(entries) < 2 {
		return nil, nil, fmt.Errorf("a comparison needs two or more policies (--policy, --policies or --config), got %d", len(entries))
	}
	sc0, err := spec.Scenario()
	if err != nil {
		return nil, nil, err
	}
	if !spec.Given("tick") && !sc0.InContinuousTime() {
		if spec, err = spec.With("tick", policy.DefaultTick.String()); err != nil {
			return nil, nil, err
		}
		if sc0, err = spec.Scenario(); err != nil {
			return nil, nil, err
		}
	}
	var labels []string
	var scs []model.Scenario
	for _, e := range entries {
		s := spec
		var params []string
		name := ""
		if e.Configured.Kind != "" {
			s, name = s.WithConfigured(e.Configured), string(e.Configured.Kind)
		}
		for _, kv := range e.Fields {
			field, text := kv[0], kv[1]
			if s, err = s.With(field, text); err != nil {
				return nil, nil, err
			}
			if field == "policy" {
				name = text
			} else {
				params = append(params, field+" "+kv[1])
			}
		}
		if name == "" {
			return nil, nil, fmt.Errorf("--policies: every policy needs a policy: name")
		}
		sc, err := s.Scenario()
		if err != nil {
			return nil, nil, fmt.Errorf("policy %s: %w", name, err)
		}
		label := e.Label
		if label == "" {
			label = name
			if len(params) > 0 {
				label += " (" + strings.Join(params, ", ") + ")"
			}
		}
		if slices.Contains(labels, label) {
			return nil, nil, fmt.Errorf("policy %q is listed twice; give each its own label", label)
		}
		labels, scs = append(labels, label), append(scs, sc)
	}
	if sc0.Plays().Milliseconds {
		return nil, nil, fmt.Errorf("--server occ has no ticks or windows; compare policies on the capacity or collision server")
	}
	return labels, scs, nil
}
