package search

import (
	"math"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/stats"
)

// sim is a service of c servers, each call served in s seconds, first
// come first served, fed uniform or Poisson arrivals: a discrete-event
// simulation, second by second. Its queue carries over from one load to
// the next, as a real service's does.
type sim struct {
	s       float64
	free    []float64 // when each server is next free, s
	t       float64   // start of the next second
	next    float64   // next arrival
	poisson bool
	rng     *rand.Rand
	done    []call // started calls, by end (FCFS with one service time: ends in order)
	bound   func(rate float64) string
}

// call is one started call: when it ends and its response time.
type call struct{ end, rt float64 }

// newSim is a service of c servers of service time s seconds.
func newSim(c int, s float64, poisson bool, seed uint64) *sim {
	return &sim{s: s, free: make([]float64, c), poisson: poisson, rng: rand.New(rand.NewPCG(seed, 1))}
}

// second runs the service one second at rate calls/s and returns it as
// the controller's aggregates have it.
func (m *sim) second(rate float64) Second {
	end := m.t + 1
	m.next = math.Max(m.next, m.t)
	if rate <= 0 {
		m.next = end
	}
	for m.next < end {
		i := 0
		for j, f := range m.free {
			if f < m.free[i] {
				i = j
			}
		}
		start := math.Max(m.next, m.free[i])
		m.free[i] = start + m.s
		m.done = append(m.done, call{start + m.s, start + m.s - m.next})
		m.next += m.gap(rate)
	}
	sec := Second{RT: stats.NewBucket(), Offered: rate}
	k := 0
	for ; k < len(m.done) && m.done[k].end < end; k++ {
		sec.RT.AddRT(int64(m.done[k].rt * 1e9))
		sec.OK++
	}
	m.done = m.done[k:]
	m.t = end
	if m.bound != nil {
		sec.TesterBound = m.bound(rate)
	}
	return sec
}

// gap is the time to the next arrival at rate.
func (m *sim) gap(rate float64) float64 {
	if m.poisson {
		return m.rng.ExpFloat64() / rate
	}
	return 1 / rate
}

// runSearch drives a search of cfg against m to its verdict.
func runSearch(cfg Config, m *sim) (Result, error) {
	s, err := New(cfg)
	if err != nil {
		return Result{}, err
	}
	load := s.First()
	for range 100 {
		st := s.NewStep(load)
		for !st.Add(m.second(st.Offer())) {
		}
		next, done := s.Next(st.Record())
		if done {
			break
		}
		load = next
	}
	return s.Result(), nil
}
