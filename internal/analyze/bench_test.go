package analyze

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// syntheticInput builds n calls from the given number of closed-loop
// testers, started 100 ms apart, with 1% failures and 0.1% cancellations.
func syntheticInput(n, testers int) *Input {
	rng := rand.New(rand.NewPCG(3, 4))
	in := &Input{Name: "bench", Quantum: time.Second, Planned: testers, Calls: make([]sample.Call, 0, n)}
	per := n / testers
	for i := range testers {
		start := t0 + int64(i)*int64(100*time.Millisecond)
		t := start
		for range per {
			d := int64(5*time.Millisecond) + rng.Int64N(int64(10*time.Millisecond))
			st := sample.OK
			switch x := rng.IntN(1000); {
			case x < 10:
				st = sample.Failed
			case x < 11:
				st = sample.Cancelled
			}
			in.Calls = append(in.Calls, sample.Call{Tester: int32(i), Start: t, End: t + d, Status: st})
			t += d
		}
		in.Testers = append(in.Testers, Tester{Index: i, ID: "h:1", Host: "h", Start: start, End: t})
	}
	rng.Shuffle(len(in.Calls), func(a, b int) { in.Calls[a], in.Calls[b] = in.Calls[b], in.Calls[a] })
	return in
}

func BenchmarkCompute(b *testing.B) {
	in := syntheticInput(1_000_000, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compute(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(in.Calls))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
