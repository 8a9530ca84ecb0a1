package tester

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// EnvUDPDropEvery, when set to N > 0, makes a tester seal but not send
// every Nth datagram (the last one too, when its number comes): a test
// hook that loses datagrams for real, so that the controller's loss
// accounting can be checked against what was produced.
const EnvUDPDropEvery = "DIPERF_TEST_UDP_DROP_EVERY"

// udpOut sends the outbox's batches as datagrams of a UDP grant
// (docs/design/014-udp-samples.md): one sender per grant, nothing kept
// for a resend, a failed send counted.
type udpOut struct {
	conn       *net.UDPConn
	send       *protocol.UDPSender
	limit      int // the largest encoded batch a datagram carries
	sendErrors uint64
	dropEvery  uint64
}

// dialUDP makes the sender of grant g under the connection's keys k.
func dialUDP(k protocol.Keys, g *protocol.UDPDesc) (*udpOut, error) {
	s, err := protocol.NewUDPSender(k, *g)
	if err != nil {
		return nil, err
	}
	raddr, err := net.ResolveUDPAddr("udp", g.Addr)
	if err != nil {
		return nil, fmt.Errorf("udp: controller address %s: %w", g.Addr, err)
	}
	conn, err := net.DialUDP("udp", nil, raddr)
	if err != nil {
		return nil, fmt.Errorf("udp: dial %s: %w", g.Addr, err)
	}
	n, _ := strconv.ParseUint(os.Getenv(EnvUDPDropEvery), 10, 64)
	return &udpOut{conn: conn, send: s, limit: g.Datagram - protocol.UDPOverhead, dropEvery: n}, nil
}

// batch encodes into buf the next batch of samples that fits a datagram,
// seals and sends it; it returns the encoded batch (for the disk spool)
// and how many samples it took. Called with the outbox's sendMu held.
func (u *udpOut) batch(buf []byte, produced uint64, samples []sample.Sample) ([]byte, int, error) {
	buf, n := protocol.AppendBatchFit(buf[:0], produced, samples, u.limit)
	if n == 0 {
		return buf, 0, fmt.Errorf("udp: sample %d does not fit a datagram", samples[0].Seq)
	}
	d, err := u.send.SealPayload(uint16(n), buf)
	if err != nil {
		return buf, 0, err
	}
	if u.dropEvery > 0 && u.send.LastSeq()%u.dropEvery == 0 {
		return buf, n, nil // the test hook: sealed, numbered, never sent
	}
	if _, err := u.conn.Write(d); err != nil {
		u.sendErrors++ // not retried: its number is sealed, the controller counts it lost
	}
	return buf, n, nil
}

// close closes the socket.
func (u *udpOut) close() {
	if u != nil {
		u.conn.Close()
	}
}
