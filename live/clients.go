package main

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	retrygo "github.com/avast/retry-go/v4"
	backoff "github.com/cenkalti/backoff/v4"
	"github.com/hashicorp/go-retryablehttp"
)

// A library is one client's retry loop: it calls its library with that
// library's defaults, recording each delay the library draws in delays,
// and returns nil once a request succeeded.
type library struct {
	name string
	// policy is what herd calls the default (a preset, or the textbook
	// full jitter whose delays are in windows).
	policy string
	retry  func(ctx context.Context, c *client) error
}

// client is one of the N: its own HTTP client (one keep-alive connection,
// as a separate process would have) and what it records.
type client struct {
	id     int
	url    string
	window time.Duration
	http   *http.Client
	delays []time.Duration
	// exchanges are the attempts as the client's transport saw them,
	// recorded when tracing (nil otherwise).
	exchanges *[]exchange
}

// exchange is one attempt at the client: when its transport sent the
// request and when the response was back.
type exchange struct{ sent, answered time.Time }

// tracingTransport records every exchange of its client.
type tracingTransport struct {
	next http.RoundTripper
	log  *[]exchange
}

func (t tracingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	sent := time.Now()
	resp, err := t.next.RoundTrip(r)
	*t.log = append(*t.log, exchange{sent, time.Now()})
	return resp, err
}

func (t tracingTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

var errUnavailable = errors.New("503 Service Unavailable")

// requestTimeout bounds one attempt.
const requestTimeout = 10 * time.Second

func newClient(id int, url string, window time.Duration, trace bool) *client {
	var tr http.RoundTripper = &http.Transport{
		Proxy:               nil, // loopback only
		DialContext:         (&net.Dialer{Timeout: requestTimeout}).DialContext,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
	}
	c := &client{id: id, url: url, window: window}
	if trace {
		c.exchanges = new([]exchange)
		tr = tracingTransport{tr, c.exchanges}
	}
	c.http = &http.Client{Transport: tr, Timeout: requestTimeout}
	return c
}

func (c *client) request(ctx context.Context) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("X-Client", strconv.Itoa(c.id))
	return req
}

// send makes one attempt: nil on 200, errUnavailable on 503.
func (c *client) send(ctx context.Context) error {
	resp, err := c.http.Do(c.request(ctx))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return errUnavailable
}

// fullJitterAttempts bounds the hand-written Full Jitter loop, which has
// no retry limit of its own (the total timeout bounds it too).
const fullJitterAttempts = 1000

var libraries = []library{
	{name: "cenkalti", policy: "cenkalti-v4", retry: func(ctx context.Context, c *client) error {
		b := backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
		return backoff.RetryNotify(func() error { return c.send(ctx) }, b,
			func(_ error, d time.Duration) { c.delays = append(c.delays, d) })
	}},
	{name: "retry-go", policy: "retry-go-v4", retry: func(ctx context.Context, c *client) error {
		def := retrygo.CombineDelay(retrygo.BackOffDelay, retrygo.RandomDelay) // the library's default DelayType
		return retrygo.Do(func() error { return c.send(ctx) }, retrygo.Context(ctx),
			retrygo.DelayType(func(n uint, err error, cfg *retrygo.Config) time.Duration {
				d := def(n, err, cfg)
				c.delays = append(c.delays, d)
				return d
			}))
	}},
	{name: "retryablehttp", policy: "retryablehttp-default", retry: func(ctx context.Context, c *client) error {
		rc := retryablehttp.NewClient()
		rc.Logger, rc.HTTPClient = nil, c.http
		rc.Backoff = func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
			d := retryablehttp.DefaultBackoff(lo, hi, n, resp)
			c.delays = append(c.delays, d)
			return d
		}
		req, err := retryablehttp.FromRequest(c.request(ctx))
		if err != nil {
			return err
		}
		resp, err := rc.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil
	}},
	{name: "full-jitter", policy: "full", retry: func(ctx context.Context, c *client) error {
		// Full Jitter with base τ and cap 32τ: herd's textbook full with
		// base 1 and cap 32 windows.
		for n := 0; n < fullJitterAttempts; n++ {
			err := c.send(ctx)
			if err == nil || ctx.Err() != nil {
				return err
			}
			ceiling := min(32*c.window, c.window<<min(n+1, 5))
			d := time.Duration(rand.Float64() * float64(ceiling))
			c.delays = append(c.delays, d)
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		return errors.New("full jitter: attempt cap reached")
	}},
}

func libraryNamed(name string) (library, bool) {
	for _, l := range libraries {
		if l.name == name {
			return l, true
		}
	}
	return library{}, false
}
