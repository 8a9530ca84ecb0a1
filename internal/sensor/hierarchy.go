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
