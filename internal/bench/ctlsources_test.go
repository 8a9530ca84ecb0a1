package bench

import (
	"net/netip"
	"testing"
)

// TestSourceAddr spreads many connections over many loopback addresses,
// none holding more than PerSource, and keeps a small run on one.
func TestSourceAddr(t *testing.T) {
	for _, n := range []int{1, 20, PerSource, PerSource + 1, 100_000, 1_000_000} {
		count := map[netip.Addr]int{}
		for i := range n {
			a := SourceAddr(i, n)
			if !a.Is4() || a.As4()[0] != 127 || a.As4()[3] == 0 || a.As4()[3] == 255 {
				t.Fatalf("n=%d: connection %d gets %v, not a 127/8 host address", n, i, a)
			}
			count[a]++
		}
		if len(count) != SourceCount(n) {
			t.Errorf("n=%d: %d addresses used, want %d", n, len(count), SourceCount(n))
		}
		for a, c := range count {
			if c > PerSource {
				t.Errorf("n=%d: %v carries %d connections, more than %d", n, a, c, PerSource)
			}
		}
	}
	if SourceCount(100_000) < 10 {
		t.Errorf("100,000 connections on %d addresses", SourceCount(100_000))
	}
	if got := SourceCount(20); got != 1 {
		t.Errorf("20 connections on %d addresses, want 1", got)
	}
}
