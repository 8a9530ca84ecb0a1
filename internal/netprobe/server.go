package netprobe

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Server limits and grace periods.
const (
	// MaxConns is how many connections of peers that proved themselves (a
	// request with the mesh token's proof) a Server handles at once; more
	// are closed at once. Connections not yet proved are held apart
	// (MaxUnproved) and never take one of these places.
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
	OverBudget      uint64 // tests refused by the Budget: the peer's share or the sensor's serving budget spent
	Cut             uint64 // tests cut short: past their byte allowance, or a latency client that sent ahead of its answers
}

// Budget decides which tests of peers that proved themselves a Server
// serves, and hears what each cost.
type Budget interface {
	// Serve is asked before a test of testTime for peer (its source
	// address, preauth.Source). An error refuses the test: the peer is
	// answered "refused" and the error is not sent. Else maxBytes bounds
	// what the test may move (0: no bound) and done is called once the
	// test is over with the time it took and the bytes it moved.
	Serve(peer string, testTime time.Duration) (maxBytes uint64, done func(took time.Duration, bytes uint64), err error)
}

// Server is the far end of the tests: it receives bandwidth streams and
// echoes latency transactions for the peers that hold the mesh token.
type Server struct {
	// Budget, when set, decides which tests are served (nil: all).
	Budget Budget
	// Log hears the tests cut short and refused by the Budget (nil:
	// silent).
	Log func(string)

	token []byte
	slot  *Slot
	conns chan struct{}
	pool  *preauth.Pool

	bwServed, rrServed, busy, refused, overBudget, cut atomic.Uint64
	refusalLog                                         every

	mu     sync.Mutex
	active map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// NewServer returns a server for the holders of token (at least 16 bytes)
// whose bandwidth tests take slot (a new one when nil). Set Budget and
// Log before Serve.
func NewServer(token []byte, slot *Slot) (*Server, error) {
	if len(token) < 16 {
		return nil, fmt.Errorf("netprobe: the mesh token has %d bytes; want at least 16", len(token))
	}
	if slot == nil {
		slot = &Slot{}
	}
	return &Server{token: append([]byte(nil), token...), slot: slot,
		conns: make(chan struct{}, MaxConns), pool: preauth.NewPool(unprovedLimits),
		active: map[net.Conn]struct{}{}}, nil
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{BandwidthServed: s.bwServed.Load(), LatencyServed: s.rrServed.Load(),
		Busy: s.busy.Load(), Refused: s.refused.Load(), OverBudget: s.overBudget.Load(), Cut: s.cut.Load()}
}

// Serve accepts connections on ln until ln is closed, then closes the
// connections it is serving, waits for their handlers and returns nil.
// Each connection is first counted among those not yet proved (a pool of
// its own, see MaxUnproved), and is refused at once when there is no room.
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
		e, err := s.pool.Admit(c)
		if err != nil {
			s.refused.Add(1)
			c.Close()
			continue
		}
		s.track(c, true)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.track(c, false)
			defer c.Close()
			s.serveConn(c, e)
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
	s.pool.CloseAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.active {
		c.Close()
	}
}

// handle runs one connection that no pool counts: nonce, request, proof,
// then the test.
func (s *Server) handle(c net.Conn) { s.serveConn(c, nil) }
