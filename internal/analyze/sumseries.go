package analyze

// sumSeries counts values and sums them per quantum.
type sumSeries struct {
	n   []int     // per quantum: values added
	sum []float64 // per quantum: their sum
}

// add adds v to quantum q.
func (s *sumSeries) add(q int, v float64) {
	s.grow(q)
	s.n[q]++
	s.sum[q] += v
}

// grow makes room for quantum q.
func (s *sumSeries) grow(q int) {
	if q < len(s.n) {
		return
	}
	n := max(q+1, 2*len(s.n), 64)
	s.n = append(s.n, make([]int, n-len(s.n))...)
	s.sum = append(s.sum, make([]float64, n-len(s.sum))...)
}

// merge adds b's quanta to s's.
func (s *sumSeries) merge(b *sumSeries) {
	s.grow(len(b.n) - 1)
	for q := range b.n {
		s.n[q] += b.n[q]
		s.sum[q] += b.sum[q]
	}
}
