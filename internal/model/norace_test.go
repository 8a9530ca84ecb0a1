//go:build !race

package model

// raceEnabled is true when the tests run with the race detector.
const raceEnabled = false
