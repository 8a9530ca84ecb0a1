package bench

import (
	"math"
	"testing"

	"github.com/diperf/diperf/internal/search"
)

// TestSPRTLeast: at p99 (share 1%), δ = 0.5, α = β = 5%, the SPRT meets
// after ⌈ln(β/(1−α)) / ln(0.985/0.995)⌉ = 292 calls none over (the
// "about 300 calls" of docs/design/019-search.md) and fails after
// ⌈ln((1−β)/α) / ln 3⌉ = 3 calls all over.
func TestSPRTLeast(t *testing.T) {
	meet, fail := sprtLeast(0.01, 0.5, 0.05, 0.05)
	if meet != 292 || fail != 3 {
		t.Errorf("SPRT at the least: meets after %g calls, fails after %g; want 292 and 3", meet, fail)
	}
}

// TestRampCalls: 200 calls/s at 5%: steps of 10 calls/s, 10..210 (21
// steps); steps below 292 calls/s hold 2 s of warm-up and ⌈292/rate⌉ s
// measured, the last (210) 2 s and 1 s. Worked by hand: the warm-up is
// 2·10·(1+…+21) = 4620 calls; measured, Σ_{k=1..20} 10k·⌈29.2/k⌉ = 6750;
// the last step 210: 11580 in all, over 2·21 + Σ_{k=1..20} ⌈29.2/k⌉ (114)
// + 1 = 157 seconds.
func TestRampCalls(t *testing.T) {
	cfg, err := search.Config{SLOs: []search.SLO{mustSLO(t, "p99_ms < 30")}, MaxRate: 800}.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RampCalls(200, 0.01, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Steps != 21 || r.Calls != 11580 || r.Seconds != 157 {
		t.Errorf("ramp to 200 calls/s at 5%%: %d steps, %g calls, %g s; want 21, 11580, 157", r.Steps, r.Calls, r.Seconds)
	}
	cfg.Precision = 0.1 // half the steps, fewer calls
	if r2, _ := RampCalls(200, 0.01, cfg); r2.Steps != 11 || r2.Calls >= r.Calls {
		t.Errorf("ramp at 10%%: %d steps, %g calls; want 11 and fewer than at 5%% (%g)", r2.Steps, r2.Calls, r.Calls)
	}
	if _, err := RampCalls(math.NaN(), 0.01, cfg); err == nil {
		t.Error("a NaN truth was taken")
	}
}

func mustSLO(t *testing.T, s string) search.SLO {
	t.Helper()
	slo, err := search.ParseSLO(s)
	if err != nil {
		t.Fatal(err)
	}
	return slo
}
