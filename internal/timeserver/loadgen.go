package timeserver

import (
	"context"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"golang.org/x/net/ipv4"
)

const (
	// loadTick is the pacing period of Load: finer than Go timers fire
	// on Linux (about 1 ms) would only add wake-ups.
	loadTick = time.Millisecond
	// loadReadBuf holds any reply, so that an oversized one is measured,
	// and any replies the server sends coalesced (maxGSOSegments of
	// ResponseSize bytes), twice over.
	loadReadBuf = 2 * maxGSOSegments * ResponseSize
	// loadPacers is the number of sending goroutines: on loopback a send
	// also delivers, which is more than one core can do at 100k/s.
	loadPacers = 2
)

// LoadConfig describes an open-loop UDP load on a time server.
type LoadConfig struct {
	Target   string        // the server's UDP address
	Rate     float64       // requests/s, all sources together
	Duration time.Duration // how long to send
	Sources  []netip.Addr  // local addresses to send from, one socket each
	Grace    time.Duration // how long to wait for late replies after sending
	// Key, when set, authenticates the requests (the server must hold
	// it): each batch's requests share one send time, and so one MAC.
	Key *Key
}

// LoadResult is what Load measured.
type LoadResult struct {
	Sent     uint64        // requests sent
	Answered uint64        // valid replies received
	Skipped  uint64        // requests not sent: the sender fell behind by more than a batch
	Failed   uint64        // requests the kernel refused to send
	Elapsed  time.Duration // time spent sending
	// MaxReplyRatio is the largest reply size over its request's size.
	MaxReplyRatio float64
	// RTTs are the round trips, from just before the send to the kernel's
	// receive timestamp of the reply, sorted.
	RTTs []time.Duration
}

// Quantile returns the q-quantile (0..1) of the round trips, or 0.
func (r LoadResult) Quantile(q float64) time.Duration {
	if len(r.RTTs) == 0 {
		return 0
	}
	return r.RTTs[min(len(r.RTTs)-1, int(q*float64(len(r.RTTs))))]
}

// Load sends requests to cfg.Target at cfg.Rate, spread round-robin in
// batches over one socket per source address, each socket's replies read
// by its own goroutine. Where the kernel offers it, a batch goes out as one
// segmented send (UDP_SEGMENT) and replies are read coalesced (UDP_GRO).
// Pacing is open-loop: each tick sends what is due by the clock, and after
// a stall it catches up by at most loadCatchUp's worth, skipping (and
// counting) the rest rather than bursting.
func Load(ctx context.Context, cfg LoadConfig) (LoadResult, error) {
	if cfg.Rate <= 0 || cfg.Duration <= 0 || len(cfg.Sources) == 0 {
		return LoadResult{}, fmt.Errorf("timeserver: load needs a rate, a duration and sources")
	}
	target, err := net.ResolveUDPAddr("udp", cfg.Target)
	if err != nil {
		return LoadResult{}, err
	}
	srcs, err := openSources(cfg.Sources, target)
	if err != nil {
		return LoadResult{}, err
	}
	if cfg.Key != nil {
		for _, s := range srcs {
			s.auth = newClientAuth(cfg.Key)
		}
	}
	var wg sync.WaitGroup
	for _, s := range srcs {
		wg.Go(s.read)
	}
	res := paceAll(ctx, srcs, cfg.Rate, cfg.Duration)
	clock.Sleep(ctx, cfg.Grace)
	for _, s := range srcs {
		s.conn.SetReadDeadline(time.Unix(1, 0))
	}
	wg.Wait()
	for _, s := range srcs {
		s.conn.Close()
		res.Answered += s.answered
		res.MaxReplyRatio = max(res.MaxReplyRatio, float64(s.maxReply)/RequestSize)
		res.RTTs = append(res.RTTs, s.rtts...)
	}
	slices.Sort(res.RTTs)
	return res, nil
}

// loadSource is one sending socket and what its reader saw. A batch of
// requests is written into buf, then sent as one segmented write when gso
// is set, else as the messages of out, one per request.
type loadSource struct {
	conn     *net.UDPConn
	pc       *ipv4.PacketConn
	buf      []byte
	out      []ipv4.Message
	gso      bool
	auth     *clientAuth // nil: unauthenticated requests
	answered uint64
	maxReply int
	rtts     []time.Duration
}

// openSources opens one socket per address, connected to target.
func openSources(addrs []netip.Addr, target *net.UDPAddr) ([]*loadSource, error) {
	srcs := make([]*loadSource, 0, len(addrs))
	for _, a := range addrs {
		c, err := dialSource(a, target)
		if err != nil {
			for _, s := range srcs {
				s.conn.Close()
			}
			return nil, err
		}
		srcs = append(srcs, newLoadSource(c))
	}
	return srcs, nil
}

// newLoadSource returns the loadSource sending on c, segmenting its sends
// if the kernel agrees.
func newLoadSource(c *net.UDPConn) *loadSource {
	s := &loadSource{
		conn: c, pc: ipv4.NewPacketConn(c),
		buf: make([]byte, batchSize*RequestSize),
		out: make([]ipv4.Message, batchSize),
		gso: setSendSegment(c, RequestSize),
	}
	for i := range s.out {
		s.out[i].Buffers = [][]byte{s.buf[i*RequestSize : (i+1)*RequestSize]}
	}
	return s
}

