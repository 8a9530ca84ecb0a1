package timeserver

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/ipv4"
)

const (
	// batchSize is the most datagrams read (recvmmsg) or written
	// (sendmmsg) in one system call.
	batchSize = 64
	// readBufSize holds a response for a Client; a longer datagram is
	// truncated, which still shows it as too long.
	readBufSize = 64
	// recvBufSize holds any UDP datagram, and so any read of datagrams
	// coalesced by the kernel (GRO), which stays under 64 KiB.
	recvBufSize = 64 << 10
	// maxReadRequests is the most requests one read can hold.
	maxReadRequests = (recvBufSize + RequestSize - 1) / RequestSize
	// replyCap is the number of replies a loop buffers before sending:
	// those to a batch of reads of maxGSOSegments requests each.
	replyCap = batchSize * maxGSOSegments
	// outCap is the number of messages a loop buffers before sending: one
	// per read, plus one more per maxGSOSegments replies.
	outCap = batchSize + replyCap/maxGSOSegments
	// udpLoops is the number of reader loops per socket: while one is in
	// the kernel reading, the other answers its batch.
	udpLoops = 2
	// socketBuffer is the receive and send buffer size asked for.
	socketBuffer = 8 << 20
)

// The replies to any one read fit in an empty output, so that answering
// always makes progress (these fail to compile otherwise).
const (
	_ uint = replyCap - maxReadRequests
	_ uint = outCap - (maxReadRequests+maxGSOSegments-1)/maxGSOSegments
)

// ListenUDP opens a UDP socket on addr for a Server, with kernel receive
// timestamps (SO_TIMESTAMPNS), large socket buffers and, where the kernel
// offers it, datagrams from one source read coalesced (UDP_GRO).
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
	enableGRO(c) // without it, reads are one datagram each
	return c, nil
}

// ServeUDP answers requests on c until ctx is done, then returns nil; it
// returns early with the error if reading fails. It does not close c: to
// stop, it sets c's read deadline, and clears it again before returning.
// T2 is the kernel receive timestamp when c has SO_TIMESTAMPNS set (as
// ListenUDP does), else the time right after the read. When c has UDP_GRO
// set (as ListenUDP does where it can), the replies to requests read
// coalesced go back coalesced too, as one segmented send (UDP_SEGMENT).
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

// udpLoop is one reader loop with its own reusable buffers. The replies
// to send are nrep responses in replies, sent by the first nout messages
// of out, each carrying one or (segmented) several replies to one source.
type udpLoop struct {
	s       *Server
	pc      *ipv4.PacketConn
	in      []ipv4.Message
	out     []ipv4.Message
	nout    int
	replies []byte
	nrep    int
	// singles sends a segmented message one datagram at a time.
	singles []ipv4.Message
	// segCmsg asks for a send cut into ResponseSize datagrams.
	segCmsg []byte
	// gso is whether segmented sends work; the kernel refusing one
	// clears it.
	gso bool
	// keys[i] is the key the i-th reply is sealed with (nil: none).
	keys []*keyState
	mac  *macer
}

func newUDPLoop(s *Server, pc *ipv4.PacketConn) *udpLoop {
	l := &udpLoop{
		s: s, pc: pc,
		in:      make([]ipv4.Message, batchSize),
		out:     make([]ipv4.Message, outCap),
		replies: make([]byte, replyCap*ResponseSize),
		singles: make([]ipv4.Message, batchSize),
		segCmsg: segmentCmsg(ResponseSize),
		gso:     true,
		keys:    make([]*keyState, replyCap),
		mac:     newMacer(),
	}
	reqs := make([]byte, batchSize*recvBufSize)
	oobs := make([]byte, batchSize*oobSize)
	for i := range batchSize {
		l.in[i].Buffers = [][]byte{reqs[i*recvBufSize : (i+1)*recvBufSize]}
		l.in[i].OOB = oobs[i*oobSize : (i+1)*oobSize]
	}
	for i := range l.out {
		l.out[i].Buffers = make([][]byte, 1)
	}
	for i := range l.singles {
		l.singles[i].Buffers = make([][]byte, 1)
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
		for next := 0; next < n; {
			next = l.answer(next, n)
			l.write()
		}
	}
}

// tally counts what became of the requests of a batch.
type tally struct{ answered, limited, malformed, unauthentic uint64 }

// answer buffers the replies to the reads l.in[from:n], as many reads as
// the buffers hold, and returns the index of the first read left over.
func (l *udpLoop) answer(from, n int) int {
	after := time.Now()
	fallback := after.UnixNano()
	lim := l.s.lim
	now := lim.now(after)
	var t tally
	i := from
	lim.mu.Lock()
	for ; i < n && l.room(&l.in[i]); i++ {
		l.answerRead(&l.in[i], now, fallback, &t)
	}
	lim.mu.Unlock()
	l.s.count(t)
	return i
}

// room reports whether the buffers have room for the replies to read m.
func (l *udpLoop) room(m *ipv4.Message) bool {
	k := segmentCount(m.N, segmentOf(m.N, m.OOB[:m.NN]))
	msgs := (k + maxGSOSegments - 1) / maxGSOSegments
	return l.nrep+k <= replyCap && l.nout+msgs <= len(l.out)
}

