package netsim

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestDelayDraw(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name   string
		d      Delay
		lo, hi time.Duration // every draw must be in [lo, hi]
	}{
		// No jitter: always exactly Base.
		{"fixed", Delay{Base: 20 * ms}, 20 * ms, 20 * ms},
		// Jitter: uniform in [Base, Base+Jitter).
		{"jitter", Delay{Base: 20 * ms, Jitter: 5 * ms}, 20 * ms, 25*ms - 1},
		// Negative jitter is treated as none.
		{"negative jitter", Delay{Base: 3 * ms, Jitter: -ms}, 3 * ms, 3 * ms},
		// A negative total is clamped to zero.
		{"negative base", Delay{Base: -10 * ms, Jitter: 2 * ms}, 0, 0},
		// Zero value: no delay.
		{"zero", Delay{}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, 2))
			for range 1000 {
				if v := tc.d.Draw(r); v < tc.lo || v > tc.hi {
					t.Fatalf("Draw = %v, want in [%v, %v]", v, tc.lo, tc.hi)
				}
			}
			if v := tc.d.Draw(nil); v < tc.lo || v > tc.hi {
				t.Fatalf("Draw(nil) = %v, want in [%v, %v]", v, tc.lo, tc.hi)
			}
		})
	}
}

func TestDelayDrawSpreadAndSeed(t *testing.T) {
	t.Parallel()
	d := Delay{Base: 10 * time.Millisecond, Jitter: 10 * time.Millisecond}
	a, b := newRand(7, 0, streamUp), newRand(7, 0, streamUp)
	down := newRand(7, 0, streamDown)
	var bins [10]int
	same, differ := true, false
	for range 10000 {
		v := d.Draw(a)
		same = same && v == d.Draw(b)
		differ = differ || v != d.Draw(down)
		bins[(v-d.Base)/time.Millisecond]++
	}
	if !same {
		t.Error("same seed and stream gave different draws")
	}
	if !differ {
		t.Error("up and down streams gave identical draws")
	}
	for i, n := range bins { // expect ~1000 per 1 ms bin
		if n < 800 || n > 1200 {
			t.Errorf("bin %d ms has %d draws, want ~1000 (uniform)", i, n)
		}
	}
}
