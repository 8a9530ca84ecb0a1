package report

import (
	"math"
	"testing"

	"github.com/diperf/diperf/internal/search"
	"github.com/diperf/diperf/internal/stats"
)

// searchSim is a service of c servers, each call served in s seconds,
// first come first served, fed uniform arrivals second by second (as
// internal/search's tests simulate it), its seconds stamped from t0 on:
// what the controller feeds a search.
type searchSim struct {
	s, t, next float64
	t0         int64
	free       []float64
	done       []simCall
}

// simCall is a started call: when it ends and its response time.
type simCall struct{ end, rt float64 }

// second runs the service one second at rate calls/s.
func (m *searchSim) second(rate float64) search.Second {
	end := m.t + 1
	m.next = math.Max(m.next, m.t)
	if rate <= 0 {
		m.next = end
	}
	for ; m.next < end; m.next += 1 / rate {
		i := 0
		for j, f := range m.free {
			if f < m.free[i] {
				i = j
			}
		}
		start := math.Max(m.next, m.free[i])
		m.free[i] = start + m.s
		m.done = append(m.done, simCall{start + m.s, start + m.s - m.next})
	}
	sec := search.Second{T: m.t0 + int64(m.t), RT: stats.NewBucket(), Offered: rate}
	k := 0
	for ; k < len(m.done) && m.done[k].end < end; k++ {
		sec.RT.AddRT(int64(m.done[k].rt * 1e9))
		sec.OK++
	}
	m.done, m.t = m.done[k:], end
	return sec
}

// simulatedSearch runs the search engine to its verdict against 4
// servers of 20 ms (capacity 200 calls/s for p99_ms < 30), its seconds
// from t0: a search.Result as a real search writes it.
func simulatedSearch(t *testing.T, t0 int64) search.Result {
	t.Helper()
	slos, err := search.ParseSLOs([]string{"p99_ms < 30", "error_rate < 1%"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := search.New(search.Config{SLOs: slos, MaxRate: 800, Precision: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	m := &searchSim{s: 0.02, t0: t0, free: make([]float64, 4)}
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
	return s.Result()
}
