package analyze

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// maxLiveHists bounds the dense histograms a histStore keeps at once (about
// 27 kB each): beyond, the least recently used one is packed into its
// non-zero counts. Samples read in time order (as diperf writes them)
// touch only the last few quanta, so packing is rare.
const maxLiveHists = 4096

// histStore holds one response-time histogram per quantum, in bounded
// memory whatever the number of quanta.
type histStore struct {
	live   []*hdr.Histogram // per quantum: its dense histogram, or nil
	packed [][]packedCount  // per quantum: its packed counts while not live
	used   []uint64         // per quantum: when it was last touched
	order  []int            // the live quanta
	tick   uint64
	limit  int
}

// packedCount is one non-zero bucket of a packed histogram.
type packedCount struct {
	index int32
	count int64
}

// newHistStore returns a store keeping at most limit dense histograms.
func newHistStore(limit int) *histStore {
	return &histStore{limit: max(limit, 1)}
}

// get returns quantum q's histogram, dense, creating it if need be.
func (s *histStore) get(q int) *hdr.Histogram {
	if q >= len(s.live) {
		n := max(q+1, 2*len(s.live))
		s.live = append(s.live, make([]*hdr.Histogram, n-len(s.live))...)
		s.packed = append(s.packed, make([][]packedCount, n-len(s.packed))...)
		s.used = append(s.used, make([]uint64, n-len(s.used))...)
	}
	s.tick++
	s.used[q] = s.tick
	if h := s.live[q]; h != nil {
		return h
	}
	var h *hdr.Histogram
	if len(s.order) >= s.limit {
		h = s.evict()
	} else {
		h = newHist()
	}
	if p := s.packed[q]; p != nil {
		h = unpack(p)
		s.packed[q] = nil
	}
	s.live[q] = h
	s.order = append(s.order, q)
	return h
}

// evict packs the least recently used live histogram and returns it,
// emptied, for reuse.
func (s *histStore) evict() *hdr.Histogram {
	k := 0
	for i, q := range s.order {
		if s.used[q] < s.used[s.order[k]] {
			k = i
		}
	}
	q := s.order[k]
	s.order[k] = s.order[len(s.order)-1]
	s.order = s.order[:len(s.order)-1]
	h := s.live[q]
	s.live[q] = nil
	s.packed[q] = pack(h)
	h.Reset()
	return h
}

// peek returns quantum q's histogram without making it live (nil if it has
// none); the caller must not keep it past the next get.
func (s *histStore) peek(q int) *hdr.Histogram {
	if q >= len(s.live) {
		return nil
	}
	if h := s.live[q]; h != nil {
		return h
	}
	if p := s.packed[q]; p != nil {
		return unpack(p)
	}
	return nil
}

// pack returns the non-zero counts of h.
func pack(h *hdr.Histogram) []packedCount {
	snap := h.Export()
	p := []packedCount{}
	for i, c := range snap.Counts {
		if c != 0 {
			p = append(p, packedCount{int32(i), c})
		}
	}
	return p
}

// unpack rebuilds a histogram from its packed counts.
func unpack(p []packedCount) *hdr.Histogram {
	snap := newHist().Export()
	for _, pc := range p {
		snap.Counts[pc.index] = pc.count
	}
	return hdr.Import(snap)
}
