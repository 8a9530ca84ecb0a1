package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// udpPair returns a tester's sender and a controller's receiver of one
// grant on the session of binding b.
func udpPair(t testing.TB, b Binding, g UDPDesc) (*UDPSender, *UDPReceiver) {
	t.Helper()
	s, err := NewUDPSender(keysOf(RoleTester, b), g)
	if err != nil {
		t.Fatal(err)
	}
	r := NewUDPReceiver()
	if err := r.Add(g.Session, keysOf(RoleController, b)); err != nil {
		t.Fatal(err)
	}
	return s, r
}

var testGrant = UDPDesc{Addr: "127.0.0.1:9", Session: 7, Datagram: DefaultDatagram}

// testSamples returns n samples of varied encodings: some with error
// texts, phases, intended starts and extras.
func testSamples(n int) []sample.Sample {
	out := make([]sample.Sample, n)
	for i := range out {
		s := sample.Sample{Seq: uint64(i + 1), Client: uint32(i % 50), Start: int64(1e9 + i*1000), Status: sample.OK, Bytes: int64(i % 700)}
		s.End = s.Start + int64(100+i%5000)
		switch i % 7 {
		case 1:
			s.Status, s.Err = sample.Failed, fmt.Sprintf("connection refused %d", i)
		case 2:
			s.Intended = s.Start - 5000
			s.Phases = sample.Phases{Connect: 10, FirstByte: 90}
		case 3:
			s.Extras = []sample.Extra{{Key: "mb", Value: float64(i)}}
		}
		out[i] = s
	}
	return out
}

// TestUDPRoundTrip sends samples through sender and receiver: every
// datagram fits the grant, the samples come out as they went in, and the
// counts say so.
func TestUDPRoundTrip(t *testing.T) {
	t.Parallel()
	for _, size := range []int{MinDatagram, DefaultDatagram, 9000} {
		g := testGrant
		g.Datagram = size
		s, r := udpPair(t, testBinding(1), g)
		in := testSamples(3000)
		var out []sample.Sample
		for rest := in; len(rest) > 0; {
			d, n, err := s.SealBatch(uint64(len(in)), rest)
			if err != nil {
				t.Fatal(err)
			}
			if len(d) > size || n == 0 {
				t.Fatalf("datagram of %d bytes, %d samples, for a grant of %d", len(d), n, size)
			}
			rest = rest[n:]
			dg, err := r.Open(d)
			if err != nil {
				t.Fatal(err)
			}
			b, err := dg.DecodeBatch()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Samples...)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("size %d: samples changed on the way", size)
		}
		st, err := r.Finish(g.Session, s.LastSeq())
		if err != nil || st.Lost != 0 || st.Samples != uint64(len(in)) || st.Received != s.LastSeq() {
			t.Fatalf("size %d: %+v, %v", size, st, err)
		}
		t.Logf("datagram %d: %d samples in %d datagrams", size, len(in), st.Received)
	}
}

// TestAppendBatchFit: the batch takes as many samples as fit, exactly.
func TestAppendBatchFit(t *testing.T) {
	t.Parallel()
	in := testSamples(500)
	for _, limit := range []int{200, 1369, 4000, 1 << 20} {
		for _, produced := range []uint64{0, 1 << 40} {
			b, n := AppendBatchFit([]byte("hdr"), produced, in, limit)
			if string(b[:3]) != "hdr" || len(b)-3 > limit {
				t.Fatalf("limit %d: %d bytes", limit, len(b)-3)
			}
			got, err := DecodeBatch(b[3:])
			if err != nil {
				t.Fatal(err)
			}
			if got.Produced != produced || !reflect.DeepEqual(got.Samples, in[:n]) {
				t.Fatalf("limit %d: decoded something else", limit)
			}
			if n < len(in) && len(AppendBatch(nil, &Batch{Produced: produced, Samples: in[:n+1]})) <= limit {
				t.Errorf("limit %d: %d samples taken, %d fit", limit, n, n+1)
			}
		}
	}
	if _, n := AppendBatchFit(nil, 0, in, 5); n != 0 {
		t.Errorf("%d samples in 5 bytes", n)
	}
}

// TestUDPLargestSampleFits: a sample of the largest encoding fits a
// datagram of MinDatagram.
func TestUDPLargestSampleFits(t *testing.T) {
	t.Parallel()
	big := sample.Sample{Seq: 1<<64 - 1, Start: -1 << 62, End: 1 << 62, Intended: 1, Client: MaxClientIndex, Bytes: -1 << 63,
		Err: string(bytes.Repeat([]byte{'e'}, MaxErrText)), Phases: sample.Phases{DNS: 1 << 62, Connect: 1 << 62, TLS: 1 << 62, FirstByte: 1 << 62}}
	for i := range sample.MaxExtras {
		big.Extras = append(big.Extras, sample.Extra{Key: fmt.Sprintf("k%031d", i), Value: 1})
	}
	g := testGrant
	g.Datagram = MinDatagram
	s, _ := udpPair(t, testBinding(1), g)
	if _, n, err := s.SealBatch(1<<64-1, []sample.Sample{big}); err != nil || n != 1 {
		t.Fatalf("the largest sample: %d taken, %v", n, err)
	}
}

