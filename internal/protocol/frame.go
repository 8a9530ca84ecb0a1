// Package protocol is the controller-tester wire protocol: length-prefixed
// frames, each with a one-byte message type, over any stream (TCP today).
// Control messages are JSON; sample batches are binary.
// The protocol is versioned in the Hello message; message types are only
// ever appended. Every length read from the wire is checked against a named
// limit before anything is allocated, and any malformed frame is an error
// that ends that connection, never the process.
package protocol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Version is the protocol version this build speaks; the controller
// refuses a tester's Hello with another one. Version 2: the test
// description names its client's kind (TestDesc.Client), and sample
// batches start with their own version byte (BatchVersion).
const Version = 2

// Limits on what a peer may send.
const (
	MaxFrame      = 1 << 20 // largest frame payload, bytes
	MaxBatch      = 8192    // most samples in one batch
	MaxErrText    = 256     // longest per-sample error text, bytes
	MaxArgv       = 256     // most client arguments
	MaxStringJSON = 64 << 10
)

// Type identifies a message.
type Type uint8

// Message types. Append only.
const (
	TypeHello      Type = iota + 1 // tester → controller: who I am, my nonce
	TypeChallenge                  // controller → tester: proof of the secret, its nonce
	TypeAuth                       // tester → controller: proof of the secret
	TypeTestDesc                   // controller → tester: what to run
	TypeSyncReq                    // reserved: clock probes now go to the time server
	TypeSyncResp                   // reserved: clock probes now go to the time server
	TypeSyncRecord                 // tester → controller: the result of one sync
	TypeStarted                    // tester → controller: client loop started
	TypeSamples                    // tester → controller: a batch of samples
	TypeDone                       // tester → controller: finished, with counts
	TypeStop                       // controller → tester: stop now
	TypeError                      // either way: fatal error text, then close
	typeEnd
)

var typeNames = [...]string{"", "hello", "challenge", "auth", "testdesc", "syncreq",
	"syncresp", "syncrecord", "started", "samples", "done", "stop", "error"}

// String names the type.
func (t Type) String() string {
	if t > 0 && t < typeEnd {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// ErrFrameTooLarge is returned for a frame over MaxFrame.
var ErrFrameTooLarge = errors.New("protocol: frame too large")

// Conn is one framed connection. Reads must come from one goroutine; writes
// may come from many.
type Conn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex
	w  *bufio.Writer
}

// NewConn frames c.
func NewConn(c net.Conn) *Conn {
	return &Conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10)}
}

// Close closes the underlying connection.
func (c *Conn) Close() error { return c.c.Close() }

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.c.RemoteAddr() }

// SetReadDeadline sets the deadline of the next reads.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.c.SetReadDeadline(t) }

// Read reads one frame. The payload is valid until the next Read.
func (c *Conn) Read() (Type, []byte, error) {
	return ReadFrame(c.r)
}

// Write writes one frame and flushes it.
func (c *Conn) Write(t Type, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := WriteFrame(c.w, t, payload); err != nil {
		return err
	}
	return c.w.Flush()
}

// ReadFrame reads one frame from r.
func ReadFrame(r io.Reader) (Type, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	t := Type(hdr[4])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, n, MaxFrame)
	}
	if t == 0 || t >= typeEnd {
		return 0, nil, fmt.Errorf("protocol: unknown message type %d", hdr[4])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, nil, fmt.Errorf("protocol: short frame: %w", err)
	}
	return t, buf, nil
}

// WriteFrame writes one frame to w without flushing.
func WriteFrame(w io.Writer, t Type, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, len(payload), MaxFrame)
	}
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(payload)))
	hdr[4] = byte(t)
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}
