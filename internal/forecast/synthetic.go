package forecast

import (
	"math/rand/v2"
	"time"
)

// Synthetic is a trace with a known answer: a level that shifts every
// shift measurements between 100 and 60, plus Gaussian noise of standard
// deviation sd, one measurement a second from t0, seeded. Between shifts
// the best predictor is a smoother (the exponential average or the
// median, whose error is mostly the noise), the running mean is lost after
// the first shift, and the last value pays the noise twice (its MAE is
// about 2·sd/√π ≈ 1.13·sd).
func Synthetic(n, shift int, sd float64, seed uint64) []Measurement {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	t0 := time.Unix(1_700_000_000, 0).UTC()
	out := make([]Measurement, n)
	for i := range out {
		level := 100.0
		if shift > 0 && (i/shift)%2 == 1 {
			level = 60
		}
		out[i] = Measurement{At: t0.Add(time.Duration(i) * time.Second), Value: level + sd*rng.NormFloat64()}
	}
	return out
}
