package pipeline

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/threshold"
)

// Derived is what DeriveAll found in a run directory, as its files say
// it: the analysis (summary.json's summary, quanta.csv, clients.csv), the
// experiment's thresholds checked on it (summary.json's thresholds), and
// the name of the experiment the run recorded (experiment.yaml's).
type Derived struct {
	Analysis   *analyze.Result
	Thresholds []threshold.Result
	Name       string
}

// Derive is DeriveAll's analysis alone; nil when the analysis failed
// before summary.json was written.
func Derive(dir string, o Options) (*analyze.Result, error) {
	d, err := DeriveAll(dir, o)
	if d == nil {
		return nil, err
	}
	return d.Analysis, err
}
