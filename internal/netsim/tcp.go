package netsim

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout bounds how long the TCPProxy waits to reach the upstream.
const dialTimeout = 5 * time.Second

// TCPProxy forwards TCP connections to one upstream address, delaying the
// byte stream in each direction according to a Path.
//
// Each chunk read from one side is written to the other at its read time
// plus a drawn delay, but never before the previous chunk of the same
// direction, so the stream stays in order even with jitter. When one side
// closes its sending half, the other side's sending half is closed after
// the queued data has been flushed; the connection pair is torn down once
// both directions are finished or either fails. At most queueChunks chunks
// are held per direction; beyond that reading pauses (back-pressure).
type TCPProxy struct {
	ln       net.Listener
	upstream string
	path     Path
	clk      clock
	done     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once

	mu     sync.Mutex
	conns  map[*tcpPair]struct{}
	closed bool

	accepted, bytesUp, bytesDown atomic.Uint64
}

// TCPStats is a snapshot of a TCPProxy's counters.
type TCPStats struct {
	Accepted  uint64 // connections accepted so far
	Active    int    // connection pairs currently open
	BytesUp   uint64 // bytes written to the upstream
	BytesDown uint64 // bytes written back to clients
}

// NewTCPProxy starts a proxy listening on the TCP address listen (for
// example "127.0.0.1:0"); each accepted connection is paired with a new
// connection to upstream and its traffic delayed per p.
func NewTCPProxy(listen, upstream string, p Path) (*TCPProxy, error) {
	return newTCPProxy(listen, upstream, p, realClock{})
}

// newTCPProxy is NewTCPProxy with delays on clk.
func newTCPProxy(listen, upstream string, p Path, clk clock) (*TCPProxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	x := &TCPProxy{ln: ln, upstream: upstream, path: p, clk: clk, done: make(chan struct{}),
		conns: make(map[*tcpPair]struct{})}
	x.wg.Add(1)
	go x.acceptLoop()
	return x, nil
}

// Addr returns the address clients should connect to.
func (x *TCPProxy) Addr() string { return x.ln.Addr().String() }

// Stats returns a snapshot of the proxy's counters.
func (x *TCPProxy) Stats() TCPStats {
	x.mu.Lock()
	active := len(x.conns)
	x.mu.Unlock()
	return TCPStats{Accepted: x.accepted.Load(), Active: active,
		BytesUp: x.bytesUp.Load(), BytesDown: x.bytesDown.Load()}
}

// Close stops accepting, closes every proxied connection at once (queued
// data is discarded) and waits for the proxy's goroutines to exit.
func (x *TCPProxy) Close() error {
	var err error
	x.once.Do(func() {
		close(x.done)
		err = x.ln.Close()
		x.mu.Lock()
		x.closed = true
		for c := range x.conns {
			c.abort()
		}
		x.mu.Unlock()
		x.wg.Wait()
	})
	return err
}

// acceptLoop accepts client connections until the listener is closed.
func (x *TCPProxy) acceptLoop() {
	defer x.wg.Done()
	for {
		c, err := x.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ready(x.done) {
				return
			}
			time.Sleep(5 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		id := x.accepted.Add(1)
		x.wg.Add(1)
		go x.serve(c, id)
	}
}

// serve dials the upstream for client and relays until both are done.
func (x *TCPProxy) serve(client net.Conn, id uint64) {
	defer x.wg.Done()
	server, err := net.DialTimeout("tcp", x.upstream, dialTimeout)
	if err != nil {
		client.Close()
		return
	}
	pair := &tcpPair{client: client, server: server, stop: make(chan struct{})}
	if !x.track(pair) {
		pair.abort()
		return
	}
	defer x.untrack(pair)
	up := newPipe(client, server, x.path.Up, newRand(x.path.Seed, id, streamUp), x.clk, &x.bytesUp)
	down := newPipe(server, client, x.path.Down, newRand(x.path.Seed, id, streamDown), x.clk, &x.bytesDown)
	pair.run(up, down)
}

// track registers an open pair; false if the proxy is closing.
func (x *TCPProxy) track(p *tcpPair) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false
	}
	x.conns[p] = struct{}{}
	return true
}

// untrack forgets a finished pair.
func (x *TCPProxy) untrack(p *tcpPair) {
	x.mu.Lock()
	delete(x.conns, p)
	x.mu.Unlock()
}
