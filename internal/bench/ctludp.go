package bench

import (
	"fmt"
	"net"
	"sync"

	"github.com/diperf/diperf/internal/protocol"
)

// udpSockets are the generator's UDP sockets, shared by its testers (a
// socket per tester would double the descriptors the generator needs):
// each tester has its own UDPSender (its own key and sequence numbers)
// and writes its datagrams on socket slot mod udpSocketCount.
var udpSockets struct {
	mu    sync.Mutex
	conns [udpSocketCount]*net.UDPConn
}

const udpSocketCount = 16

// udpSocket returns the shared socket of slot, opening it on first use.
func udpSocket(slot int) (*net.UDPConn, error) {
	udpSockets.mu.Lock()
	defer udpSockets.mu.Unlock()
	i := slot % udpSocketCount
	if udpSockets.conns[i] == nil {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, fmt.Errorf("udp socket: %w", err)
		}
		_ = c.SetWriteBuffer(4 << 20)
		udpSockets.conns[i] = c
	}
	return udpSockets.conns[i], nil
}

// udpLoad is a load tester's UDP session: its sender, where it sends and
// the datagrams its socket refused.
type udpLoad struct {
	send       *protocol.UDPSender
	conn       *net.UDPConn
	to         *net.UDPAddr
	sendErrors uint64
}

// newUDPLoad makes the sender of t's grant.
func newUDPLoad(t *loadTester) (*udpLoad, error) {
	k, ok := t.conn.Keys()
	if !ok {
		return nil, fmt.Errorf("tester %d: udp grant on an unsecured connection", t.slot)
	}
	s, err := protocol.NewUDPSender(k, *t.desc.UDP)
	if err != nil {
		return nil, fmt.Errorf("tester %d: %w", t.slot, err)
	}
	to, err := net.ResolveUDPAddr("udp", t.desc.UDP.Addr)
	if err != nil {
		return nil, fmt.Errorf("tester %d: %w", t.slot, err)
	}
	c, err := udpSocket(t.slot)
	if err != nil {
		return nil, fmt.Errorf("tester %d: %w", t.slot, err)
	}
	return &udpLoad{send: s, conn: c, to: to}, nil
}

// sendUDP seals t.samples into as many datagrams as they need and sends
// them; a refused send is counted, never retried (its number is sealed).
func (t *loadTester) sendUDP() {
	ss := t.samples
	for len(ss) > 0 {
		d, n, err := t.udp.send.SealBatch(t.produced, ss)
		if err != nil || n == 0 {
			return // cannot happen with the generator's small samples
		}
		if _, err := t.udp.conn.WriteToUDP(d, t.udp.to); err != nil {
			t.udp.sendErrors++
		}
		ss = ss[n:]
	}
}
