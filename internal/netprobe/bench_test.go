package netprobe

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkLatencyLoopback prints the loopback figures of docs/sensors.md:
// each iteration is one 1 s latency test (1-byte TCP_RR) over loopback;
// the metrics are the medians over the iterations. Run with -benchtime 3x.
func BenchmarkLatencyLoopback(b *testing.B) {
	srv, err := NewServer(testToken, nil)
	if err != nil {
		b.Fatal(err)
	}
	addr := serveLoopback(b, srv)
	c := &Client{Token: testToken}
	var tps, p50, p90, p99 []float64
	for range b.N {
		r, err := c.Latency(context.Background(), addr, time.Second, 1)
		if err != nil {
			b.Fatal(err)
		}
		tps, p50 = append(tps, r.PerSec), append(p50, float64(r.P50.Microseconds()))
		p90, p99 = append(p90, float64(r.P90.Microseconds())), append(p99, float64(r.P99.Microseconds()))
	}
	b.ReportMetric(med(tps), "transactions/s")
	b.ReportMetric(1e6/med(tps), "latency-µs")
	b.ReportMetric(med(p50), "p50-µs")
	b.ReportMetric(med(p90), "p90-µs")
	b.ReportMetric(med(p99), "p99-µs")
}

func serveLoopback(tb testing.TB, srv *Server) string {
	ln, err := listenLoopback()
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func med(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[(len(s)-1)/2]
}
