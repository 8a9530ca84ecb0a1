//go:build race

package directory

// raceEnabled is true when the tests run with the race detector, which
// makes each request some ten times slower: long floods are cut short.
const raceEnabled = true
