package sensor

import "math/rand/v2"

// Kind is what a test measures.
type Kind string

// Test kinds.
const (
	Bandwidth Kind = "bandwidth" // a TCP stream for the test time (netperf TCP_STREAM)
	Latency   Kind = "latency"   // TCP request/response transactions (netperf TCP_RR)
)

// Test is one entry of a sensor's list: a test of kind to peer.
type Test struct {
	Peer Peer
	Kind Kind
	// MaxBytes is what the test may send and receive, both ways, within
	// the byte budget (0: no cap); the loop sets it before each test.
	MaxBytes float64
}

// Plan is Gloperf's randomized list: a bandwidth test and a latency test
// to each peer, shuffled by rng.
func Plan(peers []Peer, rng *rand.Rand) []Test {
	tests := make([]Test, 0, 2*len(peers))
	for _, p := range peers {
		tests = append(tests, Test{Peer: p, Kind: Bandwidth}, Test{Peer: p, Kind: Latency})
	}
	rng.Shuffle(len(tests), func(i, j int) { tests[i], tests[j] = tests[j], tests[i] })
	return tests
}
