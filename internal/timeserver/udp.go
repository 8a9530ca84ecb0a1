package timeserver

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/net/ipv4"
)

const (
	// batchSize is the most datagrams read (recvmmsg) or written
	// (sendmmsg) in one system call.
	batchSize = 64
	// readBufSize holds a request; longer datagrams are truncated, which
	// only makes them look at least RequestSize long, as they are.
	readBufSize = 64
	// udpLoops is the number of reader loops per socket: while one is in
	// the kernel reading, the other answers its batch.
	udpLoops = 2
	// socketBuffer is the receive and send buffer size asked for.
	socketBuffer = 8 << 20
)

// ListenUDP opens a UDP socket on addr for a Server, with kernel receive
// timestamps (SO_TIMESTAMPNS) and large socket buffers.
func ListenUDP(addr string) (*net.UDPConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	if err := tuneUDP(c, socketBuffer); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ServeUDP answers requests on c until ctx is done, then returns nil; it
// returns early with the error if reading fails. It does not close c: to
// stop, it sets c's read deadline, and clears it again before returning.
// T2 is the kernel receive timestamp when c has SO_TIMESTAMPNS set (as
// ListenUDP does), else the time right after the read.
func (s *Server) ServeUDP(ctx context.Context, c *net.UDPConn) error {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Unix(1, 0)) })
	pc := ipv4.NewPacketConn(c)
	errc := make(chan error, udpLoops)
	var wg sync.WaitGroup
	for range udpLoops {
		wg.Go(func() {
			errc <- newUDPLoop(s, pc).run(ctx)
			cancel() // stop the other loops too
		})
	}
	wg.Wait()
	stop()
	cancel()
	c.SetReadDeadline(time.Time{})
	close(errc)
	for err := range errc {
		if err != nil {
			return err
		}
	}
	return nil
}

// udpLoop is one reader loop with its own reusable buffers.
type udpLoop struct {
	s       *Server
	pc      *ipv4.PacketConn
	in, out []ipv4.Message
}

func newUDPLoop(s *Server, pc *ipv4.PacketConn) *udpLoop {
	l := &udpLoop{s: s, pc: pc, in: make([]ipv4.Message, batchSize), out: make([]ipv4.Message, batchSize)}
	reqs := make([]byte, batchSize*readBufSize)
	oobs := make([]byte, batchSize*oobSize)
	resps := make([]byte, batchSize*ResponseSize)
	for i := range batchSize {
		l.in[i].Buffers = [][]byte{reqs[i*readBufSize : (i+1)*readBufSize]}
		l.in[i].OOB = oobs[i*oobSize : (i+1)*oobSize]
		l.out[i].Buffers = [][]byte{resps[i*ResponseSize : (i+1)*ResponseSize]}
	}
	return l
}

// run reads, answers and writes batches until ctx is done (nil) or a read
// fails (the error).
func (l *udpLoop) run(ctx context.Context) error {
	for {
		n, err := l.pc.ReadBatch(l.in, 0)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		l.write(l.answer(n))
	}
}

// answer fills l.out with the responses to the n datagrams in l.in and
// returns how many there are.
func (l *udpLoop) answer(n int) int {
	after := time.Now()
	fallback := after.UnixNano()
	lim := l.s.lim
	now := lim.now(after)
	k, malformed, limited := 0, 0, 0
	lim.mu.Lock()
	for i := range n {
		m := &l.in[i]
		t1, ok := parseRequest(m.Buffers[0][:m.N])
		if !ok {
			malformed++
			continue
		}
		if !lim.allow(sourceIP(m.Addr), now) {
			limited++
			continue
		}
		t2, ok := kernelStamp(m.OOB[:m.NN])
		if !ok {
			t2 = fallback
		}
		putResponse(l.out[k].Buffers[0], t1, t2)
		l.out[k].Addr = m.Addr
		k++
	}
	lim.mu.Unlock()
	l.s.count(uint64(k), uint64(limited), uint64(malformed))
	return k
}

// write stamps T3 on the k responses in l.out and sends them, dropping a
// response the kernel refuses.
func (l *udpLoop) write(k int) {
	if k == 0 {
		return
	}
	t3 := time.Now().UnixNano()
	for i := range k {
		putT3(l.out[i].Buffers[0], t3)
	}
	for sent := 0; sent < k; {
		n, err := l.pc.WriteBatch(l.out[sent:k], 0)
		sent += n
		if err != nil {
			sent++ // skip the message that failed
		}
	}
	for i := range k {
		l.out[i].Addr = nil // do not keep client addresses alive
	}
}

// sourceIP returns the IP of a datagram's source address.
func sourceIP(a net.Addr) netip.Addr {
	if ua, ok := a.(*net.UDPAddr); ok {
		ip, _ := netip.AddrFromSlice(ua.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}

// count adds a batch's outcome to the Stats.
func (s *Server) count(answered, limited, malformed uint64) {
	if answered > 0 {
		s.answered.Add(answered)
	}
	if limited > 0 {
		s.rateLimited.Add(limited)
	}
	if malformed > 0 {
		s.malformed.Add(malformed)
	}
}
