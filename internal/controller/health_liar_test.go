package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// honestHealth is a health second a tester may have measured at local.
func honestHealth(local int64) protocol.HealthSecond {
	busy, steal := 40.0, 0.5
	return protocol.HealthSecond{LocalNs: local, CPUPct: 12.5, CPUCores: 2, HostBusyPct: &busy, HostStealPct: &steal,
		LagMeanMs: 0.2, LagMaxMs: 1.5, Starts: 30, FDs: 12, FDLimit: 1024}
}

// TestHealthOfALyingTester has a tester send, besides one honest second,
// a second of every impossible kind, a second twice and a batch too
// large: only the honest second is stored (health.csv), each lie is
// refused and counted in testers.csv with a reason.
func TestHealthOfALyingTester(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	lies := map[string]func(h *protocol.HealthSecond){
		"second out of the run": func(h *protocol.HealthSecond) { h.LocalNs += int64(time.Hour) },
		"second before the run": func(h *protocol.HealthSecond) { h.LocalNs -= int64(time.Hour) },
		"negative CPU":          func(h *protocol.HealthSecond) { h.CPUPct = -1 },
		"CPU over all":          func(h *protocol.HealthSecond) { h.CPUPct = 200 },
		"no cores":              func(h *protocol.HealthSecond) { h.CPUCores = 0 },
		"too many cores":        func(h *protocol.HealthSecond) { h.CPUCores = 5000 },
		"busy over 100":         func(h *protocol.HealthSecond) { h.HostBusyPct = pct(101) },
		"negative steal":        func(h *protocol.HealthSecond) { h.HostStealPct = pct(-3) },
		"negative lag":          func(h *protocol.HealthSecond) { h.LagMeanMs, h.LagMaxMs = -5, -1 },
		"lag past the run":      func(h *protocol.HealthSecond) { h.LagMaxMs = float64(time.Hour.Milliseconds()) },
		"mean over max":         func(h *protocol.HealthSecond) { h.LagMeanMs = 2 * h.LagMaxMs },
		"lag without starts":    func(h *protocol.HealthSecond) { h.Starts = 0 },
		"negative starts":       func(h *protocol.HealthSecond) { h.Starts = -1 },
		"impossible starts":     func(h *protocol.HealthSecond) { h.Starts = 2e7 },
		"fds over the limit":    func(h *protocol.HealthSecond) { h.FDs = h.FDLimit + 1 },
		"negative fds":          func(h *protocol.HealthSecond) { h.FDs = -1 },
		"limit past 1<<24":      func(h *protocol.HealthSecond) { h.FDLimit = 1<<24 + 1 },
	}
	var honestLocal int64
	dir, rec := runLiar(t, nil, func(l *liar) {
		l.batch(l.honest(10))
		honestLocal = time.Now().UnixNano()
		l.send(protocol.TypeHealth, protocol.HealthBatch{Seconds: []protocol.HealthSecond{honestHealth(honestLocal)}})
		for _, lie := range lies {
			h := honestHealth(time.Now().UnixNano())
			lie(&h)
			l.send(protocol.TypeHealth, protocol.HealthBatch{Seconds: []protocol.HealthSecond{h}})
		}
		// the honest second again, and a batch over the bound
		l.send(protocol.TypeHealth, protocol.HealthBatch{Seconds: []protocol.HealthSecond{honestHealth(honestLocal)}})
		big := make([]protocol.HealthSecond, protocol.MaxHealthBatch+1)
		for i := range big {
			big[i] = honestHealth(time.Now().UnixNano() - int64(i)*int64(time.Millisecond))
		}
		l.send(protocol.TypeHealth, protocol.HealthBatch{Seconds: big})
		l.waitAcked()
		l.done(l.honestDone())
	})
	rows, err := rundir.ReadHealth(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("health.csv holds %d rows, want only the honest one: %+v", len(rows), rows)
	}
	want := honestHealth(honestLocal)
	got := rows[0]
	if wantT := (honestLocal - int64(time.Second)/2) / int64(time.Second); got.Slot != 0 || got.T != wantT {
		t.Errorf("row of slot %d at second %d, want slot 0 at %d", got.Slot, got.T, wantT)
	}
	if got.CPUPct != want.CPUPct || got.CPUCores != want.CPUCores || got.HostBusyPct != *want.HostBusyPct ||
		got.HostStealPct != *want.HostStealPct || got.LagMeanMs != want.LagMeanMs || got.LagMaxMs != want.LagMaxMs ||
		got.Starts != want.Starts || got.FDs != want.FDs || got.FDLimit != want.FDLimit {
		t.Errorf("stored %+v, want the figures of %+v", got, want)
	}
	// each lie, the duplicate and the oversized batch: one refusal each
	if n := uint64(len(lies) + 2); rec.Refused.Messages != n {
		t.Errorf("testers.csv counts %d messages refused, want %d (%q)", rec.Refused.Messages, n, rec.Refused.Reason)
	}
	if !strings.Contains(rec.Refused.Reason, "health") {
		t.Errorf("refused_reason %q does not say it was the health", rec.Refused.Reason)
	}
}
