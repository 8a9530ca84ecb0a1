package monitor

import "math"

// Gap is the cumulative gap at one instant: the server's count less the
// clients' since the first scrape. Boundary jitter moves a call from one
// interval to the next and leaves it alone; a real disagreement (the
// server missing or adding calls) makes it grow.
type Gap struct {
	AtNs    int64
	Calls   float64 // server - clients, summed
	Server  float64 // the server's count, summed
	Pct     float64 // |Calls| in % of Server
	Allowed float64 // the calls near the outer boundaries + tolerance % of Server
	Beyond  bool    // |Calls| > Allowed
}

// GapSummary is the cumulative gap over the checked windows.
type GapSummary struct {
	Final  Gap // at the last checked window's end
	Max    Gap // where |Calls| was largest
	Beyond int // checked windows whose end was past the allowance
	Worst  Gap // the one furthest past it (when Beyond > 0)
}

// cumulate sums the windows' differences and sets each window's Cum. At
// a window's end the allowance is the calls near the outer boundaries of
// the scrapes so far (the first, each side of a gap between scrapes, and
// this end: inner boundaries cancel) plus tolerance % of the server's
// count; it is checked at the end of each checked window.
func cumulate(ws []Interval, tolerance float64) GapSummary {
	var s GapSummary
	var calls, server float64
	outer := 0
	for i := range ws {
		w := &ws[i]
		if i == 0 || ws[i-1].ToNs != w.FromNs {
			outer += w.NearFrom
			if i > 0 {
				outer += ws[i-1].NearTo
			}
		}
		calls, server = calls+w.Diff, server+w.Server
		g := Gap{AtNs: w.ToNs, Calls: calls, Server: server, Allowed: float64(outer+w.NearTo) + tolerance/100*server}
		g.Pct = pctOf(calls, server)
		g.Beyond = math.Abs(calls) > g.Allowed
		w.Cum = g
		if !w.Checked {
			continue
		}
		s.Final = g
		if math.Abs(g.Calls) >= math.Abs(s.Max.Calls) {
			s.Max = g
		}
		if g.Beyond {
			if s.Beyond == 0 || math.Abs(g.Calls)-g.Allowed > math.Abs(s.Worst.Calls)-s.Worst.Allowed {
				s.Worst = g
			}
			s.Beyond++
		}
	}
	return s
}

// pctOf is |d| in % of server (100 when the server counted nothing and d
// is not 0).
func pctOf(d, server float64) float64 {
	switch {
	case server > 0:
		return math.Abs(d) / server * 100
	case d != 0:
		return 100
	}
	return 0
}
