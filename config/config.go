package config

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gopkg.in/yaml.v3"
)

// MaxFile is the most bytes herd reads from one configuration file.
const MaxFile = 1 << 20

// A Reading is what herd understood of one retry policy of a
// configuration file: the policy and the controls it maps to, and a row
// per field read, with the source's name and herd's equivalent.
type Reading struct {
	File   string
	Format string
	// Name is the method, instance or profile the policy belongs to, empty
	// when the file holds one policy only.
	Name   string
	Policy policy.Policy
	// Throttling is gRPC retry throttling (zero: none); Bucket an AWS
	// retry quota ("": none); Budget an Envoy retry budget (nil: none).
	Throttling control.RetryThrottling
	Bucket     control.BucketKind
	Budget     *control.EnvoyBudget
	// PerTryTimeout is Envoy's per_try_timeout (0: none): herd's servers
	// answer at once, so it never fires but on the queue server, which
	// refuses it.
	PerTryTimeout time.Duration
	Rows          []Row
}

// A Row is one field read: its path in the file, its value, and what herd
// makes of it.
type Row struct{ Field, Value, Herd string }

// Label names the reading in a comparison: the file, and the method,
// instance or profile when there is one.
func (r Reading) Label() string {
	if r.Name == "" {
		return r.File
	}
	return r.File + ":" + r.Name
}

// Controls puts the reading's controls into c, refusing one that c
// already has from a flag.
func (r Reading) Controls(c control.Controls) (control.Controls, error) {
	if r.Throttling.MaxTokens != 0 {
		if c.Throttling.MaxTokens != 0 {
			return c, model.Usagef("--config %s gives retryThrottling and --retry-throttling gives it too; give it once", r.File)
		}
		c.Throttling = r.Throttling
	}
	if r.Bucket != "" {
		if c.Bucket.Kind != "" && c.Bucket.Kind != control.NoBucket {
			return c, model.Usagef("--config %s gives the AWS retry quota and --bucket gives a bucket too; give one", r.File)
		}
		c.Bucket = control.DefaultBucket(r.Bucket)
	}
	return c, nil
}

// Print writes the table of what herd understood.
func (r Reading) Print(w io.Writer) error {
	title := fmt.Sprintf("herd: --config %s (%s", r.File, r.Format)
	if r.Name != "" {
		title += ", " + r.Name
	}
	if _, err := fmt.Fprintln(w, title+"): "+r.Policy.Describe()); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  field\tvalue\therd")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", row.Field, row.Value, row.Herd)
	}
	return tw.Flush()
}

// EnvoyBackoff says which drawing of an Envoy retry_back_off to play:
// Envoy's code, or the reading of its router docs.
type EnvoyBackoff string

const (
	// EnvoyCode is what Envoy (≥ 1.14) does: policy envoy.
	EnvoyCode EnvoyBackoff = "code"
	// EnvoyDocs is the router docs' [0, (2ⁿ−1)·base_interval), which
	// Envoy's code drew before 1.14: policy envoy-docs.
	EnvoyDocs EnvoyBackoff = "docs"
)

// EnvoyBackoffs lists the drawings of EnvoyBackoff, the default first.
func EnvoyBackoffs() []EnvoyBackoff { return []EnvoyBackoff{EnvoyCode, EnvoyDocs} }

// Options are the choices a file cannot carry: each format's fields are
// the source's, and an unknown field is refused.
type Options struct {
	// Envoy picks the drawing of an Envoy retry_back_off ("": EnvoyCode).
	Envoy EnvoyBackoff
}

