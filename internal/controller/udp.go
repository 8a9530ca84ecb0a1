package controller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// UDP sample transport (controller.transport: udp;
// docs/design/014-udp-samples.md): one socket for every tester, one
// reader goroutine, the samples ingested as a TCP batch is (ingest); the
// loss is counted per tester and never resent.
const (
	// UDPGrace is how long, after a tester's Done, the controller waits
	// for its datagrams still in flight (Done may overtake them) before
	// it counts the missing ones lost.
	UDPGrace = time.Second
	// udpPoll is how often that wait looks again.
	udpPoll = 5 * time.Millisecond
	// udpReadBuffer is the socket receive buffer asked for: bursts of
	// every tester's batch at once must not overflow it.
	udpReadBuffer = 64 << 20
	// EnvUDPReadBuffer, when set to a number of bytes, replaces the
	// receive buffer asked for (tests make it tiny to lose datagrams).
	EnvUDPReadBuffer = "DIPERF_UDP_RCVBUF"
)

// udpIngest is the controller's UDP socket and the sessions' accounting.
type udpIngest struct {
	conn    *net.UDPConn
	recv    *protocol.UDPReceiver
	addr    string // the grant's address: the advertised host, the socket's port
	granted int    // the receive buffer the kernel granted, bytes
	how     string // how it was set (SO_RCVBUFFORCE or SO_RCVBUF)
	done    chan struct{}
	grace   time.Duration
	sleep   func(time.Duration) // time.Sleep; tests wait on a fake clock
}

// udpSessionID is the session id of slot i: unique in the run, never 0.
func udpSessionID(slot int) uint32 { return uint32(slot) + 1 }

// startUDP opens the UDP socket on the listener's IP (any port) when the
// run's path says so (controller.transport: udp), and starts its reader.
func (c *controller) startUDP(ln net.Addr) error {
	if !c.path.UDPSamples {
		return nil
	}
	ta, ok := ln.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("controller.transport: udp needs a TCP listener, not %s", ln.Network())
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP})
	if err != nil {
		return fmt.Errorf("controller: UDP sample socket on %s: %w", ta.IP, err)
	}
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		conn.Close()
		return fmt.Errorf("controller: advertised address %q: %w", c.addr, err)
	}
	u := &udpIngest{conn: conn, recv: protocol.NewUDPReceiver(), done: make(chan struct{}), grace: UDPGrace, sleep: time.Sleep,
		addr: net.JoinHostPort(host, fmt.Sprint(conn.LocalAddr().(*net.UDPAddr).Port))}
	u.granted, u.how, err = setReadBuffer(conn, readBufferWanted())
	if err != nil {
		c.events.Add("udp-socket", -1, "", "receive buffer not set: "+err.Error())
	}
	c.events.Add("udp-socket", -1, "", fmt.Sprintf("%s (grant %s): receive buffer %d bytes granted (%s)",
		conn.LocalAddr(), u.addr, u.granted, u.how))
	c.udp = u
	go c.readUDP(u)
	return nil
}

// stopUDP closes the socket once every session has ended, waits for the
// reader and records the datagrams dropped, by reason.
func (c *controller) stopUDP() {
	u := c.udp
	if u == nil {
		return
	}
	u.conn.Close()
	<-u.done
	d := u.recv.Drops()
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, d[k])
	}
	c.events.Add("udp-drops", -1, "", strings.Join(parts, " "))
}

// readUDP reads the datagrams until the socket is closed: each opened
// (authenticated, accounted) one is ingested as its tester's batch.
func (c *controller) readUDP(u *udpIngest) {
	defer close(u.done)
	buf := make([]byte, protocol.MaxDatagram+1)
	for {
		n, err := u.conn.Read(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue // e.g. ECONNREFUSED reported by an ICMP error: nothing lost here
		}
		dg, err := u.recv.Open(buf[:n])
		if err != nil {
			continue // counted by reason (Drops)
		}
		c.onDatagram(dg)
	}
}

