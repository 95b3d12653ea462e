//go:build long

package reproduce

import "testing"

// Every recorded row of his experiments agrees with herd's rerun at the
// Bonferroni level over all of them.
func TestBrookerEveryRowAgrees(t *testing.T) {
	rec, err := Brooker()
	if err != nil {
		t.Fatal(err)
	}
	checkBrooker(t, rec, rec.Reproduced())
}
