module github.com/herdlab/herd/live

go 1.26.0

require (
	github.com/avast/retry-go/v4 v4.7.0
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/herdlab/herd v0.0.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/herdlab/herd => ../
