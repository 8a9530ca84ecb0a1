package forecast

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Score is one method's forecast errors over one series.
type Score struct {
	Method string  `json:"method"`
	MAE    float64 `json:"mae"`
	MSE    float64 `json:"mse"`
	N      int     `json:"n"` // forecasts scored
}

// PeriodScore is one method's errors at a test period of every n-th
// measurement: the mean over the n subsampled series (one per offset), and
// the spread of their MAEs (Gloperf Figure 11).
type PeriodScore struct {
	Method string  `json:"method"`
	MAE    float64 `json:"mae"`
	MSE    float64 `json:"mse"`
	MinMAE float64 `json:"min_mae"`
	MaxMAE float64 `json:"max_mae"`
}

// Period is the methods' errors when only every N-th measurement is kept.
type Period struct {
	N int `json:"n"`
	// Seconds is N times the median interval between measurements.
	Seconds float64       `json:"seconds"`
	Offsets int           `json:"offsets"` // subsampled series averaged (those with 2+ points)
	Scores  []PeriodScore `json:"scores"`
}

// Evaluation is Gloperf §4's analysis of one series: each method's errors
// on the whole series and by test period.
type Evaluation struct {
	TestTime string     `json:"test_time,omitempty"`
	Points   int        `json:"points"`
	Full     []Score    `json:"full"`
	Periods  []Period   `json:"periods"`
	Range    [2]float64 `json:"range"` // lowest and highest value: the random baseline's range
}

// Options tune Evaluate.
type Options struct {
	// MaxPeriod is the longest test period, in measurements: periods
	// 1..MaxPeriod are evaluated, fewer if a subsample would keep fewer
	// than MinPoints measurements. DefaultMaxPeriod when zero.
	MaxPeriod int
	// Seed seeds the random baseline.
	Seed uint64
}

// Evaluation defaults.
const (
	DefaultMaxPeriod = 12 // Gloperf: 5-minute data subsampled up to 60 minutes
	// MinPoints is the fewest measurements a subsampled series must keep.
	MinPoints = 10
)

// RandomName names the random-guess baseline.
const RandomName = "random"

// Methods are the methods Evaluate scores, fresh: the single forecasters,
// the adaptive one and the random baseline over [lo, hi] seeded with seed.
func Methods(lo, hi float64, seed [2]uint64) []Method {
	return append(Defaults(), NewAdaptive(), NewRandom(lo, hi, seed))
}

// Evaluate scores every method of Methods on points (in time order) as a
// whole and subsampled by test period.
func Evaluate(points []Measurement, o Options) Evaluation {
	if o.MaxPeriod <= 0 {
		o.MaxPeriod = DefaultMaxPeriod
	}
	lo, hi := valueRange(points)
	ev := Evaluation{Points: len(points), Range: [2]float64{lo, hi}}
	for _, e := range run(points, 1, 0, lo, hi, [2]uint64{o.Seed, 1 << 32}) { // the stream of period 1, offset 0
		ev.Full = append(ev.Full, Score{Method: e.name, MAE: e.MAE(), MSE: e.MSE(), N: e.N})
	}
	step := medianStep(points)
	for n := 1; n <= o.MaxPeriod && len(points)/n >= MinPoints; n++ {
		ev.Periods = append(ev.Periods, period(points, n, step, lo, hi, o.Seed))
	}
	return ev
}

// named is a method's name and errors.
type named struct {
	name string
	Errors
}

// run feeds every n-th point from offset to fresh methods and returns
// their errors.
func run(points []Measurement, n, offset int, lo, hi float64, seed [2]uint64) []named {
	ms := Methods(lo, hi, seed)
	ts := make([]Tracked, len(ms))
	for i, m := range ms {
		ts[i].Method = m
	}
	for j := offset; j < len(points); j += n {
		for i := range ts {
			ts[i].Observe(points[j])
		}
	}
	out := make([]named, len(ts))
	for i, t := range ts {
		out[i] = named{t.Method.Name(), t.Errors}
	}
	return out
}

// period averages the methods' errors over the n subsampled series.
func period(points []Measurement, n int, step time.Duration, lo, hi float64, seed uint64) Period {
	p := Period{N: n, Seconds: float64(n) * step.Seconds()}
	for off := 0; off < n; off++ {
		if (len(points)-off+n-1)/n < 2 {
			continue
		}
		p.Offsets++
		for i, e := range run(points, n, off, lo, hi, [2]uint64{seed, uint64(n)<<32 | uint64(off)}) {
			if i == len(p.Scores) {
				p.Scores = append(p.Scores, PeriodScore{Method: e.name, MinMAE: math.Inf(1), MaxMAE: math.Inf(-1)})
			}
			s := &p.Scores[i]
			s.MAE += e.MAE()
			s.MSE += e.MSE()
			s.MinMAE, s.MaxMAE = min(s.MinMAE, e.MAE()), max(s.MaxMAE, e.MAE())
		}
	}
	for i := range p.Scores {
		p.Scores[i].MAE /= float64(p.Offsets)
		p.Scores[i].MSE /= float64(p.Offsets)
	}
	return p
}

// valueRange is the lowest and highest value of points.
func valueRange(points []Measurement) (lo, hi float64) {
	if len(points) == 0 {
		return 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range points {
		lo, hi = min(lo, p.Value), max(hi, p.Value)
	}
	return lo, hi
}

// medianStep is the median interval between consecutive points.
func medianStep(points []Measurement) time.Duration {
	if len(points) < 2 {
		return 0
	}
	d := make([]time.Duration, len(points)-1)
	for i := range d {
		d[i] = points[i+1].At.Sub(points[i].At)
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// Random is Gloperf's sanity baseline: each forecast is drawn uniformly
// from [Lo, Hi], the range of the whole series (so it knows the range in
// advance, which no real forecaster does), from a seeded PCG stream.
type Random struct {
	lo, hi, next float64
	seen         bool
	rng          *rand.Rand
}

// NewRandom returns the random baseline over [lo, hi].
func NewRandom(lo, hi float64, seed [2]uint64) *Random {
	return &Random{lo: lo, hi: hi, rng: rand.New(rand.NewPCG(seed[0], seed[1]))}
}

// Name is RandomName.
func (*Random) Name() string { return RandomName }

// Predict returns the current draw, once a measurement has been seen.
func (r *Random) Predict() (float64, bool) { return r.next, r.seen }

// Observe draws the next forecast.
func (r *Random) Observe(Measurement) {
	r.seen = true
	r.next = r.lo + r.rng.Float64()*(r.hi-r.lo)
}
