package sensor

import (
	"testing"
	"time"
)

// Gloperf's policy: a 5 s test every 5 min is 1.6% of the time; the
// ledger lets the next test start only when, once done, the share stays
// within the budget, and says what was spent.
func TestLedgerKeepsTheTimeBudget(t *testing.T) {
	t0 := time.Unix(0, 0)
	l := NewLedger(t0)
	b := Budget{Fraction: 5.0 / 300}
	if got := l.Earliest(b, 5*time.Second); !got.Equal(t0.Add(295 * time.Second)) {
		t.Fatalf("first test at +%v, want +295s (its 5 s then end at 1.6%% of 300 s)", got.Sub(t0))
	}
	now := t0.Add(295 * time.Second)
	l.Add(5*time.Second, 1e6)
	if f, _ := l.Spent(now.Add(5 * time.Second)); f > b.Fraction+1e-12 {
		t.Errorf("spent %.4f of the time, budget %.4f", f, b.Fraction)
	}
	if got := l.Earliest(b, 5*time.Second); !got.Equal(t0.Add(595 * time.Second)) {
		t.Errorf("second test at +%v, want +595s", got.Sub(t0))
	}
}

// A byte cap holds the next test back until the bytes an hour, with one
// more average test, are within it.
func TestLedgerKeepsTheByteBudget(t *testing.T) {
	t0 := time.Unix(0, 0)
	l := NewLedger(t0)
	l.Add(time.Second, 100e6) // one test moved 100 MB
	b := Budget{Fraction: 0.5, BytesPerHour: 1e9}
	// 200 MB after the next test: at 1 GB/h that is 12 minutes in
	if got := l.Earliest(b, time.Second); !got.Equal(t0.Add(12*time.Minute - time.Second)) {
		t.Errorf("next test at +%v, want 12m less its 1 s", got.Sub(t0))
	}
	if _, bph := l.Spent(t0.Add(time.Hour)); bph != 100e6 {
		t.Errorf("%.0f bytes an hour, want 100e6", bph)
	}
}
