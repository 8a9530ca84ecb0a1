package timeserver

import (
	"encoding/binary"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/net/ipv4"
)

// groCmsg builds a UDP_GRO control message carrying segment size size.
func groCmsg(size int32) []byte {
	return cmsg(solUDP, udpGRO, binary.NativeEndian.AppendUint32(nil, uint32(size)), 0)
}

func TestGROSegmentSize(t *testing.T) {
	t.Parallel()
	if !haveSegmentation {
		t.Skip("no UDP segmentation on this platform")
	}
	stamp := cmsg(solSocket, scmTimestampNS, timespec(1, 2), 0)
	tests := []struct {
		name string
		oob  []byte
		want int
		ok   bool
	}{
		{"alone", groCmsg(48), 48, true},                               // the coalesced case
		{"after a timestamp", append(stamp, groCmsg(48)...), 48, true}, // as the kernel sends them
		{"timestamp only", stamp, 0, false},                            // one datagram
		{"empty", nil, 0, false},                                       // no control data
		{"zero size", groCmsg(0), 0, false},                            // would never end a loop
		{"negative size", groCmsg(-48), 0, false},                      // nonsense
		{"wrong level", cmsg(solUDP+1, udpGRO, []byte{48, 0, 0, 0}, 0), 0, false},
		{"too short", cmsg(solUDP, udpGRO, []byte{48, 0}, 0), 0, false}, // not an int
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := groSegmentSize(tt.oob)
			if got != tt.want || ok != tt.ok {
				t.Errorf("groSegmentSize = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestGROSegmentSizeAllocs(t *testing.T) {
	oob := append(cmsg(solSocket, scmTimestampNS, timespec(1, 2), 0), groCmsg(48)...)
	if n := testing.AllocsPerRun(100, func() { groSegmentSize(oob) }); n != 0 {
		t.Errorf("groSegmentSize allocates %v times", n)
	}
}

func TestSegmentCmsg(t *testing.T) {
	t.Parallel()
	b := segmentCmsg(ResponseSize)
	d, ok := cmsgData(b, solUDP, udpSegment, 2)
	if len(b) != segmentCmsgLen || !ok || binary.NativeEndian.Uint16(d) != ResponseSize {
		t.Errorf("segmentCmsg(%d) = %x: want a %d-byte UDP_SEGMENT message of %d", ResponseSize, b, segmentCmsgLen, ResponseSize)
	}
}

func TestSegmentCount(t *testing.T) {
	t.Parallel()
	tests := []struct{ n, seg, want int }{
		{0, 1, 1},       // an empty datagram is still one
		{48, 48, 1},     // one full segment
		{480, 48, 10},   // ten
		{500, 48, 11},   // and a short last one
		{900, 900, 1},   // one long datagram
		{47, 48, 1},     // a short one
		{100, 200, 1},   // segment size beyond the read
		{4096, 32, 128}, // many
	}
	for _, tt := range tests {
		if got := segmentCount(tt.n, tt.seg); got != tt.want {
			t.Errorf("segmentCount(%d, %d) = %d, want %d", tt.n, tt.seg, got, tt.want)
		}
	}
}

// segmentedUDP returns a socket connected to addr whose writes go out as
// datagrams of seg bytes each (UDP_SEGMENT); it skips the test where the
// kernel does not segment sends.
func segmentedUDP(t *testing.T, addr string, seg int) *net.UDPConn {
	t.Helper()
	c := rawUDP(t, "", addr)
	if !setSendSegment(c, seg) {
		t.Skip("the kernel does not segment UDP sends (UDP_SEGMENT)")
	}
	return c
}

// requests returns n requests with T1s first, first+1, ... back to back.
func requests(n int, first int64) []byte {
	var b []byte
	for i := range n {
		b = AppendRequest(b, first+int64(i))
	}
	return b
}

// readDatagrams reads datagrams until it has n, waiting up to patience
// for those, then until quiet passes without another, and returns them.
func readDatagrams(t *testing.T, c *net.UDPConn, n int, quiet time.Duration) [][]byte {
	t.Helper()
	var ds [][]byte
	buf := make([]byte, 2048)
	deadline := time.Now().Add(patience)
	for {
		if len(ds) >= n {
			deadline = time.Now().Add(quiet)
		}
		c.SetReadDeadline(deadline)
		m, err := c.Read(buf)
		if err != nil {
			return ds
		}
		ds = append(ds, slices.Clone(buf[:m]))
	}
}

// echoedT1s parses replies, each of which must be exactly ResponseSize
// bytes, and returns their T1s, sorted, and their T2s.
func echoedT1s(t *testing.T, replies [][]byte) (t1s, t2s []int64) {
	t.Helper()
	for _, r := range replies {
		t1, t2, _, err := ParseResponse(r)
		if err != nil {
			t.Fatalf("reply of %d bytes: %v", len(r), err)
		}
		t1s, t2s = append(t1s, t1), append(t2s, t2)
	}
	slices.Sort(t1s)
	return t1s, t2s
}

func TestListenUDPCoalescesSegmentedSends(t *testing.T) {
	t.Parallel()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := segmentedUDP(t, c.LocalAddr().String(), RequestSize)
	if _, err := s.Write(requests(10, 1)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(patience))
	buf, oob := make([]byte, recvBufSize), make([]byte, oobSize)
	n, oobn, _, _, err := c.ReadMsgUDP(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	seg, ok := groSegmentSize(oob[:oobn])
	if n != 10*RequestSize || !ok || seg != RequestSize {
		t.Errorf("read %d bytes, segment size %d (%v); want %d bytes in segments of %d", n, seg, ok, 10*RequestSize, RequestSize)
	}
	if _, ok := kernelStamp(oob[:oobn]); !ok {
		t.Error("no kernel timestamp on a coalesced read")
	}
}

func TestServeUDPSegmentedRequests(t *testing.T) {
	t.Parallel()
	s, addr := startUDP(t, Config{})
	c := segmentedUDP(t, addr, RequestSize)
	if _, err := c.Write(requests(10, 100)); err != nil {
		t.Fatal(err)
	}
	replies := readDatagrams(t, c, 10, 50*time.Millisecond)
	t1s, t2s := echoedT1s(t, replies)
	if want := []int64{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}; !slices.Equal(t1s, want) {
		t.Errorf("echoed T1s %v, want %v", t1s, want)
	}
	if slices.Min(t2s) != slices.Max(t2s) {
		t.Errorf("T2s %v: want the coalesced read's one timestamp", t2s)
	}
	if st := waitStats(t, s, 10); st != (Stats{Answered: 10}) {
		t.Errorf("stats %+v, want Answered 10", st)
	}
}

func TestServeUDPRepliesSegmented(t *testing.T) {
	t.Parallel()
	_, addr := startUDP(t, Config{})
	c := segmentedUDP(t, addr, RequestSize)
	if !enableGRO(c) {
		t.Skip("the kernel does not coalesce UDP reads (UDP_GRO)")
	}
	if _, err := c.Write(requests(10, 1)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(patience))
	buf, oob := make([]byte, recvBufSize), make([]byte, oobSize)
	n, oobn, _, _, err := c.ReadMsgUDP(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	seg, ok := groSegmentSize(oob[:oobn])
	if n != 10*ResponseSize || !ok || seg != ResponseSize {
		t.Errorf("read %d bytes, segment size %d (%v); want the 10 replies as one send of %d-byte segments", n, seg, ok, ResponseSize)
	}
}

func TestServeUDPSegmentedMixed(t *testing.T) {
	t.Parallel()
	s, addr := startUDP(t, Config{})
	c := segmentedUDP(t, addr, RequestSize)
	with := func(t1 int64, i int, b byte) []byte { p := AppendRequest(nil, t1); p[i] = b; return p }
	var b []byte
	b = AppendRequest(b, 1)                        // valid
	b = append(b, with(2, 0, 'X')...)              // bad magic
	b = AppendRequest(b, 3)                        // valid
	b = append(b, with(4, 5, kindResponse)...)     // a response's kind
	b = append(b, with(5, 6, 1)...)                // reserved byte set
	b = AppendRequest(b, 6)                        // valid
	b = AppendRequest(b, 7)[:len(b)+RequestSize-1] // the last segment one byte short
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	t1s, _ := echoedT1s(t, readDatagrams(t, c, 3, 50*time.Millisecond))
	if want := []int64{1, 3, 6}; !slices.Equal(t1s, want) {
		t.Errorf("echoed T1s %v, want %v", t1s, want)
	}
	if st := waitStats(t, s, 7); st != (Stats{Answered: 3, Malformed: 4}) {
		t.Errorf("stats %+v, want Answered 3, Malformed 4", st)
	}
}

func TestServeUDPSegmentedRateLimit(t *testing.T) {
	t.Parallel()
	s, addr, _ := startUDPClocked(t, Config{RatePerSource: 100, BurstPerSource: 10})
	c := segmentedUDP(t, addr, RequestSize)
	if _, err := c.Write(requests(50, 0)); err != nil {
		t.Fatal(err)
	}
	// The limiter's clock stands still: exactly the burst is answered.
	st := waitStats(t, s, 50)
	answered := len(readDatagrams(t, c, int(st.Answered), 50*time.Millisecond))
	if answered != 10 || st != (Stats{Answered: 10, RateLimited: 40}) {
		t.Fatalf("%d answers, stats %+v; want the burst of 10 answered and the rest RateLimited", answered, st)
	}
}

func TestServeUDPSegmentedReplyNeverLargerThanRequest(t *testing.T) {
	t.Parallel()
	s, addr := startUDP(t, Config{})
	c := segmentedUDP(t, addr, RequestSize)
	handled := uint64(0)
	for seg := 1; seg <= 2*RequestSize; seg++ {
		if !setSendSegment(c, seg) {
			t.Fatalf("UDP_SEGMENT %d refused", seg)
		}
		var b []byte
		for i := range 3 {
			req := AppendRequest(nil, int64(seg*10+i))
			b = append(b, append(req, make([]byte, RequestSize)...)[:seg]...)
		}
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		handled += 3
		waitStats(t, s, handled) // then the replies are on their way
		want := 0
		if seg >= RequestSize {
			want = 3
		}
		replies := readDatagrams(t, c, want, 20*time.Millisecond)
		if len(replies) != want {
			t.Errorf("3 segments of %d bytes got %d replies, want %d", seg, len(replies), want)
		}
		for _, r := range replies {
			if len(r) > seg {
				t.Fatalf("a %d-byte request segment got a %d-byte reply", seg, len(r))
			}
		}
	}
}

func TestUDPLoopFallsBackToSingleDatagrams(t *testing.T) {
	t.Parallel()
	srv, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dst, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	l := newUDPLoop(New(Config{}), ipv4.NewPacketConn(srv))
	// A segment size of 1 for 5 replies of 48 bytes is more segments than
	// the kernel allows: it refuses the send.
	l.segCmsg = segmentCmsg(1)
	for i := range 5 {
		plainResponse(l.reply(i), int64(i), 0)
	}
	l.nrep = 5
	l.queue(0, dst.LocalAddr())
	plainResponse(l.reply(5), 5, 0) // and a single reply after it
	l.nrep = 6
	l.queue(5, dst.LocalAddr())
	l.write()
	t1s, _ := echoedT1s(t, readDatagrams(t, dst, 6, 50*time.Millisecond))
	if want := []int64{0, 1, 2, 3, 4, 5}; !slices.Equal(t1s, want) || l.gso {
		t.Errorf("echoed T1s %v, segmentation %v; want %v, off", t1s, l.gso, want)
	}
}

func TestLoadSourceReadsCoalescedReplies(t *testing.T) {
	t.Parallel()
	if !haveSegmentation {
		t.Skip("no UDP segmentation on this platform")
	}
	var data []byte
	for i := range 3 {
		data = append(data, response(int64(100+i), 0, 0, nil)...)
	}
	const t4 = 1_000_000_200
	oob := append(cmsg(solSocket, scmTimestampNS, timespec(1, 200), 0), groCmsg(ResponseSize)...)
	m := ipv4.Message{Buffers: [][]byte{data}, OOB: oob, N: len(data), NN: len(oob)}
	var s loadSource
	s.readReplies(&m, 0)
	want := []time.Duration{t4 - 100, t4 - 101, t4 - 102}
	if s.answered != 3 || s.maxReply != ResponseSize || !slices.Equal(s.rtts, want) {
		t.Errorf("answered %d, largest %d, RTTs %v; want 3, %d, %v", s.answered, s.maxReply, s.rtts, ResponseSize, want)
	}
	// An oversized reply segment is measured as such.
	m.OOB = groCmsg(RequestSize)
	m.NN = len(m.OOB)
	s.readReplies(&m, 0)
	if s.maxReply != RequestSize {
		t.Errorf("largest reply %d after %d-byte segments, want %d", s.maxReply, RequestSize, RequestSize)
	}
}
