package analyze

// Cells divide every quantum into m equal parts (at most 1 ms each, fewer
// for long runs: see cellsFor). The offered load is integrated exactly over
// them; its maximum, the successful completions and prefix integrals for
// any window are known to the cell.
const (
	maxCellNs = int64(1_000_000) // a cell is at most 1 ms when the run allows
	maxCells  = 1 << 23          // cells allocated for the expected span
)

// cells is the fine-grained view of the run on which calls are folded.
type cells struct {
	origin, qn int64
	m          int64     // cells per quantum
	cellNs     int64     // cell length when m divides qn (the usual case), else 0
	partial    []float64 // per cell: in-flight time of calls that start or end in it, ns
	full       []int32   // difference array: calls in flight over the whole cell
	busy       []int32   // difference array: calls in flight at some time in the cell
	okc        []uint32  // per cell: successful calls ending in it
}

// cellsFor returns the cell count per quantum for a run expected to span
// span ns: as many as make cells of at most 1 ms, fewer if the run is so
// long that they would exceed maxCells.
func cellsFor(qn, span int64) int64 {
	m := (qn + maxCellNs - 1) / maxCellNs
	quanta := max(span/qn+1, 1)
	if quanta*m > maxCells {
		m = max(maxCells/quanta, 1)
	}
	return m
}

// newCells prepares the cells of a run from origin with quanta of qn ns
// and m cells each.
func newCells(origin, qn, m int64) *cells {
	c := &cells{origin: origin, qn: qn, m: m}
	if qn%m == 0 {
		c.cellNs = qn / m
	}
	return c
}

// index returns the cell holding t ≥ origin.
func (c *cells) index(t int64) int {
	d := t - c.origin
	if c.cellNs != 0 {
		return int(d / c.cellNs)
	}
	q := d / c.qn
	k := (d - q*c.qn) * c.m / c.qn
	return int(q*c.m + k)
}

// start returns the first instant of cell i.
func (c *cells) start(i int) int64 {
	if c.cellNs != 0 {
		return c.origin + int64(i)*c.cellNs
	}
	q, k := int64(i)/c.m, int64(i)%c.m
	return c.origin + q*c.qn + k*c.qn/c.m
}

// grow makes room for cell i and the difference arrays' i+1.
func (c *cells) grow(i int) {
	if i+2 <= len(c.partial) {
		return
	}
	n := max(i+2, 2*len(c.partial), 1024)
	c.partial = append(c.partial, make([]float64, n-len(c.partial))...)
	c.full = append(c.full, make([]int32, n-len(c.full))...)
	c.busy = append(c.busy, make([]int32, n-len(c.busy))...)
	c.okc = append(c.okc, make([]uint32, n-len(c.okc))...)
}

// add folds a call in flight over [s, e), origin ≤ s < e; from is the first
// cell the call may count as busy in (to count a tester's back-to-back calls
// once per cell). It returns the last cell the call is in flight in.
func (c *cells) add(s, e int64, from int) int {
	c0, c1 := c.index(s), c.index(e)
	c.grow(c1)
	s1 := c.start(c1)
	if c0 == c1 {
		c.partial[c0] += float64(e - s)
	} else {
		c.partial[c0] += float64(c.start(c0+1) - s)
		c.partial[c1] += float64(e - s1)
		c.full[c0+1]++
		c.full[c1]--
	}
	last := c1
	if s1 == e {
		last--
	}
	if from = max(from, c0); from <= last {
		c.busy[from]++
		c.busy[last+1]--
	}
	return last
}

// complete counts a successful call ending at t ≥ origin.
func (c *cells) complete(t int64) {
	i := c.index(t)
	c.grow(i)
	c.okc[i]++
}

// loadView is the load computed from the cells: per-quantum area and
// maximum, and the prefix integral and completions at every cell boundary.
type loadView struct {
	c    *cells
	area []float64 // per quantum: ∫ calls in flight dt, call·ns
	max  []int     // per quantum: most calls in flight in any one cell
	cum  []float64 // per cell boundary i: ∫ calls in flight dt from origin to start(i)
	oks  []uint64  // per cell boundary i: successful calls ending before start(i)
}

// view integrates the cells over n quanta.
func (c *cells) view(n int) loadView {
	total := n * int(c.m)
	c.grow(total)
	v := loadView{c: c, area: make([]float64, n), max: make([]int, n),
		cum: make([]float64, total+1), oks: make([]uint64, total+1)}
	var full, busy int64
	for i := range total {
		full += int64(c.full[i])
		busy += int64(c.busy[i])
		a := float64(full)*float64(c.start(i+1)-c.start(i)) + c.partial[i]
		q := i / int(c.m)
		v.area[q] += a
		v.max[q] = max(v.max[q], int(busy))
		v.cum[i+1] = v.cum[i] + a
		v.oks[i+1] = v.oks[i] + uint64(c.okc[i])
	}
	return v
}

// integral returns ∫ calls in flight dt from origin to t, interpolating
// within t's cell; t is clamped to the quanta.
func (v loadView) integral(t int64) float64 {
	i, f := v.at(t)
	return v.cum[i] + f*(v.cum[i+1]-v.cum[i])
}

// at returns t's cell and how far into it t lies (0 to 1), clamped.
func (v loadView) at(t int64) (int, float64) {
	last := len(v.cum) - 1
	if t <= v.c.origin {
		return 0, 0
	}
	i := v.c.index(t)
	if i >= last {
		return last - 1, 1
	}
	s, e := v.c.start(i), v.c.start(i+1)
	return i, float64(t-s) / float64(e-s)
}

// okIn returns the successful calls that ended in [a, b], to the cell: the
// cells holding a and b count whole.
func (v loadView) okIn(a, b int64) int {
	if b < a {
		return 0
	}
	i, _ := v.at(a)
	j, _ := v.at(b)
	return int(v.oks[j+1] - v.oks[i])
}
