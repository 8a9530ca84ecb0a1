package tester

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// stepAt is the payload of a load step.
func stepAt(seq uint32, atNs int64, rate float64, active uint32) []byte {
	b, _ := json.Marshal(protocol.LoadStep{Seq: seq, AtNs: atNs, Rate: rate, Active: active})
	return b
}

// newTestSteerer is the steerer of a steered tester of 4 clients whose
// mapped clock reads global time g0 whenever it is read, the clock
// synced.
func newTestSteerer(steered bool, g0 int64) *steerer {
	s := newSteerer(&protocol.TestDesc{Steered: steered, ClientsPerTester: 4}, io.Discard, "t")
	s.setClock(func() (int64, int64) { return g0, 0 })
	return s
}

// TestSteerRefuses: each step out of bounds is refused and counted with
// its reason, never applied: of a run that did not ask for steering,
// malformed, out of order (Seq or instant not after the last step's), more
// than 1 s in the past or 60 s ahead on the tester's mapped clock, the
// 21st in a second, or before the clock synced. A good step is handed on
// with its instant mapped from global time to the tester's clock.
func TestSteerRefuses(t *testing.T) {
	t.Parallel()
	now := time.Now()
	const g0 = int64(1_700_000_000e9) // global time at now: the tester's clock is far from it
	refused := func(s *steerer, p []byte, at time.Time, want string) {
		t.Helper()
		_, before, _ := s.counts()
		s.receive(p, at)
		if _, n, why := s.counts(); n != before+1 || !strings.Contains(why, want) {
			t.Errorf("%s: refused %d → %d (%q); want one more, %q", p, before, n, why, want)
		}
	}
	refused(newTestSteerer(false, g0), stepAt(1, g0, 1, 0), now, "did not ask for steering")
	s := newSteerer(&protocol.TestDesc{Steered: true}, io.Discard, "t")
	refused(s, stepAt(1, g0, 1, 0), now, "not synced")

	s = newTestSteerer(true, g0)
	refused(s, []byte(`{"seq":1,`), now, "load step")
	refused(s, stepAt(1, g0, 1, 5), now, "5 active clients of 4")
	refused(s, stepAt(1, g0-int64(1100*time.Millisecond), 1, 0), now, "allowed: -1s to 1m0s")
	refused(s, stepAt(1, g0+int64(61*time.Second), 1, 0), now, "allowed: -1s to 1m0s")
	s.receive(stepAt(5, g0+int64(2*time.Second), 7, 3), now)
	got := <-s.steps
	if got.seq != 5 || got.rate != 7 || got.active != 3 || got.at.Sub(now) != 2*time.Second {
		t.Errorf("took %+v, want seq 5, rate 7, 3 active, 2 s from now", got)
	}
	refused(s, stepAt(5, g0+int64(3*time.Second), 1, 0), now, "out of order")
	refused(s, stepAt(6, g0+int64(2*time.Second), 1, 0), now, "out of order")
	for i := range maxStepsPerSecond - 1 { // 20 in all within 0.5 s
		s.receive(stepAt(uint32(6+i), g0+int64(3*time.Second)+int64(i), 1, 0), now.Add(time.Duration(i)*25*time.Millisecond))
	}
	refused(s, stepAt(30, g0+int64(4*time.Second), 1, 0), now.Add(999*time.Millisecond), "more than 20 steps in a second")
	s.receive(stepAt(31, g0+int64(4*time.Second), 1, 0), now.Add(1001*time.Millisecond))
	if taken, n, _ := s.counts(); taken != 21 || n != 7 {
		t.Errorf("%d taken, %d refused; want 21 and 7", taken, n)
	}
}
