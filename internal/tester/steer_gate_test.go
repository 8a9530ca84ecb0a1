package tester

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// gateCall is one call of a closed-model client loop as the test saw it.
type gateCall struct {
	client     uint32
	start, end time.Duration // since the run's start
	status     sample.Status
}

// TestSteerClosedParksAndWakes: 4 client loops, a call every 100 ms, each
// call taking 30 ms (client 0's calls 250 ms), stepped to 1 active client
// at 2.02 s and to 3 at 5.02 s of a 10 s run. A loop parks before its
// next call, never during one: the call in flight at the step ends
// whole. No call of clients 1 to 3 starts between the steps, clients 1
// and 2 start again at the instant of the raise, client 3 never again.
func TestSteerClosedParksAndWakes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		steps := make(chan loadStep, 2)
		steps <- loadStep{seq: 1, at: now.Add(2020 * time.Millisecond), active: 1}
		steps <- loadStep{seq: 2, at: now.Add(5020 * time.Millisecond), active: 3}
		var mu sync.Mutex
		var calls []gateCall
		call := func(ctx context.Context, c uint32) sample.Status {
			start := time.Since(now)
			took := 30 * time.Millisecond
			if c == 0 {
				took = 250 * time.Millisecond
			}
			st := slowClient{took: took}.Call(ctx).Status
			mu.Lock()
			calls = append(calls, gateCall{c, start, time.Since(now), st})
			mu.Unlock()
			return st
		}
		g := startGate(t.Context(), 4, steps, nil)
		if why := runClientsGated(t.Context(), 4, 0, 10*time.Second, 100*time.Millisecond, g, call); why != "completed" {
			t.Fatalf("ended %q", why)
		}
		first := map[uint32]time.Duration{}
		for _, c := range calls {
			switch {
			case c.status != sample.OK:
				t.Errorf("client %d's call at %v: %v, want ok (a call is never cut short)", c.client, c.start, c.status)
			case c.client > 0 && c.start >= 2020*time.Millisecond && c.start < 5020*time.Millisecond:
				t.Errorf("client %d called at %v, parked from 2.02 s to 5.02 s", c.client, c.start)
			case c.client == 3 && c.start >= 2020*time.Millisecond:
				t.Errorf("client 3 called at %v, parked from 2.02 s on", c.start)
			}
			if _, ok := first[c.client]; !ok && c.start >= 5020*time.Millisecond {
				first[c.client] = c.start
			}
		}
		if first[1] != 5020*time.Millisecond || first[2] != 5020*time.Millisecond {
			t.Errorf("clients 1 and 2 called first after the raise at %v and %v, want 5.02 s", first[1], first[2])
		}
		// Client 0: back-to-back 250 ms calls, 40; clients 1 to 3: 21
		// each before 2.02 s; clients 1 and 2: 50 each from 5.02 s.
		if n := len(calls); n != 40+3*21+2*50 {
			t.Errorf("%d calls, want %d", n, 40+3*21+2*50)
		}
	})
}

// TestSteerParkedIsNotLate: a client loop parked for 3 s by a step is not
// late when it calls again: its schedule lag starts over (the outbox's
// resumed), so the tester's health shows no lag where there was none.
func TestSteerParkedIsNotLate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		steps := make(chan loadStep, 2)
		steps <- loadStep{seq: 1, at: now.Add(1050 * time.Millisecond), active: 0}
		steps <- loadStep{seq: 2, at: now.Add(4050 * time.Millisecond), active: 1}
		o := newOutbox(protocol.NewConn(discard{}), func(error) {})
		o.lag.interval = int64(100 * time.Millisecond)
		clk := clock.NewLocal(0, 0)
		call := func(ctx context.Context, c uint32) sample.Status {
			return o.callAt(ctx, slowClient{took: 10 * time.Millisecond}, clk, c, 0)
		}
		g := startGate(t.Context(), 1, steps, o.resumed)
		if why := runClientsGated(t.Context(), 1, 0, 6*time.Second, 100*time.Millisecond, g, call); why != "completed" {
			t.Fatalf("ended %q", why)
		}
		if _, maxMs, n := o.lag.take(); maxMs > 0 || n != 11+20 {
			t.Errorf("%d calls, largest lag %v ms; want 31 calls, none late", n, maxMs)
		}
	})
}
