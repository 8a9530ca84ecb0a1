package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

// meanWait integrates P(W > x) over x (Simpson's rule, 64 panels per
// service time, out to where the tail is below 1e−12).
func meanWait(t *testing.T, c int, lambda, s float64) float64 {
	t.Helper()
	q, err := newMDC(c, lambda, s)
	if err != nil {
		t.Fatal(err)
	}
	tail := func(x float64) float64 { return 1 - q.waitCDF(x) }
	const panels = 64
	h := s / panels
	var sum float64
	for k := 0; ; k++ {
		x0 := float64(k) * s
		if k > 0 && tail(x0) < 1e-12 {
			return sum
		}
		for i := range panels {
			a := x0 + float64(i)*h
			sum += h / 6 * (tail(a) + 4*tail(a+h/2) + tail(a+h))
		}
	}
}

// TestMD1ClosedForms: in the M/D/1 queue P(W = 0) = 1 − ρ and the mean
// wait is ρS/(2(1 − ρ)) (Pollaczek–Khinchine); the waiting-time law of
// MDCWaitCDF must give both.
func TestMD1ClosedForms(t *testing.T) {
	const s = 0.02
	for _, rho := range []float64{0.1, 0.5, 0.8, 0.9} {
		p0, err := MDCWaitCDF(1, rho/s, s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p0-(1-rho)) > 1e-9 {
			t.Errorf("ρ %g: P(W = 0) = %.12f, want 1 − ρ = %g", rho, p0, 1-rho)
		}
		want := rho * s / (2 * (1 - rho))
		if got := meanWait(t, 1, rho/s, s); math.Abs(got-want) > 1e-6*want {
			t.Errorf("ρ %g: mean wait %.9g s, want ρS/(2(1−ρ)) = %.9g s", rho, got, want)
		}
	}
}

// TestMDCLittle: for c > 1 the mean wait of the waiting-time law equals
// Little's law on the chain's own law of the calls in the system,
// (E[Q] − λS)/λ: two ways through the same queue that share only π.
func TestMDCLittle(t *testing.T) {
	const s = 0.02
	for _, c := range []int{2, 4, 16} {
		for _, rho := range []float64{0.5, 0.85} {
			lambda := rho * float64(c) / s
			pi, err := mdcInSystem(c, lambda*s)
			if err != nil {
				t.Fatal(err)
			}
			var q float64
			for n, p := range pi {
				q += float64(n) * p
			}
			little := (q - lambda*s) / lambda
			if got := meanWait(t, c, lambda, s); math.Abs(got-little) > 1e-6*little+1e-12 {
				t.Errorf("c %d, ρ %g: mean wait %.9g s, Little's law %.9g s", c, rho, got, little)
			}
		}
	}
}

// simulate is a discrete-event simulation of c FCFS servers of service
// time s: calls leave in the order they came, so a call starts at its
// arrival or when the call c places before it leaves. It returns the
// share of calls that waited at least wait, after a warm-up of a tenth.
func simulate(c int, s, wait float64, next func() float64, calls int) float64 {
	ends := make([]float64, c) // ring: the ends of the last c calls
	var at float64
	var over, n int
	for i := range calls {
		at += next()
		start := math.Max(at, ends[i%c])
		ends[i%c] = start + s
		if i >= calls/10 {
			n++
			if start-at >= wait {
				over++
			}
		}
	}
	return float64(over) / float64(n)
}

// TestMDCAgainstSimulation: the share of calls waiting at least S/2 in a
// long simulation of Poisson arrivals (fixed seed) agrees with
// MDCWaitCDF within four standard deviations of the count.
func TestMDCAgainstSimulation(t *testing.T) {
	const s, calls = 0.02, 2_000_000
	for _, c := range []int{1, 4} {
		lambda := 0.8 * float64(c) / s
		r := rand.New(rand.NewPCG(uint64(c), 7))
		sim := simulate(c, s, s/2, func() float64 { return r.ExpFloat64() / lambda }, calls)
		cdf, err := MDCWaitCDF(c, lambda, s, s/2)
		if err != nil {
			t.Fatal(err)
		}
		// Calls are correlated in a queue: the spread of the count is
		// wider than a binomial's; 20 binomial deviations still tell a
		// wrong law (the share is ~10%, off by a tenth is 0.01).
		sd := math.Sqrt((1 - cdf) * cdf / calls)
		if math.Abs(sim-(1-cdf)) > 20*sd {
			t.Errorf("c %d, ρ 0.8: %.5f of the simulated calls waited S/2 or more, the M/D/c law says %.5f", c, sim, 1-cdf)
		}
	}
}

// TestSearchTruth: the bench's known answers. Uniform arrivals: c/s (the
// D/D/c queue: a simulation at 0.1% below c/s has no call waiting S/2, at
// 0.1% above most of them do). Poisson: the share waiting S/2 or more at
// the truth is 1%, and the truth lies below c/s.
func TestSearchTruth(t *testing.T) {
	const c, s = 4, 0.02
	u, err := SearchTruth(ArrivalsUniform, c, s, 1.5, 0.01)
	if err != nil || u != c/s {
		t.Fatalf("uniform truth %g (%v), want %g", u, err, c/s)
	}
	for _, f := range []struct{ rate, min, max float64 }{{0.999 * u, 0, 0}, {1.001 * u, 0.5, 1}} {
		got := simulate(c, s, s/2, func() float64 { return 1 / f.rate }, 200_000)
		if got < f.min || got > f.max {
			t.Errorf("D/D/%d at %g calls/s: %.4f waited S/2 or more, want within [%g, %g]", c, f.rate, got, f.min, f.max)
		}
	}
	p, err := SearchTruth(ArrivalsPoisson, c, s, 1.5, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	cdf, err := MDCWaitCDF(c, p, s, s/2)
	if err != nil || math.Abs(1-cdf-0.01) > 1e-6 || p >= u {
		t.Errorf("poisson truth %g calls/s: P(W ≥ S/2) = %.7f (%v), want 1%% and below %g", p, 1-cdf, err, u)
	}
	t.Logf("c %d, S %g s: uniform truth %g, poisson truth %.4f calls/s (ρ %.4f)", c, s, u, p, p*s/c)
}
