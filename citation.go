package herd

import (
	_ "embed"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed CITATION.cff
var citationFile []byte

// Citation is herd's bibliographic record as CITATION.cff states it: the
// one place that holds herd's version and its release date, which every
// output's cite line and `herd cite` read.
type Citation struct {
	Title      string   `yaml:"title"`
	Version    string   `yaml:"version"`
	Released   string   `yaml:"date-released"`
	Repository string   `yaml:"repository-code"`
	Authors    []Author `yaml:"authors"`
}

// Author is one entry of CITATION.cff's authors: a person or a group.
type Author struct {
	Name   string `yaml:"name"`
	Given  string `yaml:"given-names"`
	Family string `yaml:"family-names"`
}

// String is the author as BibTeX wants it: "Family, Given", or a group's
// name in braces so that BibTeX does not split it.
func (a Author) String() string {
	if a.Family != "" {
		return a.Family + ", " + a.Given
	}
	return "{" + a.Name + "}"
}

// Cite reads CITATION.cff, embedded in every herd binary.
func Cite() (Citation, error) {
	var c Citation
	if err := yaml.Unmarshal(citationFile, &c); err != nil {
		return c, fmt.Errorf("CITATION.cff: %w", err)
	}
	if c.Version == "" || c.Released == "" || c.Title == "" {
		return c, fmt.Errorf("CITATION.cff: version, date-released and title must be set")
	}
	return c, nil
}

// Version is herd's version, from CITATION.cff.
func Version() string {
	c, err := Cite()
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return c.Version
}

// BibTeX is the record as a BibTeX @software entry; revision, when not
// empty, is the VCS revision the numbers were computed at.
func (c Citation) BibTeX(revision string) string {
	names := make([]string, len(c.Authors))
	for i, a := range c.Authors {
		names[i] = a.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@software{herd,\n")
	fmt.Fprintf(&b, "  title   = {%s},\n", c.Title)
	fmt.Fprintf(&b, "  author  = {%s},\n", strings.Join(names, " and "))
	fmt.Fprintf(&b, "  version = {%s},\n", c.Version)
	fmt.Fprintf(&b, "  date    = {%s},\n", c.Released)
	if len(c.Released) >= 4 {
		fmt.Fprintf(&b, "  year    = {%s},\n", c.Released[:4])
	}
	fmt.Fprintf(&b, "  url     = {%s},\n", c.Repository)
	if revision != "" {
		fmt.Fprintf(&b, "  note    = {revision %s},\n", revision)
	}
	b.WriteString("}\n")
	return b.String()
}
