package sensor

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// serve books a test of d for peer and records it as taking d; the error
// of a refusal.
func serve(s *Served, peer string, d time.Duration) error {
	_, done, err := s.Serve(peer, d)
	if err == nil {
		done(d, 0)
	}
	return err
}

// TestServedLimits: within a ServeWindow, the peers together get at most
// the budget (Fraction × ServeWindow), and each its fair share of it: one
// part in n+1 with n peers, the sensor's own tests being one more, the
// test that passes it being its last; a window later, a peer is served
// again (fake time).
func TestServedLimits(t *testing.T) {
	const test = 5 * time.Second
	// up is a sensor up for 10 h: its budget since start (6 min) is not
	// what limits here; 36 s an hour are.
	up := func(t *testing.T) *Served {
		s := NewServed(Budget{Fraction: 0.01}, time.Now())
		time.Sleep(10 * time.Hour)
		return s
	}
	t.Run("shares", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := up(t)
			wantShare(t, s, "10.0.0.1", 4, "at most 18.025s (one part in 2") // alone: 20 s served, past half
			time.Sleep(ServeWindow)
			if err := serve(s, "10.0.0.1", test); err != nil {
				t.Errorf("a window later: %v", err)
			}
			wantShare(t, s, "10.0.0.2", 3, "at most 12.017s (one part in 3") // beside 10.0.0.1: 15 s, past a third
			if took, _ := s.Totals(); took != 8*test {
				t.Errorf("served %v in all, want 8 tests of %v", took, test)
			}
		})
	})
	t.Run("total", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := up(t)
			for i := range 7 {
				if err := serve(s, fmt.Sprintf("10.0.1.%d", i), test); err != nil {
					t.Fatalf("peer %d's test (%d of 36 s): %v", i, 5*(i+1), err)
				}
			}
			if err := serve(s, "10.0.1.9", test); err == nil || !strings.Contains(err.Error(), "serving budget is spent") {
				t.Errorf("a test past the budget (40 of 36 s): err = %v", err)
			}
		})
	})
}

// wantShare checks that peer is served ok tests of 5 s, then refused for
// its share, saying share.
func wantShare(t *testing.T, s *Served, peer string, ok int, share string) {
	t.Helper()
	for i := range ok {
		if err := serve(s, peer, 5*time.Second); err != nil {
			t.Fatalf("%s's test %d: %v", peer, i+1, err)
		}
	}
	if err := serve(s, peer, 5*time.Second); err == nil || !strings.Contains(err.Error(), peer+"'s share is spent") ||
		!strings.Contains(err.Error(), share) {
		t.Errorf("%s's test %d of 5 s, past its share: err = %v, want its share, %s", peer, ok+1, err, share)
	}
}

// TestServedBytes: with a byte cap, a test may move what is left of the
// peer's share (half of BytesPerHour over the window) and of the total;
// none left is a refusal.
func TestServedBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewServed(Budget{Fraction: 0.5, BytesPerHour: 1000}, time.Now())
		time.Sleep(time.Minute)
		max, done, err := s.Serve("a", time.Second)
		if err != nil || max != 500 {
			t.Fatalf("first test: may move %d bytes (%v), want the peer's share, 500", max, err)
		}
		done(time.Second, 400)
		if max, _, _ = s.Serve("a", time.Second); max != 100 {
			t.Errorf("second test may move %d, want the 100 left of the share", max)
		}
		if _, _, err := s.Serve("b", time.Second); err != nil {
			t.Errorf("another peer: %v", err)
		}
		_, done, _ = s.Serve("c", time.Second)
		done(time.Second, 600)
		if b := s.HourBytes(time.Now()); b != 1000 {
			t.Errorf("HourBytes = %.0f, want the 1000 served (what the sensor's own tests may no longer move)", b)
		}
		if _, _, err := s.Serve("d", time.Second); err == nil {
			t.Error("a test once the 1000 bytes were served was not refused")
		}
	})
}

// TestLedgerCountsServed: a ledger that counts the tests served reports
// them in its share of time and bytes, and delays the sensor's own next
// test by them.
func TestLedgerCountsServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Budget{Fraction: 0.1}
		start := time.Now()
		l, s := NewLedger(start), NewServed(b, time.Now())
		l.CountServed(s)
		time.Sleep(100 * time.Second)
		l.Add(time.Second, 100)
		before := l.Earliest(b, time.Second)
		_, done, err := s.Serve("peer", 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		done(3*time.Second, 900)
		f, bph := l.Spent(time.Now())
		if f != 0.04 || bph != 1000*36 {
			t.Errorf("spent %.3f of the time, %.0f bytes an hour; want own 1 s + served 3 s of 100 s = 0.04, 1000 bytes in 100 s", f, bph)
		}
		if after := l.Earliest(b, time.Second); after.Sub(before) != 30*time.Second {
			t.Errorf("the next own test moved by %v, want the 3 s served / 0.1 = 30 s", after.Sub(before))
		}
	})
}

// TestServedWithinBudgetSinceStart: a test is served only while the
// sensor's time in tests, its own (booked in the ledger) and those
// served, stays within its budget since start: its own tests and the
// ones it serves share it, and it is a cap (fake time).
func TestServedWithinBudgetSinceStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Budget{Fraction: 0.1}
		l, s := NewLedger(time.Now()), NewServed(b, time.Now())
		l.CountServed(s)
		if err := serve(s, "peer", time.Second); err == nil {
			t.Error("a test of 1 s served at start, with a budget of 10% of no time")
		}
		time.Sleep(10 * time.Second)
		l.Add(time.Second, 0) // its own: 1 s of 10 s, the whole budget
		if err := serve(s, "peer", time.Second); err == nil || !strings.Contains(err.Error(), "budget is spent") {
			t.Errorf("a test past the budget its own tests spent: err = %v", err)
		}
		time.Sleep(10 * time.Second) // 1 s of 20 s: 1 s more fits (2 of 21 s)
		if err := serve(s, "peer", time.Second); err != nil {
			t.Errorf("a test within the budget: %v", err)
		}
		if f, _ := l.Spent(time.Now()); f > b.Fraction {
			t.Errorf("spent %.3f of the time, budget %.3f", f, b.Fraction)
		}
	})
}

// TestServedOnePeerHalfSinceStart: soon after a sensor starts, one peer
// testing it back to back gets at most half of its budget so far; the
// other half stays for its own tests and its other peers (fake time).
func TestServedOnePeerHalfSinceStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewServed(Budget{Fraction: 0.5}, time.Now())
		time.Sleep(100 * time.Second) // a budget of 50 s so far
		n := 0
		for serve(s, "attacker", time.Second) == nil {
			n++
		}
		if n != 26 {
			t.Errorf("one peer was served %d tests of 1 s in the first 100 s; want half the budget (25.25 s), passed by one test: 26", n)
		}
		if err := serve(s, "peer", time.Second); err != nil {
			t.Errorf("another peer then: %v", err)
		}
	})
}
