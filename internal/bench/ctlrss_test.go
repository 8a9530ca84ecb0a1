package bench

import (
	"testing"
	"time"
)

// TestRSSSeries takes the medians of the windows at minute 1 and at the
// end of a 90 s sending sampled each second, whatever the spikes between,
// and ignores samples outside the sending.
func TestRSSSeries(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := rssSeries{start: t0, d: 90 * time.Second}
	s.add(t0.Add(-time.Second), 1<<40) // before the start
	for i := 0; i <= 90; i++ {
		rss := uint64(80 << 20)
		if i >= 70 {
			rss = 88 << 20
		}
		if i%4 == 0 {
			rss += 30 << 20 // a collection's spike
		}
		s.add(t0.Add(time.Duration(i)*time.Second), rss)
	}
	s.add(t0.Add(95*time.Second), 1<<40) // after the end
	if got := s.at1Min(); got != 80<<20 {
		t.Errorf("at 1 min %d MB, want 80", got>>20)
	}
	if got := s.end(); got != 88<<20 {
		t.Errorf("end %d MB, want 88", got>>20)
	}
	short := rssSeries{start: t0, d: 60 * time.Second}
	short.add(t0.Add(55*time.Second), 80<<20)
	if got := short.at1Min(); got != 0 {
		t.Errorf("a 60 s sending has a figure at 1 min: %d", got)
	}
}

func TestGrowth(t *testing.T) {
	if g := growth(0, 100); g != nil {
		t.Errorf("growth without a sample at 1 min: %v", *g)
	}
	if g := growth(100<<20, 105<<20); g == nil || *g != 0.05 {
		t.Errorf("100 → 105 MB: %v, want 0.05", g)
	}
	if g := growth(100<<20, 90<<20); g == nil || *g != -0.1 {
		t.Errorf("100 → 90 MB: %v, want -0.1", g)
	}
}
