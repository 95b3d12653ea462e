//go:build long

package paperdata

import (
	"context"
	"testing"
)

// Generated files must not depend on the number of workers (CI compares
// them byte for byte with the committed ones), and two runs agree: every
// section, claims included, through Generate. (Default run:
// TestSectionsReproducible, every section but claims, validate and audit;
// the engines' own tests check their worker invariance, and validate's
// grid is TestModelsAgreeWithMonteCarlo's.)
func TestGenerateReproducible(t *testing.T) {
	cfg := Config{Scale: 0.001, Seed: 1, Workers: 1}
	a, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 3
	b, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, a, b)
}
