package config

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// The AWS shared config file (~/.aws/config): INI sections [default] and
// [profile NAME] with the keys retry_mode and max_attempts, which every AWS
// SDK reads. herd plays them as aws-sdk-go-v2 does today: the preset
// aws-go-v2-2026 and its retry quota, aws-2026.

const awsFormat = "AWS shared config"

// awsAttempts is the SDKs' default max_attempts.
const awsAttempts = 3

// isINI reports whether the file's first line that is neither blank nor a
// comment opens a section.
func isINI(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		return strings.HasPrefix(l, "[")
	}
	return false
}

func readAWS(path string, b []byte) ([]Reading, error) {
	fail := func(line int, field, format string, a ...any) error {
		return model.Usagef("--config %s: line %d: %s: %s", path, line, field, fmt.Sprintf(format, a...))
	}
	type profile struct {
		name     string
		line     int
		mode     string
		attempts int
		rows     []Row
		retry    bool
	}
	var profiles []*profile
	var cur *profile
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if strings.HasPrefix(l, "[") {
			name := strings.TrimSpace(strings.Trim(l, "[]"))
			if name != "default" && !strings.HasPrefix(name, "profile ") {
				return nil, fail(line, l, "herd reads [default] and [profile NAME] sections")
			}
			cur = &profile{name: strings.TrimPrefix(name, "profile "), line: line, mode: "standard", attempts: awsAttempts}
			profiles = append(profiles, cur)
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || cur == nil {
			return nil, fail(line, key, "want KEY = VALUE inside a [default] or [profile NAME] section")
		}
		field := "[" + cur.name + "]." + key
		switch key {
		case "retry_mode":
			switch val {
			case "standard":
				cur.rows = append(cur.rows, Row{field, val, "preset aws-go-v2-2026 with --bucket aws-2026 (aws-sdk-go-v2 v1.48: base 50 ms, cap 20 s; 14 tokens a retry)"})
			case "adaptive":
				cur.rows = append(cur.rows, Row{field, val, "as standard: the adaptive rate limiter turns on only after a throttling error (aws/retry/adaptive_ratelimit.go), and herd's failures are transient errors"})
			default:
				return nil, fail(line, field, "herd reads standard and adaptive, got %q", val)
			}
			cur.mode, cur.retry = val, true
		case "max_attempts":
			n, err := strconv.Atoi(val)
			if err != nil || n < 2 || n > model.MaxRetries {
				return nil, fail(line, field, "must be an integer in [2, %d] (1 makes no retry), got %q", model.MaxRetries, val)
			}
			cur.attempts, cur.retry = n, true
			cur.rows = append(cur.rows, Row{field, val, fmt.Sprintf("%d retries (--retries %d)", n-1, n-1)})
		case "region", "output":
			cur.rows = append(cur.rows, Row{field, val, "not about retries: no effect"})
		default:
			// The value is left out: a key herd does not know may hold a secret.
			return nil, fail(line, field, "unknown field (herd reads retry_mode, max_attempts, and region, output as no effect)")
		}
	}
	var out []Reading
	for _, p := range profiles {
		if !p.retry {
			continue
		}
		out = append(out, Reading{File: path, Format: awsFormat, Name: p.name, Bucket: control.AWS2026Bucket,
			Policy: policy.Policy{Kind: "aws-go-v2-2026", Retries: p.attempts - 1}, Rows: p.rows})
	}
	if len(out) == 0 {
		return nil, model.Usagef("--config %s: no profile sets retry_mode or max_attempts", path)
	}
	if len(out) == 1 {
		out[0].Name = ""
	}
	return out, nil
}
