package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// memBacklog is how many dialled connections a Memory listener holds
// before Accept takes them; beyond it a Dial is refused, as a full TCP
// backlog drops a connection.
const memBacklog = 128

// Memory is an in-memory network: listeners and connections live in this
// process and are addressed by name, so that controller, tester and time
// server can be tested together without a socket. A connection is a
// net.Pipe pair (synchronous: a write waits for the peer's read; deadlines
// work) whose ends know their addresses. Its waits are all on channels, so
// it runs inside a testing/synctest bubble. Safe for concurrent use; make
// one with NewMemory.
type Memory struct {
	mu        sync.Mutex
	listeners map[string]*memListener
	lastPort  int // port numbers handed out for ":0" addresses
	lastConn  int // dialled connections so far, to name their client ends
}

var _ Transport = (*Memory)(nil)

// NewMemory returns an empty in-memory network.
func NewMemory() *Memory { return &Memory{listeners: map[string]*memListener{}} }

// MemNetwork is the Network() of a Memory address.
const MemNetwork = "mem"

// memAddr is an address on a Memory network.
type memAddr string

func (a memAddr) Network() string { return MemNetwork }
func (a memAddr) String() string  { return string(a) }

// Listen listens on addr, any non-empty name. A name ending in ":0" gets a
// port number of its own (as TCP's port 0 does), which Addr shows, so
// that "host:0" addresses split into a host and a port like TCP's.
func (m *Memory) Listen(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, errors.New("transport: memory: listen on an empty address")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if host, ok := strings.CutSuffix(addr, ":0"); ok {
		m.lastPort++
		addr = host + ":" + strconv.Itoa(m.lastPort)
	}
	if _, taken := m.listeners[addr]; taken {
		return nil, &net.OpError{Op: "listen", Net: MemNetwork, Addr: memAddr(addr), Err: syscall.EADDRINUSE}
	}
	l := &memListener{m: m, addr: memAddr(addr), conns: make(chan net.Conn, memBacklog), done: make(chan struct{})}
	m.listeners[addr] = l
	return l, nil
}

// Dial connects to the listener at addr. It does not wait for Accept; it
// fails at once, with syscall.ECONNREFUSED, when nothing listens there.
func (m *Memory) Dial(ctx context.Context, addr string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	l := m.listeners[addr]
	m.lastConn++
	client := memAddr(fmt.Sprintf("%s-client-%d", MemNetwork, m.lastConn))
	m.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: MemNetwork, Addr: memAddr(addr), Err: syscall.ECONNREFUSED}
	if l == nil {
		return nil, refused
	}
	c, s := net.Pipe()
	if !l.enqueue(&memConn{Conn: s, local: l.addr, remote: client}) {
		c.Close()
		s.Close()
		return nil, refused
	}
	return &memConn{Conn: c, local: client, remote: l.addr}, nil
}

// memListener is one listening name of a Memory network.
type memListener struct {
	m      *Memory
	addr   memAddr
	conns  chan net.Conn // dialled, not yet accepted
	done   chan struct{} // closed by Close
	mu     sync.Mutex    // orders enqueue against Close
	closed bool
}

// enqueue hands a dialled connection to Accept; false when the listener
// is closed or its backlog is full.
func (l *memListener) enqueue(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	select {
	case l.conns <- c:
		return true
	default:
		return false
	}
}

// Accept waits for a dialled connection; after Close it returns an error
// that matches net.ErrClosed.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: MemNetwork, Addr: l.addr, Err: net.ErrClosed}
	case c := <-l.conns:
		return c, nil
	}
}

// Close frees the address and hangs up on connections not yet accepted.
func (l *memListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return &net.OpError{Op: "close", Net: MemNetwork, Addr: l.addr, Err: net.ErrClosed}
	}
	l.closed = true
	close(l.done)
	l.m.mu.Lock()
	delete(l.m.listeners, string(l.addr))
	l.m.mu.Unlock()
	for {
		select {
		case c := <-l.conns:
			c.Close()
		default:
			return nil
		}
	}
}

// Addr returns the address listened on, its port filled in.
func (l *memListener) Addr() net.Addr { return l.addr }

// memConn is one end of a Memory connection.
type memConn struct {
	net.Conn
	local, remote memAddr
}

func (c *memConn) LocalAddr() net.Addr  { return c.local }
func (c *memConn) RemoteAddr() net.Addr { return c.remote }
