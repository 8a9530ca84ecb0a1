package bench

import (
	"slices"
	"time"
)

// rssWindow is how long a stretch of the sending the controller's memory
// is taken over: its RSS moves by tens of percent with every garbage
// collection (75-111 MB within seconds at 200,000 samples/s), so one
// sample says little; the median of a window's samples says what it holds.
const rssWindow = 20 * time.Second

// rssSeries is the controller tree's RSS sampled during the sending (each
// second, and once at its end), by time since its start.
type rssSeries struct {
	start time.Time
	d     time.Duration
	at    []time.Duration
	rss   []uint64
}

// add records a sample taken at now, when within the sending.
func (s *rssSeries) add(now time.Time, rss uint64) {
	t := now.Sub(s.start)
	if s.d == 0 || t < 0 || t > s.d+time.Second {
		return
	}
	s.at, s.rss = append(s.at, t), append(s.rss, rss)
}

// median is the median of the samples taken from from to to (0: none).
func (s *rssSeries) median(from, to time.Duration) uint64 {
	var w []uint64
	for i, t := range s.at {
		if t >= from && t <= to {
			w = append(w, s.rss[i])
		}
	}
	if len(w) == 0 {
		return 0
	}
	slices.Sort(w)
	return w[len(w)/2]
}

// at1Min is the median RSS over the window around minute 1 of the
// sending (50-70 s), 0 when the sending lasts less than its end.
func (s *rssSeries) at1Min() uint64 {
	if s.d < time.Minute+rssWindow/2 {
		return 0
	}
	return s.median(time.Minute-rssWindow/2, time.Minute+rssWindow/2)
}

// end is the median RSS over the sending's last rssWindow (its end
// included).
func (s *rssSeries) end() uint64 { return s.median(s.d-rssWindow, s.d+time.Second) }

// growth is (end − at1) / at1, nil without a figure at 1 minute.
func growth(at1, end uint64) *float64 {
	if at1 == 0 || end == 0 {
		return nil
	}
	g := round((float64(end)-float64(at1))/float64(at1), 4)
	return &g
}
