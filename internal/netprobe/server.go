package netprobe

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Server limits and grace periods.
const (
	// MaxConns is how many connections a Server handles at once; more are
	// closed at once.
	MaxConns = 32
	// handshakeTimeout bounds the wait for a request.
	handshakeTimeout = 5 * time.Second
	// grace is how long past its test time a connection may live.
	grace = 5 * time.Second
	// drainTime bounds the receiver's discarding of data that arrives
	// after its counting window.
	drainTime = 2 * time.Second
)

// Stats counts what a Server did.
type Stats struct {
	BandwidthServed uint64 // bandwidth tests received to the end and reported
	LatencyServed   uint64 // latency tests that ran at least one transaction
	Busy            uint64 // bandwidth tests refused because the slot was held
	Refused         uint64 // connections closed without a test: no or a wrong proof, a malformed request, too many connections
}

// Server is the far end of the tests: it receives bandwidth streams and
// echoes latency transactions for the peers that hold the mesh token.
type Server struct {
	token []byte
	slot  *Slot
	conns chan struct{}

	bwServed, rrServed, busy, refused atomic.Uint64

	mu     sync.Mutex
	active map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// NewServer returns a server for the holders of token (at least 16 bytes)
// whose bandwidth tests take slot (a new one when nil).
func NewServer(token []byte, slot *Slot) (*Server, error) {
	if len(token) < 16 {
		return nil, fmt.Errorf("netprobe: the mesh token has %d bytes; want at least 16", len(token))
	}
	if slot == nil {
		slot = &Slot{}
	}
	return &Server{token: append([]byte(nil), token...), slot: slot,
		conns: make(chan struct{}, MaxConns), active: map[net.Conn]struct{}{}}, nil
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{BandwidthServed: s.bwServed.Load(), LatencyServed: s.rrServed.Load(),
		Busy: s.busy.Load(), Refused: s.refused.Load()}
}

// Serve accepts connections on ln until ln is closed, then closes the
// connections it is serving, waits for their handlers and returns nil.
func (s *Server) Serve(ln net.Listener) error {
	defer s.wg.Wait()
	defer s.closeActive()
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return fmt.Errorf("netprobe: accept: %w", err)
		}
		select {
		case s.conns <- struct{}{}:
		default:
			s.refused.Add(1)
			c.Close()
			continue
		}
		s.track(c, true)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.conns }()
			defer s.track(c, false)
			defer c.Close()
			s.handle(c)
		}()
	}
}

func (s *Server) track(c net.Conn, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.active[c] = struct{}{}
	} else {
		delete(s.active, c)
	}
}

func (s *Server) closeActive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.active {
		c.Close()
	}
}

// handle runs one connection: nonce, request, proof, then the test.
func (s *Server) handle(c net.Conn) {
	start := time.Now()
	_ = c.SetDeadline(start.Add(handshakeTimeout))
	nonce := newNonce()
	if _, err := c.Write(nonce); err != nil {
		s.refused.Add(1)
		return
	}
	raw := make([]byte, RequestSize)
	if _, err := io.ReadFull(c, raw); err != nil {
		s.refused.Add(1)
		return
	}
	req, err := ParseRequest(s.token, nonce, raw)
	if err != nil {
		s.refused.Add(1)
		return
	}
	body := raw[:requestBody]
	if req.Kind == KindBandwidth && !s.slot.TryAcquire() {
		s.busy.Add(1)
		_, _ = c.Write(append([]byte{statusBusy}, replyMAC(s.token, nonce, body, statusBusy)...))
		return
	}
	if req.Kind == KindBandwidth {
		defer s.slot.Release()
	}
	_ = c.SetDeadline(time.Now().Add(req.TestTime + grace))
	if _, err := c.Write(append([]byte{statusOK}, replyMAC(s.token, nonce, body, statusOK)...)); err != nil {
		return
	}
	switch req.Kind {
	case KindBandwidth:
		if receive(c, req.TestTime, s.token, nonce, body) == nil {
			s.bwServed.Add(1)
			drain(c)
		}
	case KindLatency:
		if echo(c, req.Size) > 0 {
			s.rrServed.Add(1)
		}
	}
}

// receive counts what arrives for testTime in bins and sends the report.
func receive(c net.Conn, testTime time.Duration, token, nonce, request []byte) error {
	t0 := time.Now()
	end := t0.Add(testTime)
	_ = c.SetReadDeadline(end)
	rep := report{Elapsed: testTime, Bins: make([]uint64, testTime/Bin)}
	buf := make([]byte, 128<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			i := min(int(time.Since(t0)/Bin), len(rep.Bins)-1)
			rep.Bins[i] += uint64(n)
		}
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return fmt.Errorf("netprobe: receiving: %w", err)
			}
			break
		}
	}
	_ = c.SetWriteDeadline(time.Now().Add(grace))
	if _, err := c.Write(encodeReport(token, nonce, request, rep)); err != nil {
		return fmt.Errorf("netprobe: sending the report: %w", err)
	}
	return nil
}

// drain discards what still arrives after the counting window, until the
// sender closes or for at most drainTime, so that the report is not lost
// to a reset of a connection closed with unread data.
func drain(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.Copy(io.Discard, c)
}

// echo answers size-byte requests with size bytes until the client closes
// (or the deadline passes) and returns the transactions served.
func echo(c net.Conn, size int) int {
	buf := make([]byte, size)
	n := 0
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return n
		}
		if _, err := c.Write(buf); err != nil {
			return n
		}
		n++
	}
}
