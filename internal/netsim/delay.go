package netsim

import (
	"math/rand/v2"
	"time"
)

// Delay is the one-way delay applied in one direction of a Path.
//
// Each packet (or, for TCP, each chunk read) is held for Base + U, where U is
// drawn independently per packet, uniformly from [0, Jitter). A Jitter of
// zero or less means a fixed delay of Base. A negative total is treated as 0.
type Delay struct {
	Base   time.Duration // fixed part of the delay
	Jitter time.Duration // width of the uniform random part, [0, Jitter)
}

// Draw returns one delay sample: Base plus a value uniform in [0, Jitter)
// taken from r, never negative. If r is nil the global source is used.
func (d Delay) Draw(r *rand.Rand) time.Duration {
	v := d.Base
	if d.Jitter > 0 {
		if r != nil {
			v += time.Duration(r.Int64N(int64(d.Jitter)))
		} else {
			v += time.Duration(rand.Int64N(int64(d.Jitter)))
		}
	}
	return max(v, 0)
}

// Path describes a simulated network path between a client and a server.
//
// Up applies to traffic from the client to the server (upstream), Down to
// traffic from the server back to the client; different values give an
// asymmetric route. Seed makes the jitter draws reproducible: the same Seed
// gives the same sequence of draws in each direction (for TCP, per
// connection in accept order).
type Path struct {
	Up   Delay  // client → server
	Down Delay  // server → client
	Seed uint64 // seed for the per-direction random sources
}

// Stream identifiers mixed into the seed so directions draw independently.
const (
	streamUp   = 0x7570 // "up"
	streamDown = 0x646f776e
)

// newRand returns a deterministic source for one direction of one flow.
func newRand(seed, flow, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, flow<<32^stream))
}