// TestUDPDrops sends what a relay or an attacker could: each is dropped
// with its reason, counted, and never disturbs the genuine stream.
func TestUDPDrops(t *testing.T) {
	t.Parallel()
	b := testBinding(1)
	s, r := udpPair(t, b, testGrant)
	other, _ := udpPair(t, testBinding(2), testGrant) // another connection's keys, same session id
	seal := func(s *UDPSender) []byte {
		d, _, err := s.SealBatch(1, testSamples(3))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Clone(d)
	}
	d1, d2 := seal(s), seal(s)
	flip := func(d []byte, i int) []byte { d = bytes.Clone(d); d[i] ^= 1; return d }
	otherSession := bytes.Clone(d1)
	otherSession[4] = 8 // session 8 exists, under its own key
	g8 := testGrant
	g8.Session = 8
	if err := r.Add(8, keysOf(RoleController, testBinding(3))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    []byte
		want error
	}{
		{"empty", nil, DropShort},
		{"too short", d1[:UDPOverhead-1], DropShort},
		{"bad version", flip(d1, 0), DropMalformed},
		{"unknown session", flip(d1, 1), DropSession},
		{"moved to another session", otherSession, DropAuth},
		{"another connection's key", seal(other), DropAuth},
		{"altered sequence number", flip(d1, 11), DropAuth},
		{"altered count", flip(d1, 14), DropAuth},
		{"altered batch", flip(d1, UDPHeaderSize+2), DropAuth},
		{"altered tag", flip(d1, len(d1)-1), DropAuth},
		{"truncated", d1[:len(d1)-1], DropAuth},
		{"genuine", d1, nil},
		{"replayed", d1, DropDuplicate},
		{"genuine", d2, nil},
		{"replayed again", d1, DropDuplicate},
	} {
		_, err := r.Open(bytes.Clone(tc.d))
		if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	st, err := r.Finish(testGrant.Session, s.LastSeq())
	if err != nil || st != (LossStats{Received: 2, Samples: 6, Duplicates: 2, Highest: 2, Last: 2, Finished: true}) {
		t.Errorf("counts %+v, %v", st, err)
	}
	if _, err := r.Open(bytes.Clone(d2)); !errors.Is(err, DropClosed) {
		t.Errorf("after Finish: %v", err)
	}
	r.Remove(testGrant.Session)
	if _, err := r.Open(bytes.Clone(d2)); !errors.Is(err, DropSession) {
		t.Errorf("after Remove: %v", err)
	}
	want := map[string]uint64{"short": 2, "malformed": 1, "unknown_session": 2, "auth": 7, "closed": 1, "duplicate": 2, "stale": 0, "ahead": 0}
	if got := r.Drops(); !reflect.DeepEqual(got, want) {
		t.Errorf("drops %v, want %v", got, want)
	}
}

// TestUDPKeys: the keys of a grant are bound to the connection and the
// session, and only the right side's keys make a sender or a receiver.
func TestUDPKeys(t *testing.T) {
	t.Parallel()
	b := testBinding(1)
	if _, err := NewUDPSender(keysOf(RoleController, b), testGrant); err == nil {
		t.Error("a sender from the controller's keys")
	}
	if err := NewUDPReceiver().Add(1, keysOf(RoleTester, b)); err == nil {
		t.Error("a receiver from the tester's keys")
	}
	if err := NewUDPReceiver().Add(0, keysOf(RoleController, b)); err == nil {
		t.Error("session 0 accepted")
	}
	r := NewUDPReceiver()
	_ = r.Add(1, keysOf(RoleController, b))
	if err := r.Add(1, keysOf(RoleController, b)); err == nil {
		t.Error("a session added twice")
	}
	for _, g := range []UDPDesc{{Session: 1, Datagram: 1400}, {Addr: "a:1", Datagram: 1400}, {Addr: "a:1", Session: 1, Datagram: MinDatagram - 1}, {Addr: "a:1", Session: 1, Datagram: MaxDatagram + 1}} {
		if g.Validate() == nil {
			t.Errorf("grant %+v accepted", g)
		}
	}
}

// TestUDPSealAllocs: sealing and opening a datagram allocate nothing.
func TestUDPSealAllocs(t *testing.T) {
	s, r := udpPair(t, testBinding(1), testGrant)
	in := testSamples(100)
	buf := make([]byte, 0, DefaultDatagram)
	if n := testing.AllocsPerRun(100, func() {
		d, _, err := s.SealBatch(1, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Open(append(buf[:0], d...)); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per datagram", n)
	}
}

// FuzzUDPOpen feeds arbitrary datagrams to a receiver: it never panics,
// every datagram is either dropped with a counted reason or is one the
// genuine sender sealed, and the counts add up.
func FuzzUDPOpen(f *testing.F) {
	b := testBinding(1)
	s, _ := udpPair(f, b, testGrant)
	for i := range 3 {
		d, _, _ := s.SealBatch(uint64(i), testSamples(i+1))
		f.Add(bytes.Clone(d))
	}
	f.Add([]byte{UDPVersion, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, d []byte) {
		_, r := udpPair(t, b, testGrant)
		in := bytes.Clone(d)
		dg, err := r.Open(d)
		st, _ := r.Stats(testGrant.Session)
		drops := uint64(0)
		for _, n := range r.Drops() {
			drops += n
		}
		if err != nil {
			if drops != 1 || st.Received != 0 {
				t.Fatalf("dropped (%v) but counted %d drops, %+v", err, drops, st)
			}
			return
		}
		if drops != 0 || st.Received != 1 || st.Samples != uint64(dg.Count) {
			t.Fatalf("accepted but counted %d drops, %+v", drops, st)
		}
		ref, _ := udpPair(t, b, testGrant)
		ref.seq = dg.Seq - 1
		again, err := ref.SealPayload(dg.Count, dg.Batch)
		if err != nil || !bytes.Equal(again, in) {
			t.Fatalf("accepted a datagram the sender never sealed: % x", in)
		}
	})
}
