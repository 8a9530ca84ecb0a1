package controller

import (
	"encoding/json"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// probeAnswerEvery is the least time between two answers to one tester's
// probes: a tester asks once per silence, so only a misbehaving one asks
// more often, and gets no more answers for it.
const probeAnswerEvery = 100 * time.Millisecond

// answerProbe answers a tester's probe at once, from its session's own
// goroutine, with a heartbeat carrying the probe's number: the answer
// takes neither c.mu nor the gate, so a controller whose lock is held up
// (a slow spool write under it, the sweep) still tells its testers it is
// there. A tester takes itself for cut off only when its probe goes
// unanswered (docs/design/011-failure-semantics.md). Only s's session
// calls it.
func (c *controller) answerProbe(s *slot, n uint64) {
	now := time.Now().UnixNano()
	if now-s.probeAnswered < int64(probeAnswerEvery) {
		return
	}
	s.probeAnswered = now
	b, _ := json.Marshal(protocol.Heartbeat{Probe: n})
	_ = s.conn.Write(protocol.TypeHeartbeat, b) // a failed write ends the session at its next read
}