// Read reads one configuration file, telling its format by its fields.
func Read(path string, o Options) ([]Reading, error) {
	b, err := infile.Read("config", path, MaxFile)
	if err != nil {
		return nil, err
	}
	if isINI(b) {
		return readAWS(path, b)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, model.Usagef("--config %s: %v", path, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, model.Usagef("--config %s: want a map of fields (a gRPC service config, an Envoy retry_policy, an AWS config profile, resilience4j retry instances, Polly RetryStrategyOptions or a client-go wait.Backoff)", path)
	}
	d := doc{file: path, opts: o}
	top := root.Content[0]
	first := ""
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i].Value
		if first == "" {
			first = k
		}
		switch {
		case in(k, "methodConfig", "method_config", "retryThrottling", "retry_throttling"):
			return readGRPC(d, top)
		case in(k, "retry_policy", "circuit_breakers", "retryPolicy", "circuitBreakers"):
			return readEnvoy(d, top)
		case k == "resilience4j":
			return readR4j(d, top)
		case in(k, "MaxRetryAttempts", "BackoffType", "UseJitter", "Delay", "MaxDelay"):
			return readPolly(d, top)
		case in(k, "Duration", "Factor", "Jitter", "Steps", "Cap"):
			return readClientGo(d, top)
		}
	}
	return nil, d.fail(top.Content[0], first, "not a field of any configuration herd reads (a gRPC service config's methodConfig or retryThrottling, an Envoy retry_policy or circuit_breakers, resilience4j, Polly's MaxRetryAttempts, Delay, BackoffType, UseJitter, MaxDelay, client-go's Duration, Factor, Jitter, Steps, Cap, or an AWS config file's [default])")
}

// ReadAll reads the comma-separated files of --config in order.
func ReadAll(list string, o Options) ([]Reading, error) {
	var out []Reading
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, model.Usagef("--config must name files separated by commas, got %q", list)
		}
		rs, err := Read(p, o)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func in(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// doc is a file being read, for messages that name it, and the options
// it is read with.
type doc struct {
	file string
	opts Options
}

func (d doc) fail(n *yaml.Node, field, format string, a ...any) error {
	return model.Usagef("--config %s: line %d: %s: %s", d.file, n.Line, field, fmt.Sprintf(format, a...))
}

// unknown refuses a field the format does not have, or one herd does not
// read, naming it.
func (d doc) unknown(n *yaml.Node, field, fields string) error {
	return d.fail(n, field, "unknown field (herd reads %s)", fields)
}

func (d doc) unsupported(n *yaml.Node, field, why string) error {
	return d.fail(n, field, "not supported: %s", why)
}

// member is one key and value of a map, with its path in the file.
type member struct {
	key, path string
	k, v      *yaml.Node
}

// members lists a map's fields in order, each key turned into the
// format's canonical spelling, refusing one given twice.
func (d doc) members(n *yaml.Node, path string, canon func(string) string) ([]member, error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.fail(n, path, "want a map of fields")
	}
	seen := map[string]bool{}
	var out []member
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		key := canon(k.Value)
		p := key
		if path != "" {
			p = path + "." + key
		}
		if seen[key] {
			return nil, d.fail(k, p, "given twice")
		}
		seen[key] = true
		out = append(out, member{key: key, path: p, k: k, v: n.Content[i+1]})
	}
	return out, nil
}

func same(s string) string { return s }

// camel turns snake_case or kebab-case into lowerCamelCase (protobuf JSON
// and Spring accept both spellings).
func camel(s string) string {
	if !strings.ContainsAny(s, "_-") {
		return s
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

var upper = regexp.MustCompile(`[A-Z]`)

// snake turns lowerCamelCase into snake_case (Envoy's JSON accepts both).
func snake(s string) string {
	return upper.ReplaceAllStringFunc(s, func(u string) string { return "_" + strings.ToLower(u) })
}

func (d doc) scalar(m member) (string, error) {
	if m.v.Kind != yaml.ScalarNode {
		return "", d.fail(m.v, m.path, "want a single value")
	}
	return m.v.Value, nil
}

func (d doc) integer(m member, lo, hi int) (int, error) {
	s, err := d.scalar(m)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, d.fail(m.v, m.path, "must be an integer in [%d, %d], got %q", lo, hi, s)
	}
	return n, nil
}

func (d doc) number(m member, valid string, ok func(float64) bool) (float64, error) {
	s, err := d.scalar(m)
	if err != nil {
		return 0, err
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || !ok(x) {
		return 0, d.fail(m.v, m.path, "must be %s, got %q", valid, s)
	}
	return x, nil
}

func (d doc) boolean(m member) (bool, error) {
	s, err := d.scalar(m)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, d.fail(m.v, m.path, "must be true or false, got %q", s)
}

// seconds says a duration in seconds for a table.
func seconds(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) + " s" }

// checked validates the policy read and names the file on a refusal.
func checked(d doc, n *yaml.Node, field string, p policy.Policy) error {
	if err := p.CheckConfig(); err != nil {
		return d.fail(n, field, "%v", err)
	}
	return nil
}
