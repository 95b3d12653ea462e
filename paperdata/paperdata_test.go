package paperdata

import (
	"bytes"
	"context"
	"github.com/herdlab/herd/policy"
	"os"
	"regexp"
	"testing"
)

// Generated files must not depend on the number of workers (CI compares
// them byte for byte with the committed ones), and two runs agree: every
// section but claims, validate and audit, at the smallest scale, with 1
// and 3 workers. The claims section's evaluation costs a minute of CPU
// (its control claims run at a fixed budget), validate's grid half a
// minute (its trials are the grid's own) and the audit's 10,000 clients
// per preset ten seconds; TestCostlySectionsReproducible (long suite)
// runs those three, and the root package's TestClaimsReproducible checks
// that claims do not depend on the number of workers.
func TestSectionsReproducible(t *testing.T) {
	cheap := func(name string) bool { return !costlySections[name] }
	sameFiles(t, sectionFiles(t, 1, cheap), sectionFiles(t, 3, cheap))
}

// costlySections are the sections only the long suite runs.
var costlySections = map[string]bool{"claims": true, "validate": true, "audit": true}

// sectionFiles runs the sections pick takes, at the smallest scale and
// seed 1, as Generate does, and returns their files.
func sectionFiles(t *testing.T, workers int, pick func(name string) bool) []File {
	t.Helper()
	var picked []section
	for _, s := range sections {
		if pick(s.name) {
			picked = append(picked, s)
		}
	}
	if len(picked) == 0 || len(picked) == len(sections) {
		t.Fatalf("%d of %d sections picked, want some but not all", len(picked), len(sections))
	}
	cfg := Config{Scale: 0.001, Seed: 1, Workers: workers}
	d := newDoc()
	for _, s := range picked {
		if err := s.run(context.Background(), cfg, d); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	return d.files()
}

// sameFiles requires the files of a run with 1 worker (a) and with 3 (b) to
// be equal, name and bytes.
func sameFiles(t *testing.T, a, b []File) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d files with 1 worker, %d with 3", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between 1 and 3 workers", a[i].Name)
		}
	}
}

var useRE = regexp.MustCompile(`\\V\{([^}]*)\}`)
var defRE = regexp.MustCompile(`\\herddef\{([^}]*)\}`)

// commentRE matches a LaTeX comment: % not escaped as \%, to the end of the line.
var commentRE = regexp.MustCompile(`(?m)(^|[^\\])%.*$`)

// Every \V{key} of the paper is defined by the committed numbers.tex, and
// every table the paper inputs exists: the same check LaTeX makes, run
// without LaTeX.
func TestPaperUsesOnlyGeneratedNumbers(t *testing.T) {
	paper, err := os.ReadFile("../paper/herd.tex")
	if err != nil {
		t.Fatal(err) // paper/herd.tex is committed
	}
	numbers, err := os.ReadFile("../paper/generated/numbers.tex")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, m := range defRE.FindAllSubmatch(numbers, -1) {
		defined[string(m[1])] = true
	}
	paper = commentRE.ReplaceAll(paper, []byte("$1"))
	used := useRE.FindAllSubmatch(paper, -1)
	if len(used) == 0 {
		t.Fatal("the paper reads no generated number")
	}
	for _, m := range used {
		if !defined[string(m[1])] {
			t.Errorf("paper/herd.tex reads \\V{%s}, which numbers.tex does not define", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`\\input\{generated/([^}]*)\}`).FindAllSubmatch(paper, -1) {
		name := string(m[1])
		if _, err := os.Stat("../paper/generated/" + name); err != nil {
			if _, err2 := os.Stat("../paper/generated/" + name + ".tex"); err2 != nil {
				t.Errorf("paper/herd.tex inputs generated/%s, which does not exist", name)
			}
		}
	}
}

// A key is defined once; a second definition is a bug that must not pass
// silently (it would make the text's number depend on section order).
func TestDuplicateKeyPanics(t *testing.T) {
	d := newDoc()
	d.set("a.b", "1")
	defer func() {
		if recover() == nil {
			t.Error("second definition of a.b did not panic")
		}
	}()
	d.set("a.b", "2")
}

// TestFastestProseNamesEachPolicyOnce: the sentence about the fastest
// jittered policy names a policy once for its run of settings, never
// "decorrelated at N = 100 and decorrelated at N = 200".
func TestFastestProseNamesEachPolicyOnce(t *testing.T) {
	for _, c := range []struct {
		at   []fastestAt
		want string
	}{
		{[]fastestAt{{50, policy.Equal}, {100, policy.Decorrelated}, {200, policy.Decorrelated}},
			`\pol{equal} at $N=50$ and \pol{decorrelated} at $N=100$ and 200`},
		{[]fastestAt{{50, policy.Full}, {100, policy.Full}, {200, policy.Full}},
			`\pol{full} at $N=50$, 100 and 200`},
		{[]fastestAt{{50, policy.Full}, {100, policy.Equal}, {200, policy.Full}},
			`\pol{full} at $N=50$, \pol{equal} at $N=100$ and \pol{full} at $N=200$`},
	} {
		if got := fastestProse(c.at); got != c.want {
			t.Errorf("fastestProse(%v) = %q, want %q", c.at, got, c.want)
		}
	}
}
