package virtual

import (
	"io"
	_ "unsafe" // for go:linkname

	_ "github.com/aws/aws-sdk-go-v2/aws/retry"
)

// awsReader is aws-sdk-go-v2's internal/rand.Reader, the source of its
// jitter ("a random reader that can reset during testing", set to
// crypto/rand.Reader by default), which the check replaces with a seeded
// stream per trial.
//
//go:linkname awsReader github.com/aws/aws-sdk-go-v2/internal/rand.Reader
var awsReader io.Reader
