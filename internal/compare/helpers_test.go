package compare

import (
	"math"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/analyze"
)

// spec describes a synthetic run.
type spec struct {
	calls    int     // successful calls
	rtMs     float64 // median response time, ms (log-normal, σ = 0.5)
	quanta   int     // active quanta
	tput     float64 // mean throughput, calls/s (normal, sd 10%, rounded)
	failures float64 // share of all calls that failed
}

// base is a run of the usual shape.
var base = spec{calls: 2000, rtMs: 50, quanta: 100, tput: 200, failures: 0.02}

// synth builds the Data of a run drawn from s with the generator seeded by
// seed.
func synth(s spec, seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	d := &Data{Name: "synthetic", RTms: make([]float64, s.calls), Throughput: make([]float64, s.quanta)}
	for i := range d.RTms {
		d.RTms[i] = s.rtMs * math.Exp(0.5*r.NormFloat64())
	}
	for i := range d.Throughput {
		d.Throughput[i] = math.Round(s.tput * (1 + 0.1*r.NormFloat64()))
	}
	total := s.calls
	failed := 0
	if s.failures > 0 {
		total = int(math.Round(float64(s.calls) / (1 - s.failures)))
		failed = binomial(r, total, s.failures)
	}
	d.Summary = analyze.Summary{
		Samples:    analyze.SampleCounts{Total: total, OK: s.calls, Failed: failed},
		Saturation: analyze.Saturation{Saturated: true, Load: 40, Throughput: s.tput},
		Load:       analyze.LoadSummary{Max: 60},
		Fairness:   analyze.Fairness{Jain: 0.98},
	}
	return d
}

// with returns s changed by f.
func (s spec) with(f func(*spec)) spec {
	f(&s)
	return s
}
