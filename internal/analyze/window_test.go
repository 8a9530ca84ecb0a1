package analyze

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// ResponseTimes over one quantum is that quantum's RT, over every quantum
// the summary's, and over a few quanta the distribution of exactly the
// calls completed in them; with few dense histograms kept, the same.
func TestResponseTimes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var calls []sample.Call
	for range 2000 {
		s := rng.Float64() * 10
		calls = append(calls, call(int32(rng.IntN(3)), s, s+0.001+rng.Float64()*0.3, sample.OK))
	}
	calls = append(calls, call(0, 1, 1.5, sample.Timeout))
	for _, live := range []int{maxLiveHists, 2} {
		a, err := NewAccumulator(Config{Name: "t", Quantum: time.Second, Origin: EarliestStart(calls)})
		if err != nil {
			t.Fatal(err)
		}
		a.quanta.hists = newHistStore(live)
		if err := a.Add(calls); err != nil {
			t.Fatal(err)
		}
		r, err := a.Result()
		if err != nil {
			t.Fatal(err)
		}
		for q := range r.Quanta {
			if got := r.ResponseTimes(q, q+1).Stats(); !reflect.DeepEqual(got, r.Quanta[q].RT) {
				t.Fatalf("live %d, quantum %d: %+v, want %+v", live, q, got, r.Quanta[q].RT)
			}
		}
		all, s := r.ResponseTimes(-1, len(r.Quanta)+5).Stats(), r.Summary.ResponseTimeMs
		if all.N != r.Summary.Samples.OK || all.Median != s.Median || all.P90 != s.P90 || all.P99 != s.P99 || all.Max != s.Max || !near(all.Mean, s.Mean) {
			t.Errorf("live %d: whole run %+v, summary %+v", live, all, s)
		}
		exact := func(from, to int) (n int, maxMs float64) {
			for _, c := range calls {
				if q := int((c.End - r.Origin) / int64(time.Second)); c.Status == sample.OK && q >= from && q < to {
					n++
					maxMs = max(maxMs, float64(c.End-c.Start)/1e6)
				}
			}
			return n, maxMs
		}
		w := r.ResponseTimes(3, 6)
		if n, m := exact(3, 6); w.Stats().N != n || !near(w.PercentileMs(100), m) || w.PercentileMs(50) > m {
			t.Errorf("live %d: quanta 3-5 hold %d calls, max %v ms; window says %+v", live, n, m, w.Stats())
		}
	}
	if w := (&Result{}).ResponseTimes(0, 10); w.Stats().N != 0 || w.PercentileMs(99) != 0 {
		t.Errorf("a Result built by hand has response times %+v", w.Stats())
	}
}

// BenchmarkKeep is what keeping the quanta's response times costs a
// Result: an hour's run at 1 s quanta, 1,000 calls of 1-100 ms each.
func BenchmarkKeep(b *testing.B) {
	const quanta = 3600
	var qa quantaAcc
	qa.hists = newHistStore(maxLiveHists)
	rng := rand.New(rand.NewPCG(1, 2))
	for q := range quanta {
		for range 1000 {
			c := sample.Call{Status: sample.OK}
			qa.add(q, &c, int64(time.Millisecond)+rng.Int64N(int64(99*time.Millisecond)))
		}
	}
	b.ReportAllocs()
	var k *quantaRT
	for b.Loop() {
		k = qa.keep(quanta)
	}
	n := 0
	for _, p := range k.packed {
		n += len(p)
	}
	b.ReportMetric(float64(n*int(unsafe.Sizeof(packedCount{}))+quanta*int(unsafe.Sizeof(stats.Moments{})))/1e6, "kept_MB")
}
