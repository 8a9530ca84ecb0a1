package threshold

import (
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/stats"
)

// sec is a second of n successful calls of ms each and failed failures.
func sec(t int64, n int, ms int64, failed int) Second {
	s := Second{T: t, OK: n, Failed: failed, Load: float64(n) * float64(ms) / 1000}
	if n > 0 {
		s.RT = stats.NewBucket()
		for range n {
			s.RT.AddRT(ms * 1e6)
		}
	}
	return s
}

// feed adds seconds and returns the breaches of each, by second.
func feed(t *testing.T, l *Live, secs ...Second) map[int64][]Breach {
	t.Helper()
	out := map[int64][]Breach{}
	for _, s := range secs {
		b, err := l.Add(s)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			out[s.T] = b
		}
	}
	return out
}

// A last-N threshold breaches after failing for its whole for: duration,
// and a passing second starts the count again.
func TestLiveLastWindow(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{
		{Check: "p99_ms < 50", Over: "last 2s", Abort: true, For: experiment.Duration(3 * time.Second)},
		{Check: "p99_ms < 1"}, // not an abort threshold: not watched
	})
	if err != nil || l.Len() != 1 {
		t.Fatalf("Len %d, %v; want 1 watched", l.Len(), err)
	}
	var secs []Second
	for s := int64(1); s <= 5; s++ {
		secs = append(secs, sec(1000+s, 100, 10, 0)) // fast
	}
	for s := int64(6); s <= 8; s++ {
		secs = append(secs, sec(1000+s, 100, 100, 0)) // slow from 1006: failing since then
	}
	got := feed(t, l, secs...)
	if len(got) != 1 || got[1008] == nil {
		t.Fatalf("breaches %v; want one, at second 1008 (failing 1006, 1007, 1008)", got)
	}
	if b := got[1008][0]; b.Since != 1006 || b.Name != "p99_ms < 50 over last 2s" || b.Observed < 99 || b.Observed > 101 {
		t.Errorf("breach %+v", b)
	}
	// 1009 fast: {1008 slow, 1009 fast} still fails; 1010 fast passes.
	got = feed(t, l, sec(1009, 100, 10, 0), sec(1010, 100, 10, 0), sec(1011, 100, 100, 0), sec(1012, 100, 100, 0))
	if len(got) != 1 || got[1009] == nil {
		t.Fatalf("breaches %v; want one at 1009 only: the pass at 1010 starts the count again", got)
	}
	if got := feed(t, l, sec(1013, 100, 100, 0)); got[1013] == nil || got[1013][0].Since != 1011 {
		t.Errorf("breaches %v; want one at 1013, failing since 1011", got)
	}
}

// A run window sums every second so far; no data is not a failure.
func TestLiveRunWindow(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{
		{Check: "error_rate < 10%", Abort: true},                                           // at once
		{Check: "throughput > 40", Abort: true, For: experiment.Duration(2 * time.Second)}, // 2 s in a row
		{Check: "load < 100", Abort: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := feed(t, l, sec(1, 0, 0, 0), sec(2, 0, 0, 0)) // no calls: no data for the error rate
	// Throughput 0 is data: failing since 1, a breach at 2.
	if len(got[2]) != 1 || got[2][0].Name != "throughput > 40" || got[1] != nil {
		t.Fatalf("breaches %v; want throughput at second 2 only", got)
	}
	// 90 ok and 10 failed in 3 s: error rate 10% (not below 10), at once.
	got = feed(t, l, sec(3, 90, 10, 10))
	names := []string{}
	for _, b := range got[3] {
		names = append(names, b.Name)
	}
	if strings.Join(names, ",") != "error_rate < 10%,throughput > 40" {
		t.Errorf("breaches at 3: %v; want the error rate (10%%) and throughput (30/s)", got[3])
	}
}

// Histograms of another geometry are read; seconds must come in order;
// a peak window cannot be watched.
func TestLiveInputs(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{{Check: "p50_ms > 500", Abort: true}})
	if err != nil {
		t.Fatal(err)
	}
	h := hdr.New(1, 60_000_000, 3)
	_ = h.RecordValues(20_000, 10) // 20 ms
	b := &stats.Bucket{Hist: h}
	for range 10 {
		b.Moments.Add(20e6)
	}
	if got, err := l.Add(Second{T: 5, OK: 10, RT: b}); err != nil || len(got) != 1 || got[0].Observed < 19.8 || got[0].Observed > 20.2 {
		t.Errorf("breaches %v, %v; want p50 20 ms", got, err)
	}
	if _, err := l.Add(Second{T: 5}); err == nil {
		t.Error("second 5 fed twice")
	}
	if _, err := NewLive([]experiment.Threshold{{Check: "p50_ms > 1", Over: "peak", Abort: true}}); err == nil {
		t.Error("a peak-window abort accepted")
	}
	if _, err := NewLive([]experiment.Threshold{{Check: "fairness.jain > 1", Abort: true}}); err == nil {
		t.Error("a whole-run metric accepted as an abort")
	}
	if b := (Breach{Name: "x < 1", Observed: 2.5, Since: 7}).String(); !strings.Contains(b, `"x < 1"`) || !strings.Contains(b, "2.5") {
		t.Errorf("breach says %q", b)
	}
}
