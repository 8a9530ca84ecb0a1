package sensor

// estimate is Estimate over h's peers: measured, else along the
// hierarchy with every hop measured its own way, else the other
// direction, else the hierarchy with hops known only the other way.
func (h hierarchy) estimate(m Measured, src, dst string) (Link, bool) {
	if l, ok := m.direct(src, dst); ok {
		return l, true
	}
	if l, ok := h.along(m, src, dst, false); ok {
		return l, true
	}
	if l, ok := m.reverse(src, dst); ok {
		return l, true
	}
	return h.along(m, src, dst, true)
}

// along is the estimate src → global of its site → global of dst's site
// → dst through the pair of global sensors that gives the most
// bandwidth; with anyWay a hop may be known only the other way.
func (h hierarchy) along(m Measured, src, dst string, anyWay bool) (Link, bool) {
	s, okS := h.byName[src]
	d, okD := h.byName[dst]
	if !okS || !okD {
		return Link{}, false
	}
	best, found := Link{}, false
	for _, gs := range h.globalsOf(s) {
		for _, gd := range h.globalsOf(d) {
			l, ok := m.path([]string{s.Name, gs.Name, gd.Name, d.Name}, anyWay)
			if ok && (!found || l.BandwidthBps > best.BandwidthBps) {
				best, found = l, true
			}
		}
	}
	return best, found
}
