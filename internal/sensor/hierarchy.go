package sensor

// hierarchy indexes peers for estimates: each peer by name (the last of
// a name), and the global sensors of each site in the order of peers, so
// that a map of n sensors costs O(n²), not O(n³).
type hierarchy struct {
	byName  map[string]Peer
	globals map[string][]Peer
}

func newHierarchy(peers []Peer) hierarchy {
	h := hierarchy{byName: make(map[string]Peer, len(peers)), globals: map[string][]Peer{}}
	for _, p := range peers {
		h.byName[p.Name] = p
		if p.global() {
			h.globals[p.Site] = append(h.globals[p.Site], p)
		}
	}
	return h
}

// globalsOf returns the global sensors of p's site (p itself first if it
// is one).
func (h hierarchy) globalsOf(p Peer) []Peer {
	var out []Peer
	if p.global() {
		out = append(out, p)
	}
	for _, q := range h.globals[p.Site] {
		if q.Name != p.Name {
			out = append(out, q)
		}
	}
	return out
}

// estimate is Estimate over h's peers.
func (h hierarchy) estimate(m Measured, src, dst string) (Link, bool) {
	if l, ok := m.direct(src, dst); ok {
		return l, true
	}
	s, okS := h.byName[src]
	d, okD := h.byName[dst]
	if !okS || !okD {
		return Link{}, false
	}
	best, found := Link{}, false
	for _, gs := range h.globalsOf(s) {
		for _, gd := range h.globalsOf(d) {
			if l, ok := m.path([]string{s.Name, gs.Name, gd.Name, d.Name}); ok && (!found || l.BandwidthBps > best.BandwidthBps) {
				best, found = l, true
			}
		}
	}
	return best, found
}
