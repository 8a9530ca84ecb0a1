package forecast

import (
	"testing"
)

// score finds method's full-trace score.
func score(t *testing.T, ev Evaluation, method string) Score {
	t.Helper()
	for _, s := range ev.Full {
		if s.Method == method {
			return s
		}
	}
	t.Fatalf("no score for %s", method)
	return Score{}
}

// TestEvaluatePeriods: on a ramp 0..19 the last value misses by the step,
// so its MAE is n at period n and its MSE n²; 20 points allow periods 1
// and 2 (each subsample keeps MinPoints = 10), one second apart.
func TestEvaluatePeriods(t *testing.T) {
	vs := make([]float64, 20)
	for i := range vs {
		vs[i] = float64(i)
	}
	ev := Evaluate(feed(vs...), Options{Seed: 1})
	if ev.Points != 20 || ev.Range != [2]float64{0, 19} || len(ev.Periods) != 2 {
		t.Fatalf("points %d, range %v, %d periods; want 20, [0 19], 2", ev.Points, ev.Range, len(ev.Periods))
	}
	if s := score(t, ev, "last"); s.MAE != 1 || s.MSE != 1 || s.N != 19 {
		t.Errorf("full: last %+v, want MAE 1, MSE 1 over 19", s)
	}
	for _, p := range ev.Periods {
		n := float64(p.N)
		s := p.Scores[0]
		if s.Method != "last" || s.MAE != n || s.MSE != n*n || s.MinMAE != n || s.MaxMAE != n || p.Offsets != p.N || p.Seconds != n {
			t.Errorf("period %d: %+v over %d offsets, %g s; want MAE %g, MSE %g over %d, %g s", p.N, s, p.Offsets, p.Seconds, n, n*n, p.N, n)
		}
	}
	// the running mean of 0..k is k/2, so it misses k+1 by k/2+1: errors 1..10
	// after 0..18 — MAE over k = 0..18 of (k/2+1) = 5.5
	if s := score(t, ev, "mean"); !near(s.MAE, 5.5) {
		t.Errorf("full: mean MAE %g, want 5.5", s.MAE)
	}
}

// TestRandomBaseline: the random guesses stay in the trace's range, are
// the same for the same seed, and on a constant trace are exact.
func TestRandomBaseline(t *testing.T) {
	ms := Synthetic(200, 50, 5, 3)
	a := Evaluate(ms, Options{Seed: 7})
	b := Evaluate(ms, Options{Seed: 7})
	ra, rb := score(t, a, RandomName), score(t, b, RandomName)
	if ra != rb {
		t.Errorf("same seed, different baselines: %+v, %+v", ra, rb)
	}
	// uniform over ~[45, 115] against values near 60 or 100: far worse than any forecaster
	if last := score(t, a, "last"); !(ra.MAE > 2*last.MAE) {
		t.Errorf("random MAE %g is not far worse than last value's %g", ra.MAE, last.MAE)
	}
	r := NewRandom(4, 4, [2]uint64{1, 2})
	r.Observe(Measurement{})
	if v, ok := r.Predict(); !ok || v != 4 {
		t.Errorf("random over [4, 4] said %g", v)
	}
	if c := Evaluate(feed(4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4), Options{}); score(t, c, RandomName).MAE != 0 {
		t.Errorf("random baseline on a constant trace missed")
	}
}

// TestSyntheticKnownAnswer: on a level switching between 100 and 60 every
// 100 measurements plus noise (sd 5), 2,000 measurements, a smoother is
// best, the running mean worst, last value pays the noise twice (the
// adaptive forecaster on it: TestAdaptiveOnTraces).
func TestSyntheticKnownAnswer(t *testing.T) {
	ev := Evaluate(Synthetic(2000, 100, 5, 42), Options{MaxPeriod: 1}) // the whole trace is all it needs
	last, mean, exp := score(t, ev, "last"), score(t, ev, "mean"), score(t, ev, "exp0.35")
	// last value: E|e1−e2| = 2·5/√π ≈ 5.64 (plus the shifts' 40s)
	if last.MAE < 5.3 || last.MAE > 6.6 || !(exp.MAE < last.MAE) || !(mean.MAE > 3*last.MAE) {
		t.Errorf("known answer missed: last %g (≈5.64 + shifts), exp %g (< last), mean %g (≫ last)", last.MAE, exp.MAE, mean.MAE)
	}
}
