package sensor

import (
	"context"
	"github.com/diperf/diperf/internal/clock"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A test's byte allowance is the budget less the bytes of the last
// hour's tests (by the minute); the minutes leave the window an hour on.
func TestAllowanceIsTheHoursRemainder(t *testing.T) {
	t0 := time.Unix(60*16_666_667, 0) // on a minute
	var w hourWindow
	b := Budget{BytesPerHour: 1e6}
	if got, capped := w.allowance(b, t0); !capped || got != 1e6 {
		t.Errorf("first allowance %v (capped %v), want the whole 1e6", got, capped)
	}
	w.add(t0, 6e5)
	w.add(t0.Add(30*time.Minute), 1e5) // a peer that did not answer: its handshake bytes count
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{time.Minute, 3e5}, {59*time.Minute + 59*time.Second, 3e5}, {time.Hour, 9e5}, {90 * time.Minute, 1e6}} {
		if got, _ := w.allowance(b, t0.Add(c.at)); got != c.want {
			t.Errorf("allowance at +%v: %v, want %v", c.at, got, c.want)
		}
	}
	if got, capped := w.allowance(Budget{}, t0); capped || got < 1e300 {
		t.Errorf("no byte budget: allowance %v (capped %v), want no cap", got, capped)
	}
	// another test of 6e5 fits once the first minute leaves the window
	if got := w.earliest(b, 6e5); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("room for another test at +%v, want +1h", got.Sub(t0))
	}
	if got := w.earliest(b, 2e5); !got.IsZero() {
		t.Errorf("room for a test of 2e5 at %v, want now", got)
	}
}

// budgetProber moves what its test's allowance lets it, up to want bytes.
type budgetProber struct {
	mu    sync.Mutex
	want  float64
	moved []struct {
		at    time.Time
		bytes float64
	}
}

func (p *budgetProber) Run(ctx context.Context, t Test, d time.Duration) (Measurement, error) {
	n := p.want
	if t.MaxBytes > 0 {
		n = min(n, t.MaxBytes)
	}
	p.mu.Lock()
	p.moved = append(p.moved, struct {
		at    time.Time
		bytes float64
	}{time.Now(), n})
	p.mu.Unlock()
	clock.Sleep(ctx, d)
	return Measurement{BandwidthBps: 1e7, Bytes: n, Capped: n < p.want}, nil
}

// Over five hours, the tests that started within any 59 minutes moved at
// most the hour's budget, though each would move three times it, and the
// sensor had no peer for its first three hours (a budget saved up is not
// spent at once).
func TestLoopKeepsEveryHourWithinTheByteBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}}
		dir := &fakeDir{peers: []Peer{self}}
		go func() {
			time.Sleep(3 * time.Hour)
			dir.mu.Lock()
			dir.peers = append(dir.peers, Peer{Name: "b", Groups: []string{"local"}}, Peer{Name: "c", Groups: []string{"local"}})
			dir.mu.Unlock()
		}()
		const budget = 1e6
		pr := &budgetProber{want: 3e6}
		cfg := Config{Self: self, Period: time.Minute, TestTime: 5 * time.Second, Rand: rand.New(rand.NewPCG(3, 3)),
			Budget: Budget{Fraction: 0.5, BytesPerHour: budget}}
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Hour)
		defer cancel()
		st := Run(ctx, cfg, dir, pr)
		for i, m := range pr.moved {
			var sum float64
			for _, o := range pr.moved[:i+1] {
				if m.at.Sub(o.at) < 59*time.Minute {
					sum += o.bytes
				}
			}
			if sum > budget {
				t.Fatalf("%.0f bytes in the 59 minutes up to test %d, budget %.0f an hour", sum, i+1, budget)
			}
		}
		if st.Tests < 3 || st.Capped != st.Tests {
			t.Errorf("%d tests, %d capped in 3 h with peers; want 3 at least, all capped", st.Tests, st.Capped)
		}
	})
}

// busyBytesProber refuses the first try as busy, after moving 200 bytes
// (the handshake), and records each try's allowance.
type busyBytesProber struct {
	mu      sync.Mutex
	allowed []float64
}

func (p *busyBytesProber) Run(ctx context.Context, t Test, d time.Duration) (Measurement, error) {
	p.mu.Lock()
	p.allowed = append(p.allowed, t.MaxBytes)
	first := len(p.allowed) == 1
	p.mu.Unlock()
	if first {
		return Measurement{Bytes: 200}, ErrBusy
	}
	clock.Sleep(ctx, d)
	return Measurement{Bytes: t.MaxBytes}, nil
}

// The bytes of a try refused as busy count: the next try of the test gets
// what is left of its allowance.
func TestBusyTryCountsAgainstTheAllowance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}}
		dir := &fakeDir{peers: []Peer{self, {Name: "b", Groups: []string{"local"}}}}
		pr := &busyBytesProber{}
		cfg := Config{Self: self, Period: time.Minute, TestTime: 5 * time.Second, Budget: Budget{BytesPerHour: 1e4}}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		Run(ctx, cfg, dir, pr)
		if len(pr.allowed) < 2 || pr.allowed[0] != 1e4 || pr.allowed[1] != 1e4-200 {
			t.Errorf("allowances of the tries %v, want 10000 then 9800", pr.allowed)
		}
	})
}
