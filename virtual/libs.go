package virtual

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	retrygo "github.com/avast/retry-go/v4"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	smithymw "github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	backoff4 "github.com/cenkalti/backoff/v4"
	backoff5 "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
)

// Source says where a library draws its jitter, which decides whether
// reruns can be byte-identical.
type Source int

const (
	// NoJitter: the library draws nothing; a trial is decided by the
	// server's order alone.
	NoJitter Source = iota
	// MathRand: the process-wide math/rand (v1) source, which the check
	// seeds per trial (randseednop=0).
	MathRand
	// AWSReader: aws-sdk-go-v2's internal/rand.Reader, which the check
	// sets to a seeded stream per trial (awsReader).
	AWSReader
	// Unseedable: the process-wide math/rand/v2 source, which no caller
	// can seed; the comparison is statistical only.
	Unseedable
)

func (s Source) String() string {
	return [...]string{"none (no jitter)", "math/rand, seeded per trial", "aws internal/rand.Reader, seeded per trial", "math/rand/v2, not seedable"}[s]
}

// Shared says that the source is one per process, seeded per trial, so
// that trials must run one at a time.
func (s Source) Shared() bool { return s == MathRand || s == AWSReader }

// Library is one library's default retry loop as a client, and the herd
// preset that models it.
type Library struct {
	Preset string // herd's preset
	Name   string // the library and the part of it that runs
	Source Source
	Env    Env
	// Trip, when not zero, is a fixed round trip in windows: a failed
	// call's answer is back that long after it reached the server. herd
	// asks for one when retry 1 has no delay (a zero-delay retry would
	// reach the full window again at the same instant).
	Trip float64
	// Slow says that a trial costs several times the others' (grpc-go's
	// transport): the check plays half as many.
	Slow bool
}

var errBusy = errors.New("window full")

// Libraries lists the libraries the check runs, each with its defaults.
func Libraries() []Library {
	return []Library{
		{"cenkalti-v4", "cenkalti/backoff v4 Retry, NewExponentialBackOff()", MathRand, Alone(cenkalti4), 0, false},
		{"cenkalti-v5", "cenkalti/backoff v5 Retry", Unseedable, Alone(cenkalti5), 0, false},
		{"retry-go-v4", "avast/retry-go v4 Do", MathRand, Alone(retryGo), 0, false},
		{"retryablehttp-default", "hashicorp/go-retryablehttp NewClient().Get, 429 from an in-process RoundTripper", NoJitter, Alone(retryableHTTP), 0, false},
		{"aws-go-v2-2026", "aws-sdk-go-v2 retry.NewStandard() in the retry middleware, HTTP 503", AWSReader, Alone(awsStandard(nil, 503)), 0, false},
		{"aws-go-v2-2026-throttle", "aws-sdk-go-v2 retry.NewStandard() in the retry middleware, HTTP 429", AWSReader, Alone(awsStandard(nil, 429)), 0, false},
		{"aws-go-v2-legacy", "aws-sdk-go-v2 retry.NewStandard() with NewExponentialJitterBackoff, HTTP 503", AWSReader, Alone(awsStandard(legacyBackoff, 503)), 0, false},
		{"grpc-retry", "grpc-go v1.85.0 retry (service config) over bufconn, UNAVAILABLE", Unseedable, grpcRetry, 0, true},
		{"failsafe-go-default", "failsafe-go retrypolicy.NewWithDefaults", NoJitter, Alone(failsafeDefault), 0.5, false},
	}
}

func fail(ok bool) error {
	if ok {
		return nil
	}
	return errBusy
}

func cenkalti4(call func() bool) bool {
	return backoff4.Retry(func() error { return fail(call()) }, backoff4.NewExponentialBackOff()) == nil
}

func cenkalti5(call func() bool) bool {
	_, err := backoff5.Retry(context.Background(), func() (struct{}, error) { return struct{}{}, fail(call()) })
	return err == nil
}

func retryGo(call func() bool) bool {
	return retrygo.Do(func() error { return fail(call()) }) == nil
}

// roundTripper is an in-process http.RoundTripper: 200 when the window
// server admits the call, 429 otherwise.
type roundTripper func() bool

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	code := http.StatusTooManyRequests
	if rt() {
		code = http.StatusOK
	}
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func retryableHTTP(call func() bool) bool {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.HTTPClient = &http.Client{Transport: roundTripper(call)}
	resp, err := c.Get("http://window.invalid/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func legacyBackoff(o *awsretry.StandardOptions) {
	o.Backoff = awsretry.NewExponentialJitterBackoff(o.MaxBackoff)
}

// awsStandard runs one operation through aws-sdk-go-v2's retry middleware
// with a standard retryer of its own (one SDK client per client, so its
// retry quota of 500 tokens never binds with 3 attempts); a failed call
// is the HTTP status code (503 transient, 429 throttling).
func awsStandard(opt func(*awsretry.StandardOptions), code int) Client {
	return func(call func() bool) bool {
		var opts []func(*awsretry.StandardOptions)
		if opt != nil {
			opts = append(opts, opt)
		}
		retryer := awsretry.NewStandard(opts...)
		stack := smithymw.NewStack("virtual", smithyhttp.NewStackRequest)
		if err := stack.Finalize.Add(awsretry.NewAttemptMiddleware(retryer, smithyhttp.RequestCloner), smithymw.After); err != nil {
			panic(err)
		}
		h := smithymw.DecorateHandler(smithymw.HandlerFunc(func(ctx context.Context, in any) (any, smithymw.Metadata, error) {
			if call() {
				return struct{}{}, smithymw.Metadata{}, nil
			}
			resp := &http.Response{StatusCode: code, Header: http.Header{}, Body: http.NoBody}
			return nil, smithymw.Metadata{}, &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: errBusy}
		}), stack)
		_, _, err := h.Handle(context.Background(), struct{}{})
		return err == nil
	}
}

func failsafeDefault(call func() bool) bool {
	return failsafe.With[any](retrypolicy.NewWithDefaults[any]()).Run(func() error { return fail(call()) }) == nil
}
