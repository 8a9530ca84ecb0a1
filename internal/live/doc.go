// Package live keeps what a run's controller knows while the run goes, as
// per-second aggregates on the global timeline: calls ended per second by
// outcome, the mean offered load (calls in flight) of each second, the
// response-time percentiles of each second (from an HDR histogram kept only
// while the second is still filling), the testers' states, counts and
// clock bounds, and errors by class with their latest messages. Raw samples
// are never kept here: memory grows with the run's seconds and testers, not
// with its calls.
//
// The dashboard, the controller's Prometheus /metrics, the progress line
// and threshold aborts read it. A second is provisional until Lag after it
// ends (samples arrive in batches); then its percentiles are fixed and its
// histogram is handed to the Final hooks and dropped. Samples that arrive
// later still count in its calls and load, not in its percentiles.
package live
