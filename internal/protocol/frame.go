// Package protocol is the controller-tester wire protocol: length-prefixed
// frames, each with a one-byte message type, over any stream (TCP today).
// Control messages are JSON; sample batches are binary.
//
// A connection starts with a handshake of plain frames of at most
// MaxHandshakeFrame bytes (Hello, Challenge, Auth, Welcome): the tester
// proves it holds the run's secret, the controller that it holds the
// run's private key, both bound to the slot, the tester id, the run, both
// nonces and both X25519 shares, and both derive per-connection session
// keys from the secret and the key exchange (SessionKeys). From
// then on (Conn.Secure) every frame carries its sequence number and a
// truncated HMAC-SHA256: a frame that was forged, altered, replayed,
// dropped or reordered is refused and ends the connection, never acted on.
// See docs/design/007-authenticated-sessions.md.
//
// The protocol is versioned in the Hello message; message types are only
// ever appended. Every length read from the wire is checked against a named
// limit before anything is allocated, and any malformed frame is an error
// that ends that connection, never the process.
package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Version is the protocol version this build speaks; the controller
// refuses a tester's Hello with another one. Version 2: the test
// description names its client's kind (TestDesc.Client), and sample
// batches start with their own version byte (BatchVersion). Version 3:
// proofs bind the whole handshake, and every frame after it carries a
// sequence number and a MAC under per-connection session keys
// (docs/design/007-authenticated-sessions.md); the controller
// acknowledges each batch once it is spooled (TypeAck). Version 4:
// heartbeats both ways (TypeHeartbeat, TestDesc.HeartbeatNs), and a tester
// that joined on its own asks for any slot (AnySlot). Version 5: many
// client loops per tester (TestDesc.ClientsPerTester,
// ClientStartIntervalNs), each sample carrying its client index
// (BatchVersion 3): an older tester would run one client where many were
// asked for. Version 6: client kinds http, tcp, udp and persistent, the
// open model (TestDesc.Rate), and samples carrying an intended start,
// HTTP phases and client extras (BatchVersion 4). Version 7: the
// acknowledgement is a fixed 8-byte binary frame (AppendAck), sent at most
// every AckEvery per tester with the highest Seq spooled so far, and the
// controller sends a heartbeat only to a tester it sent nothing else in
// the period. A version-6 tester is refused at its Hello ("protocol
// version 6 not supported (this controller speaks 7)"). Version 8: the
// test description's cadence grows with the run's testers (batch_ns,
// heartbeat_ns, and silence_ns, how long the controller may say nothing),
// a tester sends a heartbeat only when it sent nothing else, and the
// controller may grant a UDP session (TestDesc.UDP): the tester then sends
// its sample batches as datagrams (docs/design/014-udp-samples.md) and its
// Done carries UDPLastSeq and UDPSendErrors; a version-7 tester would
// ignore the grant, so it is refused at its Hello. Version 9: the
// controller proves itself with its own key, not the testers' secret
// (docs/design/017-trust-model.md): Hello and Challenge carry X25519
// shares, the Challenge names the run and proves nothing, and the
// controller's signature (TypeWelcome) follows the tester's Auth.
const Version = 9

// Limits on what a peer may send.
const (
	MaxFrame          = 1 << 20   // largest frame payload, bytes
	MaxHandshakeFrame = 4 << 10   // largest frame before the session is secured
	MaxBatchBytes     = 256 << 10 // largest encoded sample batch a tester sends
	MaxBatch          = 8192      // most samples in one batch
	MaxErrText        = 256       // longest per-sample error text, bytes
	MaxArgv           = 256       // most client arguments
	// MaxClientsPerTester bounds TestDesc.ClientsPerTester: concurrent
	// client loops in one tester.
	MaxClientsPerTester = 100_000
	// MaxClientIndex is the largest client index a sample may carry.
	MaxClientIndex = MaxClientsPerTester - 1
	MaxStringJSON  = 64 << 10
)

// Type identifies a message.
type Type uint8

