package live

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// BenchmarkAdd is the controller's per-sample path: batches of 1,000
// calls (1% failed) of 5-15 ms over the seconds of a run, made final as
// the clock moves on.
func BenchmarkAdd(b *testing.B) {
	now := time.Unix(1_700_000_000, 0)
	r := New(Options{Name: "bench", Testers: 1, Now: func() time.Time { return now }})
	batch := make([]sample.Sample, 1000)
	t := now.UnixNano()
	b.ReportAllocs()
	for b.Loop() {
		for i := range batch {
			st := sample.OK
			if i%100 == 0 {
				st = sample.Failed
			}
			d := int64(5*time.Millisecond) + int64(i%1000)*10_000
			batch[i] = sample.Sample{Start: t, End: t + d, Status: st}
			t += 100_000 // 10,000 calls/s
		}
		now = time.Unix(0, t)
		r.Add(0, batch, 0, nil)
		r.Tick()
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "samples/s")
}
