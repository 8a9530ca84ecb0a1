//go:build race

package directory

// raceOn: the race detector is on (times mean nothing, and SQLite runs
// ten times slower).
const raceOn = true
