package control

import (
	"errors"
	"testing"

	"github.com/herdlab/herd/model"
)

func given(names ...string) func(string) bool {
	return func(n string) bool {
		for _, m := range names {
			if m == n {
				return true
			}
		}
		return false
	}
}

func TestSettingsRefuseAParameterWithoutItsControl(t *testing.T) {
	sc := model.Default()
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Bucket: "none", BreakerKind: "window", Given: given("bucket-cost")}, "--bucket-cost needs --bucket aws|aws-2026|brooker|brooker-sim"},
		{Settings{Bucket: "none", BreakerKind: "window", Given: given("breaker-window")}, "--breaker-window needs --breaker (--breaker-kind window)"},
		{Settings{Bucket: "none", BreakerKind: "brooker-sim", Breaker: true, Given: given("breaker-cooldown")}, "--breaker-cooldown needs --breaker (--breaker-kind window)"},
		{Settings{Bucket: "none", BreakerKind: "window", Given: given("adaptive-k")}, "--adaptive-k needs --adaptive-throttling"},
		{Settings{Bucket: "tokens", BreakerKind: "window"}, "--bucket: "},
		{Settings{Bucket: "none", BreakerKind: "sliding"}, `--breaker-kind must be window or brooker-sim, got "sliding"`},
	} {
		_, err := c.s.Controls(sc)
		var ue *model.UsageError
		if !errors.As(err, &ue) || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%+v: error %v, want a usage error starting %q", c.s, err, c.want)
		}
	}
}

func TestSettingsBuildTheControlsAskedFor(t *testing.T) {
	sc := model.Default()
	ctl, err := Settings{Bucket: "aws", BucketCost: 10, BreakerKind: "window", Given: given("bucket-cost")}.Controls(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultBucket(AWSBucket)
	want.RetryCost = 10
	if ctl.Bucket != want || ctl.Breaker != (Breaker{}) || ctl.Budget != (RetryBudget{}) {
		t.Errorf("--bucket aws --bucket-cost 10 gives %+v, want only the aws bucket with cost 10 (%+v)", ctl, want)
	}
	// A budget asked for is validated even where its parameters read as
	// off (a TTL of 0).
	var fe *model.FieldError
	if _, err := (Settings{Bucket: "none", BreakerKind: "window", Budget: true}).Controls(sc); !errors.As(err, &fe) || fe.Flag != "budget-ttl" {
		t.Errorf("--retry-budget --budget-ttl 0: error %v, want --budget-ttl refused", err)
	}
}
