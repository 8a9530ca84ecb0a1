package compare

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// Runs loads and analyzes the run directories a and b and compares b with a.
func Runs(a, b string, o Options) (*Comparison, error) {
	da, err := Load(a, o.Quantum)
	if err != nil {
		return nil, fmt.Errorf("run A: %w", err)
	}
	db, err := Load(b, o.Quantum)
	if err != nil {
		return nil, fmt.Errorf("run B: %w", err)
	}
	return Compare(da, db, o), nil
}

// Load reads the run directory dir, analyzes it with the given quantum
// (0 = the experiment's own) and the default clock mode, and reduces it to
// Data.
func Load(dir string, quantum time.Duration) (*Data, error) {
	run, err := rundir.Load(dir, quantum, "")
	if err != nil {
		return nil, err
	}
	res, err := run.Analyze()
	if err != nil {
		return nil, err
	}
	calls, err := run.Calls()
	if err != nil {
		return nil, err
	}
	d := NewData(res, calls)
	d.Dir = dir
	return d, nil
}

// NewData reduces an analysis and the calls it was computed from to Data.
// Like the analyzer's throughput statistics, it keeps the quanta in which a
// tester was active (every quantum when there were no testers).
func NewData(res *analyze.Result, calls []analyze.Call) *Data {
	d := &Data{Name: res.Name, Summary: res.Summary}
	for _, q := range res.Quanta {
		if q.Active > 0 || len(res.Clients) == 0 {
			d.Throughput = append(d.Throughput, q.Throughput)
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
