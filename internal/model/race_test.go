//go:build race

package model

// raceEnabled is true when the tests run with the race detector, which
// slows the analyzer tenfold: the known-answer test then simulates fewer
// runs of each case.
const raceEnabled = true
