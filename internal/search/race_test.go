//go:build race

package search

// raceEnabled is true when the tests run with the race detector, which
// slows the histograms tenfold: the error-rate test then runs fewer seeds
// (the package has no concurrency for it to find).
const raceEnabled = true