// dialSource returns a socket from a to target, connected so that the
// kernel looks the route up once, with timestamps, large buffers and,
// where the kernel offers it, replies read coalesced.
func dialSource(a netip.Addr, target *net.UDPAddr) (*net.UDPConn, error) {
	c, err := net.DialUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 0)), target)
	if err != nil {
		return nil, err
	}
	if err := tuneUDP(c, socketBuffer); err != nil {
		c.Close()
		return nil, err
	}
	enableGRO(c) // without it, replies are read one datagram each
	return c, nil
}

// send sends k ≤ batchSize requests stamped with the time now: as one
// segmented write if it can, else as a batch of datagrams. When the
// kernel refuses to segment, segmentation is off for s from then on, and
// the batch goes again as datagrams.
func (s *loadSource) send(k int) (sent int) {
	s.fill(k, time.Now().UnixNano())
	if s.gso {
		_, err := s.conn.Write(s.buf[:k*RequestSize])
		if err == nil {
			return k
		}
		if !segmentRefused(err) {
			return 0
		}
		s.gso = false
	}
	for sent < k {
		n, err := writeBatch(s.pc, s.out[sent:k])
		sent += n
		if err != nil {
			return sent
		}
	}
	return sent
}

// fill writes k requests stamped t1 into s.buf, authenticated with one
// MAC when s has a key.
func (s *loadSource) fill(k int, t1 int64) {
	req := AppendRequest(s.buf[:0], t1)
	if s.auth != nil {
		s.auth.seal(req)
	}
	for i := 1; i < k; i++ {
		copy(s.buf[i*RequestSize:], req)
	}
}

// read counts and times replies until the socket's read deadline passes.
func (s *loadSource) read() {
	in := make([]ipv4.Message, batchSize)
	for i := range in {
		in[i].Buffers = [][]byte{make([]byte, loadReadBuf)}
		in[i].OOB = make([]byte, oobSize)
	}
	for {
		n, err := s.pc.ReadBatch(in, 0)
		if err != nil {
			return
		}
		now := time.Now().UnixNano()
		for i := range in[:n] {
			s.readReplies(&in[i], now)
		}
	}
}

// readReplies counts and times the replies in one read m: a datagram, or
// several that the kernel coalesced (GRO), which arrived together and so
// share m's kernel timestamp (else now) as T4.
func (s *loadSource) readReplies(m *ipv4.Message, now int64) {
	data, oob := m.Buffers[0][:m.N], m.OOB[:m.NN]
	t4, ok := kernelStamp(oob)
	if !ok {
		t4 = now
	}
	seg := segmentOf(len(data), oob)
	for i := range segmentCount(len(data), seg) {
		p := data[min(i*seg, len(data)):min((i+1)*seg, len(data))]
		s.maxReply = max(s.maxReply, len(p))
		t1, _, _, err := ParseResponse(p)
		if err != nil {
			continue
		}
		s.answered++
		s.rtts = append(s.rtts, time.Duration(t4-t1))
	}
}

// paceAll splits srcs and rate among loadPacers pacers and adds up what
// they did.
func paceAll(ctx context.Context, srcs []*loadSource, rate float64, d time.Duration) LoadResult {
	n := min(loadPacers, len(srcs))
	parts := make([]LoadResult, n)
	var wg sync.WaitGroup
	for i := range parts {
		var mine []*loadSource
		for j := i; j < len(srcs); j += n {
			mine = append(mine, srcs[j])
		}
		wg.Go(func() { parts[i] = pace(ctx, mine, rate/float64(n), d) })
	}
	wg.Wait()
	var res LoadResult
	for _, p := range parts {
		res.Sent += p.Sent
		res.Skipped += p.Skipped
		res.Failed += p.Failed
		res.Elapsed = max(res.Elapsed, p.Elapsed)
	}
	return res
}

// loadCatchUp is how far behind schedule a pacer may fall and still send
// everything that was due: the scheduler on a busy 2-core machine can hold
// a goroutine back for a few milliseconds.
const loadCatchUp = 20 * time.Millisecond

// pace sends at rate for d over srcs, round-robin in batches.
func pace(ctx context.Context, srcs []*loadSource, rate float64, d time.Duration) LoadResult {
	perTick := rate * loadTick.Seconds()
	maxDue := uint64(max(2*perTick, rate*loadCatchUp.Seconds(), batchSize))
	tick := time.NewTicker(loadTick)
	defer tick.Stop()
	var res LoadResult
	var scheduled uint64
	next := 0
	start := time.Now()
	for el := time.Duration(0); el < d && ctx.Err() == nil; {
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		el = min(time.Since(start), d)
		due := uint64(el.Seconds()*rate) - scheduled
		scheduled += due
		if due > maxDue {
			res.Skipped += due - maxDue
			due = maxDue
		}
		for due > 0 {
			k := int(min(due, batchSize))
			sent := srcs[next].send(k)
			res.Sent += uint64(sent)
			res.Failed += uint64(k - sent)
			next = (next + 1) % len(srcs)
			due -= uint64(k)
		}
	}
	res.Elapsed = time.Since(start)
	return res
}
