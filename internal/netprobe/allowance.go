package netprobe

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"time"
)

// Traffic is what a test's connection sent and received, counted at its
// socket by this end: handshake, test data and report. A test returns it
// even when it failed, so that a byte budget counts what was spent.
type Traffic struct {
	Sent, Received uint64
}

// Total is the bytes both ways.
func (t Traffic) Total() uint64 { return t.Sent + t.Received }

// ErrAllowance is wrapped by the error of a test whose byte allowance
// does not cover its own messages (MinBytes): it is not started.
var ErrAllowance = errors.New("netprobe: the byte allowance does not cover the test's own messages")

// handshakeBytes is a handshake's traffic: the nonce, the request, the
// answer.
const handshakeBytes = NonceSize + RequestSize + replySize

// MinBytes is the least traffic a test moves: its handshake, and a
// bandwidth test's report or one latency transaction of size bytes (0:
// DefaultMessage) each way.
func MinBytes(kind Kind, testTime time.Duration, size int) uint64 {
	if kind == KindBandwidth {
		bins := roundBins(testTime) / Bin
		return handshakeBytes + reportHead + 8*uint64(bins) + sha256.Size
	}
	if size == 0 {
		size = DefaultMessage
	}
	return handshakeBytes + 2*uint64(size)
}

// roundBins rounds a test time up to a whole number of Bin.
func roundBins(d time.Duration) time.Duration { return (d + Bin - 1) / Bin * Bin }

// dataAllowance is what a test may spend on its data within maxBytes of
// traffic (0: no cap), after the least it needs (least): the payload a
// bandwidth test may send, or a latency test's transactions.
func dataAllowance(maxBytes, least uint64) (uint64, error) {
	switch {
	case maxBytes == 0:
		return math.MaxUint64, nil
	case maxBytes < least:
		return 0, fmt.Errorf("%w: %d bytes allowed, the test's messages take %d", ErrAllowance, maxBytes, least)
	}
	return maxBytes - least, nil
}
