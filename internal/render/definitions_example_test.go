package render_test

import (
	"fmt"

	"github.com/herdlab/herd/internal/render"
)

// ExampleDefinitions lays out terms and their definitions as --help does:
// a term too long for its column puts its definition on the next line.
func ExampleDefinitions() {
	fmt.Print(render.Definitions([][2]string{
		{"--breaker", "a sliding-window circuit breaker that refuses sends"},
		{"--adaptive-throttling", "client-side throttling"},
	}, 2, 14, 40))
	// Output:
	//   --breaker   a sliding-window circuit
	//               breaker that refuses sends
	//   --adaptive-throttling
	//               client-side throttling
}
