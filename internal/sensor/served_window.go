package sensor

import "time"

// servedWindow is the tests served within the window, with their sums in
// all and per peer kept at hand: deciding on a test costs the same
// however many the window holds.
type servedWindow struct {
	tests  []*servedTest // oldest first
	all    servedSum
	byPeer map[string]*servedSum
}

// servedTest is one test served: its time and bytes are the test time
// asked for until it is done, then what it really took and moved.
type servedTest struct {
	at    time.Time
	peer  string
	took  time.Duration
	bytes uint64
	gone  bool // out of the window: no longer in the sums
}

// servedSum is what tests served took and moved, and how many they are.
type servedSum struct {
	took  time.Duration
	bytes uint64
	n     int
}

// window is what the tests served within the window took and moved, in
// all and for one peer, and how many peers they were for (that one
// included).
type window struct {
	allT, peerT time.Duration
	allB, peerB uint64
	peers       int
}

// add books a test for peer of testTime, at now.
func (w *servedWindow) add(now time.Time, peer string, testTime time.Duration) *servedTest {
	if w.byPeer == nil {
		w.byPeer = map[string]*servedSum{}
	}
	t := &servedTest{at: now, peer: peer, took: testTime}
	w.tests = append(w.tests, t)
	p := w.byPeer[peer]
	if p == nil {
		p = &servedSum{}
		w.byPeer[peer] = p
	}
	for _, s := range []*servedSum{&w.all, p} {
		s.took, s.n = s.took+testTime, s.n+1
	}
	return t
}

// update records what t really took and moved.
func (w *servedWindow) update(t *servedTest, took time.Duration, bytes uint64) {
	if !t.gone {
		for _, s := range []*servedSum{&w.all, w.byPeer[t.peer]} {
			s.took, s.bytes = s.took-t.took+took, s.bytes-t.bytes+bytes
		}
	}
	t.took, t.bytes = took, bytes
}

// expire forgets the tests that started before the window.
func (w *servedWindow) expire(now time.Time) {
	i := 0
	for ; i < len(w.tests) && now.Sub(w.tests[i].at) >= ServeWindow; i++ {
		t := w.tests[i]
		t.gone = true
		p := w.byPeer[t.peer]
		for _, s := range []*servedSum{&w.all, p} {
			s.took, s.bytes, s.n = s.took-t.took, s.bytes-t.bytes, s.n-1
		}
		if p.n == 0 {
			delete(w.byPeer, t.peer)
		}
	}
	w.tests = w.tests[i:]
}

// sums is what the window holds in all and for peer.
func (w *servedWindow) sums(peer string) window {
	s := window{allT: w.all.took, allB: w.all.bytes, peers: len(w.byPeer)}
	if p := w.byPeer[peer]; p != nil {
		s.peerT, s.peerB = p.took, p.bytes
	} else {
		s.peers++
	}
	return s
}
