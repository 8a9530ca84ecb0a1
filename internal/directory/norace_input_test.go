//go:build !race

package directory

// raceEnabled is true when the tests run with the race detector.
const raceEnabled = false