// onDatagram ingests an opened datagram's batch for its tester. A batch
// that does not decode (an authentic tester's bug) or cannot be spooled
// fails the tester, as on TCP.
func (c *controller) onDatagram(dg protocol.Datagram) {
	c.mu.Lock()
	s := c.slotFor(int(dg.Session) - 1)
	c.mu.Unlock()
	if s == nil {
		return
	}
	b, err := dg.DecodeBatch()
	if err == nil {
		_, err = c.ingest(s, dg.Batch, b, false)
	}
	if err != nil {
		c.mu.Lock()
		c.markFailed(s, "udp samples: "+err.Error())
		c.mu.Unlock()
	}
}

// udpGrant opens s's UDP session under conn's keys and returns its
// grant for the test description (nil: samples go over TCP). Called
// with c.mu held.
func (c *controller) udpGrant(s *slot, conn *protocol.Conn) (*protocol.UDPDesc, error) {
	if c.udp == nil {
		return nil, nil
	}
	k, ok := conn.Keys()
	if !ok {
		return nil, errors.New("udp: the connection is not secured")
	}
	id := udpSessionID(s.rec.Slot)
	if err := c.udp.recv.Add(id, k); err != nil {
		return nil, err
	}
	s.udp = id
	s.rec.UDP = true
	return &protocol.UDPDesc{Addr: c.udp.addr, Session: id, Datagram: protocol.DefaultDatagram}, nil
}

// udpDone ends s's UDP session at the tester's Done: it waits until no
// datagram up to its last is missing, or the grace period, then counts
// the rest lost and records the counts.
func (c *controller) udpDone(s *slot, m checkedDone) {
	c.mu.Lock()
	id := s.udp
	c.mu.Unlock()
	if id == 0 {
		return
	}
	if !m.lastOK { // its last datagram is unknown: as a session that ended without Done
		c.udpEnd(s)
		return
	}
	u := c.udp
	awaitMissing(func() uint64 { return u.recv.Missing(id, m.UDPLastSeq) }, u.grace, u.sleep)
	c.udpFinish(s, m.UDPLastSeq, m.UDPSendErrors, true)
}

// udpEnd ends s's UDP session if its Done did not (a failed or lost
// tester): the datagrams past the last received are unknown, so its
// datagram loss is a lower bound (udp_loss_exact false).
func (c *controller) udpEnd(s *slot) {
	c.mu.Lock()
	id := s.udp
	c.mu.Unlock()
	if id == 0 {
		return
	}
	st, _ := c.udp.recv.Stats(id)
	c.udpFinish(s, st.Highest, 0, false)
}

// udpFinish finishes s's session at last and records its counts.
func (c *controller) udpFinish(s *slot, last, sendErrors uint64, exact bool) {
	st, err := c.udp.recv.Finish(s.udp, last)
	c.udp.recv.Remove(s.udp)
	c.mu.Lock()
	defer c.mu.Unlock()
	s.udp = 0
	r := s.rec
	r.UDPDatagrams, r.UDPLost, r.UDPLate = st.Received, st.Lost, st.Late
	r.UDPDuplicates, r.UDPStale, r.UDPSendErrors, r.UDPLossExact = st.Duplicates, st.Stale, sendErrors, exact
	if err != nil {
		c.events.Add("udp-error", r.Slot, r.ID, err.Error())
	}
	if st.Lost > 0 || !exact {
		bound := ""
		if !exact {
			bound = "at least "
		}
		c.events.Add("udp-loss", r.Slot, r.ID, fmt.Sprintf("%s%d of %d datagrams lost (%d send errors)", bound, st.Lost, st.Last, sendErrors))
	}
}

// awaitMissing sleeps, a poll at a time, until missing() is 0 or grace
// has passed.
func awaitMissing(missing func() uint64, grace time.Duration, sleep func(time.Duration)) {
	for waited := time.Duration(0); missing() > 0 && waited < grace; waited += udpPoll {
		sleep(udpPoll)
	}
}

// readBufferWanted is the receive buffer to ask for: udpReadBuffer, or
// EnvUDPReadBuffer's bytes.
func readBufferWanted() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(EnvUDPReadBuffer), &n); err == nil && n > 0 {
		return n
	}
	return udpReadBuffer
}
