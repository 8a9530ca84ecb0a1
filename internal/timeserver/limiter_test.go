package timeserver

import (
	"net/netip"
	"testing"
	"time"
)

func TestLimiterBoundsSources(t *testing.T) {
	t.Parallel()
	l := newLimiter(1, 1, 2) // 1 request/s, burst 1, 2 sources tracked
	steps := []struct {
		src  string
		at   time.Duration
		want bool
	}{
		{"10.0.0.1", 0, true},                       // a new source starts with a full bucket
		{"10.0.0.1", 0, false},                      // and has emptied it
		{"10.0.0.2", 0, true},                       // another source has its own
		{"10.0.0.3", 0, true},                       // the map is full: the overflow bucket
		{"10.0.0.4", 0, false},                      // which is shared, and now empty
		{"10.0.0.1", time.Second, true},             // a second later, refilled
		{"10.0.0.3", 12 * time.Second, true},        // idle sources pruned: .3 gets a bucket
		{"10.0.0.3", 12 * time.Second, false},       // its own, now empty
		{"10.0.0.4", 12*time.Second + 1, true},      // and .4 one too
		{"10.0.0.5", 12*time.Second + 2, true},      // the overflow bucket refilled meanwhile
		{"10.0.0.6", 12*time.Second + 3, false},     // and is shared again
		{"10.0.0.5", 12*time.Second + 1e9/2, false}, // half a second refills half a token
	}
	for i, s := range steps {
		if got := l.allow(netip.MustParseAddr(s.src), int64(s.at)); got != s.want {
			t.Fatalf("step %d: allow(%s at %v) = %v, want %v", i, s.src, s.at, got, s.want)
		}
	}
	if len(l.sources) != 2 {
		t.Errorf("%d sources tracked, want 2", len(l.sources))
	}
}
