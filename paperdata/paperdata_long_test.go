//go:build long

package paperdata

import "testing"

// Generated files must not depend on the number of workers (CI compares
// them byte for byte with the committed ones), and two runs agree: the
// sections the default run leaves out for time (claims, validate, audit),
// with 1 and 3 workers. With TestSectionsReproducible, every section.
// (.ci/run's paper-data step runs them all through Generate and compares
// them with the committed files; the engines' own tests check their
// worker invariance, and validate's grid is TestModelsAgreeWithMonteCarlo's.)
func TestCostlySectionsReproducible(t *testing.T) {
	costly := func(name string) bool { return costlySections[name] }
	sameFiles(t, sectionFiles(t, 1, costly), sectionFiles(t, 3, costly))
}
