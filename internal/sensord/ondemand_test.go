package sensord

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
	"github.com/diperf/diperf/internal/sensor"
)

// claimOne has sensor a ask for one probe a → b of kind, claims it, and
// returns it.
func claimOne(t *testing.T, c *directory.Client, kind string) directory.Probe {
	t.Helper()
	ctx := context.Background()
	if _, err := c.ClaimProbes(ctx, "a", 0); err != nil { // a polls
		t.Fatal(err)
	}
	if _, err := c.RequestProbe(ctx, "a", "b", kind); err != nil {
		t.Fatal(err)
	}
	ps, err := c.ClaimProbes(ctx, "a", 0)
	if err != nil || len(ps) != 1 {
		t.Fatalf("claimed %+v, %v", ps, err)
	}
	return ps[0]
}

// The daemon answers a probe with its result, stored as the probe's, and
// writes the forecast it leads to, as after a scheduled test; a refusal
// as over budget is the probe's reason; a result the directory no longer
// takes as the probe's (it expired) is written as an ordinary one.
func TestOnDemandAnswers(t *testing.T) {
	_, c := directorytest.Start(t, nil)
	ctx := context.Background()
	for _, n := range []string{"a", "b"} {
		if _, err := c.Register(ctx, directory.Registration{Name: n, Address: "127.0.0.1:1", Version: "1", Groups: []string{"local"}}); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	o := newOnDemand(&dirAdapter{c: c}, "a", &stderr)
	lat := func(v float64, at time.Time) sensor.Result {
		return sensor.Result{Src: "a", Dst: "b", Kind: sensor.Latency, At: at, Took: time.Second,
			Measurement: sensor.Measurement{LatencyMs: v, P50Ms: v, P90Ms: v, P99Ms: v}}
	}
	t0 := time.Now().Add(-time.Minute)
	for i, v := range []float64{2, 3} {
		p := claimOne(t, c, directory.KindLatency)
		o.answer(ctx, p, lat(v, t0.Add(time.Duration(i)*time.Second)), nil)
		got, err := c.Probe(ctx, p.ID)
		if err != nil || got.State != directory.ProbeDone || got.Result.LatencyMs != v {
			t.Fatalf("probe %d: %+v, %v; stderr %s", i, got, err, stderr.String())
		}
	}
	fs, err := c.Forecasts(ctx, directory.Query{Src: "a", Dst: "b"})
	if err != nil || len(fs) != 1 {
		t.Errorf("forecasts after two on-demand results: %+v, %v; want one", fs, err)
	}
	p := claimOne(t, c, directory.KindBandwidth)
	o.answer(ctx, p, sensor.Result{}, &sensor.OverBudgetError{Wait: 40 * time.Second, Msg: "over budget, next possible in 40 s"})
	if got, _ := c.Probe(ctx, p.ID); got.State != directory.ProbeFailed || got.Reason != "sensor a: over budget, next possible in 40 s" {
		t.Errorf("over budget: %+v", got)
	}
	p = claimOne(t, c, directory.KindLatency)
	if _, err := c.AnswerProbe(ctx, p.ID, directory.ProbeAnswer{Reason: "answered first"}); err != nil {
		t.Fatal(err)
	}
	o.answer(ctx, p, lat(4, t0.Add(5*time.Second)), nil) // the directory refuses it as the probe's (409)
	rs, _ := c.Results(ctx, directory.Query{Src: "a", Dst: "b"})
	if len(rs) != 3 || rs[0].LatencyMs != 4 {
		t.Errorf("results %+v; want the late one written as an ordinary result", rs)
	}
}

// A reason holds no control character and fits the directory's bound.
func TestProbeReasonIsPrintable(t *testing.T) {
	r := reason(errors.New("bad\x1b[2J\xff" + strings.Repeat("é", 1000)))
	if strings.ContainsAny(r, "\x1b\ufffd") || len(r) > directory.MaxReason {
		t.Errorf("reason %q (%d bytes)", r[:20], len(r))
	}
	a := directory.ProbeAnswer{Reason: r}
	if err := a.Validate(); err != nil {
		t.Errorf("the directory refuses it: %v", err)
	}
}

// A directory older than the probes (no such route) is asked again a
// minute later, not every probeRetry; a sensor it does not know (it
// registers again meanwhile) at once.
func TestPollRetryAfter(t *testing.T) {
	old := &directory.APIError{Status: 404, Msg: "404 page not found"}
	unknown := &directory.APIError{Status: 404, Field: "name", Msg: "sensor not registered; register again"}
	if got := retryAfter(old); got != time.Minute {
		t.Errorf("no route: %v", got)
	}
	if got := retryAfter(unknown); got != probeRetry {
		t.Errorf("not registered: %v", got)
	}
}
