package sensor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// onDemandOutcome is what a Request's Done heard.
type onDemandOutcome struct {
	r   Result
	err error
	at  time.Time
}

// ask sends a request for a test of kind to peer and returns where its
// outcome comes.
func ask(reqs chan<- Request, peer Peer, kind Kind) <-chan onDemandOutcome {
	out := make(chan onDemandOutcome, 1)
	reqs <- Request{Test: Test{Peer: peer, Kind: kind}, Done: func(r Result, err error) {
		out <- onDemandOutcome{r, err, time.Now()}
	}}
	return out
}

// An on-demand test runs at once while the loop waits out its period, is
// charged to the budget like a scheduled one (so the next one asked too
// soon is refused, naming when it would be possible, and never run), and
// never overlaps a scheduled test.
func TestOnDemandWithinTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}, Version: "1"}
		far := Peer{Name: "z", Addr: "z:1", Groups: []string{"other"}, Version: "1"} // not a peer a tests on its own
		dir := &fakeDir{peers: []Peer{self, {Name: "b", Groups: []string{"local"}, Version: "1"}}}
		pr := &fakeProber{}
		reqs := make(chan Request, 4)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cfg := Config{Self: self, Period: time.Hour, TestTime: 5 * time.Second, Budget: Budget{Fraction: 0.25}, OnDemand: reqs}
		done := make(chan Stats, 1)
		go func() { done <- Run(ctx, cfg, dir, pr) }()
		time.Sleep(20 * time.Second) // the budget allows a 5 s test 15 s after the start
		t0 := time.Now()
		got := <-ask(reqs, far, Bandwidth)
		if got.err != nil || got.r.Dst != "z" || got.r.Kind != Bandwidth || got.r.BandwidthBps != 1e7 || got.at.Sub(t0) != 5*time.Second {
			t.Fatalf("on-demand test: %+v after %v; want z's bandwidth at once, in its test time", got, got.at.Sub(t0))
		}
		second := <-ask(reqs, far, Latency)
		var ob *OverBudgetError
		if !errors.As(second.err, &ob) || !errors.Is(second.err, ErrOverBudget) || !strings.Contains(ob.Msg, "over budget, next possible in") || ob.Wait <= 0 {
			t.Fatalf("a second test at once with a 0.25 budget: %v; want refused as over budget, saying when", second.err)
		}
		time.Sleep(ob.Wait)
		third := <-ask(reqs, far, Latency)
		if third.err != nil {
			t.Errorf("after the wait it named (%v): %v", ob.Wait, third.err)
		}
		cancel()
		st := <-done
		if pr.overlap || st.OnDemand != 2 || st.Refused != 1 {
			t.Errorf("overlap %v, stats %+v; want no overlap, 2 on-demand tests, 1 refused", pr.overlap, st)
		}
		if st.Fraction > cfg.Budget.Fraction {
			t.Errorf("spent %.2f of the time testing; the budget is %.2f", st.Fraction, cfg.Budget.Fraction)
		}
	})
}
