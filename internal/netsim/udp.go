package netsim

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// MaxHeld is the most datagrams a UDPProxy holds at once, over both
// directions; datagrams arriving beyond it are dropped and counted.
const MaxHeld = 65536

// IdleTimeout is how long a client's upstream socket may see no traffic in
// either direction before the UDPProxy closes it.
const IdleTimeout = time.Minute

// maxDatagram is the largest UDP payload the proxy can carry.
const maxDatagram = 65535

// udpConfig holds the tunables of a UDPProxy (overridden only in tests).
type udpConfig struct {
	maxHeld int
	idle    time.Duration
	clock   clock // nil: realClock
}

// UDPProxy forwards datagrams between clients and one upstream address,
// delaying each one according to a Path.
//
// Every client source address gets its own upstream socket, so replies are
// routed back to the client they belong to. Each datagram is delivered at
// its own due time, arrival time plus a freshly drawn delay, even if that is
// earlier than the due time of a datagram received before it: with jitter,
// datagrams may be reordered, as on a real network.
type UDPProxy struct {
	conn     *net.UDPConn
	upstream *net.UDPAddr
	cfg      udpConfig
	budget   budget
	up, down *scheduler
	done     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once

	mu       sync.Mutex
	sessions map[netip.AddrPort]*udpSession
	closed   bool

	fwdUp, fwdDown, dropped atomic.Uint64
}

// UDPStats is a snapshot of a UDPProxy's counters.
type UDPStats struct {
	ForwardedUp   uint64 // datagrams delivered to the upstream
	ForwardedDown uint64 // datagrams delivered back to clients
	Dropped       uint64 // datagrams discarded: held bound reached, or a failed write
	Held          int    // datagrams currently held in either direction
	Clients       int    // live per-client upstream sockets
}

// NewUDPProxy starts a proxy listening on the UDP address listen (for
// example "127.0.0.1:0") that forwards to upstream with the delays of p.
func NewUDPProxy(listen string, upstream string, p Path) (*UDPProxy, error) {
	return newUDPProxy(listen, upstream, p, udpConfig{maxHeld: MaxHeld, idle: IdleTimeout})
}

// newUDPProxy is NewUDPProxy with explicit tunables.
func newUDPProxy(listen, upstream string, p Path, cfg udpConfig) (*UDPProxy, error) {
	up, err := net.ResolveUDPAddr("udp", upstream)
	if err != nil {
		return nil, err
	}
	la, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, err
	}
	x := &UDPProxy{conn: conn, upstream: up, cfg: cfg, done: make(chan struct{}),
		sessions: make(map[netip.AddrPort]*udpSession)}
	x.budget.max = int64(cfg.maxHeld)
	if x.cfg.clock == nil {
		x.cfg.clock = realClock{}
	}
	clk := x.cfg.clock
	x.up = newScheduler(p.Up, newRand(p.Seed, 0, streamUp), &x.budget, clk, x.done, x.deliverUp)
	x.down = newScheduler(p.Down, newRand(p.Seed, 0, streamDown), &x.budget, clk, x.done, x.deliverDown)
	x.goRun(x.up.run, x.down.run, x.readLoop, x.janitor)
	return x, nil
}

// goRun starts each function in a goroutine tracked by the wait group.
func (x *UDPProxy) goRun(fns ...func()) {
	for _, fn := range fns {
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			fn()
		}()
	}
}

// Addr returns the address clients should send to, e.g. "127.0.0.1:40123".
func (x *UDPProxy) Addr() string { return x.conn.LocalAddr().String() }

// Stats returns a snapshot of the proxy's counters.
func (x *UDPProxy) Stats() UDPStats {
	x.mu.Lock()
	clients := len(x.sessions)
	x.mu.Unlock()
	return UDPStats{
		ForwardedUp:   x.fwdUp.Load(),
		ForwardedDown: x.fwdDown.Load(),
		Dropped:       x.dropped.Load(),
		Held:          int(max(x.budget.held.Load(), 0)),
		Clients:       clients,
	}
}

// Close stops the proxy, closes all its sockets and discards held
// datagrams. It waits for the proxy's goroutines to exit.
func (x *UDPProxy) Close() error {
	var err error
	x.once.Do(func() {
		close(x.done)
		err = x.conn.Close()
		x.mu.Lock()
		x.closed = true
		for k, s := range x.sessions {
			s.conn.Close()
			delete(x.sessions, k)
		}
		x.mu.Unlock()
		x.wg.Wait()
	})
	return err
}

// readLoop receives client datagrams and schedules them upstream.
func (x *UDPProxy) readLoop() {
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := x.conn.ReadFromUDPAddrPort(buf)
		now := x.cfg.clock.now()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ready(x.done) {
				return
			}
			continue
		}
		s := x.session(from, now)
		if s == nil || !x.up.schedule(now, s, bytes.Clone(buf[:n])) {
			x.dropped.Add(1)
		}
	}
}

// deliverUp writes a held datagram to the upstream.
func (x *UDPProxy) deliverUp(p packet) {
	if _, err := p.sess.conn.Write(p.data); err != nil {
		x.dropped.Add(1)
		return
	}
	x.fwdUp.Add(1)
}

// deliverDown writes a held reply back to its client.
func (x *UDPProxy) deliverDown(p packet) {
	if _, err := x.conn.WriteToUDPAddrPort(p.data, p.sess.client); err != nil {
		x.dropped.Add(1)
		return
	}
	x.fwdDown.Add(1)
}
