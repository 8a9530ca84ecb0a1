package compare

import (
	"fmt"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/sample"
)

// Runs loads and analyzes the run directories a and b and compares b with a.
func Runs(a, b string, o Options) (*Comparison, error) {
	po := pipeline.Options{Quantum: o.Quantum, Clock: o.Clock}
	da, err := Load(a, po)
	if err != nil {
		return nil, fmt.Errorf("run A: %w", err)
	}
	db, err := Load(b, po)
	if err != nil {
		return nil, fmt.Errorf("run B: %w", err)
	}
	return Compare(da, db, o), nil
}

// Load reads the run directory dir and reduces it to Data in one pass over
// its samples: the analysis, at o's quantum and clock mode, and a uniform
// sample of its response times are drawn from the same read.
func Load(dir string, o pipeline.Options) (*Data, error) {
	ds, err := pipeline.Load(dir, o)
	if err != nil {
		return nil, err
	}
	rs := newReservoir(maxLoadedRTs, DefaultSeed)
	res, err := ds.Analyze(func(calls []sample.Call) error {
		for i := range calls {
			if calls[i].Status == sample.OK {
				rs.add(float64(calls[i].End-calls[i].Start) / 1e6)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d := NewData(res, nil)
	d.Dir = dir
	d.RTms = rs.values
	return d, nil
}

// maxLoadedRTs bounds the response times Load keeps of a run: all of them
// up to this many, beyond a uniform sample of this size (16 MB), so that
// runs of a hundred million calls compare in bounded memory. The
// percentiles of two million values are within a fraction of a percent of
// the run's.
const maxLoadedRTs = 1 << 21

// reservoir keeps a uniform random sample of at most cap values from a
// stream (Vitter's algorithm R), seeded so that a comparison repeats.
type reservoir struct {
	values []float64
	seen   int64
	rng    *rand.Rand
}

// newReservoir returns an empty reservoir of capacity n.
func newReservoir(n int, seed uint64) *reservoir {
	return &reservoir{values: make([]float64, 0, n), rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// add offers v to the sample.
func (r *reservoir) add(v float64) {
	r.seen++
	if len(r.values) < cap(r.values) {
		r.values = append(r.values, v)
		return
	}
	if j := r.rng.Int64N(r.seen); j < int64(len(r.values)) {
		r.values[j] = v
	}
}

// NewData reduces an analysis and the calls it was computed from to Data.
// Like the analyzer's throughput statistics, it keeps the quanta in which a
// tester was active (every quantum when there were no testers).
func NewData(res *analyze.Result, calls []sample.Call) *Data {
	d := &Data{Name: res.Name, Summary: res.Summary}
	for _, q := range res.Quanta {
		if q.Active > 0 || len(res.Clients) == 0 {
			d.Throughput = append(d.Throughput, q.Throughput)
			d.Load = append(d.Load, q.Load)
		}
	}
	d.RTms = make([]float64, 0, res.Summary.Samples.OK)
	for _, c := range calls {
		if c.Status == sample.OK {
			d.RTms = append(d.RTms, float64(c.End-c.Start)/1e6)
		}
	}
	return d
}