// Message types. Append only.
const (
	TypeHello      Type = iota + 1 // tester → controller: who I am, my nonce
	TypeChallenge                  // controller → tester: its nonce, key share and run name
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
	TypeAck                        // controller → tester: samples up to this Seq are spooled (ack.go)
	TypeHeartbeat                  // either way: still here (no payload)
	TypeWelcome                    // controller → tester: its signature, once the tester proved itself
	TypeHealth                     // tester → controller: its self-health, per second (HealthBatch)
	TypeLoad                       // controller → tester: a step of the load it offers (LoadStep, load.go)
	typeEnd
)

var typeNames = [...]string{"", "hello", "challenge", "auth", "testdesc", "syncreq",
	"syncresp", "syncrecord", "started", "samples", "done", "stop", "error", "ack", "heartbeat", "welcome", "health", "load"}

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
// may come from many. Until Secure, frames are plain and at most
// MaxHandshakeFrame bytes; after it, each carries a sequence number and a
// MAC (see secure.go) and may be up to MaxFrame.
//
// A Conn holds a buffer only while a frame is in flight (connbuf.go): it
// reads into a pooled buffer that goes back once the frame was handled
// (with the next Read), and writes each frame with one write from a
// pooled buffer. An idle connection costs its goroutine and this struct.
type Conn struct {
	c     net.Conn
	rd    frameReader
	limit uint32 // largest frame body read now
	rsec  *secureState
	rerr  error // a read error ends the connection for good

	keys *Keys // the session keys, once secured (UDP sessions derive theirs)

	mu        sync.Mutex
	wsec      *secureState
	werr      error        // a write error too: a frame may have been cut off
	lastWrite atomic.Int64 // when the last frame was written whole (Unix ns)
}

// LastWrite is when the last frame was written whole (zero: none yet).
func (c *Conn) LastWrite() time.Time {
	if ns := c.lastWrite.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// NewConn frames c.
func NewConn(c net.Conn) *Conn {
	return &Conn{c: c, rd: newFrameReader(c), limit: MaxHandshakeFrame}
}

// Close closes the underlying connection.
func (c *Conn) Close() error { return c.c.Close() }

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.c.RemoteAddr() }

// SetReadDeadline sets the deadline of the next reads.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.c.SetReadDeadline(t) }

// Read reads one frame. The payload is valid until the next Read. On a
// secured connection a frame with a bad MAC or out of sequence is an error
// and so is every later Read: nothing after it is ever returned.
func (c *Conn) Read() (Type, []byte, error) {
	if c.rerr != nil {
		return 0, nil, c.rerr
	}
	t, body, err := c.rd.next(c.limit)
	if err == nil && c.rsec != nil {
		body, err = c.rsec.open(t, body)
	}
	if err != nil {
		c.rerr = err
		if c.rd.buf != nil {
			c.rd.release()
		}
		return 0, nil, err
	}
	return t, body, nil
}

// Write writes one frame with a single write.
func (c *Conn) Write(t Type, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, len(payload), MaxFrame)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	b := getBuf(frameHeader + len(payload) + SecureOverhead)
	frame := (*b)[:frameHeader]
	if c.wsec != nil {
		frame = c.wsec.seal(frame, t, payload)
	} else {
		frame = append(frame, payload...)
	}
	binary.BigEndian.PutUint32(frame[:4], uint32(len(frame)-frameHeader))
	frame[4] = byte(t)
	_, err := c.c.Write(frame)
	putBuf(b)
	if err != nil {
		c.werr = err
		return err
	}
	c.lastWrite.Store(time.Now().UnixNano())
	return nil
}

// ReadFrame reads one plain frame of at most MaxFrame bytes from r.
func ReadFrame(r io.Reader) (Type, []byte, error) {
	return readFrame(r, MaxFrame)
}

func readFrame(r io.Reader, limit uint32) (Type, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	t := Type(hdr[4])
	if n > limit {
		return 0, nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, n, limit)
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

// WriteFrame writes one plain frame to w without flushing.
func WriteFrame(w io.Writer, t Type, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, len(payload), MaxFrame)
	}
	return writeFrame(w, t, payload)
}

func writeFrame(w io.Writer, t Type, body []byte) error {
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(body)))
	hdr[4] = byte(t)
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}
