package tester

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/sample"
)

// clientStarts records, per client loop, when each of its calls started
// since t0; every call takes took, or until ctx is done.
type clientStarts struct {
	t0     time.Time
	took   time.Duration
	mu     sync.Mutex
	starts map[uint32][]time.Duration
}

func newClientStarts(took time.Duration) *clientStarts {
	return &clientStarts{t0: time.Now(), took: took, starts: map[uint32][]time.Duration{}}
}

func (c *clientStarts) call(ctx context.Context, client uint32) sample.Status {
	c.mu.Lock()
	c.starts[client] = append(c.starts[client], time.Since(c.t0))
	c.mu.Unlock()
	select {
	case <-time.After(c.took):
		return sample.OK
	case <-ctx.Done():
		return sample.Cancelled
	}
}

// every returns the instants from, from+step, ... before end.
func every(from, step, end time.Duration) []time.Duration {
	var out []time.Duration
	for t := from; t < end; t += step {
		out = append(out, t)
	}
	return out
}

// TestClientsEachKeepTheirInterval runs 3 and 50 client loops on fake
// time: every loop starts a call every interval, whatever the others do,
// back-to-back when its own calls are slower.
func TestClientsEachKeepTheirInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		n        int
		interval time.Duration
		took     time.Duration
		want     []time.Duration // every loop's call starts
	}{
		{"3 loops, calls faster than the interval", 3, 100 * time.Millisecond, 30 * time.Millisecond,
			every(0, 100*time.Millisecond, time.Second)},
		{"50 loops, calls faster than the interval", 50, 100 * time.Millisecond, 99 * time.Millisecond,
			every(0, 100*time.Millisecond, time.Second)},
		{"4 loops, calls slower: back-to-back", 4, 100 * time.Millisecond, 250 * time.Millisecond,
			every(0, 250*time.Millisecond, time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newClientStarts(tt.took)
				why := runClients(t.Context(), tt.n, 0, time.Second, tt.interval, c.call)
				if why != "completed" {
					t.Errorf("loops ended %q, want completed", why)
				}
				if len(c.starts) != tt.n {
					t.Fatalf("%d client loops called, want %d", len(c.starts), tt.n)
				}
				for j := range uint32(tt.n) {
					if !slices.Equal(c.starts[j], tt.want) {
						t.Errorf("client %d started calls at %v, want %v", j, c.starts[j], tt.want)
					}
				}
			})
		})
	}
}

// TestClientStartInterval staggers 5 client loops 250 ms apart in a 1 s
// run: client j makes its first call at j × 250 ms and then keeps its
// interval until the tester's end, so later clients make fewer calls (and
// the loops end, as one loop does, when no call is due before the end:
// client 3's last call, started at 950 ms, ends at 960 ms); the fifth,
// due at the end, never calls.
func TestClientStartInterval(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newClientStarts(10 * time.Millisecond)
		const stagger = 250 * time.Millisecond
		why := runClients(t.Context(), 5, stagger, time.Second, 100*time.Millisecond, c.call)
		if why != "completed" || time.Since(c.t0) != 960*time.Millisecond {
			t.Errorf("loops ended %q after %v, want completed after 960ms", why, time.Since(c.t0))
		}
		for j := range uint32(4) {
			want := every(time.Duration(j)*stagger, 100*time.Millisecond, time.Second)
			if !slices.Equal(c.starts[j], want) {
				t.Errorf("client %d started calls at %v, want %v", j, c.starts[j], want)
			}
		}
		if s, ok := c.starts[4]; ok {
			t.Errorf("client 4, due when the tester ends, called at %v", s)
		}
	})
}

// TestStopEndsEveryClient stops 200 client loops, some waiting for their
// next call, some in a call, some not started yet: every one ends at the
// instant of the stop, and the loops say "stopped".
func TestStopEndsEveryClient(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(2500*time.Millisecond, cancel)
		quick, slow := newClientStarts(10*time.Millisecond), newClientStarts(time.Hour)
		calls := func(ctx context.Context, client uint32) sample.Status {
			if client%2 == 1 {
				return slow.call(ctx, client) // in a call at the stop
			}
			return quick.call(ctx, client) // waiting for the next call at the stop
		}
		c := quick
		why := runClients(ctx, 200, 20*time.Millisecond+time.Microsecond, time.Minute, time.Second, calls)
		if why != "stopped" || time.Since(c.t0) != 2500*time.Millisecond {
			t.Errorf("loops ended %q after %v, want stopped at 2.5s", why, time.Since(c.t0))
		}
		// 20.001 ms apart, clients 0..124 had started by 2.5 s; the rest never.
		if n := len(quick.starts) + len(slow.starts); n != 125 {
			t.Errorf("%d clients called before the stop, want 125", n)
		}
	})
}

// TestStopEndsCallsInFlight stops 100 client loops all in a call that
// would last an hour: the calls see the stop, and every loop ends at once.
func TestStopEndsCallsInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		c := newClientStarts(time.Hour)
		why := runClients(ctx, 100, 0, time.Minute, 0, c.call)
		if why != "stopped" || time.Since(c.t0) != time.Second || len(c.starts) != 100 {
			t.Errorf("loops ended %q after %v with %d clients called, want stopped at 1s with 100", why, time.Since(c.t0), len(c.starts))
		}
	})
}

// okClient is an in-process client.Client whose calls succeed at once.
type okClient struct{}

func (okClient) Call(context.Context) client.Reply { return client.Reply{Status: sample.OK} }

// TestSamplesCarryTheirClient runs 50 client loops through the tester's
// outbox: every sample names the loop that made it, each loop made its
// 10 calls, and the tester's sequence numbers stay one per sample.
func TestSamplesCarryTheirClient(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newOutbox(nil, func(error) {})
		clk := clock.NewLocal(0, 0)
		call := func(ctx context.Context, client uint32) sample.Status { return o.call(ctx, okClient{}, clk, client) }
		if why := runClients(t.Context(), 50, 0, time.Second, 100*time.Millisecond, call); why != "completed" {
			t.Fatalf("loops ended %q", why)
		}
		perClient := map[uint32]int{}
		seqs := map[uint64]bool{}
		for _, s := range o.pending {
			perClient[s.Client]++
			seqs[s.Seq] = true
		}
		if len(perClient) != 50 || len(seqs) != 500 || len(o.pending) != 500 {
			t.Fatalf("%d samples from %d clients with %d sequence numbers, want 500 from 50 with 500", len(o.pending), len(perClient), len(seqs))
		}
		for j, n := range perClient {
			if j >= 50 || n != 10 {
				t.Errorf("client %d made %d calls, want clients 0..49 with 10 each", j, n)
			}
		}
	})
}
