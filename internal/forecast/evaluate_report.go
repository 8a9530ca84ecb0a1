package forecast

import (
	"fmt"
	"os"
)

// Report is Gloperf §4's evaluation of a trace file, what `diperf sensor
// evaluate` prints (its JSON with --json).
type Report struct {
	Trace    string `json:"trace"`
	Baseline string `json:"baseline"`
	// Ensemble says how the row named adaptive forecasts.
	Ensemble string `json:"ensemble"`
	// ByTestTime is false when the trace has one test time (no test_time
	// column): its one series is Series[0].
	ByTestTime bool         `json:"by_test_time"`
	Series     []Evaluation `json:"series"`
}

// TraceError is a trace EvaluateFile refuses: the file does not open,
// is not a trace ReadTrace reads, or has a series too short to score.
// It is the input's fault, never the evaluation's.
type TraceError struct {
	Err  error
	Hint string // what to give instead, or "" when Err says it
}

// Error returns the cause's message.
func (e *TraceError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *TraceError) Unwrap() error { return e.Err }

// EvaluateFile reads the trace at path (ReadTrace) and evaluates each of
// its series with o. Every error is a *TraceError.
func EvaluateFile(path string, o Options) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &TraceError{fmt.Errorf("open trace: %w", err), "give a CSV file with columns time and value"}
	}
	defer f.Close()
	series, err := ReadTrace(f)
	if err != nil {
		return nil, &TraceError{fmt.Errorf("%s: %w", path, err), "columns: time (Unix seconds or RFC 3339), value, optionally test_time"}
	}
	if err := enoughPoints(path, series); err != nil {
		return nil, &TraceError{Err: err}
	}
	r := &Report{Trace: path, ByTestTime: len(series) > 1,
		Baseline: fmt.Sprintf("random: each forecast drawn uniformly from the series' whole range [min, max] (Gloperf §4), PCG seeded with %d", o.Seed),
		Ensemble: EnsembleDescription}
	for _, s := range series {
		x := Evaluate(s.Points, o)
		x.TestTime = s.TestTime
		r.Series = append(r.Series, x)
	}
	return r, nil
}

// enoughPoints refuses a trace with a series of fewer than two
// measurements: the first is only observed, so nothing would be scored.
func enoughPoints(path string, series []Series) error {
	for _, s := range series {
		if n := len(s.Points); n < 2 {
			what := "the trace has"
			if s.TestTime != "" {
				what = fmt.Sprintf("test time %q has", s.TestTime)
			}
			return fmt.Errorf("%s: %s %d measurement: a forecast is scored from the second on, give at least 2", path, what, n)
		}
	}
	return nil
}
