package timeserver

import (
	"net/netip"
	"testing"
	"time"
)

// BenchmarkAnswer measures what the server does for each request, without
// the sockets: check it (and its MAC), rate-limit it, write the reply,
// stamp T3 (and seal it), in batches of 64 as a read loop does. Compare
// plain and auth for the cost of authentication per request.
func BenchmarkAnswer(b *testing.B) {
	k := NewKey(1)
	for _, bc := range []struct {
		name string
		req  []byte
	}{{"plain", AppendRequest(nil, 1)}, {"auth", authRequest(k, 1)}} {
		b.Run(bc.name, func(b *testing.B) {
			s := New(Config{RatePerSource: 1e12, BurstPerSource: 1e12})
			s.AddKey(k)
			l := newUDPLoop(s, nil)
			src := netip.MustParseAddr("127.0.0.1")
			var t tally
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.lim.mu.Lock()
				l.answerOne(bc.req, src, s.lim.now(time.Now()), 1, &t)
				s.lim.mu.Unlock()
				if l.nrep == batchSize || i%batchSize == batchSize-1 {
					l.stamp()
					l.nrep = 0
				}
			}
			if t.answered == 0 || t.unauthentic+t.malformed+t.limited != 0 {
				b.Fatalf("tally %+v", t)
			}
		})
	}
}
