package sensor

import (
	"context"
	"errors"
	"github.com/diperf/diperf/internal/clock"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// deadProber: tests to the dead peers fail after hang (a connect that
// times out); the others take the test time.
type deadProber struct {
	mu    sync.Mutex
	dead  map[string]bool
	hang  time.Duration
	err   error
	tries map[string][]time.Time
}

func (p *deadProber) Run(ctx context.Context, t Test, d time.Duration) (Measurement, error) {
	p.mu.Lock()
	p.tries[t.Peer.Name] = append(p.tries[t.Peer.Name], time.Now())
	dead := p.dead[t.Peer.Name]
	p.mu.Unlock()
	if dead {
		clock.Sleep(ctx, p.hang)
		return Measurement{}, p.err
	}
	clock.Sleep(ctx, d)
	return Measurement{BandwidthBps: 1e7}, nil
}

// A dead peer is backed off: over two hours at one test a minute it is
// tried a dozen times at most (after 1, 2, 4, 8, then every 12 minutes),
// and the live peer gets the turns it does not take.
func TestDeadPeerIsBackedOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}}
		dir := &fakeDir{peers: []Peer{self, {Name: "b", Groups: []string{"local"}}, {Name: "c", Groups: []string{"local"}}}}
		pr := &deadProber{dead: map[string]bool{"b": true}, hang: 3 * time.Second,
			err: errors.New("dial tcp: i/o timeout"), tries: map[string][]time.Time{}}
		cfg := Config{Self: self, Period: time.Minute, TestTime: 5 * time.Second, Rand: rand.New(rand.NewPCG(7, 8))}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
		defer cancel()
		Run(ctx, cfg, dir, pr)
		tries := pr.tries["b"]
		if len(tries) > 13 {
			t.Errorf("the dead peer was tried %d times in 2 h, want at most 13", len(tries))
		}
		for i := 1; i < len(tries); i++ {
			hold := time.Minute << min(i-1, 4)
			hold = min(hold, 12*time.Minute) // BackoffPeriods
			if gap := tries[i].Sub(tries[i-1]); gap < hold {
				t.Errorf("try %d of the dead peer %v after the one before, want after %v at least", i+1, gap, hold)
			}
		}
		t.Logf("tries: dead peer %d, live peer %d", len(tries), len(pr.tries["c"]))
		if n := len(pr.tries["c"]); n < 90 {
			t.Errorf("the live peer was tested %d times in 2 h at one test a minute, want 90 at least", n)
		}
	})
}
