package netprobe

import (
	"errors"
	"net"
	"time"
)

// ErrUnreachable is wrapped by every error of a test that never started:
// the far end did not connect, did not answer the handshake in time, or
// did not answer as a holder of the mesh token. Nothing was measured and
// no test data was sent; the caller backs the peer off.
var ErrUnreachable = errors.New("no test ran")

// The client's waits for a peer that does not connect or answer: a dead or
// black-holed peer costs seconds, not the ~130 s of the kernel's SYN
// retries (see AnswerTime).
const (
	// MinAnswerTime is the shortest: a round trip across the world and
	// the server's scheduling fit well within it.
	MinAnswerTime = time.Second
	// MaxAnswerTime is the longest: it lets a lost SYN be sent again once
	// (Linux retransmits it after 1 s, then 2 s more).
	MaxAnswerTime = 3 * time.Second
)

// AnswerTime is how long a client waits for the connection to a peer, and
// then for each of the peer's handshake messages (its nonce, its answer):
// the test time, from MinAnswerTime to MaxAnswerTime.
func AnswerTime(testTime time.Duration) time.Duration {
	return min(max(testTime, MinAnswerTime), MaxAnswerTime)
}

// countConn counts the bytes that pass its socket, in both directions.
// A session's reads and writes run on one goroutine, one at a time.
type countConn struct {
	net.Conn
	sent, received uint64
}

func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.received += uint64(n)
	return n, err
}

func (c *countConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.sent += uint64(n)
	return n, err
}

// total is what passed the socket so far, both ways.
func (c *countConn) total() uint64 { return c.sent + c.received }
