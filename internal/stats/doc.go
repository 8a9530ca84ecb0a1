// Package stats holds the order statistics that analyze, compare and model
// share, one definition each: the nearest-rank percentile and median, a
// selection of the k-th smallest value, the 95% bootstrap interval, the
// geometry of the response-time histograms (rthist.go), and the mergeable
// Bucket of calls, load and response times whose mean and percentiles
// every view of a run shows (bucket.go). It imports
// only the standard library, HdrHistogram and internal/jsonnum (an
// interval that is not finite is null in JSON).
//
// # Percentiles: nearest rank
//
// The p-th percentile of n sorted values is the value of rank ⌈p·n/100⌉
// (1-based, at least 1): an observed value, never an interpolation. The
// median is thus the lower middle value for an even n, and the 50th, 90th
// and 99th percentiles of 1..100 are 50, 90 and 99.
//
// # Bootstrap intervals: nearest rank too
//
// A 95% percentile-bootstrap interval is the 2.5th and 97.5th percentiles
// of the resampled estimates, by the same nearest-rank rule: the
// ⌈0.025·B⌉-th and ⌈0.975·B⌉-th smallest of B resamples. This is the order
// statistic Efron and Tibshirani define the percentile interval with
// (the B·α-th and B·(1−α)-th of B resamples when B·α is a whole number, as
// for the 200 refits of a model and the 1,000 or more resamples of a
// comparison). Linear interpolation between order statistics, which the
// model used to apply, moves a bound by a fraction of the gap between two
// neighbouring resamples, which is well inside the resampling noise of
// the bound itself; it buys no accuracy, and nearest rank keeps one meaning
// of "percentile" throughout the tool: every bound is an estimate one of
// the resamples actually gave.
package stats
