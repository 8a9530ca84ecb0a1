package timeserver

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"testing"
	"time"
)

// loopbackSources returns n loopback addresses from 127.0.0.first on.
func loopbackSources(first byte, n int) []netip.Addr {
	a := netip.AddrFrom4([4]byte{127, 0, 0, first})
	out := make([]netip.Addr, n)
	for i := range out {
		out[i], a = a, a.Next()
	}
	return out
}

func TestLoad(t *testing.T) {
	t.Parallel()
	_, addr := startUDP(t, Config{})
	r, err := Load(context.Background(), LoadConfig{
		Target: addr, Rate: 5000, Duration: 200 * time.Millisecond,
		Sources: loopbackSources(20, 3), Grace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every request due in 200 ms at 5000/s is sent or, when a busy
	// machine held the pacer back for longer than it catches up, skipped
	// and counted.
	if r.Sent+r.Skipped != 1000 || r.Failed != 0 || r.Sent < 64 || r.Answered != r.Sent || len(r.RTTs) != int(r.Answered) {
		t.Errorf("sent %d, skipped %d, failed %d, answered %d, %d RTTs; want 1000 sent or skipped, all sent answered",
			r.Sent, r.Skipped, r.Failed, r.Answered, len(r.RTTs))
	}
	if want := float64(ResponseSize) / RequestSize; r.MaxReplyRatio != want {
		t.Errorf("max reply ratio %v, want %v", r.MaxReplyRatio, want)
	}
	if p50 := r.Quantile(0.5); p50 <= 0 || p50 > 100*time.Millisecond {
		t.Errorf("median RTT %v", p50)
	}
}

// TestLoadBench measures the server under load: set
// DIPERF_TS_BENCH_RATE (requests/s) to run it, e.g. with -v -run LoadBench.
func TestLoadBench(t *testing.T) {
	rate, err := strconv.ParseFloat(os.Getenv("DIPERF_TS_BENCH_RATE"), 64)
	if err != nil {
		t.Skip("set DIPERF_TS_BENCH_RATE to run")
	}
	s, addr := startUDP(t, Config{})
	r, err := Load(context.Background(), LoadConfig{
		Target: addr, Rate: rate, Duration: 10 * time.Second,
		Sources: loopbackSources(10, 64), Grace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rate %.0f: sent %d skipped %d answered %d (%.0f/s) p50 %v p99 %v stats %+v",
		rate, r.Sent, r.Skipped, r.Answered, float64(r.Answered)/r.Elapsed.Seconds(),
		r.Quantile(0.5), r.Quantile(0.99), s.Stats())
}