// answerRead buffers the replies to the requests of read m: one datagram,
// or several from one source that the kernel coalesced (GRO), each of
// which is a request checked and rate-limited on its own. now is on the
// limiter's timeline, whose lock the caller holds, and fallback is T2 if
// m has no kernel timestamp.
func (l *udpLoop) answerRead(m *ipv4.Message, now, fallback int64, t *tally) {
	data, oob := m.Buffers[0][:m.N], m.OOB[:m.NN]
	seg := segmentOf(len(data), oob)
	// Coalesced datagrams arrived together and share the read's one
	// kernel timestamp: it is the T2 of each of them.
	t2, ok := kernelStamp(oob)
	if !ok {
		t2 = fallback
	}
	src := sourceIP(m.Addr)
	first := l.nrep
	for i := range segmentCount(len(data), seg) {
		l.answerOne(data[min(i*seg, len(data)):min((i+1)*seg, len(data))], src, now, t2, t)
	}
	l.queue(first, m.Addr)
}

// answerOne buffers the reply to request p from src, if it is a valid
// request, authentic and within src's rate.
func (l *udpLoop) answerOne(p []byte, src netip.Addr, now, t2 int64, t *tally) {
	r, ok := parseRequest(p)
	if !ok {
		t.malformed++
		return
	}
	k, ok := l.s.authenticate(l.mac, p, r)
	switch {
	case !ok:
		t.unauthentic++
	case !l.s.lim.allow(src, now):
		t.limited++
	default:
		putResponse(l.reply(l.nrep), p, r, t2)
		l.keys[l.nrep] = k
		l.nrep++
		t.answered++
	}
}

// reply returns the buffer of the i-th reply.
func (l *udpLoop) reply(i int) []byte { return l.replies[i*ResponseSize : (i+1)*ResponseSize] }

// queue adds messages sending the replies from the first-th on to addr,
// at most maxGSOSegments in each; several in one message are segmented:
// the kernel cuts them into ResponseSize datagrams.
func (l *udpLoop) queue(first int, addr net.Addr) {
	for first < l.nrep {
		k := min(l.nrep-first, maxGSOSegments)
		m := &l.out[l.nout]
		m.Buffers[0] = l.replies[first*ResponseSize : (first+k)*ResponseSize]
		m.Addr = addr
		m.OOB = nil
		if k > 1 {
			m.OOB = l.segCmsg
		}
		l.nout++
		first += k
	}
}

// write stamps T3 on the buffered replies, seals those to authenticated
// requests, and sends them, dropping a datagram the kernel refuses, then
// empties the buffers. T3 is read before the seals: a reply leaves later
// than its T3 says, which lengthens the round trip the tester measures by
// as much, and so its error bound (δ/2) covers it.
func (l *udpLoop) write() {
	if l.nout == 0 {
		return
	}
	l.stamp()
	out := l.out[:l.nout]
	if l.gso {
		l.sendSegmented(out)
	} else {
		l.sendSingly(out)
	}
	for i := range out {
		out[i].Addr = nil // do not keep client addresses alive
		out[i].Buffers[0] = nil
	}
	l.nout, l.nrep = 0, 0
}

// stamp sets T3 on the buffered replies and seals those to authenticated
// requests.
func (l *udpLoop) stamp() {
	t3 := time.Now().UnixNano()
	for i := range l.nrep {
		putT3(l.reply(i), t3)
		if k := l.keys[i]; k != nil {
			l.mac.sealResponse(k, l.reply(i))
			l.keys[i] = nil
		}
	}
}

// sendSegmented sends ms as they are, skipping a message the kernel
// refuses; if it refuses to segment one, segmentation is off for good and
// that message and the rest go one datagram at a time.
func (l *udpLoop) sendSegmented(ms []ipv4.Message) {
	for sent := 0; sent < len(ms); {
		n, err := writeBatch(l.pc, ms[sent:])
		sent += n
		if err == nil || sent == len(ms) {
			continue
		}
		if ms[sent].OOB != nil && segmentRefused(err) {
			l.gso = false
			l.sendSingly(ms[sent:])
			return
		}
		sent++ // skip the message that failed
	}
}

// sendSingly sends ms one datagram per reply, a segmented message split
// into its segments.
func (l *udpLoop) sendSingly(ms []ipv4.Message) {
	k := 0
	for i := range ms {
		b := ms[i].Buffers[0]
		for off := 0; off < len(b); off += ResponseSize {
			if k == len(l.singles) {
				l.flushSingles(k)
				k = 0
			}
			l.singles[k].Buffers[0] = b[off : off+ResponseSize]
			l.singles[k].Addr = ms[i].Addr
			k++
		}
	}
	l.flushSingles(k)
}

// flushSingles sends the first k messages of l.singles and clears them.
func (l *udpLoop) flushSingles(k int) {
	writeAll(l.pc, l.singles[:k])
	for i := range k {
		l.singles[i].Addr, l.singles[i].Buffers[0] = nil, nil
	}
}

// writeAll sends ms, skipping any message the kernel refuses.
func writeAll(pc *ipv4.PacketConn, ms []ipv4.Message) {
	for sent := 0; sent < len(ms); {
		n, err := writeBatch(pc, ms[sent:])
		sent += n
		if err != nil {
			sent++ // skip the message that failed
		}
	}
}

// writeBatch is pc.WriteBatch, but n is never negative: on Linux it is -1
// with the error when the first message fails (sendmmsg's return value).
func writeBatch(pc *ipv4.PacketConn, ms []ipv4.Message) (n int, err error) {
	n, err = pc.WriteBatch(ms, 0)
	return max(n, 0), err
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
func (s *Server) count(t tally) {
	add(&s.answered, t.answered)
	add(&s.rateLimited, t.limited)
	add(&s.malformed, t.malformed)
	add(&s.unauthentic, t.unauthentic)
}

// add adds n to sum, touching it only when n is not zero.
func add(sum *atomic.Uint64, n uint64) {
	if n > 0 {
		sum.Add(n)
	}
}
