package control

// A Summary is one retry control in the words of --help: how it is asked
// for, and its source's parameters and rule in brief. The types' docs say
// them in full.
type Summary struct{ Flag, Text string }

// bucketSummaries say each bucket in brief.
var bucketSummaries = map[BucketKind]string{
	NoBucket:         "no bucket: every retry goes through",
	AWSBucket:        "the AWS SDKs' legacy retry quota (aws-sdk-go-v2 aws/retry/standard.go): 500 tokens, 5 a retry, 10 after a timeout (--bucket-cost 10), refund on a successful retry, +1 on a first-try success",
	AWS2026Bucket:    "the same quota with the 2026 costs (aws-sdk-go-v2 v1.42.0, AWS_NEW_RETRIES_2026, aws/retry/retry2026_test.go): 14 a retry after a transient error, 5 after throttling (--bucket-cost 5)",
	BrookerBucket:    "herd's reading of Brooker's 2022 post \"Fixing retries with token buckets and circuit breakers\": 10 tokens, 0.1 per success, 1 a retry; not his simulator's",
	BrookerSimBucket: "his simulator's bucket exactly (github.com/mbrooker/simulator_example retry_sim): 5 tokens, 0.1 per new request as it starts, a retry only while above 1 token, no limit on attempts",
}

// Summary says the bucket in brief.
func (k BucketKind) Summary() string { return bucketSummaries[k] }

// Summaries lists every retry control, in the order --help gives them.
func Summaries() []Summary {
	s := []Summary{{"--max-attempts A", "at most A sends per request"}}
	for _, k := range BucketKinds() {
		if k != NoBucket {
			s = append(s, Summary{"--bucket " + string(k), k.Summary()})
		}
	}
	return append(s,
		Summary{"--breaker", "herd's sliding-window breaker, which refuses sends; --breaker-kind brooker-sim is his simulator's, which stops only retries once failures / requests over the run exceed 0.1"},
		Summary{"--retry-budget", "Finagle's RetryBudget (finagle-core RetryBudget.scala): 20% of requests over 10 s plus 10 retries per second"},
		Summary{"--retry-throttling", "gRPC retry throttling (gRFC A6): maxTokens 10, tokenRatio 0.1, retries only above half the tokens"},
		Summary{"--adaptive-throttling", "the SRE book's client-side throttling (ch. 21, eq. 21-1): reject locally with probability max(0, (requests − K·accepts)/(requests + 1)), K = 2, over two minutes"},
	)
}
